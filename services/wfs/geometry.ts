// Geometries of features on their way out: a source's WKB (or GeoJSON text) read with wkx into
// GeoJSON coordinates, reprojected (proj4 through services/render/crs.ts: every EPSG code of the
// registry) and put in the axis order of the CRS name the answer uses, then written as GML 2
// (gml:coordinates; MultiLineString and MultiPolygon as such), GML 3.1.1 and 3.2 (gml:pos and
// gml:posList; MultiCurve and MultiSurface as GeoServer's GML3 encoding writes them), GeoJSON and WKT.
import wkx from 'wkx'
import { isNorthingFirst, normalizeCrs, pointTransform } from '../render/crs.js'

type Pos = number[]
export type Geo =
  | { type: 'Point', coordinates: Pos }
  | { type: 'MultiPoint' | 'LineString', coordinates: Pos[] }
  | { type: 'MultiLineString' | 'Polygon', coordinates: Pos[][] }
  | { type: 'MultiPolygon', coordinates: Pos[][][] }
  | { type: 'GeometryCollection', geometries: Geo[] }

export function decodeGeometry (g: Buffer | string | null): Geo | null {
  if (g === null) return null
  if (typeof g === 'string') return JSON.parse(g) as Geo
  const parsed = wkx.Geometry.parse(g) as unknown as { toGeoJSON (): Geo }
  return parsed.toGeoJSON()
}

/** A number as JSON writes it (NaN and the infinities as null). */
const jsonNumber = (n: number): string => Number.isFinite(n) ? String(n) : 'null'

/**
 * The GeoJSON text of a 2D WKB geometry (Point to MultiPolygon, no Z, M or SRID), exactly as
 * JSON.stringify(decodeGeometry(wkb)) writes it, read straight from the bytes: no geometry objects,
 * no coordinate arrays, for writing many features. Undefined for anything else (GeoJSON text, a
 * collection, a 3D or measured geometry, bytes that do not parse): decodeGeometry's way then.
 */
export function geojsonOfWkb (g: Buffer | string | null): string | undefined {
  if (g === null || typeof g === 'string') return undefined
  let at = 0
  const u32 = (le: boolean) => { const v = le ? g.readUInt32LE(at) : g.readUInt32BE(at); at += 4; return v }
  const f64 = (le: boolean) => { const v = le ? g.readDoubleLE(at) : g.readDoubleBE(at); at += 8; return v }
  const pos = (le: boolean) => { const x = f64(le); return `[${jsonNumber(x)},${jsonNumber(f64(le))}]` }
  const positions = (le: boolean) => {
    const n = u32(le)
    if (n === 0) return '[]'
    let out = '[' + pos(le)
    for (let i = 1; i < n; i++) out += ',' + pos(le)
    return out + ']'
  }
  const rings = (le: boolean) => {
    const n = u32(le)
    const out: string[] = []
    // wkx leaves out an empty exterior ring (an empty polygon's), not an empty interior one.
    for (let i = 0; i < n; i++) { const r = positions(le); if (i > 0 || r !== '[]') out.push(r) }
    return `[${out.join(',')}]`
  }
  /** One geometry's coordinates, checking its header says `want` (undefined: any of 1-6). */
  const body = (want?: number): [number, string] | undefined => {
    const order = g[at++]
    if (order !== 0 && order !== 1) return undefined
    const le = order === 1
    const type = u32(le)
    if (want !== undefined ? type !== want : type < 1 || type > 6) return undefined
    if (type === 1) return [type, pos(le)]
    if (type === 2) return [type, positions(le)]
    if (type === 3) return [type, rings(le)]
    const n = u32(le)
    const parts: string[] = []
    for (let i = 0; i < n; i++) {
      const part = body(type - 3)
      if (!part) return undefined
      parts.push(part[1])
    }
    return [type, `[${parts.join(',')}]`]
  }
  try {
    const b = body()
    return b && `{"type":"${WKB_TYPES[b[0]]}","coordinates":${b[1]}}`
  } catch { return undefined } // bytes cut short: as decodeGeometry fails
}

const WKB_TYPES = ['', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon']

function mapPositions (g: Geo, f: (p: Pos) => Pos): Geo {
  const deep = (c: unknown): unknown => typeof (c as number[])[0] === 'number' ? f(c as Pos) : (c as unknown[]).map(deep)
  if (g.type === 'GeometryCollection') return { type: g.type, geometries: g.geometries.map((x) => mapPositions(x, f)) }
  return { type: g.type, coordinates: deep(g.coordinates) } as Geo
}

/** A function taking geometries from one CRS to another (identity when they are the same or unknown). */
export function reprojector (from: string | undefined, to: string | undefined, defs?: Record<string, string>): (g: Geo) => Geo {
  if (!from || !to || normalizeCrs(from) === normalizeCrs(to)) return (g) => g
  const t = pointTransform(normalizeCrs(from), normalizeCrs(to), defs)
  return (g) => mapPositions(g, (p) => { const [x, y] = t(p[0], p[1]); return p.length > 2 ? [x, y, ...p.slice(2)] : [x, y] })
}

/**
 * A WFS version's default CRS name for an EPSG code (GML 2 / WFS 1.0.0: epsg.xml#, easting first;
 * WFS 1.1.0 / GML 3.1.1: urn:x-ogc; WFS 2.0.0 / GML 3.2: urn:ogc), and whether it orders latitude first.
 */
export function defaultSrsName (version: '1.0.0' | '1.1.0' | '2.0.0', code: string): { name: string, latFirst: boolean } {
  const n = /^EPSG:(\d+)$/.exec(code)?.[1] ?? code
  if (version === '1.0.0') return { name: `http://www.opengis.net/gml/srs/epsg.xml#${n}`, latFirst: false }
  return { name: version === '2.0.0' ? `urn:ogc:def:crs:EPSG::${n}` : `urn:x-ogc:def:crs:EPSG:${n}`, latFirst: isNorthingFirst(code) }
}

export const swapAxes = (g: Geo): Geo => mapPositions(g, (p) => [p[1], p[0], ...p.slice(2)])

/** The envelope of geometries (easting first), undefined for none. */
export function envelopeOf (g: Geo, into?: [number, number, number, number]): [number, number, number, number] | undefined {
  let e = into
  mapPositions(g, (p) => {
    if (!e) e = [p[0], p[1], p[0], p[1]]
    else { e[0] = Math.min(e[0], p[0]); e[1] = Math.min(e[1], p[1]); e[2] = Math.max(e[2], p[0]); e[3] = Math.max(e[3], p[1]) }
    return p
  })
  return e
}

const num = (n: number) => String(n)
const pos = (p: Pos) => p.map(num).join(' ')
const posList = (ps: Pos[]) => ps.map(pos).join(' ')
const dim = (g: Geo): number => {
  let d = 2
  mapPositions(g, (p) => { d = p.length > 2 ? 3 : d; return p })
  return d
}

/** GML 3.1.1 or 3.2 (gml:id on the geometry in 3.2, as GeoServer writes it). */
export function gml3 (g: Geo, srsName: string | undefined, v32: boolean, id?: string): string {
  const srs = srsName ? ` srsName="${srsName}"` : ''
  const top = (name: string, inner: string) => `<gml:${name}${v32 && id ? ` gml:id="${id}"` : ''}${srs} srsDimension="${dim(g)}">${inner}</gml:${name}>`
  const ring = (r: Pos[]) => `<gml:LinearRing><gml:posList>${posList(r)}</gml:posList></gml:LinearRing>`
  const polygon = (rings: Pos[][]) => `<gml:exterior>${ring(rings[0] ?? [])}</gml:exterior>${rings.slice(1).map((r) => `<gml:interior>${ring(r)}</gml:interior>`).join('')}`
  const member = (name: string, n: number, inner: string) => `<gml:${name}${v32 && id ? ` gml:id="${id}.${n}"` : ''}>${inner}</gml:${name}>`
  switch (g.type) {
    case 'Point': return top('Point', `<gml:pos>${pos(g.coordinates)}</gml:pos>`)
    case 'LineString': return top('LineString', `<gml:posList>${posList(g.coordinates)}</gml:posList>`)
    case 'Polygon': return top('Polygon', polygon(g.coordinates))
    case 'MultiPoint': return top('MultiPoint', g.coordinates.map((p, i) => `<gml:pointMember>${member('Point', i + 1, `<gml:pos>${pos(p)}</gml:pos>`)}</gml:pointMember>`).join(''))
    case 'MultiLineString': return top('MultiCurve', g.coordinates.map((l, i) => `<gml:curveMember>${member('LineString', i + 1, `<gml:posList>${posList(l)}</gml:posList>`)}</gml:curveMember>`).join(''))
    case 'MultiPolygon': return top('MultiSurface', g.coordinates.map((p, i) => `<gml:surfaceMember>${member('Polygon', i + 1, polygon(p))}</gml:surfaceMember>`).join(''))
    case 'GeometryCollection': return top('MultiGeometry', g.geometries.map((x, i) => `<gml:geometryMember>${gml3(x, undefined, v32, id ? `${id}.${i + 1}` : undefined)}</gml:geometryMember>`).join(''))
  }
}

/** GML 2.1.2: gml:coordinates with GeoServer's decimal, cs and ts. */
export function gml2 (g: Geo, srsName: string | undefined): string {
  const srs = srsName ? ` srsName="${srsName}"` : ''
  const coords = (ps: Pos[]) => `<gml:coordinates xmlns:gml="http://www.opengis.net/gml" decimal="." cs="," ts=" ">${ps.map((p) => p.map(num).join(',')).join(' ')}</gml:coordinates>`
  const ring = (r: Pos[]) => `<gml:LinearRing>${coords(r)}</gml:LinearRing>`
  const polygon = (rings: Pos[][], s = '') => `<gml:Polygon${s}><gml:outerBoundaryIs>${ring(rings[0] ?? [])}</gml:outerBoundaryIs>${rings.slice(1).map((r) => `<gml:innerBoundaryIs>${ring(r)}</gml:innerBoundaryIs>`).join('')}</gml:Polygon>`
  switch (g.type) {
    case 'Point': return `<gml:Point${srs}>${coords([g.coordinates])}</gml:Point>`
    case 'LineString': return `<gml:LineString${srs}>${coords(g.coordinates)}</gml:LineString>`
    case 'Polygon': return polygon(g.coordinates, srs)
    case 'MultiPoint': return `<gml:MultiPoint${srs}>${g.coordinates.map((p) => `<gml:pointMember><gml:Point>${coords([p])}</gml:Point></gml:pointMember>`).join('')}</gml:MultiPoint>`
    case 'MultiLineString': return `<gml:MultiLineString${srs}>${g.coordinates.map((l) => `<gml:lineStringMember><gml:LineString>${coords(l)}</gml:LineString></gml:lineStringMember>`).join('')}</gml:MultiLineString>`
    case 'MultiPolygon': return `<gml:MultiPolygon${srs}>${g.coordinates.map((p) => `<gml:polygonMember>${polygon(p)}</gml:polygonMember>`).join('')}</gml:MultiPolygon>`
    case 'GeometryCollection': return `<gml:MultiGeometry${srs}>${g.geometries.map((x) => `<gml:geometryMember>${gml2(x, undefined)}</gml:geometryMember>`).join('')}</gml:MultiGeometry>`
  }
}

export function wkt (g: Geo): string {
  const p = (c: Pos) => c.map(num).join(' ')
  const l = (cs: Pos[]) => `(${cs.map(p).join(', ')})`
  const poly = (rs: Pos[][]) => `(${rs.map(l).join(', ')})`
  switch (g.type) {
    case 'Point': return `POINT (${p(g.coordinates)})`
    case 'LineString': return `LINESTRING ${l(g.coordinates)}`
    case 'Polygon': return `POLYGON ${poly(g.coordinates)}`
    case 'MultiPoint': return `MULTIPOINT (${g.coordinates.map((c) => `(${p(c)})`).join(', ')})`
    case 'MultiLineString': return `MULTILINESTRING (${g.coordinates.map(l).join(', ')})`
    case 'MultiPolygon': return `MULTIPOLYGON (${g.coordinates.map(poly).join(', ')})`
    case 'GeometryCollection': return `GEOMETRYCOLLECTION (${g.geometries.map(wkt).join(', ')})`
  }
}
