// The vector tiles (MVT) of a tile cache request, encoded in a render worker: one tile per tile of
// the request, never cut from a bigger one. Each tile is its layers in order: a layer the database
// encoded (PostGIS' ST_AsMVT bytes, planned in vector-tile-plan.ts) taken as it is, a layer read
// from a file source encoded here from its features (read once for all the tiles of the request):
// their WKB decoded (wkx), taken from the data's CRS to the grid's (crs.ts), to each tile's units,
// clipped, simplified and written (mvt-encode.ts).
import wkx from 'wkx'
import { pointTransform } from '../crs.js'
import type { VectorFeature } from './draw-vector.js'
import { encodeLayer, fitToTile, type TileFeature, type TileGeometry, type Xy } from './mvt-encode.js'

/** A file layer's features for every tile of the request, in their data's CRS. */
export interface VectorTileLayer { name: string, dataCrs: string, features: VectorFeature[] }
/** One part of a tile: a layer the database encoded, or a file layer (index into `layers`). */
export type VectorTilePart = { mvt: Uint8Array } | { layer: number }

export interface VectorTilesPlan {
  /** The grid set's CRS, in which each tile's bbox is given. */
  crs: string
  proj4Defs?: Record<string, string>
  /** Each tile of the request (image order as the target's paths): its bbox and its layers in order. */
  tiles: Array<{ bbox: [number, number, number, number], parts: VectorTilePart[] }>
  layers: VectorTileLayer[]
  /** Tile units across a tile (4096) and the buffer around it kept by the clip. */
  extent: number
  buffer: number
}

/** A geometry in the grid's CRS, or undefined when it cannot be read or taken there. */
function toGrid (wkb: Uint8Array, transform: (x: number, y: number) => [number, number]): TileGeometry[] {
  let g: wkx.Geometry
  try { g = wkx.Geometry.parse(Buffer.from(wkb.buffer, wkb.byteOffset, wkb.byteLength)) } catch { return [] }
  const points: Xy[] = []
  const lines: Xy[][] = []
  const polygons: Xy[][][] = []
  const path = (pts: wkx.Point[]): Xy[] => pts.map((p) => transform(p.x, p.y)).filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]))
  const walk = (x: wkx.Geometry): void => {
    if (x instanceof wkx.Point) { if (Number.isFinite(x.x)) points.push(...path([x])) } else if (x instanceof wkx.MultiPoint) x.points.forEach(walk)
    else if (x instanceof wkx.LineString) lines.push(path(x.points))
    else if (x instanceof wkx.MultiLineString) x.lineStrings.forEach(walk)
    else if (x instanceof wkx.Polygon) polygons.push([path(x.exteriorRing), ...x.interiorRings.map(path)])
    else if (x instanceof wkx.MultiPolygon) x.polygons.forEach(walk)
    else if (x instanceof wkx.GeometryCollection) x.geometries.forEach(walk)
  }
  walk(g)
  // A feature of several kinds (a collection) is a feature of each kind.
  const out: TileGeometry[] = []
  if (points.length > 0) out.push({ type: 1, points })
  if (lines.length > 0) out.push({ type: 2, lines })
  if (polygons.length > 0) out.push({ type: 3, polygons })
  return out
}

function toTile (g: TileGeometry, bbox: [number, number, number, number], extent: number): TileGeometry {
  const [x0, y0, x1, y1] = bbox
  const sx = extent / (x1 - x0)
  const sy = extent / (y1 - y0)
  const f = (p: Xy): Xy => [(p[0] - x0) * sx, (y1 - p[1]) * sy]
  if (g.type === 1) return { type: 1, points: g.points.map(f) }
  if (g.type === 2) return { type: 2, lines: g.lines.map((l) => l.map(f)) }
  return { type: 3, polygons: g.polygons.map((p) => p.map((r) => r.map(f))) }
}

/** The encoded tiles of a plan, in its order. */
export function encodeVectorTiles (plan: VectorTilesPlan): Buffer[] {
  const inGrid = plan.layers.map((l) => {
    const t = pointTransform(l.dataCrs, plan.crs, plan.proj4Defs)
    return l.features.map((f) => ({ geoms: toGrid(f.geometry, t), properties: f.properties }))
  })
  return plan.tiles.map((tile) => Buffer.concat(tile.parts.map((part) => {
    if ('mvt' in part) return part.mvt
    const features: TileFeature[] = []
    for (const f of inGrid[part.layer]) {
      for (const g of f.geoms) {
        const fitted = fitToTile(toTile(g, tile.bbox, plan.extent), plan.extent, plan.buffer)
        if (fitted) features.push({ geometry: fitted, properties: f.properties })
      }
    }
    return encodeLayer(plan.layers[part.layer].name, features, plan.extent)
  })))
}
