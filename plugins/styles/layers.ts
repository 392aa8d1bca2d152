// {base}/rest/layers and {base}/rest/workspaces/<ws>/layers: style assignment, the way clients use
// styles. Shapes after GeoServer's LayerController: style references carry the prefixed name, the
// workspace and a link; the resource links to its coverage or feature type.
import type { FastifyRequest } from 'fastify'
import { Link, type Document, type Value } from '../infra/representation.js'
import { bodyRoot, suffixed, type TypedApp } from '../infra/routes.js'
import { LayerBody, LayerParams, WsParams, responses } from '../../schemas/styles.js'
import { asArray } from '../../services/files/xml.js'
import { splitLayerName, type LayerInfo } from '../../services/catalog/layers.js'
import { attributionDoc, parseAttribution } from '../../services/catalog/attribution.js'
import {
  InvalidBody, LayerNotFound, LayerStyleOtherWorkspace, LayerStyleUnknown, StyleWorkspaceNotFound
} from '../../services/errors.js'
import { BUILT_IN, styleRef } from '../../services/styles/service.js'
import { checkFields, unifyShape } from '../../services/body-fields.js'
import { isDefault, parseTileSettings, TILE_SETTING_FIELDS } from '../../services/tilecache/layer-settings.js'

const RESOURCE_CLASS: Record<string, string> = { RASTER: 'coverage', VECTOR: 'featureType', WMS: 'wmsLayer', WMTS: 'wmtsLayer' }
const RESOURCE_PATH: Record<string, [string, string]> = {
  RASTER: ['coveragestores', 'coverages'], VECTOR: ['datastores', 'featuretypes'], WMS: ['wmsstores', 'wmslayers'], WMTS: ['wmtsstores', 'layers']
}

export default async function layerRoutes (app: TypedApp) {
  const { layers, styles, urls, workspaces, mosaics, tileCache } = app

  /** A qualified 'ws:name', or a bare name that only one workspace has. */
  const findLayer = async (ws: string | undefined, layer: string): Promise<LayerInfo> => {
    if (ws !== undefined) {
      if (!(await workspaces.exists(ws))) throw StyleWorkspaceNotFound(ws)
      const l = await layers.get(ws, layer)
      if (!l) throw LayerNotFound(`${ws}:${layer}`)
      return l
    }
    const q = splitLayerName(layer)
    const l = q ? await layers.get(q.workspace, q.name) : (await layers.list()).filter((x) => x.name === layer)
    const found = Array.isArray(l) ? (l.length === 1 ? l[0] : undefined) : l
    if (!found) throw LayerNotFound(layer)
    return found
  }

  const styleDoc = async (req: FastifyRequest, l: LayerInfo, ref: string): Promise<Value> => {
    const s = await styles.resolve(l.workspace, ref)
    if (!s) return { name: ref, href: new Link(urls.rest(req, 'styles', ref)) }
    return {
      name: styleRef(s),
      workspace: s.workspace,
      href: new Link(s.workspace === undefined ? urls.rest(req, 'styles', s.name) : urls.rest(req, 'workspaces', s.workspace, 'styles', s.name))
    }
  }

  /** The layer's resource as GeoServer links it: a coverage, a feature type, or a cascaded store's layer. */
  const resourceRef = (req: FastifyRequest, l: LayerInfo): Value => {
    const [stores, resources] = RESOURCE_PATH[l.type] ?? RESOURCE_PATH.VECTOR
    return { '@class': RESOURCE_CLASS[l.type] ?? 'featureType', name: l.qualifiedName, href: new Link(urls.rest(req, 'workspaces', l.workspace, stores, l.store, resources, l.name)) }
  }

  const layerDoc = async (req: FastifyRequest, l: LayerInfo): Promise<Document> => {
    return {
      layer: {
        name: l.name,
        type: l.type,
        defaultStyle: l.defaultStyle === undefined ? undefined : await styleDoc(req, l, l.defaultStyle),
        styles: l.styles.length === 0 ? undefined : { '@class': 'linked-hash-set', style: await Promise.all(l.styles.map((ref) => styleDoc(req, l, ref))) },
        resource: resourceRef(req, l),
        enabled: l.enabled,
        attribution: l.attribution === undefined ? undefined : attributionDoc(l.attribution),
        // The tile cache's per-layer settings (GWC names), shown once one differs from its default,
        // so that GeoServer's own document stays as it is for every other layer.
        ...await tileSettingsDoc(l)
      }
    }
  }

  const tileSettingsDoc = async (l: LayerInfo): Promise<Record<string, Value>> => {
    const s = await tileCache.layerSettings(l)
    return isDefault(s) ? {} : { expireCache: s.expireCache, expireClients: s.expireClients, cachedOnly: s.cachedOnly, cachedOnlyMissing: s.cachedOnlyMissing }
  }

  /** A style named in a PUT body: 'name', 'ws:name', or { name, workspace }; must exist and fit the layer. */
  const refIn = async (l: LayerInfo, v: unknown): Promise<string> => {
    let name: unknown = v
    let ws: unknown
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      checkFields(v as Record<string, unknown>, 'a style reference', ['name', 'workspace'])
      name = (v as Record<string, unknown>).name
      ws = (v as Record<string, unknown>).workspace
      if (ws !== null && typeof ws === 'object') ws = (ws as Record<string, unknown>).name
    }
    if (typeof name !== 'string' || name === '') throw InvalidBody('A style reference needs a name')
    const ref = typeof ws === 'string' && ws !== '' && !name.includes(':') ? `${ws}:${name}` : name
    const s = await styles.resolve(l.workspace, ref)
    // GeoServer's built-in styles (raster, point, line, polygon, generic) name the default rendering
    // until a style of that name is created: a layer may keep or be given them.
    if (!s && BUILT_IN.includes(ref)) return ref
    if (!s) throw LayerStyleUnknown(ref)
    if (s.workspace !== undefined && s.workspace !== l.workspace) throw LayerStyleOtherWorkspace(styleRef(s), l.qualifiedName)
    return styleRef(s)
  }

  const update = async (l: LayerInfo, sent: Record<string, any>) => {
    // Every field GET shows is applied or, read-only, accepted only unchanged (issue 16).
    const body = unifyShape(sent) as Record<string, any>
    const raster = l.type === 'RASTER'
    const readOnly: Record<string, unknown> = { name: l.name, type: l.type, resource: { '@class': RESOURCE_CLASS[l.type] ?? 'featureType', name: l.qualifiedName } }
    if (!raster) readOnly.enabled = l.enabled // a feature type's layer follows its mapping; no switch of its own
    checkFields(body, 'layer', [...(raster ? ['defaultStyle', 'styles', 'enabled'] : ['defaultStyle', 'styles']), 'attribution', ...TILE_SETTING_FIELDS], readOnly)
    // Everything is validated before anything is written (a refused PUT changes nothing).
    const tileSettings = parseTileSettings(l.qualifiedName, body, await tileCache.layerSettings(l))
    const attribution = body.attribution === undefined ? l.attribution : parseAttribution(body.attribution)
    let enabled: boolean | undefined
    if (raster && body.enabled !== undefined) {
      if (body.enabled !== true && body.enabled !== false && body.enabled !== 'true' && body.enabled !== 'false') throw InvalidBody(`layer enabled must be true or false, got ${JSON.stringify(String(body.enabled).slice(0, 20))}`)
      enabled = body.enabled === true || body.enabled === 'true'
    }
    const defaultStyle = body.defaultStyle === undefined ? l.defaultStyle
      : body.defaultStyle === '' || body.defaultStyle === null ? undefined : await refIn(l, body.defaultStyle)
    let list = l.styles
    if (body.styles !== undefined) {
      const raw = body.styles
      if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) checkFields(raw, 'layer.styles', ['style'], { '@class': 'linked-hash-set' })
      const items = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? asArray(raw.style) : asArray(raw)
      const refs: string[] = []
      for (const v of items) refs.push(await refIn(l, v)) // in order: the first bad reference is the one named
      list = [...new Set(refs)]
    }
    await layers.setStyles(l.workspace, l.name, defaultStyle, list)
    if (JSON.stringify(attribution) !== JSON.stringify(l.attribution)) await layers.setAttribution(l.workspace, l.name, attribution)
    // A raster layer and its coverage share one switch: the coverage edit applies it to both.
    if (enabled !== undefined && enabled !== l.enabled) await mosaics.updateCoverage(l.workspace, l.store, l.name, { enabled })
    if (tileSettings) await tileCache.layerSettings(l, tileSettings)
  }

  for (const url of suffixed('/layers')) {
    app.get(url, { schema: { summary: 'List layers', response: responses.layers } }, async (req, reply) => {
      const all = await layers.list()
      return reply.resource({ layers: { layer: all.map((l) => ({ name: l.qualifiedName, href: new Link(urls.rest(req, 'layers', l.qualifiedName), 'application/atom+xml') })) } })
    })
  }
  for (const url of suffixed('/workspaces/:ws/layers')) {
    app.get(url, { schema: { summary: 'List the layers of a workspace', params: WsParams, response: responses.layers } }, async (req, reply) => {
      const { ws } = req.params
      // GeoServer lists the layers whose namespace is the workspace's: none for an unknown one (200).
      const all = await workspaces.exists(ws) ? await layers.list(ws) : []
      return reply.resource({ layers: { layer: all.map((l) => ({ name: l.name, href: new Link(urls.rest(req, 'workspaces', ws, 'layers', l.name), 'application/atom+xml') })) } })
    })
  }

  for (const path of ['/layers/:layer', '/workspaces/:ws/layers/:layer']) {
    app.get(path, { schema: { summary: 'A layer: its default style and styles', params: LayerParams, response: responses.layer } }, async (req, reply) => {
      const { ws, layer } = req.params
      return reply.resource(await layerDoc(req, await findLayer(ws, layer)))
    })
    app.put(path, { schema: { summary: 'Change a layer\'s default style and styles', params: LayerParams, body: LayerBody } }, async (req, reply) => {
      const { ws, layer } = req.params
      await update(await findLayer(ws, layer), bodyRoot(req.body, 'layer'))
      return reply.code(200).send()
    })
  }
}
