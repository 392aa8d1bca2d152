// Fields of a parsed XML or JSON body that no representation defines. Type hints first: XStream
// (GeoServer's and GWC's serializer) reads `class="..."` on an element and `"@class"` in JSON as
// the Java type to build, the shape of its deserialization CVEs; mapwarden builds no types from a
// body, but a hint is a sign of a hostile or confused client, so it is refused by name rather than
// silently ignored. XML namespace declarations and xsi:
// attributes on the element are allowed (never fetched).
import { ReadOnlyField, UnknownField } from './errors.js'

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const HARMLESS_ATTRIBUTE = /^(xmlns(:.*)?|xsi:.*|xml:.*)$/

/** Refuses `@...` keys and XML attributes (other than namespace/xsi ones) on one body object. */
export function refuseTypeHints (body: unknown, where: string): void {
  if (!isObject(body)) return
  for (const key of Object.keys(body)) {
    if (key.startsWith('@')) throw UnknownField(JSON.stringify(key), where)
    if (key === '$' && isObject(body.$)) {
      for (const attr of Object.keys(body.$)) {
        if (!HARMLESS_ATTRIBUTE.test(attr)) throw UnknownField(`attribute ${JSON.stringify(attr)}`, where)
      }
    }
  }
}

/**
 * Refuses fields outside `known` (after the type-hint check). `ignored` names read-only fields a
 * client may send back from a GET (GET-modify-PUT); they are accepted and not applied.
 */
export function onlyFields (body: Record<string, unknown>, where: string, known: readonly string[], ignored: readonly string[] = []): void {
  refuseTypeHints(body, where)
  for (const key of Object.keys(body)) {
    if (key === '$' || known.includes(key) || ignored.includes(key)) continue
    throw UnknownField(JSON.stringify(key.length > 64 ? key.slice(0, 64) + '...' : key), where)
  }
}

/**
 * One object shape for both wire forms: xml2js puts an element's attributes under `$` and its text
 * (next to attributes) under `_`; Jettison writes them `@name` and `$`. Returns the JSON form, so
 * a handler reads `@key` and `$` whichever form arrived.
 */
export function unifyShape (v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unifyShape)
  if (!isObject(v)) return v
  const out: Record<string, unknown> = {}
  for (const [k, c] of Object.entries(v)) {
    if (k === '$' && isObject(c)) for (const [a, av] of Object.entries(c)) out['@' + a] = av
    else if (k === '_') out.$ = c
    else out[k] = unifyShape(c)
  }
  return out
}

// Parts of a representation that only point somewhere (atom links), derived from names: a client
// sends them back as it got them, and they carry nothing to apply.
const LINK_KEYS = new Set(['href', 'atom:link', '@xmlns:atom'])

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === '' ? [] : [v])

/**
 * Whether a value sent back equals what GET shows, across wire forms: XML text is a string where
 * JSON has a number or boolean, a one-item list is one element in XML, an empty one "" in JSON.
 * Objects compare on the keys sent (link parts aside); a key GET does not show never matches.
 */
export function sameValue (sent: unknown, current: unknown): boolean {
  if (current === undefined || current === null) return sent === undefined || sent === null || sent === ''
  if (typeof current === 'number') {
    const n = typeof sent === 'number' ? sent : typeof sent === 'string' && sent.trim() !== '' ? Number(sent) : NaN
    return n === current || (Number.isNaN(n) && Number.isNaN(current) && typeof sent === 'string' && /^nan$/i.test(sent.trim()))
  }
  if (typeof current === 'boolean') return sent === current || sent === String(current)
  if (typeof current === 'string') return sent === current
  if (Array.isArray(current)) {
    const list = asList(sent)
    return list.length === current.length && list.every((x, i) => sameValue(x, current[i]))
  }
  if (isObject(current)) {
    if (isObject(sent)) return Object.entries(sent).every(([k, v]) => LINK_KEYS.has(k) || (k in current && sameValue(v, current[k])))
    // An object whose only content is a list: <keywords/> or "" for none.
    return sent === '' && Object.values(current).every((v) => Array.isArray(v) && v.length === 0)
  }
  return false
}

const shown = (v: unknown): string => {
  const s = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v)
  return s.length > 120 ? s.slice(0, 120) + '...' : s
}

/**
 * Refuses a read-only field sent with another value than GET shows (GET-modify-PUT sends it back
 * unchanged, which is accepted): `Field "nativeName" of coverage is read-only: ...`.
 */
export function unchanged (sent: unknown, current: unknown, field: string, where: string): void {
  if (sent === undefined || sameValue(sent, current)) return
  throw ReadOnlyField(JSON.stringify(field), where, shown(current ?? null), shown(sent))
}

/**
 * The one check of a body object: every key is writable (the caller applies it) or read-only
 * (then it must equal `readOnly[key]`, what GET shows), else it is refused by name. Link parts are
 * accepted as sent. Use after unifyShape; attributes arrive as `@name` keys and count as fields.
 */
export function checkFields (body: Record<string, unknown>, where: string, writable: readonly string[], readOnly: Record<string, unknown> = {}): void {
  for (const [key, v] of Object.entries(body)) {
    if (writable.includes(key) || LINK_KEYS.has(key)) continue
    // Namespace and xsi attributes (as `$` before unifyShape, `@name` after) carry no field.
    if (key === '$' && isObject(v)) {
      const attr = Object.keys(v).find((a) => !HARMLESS_ATTRIBUTE.test(a))
      if (attr === undefined) continue
      throw UnknownField(`attribute ${JSON.stringify(attr.slice(0, 64))}`, where)
    }
    if (key.startsWith('@') && HARMLESS_ATTRIBUTE.test(key.slice(1))) continue
    if (Object.hasOwn(readOnly, key)) { unchanged(v, readOnly[key], key, where); continue }
    throw UnknownField(JSON.stringify(key.length > 64 ? key.slice(0, 64) + '...' : key), where)
  }
}
