// {base}/rest/workspaces/<ws>/datastores...: application-schema data stores (GeoServer's
// DataStoreFileController for `file.appschema`, DataStoreController and FeatureTypeController
// shapes): 201 when a single-file upload creates the store, 200 when it updates one and for ZIPs.
import { parseConfigure } from '../../services/appschema/service.js'
import { InvalidBody, InvalidListValue, MethodNotAllowed, UnsupportedStoreFormat, UploadMediaType } from '../../services/errors.js'
import { suffixed, type TypedApp } from '../infra/routes.js'
import { DeleteQuery, FileParams, FtParams, ListQuery, StoreParams, UploadQuery, WsParams, responses } from '../../schemas/appschema.js'
import { dataStoreDoc, dataStoreListDoc, featureTypeDoc, featureTypeListDoc, featureTypeNamesDoc, zipOf } from './representations.js'

export default async function appschema (app: TypedApp) {
  const { urls } = app
  const service = app.appschema
  // GeoServer's RestControllerAdvice: `?quietOnNotFound=true` keeps the 404 but drops its message.
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode === 404 && (req.query as Record<string, unknown>)?.quietOnNotFound === 'true') return ''
    return payload
  })

  for (const url of suffixed('/workspaces/:ws/datastores')) {
    app.get(url, { schema: { summary: 'List the data stores of a workspace', params: WsParams }, config: { responses: responses.stores } }, async (req, reply) => {
      const { ws } = req.params
      return reply.resource(dataStoreListDoc(req, urls, ws, await service.list(ws)))
    })
  }

  app.get('/workspaces/:ws/datastores/:store', { schema: { summary: 'An application-schema data store', params: StoreParams }, config: { responses: responses.store } }, async (req, reply) => {
    const { ws, store } = req.params
    return reply.resource(dataStoreDoc(req, urls, await service.getStore(ws, store)))
  })

  app.delete('/workspaces/:ws/datastores/:store', { schema: { summary: 'Delete an application-schema data store', params: StoreParams, querystring: DeleteQuery } }, async (req, reply) => {
    const { ws, store } = req.params
    await service.remove(ws, store, req.query.recurse === true)
    return reply.code(200).send()
  })

  for (const url of suffixed('/workspaces/:ws/datastores/:store/featuretypes')) {
    app.get(url, { schema: { summary: 'List the feature types of a data store', params: StoreParams, querystring: ListQuery }, config: { responses: responses.featureTypes } }, async (req, reply) => {
      const { ws, store } = req.params
      const { list = 'configured' } = req.query
      if (list === 'configured') return reply.resource(featureTypeListDoc(req, urls, ws, store, await service.featureTypes(ws, store)))
      if (list !== 'available' && list !== 'available_with_geom' && list !== 'all') throw InvalidListValue(JSON.stringify(list))
      return reply.resource(featureTypeNamesDoc(req, await service.featureTypeNames(ws, store, list)))
    })
  }

  app.get('/workspaces/:ws/datastores/:store/featuretypes/:ft', { schema: { summary: 'A feature type of an application-schema data store', params: FtParams }, config: { responses: responses.featureType } }, async (req, reply) => {
    const { ws, store, ft } = req.params
    return reply.resource(featureTypeDoc(req, urls, await service.featureType(ws, store, ft)))
  })

  const fileRoute = '/workspaces/:ws/datastores/:store/file.:format'
  app.put(fileRoute, { schema: { summary: 'Upload a mapping file or a ZIP of mapping, schemas and data (creates or updates the store)', params: FileParams, querystring: UploadQuery } }, async (req, reply) => {
    const { ws, store, format } = req.params
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

  app.get(fileRoute, { schema: { summary: 'Download the store\'s files as a ZIP', params: FileParams }, config: { responses: responses.zip } }, async (req, reply) => {
    const { ws, store, format } = req.params
    if (format.toLowerCase() !== 'appschema') throw UnsupportedStoreFormat(format)
    const { dir, files } = await service.files(ws, store)
    return reply.type('application/zip').header('content-disposition', `attachment; filename=${store}.zip`).send(zipOf(dir, files))
  })

  for (const method of ['POST', 'DELETE'] as const) {
    app.route({ schema: { summary: 'Not allowed: answers 405 (as GeoServer)' }, method, url: fileRoute, handler: async (req) => { throw MethodNotAllowed(req.method) } })
  }
}
