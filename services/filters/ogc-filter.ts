// OGC Filter Encoding 1.0/1.1 (an SLD rule's ogc:Filter) read from a parsed XML element (namespace
// prefixes dropped, as services/styles/sld.ts gives them) into the one filter tree (tree.ts).
// Literals stay text unless they read as numbers; evaluate.ts compares them as GeoTools does
// (numerically when both sides are numbers). Kept small and separate from any WFS filter reader.
import { InvalidStyle } from '../errors.js'
import type { XmlValue } from '../files/xml.js'
import { attr, children, elementNames, text } from '../files/xml-nodes.js'
import type { ComparisonOp, Expression, Filter } from './tree.js'
import { likeFromOgc } from './ogc-xml.js'

const COMPARISONS: Record<string, ComparisonOp> = {
  PropertyIsEqualTo: '=',
  PropertyIsNotEqualTo: '<>',
  PropertyIsLessThan: '<',
  PropertyIsLessThanOrEqualTo: '<=',
  PropertyIsGreaterThan: '>',
  PropertyIsGreaterThanOrEqualTo: '>='
}

const NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/

function expression (name: string, node: XmlValue): Expression {
  if (name === 'PropertyName' || name === 'ValueReference') {
    const p = text(node)?.trim()
    if (!p) throw InvalidStyle(` ${name} is empty`)
    return { k: 'property', name: p.replace(/^.*:/, '') }
  }
  if (name === 'Literal') {
    const v = text(node) ?? ''
    return { k: 'value', v: NUMBER.test(v) ? Number(v) : v }
  }
  throw InvalidStyle(` the filter expression ${name} is not supported (PropertyName and Literal are)`)
}

/** The expressions of an operator element, in document order of their kinds (property first). */
function operands (node: XmlValue, skip: string[] = []): Expression[] {
  const out: Expression[] = []
  for (const n of elementNames(node)) if (!skip.includes(n)) for (const c of children(node, n)) out.push(expression(n, c))
  return out
}

function one (name: string, node: XmlValue): Filter {
  if (name === 'And' || name === 'Or') {
    const parts = elementNames(node).flatMap((n) => children(node, n).map((c) => one(n, c)))
    if (parts.length < 2) throw InvalidStyle(` ${name} needs two filters or more`)
    return parts.reduce((a, b) => ({ k: name === 'And' ? 'and' : 'or', a, b }))
  }
  if (name === 'Not') {
    const inner = elementNames(node)
    if (inner.length !== 1) throw InvalidStyle(' Not needs one filter')
    return { k: 'not', a: one(inner[0], children(node, inner[0])[0]) }
  }
  const op = COMPARISONS[name]
  if (op) {
    const o = operands(node)
    if (o.length !== 2) throw InvalidStyle(` ${name} needs two expressions`)
    // matchCase="false": compared ignoring case, as a case-insensitive LIKE of the literal.
    if (op === '=' && attr(node, 'matchCase') === 'false' && o[1].k === 'value' && typeof o[1].v === 'string') {
      return { k: 'like', e: o[0], pattern: likeFromOgc(o[1].v, '\u0000', '\u0000', '\u0000'), ci: true }
    }
    return { k: 'cmp', op, l: o[0], r: o[1] }
  }
  if (name === 'PropertyIsBetween') {
    const e = operands(node, ['LowerBoundary', 'UpperBoundary'])[0]
    const bound = (b: string) => { const n = children(node, b)[0]; const o = n === undefined ? [] : operands(n); if (o.length !== 1) throw InvalidStyle(` PropertyIsBetween needs a ${b}`); return o[0] }
    if (!e) throw InvalidStyle(' PropertyIsBetween needs an expression')
    return { k: 'between', e, lo: bound('LowerBoundary'), hi: bound('UpperBoundary') }
  }
  if (name === 'PropertyIsLike') {
    const o = operands(node)
    if (o.length !== 2 || o[1].k !== 'value') throw InvalidStyle(' PropertyIsLike needs a PropertyName and a Literal')
    const pattern = likeFromOgc(String(o[1].v), attr(node, 'wildCard') ?? '*', attr(node, 'singleChar') ?? '.', attr(node, 'escape') ?? attr(node, 'escapeChar') ?? '!')
    return { k: 'like', e: o[0], pattern, ci: attr(node, 'matchCase') === 'false' }
  }
  if (name === 'PropertyIsNull') {
    const o = operands(node)
    if (o.length !== 1) throw InvalidStyle(' PropertyIsNull needs a PropertyName')
    return { k: 'null', e: o[0] }
  }
  if (name === 'BBOX') {
    const env = children(node, 'Envelope')[0] ?? children(node, 'Box')[0]
    const corner = (n: string) => text(children(env, n)[0])?.trim().split(/[\s,]+/).map(Number) ?? []
    let lo = corner('lowerCorner'); let hi = corner('upperCorner')
    if (lo.length === 0) { const c = text(children(env, 'coordinates')[0])?.trim().split(/\s+/).map((p) => p.split(',').map(Number)) ?? []; lo = c[0] ?? []; hi = c[1] ?? [] }
    if (lo.length < 2 || hi.length < 2 || [...lo, ...hi].some((n) => !Number.isFinite(n))) throw InvalidStyle(' BBOX needs an Envelope with lowerCorner and upperCorner')
    return { k: 'bbox', env: [lo[0], lo[1], hi[0], hi[1]] }
  }
  throw InvalidStyle(` the filter operator ${name} is not supported`)
}

/** The tree of an ogc:Filter element (its one child operator). */
export function parseOgcFilter (filter: XmlValue): Filter {
  const names = elementNames(filter)
  if (names.length !== 1 || children(filter, names[0]).length !== 1) throw InvalidStyle(' a Filter holds exactly one operator')
  return one(names[0], children(filter, names[0])[0])
}
