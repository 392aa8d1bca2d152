// {base}/rest/workspaces/<ws>/datastores/<ds>/featuretypes and {base}/rest/workspaces/<ws>/featuretypes:
// GeoServer's FeatureTypeController. A PostGIS store's feature types are created, changed and
// deleted here (services/vector/feature-types.ts: the table read through the store's vector
// source, a layer published with each); an application-schema store's feature types follow its
// mapping and are read here (services/appschema).
import { InvalidBody, InvalidListValue } from '../../services/errors.js'
import { bodyRoot, suffixed, type TypedApp } from '../infra/routes.js'
import {
  FeatureTypeBody, FtDeleteQuery, FtParams, FtPutQuery, ListQuery, StoreParams, WsParams, featureTypeResponses, responses
} from '../../schemas/featuretypes.js'
import { featureTypeDoc, featureTypeNamesDoc } from '../appschema/representations.js'
import { featureTypeListDoc, vectorFeatureTypeDoc } from './featuretype-representations.js'

const LISTS = ['configured', 'available', 'available_with_geom', 'all']

export default async function featureTypeRoutes (app: TypedApp) {
  const { urls, appschema, featureTypes, workspaces } = app

  /** An app-schema store's feature types follow its mapping: named in the refusal of a change. */
  const mappingOnly = async (ws: string, store: string) => {
    const other = await appschema.getStore(ws, store)
    return InvalidBody(`The feature types of data store ${other.name} (type ${other.type}) follow its mapping: change it with PUT ${'.../datastores/' + store + '/file.appschema'}`)
  }

  for (const url of suffixed('/workspaces/:ws/featuretypes')) {
    app.get(url, { schema: { summary: 'The feature types of a workspace (every data store)', params: WsParams, response: featureTypeResponses.featureTypes } }, async (req, reply) => {
      const { ws } = req.params
      await workspaces.get(ws)
      return reply.resource(featureTypeListDoc(req, urls, await featureTypes.listWorkspace(ws)))
    })
  }

  // With a trailing slash too: the Python geoserver-rest package's publish_featurestore POSTs to
  // `.../featuretypes/` (GeoServer's Spring MVC matches it).
  for (const url of [...suffixed('/workspaces/:ws/datastores/:store/featuretypes'), '/workspaces/:ws/datastores/:store/featuretypes/']) {
    app.get(url, { schema: { summary: 'The feature types of a data store (list=configured), or the names of its tables (list=available, available_with_geom, all)', params: StoreParams, querystring: ListQuery, response: featureTypeResponses.featureTypes } }, async (req, reply) => {
      const { ws, store } = req.params
      const { list = 'configured' } = req.query
      if (!LISTS.includes(list)) throw InvalidListValue(JSON.stringify(list))
      if (await featureTypes.handles(ws, store)) {
        if (list === 'configured') return reply.resource(featureTypeListDoc(req, urls, await featureTypes.list(ws, store)))
        return reply.resource(featureTypeNamesDoc(req, await featureTypes.names(ws, store, list as 'available' | 'available_with_geom' | 'all')))
      }
      if (list === 'configured') return reply.resource(featureTypeListDoc(req, urls, await appschema.featureTypes(ws, store)))
      return reply.resource(featureTypeNamesDoc(req, await appschema.featureTypeNames(ws, store, list as 'available' | 'available_with_geom' | 'all')))
    })
    app.post(url, { schema: { summary: 'Publish a table or view of a PostGIS store as a feature type and a layer (201, body = its name)', params: StoreParams, body: FeatureTypeBody, response: responses.created } }, async (req, reply) => {
      const { ws, store } = req.params
      if (!await featureTypes.handles(ws, store)) throw await mappingOnly(ws, store)
      const name = await featureTypes.create(ws, store, bodyRoot(req.body, 'featureType'))
      return reply.code(201).header('Location', urls.rest(req, 'workspaces', ws, 'datastores', store, 'featuretypes', name)).type('text/plain').send(name)
    })
  }

  const one = '/workspaces/:ws/datastores/:store/featuretypes/:ft'
  app.get(one, { schema: { summary: 'A feature type', params: FtParams, response: featureTypeResponses.featureType } }, async (req, reply) => {
    const { ws, store, ft } = req.params
    if (await featureTypes.handles(ws, store)) return reply.resource(vectorFeatureTypeDoc(req, urls, await featureTypes.get(ws, store, ft)))
    return reply.resource(featureTypeDoc(req, urls, await appschema.featureType(ws, store, ft)))
  })
  app.put(one, { schema: { summary: 'Change a feature type of a PostGIS store (recalculate=nativebbox,latlonbbox recomputes its bounds)', params: FtParams, querystring: FtPutQuery, body: FeatureTypeBody, response: responses.done } }, async (req, reply) => {
    const { ws, store, ft } = req.params
    if (!await featureTypes.handles(ws, store)) throw await mappingOnly(ws, store)
    await featureTypes.update(ws, store, ft, bodyRoot(req.body, 'featureType'), req.query.recalculate)
    return reply.code(200).send()
  })
  app.delete(one, { schema: { summary: 'Delete a feature type of a PostGIS store (recurse=true: with its layer, as GeoServer requires)', params: FtParams, querystring: FtDeleteQuery, response: responses.done } }, async (req, reply) => {
    const { ws, store, ft } = req.params
    if (!await featureTypes.handles(ws, store)) throw await mappingOnly(ws, store)
    await featureTypes.remove(ws, store, ft, req.query.recurse === true)
    return reply.code(200).send()
  })
}
