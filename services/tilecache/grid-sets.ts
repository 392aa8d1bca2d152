// Grid sets, exactly as GeoWebCache defines them (DefaultGridsets / GridSetFactory). The two every
// GeoServer layer gets by default are built in; custom ones (GWC's REST gridsets, grid-set-definition.ts)
// are built by the same rules and kept by grid-set-registry.ts. 256x256 tiles by default, pixel size
// 0.00028 m for scale denominators. Tile row 0 is the bottom row at every level (TMS-like, as GWC
// stores them): with alignTopLeft the grid hangs from the extent's top edge, so the bottom of a level
// is top - tilesHigh * span, as GridSetFactory computes it.
import { transformBbox } from '../render/crs.js'

export type GridSetId = string
export type Rect = [number, number, number, number] // minX, minY, maxX, maxY (tile indexes, inclusive)
export type BBox = [number, number, number, number] // minx, miny, maxx, maxy (CRS units)

export interface GridSet {
  id: GridSetId
  /** The CRS, 'EPSG:<n>' (EPSG:900913 for GWC's spherical mercator). */
  srs: string
  /** EPSG codes that select this grid set through a seed request's `srs.number`. */
  srsNumbers: number[]
  extent: BBox
  resolutions: number[]
  scaleDenominators: number[]
  tileWidth: number
  tileHeight: number
  metersPerUnit: number
  yCoordinateFirst: boolean
  alignTopLeft: boolean
  pixelSize: number
  description?: string
  /** GWC's scaleNames; default `<name>:<z>`. */
  scaleNames?: string[]
  /** Built in: cannot be changed or removed. */
  builtIn: boolean
}

export const PIXEL_SIZE = 0.00028
export const EPSG4326_METERS_PER_UNIT = 111319.49079327358
export const MERCATOR_HALF = 20037508.34

function make (id: GridSetId, srsNumbers: number[], extent: BBox, resolutions: number[], metersPerUnit: number, yFirst: boolean): GridSet {
  return {
    id,
    srs: id,
    srsNumbers,
    extent,
    resolutions,
    scaleDenominators: resolutions.map((r) => r * metersPerUnit / PIXEL_SIZE),
    tileWidth: 256,
    tileHeight: 256,
    metersPerUnit,
    yCoordinateFirst: yFirst,
    alignTopLeft: false,
    pixelSize: PIXEL_SIZE,
    builtIn: true
  }
}

/** The built-in grid sets, offered by every tile layer. */
export const GRID_SETS: Record<string, GridSet> = {
  'EPSG:4326': make('EPSG:4326', [4326], [-180, -90, 180, 90],
    Array.from({ length: 22 }, (_, z) => 0.703125 / 2 ** z), EPSG4326_METERS_PER_UNIT, true),
  'EPSG:900913': make('EPSG:900913', [900913, 3857], [-MERCATOR_HALF, -MERCATOR_HALF, MERCATOR_HALF, MERCATOR_HALF],
    Array.from({ length: 31 }, (_, z) => 156543.03390625 / 2 ** z), 1, false)
}

/** GWC's other built-in grid sets (GridSetBroker's well-known scale sets of WMTS 1.0.0 annex E), in
 *  EPSG:4326, hung from the top-left corner, latitude first. Known to the REST (listed, shown,
 *  read-only); layers do not offer them, as GeoServer's layers get only the two above by default. */
function wellKnown (name: string, levels: { resolutions?: number[], scales?: number[] }, description: string): GridSet {
  const mpu = EPSG4326_METERS_PER_UNIT
  const resolutions = levels.resolutions ?? levels.scales!.map((s) => s * PIXEL_SIZE / mpu)
  return {
    ...make(name, [4326], [-180, -90, 180, 90], resolutions, mpu, true),
    srs: 'EPSG:4326',
    scaleDenominators: levels.scales ?? resolutions.map((r) => r * mpu / PIXEL_SIZE),
    alignTopLeft: true,
    description
  }
}
/** GlobalCRS84Pixel's resolutions, each derived from the one before as GridSetBroker derives them
 *  (2 degrees to 0.01 arc second), so the doubles are the same. */
function crs84PixelResolutions (): number[] {
  const r = [2, 1, 0.5]
  r[3] = r[2] * (2 / 3); r[4] = r[2] / 3; r[5] = r[4] / 2; r[6] = r[4] / 5; r[7] = r[4] / 10
  r[8] = (5 / 6) * 1e-2; r[9] = r[8] / 2; r[10] = r[9] / 3; r[11] = r[9] / 5; r[12] = r[11] / 3
  r[13] = r[12] / 2; r[14] = r[13] * (3 / 5); r[15] = r[14] / 3; r[16] = r[15] * (3 / 10); r[17] = r[16] / 3
  return r
}
export const WELL_KNOWN_GRID_SETS: Record<string, GridSet> = {
  GlobalCRS84Pixel: wellKnown('GlobalCRS84Pixel', { resolutions: crs84PixelResolutions() },
    'This well-known scale set has been defined for global cartographic products. Rounded pixel sizes have been chosen for intuitive cartographic representation of raster data.'),
  GlobalCRS84Scale: wellKnown('GlobalCRS84Scale', { scales: [500e6, 250e6, 100e6, 50e6, 25e6, 10e6, 5e6, 2.5e6, 1e6, 500e3, 250e3, 100e3, 50e3, 25e3, 10e3, 5e3, 2.5e3, 1000, 500, 250, 100] },
    'This well-known scale set has been defined for global cartographic products. Rounded scales have been chosen for intuitive cartographic representation of vector data.'),
  GoogleCRS84Quad: wellKnown('GoogleCRS84Quad', { scales: Array.from({ length: 19 }, (_, z) => 559082264.0287178 / 2 ** z) },
    'This well-known scale set has been defined to allow quadtree pyramids in CRS84.')
}

/** A built-in grid set by name: the two every layer offers, or a well-known one. */
export function builtInGridSet (id: string): GridSet | undefined {
  return gridSet(id) ?? (Object.hasOwn(WELL_KNOWN_GRID_SETS, id) ? WELL_KNOWN_GRID_SETS[id] : undefined)
}

/** What a grid set is found by: the built-ins alone (this module), or a registry with custom ones too. */
export interface GridSetLookup {
  get (id: string): GridSet | undefined
  all (): GridSet[]
}
export const BUILT_IN_LOOKUP: GridSetLookup = { get: (id) => gridSet(id), all: () => Object.values(GRID_SETS) }

/** A built-in grid set by name. */
export function gridSet (id: string): GridSet | undefined {
  return Object.hasOwn(GRID_SETS, id) ? GRID_SETS[id] : undefined
}

export function maxZoom (gs: GridSet): number { return gs.resolutions.length - 1 }

/** A level's WMTS TileMatrix identifier: its scale name (GWC's scaleNames), else `<grid set>:<z>`. */
export function matrixName (gs: GridSet, z: number): string { return gs.scaleNames?.[z] ?? `${gs.id}:${z}` }

/**
 * The level a WMTS TileMatrix names: a scale name of the grid set when it has them (as GWC looks
 * them up), else `<grid set>:<z>` or the bare level; undefined when it names none.
 */
export function matrixLevel (gs: GridSet, name: string): number | undefined {
  if (gs.scaleNames) {
    const i = gs.scaleNames.indexOf(name)
    return i < 0 ? undefined : i
  }
  const m = /^(\d{1,2})$/.exec(name.startsWith(`${gs.id}:`) ? name.slice(gs.id.length + 1) : name)
  const z = m ? Number(m[1]) : undefined
  return z !== undefined && z <= maxZoom(gs) ? z : undefined
}

/** GridSetFactory: tilesWide = ceil((extentWidth - 0.01 * tileSpan) / tileSpan). */
export function tilesWide (gs: GridSet, z: number): number {
  const span = gs.resolutions[z] * gs.tileWidth
  return Math.ceil((gs.extent[2] - gs.extent[0] - 0.01 * span) / span)
}
export function tilesHigh (gs: GridSet, z: number): number {
  const span = gs.resolutions[z] * gs.tileHeight
  return Math.ceil((gs.extent[3] - gs.extent[1] - 0.01 * span) / span)
}

/** The bottom-left corner of level z's grid: the extent's, or with alignTopLeft, hung from its top. */
export function gridOrigin (gs: GridSet, z: number): [number, number] {
  if (!gs.alignTopLeft) return [gs.extent[0], gs.extent[1]]
  return [gs.extent[0], gs.extent[3] - tilesHigh(gs, z) * gs.resolutions[z] * gs.tileHeight]
}

/** GridSet.closestRectangle: the tiles a box touches at z, not clamped. */
export function closestRectangle (gs: GridSet, z: number, b: BBox): Rect {
  const sx = gs.resolutions[z] * gs.tileWidth
  const sy = gs.resolutions[z] * gs.tileHeight
  const [ox, oy] = gridOrigin(gs, z)
  return [
    Math.floor((b[0] - ox) / sx),
    Math.floor((b[1] - oy) / sy),
    Math.ceil((b[2] - ox) / sx) - 1,
    Math.ceil((b[3] - oy) / sy) - 1
  ]
}

/** Bounds of a block of tiles (inclusive indexes) in CRS units. */
export function rectBounds (gs: GridSet, z: number, r: Rect): BBox {
  const sx = gs.resolutions[z] * gs.tileWidth
  const sy = gs.resolutions[z] * gs.tileHeight
  const [ox, oy] = gridOrigin(gs, z)
  return [ox + r[0] * sx, oy + r[1] * sy, ox + (r[2] + 1) * sx, oy + (r[3] + 1) * sy]
}

export function intersectRect (a: Rect, b: Rect): Rect | undefined {
  const r: Rect = [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])]
  return r[0] > r[2] || r[1] > r[3] ? undefined : r
}

export function rectArea (r: Rect | undefined): number {
  return r ? (r[2] - r[0] + 1) * (r[3] - r[1] + 1) : 0
}

export function fullRect (gs: GridSet, z: number): Rect {
  return [0, 0, tilesWide(gs, z) - 1, tilesHigh(gs, z) - 1]
}

const MAX_LAT = 85.0511287798066
/** A lon/lat box in the grid set's CRS (spherical mercator for EPSG:900913; any other CRS through
 *  proj4, the box's edges densified, clamped to the grid's extent; the whole extent where it cannot
 *  be transformed, e.g. outside the projection's domain). */
export function fromLonLat (gs: GridSet, b: BBox): BBox {
  if (gs.srs === 'EPSG:4326') return [...b]
  if (gs.srs !== 'EPSG:900913' && gs.srs !== 'EPSG:3857') {
    const t = transformBbox(b, 'EPSG:4326', gs.srs)
    if (!t.every(Number.isFinite)) return [...gs.extent]
    const e = gs.extent
    return [Math.max(e[0], t[0]), Math.max(e[1], t[1]), Math.min(e[2], t[2]), Math.min(e[3], t[3])]
  }
  const x = (lon: number) => Math.max(-MERCATOR_HALF, Math.min(MERCATOR_HALF, lon * MERCATOR_HALF / 180))
  const y = (lat: number) => {
    const l = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat))
    return Math.log(Math.tan((90 + l) * Math.PI / 360)) * 6378137
  }
  return [x(b[0]), y(b[1]), x(b[2]), y(b[3])]
}

/** What a tile layer's configuration narrows a grid set to (GWC's XMLGridSubset): its levels and extent. */
export interface SubsetLimits {
  zoomStart?: number
  zoomStop?: number
  /** In the grid set's CRS; in place of the layer's bounds, as GWC's configured extent is. */
  extent?: BBox
}

/**
 * A layer's grid subset: the tiles its lon/lat bounds (or the configured extent) touch at each
 * level from zoomStart to zoomStop, clamped to the grid (GridSubsetFactory with the layer's extent).
 * Layers without bounds cover the whole grid.
 */
export interface GridSubset {
  gridSet: GridSet
  /** Subset extent in the grid set's CRS. */
  extent: BBox
  zoomStart: number
  zoomStop: number
  coverage (z: number): Rect | undefined
}

export function gridSubset (gs: GridSet, lonLatBounds: BBox | undefined, limits: SubsetLimits = {}): GridSubset {
  const e = gs.extent
  const extent: BBox = limits.extent
    ? [Math.max(e[0], limits.extent[0]), Math.max(e[1], limits.extent[1]), Math.min(e[2], limits.extent[2]), Math.min(e[3], limits.extent[3])]
    : lonLatBounds ? fromLonLat(gs, lonLatBounds) : [...e]
  const zoomStart = Math.max(0, limits.zoomStart ?? 0)
  const zoomStop = Math.min(maxZoom(gs), limits.zoomStop ?? maxZoom(gs))
  return {
    gridSet: gs,
    extent,
    zoomStart,
    zoomStop,
    coverage (z) {
      if (z < zoomStart || z > zoomStop || extent[0] > extent[2] || extent[1] > extent[3]) return undefined
      return intersectRect(closestRectangle(gs, z, extent), fullRect(gs, z))
    }
  }
}

/** The grid sets a tile layer offers, and its subset of each (tile-cache-context.ts gridsOf). */
export interface LayerGrids {
  gridSets: GridSet[]
  /** Undefined when the layer does not offer the grid set. */
  subsetOf (gs: GridSet): GridSubset | undefined
}
/** A layer with no grid subsets configured: the built-in grid sets over its bounds. */
export const builtInGrids = (lonLatBounds: BBox | undefined): LayerGrids =>
  ({ gridSets: Object.values(GRID_SETS), subsetOf: (gs) => gridSubset(gs, lonLatBounds) })
