// The drawing job of a vector layer, planned on the event loop's thread (database I/O only): the
// request's bbox, widened by a margin for symbols and labels, taken to the data's CRS; the
// features that meet it read through the layer's vector source (its spatial index), at most
// `maxFeatures` of them (memory stays bounded: past the cap the map is refused, never cut short
// silently); and the OGC scale denominator the rules are chosen by. Decoding, reprojection and
// drawing happen in a render worker (draw-vector.ts).
import { WmsTooManyFeatures } from '../../errors.js'
import type { Envelope, Filter } from '../../filters/tree.js'
import { parseEcql, type FilterSchema } from '../../filters/ecql.js'
import { inCrs } from '../../filters/spatial.js'
import type { Feature, VectorSource } from '../../vector/source.js'
import type { SqlView } from '../../vector/virtual-table.js'
import { isGeographic, METRES_PER_DEGREE, pointTransform, transformBbox } from '../crs.js'
import type { RenderRequest } from '../render-types.js'
import type { VectorFeature, VectorJob } from './draw-vector.js'
import type { VectorStyle } from './vector-style.js'

/** Where a vector layer's features are read: its source, the source's type name, their CRS. */
export interface VectorLayerData {
  source: Pick<VectorSource, 'readFeatures' | 'vectorTile'>
  type: string
  /** The CRS the geometries are stored in (EPSG:4326 when the data declares none). */
  dataCrs: string
  /** The attributes CQL_FILTER is resolved against. */
  schema: FilterSchema
  /** An SQL view's SELECT with the request's parameters bound, read in place of the table. */
  view?: SqlView
}

export interface VectorPlanDeps {
  layerData (layer: string, viewParams?: Record<string, string>): Promise<VectorLayerData>
  /** The most features one map may draw of one layer (MAPWARDEN_WMS_MAX_FEATURES). */
  maxFeatures: number
}

/** Pixels around the map whose features are read too: symbols and labels that reach into it. */
export const MARGIN_PIXELS = 64

/** The fraction of a pixel geometries are simplified to before they are drawn: under it, the
 *  antialiased edges of a simplified outline and of the full one differ by a few levels of grey. */
export const SIMPLIFY_PIXELS = 0.5

/**
 * The smallest extent of one pixel of the map in the data's CRS units, sampled on a grid of the map
 * (a reprojected map's pixels change size across it: the smallest one sets the tolerance); undefined
 * where no sample can be taken there.
 */
export function pixelInData (req: Pick<RenderRequest, 'crs' | 'bbox' | 'width' | 'height' | 'proj4Defs'>, dataCrs: string): number | undefined {
  const [x0, y0, x1, y1] = req.bbox
  const px = (x1 - x0) / req.width
  const py = (y1 - y0) / req.height
  const t = pointTransform(req.crs, dataCrs, req.proj4Defs)
  const n = 8
  let least = Infinity
  for (let i = 0; i <= n; i++) {
    for (let j = 0; j <= n; j++) {
      const x = x0 + (x1 - x0 - px) * i / n
      const y = y0 + (y1 - y0 - py) * j / n
      const [ax, ay] = t(x, y); const [bx, by] = t(x + px, y); const [cx, cy] = t(x, y + py)
      const d = Math.min(Math.hypot(bx - ax, by - ay), Math.hypot(cx - ax, cy - ay))
      if (Number.isFinite(d) && d > 0) least = Math.min(least, d)
    }
  }
  return Number.isFinite(least) ? least : undefined
}


/** The OGC scale denominator of a map: its ground width per pixel over a 0.28 mm pixel (GeoServer's RendererUtilities.calculateOGCScale). */
export function ogcScale (crs: string, bbox: [number, number, number, number], width: number): number {
  const perUnit = isGeographic(crs) ? METRES_PER_DEGREE : 1
  return (bbox[2] - bbox[0]) * perUnit / width / 0.00028
}

/** The style with its rules' spatial literals in the data's CRS (filters/spatial.ts inCrs); itself when none waits for it. */
export function styleInCrs (style: VectorStyle, crs: string, defs?: Record<string, string>): VectorStyle {
  let changed = false
  const featureTypeStyles = style.featureTypeStyles.map((fts) => ({
    rules: fts.rules.map((r) => {
      const filter = r.filter && inCrs(r.filter, crs, defs)
      if (filter === r.filter) return r
      changed = true
      return { ...r, filter }
    })
  }))
  return changed ? { featureTypeStyles } : style
}

export async function planVector (deps: VectorPlanDeps, req: RenderRequest, style: VectorStyle): Promise<VectorJob> {
  const data = await deps.layerData(req.layer, req.viewParams)
  const [x0, y0, x1, y1] = req.bbox
  const mx = (x1 - x0) / req.width * MARGIN_PIXELS
  const my = (y1 - y0) / req.height * MARGIN_PIXELS
  const wide: Envelope = [x0 - mx, y0 - my, x1 + mx, y1 + my]
  const area = transformBbox(wide, req.crs, data.dataCrs, req.proj4Defs)
  const features: VectorFeature[] = []
  const job: VectorJob = {
    kind: 'vector',
    layer: req.layer,
    crs: req.crs,
    bbox: req.bbox,
    width: req.width,
    height: req.height,
    dataCrs: data.dataCrs,
    scale: ogcScale(req.crs, req.bbox, req.width),
    style: styleInCrs(style, data.dataCrs, req.proj4Defs),
    features
  }
  if (req.proj4Defs) job.proj4Defs = req.proj4Defs
  const drawsAnything = style.featureTypeStyles.some((f) => f.rules.length > 0)
  if (!drawsAnything || !area.every(Number.isFinite)) return job
  // CQL_FILTER: resolved against the feature type's attributes, compiled by the source to SQL.
  const filter: Filter | undefined = req.cqlFilter !== undefined && req.cqlFilter.trim() !== '' ? parseEcql(req.cqlFilter, data.schema) : undefined
  // Geometries simplified to half a pixel where the source can (PostGIS): the read, its transfer to
  // the render thread and the SVG carry what the pixels show, not every vertex of the data.
  const pixel = pixelInData(req, data.dataCrs)
  const simplify = pixel !== undefined ? pixel * SIMPLIFY_PIXELS : undefined
  for await (const f of data.source.readFeatures({ type: data.type, bbox: area, ...(filter ? { filter } : {}), ...(simplify ? { simplify } : {}), ...(data.view ? { view: data.view } : {}) })) {
    if (!(f.geometry instanceof Uint8Array)) continue
    if (features.length >= deps.maxFeatures) throw WmsTooManyFeatures(req.layer, deps.maxFeatures)
    features.push({ geometry: f.geometry, properties: f.properties })
  }
  return job
}

/**
 * The features of a vector layer that meet an area of a map (GetFeatureInfo's pixel widened by
 * its BUFFER), in the map's CRS: the exact intersection is PostGIS's (ST_Intersects), the
 * geometries come back as GeoJSON in the data's CRS, at most `limit` of them.
 */
export async function featuresAt (deps: Pick<VectorPlanDeps, 'layerData'>, layer: string, area: Envelope, crs: string, proj4Defs: Record<string, string> | undefined,
  limit: number, viewParams?: Record<string, string>): Promise<{ features: Feature[], dataCrs: string }> {
  const data = await deps.layerData(layer, viewParams)
  const env = transformBbox(area, crs, data.dataCrs, proj4Defs)
  const features: Feature[] = []
  if (!env.every(Number.isFinite)) return { features, dataCrs: data.dataCrs }
  for await (const f of data.source.readFeatures({ type: data.type, bbox: env, limit, geometryFormat: 'geojson', ...(data.view ? { view: data.view } : {}) })) features.push(f)
  return { features, dataCrs: data.dataCrs }
}
