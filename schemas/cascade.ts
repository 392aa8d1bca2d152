// Cascaded WMS and WMTS stores under {base}/rest/workspaces/<ws>/wmsstores and .../wmtsstores and
// their remote layers (GeoServer's WMSStoreInfo, WMTSStoreInfo, WMSLayerInfo, WMTSLayerInfo).
import { Type } from '@fastify/type-provider-typebox'
import { BooleanText, CreatedName, Empty, IntegerText, field, fields, namedList, representation, rootBody } from './common.js'

export const WsParams = Type.Object({ ws: Type.String() })
export const StoreParams = Type.Object({ ws: Type.String(), store: Type.String() })
export const LayerParams = Type.Object({ ws: Type.String(), store: Type.String(), layer: Type.String() })
export const WsLayerParams = Type.Object({ ws: Type.String(), layer: Type.String() })
export const DeleteQuery = Type.Object({ recurse: Type.Optional(Type.Boolean()) })
export const LayerListQuery = Type.Object({ list: Type.Optional(Type.String({ description: 'available: the remote layers not yet published (read from the remote\'s capabilities)' })) })

const storeFields = (root: string) => rootBody([root], fields({
  name: field('The store name (POST: required; PUT: cannot change, 403)', Type.String({ minLength: 1 })),
  description: field('Free text', Type.String()),
  type: field('WMS or WMTS, as the URL', Type.String()),
  enabled: field('false: the store\'s layers are not drawn (their requests answer 503)', BooleanText),
  workspace: field('The workspace of the URL', Type.Object({ name: Type.String() })),
  capabilitiesURL: field('The remote\'s GetCapabilities URL: http(s), its host on MAPWARDEN_CASCADE_HOSTS (else 400)', Type.String()),
  user: field('User for HTTP basic authentication at the remote', Type.String()),
  password: field('Stored sealed with the master key, shown only as its crypt2: token, kept on PUT unless sent ("" removes it)', Type.String()),
  maxConnections: field('Most requests to the remote at once (default 6)', IntegerText),
  readTimeout: field('Seconds without data before a call fails (default 60)', IntegerText),
  connectTimeout: field('Seconds until the remote answers (default 30)', IntegerText),
  useConnectionPooling: field('GeoServer\'s flag, kept and shown', BooleanText),
  disableOnConnFailure: field('true: while the remote cannot be reached the store\'s layers read as disabled (out of the capabilities, LayerNotDefined) until it answers again; default false', BooleanText)
}, 'Other fields are refused by name; the layers link, metadata, dateCreated and __default are accepted and ignored'))

export const WmsStoreBody = storeFields('wmsStore')
export const WmtsStoreBody = storeFields('wmtsStore')

const layerFields = (root: string) => rootBody([root], fields({
  name: field('The local layer name (POST: required)', Type.String({ minLength: 1 })),
  nativeName: field('The remote layer\'s name (default: name); it must be in the remote\'s capabilities', Type.String()),
  title: field('Default: the remote\'s title', Type.String()),
  abstract: field('Default: the remote\'s abstract', Type.String()),
  keywords: field('Keywords', Type.Object({ string: Type.Union([Type.String(), Type.Array(Type.String())]) })),
  srs: field('The declared CRS (default EPSG:4326)', Type.String()),
  latLonBoundingBox: field('Default: the remote\'s lon/lat bounds', Type.Object({ minx: Type.Any(), miny: Type.Any(), maxx: Type.Any(), maxy: Type.Any() }, { additionalProperties: true })),
  enabled: field('false: not drawn, not listed', BooleanText),
  preferredFormat: field('WMS: the format asked of the remote (default image/png); one the remote\'s GetMap offers', Type.String()),
  forcedRemoteStyle: field('WMS: the remote style asked when a request names none; one the remote offers for the layer', Type.String()),
  selectedRemoteStyles: field('WMS: the remote styles a GetMap may name in STYLES (default: all the remote offers)', Type.Object({ string: Type.Union([Type.String(), Type.Array(Type.String())]) })),
  selectedRemoteFormats: field('WMS: formats forwarded to the remote as the client asked them (others: preferredFormat)', Type.Object({ string: Type.Union([Type.String(), Type.Array(Type.String())]) }))
}, 'GeoServer\'s other wmsLayer fields (projectionPolicy, metadata...) are accepted and not applied; unknown ones are refused by name'))

export const WmsLayerBody = layerFields('wmsLayer')
export const WmtsLayerBody = layerFields('wmtsLayer')

const anyOf = (root: string, what: string) => representation(what, Type.Object({ [root]: Type.Object({ name: Type.String() }, { additionalProperties: true }) }))

export const responses = {
  created: { 201: CreatedName },
  done: { 200: Empty },
  wmsStores: { 200: representation('The WMS stores of the workspace', namedList('wmsStores', 'wmsStore')) },
  wmtsStores: { 200: representation('The WMTS stores of the workspace', namedList('wmtsStores', 'wmtsStore')) },
  wmsStore: { 200: anyOf('wmsStore', 'The WMS store (the password as its sealed token)') },
  wmtsStore: { 200: anyOf('wmtsStore', 'The WMTS store (the password as its sealed token)') },
  wmsLayers: { 200: representation('The WMS layers, or the remote names not yet published (list=available)', Type.Object({}, { additionalProperties: true })) },
  wmtsLayers: { 200: representation('The WMTS layers, or the remote names not yet published (list=available)', Type.Object({}, { additionalProperties: true })) },
  wmsLayer: { 200: anyOf('wmsLayer', 'The WMS layer') },
  wmtsLayer: { 200: anyOf('wmtsLayer', 'The WMTS layer') }
}
