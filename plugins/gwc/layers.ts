// GeoWebCache's tile layers (TileLayerController): GET layers lists them (XML as GWC's docs show it,
// an atom link per layer to <name>.xml, names URL-encoded; JSON a list of names) and GET
// layers/<layer>.xml|.json shows one as a GeoServerLayer, read from the settings mapwarden keeps
// (the layer resource and its tile settings). Admin-only, as the rest of /gwc/rest.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { toXml, escapeXml as esc, type Document } from '../infra/representation.js'
import { GwcLayerUnsupported, GwcListReadOnly } from '../../services/errors.js'
import { bodyRoot } from '../infra/routes.js'
import type { GeoServerLayerView, ParameterFilterView } from '../../services/tilecache/geoserver-layer.js'
import { javaFloat } from '../../services/tilecache/parameters.js'

// GWC writes the names form-encoded in the links (img+states, topp%3Astates).
const formEncode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+')

function layerXml (v: GeoServerLayerView): string {
  const filters: Record<string, Document[]> = {}
  for (const f of v.parameterFilters) (filters[f.kind] ??= []).push(filterDoc(f))
  return toXml({
    GeoServerLayer: {
      id: v.id,
      enabled: String(v.enabled),
      name: v.name,
      ...(v.blobStoreId !== undefined ? { blobStoreId: v.blobStoreId } : {}),
      mimeFormats: { string: v.mimeFormats },
      gridSubsets: {
        gridSubset: v.gridSubsets.map((g) => ({
          gridSetName: g.gridSetName,
          ...(g.extent ? { extent: { coords: { double: g.extent.coords.map(String) } } } : {}),
          zoomStart: String(g.zoomStart),
          zoomStop: String(g.zoomStop)
        }))
      },
      metaWidthHeight: { int: v.metaWidthHeight.map(String) },
      expireCache: String(v.expireCache),
      expireClients: String(v.expireClients),
      parameterFilters: filters,
      gutter: String(v.gutter)
    }
  } as Document)
}

// A filter's fields in GWC's XStream order (key, defaultValue, normalize, then values/regex/threshold),
// lists wrapped by item as XStream writes them (<values><string>, <float>, <int>).
const VALUE_ITEM = { stringParameterFilter: 'string', regexParameterFilter: 'string', floatParameterFilter: 'float', integerParameterFilter: 'int' } as const
function filterDoc (f: ParameterFilterView): Document {
  if (f.kind === 'styleParameterFilter') return { key: f.key, defaultValue: f.defaultValue, ...(f.allowedStyles && f.allowedStyles.length ? { allowedStyles: { string: f.allowedStyles } } : {}) }
  return {
    key: f.key,
    defaultValue: f.defaultValue,
    ...(f.normalize ? { normalize: { case: f.normalize.case, ...(f.normalize.locale ? { locale: f.normalize.locale } : {}) } } : {}),
    ...(f.values !== undefined ? { values: { [VALUE_ITEM[f.kind]]: f.values } } : {}),
    ...(f.regex !== undefined ? { regex: f.regex } : {}),
    ...(f.threshold !== undefined ? { threshold: f.kind === 'floatParameterFilter' ? javaFloat(f.threshold) : String(f.threshold) } : {})
  }
}

function layerJson (v: GeoServerLayerView): string {
  const filters: Record<string, unknown[]> = {}
  for (const f of v.parameterFilters) {
    // The layer's own filters keep the shape they had; the administrator's are as GWC's JSON (Jettison) writes them.
    if (f.kind === 'styleParameterFilter' || (f.values === undefined && !f.normalize && f.threshold === undefined)) { const { kind, ...rest } = f; (filters[kind] ??= []).push(rest); continue }
    ;(filters[f.kind] ??= []).push(filterDoc(f))
  }
  const { parameterFilters, ...rest } = v
  return JSON.stringify({ GeoServerLayer: { ...rest, parameterFilters: filters } })
}

const refuse = async (req: FastifyRequest) => { throw GwcListReadOnly(req.method) }

export default async function layers (app: FastifyInstance) {
  const cache = app.tileCache
  const list = async (req: FastifyRequest, reply: FastifyReply, json: boolean) => {
    const names = (await cache.tileLayers(req.principal, ['list'], { groups: true })).map((l) => l.qualifiedName)
    if (json) return reply.type('application/json').send(JSON.stringify(names))
    const base = app.urls.absolute(req, `${app.prefix}/layers`)
    return reply.type('application/xml').send(['<layers>', ...names.map((n) => `  <layer>\n    <name>${esc(n)}</name>\n    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="${esc(`${base}/${formEncode(n)}.xml`)}" type="text/xml"/>\n  </layer>`), '</layers>'].join('\n'))
  }
  app.get('/layers', { schema: { summary: 'The tile layers (XML, as GeoWebCache lists them)' } }, async (req, reply) => await list(req, reply, false))
  app.get('/layers.xml', { schema: { summary: 'The tile layers (XML, as GeoWebCache lists them)' } }, async (req, reply) => await list(req, reply, false))
  app.get('/layers.json', { schema: { summary: 'The tile layers\' names (JSON)' } }, async (req, reply) => await list(req, reply, true))
  for (const url of ['/layers', '/layers.xml', '/layers.json']) {
    // GWC's layer list refuses writes with 400 (its documentation's table).
    app.post(url, { onRequest: refuse, schema: { summary: 'Refused: the layer list is read-only (400, as GeoWebCache)' } }, async () => {})
    app.put(url, { onRequest: refuse, schema: { summary: 'Refused: the layer list is read-only (400, as GeoWebCache)' } }, async () => {})
    app.delete(url, { onRequest: refuse, schema: { summary: 'Refused: the layer list is read-only (400, as GeoWebCache)' } }, async () => {})
  }
  app.get('/layers/:layer', { schema: { summary: 'One tile layer as a GeoServerLayer (XML or JSON)' } }, async (req, reply) => {
    const v = await cache.geoServerLayer((req.params as { layer: string }).layer, req.principal)
    if (req.format === 'json') return reply.type('application/json').send(layerJson(v))
    return reply.type('application/xml').send(layerXml(v))
  })
  // GWC: PUT adds a tile layer, POST changes one; every drawable layer already is one here, so both
  // change it and answer 200 (GWC's status for a change) with an empty body.
  for (const method of ['put', 'post'] as const) {
    app[method]('/layers/:layer', { schema: { summary: 'Change a tile layer from a GeoServerLayer (expireCache, expireClients, gridSubsets, blobStoreId, parameterFilters on CQL_FILTER, TIME, ELEVATION; the other fields must match what mapwarden serves)' } }, async (req, reply) => {
      await cache.updateGeoServerLayer((req.params as { layer: string }).layer, bodyRoot(req.body, 'GeoServerLayer', 'wmsLayer'), req.principal)
      return reply.code(200).type('text/plain; charset=utf-8').send('')
    })
  }
  app.delete('/layers/:layer', { schema: { summary: 'Refused: a tile layer goes with its layer (400)' } }, async (req) => {
    await cache.geoServerLayer((req.params as { layer: string }).layer, req.principal) // unknown: 404
    throw GwcLayerUnsupported('DELETE', 'every drawable layer is cached; delete the layer itself (DELETE rest/layers/<layer>) or truncate its tiles (masstruncate)')
  })
}
