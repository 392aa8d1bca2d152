// {base}/rest/styles, {base}/rest/workspaces/<ws>/styles and {base}/rest/<ws>/styles
// (all three spellings GeoServer accepts): GeoServer's StyleController shapes.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Link, MEDIA_TYPES, serialize, type Document } from '../infra/representation.js'
import { bodyRoot, suffixed, type TypedApp } from '../infra/routes.js'
import { StyleEntryBody, StyleParams, StyleQuery, responses } from '../../schemas/styles.js'
import type { Static } from '@fastify/type-provider-typebox'
import { zipStream } from '../infra/zip-stream.js'
import fs from 'node:fs/promises'
import { checkName } from '../../services/files/names.js'
import { MethodNotAllowed, NotAZip, StyleMediaType } from '../../services/errors.js'
import type { StyleRow } from '../../services/styles/service.js'

const SLD_TYPES = ['application/vnd.ogc.sld+xml', 'application/vnd.ogc.se+xml']
const XML_TYPES = ['application/xml', 'text/xml']
const ZIP_TYPES = ['application/zip', 'application/x-zip-compressed', 'application/x-zip']
const ENTRY_TYPES = [...XML_TYPES, 'application/json']
const ACCEPTED = [...SLD_TYPES, ...ENTRY_TYPES, 'text/json', 'application/zip'].join(', ')

/** The three places a style collection answers: global, GeoServer's workspace path, the owner's. */
const COLLECTIONS = [
  { path: '/styles', ws: false },
  { path: '/workspaces/:ws/styles', ws: true },
  { path: '/:ws/styles', ws: true }
]

function mediaType (req: FastifyRequest): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
}

/** An XML body whose root is an SLD is a style body even when sent as application/xml. */
function isSldDocument (body: unknown): boolean {
  return body !== null && typeof body === 'object' && Object.keys(body).some((k) => k.replace(/^.*:/, '') === 'StyledLayerDescriptor')
}

function truthy (v: string | undefined): boolean {
  return v !== undefined && v.toLowerCase() === 'true'
}

export default async function styleRoutes (app: TypedApp) {
  const shapes = { params: StyleParams, querystring: StyleQuery }
  const { styles, urls } = app

  const params = (p: Static<typeof StyleParams>) => {
    // java.net.URLDecoder reads '+' as a space (GeoServer: DELETE /styles/Default+Styler).
    const name = p.name === undefined ? undefined : checkName(p.name.replace(/\+/g, ' '), 'style')
    return { ws: p.ws, name: name as string }
  }
  const href = (req: FastifyRequest, ws: string | undefined, name: string) =>
    ws === undefined ? urls.rest(req, 'styles', name) : urls.rest(req, 'workspaces', ws, 'styles', name)
  // Location carries no extension and %20 for a space, as GeoServer's (StyleControllerTest.testStyleWithSpaceInName).
  const location = (req: FastifyRequest, s: StyleRow) =>
    (s.workspace === undefined ? urls.rest(req, 'styles') : urls.rest(req, 'workspaces', s.workspace, 'styles')) + '/' + encodeURIComponent(s.name)
  const created = (req: FastifyRequest, reply: FastifyReply, s: StyleRow) =>
    reply.code(201).header('Location', location(req, s)).type('text/plain').send(s.name)

  const entry = (s: StyleRow): Document => ({
    style: {
      name: s.name,
      workspace: s.workspace === undefined ? undefined : { name: s.workspace },
      format: s.format,
      languageVersion: { version: s.languageVersion },
      filename: s.filename
    }
  })

  // Rendered lists are kept until the next style change: clients list styles far more often than
  // they change them, and a list of 10,000 styles costs ~100 ms to build (bench/styles.ts).
  const lists = new Map<string, { generation: number, body: string }>()
  const listDoc = async (req: FastifyRequest, ws: string | undefined): Promise<Document> => ({
    styles: { style: (await styles.list(ws)).map((name) => ({ name, href: new Link(href(req, ws, name), 'application/atom+xml') })) }
  })

  for (const { path } of COLLECTIONS) {
    for (const url of suffixed(path)) {
      app.get(url, { schema: { summary: 'List styles (global or of a workspace)', ...shapes, response: responses.list } }, async (req, reply) => {
        const { ws } = params(req.params)
        const format = req.format
        if (format !== 'xml' && format !== 'json') return reply.resource(await listDoc(req, ws))
        const key = `${ws ?? ''}\u0000${format}\u0000${app.urls.root(req)}`
        const generation = styles.generation()
        let hit = lists.get(key)
        // A removed workspace bumps the generation too (onRemoved), so a hit implies it exists.
        if (hit?.generation !== generation) {
          hit = { generation, body: serialize(await listDoc(req, ws), format) }
          if (lists.size >= 256) lists.clear()
          lists.set(key, hit)
        }
        return reply.code(200).type(MEDIA_TYPES[format]).send(hit.body)
      })

      app.post(url, { schema: { summary: 'Create a style: a catalog entry, an SLD body (?name=) or a ZIP with an SLD and its images', ...shapes, body: StyleEntryBody } }, async (req, reply) => {
        const { ws } = params(req.params)
        const name = req.query.name
        const type = mediaType(req)
        if (ZIP_TYPES.includes(type)) {
          if (!req.upload) throw NotAZip('empty body')
          return created(req, reply, await styles.createFromZip(ws, req.upload.path, name))
        }
        if (SLD_TYPES.includes(type) || (XML_TYPES.includes(type) && isSldDocument(req.body))) {
          return created(req, reply, await styles.createFromSld(ws, req.rawText ?? String(req.body), name))
        }
        if (ENTRY_TYPES.includes(type) && req.body !== undefined) {
          return created(req, reply, await styles.createEntry(ws, bodyRoot(req.body, 'style')))
        }
        throw StyleMediaType(type || '(none)', 'a style', ACCEPTED)
      })

      for (const method of ['PUT', 'DELETE'] as const) {
        app.route({ schema: { summary: 'Not allowed: answers 405 (as GeoServer)' }, method, url, handler: async () => { throw MethodNotAllowed(method) } })
      }
    }

    app.get(`${path}/:name`, { schema: { summary: 'A style: its catalog entry, its SLD (.sld) or its package (.zip)', ...shapes, response: responses.one } }, async (req, reply) => {
      const { ws, name } = params(req.params)
      const q = req.query
      if (truthy(q.quietOnNotFound) && !(await styles.find(ws, name))) return reply.code(404).type('text/plain').send('')
      const accept = (req.headers.accept ?? '').toLowerCase()
      if (req.format === 'sld' || (!req.formatFromSuffix && SLD_TYPES.some((t) => accept.includes(t)))) {
        return reply.type('application/vnd.ogc.sld+xml').send(await styles.sld(ws, name))
      }
      // GeoServer's StyleController answers the package (SLD and images) for .zip / application/zip.
      if (req.format === 'zip' || (!req.formatFromSuffix && ZIP_TYPES.some((t) => accept.includes(t)))) {
        const files = await styles.packageFiles(ws, name)
        await Promise.all(files.map((f) => fs.access(f.path))) // a file removed by hand: an error before the first byte
        return reply.type('application/zip').header('Content-Disposition', `attachment; filename="${encodeURIComponent(name)}.zip"`).send(zipStream(files))
      }
      return reply.resource(entry(await styles.get(ws, name)))
    })

    app.put(`${path}/:name`, { schema: { summary: 'Replace a style\'s SLD or package, or change its catalog entry', ...shapes, body: StyleEntryBody } }, async (req, reply) => {
      const { ws, name } = params(req.params)
      const type = mediaType(req)
      if (ZIP_TYPES.includes(type)) {
        if (!req.upload) throw NotAZip('empty body')
        await styles.replaceZip(ws, name, req.upload.path)
      } else if (SLD_TYPES.includes(type) || (XML_TYPES.includes(type) && isSldDocument(req.body))) {
        await styles.replaceSld(ws, name, req.rawText ?? String(req.body))
      } else if (ENTRY_TYPES.includes(type) && req.body !== undefined) {
        await styles.updateEntry(ws, name, bodyRoot(req.body, 'style'))
      } else {
        throw StyleMediaType(type || '(none)', 'a style', ACCEPTED)
      }
      return reply.code(200).send()
    })

    app.delete(`${path}/:name`, { schema: { summary: 'Delete a style (purge=true: its files too; recurse=true: also from the layers using it)', ...shapes } }, async (req, reply) => {
      const { ws, name } = params(req.params)
      const q = req.query
      await styles.remove(ws, name, { purge: truthy(q.purge), recurse: truthy(q.recurse) })
      return reply.code(200).send()
    })

    app.post(`${path}/:name`, { schema: { summary: 'Not allowed: answers 405 (as GeoServer)' } }, async () => { throw MethodNotAllowed('POST') })
  }
}
