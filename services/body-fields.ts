// Fields of a parsed XML or JSON body that no representation defines. Type hints first: XStream
// (GeoServer's and GWC's serializer) reads `class="..."` on an element and `"@class"` in JSON as
// the Java type to build, the shape of its deserialization CVEs; mapwarden builds no types from a
// body, but a hint is a sign of a hostile or confused client, so it is refused by name rather than
// silently ignored (../shared/spec/hostile-inputs.md #14). XML namespace declarations and xsi:
// attributes on the element are allowed (never fetched).
import { UnknownField } from './errors.js'

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
