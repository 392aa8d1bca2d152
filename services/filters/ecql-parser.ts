// The ECQL grammar (a GeoTools ECQL subset), read by our own small recursive-descent parser into a
// syntax tree that ecql.ts resolves against a source's schema:
//   filter   := or ; or := and (OR and)* ; and := not (AND not)* ; not := NOT not | primary
//   primary  := ( filter ) | INCLUDE | EXCLUDE | BBOX(attr, x1, y1, x2, y2 [, 'crs'])
//             | INTERSECTS|DISJOINT|CONTAINS|WITHIN|TOUCHES|CROSSES|OVERLAPS|EQUALS(attr, <WKT>)
//             | DWITHIN|BEYOND(attr, <WKT>, distance, units) | operand cmp operand | operand [NOT] BETWEEN a AND b
//             | operand [NOT] LIKE|ILIKE 'pattern' | operand [NOT] IN (v, ...) | operand IS [NOT] NULL
//             | attr DURING t1/t2 | attr BEFORE t | attr AFTER t | attr TEQUALS t
//   operand  := attribute | 'string' | number | ISO date | TRUE | FALSE
// Functions are not supported (refused, not passed on).
import { InvalidCql } from '../errors.js'
import type { Geo } from '../wfs/geometry.js'
import { readWkt } from './wkt.js'

type Tok = { t: 'str' | 'num' | 'date' | 'id' | 'op' | 'qid', v: string, pos: number }

export const DATE = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?/
const NUM = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/
const ID = /^[A-Za-z_][A-Za-z0-9_.:]*/
/** An attribute path (GeoTools' ECQL on complex features): `gsml:specification/gsml:GeologicUnit/gml:name[2]/@codeSpace`. */
const PATH = /^[A-Za-z_][A-Za-z0-9_.:]*(?:\[\d+\])?(?:\/@?[A-Za-z_][A-Za-z0-9_.:]*(?:\[\d+\])?)*/
const OPS = ['<>', '!=', '<=', '>=', '=', '<', '>', '(', ')', ',', '/', '-', '+']
export const MAX_LENGTH = 10_000
const MAX_DEPTH = 64

/** `paths`: names may be XPath attribute paths (a `/` between two names is not a division). */
export function tokenize (text: string, { paths = false } = {}): Tok[] {
  const out: Tok[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (/\s/.test(c)) { i++; continue }
    const rest = text.slice(i)
    if (c === "'") {
      let v = ''
      let j = i + 1
      for (;;) {
        if (j >= text.length) throw InvalidCql(`unterminated string starting at position ${i}`)
        if (text[j] === "'") { if (text[j + 1] === "'") { v += "'"; j += 2; continue } break }
        v += text[j++]
      }
      out.push({ t: 'str', v, pos: i }); i = j + 1; continue
    }
    if (c === '"') {
      const j = text.indexOf('"', i + 1)
      if (j < 0) throw InvalidCql(`unterminated quoted name at position ${i}`)
      out.push({ t: 'qid', v: text.slice(i + 1, j), pos: i }); i = j + 1; continue
    }
    let m = DATE.exec(rest)
    if (m) { out.push({ t: 'date', v: m[0], pos: i }); i += m[0].length; continue }
    m = NUM.exec(rest)
    if (m) { out.push({ t: 'num', v: m[0], pos: i }); i += m[0].length; continue }
    m = (paths ? PATH : ID).exec(rest)
    if (m) { out.push({ t: 'id', v: m[0], pos: i }); i += m[0].length; continue }
    const op = OPS.find((o) => rest.startsWith(o))
    if (op) { out.push({ t: 'op', v: op, pos: i }); i += op.length; continue }
    throw InvalidCql(`unexpected character ${JSON.stringify(c)} at position ${i}`)
  }
  return out
}

export type Operand = { k: 'attr', name: string } | { k: 'lit', v: string | number | boolean, date?: boolean }
export type SyntaxNode =
  | { k: 'and' | 'or', a: SyntaxNode, b: SyntaxNode }
  | { k: 'not', a: SyntaxNode }
  | { k: 'const', v: boolean }
  | { k: 'cmp', op: string, l: Operand, r: Operand }
  | { k: 'between', e: Operand, lo: Operand, hi: Operand, not: boolean }
  | { k: 'like', e: Operand, pattern: string, ci: boolean, not: boolean }
  | { k: 'in', e: Operand, list: Operand[], not: boolean }
  | { k: 'null', e: Operand, not: boolean }
  | { k: 'temporal', op: string, attr: string, from: string, to?: string }
  | { k: 'bbox', attr: string, env: [number, number, number, number], crs?: string }
  | { k: 'spatial', op: string, attr: string, geo: Geo, distance?: number, units?: string }

const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'LIKE', 'ILIKE', 'IN', 'BETWEEN', 'IS', 'NULL', 'INCLUDE', 'EXCLUDE',
  'DURING', 'BEFORE', 'AFTER', 'TEQUALS', 'BBOX', 'INTERSECTS', 'TRUE', 'FALSE'])
const SPATIAL = ['INTERSECTS', 'DISJOINT', 'CONTAINS', 'WITHIN', 'TOUCHES', 'CROSSES', 'OVERLAPS', 'EQUALS', 'DWITHIN', 'BEYOND']

export class Parser {
  private i = 0
  private depth = 0
  private readonly toks: Tok[]
  constructor (toks: Tok[]) { this.toks = toks }

  private peek (o = 0): Tok | undefined { return this.toks[this.i + o] }
  private kw (o = 0): string | undefined {
    const t = this.peek(o)
    return t && t.t === 'id' ? t.v.toUpperCase() : undefined
  }
  private where (): string {
    const t = this.peek()
    return t ? `at position ${t.pos} (${JSON.stringify(t.v)})` : 'at the end of the filter'
  }
  private expectOp (v: string): void {
    const t = this.peek()
    if (!t || t.t !== 'op' || t.v !== v) throw InvalidCql(`expected "${v}" ${this.where()}`)
    this.i++
  }
  private acceptKw (k: string): boolean {
    if (this.kw() === k) { this.i++; return true }
    return false
  }

  parse (): SyntaxNode {
    const n = this.or()
    if (this.i < this.toks.length) throw InvalidCql(`unexpected ${this.where()}`)
    return n
  }

  private or (): SyntaxNode {
    if (++this.depth > MAX_DEPTH) throw InvalidCql(`filter nested deeper than ${MAX_DEPTH} levels`)
    let a = this.and()
    while (this.acceptKw('OR')) a = { k: 'or', a, b: this.and() }
    this.depth--
    return a
  }
  private and (): SyntaxNode {
    let a = this.not()
    while (this.acceptKw('AND')) a = { k: 'and', a, b: this.not() }
    return a
  }
  private not (): SyntaxNode {
    if (this.acceptKw('NOT')) {
      if (++this.depth > MAX_DEPTH) throw InvalidCql(`filter nested deeper than ${MAX_DEPTH} levels`)
      const n: SyntaxNode = { k: 'not', a: this.not() }
      this.depth--
      return n
    }
    return this.primary()
  }

  private primary (): SyntaxNode {
    const t = this.peek()
    if (!t) throw InvalidCql('unexpected end of the filter')
    if (t.t === 'op' && t.v === '(') {
      // A parenthesised filter, or a parenthesised operand? Operands are never parenthesised here.
      this.i++
      const n = this.or()
      this.expectOp(')')
      return n
    }
    const k = this.kw()
    if (k === 'INCLUDE') { this.i++; return { k: 'const', v: true } }
    if (k === 'EXCLUDE') { this.i++; return { k: 'const', v: false } }
    if (k === 'BBOX' && this.peek(1)?.v === '(') return this.bbox()
    if (k !== undefined && SPATIAL.includes(k) && this.peek(1)?.v === '(') return this.spatial(k)
    const left = this.operand()
    const next = this.kw()
    if (left.k === 'attr' && (next === 'DURING' || next === 'BEFORE' || next === 'AFTER' || next === 'TEQUALS')) {
      this.i++
      const from = this.instant()
      let to: string | undefined
      if (this.peek()?.t === 'op' && this.peek()!.v === '/') { this.i++; to = this.instant() }
      if (next === 'DURING' && to === undefined) throw InvalidCql(`DURING needs a period start/end ${this.where()}`)
      if (next === 'TEQUALS' && to !== undefined) throw InvalidCql('TEQUALS needs an instant, not a period')
      return { k: 'temporal', op: next, attr: left.name, from, to }
    }
    // A predicate must test an attribute: one on values alone (1=1, 'a' IN ('a')) is constant,
    // the classic way to widen a filter (hostile-inputs row 53), and never what a client means.
    const onValue = (what: string) => InvalidCql(`${what} at position ${t.pos} tests values only; name an attribute of the index`)
    let negate = false
    if (next === 'NOT' && ['BETWEEN', 'LIKE', 'ILIKE', 'IN'].includes(this.kw(1) ?? '')) { this.i++; negate = true }
    const k2 = this.kw()
    if (['BETWEEN', 'LIKE', 'ILIKE', 'IN', 'IS'].includes(k2 ?? '') && left.k !== 'attr') throw onValue(k2!)
    if (k2 === 'BETWEEN') {
      this.i++
      const lo = this.operand()
      if (!this.acceptKw('AND')) throw InvalidCql(`expected AND in BETWEEN ${this.where()}`)
      return { k: 'between', e: left, lo, hi: this.operand(), not: negate }
    }
    if (k2 === 'LIKE' || k2 === 'ILIKE') {
      this.i++
      const p = this.peek()
      if (!p || p.t !== 'str') throw InvalidCql(`LIKE needs a quoted pattern ${this.where()}`)
      this.i++
      return { k: 'like', e: left, pattern: p.v, ci: k2 === 'ILIKE', not: negate }
    }
    if (k2 === 'IN') {
      this.i++
      this.expectOp('(')
      const list = [this.operand()]
      while (this.peek()?.v === ',') { this.i++; list.push(this.operand()) }
      this.expectOp(')')
      if (list.length > 1000) throw InvalidCql('IN lists are limited to 1000 values')
      return { k: 'in', e: left, list, not: negate }
    }
    if (k2 === 'IS') {
      this.i++
      const not = this.acceptKw('NOT')
      if (!this.acceptKw('NULL')) throw InvalidCql(`expected NULL ${this.where()}`)
      return { k: 'null', e: left, not }
    }
    const op = this.peek()
    if (op && op.t === 'op' && ['=', '<>', '!=', '<', '<=', '>', '>='].includes(op.v)) {
      this.i++
      const right = this.operand()
      if (left.k !== 'attr' && right.k !== 'attr') throw onValue('comparison')
      return { k: 'cmp', op: op.v === '!=' ? '<>' : op.v, l: left, r: right }
    }
    throw InvalidCql(`expected a comparison ${this.where()}`)
  }

  private operand (): Operand {
    const t = this.peek()
    if (!t) throw InvalidCql('unexpected end of the filter')
    this.i++
    if (t.t === 'str') return { k: 'lit', v: t.v }
    if (t.t === 'date') return { k: 'lit', v: t.v, date: true }
    if (t.t === 'num') return { k: 'lit', v: Number(t.v) }
    if (t.t === 'op' && (t.v === '-' || t.v === '+')) {
      const n = this.peek()
      if (n?.t === 'num') { this.i++; return { k: 'lit', v: (t.v === '-' ? -1 : 1) * Number(n.v) } }
    }
    if (t.t === 'qid') return { k: 'attr', name: t.v }
    if (t.t === 'id') {
      const up = t.v.toUpperCase()
      if (up === 'TRUE' || up === 'FALSE') return { k: 'lit', v: up === 'TRUE' }
      if (this.peek()?.v === '(') throw InvalidCql(`function ${t.v} is not supported`)
      if (KEYWORDS.has(up)) throw InvalidCql(`unexpected keyword ${t.v} at position ${t.pos}`)
      return { k: 'attr', name: t.v }
    }
    this.i--
    throw InvalidCql(`expected a value or attribute ${this.where()}`)
  }

  private instant (): string {
    const t = this.peek()
    if (!t || (t.t !== 'date' && t.t !== 'str')) throw InvalidCql(`expected an ISO 8601 time ${this.where()}`)
    this.i++
    return t.v
  }

  private number (): number {
    let sign = 1
    if (this.peek()?.v === '-') { this.i++; sign = -1 }
    const t = this.peek()
    if (!t || t.t !== 'num') throw InvalidCql(`expected a number ${this.where()}`)
    this.i++
    return sign * Number(t.v)
  }

  private attrName (): string {
    const t = this.peek()
    if (!t || (t.t !== 'id' && t.t !== 'qid')) throw InvalidCql(`expected an attribute name ${this.where()}`)
    this.i++
    return t.v
  }

  private bbox (): SyntaxNode {
    this.i += 2
    const attr = this.attrName()
    const n: number[] = []
    for (let k = 0; k < 4; k++) { this.expectOp(','); n.push(this.number()) }
    let crs: string | undefined
    if (this.peek()?.v === ',') {
      this.i++
      const t = this.peek()
      if (!t || t.t !== 'str') throw InvalidCql(`expected a quoted CRS ${this.where()}`)
      this.i++
      crs = t.v
    }
    this.expectOp(')')
    return { k: 'bbox', attr, env: [Math.min(n[0], n[2]), Math.min(n[1], n[3]), Math.max(n[0], n[2]), Math.max(n[1], n[3])], crs }
  }

  // INTERSECTS, DISJOINT, CONTAINS, WITHIN, TOUCHES, CROSSES, OVERLAPS, EQUALS (attr, <WKT>) and
  // DWITHIN, BEYOND (attr, <WKT>, distance, units): the geometry read by wkt.ts.
  private spatial (op: string): SyntaxNode {
    this.i += 2
    const attr = this.attrName()
    this.expectOp(',')
    const { geo, end } = readWkt(this.toks, this.i)
    this.i = end
    let distance: number | undefined
    let units: string | undefined
    if (op === 'DWITHIN' || op === 'BEYOND') {
      this.expectOp(',')
      distance = this.number()
      if (distance < 0) throw InvalidCql(`${op} needs a distance of at least 0`)
      if (this.peek()?.v !== ',') throw InvalidCql(`${op} needs units after the distance ${this.where()}`)
      this.i++
      const u = this.peek()
      if (!u || (u.t !== 'id' && u.t !== 'str')) throw InvalidCql(`${op} needs units (meters, kilometers, feet, statute miles, nautical miles, degrees) ${this.where()}`)
      this.i++
      units = u.v
      // "statute miles" / "nautical miles": two words.
      if (this.peek()?.t === 'id') { units += ' ' + this.peek()!.v; this.i++ }
    }
    this.expectOp(')')
    return { k: 'spatial', op, attr, geo, distance, units }
  }
}
