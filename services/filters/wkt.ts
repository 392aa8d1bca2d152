// A WKT geometry in ECQL (INTERSECTS(geom, POLYGON((...))) and the other spatial predicates) read
// from the filter's tokens into GeoJSON coordinates: POINT, LINESTRING, POLYGON, MULTIPOINT (with or
// without parentheses around each point), MULTILINESTRING, MULTIPOLYGON, and GeoTools' ECQL
// ENVELOPE(minx, maxx, maxy, miny) as its polygon. 2 or 3 ordinates a position; nothing else.
import { InvalidCql } from '../errors.js'
import type { Geo } from '../wfs/geometry.js'

export interface WktToken { t: string, v: string, pos: number }
export const WKT_TYPES = ['POINT', 'LINESTRING', 'POLYGON', 'MULTIPOINT', 'MULTILINESTRING', 'MULTIPOLYGON', 'ENVELOPE']

/** Reads a WKT geometry from toks[start]; returns it and the index after it. */
export function readWkt (toks: WktToken[], start: number): { geo: Geo, end: number } {
  let i = start
  const where = () => toks[i] ? `at position ${toks[i].pos} (${JSON.stringify(toks[i].v)})` : 'at the end of the filter'
  const op = (v: string) => {
    if (toks[i]?.t !== 'op' || toks[i].v !== v) throw InvalidCql(`expected "${v}" in the geometry ${where()}`)
    i++
  }
  const isOp = (v: string) => toks[i]?.t === 'op' && toks[i].v === v
  const num = (): number => {
    let sign = 1
    if (isOp('-')) { sign = -1; i++ } else if (isOp('+')) i++
    const t = toks[i]
    if (t?.t !== 'num') throw InvalidCql(`expected a number in the geometry ${where()}`)
    i++
    return sign * Number(t.v)
  }
  const isNum = () => toks[i]?.t === 'num' || ((isOp('-') || isOp('+')) && toks[i + 1]?.t === 'num')
  const position = (): number[] => {
    const p = [num(), num()]
    if (isNum()) p.push(num())
    return p
  }
  const list = <T>(item: () => T): T[] => {
    op('(')
    const out = [item()]
    while (isOp(',')) { i++; out.push(item()) }
    op(')')
    return out
  }
  const positions = () => list(position)
  const ring = () => {
    const r = positions()
    const [a, b] = [r[0], r[r.length - 1]]
    if (r.length < 4 || a[0] !== b[0] || a[1] !== b[1]) throw InvalidCql('a polygon ring needs at least 4 positions and must end where it starts')
    return r
  }
  const kind = toks[i]?.t === 'id' ? toks[i].v.toUpperCase() : undefined
  if (!kind || !WKT_TYPES.includes(kind)) throw InvalidCql(`expected a WKT geometry (${WKT_TYPES.join(', ')}) ${where()}`)
  i++
  let geo: Geo
  switch (kind) {
    case 'POINT': { op('('); const p = position(); op(')'); geo = { type: 'Point', coordinates: p }; break }
    case 'LINESTRING': {
      const ps = positions()
      if (ps.length < 2) throw InvalidCql('a LINESTRING needs at least 2 positions')
      geo = { type: 'LineString', coordinates: ps }
      break
    }
    case 'POLYGON': geo = { type: 'Polygon', coordinates: list(ring) }; break
    case 'MULTIPOINT': geo = { type: 'MultiPoint', coordinates: list(() => { if (!isOp('(')) return position(); i++; const p = position(); op(')'); return p }) }; break
    case 'MULTILINESTRING': geo = { type: 'MultiLineString', coordinates: list(positions) }; break
    case 'MULTIPOLYGON': geo = { type: 'MultiPolygon', coordinates: list(() => list(ring)) }; break
    default: {
      op('('); const minx = num(); op(','); const maxx = num(); op(','); const maxy = num(); op(','); const miny = num(); op(')')
      if (minx > maxx || miny > maxy) throw InvalidCql('ENVELOPE needs minx, maxx, maxy, miny with the minimum below the maximum')
      geo = { type: 'Polygon', coordinates: [[[minx, miny], [maxx, miny], [maxx, maxy], [minx, maxy], [minx, miny]]] }
    }
  }
  return { geo, end: i }
}
