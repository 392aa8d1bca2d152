// Wire shapes of cascaded stores and layers as GeoServer's XStream persister writes them
// (wmsStore / wmtsStore, wmsLayer / wmtsLayer): the password as the sealed token it is stored as.
import type { FastifyRequest } from 'fastify'
import { Link, type Document, type Value } from '../infra/representation.js'
import type { Urls } from '../infra/services.js'
import { storeType, type CascadeKind, type CascadeLayerRow, type CascadeStoreRow } from '../../services/cascade/store.js'

const STORES: Record<CascadeKind, string> = { wms: 'wmsstores', wmts: 'wmtsstores' }
const LAYERS: Record<CascadeKind, string> = { wms: 'wmslayers', wmts: 'layers' }
const STORE_ROOT: Record<CascadeKind, string> = { wms: 'wmsStore', wmts: 'wmtsStore' }
const LAYER_ROOT: Record<CascadeKind, string> = { wms: 'wmsLayer', wmts: 'wmtsLayer' }

export function storeListDoc (req: FastifyRequest, urls: Urls, ws: string, kind: CascadeKind, rows: CascadeStoreRow[]): Document {
  return {
    [STORE_ROOT[kind] + 's']: {
      [STORE_ROOT[kind]]: rows.map((r) => ({ name: r.name, href: new Link(urls.rest(req, 'workspaces', ws, STORES[kind], r.name), 'application/atom+xml') }))
    }
  }
}

export function storeDoc (req: FastifyRequest, urls: Urls, row: CascadeStoreRow): Document {
  const c = row.config
  return {
    [STORE_ROOT[row.kind]]: {
      name: row.name,
      description: row.description,
      type: storeType(row.kind),
      enabled: row.enabled,
      workspace: { name: row.workspace, href: new Link(urls.rest(req, 'workspaces', row.workspace)) },
      // XStream writes `__default`; Jettison's JSON drops one underscore.
      [req.format === 'json' ? '_default' : '__default']: false,
      disableOnConnFailure: c.disableOnConnFailure ?? false,
      capabilitiesURL: c.capabilitiesURL,
      user: c.user,
      password: c.password,
      maxConnections: c.maxConnections,
      readTimeout: c.readTimeout,
      connectTimeout: c.connectTimeout,
      useConnectionPooling: c.useConnectionPooling,
      [row.kind === 'wms' ? 'wmsLayers' : 'layers']: new Link(urls.rest(req, 'workspaces', row.workspace, STORES[row.kind], row.name, LAYERS[row.kind]))
    }
  }
}

export function layerListDoc (req: FastifyRequest, urls: Urls, kind: CascadeKind, rows: CascadeLayerRow[]): Document {
  return {
    [LAYER_ROOT[kind] + 's']: {
      [LAYER_ROOT[kind]]: rows.map((r) => ({ name: r.name, href: new Link(urls.rest(req, 'workspaces', r.workspace, STORES[kind], r.store, LAYERS[kind], r.name), 'application/atom+xml') }))
    }
  }
}

/** list=available: the remote's names (GeoServer's <list><wmsLayerName>...). */
export function availableDoc (kind: CascadeKind, names: string[]): Document {
  return { list: { [LAYER_ROOT[kind] + 'Name']: names } }
}

const envelope = (b: [number, number, number, number], crs: string | undefined): Value => ({ minx: b[0], maxx: b[2], miny: b[1], maxy: b[3], crs })

export function layerDoc (req: FastifyRequest, urls: Urls, row: CascadeLayerRow): Document {
  const c = row.config
  return {
    [LAYER_ROOT[row.kind]]: {
      name: row.name,
      nativeName: row.nativeName,
      namespace: { name: row.workspace, href: new Link(urls.rest(req, 'namespaces', row.workspace)) },
      title: row.title,
      abstract: c.abstract,
      keywords: { string: c.keywords ?? [] },
      srs: row.srs,
      nativeBoundingBox: c.nativeBbox ? envelope(c.nativeBbox, row.srs) : row.latLonBbox && row.srs === 'EPSG:4326' ? envelope(row.latLonBbox, 'EPSG:4326') : undefined,
      latLonBoundingBox: row.latLonBbox ? envelope(row.latLonBbox, 'EPSG:4326') : undefined,
      projectionPolicy: 'FORCE_DECLARED',
      enabled: c.enabled,
      store: {
        '@class': STORE_ROOT[row.kind],
        name: `${row.workspace}:${row.store}`,
        href: new Link(urls.rest(req, 'workspaces', row.workspace, STORES[row.kind], row.store))
      },
      serviceConfiguration: false,
      simpleConversionEnabled: false,
      ...(row.kind === 'wms'
        ? {
            forcedRemoteStyle: c.forcedRemoteStyle ?? '',
            preferredFormat: c.preferredFormat ?? 'image/png',
            metadataBBoxRespected: false,
            ...(c.selectedRemoteFormats ? { selectedRemoteFormats: { string: c.selectedRemoteFormats } } : {}),
            ...(c.selectedRemoteStyles ? { selectedRemoteStyles: { string: c.selectedRemoteStyles } } : {})
          }
        : {})
    }
  }
}
