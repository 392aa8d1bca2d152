// Namespace-light access to the trees parseXml returns (./xml.ts: explicitArray false, attributes
// under `$`, text with attributes under `_`): the one set of tree helpers, used by the SLD reader
// (prefixes stripped first) and the app-schema mapping and XSD readers. Lookups go by local name
// and, where a document binds a namespace to a prefix, by the prefixes it declares.
import type { XmlObject, XmlValue } from './xml.js'

export function localName (key: string): string {
  const i = key.indexOf(':')
  return i < 0 ? key : key.slice(i + 1)
}

export function prefixOf (qname: string): string {
  const i = qname.indexOf(':')
  return i < 0 ? '' : qname.slice(0, i)
}

function isObject (v: XmlValue | undefined): v is XmlObject {
  return v !== undefined && typeof v === 'object' && !Array.isArray(v)
}

/** Child values whose local name is `name`, in document order for that name. */
export function children (node: XmlValue | undefined, name: string, prefixes?: Set<string>): XmlValue[] {
  if (!isObject(node)) return []
  const out: XmlValue[] = []
  for (const [key, value] of Object.entries(node)) {
    if (key === '$' || key === '_') continue
    if (localName(key) !== name) continue
    if (prefixes && !prefixes.has(prefixOf(key))) continue
    if (Array.isArray(value)) out.push(...value)
    else out.push(value)
  }
  return out
}

export function child (node: XmlValue | undefined, name: string, prefixes?: Set<string>): XmlValue | undefined {
  return children(node, name, prefixes)[0]
}

/** Text content of an element: a plain string, or `_` when it also has attributes. */
export function text (node: XmlValue | undefined): string | undefined {
  if (typeof node === 'string') return node.trim()
  if (isObject(node) && typeof node._ === 'string') return node._.trim()
  if (isObject(node) && Object.keys(node).every((k) => k === '$')) return ''
  return undefined
}

export function childText (node: XmlValue | undefined, name: string): string | undefined {
  return text(child(node, name))
}

export function attrs (node: XmlValue | undefined): Record<string, string> {
  if (isObject(node) && isObject(node.$)) return node.$ as unknown as Record<string, string>
  return {}
}

export function attr (node: XmlValue | undefined, name: string): string | undefined {
  return attrs(node)[name]
}

/** The element names among a node's keys (attributes `$` and text `_` left out). */
export function elementNames (node: XmlValue | undefined): string[] {
  if (!isObject(node)) return []
  return Object.keys(node).filter((k) => k !== '$' && k !== '_')
}

/** The only root element of a parsed document: [qualified name, value]. */
export function rootOf (doc: XmlObject): [string, XmlValue] {
  const [key] = Object.keys(doc)
  return [key, doc[key]]
}

/** xmlns declarations of an element: prefix ('' for the default namespace) to URI. */
export function xmlnsOf (node: XmlValue | undefined): Map<string, string> {
  const out = new Map<string, string>()
  for (const [k, v] of Object.entries(attrs(node))) {
    if (k === 'xmlns') out.set('', v)
    else if (k.startsWith('xmlns:')) out.set(k.slice(6), v)
  }
  return out
}
