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

/**
 * An SLD rule's filter as a source can compile and answer it alike, or undefined when it cannot:
 * property names resolved against the layer's attributes (exactly, else ignoring case, as GeoTools
 * reads them), literals typed for the attribute they meet, a numeric literal only with a number
 * column and a text one only with a text column (the renderer compares a number with a text as a
 * number, SQL as text). Left to the renderer (undefined): functions that map to no node (no SQL
 * target compiles an `expr`), spatial operators (the style names the geometry its own way and its
 * literal may not be in the layer's CRS yet), NOT (SQL drops a null under it, GeoTools' rule draws
 * it), unknown properties (null to the renderer, an error to SQL), dates. An AND keeps the side it
 * can (a prefilter may pass more than the rule draws), an OR needs both.
 */
export function forSchema (f: Filter, attributes: ReadonlyArray<{ name: string, type: string }>): Filter | undefined {
  const attr = (name: string) => attributes.find((a) => a.name === name) ?? attributes.find((a) => a.name.toLowerCase() === name.toLowerCase())
  const prop = (e: Expression) => e.k === 'property' ? attr(e.name) : undefined
  const typed = (v: Value, type: string): Value | undefined => {
    if (type === 'Integer' || type === 'Double') {
      const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN
      return Number.isFinite(n) ? n : undefined
    }
    if (type === 'String') return typeof v === 'string' ? v : undefined
    return undefined
  }
  /** The operand against the attribute `a`: a property resolved, a value typed for it. */
  const operand = (e: Expression, a: { type: string }): Expression | undefined => {
    if (e.k === 'property') { const p = attr(e.name); return p && p.type === a.type ? property(p.name) : undefined }
    if (e.k === 'value') { const v = typed(e.v, a.type); return v === undefined ? undefined : value(v) }
    return undefined
  }
  const all = (xs: Array<Expression | undefined>): xs is Expression[] => xs.every((x) => x !== undefined)
  switch (f.k) {
    case 'const': return f
    case 'and': {
      const a = forSchema(f.a, attributes); const b = forSchema(f.b, attributes)
      return a && b ? { k: 'and', a, b } : a ?? b
    }
    case 'or': {
      const a = forSchema(f.a, attributes); const b = forSchema(f.b, attributes)
      return a && b ? { k: 'or', a, b } : undefined
    }
    case 'cmp': {
      const a = prop(f.l) ?? prop(f.r)
      if (!a) return undefined
      const l = operand(f.l, a); const r = operand(f.r, a)
      return l && r ? { k: 'cmp', op: f.op, l, r } : undefined
    }
    case 'between': {
      const a = prop(f.e)
      const xs = a ? [operand(f.e, a), operand(f.lo, a), operand(f.hi, a)] : []
      return a && all(xs) ? { k: 'between', e: xs[0], lo: xs[1], hi: xs[2] } : undefined
    }
    case 'in': {
      const a = prop(f.e)
      const xs = a ? [operand(f.e, a), ...f.list.map((x) => operand(x, a))] : []
      return a && all(xs) ? { k: 'in', e: xs[0], list: xs.slice(1) } : undefined
    }
    case 'like': { const a = prop(f.e); return a && (a.type === 'String' || a.type === 'Integer') ? { ...f, e: property(a.name) } : undefined }
    case 'null': { const a = prop(f.e); return a ? { k: 'null', e: property(a.name) } : undefined }
    default: return undefined
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
