// The seed queue of several instances on one PostgreSQL: a request is a job in the shared tables
// (cluster-store.ts) whose chunks every instance takes from the pg-boss work queue (work-queue.ts)
// and renders (seed/job-breeder.ts); metatile locks are advisory locks on a pool of their own, so
// renders waiting for one never starve the catalog's requests of connections; a seed's next metatile
// takes its lock in the statement that releases the previous one's.
import { createClusterSeedStore, SEED_QUEUE } from './cluster-store.js'
import type { MetatileLock, SeedQueue } from '../../seed/seed-queue.js'
import type { ChunkRef } from '../../seed/job-store.js'
import type { ChangeBus } from './change-bus.js'
import { createKeyedLock, type PgDatabase } from './database.js'
import type { NodeRegistry } from './nodes.js'
import { openWorkQueue } from './work-queue.js'

export function clusterSeedQueue (db: PgDatabase, nodes: NodeRegistry, bus: ChangeBus): SeedQueue {
  return {
    jobs: createClusterSeedStore(db),
    nodeId: nodes.id,
    liveNodes: async () => (await nodes.live()).map((n) => n.id),
    subscribe: (handler) => bus.subscribe(handler),
    openQueue: async (onError) => await openWorkQueue<ChunkRef>(db, SEED_QUEUE, { onError })
  }
}

/** Metatile locks in one round trip each (database.ts createKeyedLock); `flush` before the pool closes. */
export const advisoryMetatileLock = (locks: PgDatabase): MetatileLock & { flush (): Promise<void> } => createKeyedLock(locks)
