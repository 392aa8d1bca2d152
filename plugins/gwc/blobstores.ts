// GeoWebCache's blob stores (BlobStoreController): GET blobstores lists the configured ones (XML with
// an atom link to each, as GWC's documentation shows it, or a JSON list of names); GET
// blobstores/<id>.xml|.json shows one as GWC's FileBlobStoreInfo (<FileBlobStore default="..."> with
// id, enabled, baseDirectory, fileSystemBlockSize; JSON as GWC's documentation writes it). PUT
// blobstores/<id> (XML or JSON) answers 201 when it created the store, 200 when it replaced one, with
// an empty body; DELETE 200, or 404 with GWC's message. On the list, PUT and POST are 405 and
// DELETE 400 (GWC's table); POST on one is 405. Only file blob stores, under MAPWARDEN_BLOBSTORE_ROOTS
// (services/tilecache/blob-store-registry.ts). Admin-only, as the rest of /gwc/rest.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { escapeXml as esc } from '../infra/representation.js'
import { bodyRoot } from '../infra/routes.js'
import { unifyShape } from '../../services/body-fields.js'
import { BlobStoreListReadOnly, MethodNotAllowed } from '../../services/errors.js'
import type { FileBlobStoreInfo } from '../../services/tilecache/store.js'

function blobStoreXml (s: FileBlobStoreInfo): string {
  return [`<FileBlobStore default="${s.default}">`, `  <id>${esc(s.id)}</id>`, `  <enabled>${s.enabled}</enabled>`,
    `  <baseDirectory>${esc(s.baseDirectory)}</baseDirectory>`, `  <fileSystemBlockSize>${s.fileSystemBlockSize}</fileSystemBlockSize>`, '</FileBlobStore>'].join('\n')
}
// GWC's documented JSON (blobstore_json.txt): the attribute as "@default" text, the rest typed.
const blobStoreJson = (s: FileBlobStoreInfo) =>
  JSON.stringify({ FileBlobStore: { '@default': String(s.default), baseDirectory: s.baseDirectory, enabled: s.enabled, fileSystemBlockSize: s.fileSystemBlockSize, id: s.id } })

/** The FileBlobStore of a body, its one attribute (default: `$` from XML, "@default" in JSON) kept
 *  as "@default"; any other attribute or type hint is refused as on every body (bodyRoot). */
function fileBlobStoreBody (body: unknown): Record<string, unknown> {
  const unified = unifyShape(body) as Record<string, unknown> | undefined
  const inner = unified?.FileBlobStore
  if (!inner || typeof inner !== 'object' || Array.isArray(inner)) return bodyRoot(body, 'FileBlobStore')
  const { '@default': dflt, ...rest } = inner as Record<string, unknown>
  return { ...bodyRoot({ FileBlobStore: rest }, 'FileBlobStore'), ...(dflt !== undefined ? { '@default': dflt } : {}) }
}

const notAllowed = { onRequest: async (req: FastifyRequest) => { throw MethodNotAllowed(req.method) }, schema: { summary: 'Not allowed: answers 405 (as GeoWebCache)' } }

export default async function blobstores (app: FastifyInstance) {
  const cache = app.tileCache
  const list = async (req: FastifyRequest, reply: FastifyReply, json: boolean) => {
    const names = cache.blobStores().map((s) => s.id)
    if (json) return reply.type('application/json').send(JSON.stringify(names))
    const base = app.urls.absolute(req, `${app.prefix}/blobstores`)
    return reply.type('application/xml').send(['<blobStores>', ...names.map((n) => `  <blobStore>\n    <name>${esc(n)}</name>\n    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="${esc(`${base}/${encodeURIComponent(n)}.xml`)}" type="text/xml"/>\n  </blobStore>`), '</blobStores>'].join('\n'))
  }
  const idOf = (req: FastifyRequest) => (req.params as { id: string }).id
  for (const url of ['/blobstores', '/blobstores.xml', '/blobstores.json']) {
    app.get(url, { schema: { summary: url.endsWith('.json') ? 'The blob stores\' ids (JSON)' : 'The blob stores (XML, as GeoWebCache lists them)' } }, async (req, reply) => await list(req, reply, url.endsWith('.json')))
    app.post(url, notAllowed, async () => {})
    app.put(url, notAllowed, async () => {})
    // GWC's table: DELETE on the list is 400.
    app.delete(url, { onRequest: async (req: FastifyRequest) => { throw BlobStoreListReadOnly(req.method) }, schema: { summary: 'Refused: the blob store list is not deleted (400, as GeoWebCache)' } }, async () => {})
  }
  app.get('/blobstores/:id', { schema: { summary: 'One blob store as GeoWebCache\'s FileBlobStore (XML or JSON)' } }, async (req, reply) => {
    const s = cache.blobStore(idOf(req))
    if (req.format === 'json') return reply.type('application/json').send(blobStoreJson(s))
    return reply.type('application/xml').send(blobStoreXml(s))
  })
  app.put('/blobstores/:id', { schema: { summary: 'Create (201) or replace (200) a file blob store from a FileBlobStore (XML or JSON); its baseDirectory must be under MAPWARDEN_BLOBSTORE_ROOTS' } }, async (req, reply) => {
    const { created } = await cache.putBlobStore(idOf(req), fileBlobStoreBody(req.body))
    return reply.code(created ? 201 : 200).type('text/plain; charset=utf-8').send('')
  })
  app.post('/blobstores/:id', notAllowed, async () => {})
  app.delete('/blobstores/:id', { schema: { summary: 'Delete a blob store; refused (409) while it is the default one or a layer\'s tiles live in it' } }, async (req, reply) => {
    await cache.deleteBlobStore(idOf(req))
    return reply.code(200).type('text/plain; charset=utf-8').send('')
  })
}
