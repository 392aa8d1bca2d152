// The render worker pool (Piscina) and the tile cache that uses it. The pool alone resolves the
// worker path (`.js` in dist/, `.ts` from source), uses maxQueue 'auto' and is closed in onClose
// after the tile cache has stopped its tasks (preClose). The mosaic renderer and raster styles
// are looked up at render time (app.mosaics, app.styles), so area registration order is free.
import fs from 'node:fs'
import os from 'node:os'
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { Piscina } from 'piscina'
import type { MapwardenConfig } from './config.js'
import { createTileCache, type TileCache } from '../../services/seed/tile-cache.js'
import { isLinearStyle } from '../../services/seed/pyramid.js'
import { defaultStyleOf } from '../../services/seed/parameters.js'
import { createTaskRecords } from '../../services/seed/task-records.js'
import { createTileLayerSettings } from '../../services/seed/layer-settings.js'
import { createRenderQueue, type RenderQueue } from '../../services/seed/render-queue.js'
import type { MetatileRequest, RenderedMetatile } from '../../services/seed/tile-breeder.js'
import { rectBounds } from '../../services/seed/grid-sets.js'
import { GranuleDamaged, GranulesChanged, RenderQueueFull, RendererUnavailable } from '../../services/errors.js'
import type { RasterStyle, RenderRequest } from '../../workers/render-types.js'
import type { MetatileResult } from '../../workers/render-metatile.js'
import type { FaultRule } from '../../services/faults.js'

export interface TilePool {
  run (payload: unknown, opts: { name: string, signal?: AbortSignal }): Promise<unknown>
}

declare module 'fastify' {
  interface FastifyInstance {
    tilePool: TilePool
    tileCache: TileCache
    /** The queue in front of the pool: on-demand renders (tiles, WMS maps) go ahead of seeding. */
    renderQueue: RenderQueue
  }
}

interface MosaicRenderer {
  prepareRender (req: RenderRequest): Promise<unknown>
  /** Records that a granule file cannot be decoded; returns its location for messages. */
  markDamaged (path: string, reason: string): string
}
interface RasterStyles { rasterStyleFor (workspace: string, style: string): Promise<RasterStyle | undefined> }

export function workerFile (name: string): URL {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js'
  return new URL(`../../workers/${name}${ext}`, import.meta.url)
}

export interface TilePoolOptions {
  threads: number
  /** Nice value each render thread gives itself (0: none). */
  nice?: number
  /** Test-only fault points, for the tile writes made in the workers. */
  faultKillAt?: FaultRule[]
  onError?: (err: Error) => void
}

export function createTilePool ({ threads, nice = 0, faultKillAt, onError = () => {} }: TilePoolOptions): Piscina {
  const pool = new Piscina({
    filename: workerFile('render-metatile').href,
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: 30_000,
    maxQueue: 'auto',
    // Workers need none of the parent's loaders (a test runner's --import hooks break them).
    execArgv: process.execArgv.filter((a) => a === '--enable-source-maps'),
    // geotiff loads `web-worker`, which reads workerData.mod on import in any worker thread.
    workerData: { nice, faultKillAt }
  })
  pool.on('error', onError) // a worker that dies outside a task; its tasks reject on their own
  return pool
}

/**
 * Lowers the priority of every thread of the process but the main one (Linux: setpriority works
 * per thread): libuv's thread pool, where sharp encodes the render workers' tiles, libvips' and
 * V8's helpers. Under seeding both cores are busy with render work; at nice 10 the event loop gets
 * the CPU when a request arrives (`npm run bench -- load`: event-loop delay p99 63 -> 39 ms, lists
 * answered 7.8k -> 12.6k/s while seeding). The render threads lower their own on start (workers/
 * thread-priority.ts). The returned function looks again only when the number of threads changed
 * (a thread the event loop's thread starts inherits its nice 0).
 */
export function backgroundThreadPriority (nice: number): () => void {
  if (nice <= 0 || process.platform !== 'linux') return () => {}
  let seen = 0
  return () => {
    let tids: string[]
    try { tids = fs.readdirSync('/proc/self/task') } catch { return }
    if (tids.length === seen) return
    seen = tids.length
    for (const tid of tids.map(Number)) {
      if (tid === process.pid) continue
      try { if (os.getPriority(tid) < nice) os.setPriority(tid, nice) } catch { /* the thread ended meanwhile */ }
    }
  }
}

export function metatileRenderer (app: FastifyInstance, pool: TilePool, queue: RenderQueue, tileSize = 256) {
  return async function render (req: MetatileRequest): Promise<RenderedMetatile> {
    const cols = req.rect[2] - req.rect[0] + 1
    const rows = req.rect[3] - req.rect[1] + 1
    // A pyramid level: drawn from the tiles under it (workers/render-metatile.ts pyramidMetatile).
    if (req.children) {
      const payload = { children: req.children, cols, rows, tileSize, format: req.format, quality: app.config.jpegQuality, target: req.target }
      const out = await queue.run(req.priority ?? 'seed', async () => {
        req.signal?.throwIfAborted()
        return await pool.run(payload, { name: 'pyramidMetatile' }) as MetatileResult
      })
      return { writes: out.writes, error: out.failed && Object.assign(new Error(out.failed.message), { code: out.failed.code }) }
    }
    const mosaics = (app as unknown as { mosaics?: MosaicRenderer }).mosaics
    if (!mosaics?.prepareRender) throw RendererUnavailable(req.layer.qualifiedName)
    const styles = (app as unknown as { styles?: Partial<RasterStyles> }).styles
    const styleName = req.parameters.STYLES ?? req.layer.defaultStyle
    const style = styleName && typeof styles?.rasterStyleFor === 'function'
      ? await styles.rasterStyleFor(req.layer.workspace, styleName)
      : undefined
    const renderRequest: RenderRequest = {
      layer: req.layer.qualifiedName,
      crs: req.gridSet.srs,
      bbox: rectBounds(req.gridSet, req.z, req.rect),
      width: cols * tileSize,
      height: rows * tileSize,
      time: req.parameters.TIME,
      elevation: req.parameters.ELEVATION,
      cqlFilter: req.parameters.CQL_FILTER,
      style
    }
    const renderOnce = async (): Promise<MetatileResult> => {
      const job = await mosaics.prepareRender(renderRequest)
      // The signal is checked before the work is handed over, not passed on: a worker stopped in
      // the middle of its writes would leave tiles on disk that the disk quota never heard of.
      req.signal?.throwIfAborted()
      try {
        return await pool.run({ job, cols, rows, tileSize, format: req.format, quality: app.config.jpegQuality, target: req.target }, { name: 'renderMetatile' }) as MetatileResult
      } catch (err) { // (the queue in front keeps the pool's own queue empty; kept for safety)
        if (/queue is at limit/i.test((err as Error).message)) throw RenderQueueFull()
        throw err
      }
    }
    const priority = req.priority ?? 'seed'
    let out = await queue.run(priority, renderOnce)
    // A granule file went away between planning and rendering (the mosaic was replaced, granules
    // deleted): plan once more from the index as it is now.
    if (out.granuleGone) out = await queue.run(priority, renderOnce)
    if (out.granuleGone) throw GranulesChanged(req.layer.qualifiedName)
    if (out.damaged) throw GranuleDamaged(mosaics.markDamaged(out.damaged.path, out.damaged.reason), req.layer.qualifiedName, out.damaged.reason)
    const error = out.failed && Object.assign(new Error(out.failed.message), { code: out.failed.code })
    return { writes: out.writes, error }
  }
}

async function tilePool (app: FastifyInstance, { config }: { config: MapwardenConfig }) {
  const pool = createTilePool({
    threads: config.workerThreads,
    nice: config.renderNice,
    faultKillAt: config.faultKillAt,
    onError: (err) => app.log.error({ err }, 'render worker failed')
  })
  const lowerThreads = backgroundThreadPriority(config.renderNice)
  lowerThreads()
  // Before and after each render: a new render thread brings threads of its own along.
  const run: TilePool['run'] = (payload, opts) => { lowerThreads(); return pool.run(payload, opts).finally(lowerThreads) }
  // Tasks of the previous run that were pending or running when it stopped: resumed once every
  // area is registered (onReady: the renderer needs the mosaics), or with MAPWARDEN_RESUME_TASKS
  // false, ABORTED with "aborted: restart".
  const records = createTaskRecords(app.db, { fault: app.faults })
  if (!config.resumeTasks) {
    const aborted = records.abortUnfinished()
    if (aborted > 0) app.log.warn({ tasks: aborted }, 'seed tasks of the previous run marked aborted: restart')
  }
  const settings = createTileLayerSettings(app.db)
  const queue = createRenderQueue({ slots: config.workerThreads, interactive: config.tileQueue })
  const cache = createTileCache({
    dataDir: config.dataDir,
    db: app.db,
    records,
    resume: config.resumeTasks,
    settings,
    fault: app.faults,
    layers: app.layers,
    render: metatileRenderer(app, { run }, queue),
    // Seeds of a linear style are built as a pyramid (services/seed/pyramid.ts) unless switched off.
    linearStyle: config.seedPyramid
      ? async (layer) => isLinearStyle(await app.styles.rasterStyleFor(layer.workspace, defaultStyleOf(layer) ?? ''))
      : undefined,
    taskSlots: config.taskSlots,
    maxPendingTasks: config.maxPendingTasks,
    maxSeedThreads: config.maxSeedThreads,
    log: app.log
  })
  app.decorate('tilePool', { run })
  app.decorate('tileCache', cache)
  app.decorate('renderQueue', queue)
  app.workspaces.onRemoved((ws) => { settings.forgetWorkspace(ws); return cache.store.removeWorkspace(ws) })
  app.layers.onRemoved((layer) => { settings.forget(layer); cache.invalidation.layerRemoved(layer); return cache.store.removeLayer(layer) })
  // Cached tiles follow their style and their data (services/seed/tile-invalidation.ts).
  app.styles.onChanged((uses, reason) => cache.invalidation.stylesChanged(uses, reason))
  app.layers.onStylesChanged((before, after) => cache.invalidation.layerStylesChanged(before, after))
  app.mosaics.onDataChanged((layers, areas, reason) => cache.invalidation.dataChanged(layers, areas, reason))
  const resumed = cache.invalidation.resume()
  if (resumed > 0) app.log.info({ drops: resumed }, 'tile cache: dropping stale tiles a stop left behind')
  if (config.resumeTasks) {
    app.addHook('onReady', async () => {
      const { resumed, aborted } = await cache.resumeTasks()
      if (resumed + aborted > 0) app.log.warn({ resumed, aborted }, 'seed tasks of the previous run taken up again')
    })
  }
  app.addHook('preClose', async () => { await cache.close() })
  app.addHook('onClose', async () => { await pool.close({ force: true }) })
}

export default fp(tilePool, { name: 'tile-pool' })
