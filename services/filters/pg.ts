// The filter tree as PostgreSQL SQL with $n parameters (`bind` adds one and returns its
// placeholder). The source says how a property, its text (before LIKE) and a value compared with it
// read in SQL: a granule's JSON attributes compare through mw_json_value as SQLite compares
// json_extract's values (storage/pg/schema.ts); a PostGIS table's columns are quoted names.
import { InvalidFeatureQuery } from '../errors.js'
import { envelopeOf } from '../wfs/geometry.js'
import { likePattern, type Expression, type Filter, type SpatialFilter, type Value } from './tree.js'

export type Bind = (v: unknown) => string

export interface PgTarget {
  property (name: string, bind: Bind): string
  /** A property as text, for LIKE. */
  propertyText (name: string, bind: Bind): string
  /** A value compared with a property. */
  value (v: Value, bind: Bind): string
  footprint: readonly [string, string, string, string]
  /** Features by id (the `fid` node); a target without feature ids refuses the node. */
  featureId?: (ids: string[], bind: Bind) => string
  /** A geometry property's column and SRID (the `spatial` node); a target without geometries refuses the node. */
  geometry?: (name: string) => { sql: string, srid: number }
}

const PG_SPATIAL: Record<SpatialFilter['op'], string> = {
  intersects: 'ST_Intersects', within: 'ST_Within', contains: 'ST_Contains', disjoint: 'ST_Disjoint', touches: 'ST_Touches',
  overlaps: 'ST_Overlaps', crosses: 'ST_Crosses', equals: 'ST_Equals', dwithin: 'ST_DWithin', beyond: 'ST_DWithin'
}

/** A double-quoted PostgreSQL identifier (a column of a vector source). */
export const quotePgName = (name: string): string => `"${name.replace(/"/g, '""')}"`

export function toPg (filter: Filter, target: PgTarget, bind: Bind): string {
  const expr = (e: Expression, text = false): string => {
    if (e.k === 'value') return target.value(e.v, bind)
    if (e.k === 'expr') throw InvalidFeatureQuery('filter functions are evaluated by the renderer only')
    return text ? target.propertyText(e.name, bind) : target.property(e.name, bind)
  }
  const compile = (n: Filter): string => {
    switch (n.k) {
      case 'const': return n.v ? 'TRUE' : 'FALSE'
      case 'and': return `(${compile(n.a)} AND ${compile(n.b)})`
      case 'or': return `(${compile(n.a)} OR ${compile(n.b)})`
      case 'not': return `(NOT ${compile(n.a)})`
      case 'cmp': { const l = expr(n.l); return `(${l} ${n.op} ${expr(n.r)})` }
      case 'between': { const e = expr(n.e); const lo = expr(n.lo); return `(${e} BETWEEN ${lo} AND ${expr(n.hi)})` }
      // SQLite's LIKE folds ASCII only (ILIKE in the C collation does the same); ECQL's LIKE is
      // case-sensitive (SQLite's GLOB).
      case 'like': return `(${expr(n.e, true)} COLLATE "C" ${n.ci ? 'ILIKE' : 'LIKE'} ${bind(likePattern(n.pattern))}::text ESCAPE '\\')`
      case 'in': { const e = expr(n.e); return `(${e} IN (${n.list.map((x) => expr(x)).join(', ')}))` }
      case 'null': return `(${expr(n.e)} IS NULL)`
      case 'bbox': {
        const [minx, miny, maxx, maxy] = target.footprint
        const num = (v: number) => `${bind(v)}::double precision`
        return `(${maxx} >= ${num(n.env[0])} AND ${minx} <= ${num(n.env[2])} AND ${maxy} >= ${num(n.env[1])} AND ${miny} <= ${num(n.env[3])})`
      }
      case 'fid': {
        if (!target.featureId) throw InvalidFeatureQuery('feature ids cannot be matched here')
        return n.ids.length === 0 ? 'FALSE' : target.featureId(n.ids, bind)
      }
      // The literal is bound as GeoJSON text in the column's SRID; ST_Intersects and the others
      // (ST_DWithin too) carry the && that lets the planner use the column's GiST index.
      case 'spatial': {
        if (!target.geometry) {
          // A granule index: its footprints are rectangles, INTERSECTS compares them with the literal's envelope.
          const env = n.op === 'intersects' ? envelopeOf(n.geo) : undefined
          if (!env) throw InvalidFeatureQuery(`${n.op} cannot be evaluated here`)
          return compile({ k: 'bbox', env })
        }
        const g = target.geometry(n.name)
        const lit = `ST_SetSRID(ST_GeomFromGeoJSON(${bind(JSON.stringify(n.geo))}::text), ${bind(g.srid)}::integer)`
        const fn = PG_SPATIAL[n.op]
        if (n.op === 'dwithin' || n.op === 'beyond') {
          const call = `${fn}(${g.sql}, ${lit}, ${bind(n.distance)}::double precision)`
          return n.op === 'beyond' ? `(NOT ${call})` : call
        }
        return `${fn}(${g.sql}, ${lit})`
      }
    }
  }
  return compile(filter)
}
