// {base}/rest/workspaces/<ws>/datastores/<ds>/{file,external,url}.{shp,gpkg}: GeoServer's
// DataStoreFileController for Shapefile and GeoPackage stores (services/vector/file-uploads.ts).
// file.* takes a ZIP (application/zip); external.* and url.* take the file's location as a
// text/plain body (a file: URL or a path under the harvest roots or the data directory; for url.*
// also an http(s) URL on an allowed host, fetched and uploaded as file.*). 201 and
// the store, as GeoServer answers. `file.appschema` stays plugins/appschema's route, which hands
// file.shp and file.gpkg here.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { parseConfigure } from '../../services/appschema/service.js'
import { InvalidBody, UnsupportedStoreFormat, UploadMediaType } from '../../services/errors.js'
import { isVectorFormat, type UploadMethod } from '../../services/vector/file-uploads.js'
import { XML_FIRST, type TypedApp } from '../infra/routes.js'
import { FileParams, UploadQuery } from '../../schemas/appschema.js'
import { postgisStoreDoc } from './representations.js'

interface UploadRequest { params: { ws: string, store: string, format: string }, query: { configure?: string, charset?: string, update?: string, filename?: string } }

/** Handles a vector upload; `method` is the file name's stem (file, external, url). */
export async function vectorUpload (app: TypedApp, req: FastifyRequest & UploadRequest, reply: FastifyReply, method: UploadMethod) {
  const { ws, store } = req.params
  const format = req.params.format.toLowerCase()
  if (!isVectorFormat(format)) throw UnsupportedStoreFormat(req.params.format)
  const { configure, charset, update, filename } = req.query
  // GeoServer's `filename` names a file sent as itself (file.gpkg); a ZIP is extracted and keeps its names.
  // The Python geoserver-rest package and geoserver-node-client send it on file.shp and file.gpkg.
  if (filename !== undefined && method !== 'file') throw InvalidBody(`filename=${JSON.stringify(filename.slice(0, 60))} is not read by ${method}.${format}`)
  if (method === 'file' && !req.upload) throw UploadMediaType(JSON.stringify(req.headers['content-type'] ?? '(none)'))
  if (method !== 'file' && (req.upload || typeof req.body !== 'string')) throw InvalidBody(`${method}.${format} takes the location of the file as a text/plain body (a file: URL or a path)`)
  await app.vectorUploads.upload({
    workspace: ws,
    store,
    format,
    method,
    configure: parseConfigure(configure),
    ...(charset !== undefined ? { charset } : {}),
    ...(update !== undefined ? { update } : {}),
    ...(filename !== undefined && filename !== '' ? { filename } : {}),
    ...(req.upload ? req.upload.mediaType === 'application/zip' ? { zipPath: req.upload.path } : { gpkgPath: req.upload.path } : { location: req.body as string })
  })
  const row = await app.datastores.get(ws, store)
  return reply.resource(postgisStoreDoc(req, app.urls, row), 201)
}

export default async function uploadRoutes (app: TypedApp) {
  for (const method of ['external', 'url'] as const) {
    app.put(`/workspaces/:ws/datastores/:store/${method}.:format`, { schema: { summary: `Create or change a Shapefile (${method}.shp) or GeoPackage (${method}.gpkg) store from a file on the server (text/plain body: a file: URL or a path under the harvest roots)`, params: FileParams, querystring: UploadQuery }, config: XML_FIRST },
      async (req, reply) => vectorUpload(app, req as FastifyRequest & UploadRequest, reply, method))
  }
}
