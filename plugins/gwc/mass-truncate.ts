// GeoWebCache's mass truncation (MassTruncateController): GET lists the request types as GWC writes
// them (hand-assembled XML, the href the request came to); POST takes one request, its root element
// the request type (`<truncateLayer><layerName>topp:states</layerName></truncateLayer>`, GeoNode's
// call when a style changes), in XML or in JSON of the same shape, and answers 200 with an empty body
// once the tiles are gone. Admin-only, as the rest of /gwc/rest.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { MassTruncateInvalid, MethodNotAllowed } from '../../services/errors.js'
import { MASS_TRUNCATE_TYPES, type MassTruncateRequest, type MassTruncateType } from '../../services/tilecache/mass-truncate.js'
import { escapeXml } from '../../services/xml-escape.js'

const FIELDS: Record<MassTruncateType, string[]> = {
  truncateLayer: ['layerName'],
  truncateParameters: ['layerName', 'parameters'],
  truncateOrphans: ['layerName'],
  truncateExtent: ['layerName', 'gridSetId', 'bounds']
}

const list = (v: unknown): unknown[] => v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : [v]
const text = (v: unknown, name: string): string => {
  if (typeof v !== 'string' || v.trim() === '') throw MassTruncateInvalid(`${name} is required`)
  return v.trim()
}

/** `<parameters><parameter><key>STYLES</key><value>x</value></parameter></parameters>` (GWC's NamedMapConverter), or a JSON map. */
function parameters (v: unknown): Record<string, string> {
  if (v === undefined || v === '' || v === null) throw MassTruncateInvalid('parameters is required')
  if (typeof v !== 'object' || Array.isArray(v)) throw MassTruncateInvalid('parameters must be a list of parameter entries')
  const o = v as Record<string, unknown>
  const out: Record<string, string> = {}
  if (!('parameter' in o)) {
    for (const [k, val] of Object.entries(o)) out[k] = typeof val === 'string' || typeof val === 'number' ? String(val) : text(undefined, `parameters.${k}`)
    return out
  }
  for (const e of list(o.parameter)) {
    const entry = (e ?? {}) as Record<string, unknown>
    out[text(entry.key, 'parameter key')] = typeof entry.value === 'string' ? entry.value : ''
  }
  return out
}

/** GWC's BoundingBox: `<bounds><coords><double>minx</double>...4</coords></bounds>`. */
function bounds (v: unknown): [number, number, number, number] {
  const coords = (v as { coords?: { double?: unknown } } | undefined)?.coords
  const n = list(coords?.double ?? (Array.isArray(coords) ? coords : undefined)).map((d) => typeof d === 'number' ? d : typeof d === 'string' && d.trim() !== '' ? Number(d) : NaN)
  if (n.length !== 4 || !n.every(Number.isFinite)) throw MassTruncateInvalid('bounds must hold coords with four numbers (minx, miny, maxx, maxy)')
  if (n[0] >= n[2] || n[1] >= n[3]) throw MassTruncateInvalid('bounds: the minimum must be below the maximum on both axes')
  return n as [number, number, number, number]
}

export function readMassTruncate (body: unknown): MassTruncateRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw MassTruncateInvalid(`a request is expected, one of ${MASS_TRUNCATE_TYPES.join(', ')}`)
  const keys = Object.keys(body)
  const type = keys[0] as MassTruncateType
  if (keys.length !== 1 || !MASS_TRUNCATE_TYPES.includes(type)) throw MassTruncateInvalid(`unknown request type ${keys.slice(0, 3).join(', ') || '(none)'}; one of ${MASS_TRUNCATE_TYPES.join(', ')}`)
  const raw = (body as Record<string, unknown>)[type]
  const r = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<string, unknown>
  const unknown = Object.keys(r).filter((k) => !FIELDS[type].includes(k))
  if (unknown.length) throw MassTruncateInvalid(`unknown field ${unknown[0]} in ${type}; its fields are ${FIELDS[type].join(', ')}`)
  const layerName = text(r.layerName, 'layerName')
  if (type === 'truncateParameters') return { type, layerName, parameters: parameters(r.parameters) }
  if (type === 'truncateExtent') return { type, layerName, gridSetId: text(r.gridSetId, 'gridSetId'), bounds: bounds(r.bounds) }
  return { type, layerName }
}

const refuse = async (req: FastifyRequest) => { throw MethodNotAllowed(req.method) }

export default async function massTruncate (app: FastifyInstance) {
  const cache = app.tileCache
  app.get('/masstruncate', { schema: { summary: 'The mass truncation request types (XML, as GeoWebCache writes it)' } }, async (req, reply) => {
    const href = escapeXml(app.urls.absolute(req, `${app.prefix}/masstruncate`), { apostrophe: false })
    return reply.type('application/xml').send(`<massTruncateRequests href="${href}">${MASS_TRUNCATE_TYPES.map((t) => ` <requestType>${t}</requestType>`).join('')}</massTruncateRequests>`)
  })
  app.post('/masstruncate', { schema: { summary: 'Truncate a layer, a parameter set, an extent of a grid set or the orphaned parameter sets (truncateLayer, truncateParameters, truncateExtent, truncateOrphans)' } }, async (req, reply) => {
    await cache.massTruncate(readMassTruncate(req.body), req.principal)
    return reply.code(200).type('text/plain; charset=utf-8').send('')
  })
  app.put('/masstruncate', { onRequest: refuse, schema: { summary: 'Not allowed: answers 405' } }, async () => {})
  app.delete('/masstruncate', { onRequest: refuse, schema: { summary: 'Not allowed: answers 405' } }, async () => {})
}
