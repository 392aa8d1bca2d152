// {base}/rest/layergroups and {base}/rest/workspaces/<ws>/layergroups: layer groups, after GeoServer's
// LayerGroupController. The list of /rest/layergroups holds the global groups only (as GeoServer's);
// POST answers 201 with the name and a Location, PUT and DELETE 200; a PUT may not rename a group or
// move it to another workspace (403). Bodies: GeoServer's `publishables` (`published` entries with
// type layer or layerGroup) and the older `layers` form, `styles` one per entry (empty: the
// member's default), `bounds` (computed from the members when absent), keywords, metadata links.
import type { FastifyRequest } from 'fastify'
import { Type } from '@fastify/type-provider-typebox'
import { Link, type Document, type Value } from '../infra/representation.js'
import { bodyRoot, suffixed, type TypedApp } from '../infra/routes.js'
import { asArray } from '../../services/files/xml.js'
import { checkFields, unifyShape } from '../../services/body-fields.js'
import { InvalidBody, MethodNotAllowed } from '../../services/errors.js'
import { GROUP_MODES, type GroupBounds, type GroupMode, type LayerGroup, type LayerGroupInput, type Published } from '../../services/catalog/layer-groups.js'
import { CreatedName, Empty, jsonOrXml, namedList, representation } from '../../schemas/common.js'

const Params = Type.Object({ ws: Type.Optional(Type.String()), name: Type.String() })
const ListParams = Type.Object({ ws: Type.Optional(Type.String()) })
const GroupBody = jsonOrXml(Type.Unsafe<unknown>({ description: 'A layerGroup document (XML or JSON), as GET shows it' }))
const groupResponse = { 200: representation('The layer group', Type.Object({ layerGroup: Type.Object({ name: Type.String() }, { additionalProperties: true }) })) }
const listResponse = { 200: representation('The layer groups', namedList('layerGroups', 'layerGroup')) }

/** The fields of a layerGroup body; the read-only ones GET shows are accepted and ignored. */
const WRITABLE = ['name', 'mode', 'title', 'abstractTxt', 'workspace', 'publishables', 'layers', 'styles', 'bounds', 'keywords', 'metadataLinks', 'enabled', 'advertised']
// geoserver-node-client's layergroups.create sends its option `layerGroupTitle` in the body: read as the title.
const IGNORED = ['dateCreated', 'dateModified', 'layerGroupTitle']

const text = (v: unknown, field: string): string | undefined => {
  if (v === undefined || v === null || v === '') return undefined
  if (typeof v === 'object' && !Array.isArray(v) && typeof (v as any).$ === 'string') return (v as any).$
  if (typeof v !== 'string' && typeof v !== 'number') throw InvalidBody(`layerGroup ${field} must be text, got ${JSON.stringify(v).slice(0, 40)}`)
  return String(v)
}

const flag = (v: unknown, field: string, def: boolean): boolean => {
  if (v === undefined || v === null || v === '') return def
  if (v === true || v === 'true') return true
  if (v === false || v === 'false') return false
  throw InvalidBody(`layerGroup ${field} must be true or false, got ${JSON.stringify(String(v).slice(0, 20))}`)
}

/** A name in a reference: 'x', { name: 'x' }, or an element's text. */
const refName = (v: unknown): string | undefined => {
  if (typeof v === 'string') return v === '' ? undefined : v
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>
    const n = typeof o.name === 'string' ? o.name : typeof o.$ === 'string' ? o.$ : undefined
    if (n === undefined || n === '') return undefined
    const ws = typeof o.workspace === 'string' ? o.workspace : refName(o.workspace)
    return ws && !n.includes(':') ? `${ws}:${n}` : n
  }
  return undefined
}

function parseBounds (v: unknown): GroupBounds | undefined {
  if (v === undefined || v === null || v === '') return undefined
  if (typeof v !== 'object' || Array.isArray(v)) throw InvalidBody('layerGroup bounds must hold minx, miny, maxx, maxy and crs')
  const b = v as Record<string, unknown>
  checkFields(b, 'layerGroup.bounds', ['minx', 'miny', 'maxx', 'maxy', 'crs'])
  const n = (k: string) => {
    const x = typeof b[k] === 'number' ? b[k] as number : typeof b[k] === 'string' && (b[k] as string).trim() !== '' ? Number(b[k]) : NaN
    if (!Number.isFinite(x)) throw InvalidBody(`layerGroup bounds ${k} must be a number, got ${JSON.stringify(b[k] ?? null)}`)
    return x
  }
  // Sides given the wrong way round are put in order, as a JTS envelope does: geoserver-node-client's
  // layergroups.create sends miny 180, maxy 90 by default.
  const [x1, x2, y1, y2] = [n('minx'), n('maxx'), n('miny'), n('maxy')]
  return { minx: Math.min(x1, x2), miny: Math.min(y1, y2), maxx: Math.max(x1, x2), maxy: Math.max(y1, y2), crs: text(b.crs, 'bounds crs') ?? 'EPSG:4326' }
}

/** A layerGroup body as the service takes it; `ws` is the path's workspace. */
function parseGroup (sent: Record<string, unknown>, ws: string | undefined, current?: LayerGroup): LayerGroupInput {
  const body = unifyShape(sent) as Record<string, unknown>
  checkFields(body, 'layerGroup', [...WRITABLE, ...IGNORED])
  const name = text(body.name, 'name') ?? current?.name
  if (name === undefined) throw InvalidBody('A layer group needs a name')
  const bodyWs = body.workspace === undefined ? undefined : refName(body.workspace) ?? text(body.workspace, 'workspace')
  if (bodyWs !== undefined && ws !== undefined && bodyWs !== ws && current === undefined) throw InvalidBody(`The layer group names workspace ${bodyWs}, the path ${ws}`)
  const modeText = text(body.mode, 'mode')
  const mode = modeText === undefined ? (current?.mode ?? 'SINGLE') : modeText.toUpperCase()
  if (!(GROUP_MODES as readonly string[]).includes(mode)) throw InvalidBody(`layerGroup mode must be one of ${GROUP_MODES.join(', ')}, got ${JSON.stringify(modeText)}`)

  let publishables: Published[] | undefined
  if (body.publishables !== undefined) {
    const p = body.publishables
    if (p !== '' && (p === null || typeof p !== 'object' || Array.isArray(p))) throw InvalidBody('layerGroup publishables must hold published entries')
    publishables = asArray((p as Record<string, unknown>)?.published as any).map((e: unknown, i: number) => {
      const type = e !== null && typeof e === 'object' ? (e as Record<string, unknown>)['@type'] ?? 'layer' : 'layer'
      if (type !== 'layer' && type !== 'layerGroup') throw InvalidBody(`published entry ${i + 1} has type ${JSON.stringify(type)}: layer or layerGroup`)
      const n = refName(e)
      if (n === undefined) throw InvalidBody(`published entry ${i + 1} needs a name`)
      return { type, name: n }
    })
  } else if (body.layers !== undefined) {
    // GeoServer 2.2's form: <layers><layer>name</layer></layers>, layers only.
    const l = body.layers
    const items = l !== null && typeof l === 'object' && !Array.isArray(l) ? asArray((l as any).layer) : asArray(l as any)
    publishables = items.map((e: unknown, i: number) => {
      const n = refName(e)
      if (n === undefined) throw InvalidBody(`layers entry ${i + 1} needs a name`)
      return { type: 'layer' as const, name: n }
    })
  }
  publishables ??= current?.publishables ?? []

  let styles: string[]
  if (body.styles !== undefined) {
    const s = body.styles
    const items = s !== null && typeof s === 'object' && !Array.isArray(s) ? asArray((s as any).style) : asArray(s as any)
    // XML writes an empty <style/> for the default; a list that is one empty element parses as ''.
    const list = s !== null && typeof s === 'object' && !Array.isArray(s) && (s as any).style === '' ? [''] : items
    styles = list.map((e: unknown) => refName(e) ?? '')
    if (styles.length > publishables.length) throw InvalidBody(`layerGroup has ${styles.length} styles for ${publishables.length} publishables`)
  } else styles = body.publishables === undefined && body.layers === undefined ? current?.styles ?? [] : []
  while (styles.length < publishables.length) styles.push('')

  let keywords = current?.keywords ?? []
  if (body.keywords !== undefined) {
    const k = body.keywords
    const items = k !== null && typeof k === 'object' && !Array.isArray(k) ? [...asArray((k as any).string), ...asArray((k as any).keyword)] : asArray(k as any)
    keywords = items.map((x: unknown) => text(x, 'keyword') ?? '').filter((x: string) => x !== '')
  }
  let metadataLinks = current?.metadataLinks ?? []
  if (body.metadataLinks !== undefined) {
    const m = body.metadataLinks
    const items = m !== null && typeof m === 'object' && !Array.isArray(m) ? asArray((m as any).metadataLink) : asArray(m as any)
    metadataLinks = items.map((x: any, i: number) => {
      if (x === null || typeof x !== 'object') throw InvalidBody(`metadataLink ${i + 1} must hold type, metadataType and content`)
      checkFields(x, 'metadataLink', ['type', 'metadataType', 'content', 'about'])
      const content = text(x.content, 'metadataLink content')
      if (content === undefined) throw InvalidBody(`metadataLink ${i + 1} needs a content (the URL)`)
      return { type: text(x.type, 'metadataLink type') ?? 'text/plain', metadataType: text(x.metadataType, 'metadataLink metadataType') ?? 'ISO19115:2003', content }
    })
  }
  return {
    workspace: current ? (bodyWs ?? current.workspace) : ws ?? bodyWs,
    name,
    mode: mode as GroupMode,
    title: body.title === undefined ? text(body.layerGroupTitle, 'layerGroupTitle') ?? current?.title : text(body.title, 'title'),
    abstractTxt: body.abstractTxt === undefined ? current?.abstractTxt : text(body.abstractTxt, 'abstractTxt'),
    publishables,
    styles,
    // A PUT without bounds keeps them unless the members changed (then computed again).
    bounds: body.bounds !== undefined ? parseBounds(body.bounds) : body.publishables === undefined && body.layers === undefined ? current?.bounds : undefined,
    keywords,
    metadataLinks,
    enabled: flag(body.enabled, 'enabled', current?.enabled ?? true),
    advertised: flag(body.advertised, 'advertised', current?.advertised ?? true)
  }
}

export default async function layerGroupRoutes (app: TypedApp) {
  const { layerGroups, urls, styles } = app

  const groupLink = (req: FastifyRequest, g: { workspace?: string, name: string }) =>
    g.workspace === undefined ? urls.rest(req, 'layergroups', g.name) : urls.rest(req, 'workspaces', g.workspace, 'layergroups', g.name)

  const styleDoc = async (req: FastifyRequest, g: LayerGroup, ref: string): Promise<Value> => {
    if (ref === '') return { name: [] } // <style/> in XML, "" in JSON, as GeoServer writes the default
    const s = await styles.resolve(g.workspace, ref)
    if (!s) return { name: [] } // deleted since: the member's default, as it is drawn
    return {
      name: s.workspace ? `${s.workspace}:${s.name}` : s.name,
      workspace: s.workspace,
      href: new Link(s.workspace === undefined ? urls.rest(req, 'styles', s.name) : urls.rest(req, 'workspaces', s.workspace, 'styles', s.name))
    }
  }

  const groupDoc = async (req: FastifyRequest, g: LayerGroup): Promise<Document> => ({
    layerGroup: {
      name: g.name,
      mode: g.mode,
      title: g.title,
      abstractTxt: g.abstractTxt,
      workspace: g.workspace === undefined ? undefined : { name: g.workspace },
      publishables: {
        published: g.publishables.map((p) => {
          if (p.type === 'layer') return { '@type': 'layer', name: p.name, href: new Link(urls.rest(req, 'layers', p.name)) }
          const i = p.name.indexOf(':')
          const ref = i > 0 ? { workspace: p.name.slice(0, i), name: p.name.slice(i + 1) } : { name: p.name }
          return { '@type': 'layerGroup', name: p.name, href: new Link(groupLink(req, ref)) }
        })
      },
      styles: { style: await Promise.all(g.styles.map((s) => styleDoc(req, g, s))) },
      bounds: g.bounds === undefined ? undefined : { minx: g.bounds.minx, maxx: g.bounds.maxx, miny: g.bounds.miny, maxy: g.bounds.maxy, crs: g.bounds.crs },
      enabled: g.enabled,
      advertised: g.advertised,
      keywords: g.keywords.length === 0 ? undefined : { string: g.keywords },
      metadataLinks: g.metadataLinks.length === 0 ? undefined : { metadataLink: g.metadataLinks.map((m) => ({ type: m.type, metadataType: m.metadataType, content: m.content })) }
    }
  })

  const listDoc = (req: FastifyRequest, all: LayerGroup[]): Document =>
    ({ layerGroups: { layerGroup: all.map((g) => ({ name: g.name, href: new Link(groupLink(req, g)) })) } })

  for (const base of ['/layergroups', '/workspaces/:ws/layergroups']) {
    // With a trailing slash too, as GeoServer's Spring MVC matches it: the Python geoserver-rest
    // package's create_layergroup POSTs to `/rest/layergroups/`.
    for (const url of [...suffixed(base), `${base}/`]) {
      app.get(url, { schema: { summary: 'List layer groups (the global ones, or a workspace\'s)', params: ListParams, response: listResponse } }, async (req, reply) => {
        return reply.resource(listDoc(req, await layerGroups.list(req.params.ws)))
      })
      app.post(url, { schema: { summary: 'Create a layer group', params: ListParams, body: GroupBody, response: { 201: CreatedName } } }, async (req, reply) => {
        const { ws } = req.params
        if (ws !== undefined) await layerGroups.list(ws) // a missing workspace is the first failure
        const g = await layerGroups.create(parseGroup(bodyRoot(req.body, 'layerGroup'), ws))
        return reply.code(201).header('Location', groupLink(req, g)).type('text/plain').send(g.name)
      })
      for (const method of ['PUT', 'DELETE'] as const) {
        app.route({ schema: { summary: 'Not allowed: answers 405 (as GeoServer)' }, method, url, handler: async () => { throw MethodNotAllowed(method) } })
      }
    }
    for (const url of suffixed(`${base}/:name`)) {
      app.get(url, { schema: { summary: 'A layer group', params: Params, response: groupResponse } }, async (req, reply) => {
        const { ws, name } = req.params
        return reply.resource(await groupDoc(req, await layerGroups.get(ws, name)))
      })
      app.put(url, { schema: { summary: 'Change a layer group (not its name or workspace)', params: Params, body: GroupBody, response: { 200: Empty } } }, async (req, reply) => {
        const { ws, name } = req.params
        const current = await layerGroups.get(ws, name)
        await layerGroups.update(ws, name, parseGroup(bodyRoot(req.body, 'layerGroup'), ws, current))
        return reply.code(200).send()
      })
      app.delete(url, { schema: { summary: 'Delete a layer group', params: Params, response: { 200: Empty } } }, async (req, reply) => {
        const { ws, name } = req.params
        await layerGroups.remove(ws, name)
        return reply.code(200).send()
      })
      app.post(url, { schema: { summary: 'Not allowed: answers 405 (as GeoServer)' } }, async () => { throw MethodNotAllowed('POST') })
    }
  }
}
