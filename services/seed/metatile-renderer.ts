// The metatile renderer the tile cache and the seed tasks call: plans the render from the mosaic
// index (prepareRender), looks up the layer's raster style, and runs the drawing and the tile writes
// on the render pool behind the render queue (interactive renders go ahead of seeding). A pyramid
// level is drawn from the tiles under it instead.
import { GranuleDamaged, GranulesChanged, RenderQueueFull } from '../errors.js'
import { rectBounds } from './grid-sets.js'
import type { RenderQueue } from './render-queue.js'
import type { MetatileRenderer, MetatileRequest, RenderedMetatile } from './tile-breeder.js'
import type { RunOnPool } from './render-pool.js'
import type { RasterStyle, RenderRequest } from '../render/render-types.js'
import type { MetatileResult } from '../render/metatile.js'

export interface MetatileRendererDeps {
  run: RunOnPool
  queue: RenderQueue
  /** The mosaic's render plan for a request (granules, overviews, CRS). */
  prepareRender (req: RenderRequest): Promise<unknown>
  /** Records that a granule file cannot be decoded; returns its location for messages. */
  markDamaged (path: string, reason: string): Promise<string>
  rasterStyleFor (workspace: string, style: string): Promise<RasterStyle | undefined>
  /** Quality of JPEG and WebP tiles, 1-100. */
  jpegQuality: number
  tileSize?: number
}

export function metatileRenderer ({ run, queue, prepareRender, markDamaged, rasterStyleFor, jpegQuality, tileSize = 256 }: MetatileRendererDeps): MetatileRenderer {
  return async function render (req: MetatileRequest): Promise<RenderedMetatile> {
    const cols = req.rect[2] - req.rect[0] + 1
    const rows = req.rect[3] - req.rect[1] + 1
    const priority = req.priority ?? 'seed'
    // A pyramid level: drawn from the tiles under it (the worker's pyramidMetatile).
    if (req.children) {
      const payload = { children: req.children, cols, rows, tileSize, format: req.format, quality: jpegQuality, target: req.target }
      const out = await queue.run(priority, async () => {
        req.signal?.throwIfAborted()
        return await run(payload, { name: 'pyramidMetatile' }) as MetatileResult
      })
      return { writes: out.writes, error: out.failed && Object.assign(new Error(out.failed.message), { code: out.failed.code }) }
    }
    const styleName = req.parameters.STYLES ?? req.layer.defaultStyle
    const style = styleName ? await rasterStyleFor(req.layer.workspace, styleName) : undefined
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
      const job = await prepareRender(renderRequest)
      // The signal is checked before the work is handed over, not passed on: a worker stopped in
      // the middle of its writes would leave tiles on disk that the disk quota never heard of.
      req.signal?.throwIfAborted()
      try {
        return await run({ job, cols, rows, tileSize, format: req.format, quality: jpegQuality, target: req.target }, { name: 'renderMetatile' }) as MetatileResult
      } catch (err) { // (the queue in front keeps the pool's own queue empty; kept for safety)
        if (/queue is at limit/i.test((err as Error).message)) throw RenderQueueFull()
        throw err
      }
    }
    let out = await queue.run(priority, renderOnce)
    // A granule file went away between planning and rendering (the mosaic was replaced, granules
    // deleted): plan once more from the index as it is now.
    if (out.granuleGone) out = await queue.run(priority, renderOnce)
    if (out.granuleGone) throw GranulesChanged(req.layer.qualifiedName)
    if (out.damaged) throw GranuleDamaged(await markDamaged(out.damaged.path, out.damaged.reason), req.layer.qualifiedName, out.damaged.reason)
    const error = out.failed && Object.assign(new Error(out.failed.message), { code: out.failed.code })
    return { writes: out.writes, error }
  }
}
