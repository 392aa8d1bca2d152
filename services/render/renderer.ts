// The one entry for every picture: the tile cache's metatiles (tilecache/metatile-renderer.ts) and
// the WMS's maps, pixel values and exception images (wms/get-map.ts, wms/get-feature-info.ts) are
// drawn through it. It plans a request (the raster render plan, render/raster/render-plan.ts,
// through the mosaic service that holds the granule index), runs the named task of the worker entry
// file on the render pool behind the render queue, and handles a granule whose file went away or
// cannot be decoded, once for all callers. A vector renderer plugs in here beside the raster one.
import { GranuleDamaged, GranulesChanged } from '../errors.js'
import type { RunOnPool } from './render-pool.js'
import type { RenderPriority, RenderQueue } from './render-queue.js'
import type { RenderRequest } from './render-types.js'
import type { RenderJob } from './raster/mosaic-types.js'
import type { VectorJob } from './vector/draw-vector.js'
import { endFeeds, feedPorts } from './vector/vector-plan.js'
import type { VectorStyle } from './vector/vector-style.js'
import type { VectorTilesRequest } from './vector/vector-tile-plan.js'
import type { VectorTilesPlan } from './vector/vector-tiles.js'
import type { ImageJob } from './image-job.js'

export interface RendererDeps {
  run: RunOnPool
  queue: Pick<RenderQueue, 'run'>
  /** The raster render plan of a request: its granules, overviews and CRS (the mosaic service's prepareRender). */
  plan (req: RenderRequest): Promise<RenderJob>
  /** The drawing job of a vector layer: its features in the request's area, read on the event
   *  loop's thread (I/O only), and its style (vector/vector-plan.ts). */
  planVector?: (req: RenderRequest, style: VectorStyle) => Promise<VectorJob>
  /** The plan of vector tiles (MVT): database-encoded layers and file layers' features (vector/vector-tile-plan.ts). */
  planVectorTiles?: (req: VectorTilesRequest) => Promise<VectorTilesPlan>
  /** The picture of a cascaded layer (type WMS): the remote's map for the request, fetched on the
   *  event loop's thread (services/cascade's mapImage); a remote failure throws, nothing is drawn. */
  planImage?: (req: RenderRequest) => Promise<ImageJob>
  /** Records that a granule file cannot be decoded; returns its location for messages. */
  markDamaged (path: string, reason: string): Promise<string>
}

/** One worker task: what it is called in the entry file, its lane in the queue, its payload. */
export interface RenderTask {
  /** A task of workers/render-metatile.ts (renderMetatile, renderVectorMetatile, renderVectorTiles, pyramidMetatile, renderMap, pixelValues, exceptionImage). */
  name: string
  priority: RenderPriority
  /** Built when the queue gives the task its slot; for `draw`, built (planned) again on a retry. */
  payload (): Promise<unknown>
  /**
   * Checked once the payload is built, not passed on: a worker stopped in the middle of its tile
   * writes would leave tiles on disk that the disk quota never heard of.
   */
  signal?: AbortSignal
  /** The metatile's lock key (tile cache): a request waiting for that metatile hurries it (render-queue.ts). */
  key?: string
  /**
   * The task done on this thread when its payload leaves nothing to draw (vector tiles the database
   * encoded: their bytes only written): its result, or undefined to post the payload to the pool.
   * Saves the round trip between threads that was most of such a tile's time beside its query.
   */
  here?: (payload: unknown) => unknown
}

/** What a worker answers instead of a picture when a granule's file is gone or cannot be decoded. */
interface GranuleTrouble { granuleGone?: boolean, damaged?: { path: string, reason: string } }

export function createRenderer (deps: RendererDeps) {
  async function run<T> (task: RenderTask): Promise<T> {
    return await deps.queue.run(task.priority, async () => {
      const payload = await task.payload()
      try { task.signal?.throwIfAborted() } catch (err) { endFeeds(feedPorts(payload)); throw err }
      const done = task.here?.(payload)
      if (done !== undefined) return done as T
      // A vector layer of many features streams the rest of its read to the render thread (vector-plan.ts's feed).
      const ports = feedPorts(payload)
      let out
      try {
        out = await deps.run(payload, { name: task.name, ...(ports.length > 0 ? { transferList: ports } : {}) }) as T
      } catch (err) { throw endFeeds(ports) ?? err }
      const failed = endFeeds(ports)
      if (failed) throw failed
      return out
    }, task.key)
  }

  return {
    plan: deps.plan,
    async planVector (req: RenderRequest, style: VectorStyle): Promise<VectorJob> {
      if (!deps.planVector) throw new Error('this renderer draws no vector layers')
      return await deps.planVector(req, style)
    },
    async planImage (req: RenderRequest): Promise<ImageJob> {
      if (!deps.planImage) throw new Error('this renderer draws no cascaded layers')
      return await deps.planImage(req)
    },
    async planVectorTiles (req: VectorTilesRequest): Promise<VectorTilesPlan> {
      if (!deps.planVectorTiles) throw new Error('this renderer encodes no vector tiles')
      return await deps.planVectorTiles(req)
    },
    /** A task whose payload needs no granule (a pyramid level from the tiles below, an exception image). */
    run,
    /**
     * A task drawn from granules (`layer`: the layers drawn, for messages). A granule file that went
     * away between planning and drawing (the mosaic replaced, granules deleted): planned once more
     * from the index as it is now, then GranulesChanged; a granule that cannot be decoded is recorded
     * as damaged (the mosaic's granule row) and the render fails with GranuleDamaged.
     */
    async draw<T> (task: RenderTask, layer: string): Promise<T> {
      let out = await run<GranuleTrouble>(task)
      if (out.granuleGone) out = await run<GranuleTrouble>(task)
      if (out.granuleGone) throw GranulesChanged(layer)
      if (out.damaged) throw GranuleDamaged(await deps.markDamaged(out.damaged.path, out.damaged.reason), layer, out.damaged.reason)
      return out as T
    }
  }
}
export type Renderer = ReturnType<typeof createRenderer>
