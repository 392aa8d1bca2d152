// {base}/rest/resource/<path>: GeoServer's ResourceController over the data directory's styles/,
// workspaces/ and templates/ (services/resource/service.ts says what is shown and what is owned).
// GET: a directory's listing (XML or JSON: ?format= or Accept), a file's bytes, or with
// ?operation=metadata its ResourceMetadata; HEAD: the same headers; PUT: writes a file, or with
// ?operation=copy|move copies or moves the file the body names (201 new, 200 replaced); DELETE: a
// file or a directory. Admin only (the default access of every route).
import fs from 'node:fs'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { MethodNotAllowed, NotAcceptable, ResourceOperationUnsupported, ResourceUnknownParameter } from '../../services/errors.js'
import { formatFromAccept } from '../infra/negotiate.js'
import type { Format } from '../infra/representation.js'
import { directoryDoc, metadataDoc, mediaTypeOf, resourceHeaders } from './views.js'

interface ResourceQuery { operation?: string, format?: string }

const pathOf = (req: FastifyRequest) => (req.params as Record<string, string | undefined>)['*'] ?? ''

/** ?format= first (GeoServer's way), then Accept; XML when neither says. */
function formatFor (req: FastifyRequest): Format {
  const q = (req.query as ResourceQuery).format
  if (q !== undefined) {
    const f = q.toLowerCase()
    if (f === 'xml' || f === 'json') return f
    throw NotAcceptable(`format=${JSON.stringify(q.slice(0, 40))}`, 'xml, json')
  }
  const f = formatFromAccept(req.headers.accept)
  if (f === null) throw NotAcceptable(JSON.stringify(req.headers.accept), 'application/xml, application/json')
  return f === 'json' ? 'json' : 'xml'
}

const KNOWN_PARAMS = new Set(['operation', 'format'])

function checkOperation (req: FastifyRequest, allowed: string[]): string {
  const unknown = Object.keys(req.query as object).filter((k) => !KNOWN_PARAMS.has(k))
  if (unknown.length > 0) throw ResourceUnknownParameter(unknown.slice(0, 5).map((k) => JSON.stringify(k.slice(0, 40))).join(', '), 'operation, format')
  const op = ((req.query as ResourceQuery).operation ?? 'default').toLowerCase()
  if (!allowed.includes(op)) throw ResourceOperationUnsupported(JSON.stringify(op.slice(0, 40)), req.method, allowed.join(', '))
  return op
}

export default async function resource (app: FastifyInstance) {
  const { resources } = app
  // Any bytes are a resource: this area reads every body as it is, whatever its media type.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: app.config.bodyLimit }, (_req, body, done) => { done(null, body) })

  const base = (req: FastifyRequest) => app.urls.rest(req, 'resource')

  const get = async (req: FastifyRequest, reply: FastifyReply) => {
    const op = checkOperation(req, ['default', 'metadata'])
    const raw = pathOf(req)
    const info = await resources.info(raw)
    reply.headers(resourceHeaders(info))
    if (op === 'metadata') {
      const format = formatFor(req)
      return reply.type(format === 'json' ? 'application/json' : 'application/xml').send(metadataDoc(info, base(req), format))
    }
    if (info.kind === 'directory') {
      const format = formatFor(req)
      const { children } = await resources.list(raw)
      return reply.type(format === 'json' ? 'application/json' : 'application/xml').send(directoryDoc(info, children, base(req), format))
    }
    const { file } = await resources.open(raw)
    return reply.type(mediaTypeOf(info.name)).header('content-length', info.size).send(fs.createReadStream(file))
  }

  const put = async (req: FastifyRequest, reply: FastifyReply) => {
    const op = checkOperation(req, ['default', 'copy', 'move'])
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)
    // copy and move (GeoServer's ResourceController): the body is the source's path, e.g. /templates/a.ftl.
    const { created } = op === 'default'
      ? await resources.write(pathOf(req), body)
      : await resources[op === 'copy' ? 'copy' : 'move'](pathOf(req), body.toString('utf8'))
    return reply.code(created ? 201 : 200).send()
  }

  const remove = async (req: FastifyRequest, reply: FastifyReply) => {
    checkOperation(req, ['default'])
    await resources.remove(pathOf(req))
    return reply.code(200).send()
  }

  for (const url of ['', '/*']) {
    app.get(url, { schema: { summary: 'A data-directory resource: a listing, a file, or its metadata (?operation=metadata)' } }, get)
    app.put(url, { schema: { summary: 'Writes a data-directory file, or with ?operation=copy|move copies or moves the one the body names (201 created, 200 replaced)' } }, put)
    app.delete(url, { schema: { summary: 'Deletes a data-directory file or directory' } }, remove)
    app.post(url, { schema: { summary: 'Not allowed: answers 405 (as GeoServer)' } }, async (req) => { throw MethodNotAllowed(req.method) })
  }
}
