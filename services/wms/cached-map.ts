// A GetMap that is exactly one tile of a grid set (TILED=true, GeoServer's direct integration, or
// any request at {base}/gwc/service/wms) is answered from the tile cache, filling it on a miss;
// otherwise the reason it is not one (header geowebcache-miss-reason, or the gwc path's error).
import type { Principal } from '../auth/authenticator.js'
import { GRID_SETS, type GridSet } from '../tilecache/grid-sets.js'
import { defaultStyleOf, layerDimensions } from '../tilecache/parameters.js'
import type { MapFormat } from '../render/map.js'
import { parseBoolean } from './request.js'
import type { MapSpec } from './map-spec.js'
import type { MapAnswer, WmsContext, Where } from './wms-context.js'

/** The grid set a CRS is tiled in, for the tile-cache path. */
function gridSetOf (code: string): GridSet | undefined {
  if (code === 'EPSG:4326') return GRID_SETS['EPSG:4326']
  if (code === 'EPSG:3857') return GRID_SETS['EPSG:900913']
  return undefined
}

/**
 * The tile (z, x, y from the bottom) a map is, or why it is not one. Tolerances as GeoWebCache's
 * GridSet.closestIndex: the resolution within 1 %, the corner within a tenth of a tile, so clients
 * whose grid differs in the last digits (OpenLayers' EPSG:3857 extent is ±20037508.342789244,
 * GWC's ±20037508.34) hit the same tiles.
 */
export function tileOf (gs: GridSet, bbox: [number, number, number, number], width: number, height: number): { z: number, x: number, y: number } | string {
  if (width !== gs.tileWidth || height !== gs.tileHeight) return `WIDTH and HEIGHT must be ${gs.tileWidth}x${gs.tileHeight}, got ${width}x${height}`
  const rx = (bbox[2] - bbox[0]) / width
  const ry = (bbox[3] - bbox[1]) / height
  const z = gs.resolutions.findIndex((r) => Math.abs(rx - r) / r < 0.01 && Math.abs(ry - r) / r < 0.01)
  if (z < 0) return `the resolution ${rx} is not one of grid set ${gs.id}`
  const span = gs.resolutions[z] * gs.tileWidth
  const fx = (bbox[0] - gs.extent[0]) / span
  const fy = (bbox[1] - gs.extent[1]) / (gs.resolutions[z] * gs.tileHeight)
  const x = Math.round(fx)
  const y = Math.round(fy)
  if (Math.abs(fx - x) > 0.1 || Math.abs(fy - y) > 0.1) return `BBOX is not aligned with the tiles of grid set ${gs.id} at level ${z}`
  return { z, x, y }
}

export async function fromCache (ctx: WmsContext, s: MapSpec, format: MapFormat, principal: Principal | undefined, where: Where): Promise<MapAnswer | string> {
  // A layer group is one tile layer: cached when the request names it alone.
  const group = s.groups.length === 1 && s.groups[0] === s.q.LAYERS?.trim() ? s.groups[0] : undefined
  if (s.groups.length > 0 && !group) return 'a tiled request must name exactly one layer'
  if (!group && s.layers.length !== 1) return 'a tiled request must name exactly one layer'
  if (format === 'image/png8') return 'the tile cache holds image/png, image/jpeg and image/webp'
  if (s.q.SLD_BODY) return 'SLD_BODY maps are not cached'
  if (s.q.VIEWPARAMS) return 'VIEWPARAMS maps are not cached'
  if (!where.cacheOnly && s.q.BGCOLOR) return 'BGCOLOR maps are not cached'
  if (!where.cacheOnly && format === 'image/png' && !parseBoolean(s.q, 'TRANSPARENT', false)) return 'cached PNG tiles are transparent: TRANSPARENT=true is needed'
  const gs = gridSetOf(s.crs.code)
  if (!gs) return `no grid set in ${s.crs.asked}: EPSG:4326 and EPSG:900913 are cached`
  const t = tileOf(gs, s.bbox, s.width, s.height)
  if (typeof t === 'string') return t
  const parameters: Record<string, string> = {}
  const dims = group ? new Set<string>() : layerDimensions(s.layers[0])
  if (!group && s.styleNames[0] && s.styleNames[0] !== defaultStyleOf(s.layers[0])) parameters.STYLES = s.styleNames[0]
  if (s.q.CQL_FILTER) parameters.CQL_FILTER = s.q.CQL_FILTER
  if (s.q.TIME && dims.has('time')) parameters.TIME = s.q.TIME
  if (s.q.ELEVATION && dims.has('elevation')) parameters.ELEVATION = s.q.ELEVATION
  const layer = !group ? s.layers[0].qualifiedName : where.workspace && !group.includes(':') ? `${where.workspace}:${group}` : group
  let tile
  try {
    tile = await ctx.tileCache.readTile({ layer, gridSet: gs, format, parameters, z: t.z, x: t.x, y: t.y, asked: `WMS BBOX ${s.q.BBOX}` }, principal)
  } catch (err) {
    // Outside the layer's coverage the cache has no tile; a map of it is empty, drawn as any map.
    if ((err as { code?: string }).code === 'MW_TILES_OUT_OF_RANGE') return (err as Error).message
    // A group's tiles are shared: a caller who may not read all its layers gets them drawn instead.
    if (group && (err as { code?: string }).code === 'MW_TILES_LAYER_NOT_FOUND') return 'the caller may not read every layer of the group'
    throw err
  }
  return { data: tile.data, contentType: format, cacheResult: tile.cached ? 'HIT' : 'MISS' }
}
