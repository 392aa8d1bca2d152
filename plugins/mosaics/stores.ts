// Coverage stores (ImageMosaic, GeoTIFF and WorldImage, all served by the mosaic machinery): the ZIP
// upload (PUT file.imagemosaic), a GeoTIFF or WorldImage upload (PUT file.geotiff, file.worldimage),
// stores reading server files in place (PUT external.geotiff|worldimage|imagemosaic, POST
// coveragestores with a url), harvesting
// (POST file.imagemosaic, POST external.imagemosaic), and GET/DELETE of the store.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Link, type Document } from '../infra/representation.js'
import { bodyRoot, suffixed, XML_FIRST, type TypedApp } from '../infra/routes.js'
import { CoverageStoreBody, HarvestQuery, StoreDeleteQuery, StoreParams, UploadParams, UploadQuery, WsParams, responses } from '../../schemas/mosaics.js'
import { HarvestNotSupported, InvalidFlag, UnknownParameter, UnsupportedMediaType, UnsupportedUploadFormat, UnsupportedUploadMethod, MethodNotAllowed } from '../../services/errors.js'
import type { StoreInfo } from '../../services/mosaics/mosaic-service.js'
import type { Skipped } from '../../services/mosaics/scan.js'

const STORE = '/workspaces/:ws/coveragestores/:store'

function one (v: unknown): string | undefined {
  if (Array.isArray(v)) return v.length ? String(v[v.length - 1]) : undefined
  return v === undefined ? undefined : String(v)
}

/** Reported in Warning headers (RFC 7234 code 199): the request succeeded without these files. */
/** A true/false query parameter (absent: false). */
function flag (q: Record<string, unknown>, name: string): boolean {
  const v = one(q[name])
  if (v === undefined) return false
  if (!/^(true|false)$/i.test(v)) throw InvalidFlag(name, JSON.stringify(v.slice(0, 20)))
  return v.toLowerCase() === 'true'
}

/** Query parameters an upload reads; another one would be dropped unread, so it is refused by name. */
function onlyParams (q: Record<string, unknown>, where: string, known: string[]): void {
  for (const k of Object.keys(q)) if (!known.includes(k)) throw UnknownParameter(JSON.stringify(k.slice(0, 60)), where, known.join(', '))
}

function warn (reply: FastifyReply, skipped: Skipped[]) {
  if (skipped.length === 0) return
  const text = (s: Skipped) => `199 mapwarden "Skipped granule ${s.file.replace(/["\\\r\n]/g, '_')}: ${s.reason.replace(/["\\\r\n]/g, '_')}"`
  reply.header('Warning', skipped.slice(0, 50).map(text))
}

export default async function stores (app: TypedApp) {
  const { mosaics, urls } = app

  const storeDoc = (req: FastifyRequest, s: StoreInfo, links: boolean): Document => ({
    coverageStore: {
      name: s.name,
      type: s.type,
      enabled: s.enabled,
      workspace: links ? { name: s.workspace, href: new Link(urls.rest(req, 'workspaces', s.workspace)) } : { name: s.workspace },
      [req.format === 'json' ? '_default' : '__default']: false,
      url: s.url,
      coverages: links ? new Link(urls.rest(req, 'workspaces', s.workspace, 'coveragestores', s.name, 'coverages')) : undefined
    }
  })

  const parseUpload = (upload: string) => {
    const m = /^(file|external|url|remote)\.(.+)$/.exec(upload)
    if (!m) throw UnsupportedUploadMethod(JSON.stringify(upload.slice(0, 60)))
    const format = m[2].toLowerCase()
    if (format !== 'imagemosaic' && format !== 'geotiff' && format !== 'worldimage') throw UnsupportedUploadFormat(m[2].slice(0, 60))
    return { method: m[1], format }
  }
  const configureOf = (q: Record<string, unknown>) => {
    const configure = (one(q.configure) ?? 'first').toLowerCase()
    if (!['none', 'first', 'all'].includes(configure)) throw UnsupportedUploadMethod(`configure=${JSON.stringify(configure.slice(0, 20))} (use none, first or all)`)
    return configure as 'none' | 'first' | 'all'
  }

  app.put(`${STORE}/:upload`, { schema: { summary: 'Create or replace a coverage store: an image mosaic from a ZIP (file.imagemosaic) or a server folder (external.imagemosaic), a GeoTIFF store from the file (file.geotiff) or a server file (external.geotiff), a WorldImage store from a ZIP of an image with its world file (file.worldimage) or a server image (external.worldimage); url.* fetches the body\'s URL (http(s) from MAPWARDEN_REMOTE_UPLOAD_HOSTS, or a file under the harvest roots) and uploads it as file.* does', params: UploadParams, querystring: UploadQuery, response: { ...responses.store, 201: responses.store[200] } }, config: XML_FIRST }, async (req, reply) => {
    const { ws, store, upload } = req.params
    const { method, format } = parseUpload(upload)
    if (method === 'remote') throw UnsupportedUploadMethod(`${method} with PUT`)
    const q = req.query
    const type = format === 'geotiff' ? 'GeoTIFF' : format === 'worldimage' ? 'WorldImage' : 'ImageMosaic'
    const mosaicZip = type === 'ImageMosaic' && method !== 'external'
    onlyParams(q, upload, mosaicZip ? ['configure', 'coverageName', 'verify'] : method === 'external' ? ['configure', 'coverageName'] : ['configure', 'coverageName', 'filename'])
    const opts = { configure: configureOf(q), coverageName: one(q.coverageName), ...(mosaicZip ? { verify: flag(q, 'verify') } : { filename: one(q.filename) }) }
    let result
    if (method === 'url' || method === 'external') {
      if (typeof req.body !== 'string') throw UnsupportedMediaType(req.headers['content-type'] ?? '(none)', 'text/plain')
      result = method === 'url' ? await mosaics.uploadFromUrl(type, ws, store, req.body, opts) : await mosaics.external(ws, store, type, req.body, opts)
    } else if (type !== 'ImageMosaic') {
      // A WorldImage is an image with sidecars: only a ZIP carries them (GeoServer's recipe).
      const accepted = type === 'WorldImage' ? ['application/zip'] : ['image/tiff', 'application/zip']
      if (!req.upload || !accepted.includes(req.upload.mediaType)) throw UnsupportedMediaType(req.headers['content-type'] ?? '(none)', accepted.join(', '))
      result = await mosaics.uploadSingle(type, ws, store, { path: req.upload.path, zip: req.upload.mediaType === 'application/zip' }, opts)
    } else {
      if (!req.upload || req.upload.mediaType !== 'application/zip') throw UnsupportedMediaType(req.headers['content-type'] ?? '(none)', 'application/zip')
      result = await mosaics.upload(ws, store, req.upload.path, opts)
    }
    warn(reply, result.skipped)
    // GeoServer's CoverageStoreFileController: 201 and the store, no body with configure=none; a
    // mosaic ZIP (file.imagemosaic, url.imagemosaic) answers 200 (the owner's text).
    const status = mosaicZip ? 200 : 201
    if (opts.configure === 'none') return reply.code(status).send()
    return reply.resource(storeDoc(req, await mosaics.getStore(ws, store), false), status)
  })

  app.post(`${STORE}/:upload`, { schema: { summary: 'Harvest granules into a mosaic: a ZIP (file.imagemosaic) or a server path (external.imagemosaic)', params: UploadParams, querystring: HarvestQuery } }, async (req, reply) => {
    const { ws, store, upload } = req.params
    const { method, format } = parseUpload(upload)
    // A GeoTIFF or WorldImage store holds one file: nothing to harvest (GeoServer: 405).
    if (format !== 'imagemosaic') throw HarvestNotSupported()
    onlyParams(req.query, upload, ['verify'])
    const verify = flag(req.query, 'verify')
    if (method === 'file') {
      // GeoServer's recipe: a ZIP of granules POSTed to file.imagemosaic adds them to the mosaic.
      if (!req.upload) throw UnsupportedMediaType(req.headers['content-type'] ?? '(none)', 'application/zip')
      const result = await mosaics.harvestUpload(ws, store, req.upload.path, { verify })
      warn(reply, result.skipped)
      return reply.code(201).send()
    }
    if (method !== 'external') throw UnsupportedUploadMethod(`${method} with POST; harvest with external.imagemosaic and a file: URL, or file.imagemosaic and a ZIP`)
    if (typeof req.body !== 'string') throw UnsupportedMediaType(req.headers['content-type'] ?? '(none)', 'text/plain')
    const result = await mosaics.harvest(ws, store, req.body, { verify })
    warn(reply, result.skipped)
    return reply.code(201).send() // 201 (GeoServer answers 202): the store exists when the answer comes
  })

  // The coverage stores of a workspace (geoserver-node-client's getCoverageStores).
  for (const url of suffixed('/workspaces/:ws/coveragestores')) {
    app.get(url, { schema: { summary: 'List the coverage stores of a workspace', params: WsParams, response: responses.stores } }, async (req, reply) => {
      const { ws } = req.params
      const names = await mosaics.listStores(ws)
      return reply.resource({
        coverageStores: { coverageStore: names.map((name) => ({ name, href: new Link(urls.rest(req, 'workspaces', ws, 'coveragestores', name)) })) }
      })
    })
    // gsconfig and GeoNode: a store naming a server file, then POST coverages publishes it.
    app.post(url, { schema: { summary: 'Create a GeoTIFF, WorldImage or ImageMosaic store reading a file or folder under the harvest roots (201, body = its name)', params: WsParams, body: CoverageStoreBody, response: responses.created } }, async (req, reply) => {
      const { ws } = req.params
      const name = await mosaics.createStore(ws, bodyRoot(req.body, 'coverageStore'))
      return reply.code(201).header('Location', urls.rest(req, 'workspaces', ws, 'coveragestores', name)).type('text/plain').send(name)
    })
  }

  app.get(STORE, { schema: { summary: 'A coverage store', params: StoreParams, response: responses.store } }, async (req, reply) => {
    const { ws, store } = req.params
    return reply.resource(storeDoc(req, await mosaics.getStore(ws, store), true))
  })

  app.delete(STORE, { schema: { summary: 'Delete a coverage store (recurse=true: with its coverages; purge: its files)', params: StoreParams, querystring: StoreDeleteQuery } }, async (req, reply) => {
    const { ws, store } = req.params
    await mosaics.deleteStore(ws, store, one(req.query.recurse) === 'true')
    return reply.code(200).send()
  })

  for (const method of ['POST', 'PUT'] as const) {
    app.route({ schema: { summary: 'Not allowed: answers 405 (as GeoServer)' }, method, url: STORE, handler: async () => { throw MethodNotAllowed(method) } })
  }
}
