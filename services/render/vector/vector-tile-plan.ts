// The plan of a tile cache request's vector tiles (MVT), on the event loop's thread (database I/O
// only): for each layer in order (a vector layer, or a group's vector members), the features its
// style draws at the tiles' scale (a rule's filter and scale range, as GeoServer leaves out what no
// rule would draw) and CQL_FILTER. A source whose database encodes vector tiles (PostGIS) answers
// each tile's layer as ST_AsMVT bytes; the others' features are read once for all the tiles (their
// area and buffer, at most `maxFeatures`) and encoded by the render worker (vector-tiles.ts).
import { WmsTooManyFeatures } from '../../errors.js'
import { parseEcql } from '../../filters/ecql.js'
import { allOf, type Filter } from '../../filters/tree.js'
import { epsgNumber, transformBbox } from '../crs.js'
import type { VectorFeature } from './draw-vector.js'
import { drawnFilter, ogcScale, type VectorPlanDeps } from './vector-plan.js'
import type { VectorStyle } from './vector-style.js'
import type { VectorTileLayer, VectorTilePart, VectorTilesPlan } from './vector-tiles.js'

/** Tile units across a vector tile and the buffer kept around it (ST_AsMVTGeom's defaults). */
export const MVT_EXTENT = 4096
export const MVT_BUFFER = 256

type Bbox = [number, number, number, number]

export interface VectorTilesRequest {
  /** The layers in order: qualified name (where the data is), MVT layer name, style, an SQL view's parameters. */
  layers: Array<{ layer: string, name: string, style: VectorStyle, viewParams?: Record<string, string> }>
  /** The grid set's CRS and each tile's bounds in it (the target's order). */
  crs: string
  tiles: Bbox[]
  /** Pixels across a tile: with the tile's width, the scale denominator the rules are chosen by. */
  tileSize: number
  cqlFilter?: string
  proj4Defs?: Record<string, string>
}

/** The EPSG number of a CRS, undefined for one named otherwise (a WKT). */
const srid = (crs: string): number | undefined => {
  const n = Number(epsgNumber(crs))
  return Number.isSafeInteger(n) ? n : undefined
}

export async function planVectorTiles (deps: VectorPlanDeps, req: VectorTilesRequest): Promise<VectorTilesPlan> {
  const tiles: VectorTilesPlan['tiles'] = req.tiles.map((bbox) => ({ bbox, parts: [] as VectorTilePart[] }))
  const layers: VectorTileLayer[] = []
  if (tiles.length === 0) return { crs: req.crs, tiles, layers, extent: MVT_EXTENT, buffer: MVT_BUFFER }
  // Every tile of a request has one size: one scale for all.
  const [x0, y0, x1, y1] = req.tiles[0]
  const scale = ogcScale(req.crs, req.tiles[0], req.tileSize)
  const margin = MVT_BUFFER / MVT_EXTENT
  const widen = (b: Bbox): Bbox => [b[0] - (x1 - x0) * margin, b[1] - (y1 - y0) * margin, b[2] + (x1 - x0) * margin, b[3] + (y1 - y0) * margin]
  for (const l of req.layers) {
    // An SQL view's tiles are of its tile set's VIEWPARAMS (else its defaults).
    const data = await deps.layerData(l.layer, l.viewParams)
    const cql = req.cqlFilter !== undefined && req.cqlFilter.trim() !== '' ? parseEcql(req.cqlFilter, data.schema) : undefined
    const drawn = drawnFilter(l.style, scale, data.schema.attributes)
    if (drawn?.k === 'const' && !drawn.v) continue
    const filter = allOf([drawn, cql].filter((f): f is Filter => f !== undefined))
    const vectorTile = data.source.vectorTile?.bind(data.source)
    const gridSrid = srid(req.crs)
    // The database encodes in the grid's CRS when it is an EPSG one (every grid set's is).
    if (vectorTile && gridSrid !== undefined) {
      const dataSrid = srid(data.dataCrs)
      for (const t of tiles) {
        const area = transformBbox(widen(t.bbox), req.crs, data.dataCrs, req.proj4Defs)
        if (!area.every(Number.isFinite)) continue
        const mvt = await vectorTile({ type: data.type, name: l.name, tile: t.bbox, gridSrid, ...(dataSrid !== undefined ? { dataSrid } : {}), area, extent: MVT_EXTENT, buffer: MVT_BUFFER, ...(filter ? { filter } : {}), ...(data.view ? { view: data.view } : {}) })
        if (mvt.length > 0) t.parts.push({ mvt })
      }
      continue
    }
    const all = widen([Math.min(...req.tiles.map((b) => b[0])), Math.min(...req.tiles.map((b) => b[1])), Math.max(...req.tiles.map((b) => b[2])), Math.max(...req.tiles.map((b) => b[3]))])
    const area = transformBbox(all, req.crs, data.dataCrs, req.proj4Defs)
    if (!area.every(Number.isFinite)) continue
    const features: VectorFeature[] = []
    for await (const f of data.source.readFeatures({ type: data.type, bbox: area, ...(filter ? { filter } : {}), ...(data.view ? { view: data.view } : {}) })) {
      if (!(f.geometry instanceof Uint8Array)) continue
      if (features.length >= deps.maxFeatures) throw WmsTooManyFeatures(l.layer, deps.maxFeatures)
      features.push({ geometry: f.geometry, properties: f.properties })
    }
    if (features.length === 0) continue
    layers.push({ name: l.name, dataCrs: data.dataCrs, features })
    for (const t of tiles) t.parts.push({ layer: layers.length - 1 })
  }
  return { crs: req.crs, ...(req.proj4Defs ? { proj4Defs: req.proj4Defs } : {}), tiles, layers, extent: MVT_EXTENT, buffer: MVT_BUFFER }
}
