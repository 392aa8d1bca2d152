// {base}/rest/workspaces/<ws>/wmsstores and .../wmtsstores: GeoServer's WMSStoreController and
// WMTSStoreController; .../wmsstores/<s>/wmslayers and .../wmtsstores/<s>/layers (and the
// workspace's wmslayers / wmtslayers): WMSLayerController and WMTSLayerController. POST answers 201
// with the name and a Location; DELETE takes `recurse`. Everything is services/cascade's.
import type { FastifyRequest } from 'fastify'
import { MethodNotAllowed } from '../../services/errors.js'
import { bodyRoot, quietOnNotFound, suffixed, type TypedApp } from '../infra/routes.js'
import {
  DeleteQuery, LayerListQuery, LayerParams, StoreParams, WmsLayerBody, WmsStoreBody, WmtsLayerBody, WmtsStoreBody, WsLayerParams, WsParams, responses
} from '../../schemas/cascade.js'
import type { CascadeKind } from '../../services/cascade/store.js'
import { availableDoc, layerDoc, layerListDoc, storeDoc, storeListDoc } from './representations.js'

const notAllowed = { onRequest: async (req: FastifyRequest) => { throw MethodNotAllowed(req.method) }, schema: { summary: 'Not allowed: answers 405 (as GeoServer)' } }

const KINDS: Array<{ kind: CascadeKind, stores: string, layers: string, wsLayers: string, storeRoot: string, layerRoot: string, StoreBody: typeof WmsStoreBody, LayerBody: typeof WmsLayerBody, label: string }> = [
  { kind: 'wms', stores: 'wmsstores', layers: 'wmslayers', wsLayers: 'wmslayers', storeRoot: 'wmsStore', layerRoot: 'wmsLayer', StoreBody: WmsStoreBody, LayerBody: WmsLayerBody, label: 'WMS' },
  { kind: 'wmts', stores: 'wmtsstores', layers: 'layers', wsLayers: 'wmtslayers', storeRoot: 'wmtsStore', layerRoot: 'wmtsLayer', StoreBody: WmtsStoreBody, LayerBody: WmtsLayerBody, label: 'WMTS' }
]

export default async function cascade (app: TypedApp) {
  const { urls, cascade: service } = app
  quietOnNotFound(app)

  for (const k of KINDS) {
    const storesResp = k.kind === 'wms' ? responses.wmsStores : responses.wmtsStores
    const storeResp = k.kind === 'wms' ? responses.wmsStore : responses.wmtsStore
    const layersResp = k.kind === 'wms' ? responses.wmsLayers : responses.wmtsLayers
    const layerResp = k.kind === 'wms' ? responses.wmsLayer : responses.wmtsLayer

    for (const url of suffixed(`/workspaces/:ws/${k.stores}`)) {
      app.get(url, { schema: { summary: `List the cascaded ${k.label} stores of a workspace`, params: WsParams, response: storesResp } }, async (req, reply) =>
        reply.resource(storeListDoc(req, urls, req.params.ws, k.kind, await service.listStores(req.params.ws, k.kind))))
      app.post(url, { schema: { summary: `Create a cascaded ${k.label} store (201, body = its name); its URL's host must be on MAPWARDEN_CASCADE_HOSTS`, params: WsParams, body: k.StoreBody, response: responses.created } }, async (req, reply) => {
        const { ws } = req.params
        const name = await service.createStore(ws, k.kind, bodyRoot(req.body, k.storeRoot))
        return reply.code(201).header('Location', urls.rest(req, 'workspaces', ws, k.stores, name)).type('text/plain').send(name)
      })
      app.put(url, notAllowed, async () => undefined)
      app.delete(url, notAllowed, async () => undefined)
    }
    const one = `/workspaces/:ws/${k.stores}/:store`
    app.post(one, notAllowed, async () => undefined)
    app.get(one, { schema: { summary: `A cascaded ${k.label} store (the password as its sealed token)`, params: StoreParams, response: storeResp } }, async (req, reply) =>
      reply.resource(storeDoc(req, urls, await service.getStore(req.params.ws, k.kind, req.params.store))))
    app.put(one, { schema: { summary: `Change a cascaded ${k.label} store (the password kept unless sent)`, params: StoreParams, body: k.StoreBody, response: responses.done } }, async (req, reply) => {
      await service.updateStore(req.params.ws, k.kind, req.params.store, bodyRoot(req.body, k.storeRoot))
      return reply.code(200).send()
    })
    app.delete(one, { schema: { summary: `Delete a cascaded ${k.label} store (recurse=true: with its layers)`, params: StoreParams, querystring: DeleteQuery, response: responses.done } }, async (req, reply) => {
      await service.removeStore(req.params.ws, k.kind, req.params.store, req.query.recurse === true)
      return reply.code(200).send()
    })

    for (const url of suffixed(`/workspaces/:ws/${k.wsLayers}`)) {
      app.get(url, { schema: { summary: `The cascaded ${k.label} layers of a workspace`, params: WsParams, response: layersResp } }, async (req, reply) =>
        reply.resource(layerListDoc(req, urls, k.kind, await service.listLayers(req.params.ws, k.kind))))
    }
    app.get(`/workspaces/:ws/${k.wsLayers}/:layer`, { schema: { summary: `A cascaded ${k.label} layer`, params: WsLayerParams, response: layerResp } }, async (req, reply) =>
      reply.resource(layerDoc(req, urls, await service.getLayer(req.params.ws, k.kind, undefined, req.params.layer))))

    for (const url of suffixed(`/workspaces/:ws/${k.stores}/:store/${k.layers}`)) {
      app.get(url, { schema: { summary: `The layers published from a cascaded ${k.label} store, or (list=available) the remote's layers not yet published`, params: StoreParams, querystring: LayerListQuery, response: layersResp } }, async (req, reply) => {
        const { ws, store } = req.params
        if (req.query.list === 'available') return reply.resource(availableDoc(k.kind, await service.availableLayers(ws, k.kind, store)))
        return reply.resource(layerListDoc(req, urls, k.kind, await service.listLayers(ws, k.kind, store)))
      })
      app.post(url, { schema: { summary: `Publish a remote layer (nativeName) of a cascaded ${k.label} store as a local layer (201, body = its name)`, params: StoreParams, body: k.LayerBody, response: responses.created } }, async (req, reply) => {
        const { ws, store } = req.params
        const name = await service.createLayer(ws, k.kind, store, bodyRoot(req.body, k.layerRoot))
        return reply.code(201).header('Location', urls.rest(req, 'workspaces', ws, k.stores, store, k.layers, name)).type('text/plain').send(name)
      })
    }
    const layer = `/workspaces/:ws/${k.stores}/:store/${k.layers}/:layer`
    app.get(layer, { schema: { summary: `A cascaded ${k.label} layer`, params: LayerParams, response: layerResp } }, async (req, reply) =>
      reply.resource(layerDoc(req, urls, await service.getLayer(req.params.ws, k.kind, req.params.store, req.params.layer))))
    app.put(layer, { schema: { summary: `Change a cascaded ${k.label} layer (title, abstract, keywords, bounds, srs, enabled)`, params: LayerParams, body: k.LayerBody, response: responses.done } }, async (req, reply) => {
      await service.updateLayer(req.params.ws, k.kind, req.params.store, req.params.layer, bodyRoot(req.body, k.layerRoot))
      return reply.code(200).send()
    })
    app.delete(layer, { schema: { summary: `Delete a cascaded ${k.label} layer (recurse=true required: its published layer goes with it)`, params: LayerParams, querystring: DeleteQuery, response: responses.done } }, async (req, reply) => {
      await service.removeLayer(req.params.ws, k.kind, req.params.store, req.params.layer, req.query.recurse === true)
      return reply.code(200).send()
    })
  }
}
