// Safe XML parsing for request bodies and uploaded files. A DOCTYPE (and with it every entity
// declaration, internal or external) is refused before the parser sees the text, so no entity is
// ever expanded and no file or URL is ever read. Nesting depth is bounded.
import { Parser } from 'xml2js'
import { DoctypeNotAllowed, MalformedXml, TooDeep } from '../errors.js'

export const MAX_DEPTH = 256

export type XmlValue = string | XmlObject | XmlValue[]
export interface XmlObject { [key: string]: XmlValue }

export function assertNoDoctype (text: string): void {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw DoctypeNotAllowed()
}

function assertDepth (text: string, max: number): void {
  // Cheap upper bound: opening tags minus closing tags, ignoring comments and CDATA is close enough
  // to refuse pathological nesting before a recursive parser or walker meets it.
  let depth = 0
  const re = /<(\/?)[A-Za-z_][^>]*?(\/?)>/g
  let m
  while ((m = re.exec(text)) !== null) {
    if (m[1] === '/') depth--
    else if (m[2] !== '/') { depth++; if (depth > max) throw TooDeep('XML', max) }
  }
}

/**
 * Parses XML into plain objects in the same shape as GeoServer's JSON: element text as strings,
 * repeated elements as arrays, attributes under `$`, mixed text under `_`, root element as the
 * only key. Whitespace-only text between elements is dropped; an element's text is trimmed unless
 * `trim` is false: a REST body's values are read as sent, as GeoServer's XStream reads them and as
 * its JSON twin arrives, so `<name> lead</name>` meets the same name rule as `" lead"`. Throws
 * MW_CORE_* errors for anything unsafe or malformed.
 */
export async function parseXml (text: string, { maxDepth = MAX_DEPTH, trim = true } = {}): Promise<XmlObject> {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  assertNoDoctype(text)
  assertDepth(text, maxDepth)
  const parser = new Parser({ explicitArray: false, explicitRoot: true, trim, includeWhiteChars: false, normalize: false, async: false, strict: true })
  try {
    const out = await parser.parseStringPromise(text)
    if (out === null || typeof out !== 'object') throw new Error('no root element')
    return out as XmlObject
  } catch (err) {
    throw MalformedXml(((err as Error).message ?? String(err)).split('\n').join(' '))
  }
}

/** One element or many: GeoServer's XML lists collapse single items, JSON lists do not. */
export function asArray<T> (v: T | T[] | undefined | null | ''): T[] {
  if (v === undefined || v === null || v === '') return []
  return Array.isArray(v) ? v : [v]
}

/** An element of an XML document in document order (parseXmlElements): its qualified and local
 *  names, attributes by qualified name, its own text (trimmed) and child elements. */
export interface XmlElement {
  name: string
  local: string
  attrs: Record<string, string>
  text: string
  children: XmlElement[]
}

const localName = (n: string) => n.slice(n.indexOf(':') + 1)

/**
 * Parses XML keeping the order of child elements (an OGC filter's operands, a GetFeature's
 * queries): the same safety rules as parseXml (no DOCTYPE, bounded depth, strict). With `mixed`,
 * text is kept as it stands (untrimmed, whitespace included) and also as children named '#text'
 * between the elements, in order, a CDATA section as a child named '#cdata': an SLD Label's text
 * around its PropertyNames (GeoTools trims the text but not CDATA).
 */
export async function parseXmlElements (text: string, { maxDepth = MAX_DEPTH, mixed = false } = {}): Promise<XmlElement> {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  assertNoDoctype(text)
  assertDepth(text, maxDepth)
  const CDATA = '__mapwarden_cdata__'
  if (mixed) text = text.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, t: string) => `<${CDATA}>${t.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</${CDATA}>`)
  const parser = new Parser({
    explicitArray: true, explicitRoot: true, explicitChildren: true, preserveChildrenOrder: true, charsAsChildren: mixed,
    trim: !mixed, includeWhiteChars: mixed, normalize: false, async: false, strict: true
  })
  type Raw = { '#name'?: string, $?: Record<string, string>, _?: string, $$?: Raw[] } | string
  const convert = (name: string, raw: Raw): XmlElement => {
    if (typeof raw === 'string') return { name, local: localName(name), attrs: {}, text: raw, children: [] }
    return {
      name,
      local: localName(name),
      attrs: raw.$ ?? {},
      text: raw._ ?? '',
      children: (raw.$$ ?? []).map((c) => typeof c !== 'string' && (c['#name'] === '__text__' || c['#name'] === CDATA)
        ? { name: c['#name'] === CDATA ? '#cdata' : '#text', local: c['#name'] === CDATA ? '#cdata' : '#text', attrs: {}, text: c._ ?? '', children: [] }
        : convert(typeof c === 'string' ? '' : c['#name'] ?? '', c))
    }
  }
  let out: Record<string, Raw>
  try {
    out = await parser.parseStringPromise(text)
  } catch (err) {
    throw MalformedXml(((err as Error).message ?? String(err)).split('\n').join(' '))
  }
  if (out === null || typeof out !== 'object') throw MalformedXml('no root element')
  const [name, raw] = Object.entries(out)[0]
  return convert(name, raw)
}
