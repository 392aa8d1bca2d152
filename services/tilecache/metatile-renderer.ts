// How the tile cache draws a metatile (on a miss, and for the seed tasks): the metatile's request
// (its bbox in the grid set, the layer's style and parameters; a vector layer's features, a layer
// group's members in order) drawn through the render entry
// (services/render/renderer.ts), which plans it from the mosaic index, runs it on the render pool
// behind the render queue (interactive renders go ahead of seeding) and retries a vanished granule
// once. The worker writes the tiles to the blob store's paths. A pyramid level is drawn from the
// tiles under it instead.
import { isCascaded, type LayerInfo } from '../catalog/layers.js'
import { rectBounds, type GridSet, type Rect } from './grid-sets.js'
import type { BlobStore, MetatileTarget, TileSet } from './blob-store.js'
import { MVT_FORMAT, type TileFormat } from './formats.js'
import { viewParamsOf, type ParameterSet } from './parameters.js'
import type { Renderer } from '../render/renderer.js'
import type { RenderPriority } from '../render/render-queue.js'
import type { RenderRequest, RasterStyle } from '../render/render-types.js'
import type { MetatileResult } from '../render/metatile.js'
import type { VectorStyle } from '../render/vector/vector-style.js'
import { writeTiles, type TileWrite } from '../render/tile-files.js'
import { encodeVectorTiles, type VectorTilesPlan } from '../render/vector/vector-tiles.js'
import { allPlans } from '../render/vector/vector-plan.js'

export interface MetatileRequest {
  layer: LayerInfo
  gridSet: GridSet
  z: number
  /** Tiles of the metatile (inclusive indexes, row 0 at the bottom). */
  rect: Rect
  format: TileFormat
  parameters: ParameterSet
  signal?: AbortSignal
  /** 'interactive' for a tile requested and not cached (rendered ahead of seeding); default 'seed'. */
  priority?: RenderPriority
  /** The metatile's lock key (metatileKey): a request waiting for it hurries its render. */
  key?: string
  /** Where the tiles go (the blob store's files of `rect`, image order). */
  target: MetatileTarget
  /**
   * Pyramid: draw the metatile from the tiles of the level below instead of the granules; their
   * files in image order (2 x cols by 2 x rows; a missing file is transparent).
   */
  children?: string[]
  /**
   * Vector tiles the database encoded are not written: they come back in `tiles`, `deferred`, for
   * the caller to answer and then write (blob store writeMetatile). Tiles a render thread encodes
   * are written by it as ever.
   */
  deferWrite?: boolean
}
/** The tiles written, in the target's order; `error` when a write failed after them; `tiles`, in
 *  image order, when they were encoded on this thread (the database's vector tiles), so the request
 *  that asked for one serves it without reading it back. */
export interface RenderedMetatile { writes: TileWrite[], error?: Error, tiles?: Uint8Array[], deferred?: boolean }
export type MetatileRenderer = (req: MetatileRequest) => Promise<RenderedMetatile>

/** Renders a metatile into the store and reports its tiles (disk quota), also after a failed write. */
export async function renderIntoStore (render: MetatileRenderer, store: BlobStore, set: TileSet, req: Omit<MetatileRequest, 'target'>): Promise<RenderedMetatile> {
  const key = metatileKey(req, set.format, set.parameterId, req.z, req.rect[0], req.rect[1])
  const out = await render({ ...req, key, target: store.metatileTarget(set, req.z, req.rect) })
  store.recordMetatile(set, req.z, req.rect, out.writes)
  if (out.error) throw out.error
  return out
}

/** The key of the cluster-wide lock of a metatile (its tile set and place). */
export function metatileKey (spec: { layer: LayerInfo, gridSet: GridSet }, format: string, parameterId: string | undefined, z: number, x: number, y: number): string {
  return `${spec.layer.qualifiedName}/${spec.gridSet.id}/${format}/${parameterId ?? ''}/${z}/${x}/${y}`
}

/** One layer a metatile draws, with the style it is drawn with ('' : the layer's default). */
export interface DrawnLayer { layer: LayerInfo, style: string }

export interface MetatileRendererDeps {
  renderer: Pick<Renderer, 'plan' | 'planVector' | 'planImage' | 'planVectorTiles' | 'run' | 'draw'>
  rasterStyleFor (workspace: string, style: string): Promise<RasterStyle | undefined>
  /** The vector style of a style name ('' : GeoServer's generic style). */
  vectorStyleFor (workspace: string, style: string): Promise<VectorStyle>
  /** The layers a tile layer draws, in order: a layer group's members with the group's styles
   *  (tile-cache-context.ts), or the layer itself with the STYLES parameter. */
  layersOf? (layer: LayerInfo, style: string): Promise<DrawnLayer[]>
  /** Quality of JPEG and WebP tiles, 1-100. */
  jpegQuality: number
  tileSize?: number
}

/** A failed tile write reported by the worker, as an error with its code (ENOSPC: storage full). */
function writeError (out: MetatileResult): Error | undefined {
  return out.failed && Object.assign(new Error(out.failed.message), { code: out.failed.code })
}

export function metatileRenderer ({ renderer, rasterStyleFor, vectorStyleFor, layersOf, jpegQuality, tileSize = 256 }: MetatileRendererDeps): MetatileRenderer {
  return async function render (req: MetatileRequest): Promise<RenderedMetatile> {
    const cols = req.rect[2] - req.rect[0] + 1
    const rows = req.rect[3] - req.rect[1] + 1
    const priority = req.priority ?? 'seed'
    const common = { cols, rows, tileSize, format: req.format, quality: jpegQuality, target: req.target }
    // A pyramid level: drawn from the tiles under it (the worker's pyramidMetatile).
    if (req.children) {
      const out = await renderer.run<MetatileResult>({ name: 'pyramidMetatile', priority, key: req.key, signal: req.signal, payload: async () => ({ children: req.children, ...common }) })
      return { writes: out.writes, error: writeError(out) }
    }
    const styleName = req.parameters.STYLES ?? req.layer.defaultStyle ?? ''
    const viewParams = viewParamsOf(req.parameters)
    const request = (layer: LayerInfo, style?: RasterStyle): RenderRequest => ({
      layer: layer.qualifiedName,
      crs: req.gridSet.srs,
      bbox: rectBounds(req.gridSet, req.z, req.rect),
      width: cols * tileSize,
      height: rows * tileSize,
      time: req.parameters.TIME,
      elevation: req.parameters.ELEVATION,
      cqlFilter: req.parameters.CQL_FILTER,
      // An SQL view's tile set is drawn with its VIEWPARAMS (parameters.ts); a group's members with their defaults.
      ...(layer === req.layer && viewParams ? { viewParams } : {}),
      style
    })
    const drawn = layersOf ? await layersOf(req.layer, styleName) : [{ layer: req.layer, style: styleName }]
    // Vector tiles: one MVT per tile of the rectangle (image order), each layer of it one vector
    // layer (a group's raster members left out), named by its layer name.
    if (req.format === MVT_FORMAT) {
      const tiles: Array<[number, number, number, number]> = []
      for (let y = req.rect[3]; y >= req.rect[1]; y--) for (let x = req.rect[0]; x <= req.rect[2]; x++) tiles.push(rectBounds(req.gridSet, req.z, [x, y, x, y]))
      const payload = async () => ({
        ...await renderer.planVectorTiles({
          layers: await Promise.all(drawn.filter((d) => d.layer.type === 'VECTOR').map(async ({ layer, style }) =>
            ({ layer: layer.qualifiedName, name: layer.name, style: await vectorStyleFor(layer.workspace, style || (layer.defaultStyle ?? '')), ...(layer === req.layer && viewParams ? { viewParams } : {}) }))),
          crs: req.gridSet.srs,
          tiles,
          tileSize,
          ...(req.parameters.CQL_FILTER !== undefined ? { cqlFilter: req.parameters.CQL_FILTER } : {})
        }),
        target: req.target
      })
      // Tiles whose every layer the database encoded are their layers' bytes joined: written here
      // (temp file and rename, as the worker would), or handed back unwritten (deferWrite), not
      // posted to a render thread.
      const here = (p: unknown) => {
        const plan = p as VectorTilesPlan & { target: MetatileTarget }
        if (plan.layers.length > 0) return undefined
        const tiles = encodeVectorTiles(plan)
        return req.deferWrite ? { writes: [], tiles, deferred: true } : { ...writeTiles(tiles, plan.target), tiles }
      }
      const out = await renderer.run<MetatileResult & { tiles?: Uint8Array[], deferred?: boolean }>({ name: 'renderVectorTiles', priority, signal: req.signal, payload, here })
      return { writes: out.writes, error: writeError(out), tiles: out.tiles, ...(out.deferred ? { deferred: true } : {}) }
    }
    // A mosaic alone: its render plan, drawn by the raster worker task.
    if (drawn.length === 1 && drawn[0].layer.type === 'RASTER') {
      const style = drawn[0].style ? await rasterStyleFor(drawn[0].layer.workspace, drawn[0].style) : undefined
      const out = await renderer.draw<MetatileResult>({
        name: 'renderMetatile', priority, key: req.key, signal: req.signal, payload: async () => ({ job: await renderer.plan(request(drawn[0].layer, style)), ...common })
      }, req.layer.qualifiedName)
      return { writes: out.writes, error: writeError(out) }
    }
    // A vector layer, a cascaded layer (the remote's map of the metatile), or a group's layers in order: the features of the metatile and a buffer
    // around it (vector-plan.ts's margin) read once, labels placed in the metatile only (draw-vector.ts).
    const payload = async () => ({
      // A cascaded WMS layer's STYLES tile parameter is a remote style (parameters.ts tileStyles), asked of the remote.
      jobs: await allPlans(drawn.map(async ({ layer, style }) => isCascaded(layer)
        ? await renderer.planImage(layer === req.layer && layer.type === 'WMS' && req.parameters.STYLES !== undefined ? { ...request(layer), remote: { style: req.parameters.STYLES } } : request(layer))
        : layer.type === 'VECTOR'
          ? await renderer.planVector(request(layer), await vectorStyleFor(layer.workspace, style || (layer.defaultStyle ?? '')))
          : await renderer.plan(request(layer, style ? await rasterStyleFor(layer.workspace, style) : undefined)))),
      ...common
    })
    const out = await renderer.draw<MetatileResult>({ name: 'renderVectorMetatile', priority, key: req.key, signal: req.signal, payload }, req.layer.qualifiedName)
    return { writes: out.writes, error: writeError(out) }
  }
}
