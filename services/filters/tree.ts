// The filter tree every filter language parses to (ecql.ts today; OGC/FES XML filters map to the
// same nodes) and every source compiles from: sqlite.ts and pg.ts write their dialect's SQL with
// bound values; a source with no SQL (a shapefile) can evaluate it after the read. Property names
// are the source's own (resolved against its schema when parsed), values are typed for them.
import type { Expr } from '../render/vector/expression.js'
import type { Geo } from '../wfs/geometry.js'

export type Value = string | number | boolean | null
/** `expr`: a function or arithmetic of an SLD rule's filter (Categorize, Recode, in, strConcat...),
 *  evaluated per feature by render/vector/expression.ts; no SQL target compiles it. */
export type Expression = { k: 'property', name: string } | { k: 'value', v: Value } | { k: 'expr', e: Expr }
export type ComparisonOp = '=' | '<>' | '<' | '<=' | '>' | '>='
/** minx, miny, maxx, maxy in the source's CRS. */
export type Envelope = [number, number, number, number]

export type SpatialOp = 'intersects' | 'within' | 'contains' | 'disjoint' | 'touches' | 'overlaps' | 'crosses' | 'equals' | 'dwithin' | 'beyond'
/** The geometry property `name` in relation `op` to the literal `geo` (in the source's CRS, easting
 *  first); `distance` (DWithin, Beyond) in the units of the source's CRS. */
export interface SpatialFilter {
  k: 'spatial', op: SpatialOp, name: string, geo: Geo, distance: number
  /** An SLD rule's literal, read before the layer it draws (and so its CRS) is known: the CRS its
   *  srsName named (none: the layer's own), the Distance's unit, and whether it is a BBOX's
   *  envelope (taken to another CRS as the envelope of its transform). spatial.ts `inCrs` resolves
   *  it to the node above; a node with it is evaluated by no one before. */
  unresolved?: { crs?: string, unit?: string, box?: boolean }
}

export type Filter =
  | { k: 'and' | 'or', a: Filter, b: Filter }
  | { k: 'not', a: Filter }
  | { k: 'const', v: boolean }
  | { k: 'cmp', op: ComparisonOp, l: Expression, r: Expression }
  | { k: 'between', e: Expression, lo: Expression, hi: Expression }
  /** `pattern` in ECQL/OGC form: % any run, _ one character, \ quotes the next; `ci`: ILIKE. */
  | { k: 'like', e: Expression, pattern: string, ci: boolean }
  | { k: 'in', e: Expression, list: Expression[] }
  | { k: 'null', e: Expression }
  /** The source's footprint (its default geometry) intersects the envelope. */
  | { k: 'bbox', env: Envelope }
  | SpatialFilter
  /** Features by id (a WFS resource id without its `<type>.` prefix): the source's key value(s),
   *  several key columns joined by '.'. A source without keys refuses it. */
  | { k: 'fid', ids: string[] }

export const property = (name: string): Expression => ({ k: 'property', name })
export const value = (v: Value): Expression => ({ k: 'value', v })
export const compare = (op: ComparisonOp, name: string, v: Value): Filter => ({ k: 'cmp', op, l: property(name), r: value(v) })
export const not = (a: Filter): Filter => ({ k: 'not', a })

/** Whether the tree holds what an SLD rule's SQL prefilter leaves to the renderer: functions (no
 *  SQL target compiles them) and spatial operators (the style names the geometry its own way and
 *  its literal may not be in the layer's CRS yet). */
export function evaluatedOnly (f: Filter): boolean {
  const fn = (e: Expression) => e.k === 'expr'
  switch (f.k) {
    case 'and': case 'or': return evaluatedOnly(f.a) || evaluatedOnly(f.b)
    case 'not': return evaluatedOnly(f.a)
    case 'cmp': return fn(f.l) || fn(f.r)
    case 'between': return fn(f.e) || fn(f.lo) || fn(f.hi)
    case 'like': case 'null': return fn(f.e)
    case 'in': return fn(f.e) || f.list.some(fn)
    case 'spatial': return true
    default: return false
  }
}

/** The filters joined by AND (OR); undefined for none. */
export function allOf (filters: Filter[]): Filter | undefined {
  return filters.length === 0 ? undefined : filters.reduce((a, b) => ({ k: 'and', a, b }))
}
export function anyOf (filters: Filter[]): Filter | undefined {
  return filters.length === 0 ? undefined : filters.reduce((a, b) => ({ k: 'or', a, b }))
}

/** An ECQL LIKE pattern as a LIKE pattern with backslash escapes that both dialects read alike
 *  (a lone trailing backslash is a literal one, as SQLite takes it and PostgreSQL refuses it). */
export function likePattern (pattern: string): string {
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\') out += i + 1 < pattern.length ? pattern[i] + pattern[++i] : '\\\\'
    else out += pattern[i]
  }
  return out
}
