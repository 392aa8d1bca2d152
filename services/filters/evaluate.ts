// The filter tree evaluated on one feature: for a source without SQL (a shapefile) and for an SLD
// rule choosing the features it draws. Its properties, its geometry and the envelope of it; an SLD
// rule's functions (`expr` operands) evaluated by render/vector/expression.ts. By default
// the answers are SQL's, as the compiled forms give them: a comparison with a null (missing) value
// is unknown, and unknown is not a match, also under NOT (three-valued logic). An SLD rule follows
// GeoTools instead (`twoValued`): a comparison with a null is false, so NOT of it is true. LIKE as
// ECQL (case-sensitive; ILIKE folds ASCII letters as SQLite's LIKE).
import { evaluateWith } from '../render/vector/expression.js'
import type { Geo } from '../wfs/geometry.js'
import { spatialMatch, toJts, type JtsGeometry } from './spatial.js'
import type { Envelope, Expression, Filter, Value } from './tree.js'

type Tri = boolean | null

/** The parsed literal of a spatial node, parsed once per filter. */
const literals = new WeakMap<Filter, JtsGeometry>()

/** A feature's value as the filter compares it: dates as ISO text (how SQLite keeps them), booleans, numbers, text. */
function normalise (v: unknown): Value {
  if (v === undefined || v === null) return null
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString()
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'bigint') return Number(v)
  return String(v)
}

/** true/false written as text (an SLD literal) read as the boolean it is compared with (`in`'s answer), as GeoTools converts it. */
const asBoolean = (v: Value, other: Value): Value => typeof other === 'boolean' && typeof v === 'string' && /^\s*(true|false)\s*$/i.test(v) ? /true/i.test(v) : v

function compare (a: Value, b: Value): number | null {
  if (a === null || b === null) return null
  a = asBoolean(a, b); b = asBoolean(b, a)
  if (typeof a === 'boolean') a = a ? 1 : 0
  if (typeof b === 'boolean') b = b ? 1 : 0
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0
  // SQLite: a number sorts before any text; a numeric text compared with a number column reads as the number.
  if (typeof a === 'number' && typeof b === 'string') { const n = Number(b); return b.trim() !== '' && Number.isFinite(n) ? (a < n ? -1 : a > n ? 1 : 0) : -1 }
  if (typeof a === 'string' && typeof b === 'number') { const n = Number(a); return a.trim() !== '' && Number.isFinite(n) ? (n < b ? -1 : n > b ? 1 : 0) : 1 }
  const x = String(a); const y = String(b)
  return x < y ? -1 : x > y ? 1 : 0
}

/** An ECQL LIKE pattern as a regular expression (% any run, _ one character, \ quotes the next). */
export function likeRegExp (pattern: string, ci: boolean): RegExp {
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\' && i + 1 < pattern.length) out += pattern[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
    else if (c === '%') out += '[\\s\\S]*'
    else if (c === '_') out += '[\\s\\S]'
    else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  }
  return new RegExp(`^${out}$`, ci ? 'i' : '')
}

export interface FeatureView {
  property (name: string): unknown
  /** The envelope of the default geometry; undefined for a feature without one. */
  footprint (): Envelope | undefined
  /** The feature's id as the source gives it (Feature.id): what a `fid` node matches. */
  id (): string
  /** The feature's geometry (GeoJSON coordinates in the source's CRS), for the spatial operators; undefined for none. */
  geometry? (): Geo | undefined
}

/** A feature given as its attribute record (names matched exactly, else ignoring case, as GeoTools
 *  reads an SLD's property names) and its envelope. */
export function recordView (props: Record<string, unknown>, envelope?: Envelope, id = '', geometry?: Geo): FeatureView {
  return {
    property (name) {
      if (name in props) return props[name]
      const lower = name.toLowerCase()
      for (const k of Object.keys(props)) if (k.toLowerCase() === lower) return props[k]
      return null
    },
    footprint: () => envelope,
    id: () => id,
    geometry: () => geometry
  }
}

/** Whether the feature matches (unknown is not a match). `twoValued`: GeoTools' logic (see above). */
export function matches (filter: Filter, f: FeatureView, { twoValued = false } = {}): boolean {
  const likes = new Map<Filter, RegExp>()
  let own: JtsGeometry | null | undefined
  const val = (e: Expression): Value => e.k === 'value' ? e.v : e.k === 'expr' ? normalise(evaluateWith(e.e, (name) => f.property(name))) : normalise(f.property(e.name))
  // Unknown is false in two-valued logic: AND and OR already treat it so, NOT turns it into true.
  const not = (x: Tri): Tri => x === null ? (twoValued ? true : null) : !x
  const ev = (n: Filter): Tri => {
    switch (n.k) {
      case 'const': return n.v
      case 'and': { const a = ev(n.a); if (a === false) return false; const b = ev(n.b); return b === false ? false : a === null || b === null ? null : true }
      case 'or': { const a = ev(n.a); if (a === true) return true; const b = ev(n.b); return b === true ? true : a === null || b === null ? null : false }
      case 'not': return not(ev(n.a))
      case 'cmp': {
        const c = compare(val(n.l), val(n.r))
        if (c === null) return null
        switch (n.op) {
          case '=': return c === 0
          case '<>': return c !== 0
          case '<': return c < 0
          case '<=': return c <= 0
          case '>': return c > 0
          case '>=': return c >= 0
        }
        return null
      }
      case 'between': {
        const v = val(n.e)
        const lo = compare(v, val(n.lo)); const hi = compare(v, val(n.hi))
        if (lo === null || hi === null) return null
        return lo >= 0 && hi <= 0
      }
      case 'like': {
        const v = val(n.e)
        if (v === null) return null
        let re = likes.get(n)
        if (!re) { re = likeRegExp(n.pattern, n.ci); likes.set(n, re) }
        return re.test(typeof v === 'boolean' ? (v ? '1' : '0') : String(v))
      }
      case 'in': {
        const v = val(n.e)
        if (v === null) return null
        let unknown = false
        for (const x of n.list) {
          const c = compare(v, val(x))
          if (c === 0) return true
          if (c === null) unknown = true
        }
        return unknown ? null : false
      }
      case 'null': return val(n.e) === null
      case 'bbox': {
        const e = f.footprint()
        if (!e) return null
        return e[2] >= n.env[0] && e[0] <= n.env[2] && e[3] >= n.env[1] && e[1] <= n.env[3]
      }
      case 'fid': return n.ids.includes(f.id())
      case 'spatial': {
        if (own === undefined) { const g = f.geometry?.(); try { own = g ? toJts(g) : null } catch { own = null } }
        if (own === null) return null
        let lit = literals.get(n)
        if (!lit) { lit = toJts(n.geo); literals.set(n, lit) }
        return spatialMatch(n.op, own, lit, n.distance)
      }
    }
  }
  return ev(filter) === true
}
