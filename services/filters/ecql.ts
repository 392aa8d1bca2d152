// ECQL text (CQL_FILTER, granule queries and deletes) to the filter tree (tree.ts): parsed by
// ecql-parser.ts, then resolved against the source's schema: attribute names are the schema's
// (matched case-insensitively), values typed for the attribute they meet (numbers, ISO 8601
// instants in UTC, booleans as 1/0), temporal predicates made comparisons, BBOX envelopes taken to
// the source's CRS. Nothing of the text reaches SQL: each source compiles the tree with bound values.
import { InvalidCql } from '../errors.js'
import { normalizeCrs, transformBbox } from '../render/crs.js'
import { DATE, MAX_LENGTH, Parser, tokenize, type Operand, type SyntaxNode } from './ecql-parser.js'
import { distanceInCrsUnits } from './spatial.js'
import { allOf, compare, not, type Expression, type Filter, type SpatialOp, type Value } from './tree.js'

/** An attribute of the source: its name and type ('String', 'Integer', 'Double', 'Boolean', 'Date', 'Geometry'). */
export interface FilterAttribute { name: string, type: string }
export interface FilterSchema {
  attributes: FilterAttribute[]
  /** CRS of the footprints, for BBOX with an explicit CRS. */
  crs: string
  /** Attribute names may be XPath paths (app-schema's mapped types). */
  paths?: boolean
}

/** Normalises an ISO 8601 instant to the index's storage form (UTC, milliseconds, Z). */
export function isoInstant (text: string): string {
  const s = text.trim()
  if (!DATE.test(s) || DATE.exec(s)![0] !== s) throw InvalidCql(`not an ISO 8601 time: ${JSON.stringify(s.slice(0, 40))}`)
  const withZone = /T/.test(s) && !/(Z|[+-]\d{2}(:?\d{2})?)$/.test(s) ? s + 'Z' : /T/.test(s) ? s : s + 'T00:00:00Z'
  const t = Date.parse(withZone.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
  if (!Number.isFinite(t)) throw InvalidCql(`not an ISO 8601 time: ${JSON.stringify(s.slice(0, 40))}`)
  return new Date(t).toISOString()
}

export function parseEcql (text: string, schema: FilterSchema): Filter {
  if (text.length > MAX_LENGTH) throw InvalidCql(`filter longer than ${MAX_LENGTH} characters`)
  // PostgreSQL cannot bind U+0000 in text (SQLite can): refused here, so both backends answer alike.
  const nul = text.indexOf('\u0000')
  if (nul >= 0) throw InvalidCql(`NUL character (U+0000) at position ${nul}`)
  const toks = tokenize(text, { paths: schema.paths === true })
  if (toks.length === 0) throw InvalidCql('empty filter')
  return resolve(new Parser(toks).parse(), schema)
}

function resolve (ast: SyntaxNode, schema: FilterSchema): Filter {
  const attrs = schema.attributes
  const attr = (name: string) => {
    const a = attrs.find((s) => s.name === name) ?? attrs.find((s) => s.name.toLowerCase() === name.toLowerCase())
    if (!a) throw InvalidCql(`unknown attribute ${JSON.stringify(name)}; the index has ${attrs.map((s) => s.name).join(', ')}`)
    return a
  }
  const prop = (a: FilterAttribute): Expression => {
    if (a.type === 'Geometry') throw InvalidCql(`geometry attribute ${a.name} can only be used in BBOX or INTERSECTS and the other spatial predicates`)
    return { k: 'property', name: a.name }
  }
  const typeOf = (o: Operand) => (o.k === 'attr' ? attr(o.name).type : undefined)
  const lit = (o: Operand & { k: 'lit' }, type: string | undefined): Expression => {
    let v: Value = o.v
    if (type === 'Date') v = isoInstant(String(o.v))
    else if (type === 'Integer' || type === 'Double') {
      const n = typeof o.v === 'number' ? o.v : Number(o.v)
      if (typeof o.v === 'boolean' || !Number.isFinite(n)) throw InvalidCql(`${JSON.stringify(String(o.v))} is not a number`)
      v = n
    } else if (type === 'String') v = String(o.v)
    else if (type === 'Boolean') v = o.v === true || o.v === 'true' ? 1 : 0
    else if (typeof o.v === 'boolean') v = o.v ? 1 : 0
    else if (o.date) v = isoInstant(String(o.v))
    return { k: 'value', v }
  }
  const side = (o: Operand, other?: Operand) => o.k === 'attr' ? prop(attr(o.name)) : lit(o, other ? typeOf(other) : undefined)
  const negated = (f: Filter, neg: boolean) => neg ? not(f) : f
  const walk = (n: SyntaxNode): Filter => {
    switch (n.k) {
      case 'const': return n
      case 'and': case 'or': return { k: n.k, a: walk(n.a), b: walk(n.b) }
      case 'not': return not(walk(n.a))
      case 'cmp': { const l = side(n.l, n.r); return { k: 'cmp', op: n.op as '=', l, r: side(n.r, n.l) } }
      case 'between': { const e = side(n.e); return negated({ k: 'between', e, lo: side(n.lo, n.e), hi: side(n.hi, n.e) }, n.not) }
      case 'like': return negated({ k: 'like', e: side(n.e), pattern: n.pattern, ci: n.ci }, n.not)
      case 'in': { const e = side(n.e); return negated({ k: 'in', e, list: n.list.map((o) => side(o, n.e)) }, n.not) }
      case 'null': return negated({ k: 'null', e: side(n.e) }, n.not)
      case 'temporal': {
        const a = attr(n.attr)
        if (a.type !== 'Date') throw InvalidCql(`${n.attr} is not a time attribute`)
        const from = isoInstant(n.from)
        const to = n.to === undefined ? undefined : isoInstant(n.to)
        // DURING includes both ends (GeoServer's TIME ranges do); BEFORE/AFTER a period compare
        // with its start/end.
        if (n.op === 'DURING') return allOf([compare('>=', a.name, from), compare('<=', a.name, to!)])!
        if (n.op === 'TEQUALS') return compare('=', a.name, from)
        if (n.op === 'BEFORE') return compare('<', a.name, from)
        return compare('>', a.name, to ?? from)
      }
      case 'bbox': {
        const a = attr(n.attr)
        if (a.type !== 'Geometry') throw InvalidCql(`${n.attr} is not the geometry attribute`)
        let env = n.env
        if (n.crs) {
          let from: string
          try { from = normalizeCrs(n.crs) } catch { throw InvalidCql(`unknown CRS ${n.crs}`) }
          if (from !== normalizeCrs(schema.crs)) {
            try { env = transformBbox(env, from, schema.crs) } catch { throw InvalidCql(`unsupported CRS ${JSON.stringify(n.crs)}`) }
          }
        }
        return { k: 'bbox', env }
      }
      // The WKT is in the source's CRS (as GeoServer reads a CQL geometry without SRID); the
      // distance in the units named (see spatial.ts distanceInCrsUnits).
      case 'spatial': {
        const a = attr(n.attr)
        if (a.type !== 'Geometry') throw InvalidCql(`${n.attr} is not a geometry attribute`)
        const op = n.op.toLowerCase() as SpatialOp
        return { k: 'spatial', op, name: a.name, geo: n.geo, distance: n.distance === undefined ? 0 : distanceInCrsUnits(n.distance, n.units, schema.crs) }
      }
    }
  }
  return walk(ast)
}
