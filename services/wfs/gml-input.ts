// Geometries of features on their way in (a Transaction's Insert and Update): GML 2 (gml:coordinates,
// gml:coord, outerBoundaryIs/innerBoundaryIs, MultiLineString, MultiPolygon), GML 3.1.1 and 3.2
// (gml:pos, gml:posList with srsDimension, exterior/interior, MultiCurve, MultiSurface and their
// member and members forms) read into GeoJSON-like coordinates, easting first: a srsName whose axis
// order is northing first (urn:ogc:def:crs:EPSG::4326) is swapped, as GeoServer reads it.
import type { XmlElement } from '../files/xml.js'
import { crsName } from '../filters/ogc-xml.js'
import { WfsInvalidParameter } from '../errors.js'
import { swapAxes, type Geo } from './geometry.js'

type Pos = number[]

export interface GmlGeometry {
  geo: Geo
  /** The CRS the srsName names (EPSG:n), when there is one. */
  crs?: string
}

const kids = (el: XmlElement, ...names: string[]) => el.children.filter((c) => names.includes(c.local))
const kid = (el: XmlElement, ...names: string[]) => el.children.find((c) => names.includes(c.local))

export function parseGml (el: XmlElement, locator: string, inheritedSrs?: string): GmlGeometry {
  const bad = (why: string): never => { throw WfsInvalidParameter(locator, `gml:${el.local}`, why) }
  const srsName = el.attrs.srsName ?? inheritedSrs
  const named = srsName ? crsName(srsName) : undefined
  if (srsName && !named) bad(`srsName ${JSON.stringify(srsName.slice(0, 80))} is not a coordinate reference system this server knows`)

  const numbers = (text: string, what: string): number[] => {
    const t = text.trim()
    const n = t === '' ? [] : t.split(/\s+/).map(Number)
    if (!n.every(Number.isFinite)) bad(`${what} holds something other than numbers`)
    return n
  }
  const dimOf = (e: XmlElement, fallback: number) => {
    const d = Number(e.attrs.srsDimension ?? e.attrs.dimension ?? fallback)
    if (d !== 2 && d !== 3) bad(`srsDimension must be 2 or 3, not ${JSON.stringify(e.attrs.srsDimension)}`)
    return d
  }
  const topDim = dimOf(el, 2)
  const group = (n: number[], d: number, what: string): Pos[] => {
    if (n.length % d !== 0) bad(`${what} holds ${n.length} numbers, not a multiple of its dimension ${d}`)
    const out: Pos[] = []
    for (let i = 0; i < n.length; i += d) out.push(n.slice(i, i + d))
    return out
  }
  /** gml:coordinates with its decimal, cs and ts (GML 2). */
  const coordinates = (e: XmlElement): Pos[] => {
    const cs = e.attrs.cs ?? ','
    const ts = e.attrs.ts ?? ' '
    const dec = e.attrs.decimal ?? '.'
    const tuples = e.text.trim().split(ts === ' ' ? /\s+/ : ts).filter((s) => s.trim() !== '')
    return tuples.map((tuple) => {
      const p = tuple.trim().split(cs).map((s) => Number(dec === '.' ? s : s.split(dec).join('.')))
      if ((p.length !== 2 && p.length !== 3) || !p.every(Number.isFinite)) bad(`gml:coordinates tuple ${JSON.stringify(tuple.slice(0, 40))} is not 2 or 3 numbers`)
      return p
    })
  }
  const coord = (e: XmlElement): Pos => {
    const p = ['X', 'Y', 'Z'].map((n) => kid(e, n)).filter((x): x is XmlElement => x !== undefined).map((x) => Number(x.text))
    if (p.length < 2 || !p.every(Number.isFinite)) bad('gml:coord needs numbers X and Y')
    return p
  }
  /** The positions of a Point, LineString or LinearRing, whichever form they take. */
  const positions = (e: XmlElement, min: number): Pos[] => {
    const d = dimOf(e, topDim)
    let out: Pos[] = []
    const posList = kid(e, 'posList')
    const coords = kid(e, 'coordinates')
    if (posList) out = group(numbers(posList.text, 'gml:posList'), dimOf(posList, d), 'gml:posList')
    else if (coords) out = coordinates(coords)
    else if (kids(e, 'pos').length > 0) out = kids(e, 'pos').map((p) => group(numbers(p.text, 'gml:pos'), dimOf(p, d), 'gml:pos')[0] ?? bad('an empty gml:pos'))
    else if (kids(e, 'coord').length > 0) out = kids(e, 'coord').map(coord)
    else if (kids(e, 'pointProperty', 'pointRep').length > 0) out = kids(e, 'pointProperty', 'pointRep').map((p) => positions(kid(p, 'Point') ?? bad('a pointProperty without a gml:Point'), 1)[0])
    if (out.length < min) bad(`gml:${e.local} needs at least ${min} position${min > 1 ? 's' : ''}`)
    return out
  }
  const ring = (boundary: XmlElement): Pos[] => {
    const r = kid(boundary, 'LinearRing') ?? bad(`gml:${boundary.local} needs a gml:LinearRing`)
    const ps = positions(r, 4)
    const [a, b] = [ps[0], ps[ps.length - 1]]
    if (a[0] !== b[0] || a[1] !== b[1]) bad('a gml:LinearRing must end where it starts')
    return ps
  }
  const polygon = (e: XmlElement): Pos[][] => {
    const outer = kid(e, 'exterior', 'outerBoundaryIs') ?? bad('a gml:Polygon needs an exterior (outerBoundaryIs)')
    return [ring(outer), ...kids(e, 'interior', 'innerBoundaryIs').map(ring)]
  }
  /** The members of a multi geometry: `xMember` elements (one each) and `xMembers` (several). */
  const members = (e: XmlElement, one: string[], many: string, types: string[]): XmlElement[] => {
    const out: XmlElement[] = []
    for (const m of kids(e, ...one)) out.push(m.children[0] ?? bad(`an empty gml:${m.local}`))
    for (const m of kids(e, many)) out.push(...m.children)
    for (const m of out) if (!types.includes(m.local)) bad(`gml:${e.local} cannot hold a gml:${m.local}`)
    return out
  }

  let geo: Geo
  switch (el.local) {
    case 'Point': geo = { type: 'Point', coordinates: positions(el, 1)[0] }; break
    case 'LineString': geo = { type: 'LineString', coordinates: positions(el, 2) }; break
    case 'Polygon': geo = { type: 'Polygon', coordinates: polygon(el) }; break
    case 'MultiPoint': geo = { type: 'MultiPoint', coordinates: members(el, ['pointMember'], 'pointMembers', ['Point']).map((p) => positions(p, 1)[0]) }; break
    case 'MultiLineString':
    case 'MultiCurve':
      geo = { type: 'MultiLineString', coordinates: members(el, ['lineStringMember', 'curveMember'], 'curveMembers', ['LineString']).map((l) => positions(l, 2)) }
      break
    case 'MultiPolygon':
    case 'MultiSurface':
      geo = { type: 'MultiPolygon', coordinates: members(el, ['polygonMember', 'surfaceMember'], 'surfaceMembers', ['Polygon']).map(polygon) }
      break
    default:
      return bad('supported geometries: Point, LineString, Polygon, MultiPoint, MultiLineString, MultiCurve, MultiPolygon, MultiSurface')
  }
  return { geo: named?.latFirst ? swapAxes(geo) : geo, ...(named ? { crs: named.code } : {}) }
}
