// The composition root's tile half (create-services.ts builds the rest): the render pool and queue,
// the one renderer, the tile cache with its seed tasks and grid sets, what drops cached tiles when a
// style, the data or a layer group changes, and the disk quota with its clean-up schedule.
import path from 'node:path'
import type { Stores } from './storage/stores.js'
import type { FaultPoint } from './faults.js'
import type { Logger, ServicesConfig } from './create-services.js'
import { isLayerGroup, splitLayerName, type LayerCatalog } from './catalog/layers.js'
import type { LayerGroupService } from './catalog/layer-groups.js'
import type { WorkspaceService } from './catalog/workspaces.js'
import type { StyleService } from './styles/service.js'
import type { LayerAccess } from './security/access.js'
import type { MosaicService } from './mosaics/mosaic-service.js'
import type { Metrics } from './metrics.js'
import { tileAuthorizer } from './security/tile-authorizer.js'
import { createRenderPool, TASKS_PER_THREAD } from './render/render-pool.js'
import { createRenderQueue } from './render/render-queue.js'
import { createRenderer } from './render/renderer.js'
import type { RenderRequest } from './render/render-types.js'
import type { ImageJob } from './render/image-job.js'
import { planVector, type VectorLayerData } from './render/vector/vector-plan.js'
import { planVectorTiles } from './render/vector/vector-tile-plan.js'
import { metatileRenderer } from './tilecache/metatile-renderer.js'
import { createTileCache } from './tilecache/tile-cache.js'
import { groupTiles } from './tilecache/group-tiles.js'
import { loadTileSettings } from './tilecache/layer-settings.js'
import { defaultStyleOf } from './tilecache/parameters.js'
import { gridSubset, type BBox } from './tilecache/grid-sets.js'
import { loadGridSets } from './tilecache/grid-set-registry.js'
import { loadBlobStores } from './tilecache/blob-store-registry.js'
import { createTaskRecords } from './seed/task-records.js'
import { isLinearStyle } from './seed/pyramid.js'
import { createDiskQuota } from './diskquota/disk-quota.js'
import { periodMs } from './diskquota/quota-config.js'
import { createCleanupScheduler } from './diskquota/scheduler.js'

export interface TileServicesDeps {
  log: Logger
  faults: FaultPoint
  workspaces: WorkspaceService
  layers: LayerCatalog
  layerGroups: LayerGroupService
  styles: StyleService
  layerAccess: LayerAccess
  mosaics: MosaicService
  metrics: Metrics
  /** Where a vector layer's features are read (vector/layer-data.ts). */
  layerData: (qualified: string, viewParams?: Record<string, string>) => Promise<VectorLayerData>
  /** The picture of a cascaded WMS layer (services/cascade's mapImage). */
  mapImage?: (req: RenderRequest) => Promise<ImageJob>
  /** No other instance shares the data: start-up recovery is this one's. */
  alone: boolean
  crashed?: boolean
}

export async function buildTileServices (config: ServicesConfig, stores: Stores, deps: TileServicesDeps) {
  const { log, faults, workspaces, layers, layerGroups, styles, layerAccess, mosaics, metrics, layerData, mapImage, alone, crashed } = deps
  // The tile cache: render pool and queue, blob store, seed tasks.
  const pool = createRenderPool({
    threads: config.workerThreads,
    nice: config.renderNice,
    faultKillAt: config.faultKillAt,
    onError: (err) => log.error({ err }, 'render worker failed')
  })
  // The seed task records; the tasks a previous run left pending or running are resumed, or with
  // MAPWARDEN_RESUME_TASKS false ABORTED "aborted: restart", once, by the breeder's start (start()).
  const records = createTaskRecords(stores.seed.tasks)
  const settings = await loadTileSettings(stores.seed.tileSettings)
  // The grid sets: built-in, and the custom ones of GWC's REST from the store.
  const gridSets = await loadGridSets(stores.gridSets, log)
  // The file blob stores of GWC's REST, and which one holds each layer's tiles (its tile settings).
  const blobStores = await loadBlobStores({ store: stores.blobStores, settings, dataDir: config.dataDir, builtInRoot: path.join(config.dataDir, 'tiles'), roots: config.blobStoreRoots ?? [] })
  const renderQueue = createRenderQueue({
    slots: config.workerThreads * TASKS_PER_THREAD,
    interactive: config.tileQueue,
    onWait: metrics.renderWaited,
    onRefused: metrics.renderRefused
  })
  // The one render entry: the tile cache's metatiles and the WMS's maps, planned from the mosaic index.
  const renderer = createRenderer({
    run: pool.run,
    queue: renderQueue,
    plan: (req) => mosaics.prepareRender(req),
    planVector: (req, style) => planVector({ layerData, maxFeatures: config.wmsMaxFeatures ?? 200_000 }, req, style),
    planImage: mapImage,
    planVectorTiles: (req) => planVectorTiles({ layerData, maxFeatures: config.wmsMaxFeatures ?? 200_000 }, req),
    markDamaged: (path, reason) => mosaics.markDamaged(path, reason)
  })
  const renderMetatile = metatileRenderer({
    renderer,
    rasterStyleFor: (ws, style) => styles.rasterStyleFor(ws, style),
    vectorStyleFor: (ws, style) => styles.vectorStyleFor(ws, style),
    // A layer group draws its enabled layers in order with the group's styles.
    async layersOf (layer, style) {
      const g = isLayerGroup(layer) ? await layerGroups.byRef(layer.qualifiedName) : undefined
      if (!g) return [{ layer, style }]
      return (await layerGroups.layersOf(g, async () => true)).map((m) => ({ layer: m.layer, style: m.style || defaultStyleOf(m.layer) || '' }))
    },
    jpegQuality: config.jpegQuality
  })
  const tileCache = createTileCache({
    dataDir: config.dataDir,
    tileSets: stores.seed.tileSets,
    records,
    resume: config.resumeTasks,
    settings,
    gridSets,
    blobStores,
    fault: faults,
    layers,
    // Every metatile, on demand or seeded, on this node or for a cluster's seed: counted as written.
    async render (req) {
      const out = await renderMetatile(req)
      metrics.tilesRendered(req.priority ?? 'seed', out.writes.length)
      return out
    },
    hurry: renderQueue.hurry,
    authorize: tileAuthorizer(layerAccess),
    // Seeds of a linear style are built as a pyramid (seed/pyramid.ts) unless switched off.
    linearStyle: config.seedPyramid
      ? async (layer) => layer.type === 'RASTER' && isLinearStyle(await styles.rasterStyleFor(layer.workspace, defaultStyleOf(layer) ?? ''))
      : undefined,
    taskSlots: config.taskSlots,
    maxPendingTasks: config.maxPendingTasks,
    maxSeedThreads: config.maxSeedThreads,
    seedQueue: stores.seedQueue,
    metatileLock: stores.metatileLock,
    metatileWaitMs: config.metatileWait * 1000,
    onMetatileWait: (event) => { metrics.metatileWait(event) },
    seedWorkers: config.workerThreads * TASKS_PER_THREAD,
    groups: layerGroups,
    log
  })
  workspaces.onRemoved((ws) => { settings.forgetWorkspace(ws); return tileCache.store.removeWorkspace(ws) })
  layers.onRemoved(async (layer) => { settings.forget(layer); await tileCache.invalidation.layerRemoved(layer); await tileCache.store.removeLayer(layer) })
  // Cached tiles follow their style and their data (tilecache/tile-invalidation.ts).
  const marking = (err: unknown) => log.warn({ err }, 'tile cache: could not mark the tiles of a changed style stale')
  // A layer group's tiles go whenever its members' data or styles, or the group, change (group-tiles.ts).
  const groupTileSets = groupTiles({ groups: layerGroups, invalidation: tileCache.invalidation, log })
  styles.onChanged((uses, reason) => (uses.length > 0 ? tileCache.invalidation.stylesChanged(uses, reason) : Promise.resolve(0)).then(() => groupTileSets.styleChanged(reason), marking))
  layers.onStylesChanged((before, after) => tileCache.invalidation.layerStylesChanged(before, after).then(() => groupTileSets.layersChanged([after.qualifiedName], 'a member\'s styles changed'), marking))
  mosaics.onDataChanged(async (changed, areas, reason) => { await tileCache.invalidation.dataChanged(changed, areas, reason); await groupTileSets.layersChanged(changed, reason) })
  const vectorDataChanged = async (names: string[], reason: string, areas?: BBox[]): Promise<void> => { await tileCache.invalidation.dataChanged(names, areas, reason); await groupTileSets.layersChanged(names, reason) }
  const drops = await tileCache.invalidation.resume()
  if (drops > 0) log.info({ drops }, 'tile cache: dropping stale tiles a stop left behind')

  // The disk quota: accounting of the tile cache's writes, clean-ups on a schedule.
  const diskQuota = await createDiskQuota({
    store: stores.quota,
    blobStore: tileCache.store,
    flushMs: 1000,
    log,
    fault: faults,
    async layerExists (name) {
      const p = splitLayerName(name)
      return !!p && !!(await layers.get(p.workspace, p.name))
    },
    async coverage (layer, gridSetId, z) {
      const gs = tileCache.findGridSet(gridSetId)
      const p = splitLayerName(layer)
      if (!gs || !p) return undefined
      const info = await layers.get(p.workspace, p.name)
      // The layer's bounds, not its configured subset: tiles cached before a subset changed stay in the pages.
      return gridSubset(gs, info?.bbox).coverage(z)
    }
  })
  workspaces.onRemoved((ws) => diskQuota.forgetWorkspace(ws))
  layers.onRemoved((layer) => diskQuota.forgetLayer(layer))
  const scheduler = createCleanupScheduler({
    periodMs: () => periodMs(diskQuota.config),
    // One clean-up at a time in a cluster: the others skip this round, but still settle the pages
    // they truncated themselves (a node that kept losing the lock would never settle them).
    run: async () => {
      try {
        if (await stores.exclusive('quotaCleanup', () => diskQuota.runCleanUp()) === undefined) await diskQuota.settle()
      } catch (err) { log.warn({ err }, 'disk quota: clean-up failed') }
    }
  })
  diskQuota.onChange(() => scheduler.reschedule())
  // Accounting starts with the services (a usage rebuild from the files, when needed, in the background).
  await diskQuota.start({ alone, crashed })

  return { pool, records, settings, gridSets, blobStores, renderQueue, renderer, tileCache, diskQuota, scheduler, vectorDataChanged }
}
