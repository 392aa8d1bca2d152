// GeoTools property-file data stores (the `directory` source of many app-schema mappings): one
// `<typeName>.properties` file per source type; the first line `_=name:Type[:srid=N],...` declares
// the attributes, every other line is `fid=value|value|...` with geometries as WKT. Read here only
// to learn a feature type's SRS and bounds.
import proj4 from 'proj4'

export type Bbox = [number, number, number, number]

export interface PropertyTypeInfo {
  attributes: Array<{ name: string, type: string, srid?: number }>
  features: number
  srid?: number
  /** Native bounds of the first geometry attribute, when any feature has one. */
  bbox?: Bbox
  problem?: string
}

const GEOMETRY = /^(Geometry|Point|MultiPoint|LineString|MultiLineString|Polygon|MultiPolygon|GeometryCollection|LinearRing|Curve|MultiCurve|Surface|MultiSurface)$/i

export function parsePropertyFile (text: string): PropertyTypeInfo {
  const lines = text.split(/\r?\n/)
  const header = lines.find((l) => l.startsWith('_='))
  if (!header) return { attributes: [], features: 0, problem: 'no "_=" header line declaring the attributes' }
  const attributes = header.slice(2).split(',').map((spec) => {
    const [name, type = 'String', ...rest] = spec.trim().split(':')
    const srid = rest.map((r) => /^srid=(\d+)$/i.exec(r.trim())).find((m) => m)
    return { name: name.trim(), type: type.trim(), ...(srid ? { srid: Number(srid[1]) } : {}) }
  })
  const geomIndex = attributes.findIndex((a) => GEOMETRY.test(a.type))
  let features = 0
  let bbox: Bbox | undefined
  for (const line of lines) {
    if (line === '' || line.startsWith('#') || line.startsWith('_=')) continue
    const eq = line.indexOf('=')
    if (eq < 0) continue
    features++
    if (geomIndex < 0) continue
    const values = line.slice(eq + 1).split('|')
    const b = wktBounds(values[geomIndex] ?? '')
    if (b) bbox = bbox ? [Math.min(bbox[0], b[0]), Math.min(bbox[1], b[1]), Math.max(bbox[2], b[2]), Math.max(bbox[3], b[3])] : b
  }
  const srid = geomIndex >= 0 ? attributes[geomIndex].srid : undefined
  return { attributes, features, ...(srid !== undefined ? { srid } : {}), ...(bbox ? { bbox } : {}) }
}

/** Bounds of a WKT geometry: every coordinate tuple's first two numbers. */
export function wktBounds (wkt: string): Bbox | undefined {
  let b: Bbox | undefined
  for (const part of wkt.replace(/^\s*SRID=\d+;/i, '').split(/[(),]/)) {
    const nums = part.trim().split(/\s+/).filter((s) => s !== '' && !/^[A-Za-z]+$/.test(s)).map(Number)
    if (nums.length < 2 || !Number.isFinite(nums[0]) || !Number.isFinite(nums[1])) continue
    const [x, y] = nums
    b = b ? [Math.min(b[0], x), Math.min(b[1], y), Math.max(b[2], x), Math.max(b[3], y)] : [x, y, x, y]
  }
  return b
}

// Geographic CRSs whose property-file coordinates are already lon/lat (GeoServer forces x/y order).
const GEOGRAPHIC = new Set([4326, 4283, 4269, 4258, 4167, 4617, 4674, 4019, 4030, 4230, 4267])
const WEB_MERCATOR = new Set([3857, 900913, 3785, 102113, 102100])

/** Lon/lat bounds of native bounds, when the CRS is one we can convert without a database. */
export function lonLatBounds (srid: number, b: Bbox): Bbox | undefined {
  if (GEOGRAPHIC.has(srid)) return b
  if (WEB_MERCATOR.has(srid)) {
    const [x0, y0] = proj4('EPSG:3857', 'EPSG:4326', [b[0], b[1]])
    const [x1, y1] = proj4('EPSG:3857', 'EPSG:4326', [b[2], b[3]])
    return [x0, y0, x1, y1]
  }
  return undefined
}
