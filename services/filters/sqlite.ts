// The filter tree as SQLite SQL with `?` parameters. The source says how a property and its
// footprint read in SQL (a JSON attribute of a granule row, a quoted column of a GeoPackage table);
// values are always bound.
import { InvalidFeatureQuery } from '../errors.js'
import { envelopeOf } from '../wfs/geometry.js'
import type { Expression, Filter, SpatialFilter } from './tree.js'

export interface SqliteTarget {
  /** The SQL of a property's value; may bind parameters of its own (pushed to `params`). */
  property (name: string, params: unknown[]): string
  /** The footprint's minx, miny, maxx, maxy columns. */
  footprint: readonly [string, string, string, string]
  /** Features by id (the `fid` node); a target without feature ids refuses the node. */
  featureId?: (ids: string[], params: unknown[]) => string
  /** A spatial predicate (the `spatial` node); a target without geometries refuses the node. */
  spatial?: (n: SpatialFilter, params: unknown[]) => string
}

export interface SqliteFilter { sql: string, params: unknown[] }

/** A double-quoted SQLite identifier (a column of a vector source). */
export const quoteSqliteName = (name: string): string => `"${name.replace(/"/g, '""')}"`

/** ECQL LIKE is case-sensitive: SQLite's GLOB, with % and _ mapped and glob metacharacters quoted. */
const glob = (pattern: string): string =>
  pattern.replace(/[*?[\]]/g, (c) => `[${c}]`).replace(/\\(.)|%|_/g, (m, esc: string | undefined) => esc ?? (m === '%' ? '*' : '?'))

export function toSqlite (filter: Filter, target: SqliteTarget): SqliteFilter {
  const params: unknown[] = []
  const expr = (e: Expression): string => {
    if (e.k === 'property') return target.property(e.name, params)
    if (e.k === 'expr') throw InvalidFeatureQuery('filter functions are evaluated by the renderer only')
    params.push(typeof e.v === 'boolean' ? (e.v ? 1 : 0) : e.v)
    return '?'
  }
  const compile = (n: Filter): string => {
    switch (n.k) {
      case 'const': return n.v ? '1' : '0'
      case 'and': return `(${compile(n.a)} AND ${compile(n.b)})`
      case 'or': return `(${compile(n.a)} OR ${compile(n.b)})`
      case 'not': return `(NOT ${compile(n.a)})`
      case 'cmp': { const l = expr(n.l); return `(${l} ${n.op} ${expr(n.r)})` }
      case 'between': { const e = expr(n.e); const lo = expr(n.lo); return `(${e} BETWEEN ${lo} AND ${expr(n.hi)})` }
      case 'like': {
        const e = expr(n.e)
        params.push(n.ci ? n.pattern : glob(n.pattern))
        return n.ci ? `(${e} LIKE ? ESCAPE '\\')` : `(${e} GLOB ?)`
      }
      case 'in': { const e = expr(n.e); return `(${e} IN (${n.list.map(expr).join(', ')}))` }
      case 'null': return `(${expr(n.e)} IS NULL)`
      case 'bbox': {
        const [minx, miny, maxx, maxy] = target.footprint
        params.push(n.env[0], n.env[2], n.env[1], n.env[3])
        return `(${maxx} >= ? AND ${minx} <= ? AND ${maxy} >= ? AND ${miny} <= ?)`
      }
      case 'fid': {
        if (!target.featureId) throw InvalidFeatureQuery('feature ids cannot be matched here')
        return n.ids.length === 0 ? '0' : target.featureId(n.ids, params)
      }
      case 'spatial': {
        if (target.spatial) return target.spatial(n, params)
        // A granule index: its footprints are rectangles, INTERSECTS compares them with the literal's envelope.
        const env = n.op === 'intersects' ? envelopeOf(n.geo) : undefined
        if (!env) throw InvalidFeatureQuery(`${n.op} cannot be evaluated here`)
        return compile({ k: 'bbox', env })
      }
    }
  }
  return { sql: compile(filter), params }
}
