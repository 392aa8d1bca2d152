// The tile cache as the plugins see it, assembled from its parts by job: tile layers and their
// settings (tile-layers.ts), the one function for tile reads (`readTile`, tile-reads.ts), the one
// for cache writes (`submitSeed`) with the task operations of the seed API (tile-seeding.ts), and
// the MBTiles/GeoPackage export (tile-export.ts). The parts share one context
// (tile-cache-context.ts), so the security area's per-layer check (`authorize`) is applied in one
// place. The breeder (services/seed) is built here, from the stores' seed queue, and nowhere else.
import { createTileCacheContext, type TileCacheDeps } from './tile-cache-context.js'
import { layerOperations } from './tile-layers.js'
import { readOperations } from './tile-reads.js'
import { seedingOperations, storedSpec, type StoredRequest } from './tile-seeding.js'
import { exportOperations } from './tile-export.js'
import { createJobBreeder } from '../seed/job-breeder.js'
import { massTruncateOperations } from './mass-truncate.js'
import { gridSetOperations } from './tile-grid-sets.js'
import { blobStoreOperations } from './tile-blob-stores.js'

export type { TileAction, TileAuthorizer, TileCacheDeps } from './tile-cache-context.js'
export type { ServedTile, TileRequest } from './tile-reads.js'
export type { KillCode, KilledTask } from './tile-seeding.js'

export function createTileCache (deps: TileCacheDeps) {
  const ctx = createTileCacheContext(deps)
  const { store, invalidation } = ctx
  const specOf = async (req: StoredRequest) => await storedSpec(ctx, req)

  // The breeder works the tasks of submitSeed on the stores' seed queue (in-process or the cluster's).
  const breeder = createJobBreeder({
    queue: deps.seedQueue,
    store, render: deps.render, isStale: invalidation.isStale, lock: deps.metatileLock, taskSlots: deps.taskSlots, maxPendingTasks: deps.maxPendingTasks,
    workers: deps.seedWorkers ?? 1, records: deps.records, resume: deps.resume, log: deps.log, now: deps.now,
    specOf: async (request) => await specOf(JSON.parse(request) as StoredRequest)
  })

  return {
    // The parts createServices wires to the other services (removals, invalidation hooks, the disk
    // quota's blob store); plugins use the operations below.
    store,
    breeder,
    invalidation,
    ...layerOperations(ctx),
    ...readOperations(ctx),
    ...seedingOperations(ctx, breeder),
    ...exportOperations(ctx),
    ...massTruncateOperations(ctx),
    ...gridSetOperations(ctx, breeder),
    ...blobStoreOperations(ctx),

    async close () { await breeder.close(); await invalidation.idle() }
  }
}

export type TileCache = ReturnType<typeof createTileCache>
