// The embedded default's seed queue and metatile lock: the job tables in the catalog
// (job-store.ts), an in-process work queue (work-queue.ts) that this process's workers take chunks
// from, one node, changes announced within the process; and a lock per metatile held in memory,
// which keeps an on-demand render and a seed of the same metatile apart (the second finds it written).
import { EventEmitter } from 'node:events'
import type { Db } from './database.js'
import type { FaultPoint } from '../../faults.js'
import { createSqliteJobStore } from './job-store.js'
import { inProcessWorkQueue } from './work-queue.js'
import { createKeyedQueue } from '../../keyed-queue.js'
import type { MetatileLock, SeedChange, SeedQueue } from '../../seed/seed-queue.js'

/** The one node of the embedded default. */
const NODE = 'local'

export function inProcessSeedQueue (db: Db, fault?: FaultPoint): SeedQueue {
  const changes = new EventEmitter()
  changes.setMaxListeners(100)
  const jobs = createSqliteJobStore(db, (change) => changes.emit('change', change), fault)
  return {
    jobs,
    nodeId: NODE,
    liveNodes: async () => [NODE],
    subscribe (handler: (change: SeedChange) => void) {
      changes.on('change', handler)
      return () => { changes.off('change', handler) }
    },
    // The chunks of the jobs that were running when the last run stopped are worked again.
    openQueue: async (onError) => inProcessWorkQueue(jobs.outstanding(), onError)
  }
}

export function inProcessMetatileLock (): MetatileLock {
  // The renders of one metatile run one after the other (services/keyed-queue.ts). One process:
  // whoever holds a lock lives as long as whoever waits for it, and a wait holds nothing, so a
  // request's claim waits as a seed does, unbounded.
  const run = createKeyedQueue()
  return { run, claim: (key, _opts, fn) => run(key, () => fn(true)) }
}
