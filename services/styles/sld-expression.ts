// SLD expressions read from the document in order (files/xml.ts parseXmlElements with `mixed`):
// a parameter's or a Label's content as text, ogc:PropertyName, ogc:Literal, ogc:Function and the
// arithmetic operators, compiled to the Expr the render workers evaluate (render/vector/
// expression.ts). A function mapwarden does not evaluate is refused naming it, when the style is
// saved. Also the small readers of a symbolizer's parameters by their SLD path.
import type { XmlElement } from '../files/xml.js'
import { InvalidStyle } from '../errors.js'
import { FUNCTIONS, type Expr } from '../render/vector/expression.js'
import type { Dynamic, DynamicField } from '../render/vector/vector-style.js'

const OPS: Record<string, '+' | '-' | '*' | '/'> = { Add: '+', Sub: '-', Mul: '*', Div: '/' }

const isText = (c: XmlElement) => c.local === '#text' || c.local === '#cdata'
/** An element's text: its text trimmed, CDATA as written (GeoTools' reading). */
const textOf = (el: XmlElement) => el.children.length === 0 ? el.text.trim() : el.children.map((c) => c.local === '#cdata' ? c.text : c.local === '#text' ? c.text.trim() : '').join('')

/** The Expr of an ogc:PropertyName, ogc:Literal, ogc:Function or arithmetic element (also an ogc:Filter's operands). */
export function element (el: XmlElement, where: string): Expr {
  if (el.local === 'PropertyName') {
    const name = textOf(el).trim()
    if (name === '') throw InvalidStyle(` an empty ogc:PropertyName in ${where}`)
    return { prop: name.includes(':') ? name.slice(name.indexOf(':') + 1) : name }
  }
  if (el.local === 'Literal') return { lit: textOf(el) }
  const args = el.children.filter((c) => !isText(c)).map((c) => element(c, where))
  const op = OPS[el.local]
  if (op !== undefined) {
    if (args.length !== 2) throw InvalidStyle(` ogc:${el.local} in ${where} needs two expressions, found ${args.length}`)
    return { op, args: [args[0], args[1]] }
  }
  if (el.local === 'Function') {
    const name = (el.attrs.name ?? '').trim()
    const arity = FUNCTIONS[name.toLowerCase()]
    if (arity === undefined) throw InvalidStyle(` the function ${JSON.stringify(name)} in ${where} is not known; known functions: strConcat, Concatenate, strToUpperCase, strToLowerCase, Recode, Categorize, Interpolate, in, in2 .. in10, equalTo, notEqualTo, lessThan, lessEqualThan, greaterThan, greaterEqualThan, between, isNull, not, and, or, strStartsWith, strEndsWith, strEqualsIgnoreCase, strMatches`)
    if (args.length < arity[0] || args.length > arity[1]) throw InvalidStyle(` the function ${name} in ${where} takes ${arity[0] === arity[1] ? arity[0] : `at least ${arity[0]}`} arguments, found ${args.length}`)
    return { fn: name.toLowerCase(), args }
  }
  throw InvalidStyle(` ${el.name} is not an expression mapwarden evaluates (in ${where})`)
}

/**
 * The expression an element's content makes, or undefined when it is plain text (the literal
 * geostyler-sld-parser read). Text between expressions is trimmed (and dropped when blank),
 * CDATA kept as written, as GeoTools reads mixed content.
 */
export function contentExpr (el: XmlElement | undefined, where: string): Expr | undefined {
  if (el === undefined || el.children.every(isText)) return undefined
  const parts: Expr[] = []
  for (const c of el.children) {
    if (c.local === '#cdata') parts.push({ lit: c.text })
    else if (c.local !== '#text') parts.push(element(c, where))
    else if (c.text.trim() !== '') parts.push({ lit: c.text.trim() })
  }
  return parts.length === 1 ? parts[0] : { cat: parts }
}

/** A Label as an expression: its text alone as a literal. */
export function labelExpr (el: XmlElement | undefined, where: string): Expr {
  return contentExpr(el, where) ?? { lit: el === undefined ? '' : textOf(el) }
}

/** The element at a path of local names below `el` (the first of each name). */
export function at (el: XmlElement | undefined, ...path: string[]): XmlElement | undefined {
  let cur = el
  for (const name of path) cur = cur?.children.find((c) => c.local === name)
  return cur
}

/** A CssParameter or SvgParameter of a Fill, Stroke or Font by its name. */
export function parameter (el: XmlElement | undefined, name: string): XmlElement | undefined {
  return el?.children.find((c) => (c.local === 'CssParameter' || c.local === 'SvgParameter') && c.attrs.name === name)
}

/** VendorOptions of a symbolizer: name to text. */
export function vendorOptions (el: XmlElement | undefined): Map<string, string> {
  const out = new Map<string, string>()
  for (const c of el?.children ?? []) if (c.local === 'VendorOption' && c.attrs.name) out.set(c.attrs.name, textOf(c).trim())
  return out
}

/** The parameters of a symbolizer given by expressions, or undefined when all are literals. */
export function dynamicOf (params: Array<[DynamicField, XmlElement | undefined]>, where: string): Dynamic | undefined {
  const out: Dynamic = {}
  for (const [field, el] of params) { const e = contentExpr(el, `${where} ${field}`); if (e) out[field] = e }
  return Object.keys(out).length > 0 ? out : undefined
}
