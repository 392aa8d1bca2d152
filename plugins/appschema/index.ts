// {base}/rest/workspaces/<ws>/datastores...: application-schema data stores (GeoServer's
// DataStoreFileController for `file.appschema`): 201 when a single-file upload creates the store,
// 200 when it updates one and for ZIPs. The list, the store resource and the feature types of every
// type are plugins/datastores' (its feature types in representations.ts here).
import { parseConfigure } from '../../services/appschema/service.js'
import { InvalidBody, MethodNotAllowed, UnsupportedStoreFormat, UploadMediaType } from '../../services/errors.js'
import { quietOnNotFound, XML_FIRST, type TypedApp } from '../infra/routes.js'
import { FileParams, UploadQuery, responses } from '../../schemas/appschema.js'
import { zipOf } from './representations.js'
import { vectorUpload } from '../datastores/uploads.js'
import { isVectorFormat } from '../../services/vector/file-uploads.js'

export default async function appschema (app: TypedApp) {
  const service = app.appschema
  quietOnNotFound(app)

  const fileRoute = '/workspaces/:ws/datastores/:store/file.:format'
  app.put(fileRoute, { schema: { summary: 'Upload a mapping file or a ZIP of mapping, schemas and data (creates or updates the store); file.shp and file.gpkg: a ZIP of a shapefile or a GeoPackage (a Shapefile or GeoPackage store, 201)', params: FileParams, querystring: UploadQuery }, config: XML_FIRST }, async (req, reply) => {
    const { ws, store, format } = req.params
    // Shapefile and GeoPackage uploads are the vector stores' (plugins/datastores/uploads.ts).
    if (isVectorFormat(format.toLowerCase())) return vectorUpload(app, req, reply, 'file')
    if (format.toLowerCase() !== 'appschema') throw UnsupportedStoreFormat(format)
    const { configure, filename } = req.query
    const ct = (req.headers['content-type'] ?? '').toLowerCase()
    const isXml = /^(text|application)\/xml\b/.test(ct)
    if (!req.upload && !(isXml && req.rawText !== undefined)) throw UploadMediaType(JSON.stringify(req.headers['content-type'] ?? '(none)'))
    // A ZIP keeps its own file names: a filename would be dropped unread, so it is refused.
    if (req.upload && filename !== undefined) throw InvalidBody(`filename=${JSON.stringify(filename.slice(0, 60))} names the file of a single mapping-file upload; a ZIP keeps the names of its entries`)
    const result = await service.upload({
      workspace: ws,
      store,
      configure: parseConfigure(configure),
      ...(req.upload ? { zipPath: req.upload.path } : { text: req.rawText, filename })
    })
    const unchecked = result.report.sources.filter((s) => !s.checked)
    if (unchecked.length > 0) {
      req.log.info({ workspace: ws, store, sources: unchecked.map((s) => ({ id: s.id, file: s.file, kind: s.kind, dbtype: s.dbtype })) },
        'app-schema: source data stores recorded as given, not checked offline')
    }
    // 201 when a single-file upload creates the store; 200 for updates and ZIPs.
    return reply.code(result.created && !req.upload ? 201 : 200).send()
  })

  app.get(fileRoute, { schema: { summary: 'Download the store\'s files as a ZIP', params: FileParams, response: responses.zip } }, async (req, reply) => {
    const { ws, store, format } = req.params
    if (format.toLowerCase() !== 'appschema') throw UnsupportedStoreFormat(format)
    const { dir, files } = await service.files(ws, store)
    return reply.type('application/zip').header('content-disposition', `attachment; filename=${store}.zip`).send(zipOf(dir, files))
  })

  for (const method of ['POST', 'DELETE'] as const) {
    app.route({ schema: { summary: 'Not allowed: answers 405 (as GeoServer)' }, method, url: fileRoute, handler: async (req) => { throw MethodNotAllowed(req.method) } })
  }
}
