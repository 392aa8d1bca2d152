// {base}/rest/workspaces/<ws>/datastores: GeoServer's DataStoreController. The list holds the
// workspace's data stores of every type; POST and PUT create and change PostGIS stores (201, the
// name as body and a Location, as GeoServer); GET and DELETE of a store serve every type, each
// through its own service (services/datastores for PostGIS, services/appschema for app-schema).
import type { FastifyRequest } from 'fastify'
import { InvalidBody, MethodNotAllowed } from '../../services/errors.js'
import { bodyRoot, quietOnNotFound, suffixed, type TypedApp } from '../infra/routes.js'
import { DataStoreBody, DeleteQuery, StoreParams, WsParams, responses, storeResponses } from '../../schemas/datastores.js'
import { dataStoreDoc, dataStoreListDoc } from '../appschema/representations.js'
import { postgisStoreDoc } from './representations.js'
import featureTypeRoutes from './featuretypes.js'
import uploadRoutes from './uploads.js'

// GeoServer's 405s: PUT and DELETE of the list, POST of a store (refused before any body is read).
const notAllowed = { onRequest: async (req: FastifyRequest) => { throw MethodNotAllowed(req.method) }, schema: { summary: 'Not allowed: answers 405 (as GeoServer)' } }

export default async function datastores (app: TypedApp) {
  const { urls, appschema, datastores: service } = app
  quietOnNotFound(app)

  for (const url of suffixed('/workspaces/:ws/datastores')) {
    app.get(url, { schema: { summary: 'List the data stores of a workspace (every type)', params: WsParams, response: storeResponses.stores } }, async (req, reply) => {
      const { ws } = req.params
      return reply.resource(dataStoreListDoc(req, urls, ws, await appschema.list(ws)))
    })
    app.post(url, { schema: { summary: 'Create a PostGIS data store (201, body = its name); its database is checked first', params: WsParams, body: DataStoreBody, response: responses.created } }, async (req, reply) => {
      const { ws } = req.params
      const name = await service.create(ws, bodyRoot(req.body, 'dataStore'))
      return reply.code(201).header('Location', urls.rest(req, 'workspaces', ws, 'datastores', name)).type('text/plain').send(name)
    })
    app.put(url, notAllowed, async () => undefined)
    app.delete(url, notAllowed, async () => undefined)
  }
  app.post('/workspaces/:ws/datastores/:store', notAllowed, async () => undefined)

  app.get('/workspaces/:ws/datastores/:store', { schema: { summary: 'A data store', params: StoreParams, response: storeResponses.store } }, async (req, reply) => {
    const { ws, store } = req.params
    const postgis = await service.find(ws, store)
    if (postgis) return reply.resource(postgisStoreDoc(req, urls, postgis))
    return reply.resource(dataStoreDoc(req, urls, await appschema.getStore(ws, store)))
  })

  app.put('/workspaces/:ws/datastores/:store', { schema: { summary: 'Change a PostGIS data store (parameters merged; the password kept unless sent)', params: StoreParams, body: DataStoreBody, response: responses.done } }, async (req, reply) => {
    const { ws, store } = req.params
    const body = bodyRoot(req.body, 'dataStore')
    if (!await service.find(ws, store)) {
      // An app-schema store changes with its mapping; anything else is not there.
      const other = await appschema.getStore(ws, store)
      throw InvalidBody(`Data store ${other.name} is of type ${other.type}: change it with PUT ${urls.rest(req, 'workspaces', ws, 'datastores', store, 'file.appschema')}`)
    }
    await service.update(ws, store, body)
    return reply.code(200).send()
  })

  app.delete('/workspaces/:ws/datastores/:store', { schema: { summary: 'Delete a data store (recurse=true: with its feature types and layers)', params: StoreParams, querystring: DeleteQuery, response: responses.done } }, async (req, reply) => {
    const { ws, store } = req.params
    const recurse = req.query.recurse === true
    if (await service.find(ws, store)) await service.remove(ws, store, recurse)
    else await appschema.remove(ws, store, recurse)
    return reply.code(200).send()
  })

  await featureTypeRoutes(app)
  await uploadRoutes(app)
}
