// One object tree, two wire forms, following GeoServer's XStream (XML) and Jettison (JSON)
// conventions:
// - the document has one root key: { workspace: {...} } -> <workspace>...</workspace> / {"workspace":{...}}
// - keys starting with '@' are XML attributes and stay '@name' in JSON; '$' is element text
// - arrays are repeated elements in XML and always arrays in JSON, even with one item
// - an object whose values are all empty arrays is an empty list: <styles/> and {"styles":""}
// - a Link under key 'href' is an atom:link in XML and "href":"...json" in JSON; under any other
//   key it is <key><atom:link .../></key> in XML and "key":"...json" in JSON
// - XML is pretty-printed with 2 spaces and no declaration, unless a layout says otherwise
import { stringifyExact } from '../../services/exact-json.js'
import { escapeXml } from '../../services/xml-escape.js'

export class Link {
  readonly base: string
  readonly type: string
  /** `base` is the absolute URL without the representation suffix. */
  constructor (base: string, type: 'application/xml' | 'application/atom+xml' = 'application/xml') {
    this.base = base
    this.type = type
  }
}

export type Value = string | number | bigint | boolean | null | undefined | Link | Value[] | { [key: string]: Value }
export type Document = Record<string, Value>
export type Format = 'xml' | 'json'

const ATOM = 'http://www.w3.org/2005/Atom'

export { escapeXml }

function isEmptyList (v: Value): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof Link) return false
  const vals = Object.values(v)
  return vals.length > 0 && vals.every((x) => Array.isArray(x) && x.length === 0)
}

function atomLink (link: Link): string {
  return `<atom:link xmlns:atom="${ATOM}" rel="alternate" href="${escapeXml(link.base + '.xml')}" type="${link.type}"/>`
}

/**
 * How a document is laid out. The default is GeoServer's REST layout (2-space indent, no
 * declaration); GeoServer's security maps are written with a declaration, some on one line.
 */
export interface XmlLayout {
  /** An XML declaration written before the root element. */
  declaration?: string
  /** The whole document on one line, without indentation. */
  compact?: boolean
  /** `<x />` rather than `<x/>` for an empty element. */
  spaceBeforeSlash?: boolean
  /** A line break after the last line. */
  finalNewline?: boolean
}

interface Writer { out: string[], step: string, nl: string, empty: string }

function xmlElement (name: string, v: Value, indent: string, w: Writer): void {
  const out = w.out
  if (v === undefined) return
  if (Array.isArray(v)) { for (const item of v) xmlElement(name, item, indent, w); return }
  if (v instanceof Link) {
    if (name === 'href') out.push(indent + atomLink(v))
    else out.push(`${indent}<${name}>${w.nl}${indent}${w.step}${atomLink(v)}${w.nl}${indent}</${name}>`)
    return
  }
  if (v === null) { out.push(`${indent}<${name}${w.empty}`); return }
  if (typeof v !== 'object') { out.push(`${indent}<${name}>${escapeXml(String(v))}</${name}>`); return }
  let attrs = ''
  let text: string | undefined
  const children: Array<[string, Value]> = []
  for (const [k, c] of Object.entries(v)) {
    if (c === undefined) continue
    if (k.startsWith('@')) attrs += ` ${k.slice(1)}="${escapeXml(String(c))}"`
    else if (k === '$') text = String(c)
    else children.push([k, c])
  }
  const nonEmpty = children.filter(([, c]) => !(Array.isArray(c) && c.length === 0))
  if (text !== undefined && nonEmpty.length === 0) { out.push(`${indent}<${name}${attrs}>${escapeXml(text)}</${name}>`); return }
  if (nonEmpty.length === 0) { out.push(`${indent}<${name}${attrs}${w.empty}`); return }
  out.push(`${indent}<${name}${attrs}>`)
  if (text !== undefined) out.push(indent + w.step + escapeXml(text))
  for (const [k, c] of nonEmpty) xmlElement(k, c, indent + w.step, w)
  out.push(`${indent}</${name}>`)
}

export function toXml (doc: Document, layout: XmlLayout = {}): string {
  const nl = layout.compact ? '' : '\n'
  const w: Writer = { out: [], step: layout.compact ? '' : '  ', nl, empty: layout.spaceBeforeSlash ? ' />' : '/>' }
  if (layout.declaration !== undefined) w.out.push(layout.declaration)
  for (const [k, v] of Object.entries(doc)) xmlElement(k, v, '', w)
  return w.out.join(nl) + (layout.finalNewline ? '\n' : '')
}

function jsonValue (v: Value): unknown {
  if (v instanceof Link) return v.base + '.json'
  if (Array.isArray(v)) return v.map(jsonValue)
  if (v === null || typeof v !== 'object') return v
  if (isEmptyList(v)) return ''
  const o: Record<string, unknown> = {}
  for (const [k, c] of Object.entries(v)) if (c !== undefined) o[k] = jsonValue(c)
  return o
}

export function toJson (doc: Document): string {
  return stringifyExact(jsonValue(doc as Value))
}

export function serialize (doc: Document, format: Format): string {
  return format === 'xml' ? toXml(doc) : toJson(doc)
}

export const MEDIA_TYPES: Record<Format, string> = { xml: 'application/xml', json: 'application/json' }
