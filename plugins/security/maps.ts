// GeoServer writes its security resources as plain maps (MapXMLConverter / MapJSONConverter, and
// RuleMapXMLConverter for rules): XML with a declaration and one child element per entry, JSON as a
// flat object with no root key. These helpers read and write that shape.
import type { FastifyRequest } from 'fastify'
import { toXml } from '../infra/representation.js'
import { InvalidBody, NotAcceptable } from '../../services/errors.js'
import { asArray } from '../../services/files/xml.js'
import { checkFields, refuseTypeHints, unifyShape } from '../../services/body-fields.js'

/** MapXMLConverter's layout: a declaration, 2-space indent, `<root />` when empty, a final newline. */
const MAP_LAYOUT = { declaration: '<?xml version="1.0" encoding="UTF-8"?>', spaceBeforeSlash: true, finalNewline: true }

/** 'json' when asked for by suffix or Accept, else 'xml'; other suffixes are not representations here. */
export function mapFormat (req: FastifyRequest): 'xml' | 'json' {
  if (req.format === 'json') return 'json'
  if (req.format === 'xml' || req.format === undefined) return 'xml'
  throw NotAcceptable('.' + req.format, 'application/xml, application/json')
}

export function mapXml (root: string, entries: Array<[string, string]>): string {
  return toXml({ [root]: Object.fromEntries(entries) }, MAP_LAYOUT)
}

export function rulesXml (entries: Array<[string, string]>): string {
  return toXml({ rules: { rule: entries.map(([k, v]) => ({ '@resource': k, $: v })) } }, MAP_LAYOUT)
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * The entries of a map body. XML: the children of the root, whatever its name (GeoServer does not
 * check it). JSON: the flat object; `{"<root>": {...}}` is accepted too.
 */
export function mapBody (req: FastifyRequest, root: string): Record<string, unknown> {
  const body = req.body
  if (!isObject(body)) throw InvalidBody(`Expected a ${root} document in XML or JSON`)
  const xml = req.rawText !== undefined
  const keys = Object.keys(body)
  if (xml || (keys.length === 1 && keys[0] === root && isObject(body[root]))) {
    if (keys.length !== 1) throw InvalidBody(`Expected a ${root} document in XML or JSON`)
    const inner = body[keys[0]]
    if (inner === '' || inner === null || inner === undefined) return {}
    if (!isObject(inner)) throw InvalidBody(`Expected a ${root} document in XML or JSON`)
    refuseTypeHints(inner, root)
    return inner
  }
  refuseTypeHints(body, root)
  return body
}

/** preValidation: the body as its flat map (XML or JSON), so the route's one schema checks both forms. */
export function asMap (root: string) {
  return async (req: FastifyRequest) => { req.body = mapBody(req, root) }
}

/** Rule entries from `<rules><rule resource="k">roles</rule></rules>` or `{"k": "roles"}`. */
export function ruleEntries (req: FastifyRequest): Array<[string, unknown]> {
  const map = mapBody(req, 'rules')
  if (req.rawText === undefined) return Object.entries(map)
  const out: Array<[string, unknown]> = []
  for (const [name, value] of Object.entries(map)) {
    if (name !== 'rule') throw InvalidBody(`Unexpected element ${name} in rules; expected rule elements`)
    for (const item of asArray(value as unknown)) {
      const attrs = isObject(item) && isObject(item.$) ? item.$ : undefined
      // A rule is its resource and its roles; any other attribute or child would be dropped, so it is refused.
      if (isObject(item)) checkFields(unifyShape(item) as Record<string, unknown>, 'rule', ['@resource', '$'])
      const resource = attrs?.resource
      if (typeof resource !== 'string') throw InvalidBody('Every rule element needs a resource attribute')
      const text = isObject(item) ? item._ : undefined
      out.push([resource, typeof text === 'string' ? text : ''])
    }
  }
  return out
}
