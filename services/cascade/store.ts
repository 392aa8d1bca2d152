// The catalog rows of cascaded stores and their remote layers: a `stores` row (kind 'wms' or 'wmts',
// type 'WMS' or 'WMTS') whose config holds the capabilities URL, the user, the password sealed with
// the master key and the connection settings; a remote layer is a `resources` row (kind 'wmsLayer'
// or 'wmtsLayer', native_name the remote layer's name) and its `layers` row (type WMS or WMTS).
// Stores of every kind share one name space per workspace. Every method is one atomic unit of work.

export type CascadeKind = 'wms' | 'wmts'

export interface CascadeStoreConfig {
  capabilitiesURL: string
  user?: string
  /** A sealed `crypt2:` token, never the plain password. */
  password?: string
  maxConnections: number
  /** Seconds. */
  readTimeout: number
  /** Seconds. */
  connectTimeout: number
  useConnectionPooling: boolean
  disableOnConnFailure?: boolean
}

export interface CascadeStoreRow {
  workspace: string
  name: string
  kind: CascadeKind
  enabled: boolean
  description?: string
  createdAt: string
  config: CascadeStoreConfig
}

export interface CascadeLayerConfig {
  /** Marks the resource as a cascaded layer for the layer catalog's readers. */
  source: 'wms' | 'wmts'
  abstract?: string
  keywords?: string[]
  enabled: boolean
  /** The remote's bounds of the layer in its CRS (srs), when known. */
  nativeBbox?: [number, number, number, number]
  /** WMS: the remote's styles of the layer when it was published or last changed (STYLES is checked against them). */
  remoteStyles?: string[]
  /** WMS (GeoServer's WMSLayerInfo): the format asked of the remote (default image/png). */
  preferredFormat?: string
  /** WMS: the remote style asked when the request names none. */
  forcedRemoteStyle?: string
  /** WMS: the remote styles a request may name (empty: every style the remote offers). */
  selectedRemoteStyles?: string[]
  /** WMS: formats forwarded as the client asked them (others: preferredFormat). */
  selectedRemoteFormats?: string[]
}

export interface CascadeLayerRow {
  workspace: string
  store: string
  name: string
  kind: CascadeKind
  nativeName: string
  title?: string
  srs?: string
  /** Lon/lat bounds (EPSG:4326, lon first). */
  latLonBbox?: [number, number, number, number]
  config: CascadeLayerConfig
}

export interface CascadeRows {
  /** Any store of the workspace with that exact name (the caller checks the kind). */
  getStore (ws: string, name: string): Promise<{ kind: string } & Partial<CascadeStoreRow> | undefined>
  listStores (ws: string, kind: CascadeKind): Promise<CascadeStoreRow[]>
  /** Throws CascadeStoreExists or StoreNameClash when the name is taken (exactly, under case folding). */
  insertStore (row: CascadeStoreRow): Promise<void>
  updateStore (row: CascadeStoreRow): Promise<void>
  /** Removes the store and its layers (by cascade). */
  deleteStore (ws: string, name: string): Promise<void>
  listLayers (ws: string, store?: string): Promise<CascadeLayerRow[]>
  getLayer (ws: string, name: string): Promise<CascadeLayerRow | undefined>
  /** Inserts the resource and its published layer; throws CascadeLayerExists when the workspace has a resource of that name. */
  insertLayer (row: CascadeLayerRow): Promise<void>
  updateLayer (row: CascadeLayerRow): Promise<void>
  deleteLayer (ws: string, name: string): Promise<void>
}

/** The remote styles a GetMap may name for a cascaded WMS layer. */
export function remoteStylesOf (config: CascadeLayerConfig): string[] {
  return config.selectedRemoteStyles ?? config.remoteStyles ?? []
}

/** GeoServer's name of a cascaded store's type, which is also its layers' type (PublishedType). */
export const storeType = (kind: CascadeKind) => kind === 'wms' ? 'WMS' : 'WMTS'
/** The catalog's resource kind of a published remote layer. */
export const resourceKind = (kind: CascadeKind) => kind === 'wms' ? 'wmsLayer' : 'wmtsLayer'

export function cascadeStoreFromRow (r: any): CascadeStoreRow {
  return {
    workspace: r.workspace,
    name: r.name,
    kind: r.kind,
    enabled: Number(r.enabled) === 1,
    ...(r.description !== null && r.description !== undefined ? { description: r.description } : {}),
    createdAt: r.created_at,
    config: JSON.parse(r.config)
  }
}

export function cascadeLayerFromRow (r: any): CascadeLayerRow {
  return {
    workspace: r.workspace,
    store: r.store,
    name: r.name,
    kind: r.kind === 'wmsLayer' ? 'wms' : 'wmts',
    nativeName: r.native_name,
    ...(r.title !== null && r.title !== undefined ? { title: r.title } : {}),
    ...(r.srs !== null && r.srs !== undefined ? { srs: r.srs } : {}),
    ...(r.bbox ? { latLonBbox: JSON.parse(r.bbox) } : {}),
    config: JSON.parse(r.config)
  }
}

/** A store row's columns as the catalog's row writers take them (both backends). */
export const storeFields = (row: CascadeStoreRow) => ({ workspace: row.workspace, name: row.name, config: JSON.stringify(row.config), enabled: row.enabled, description: row.description ?? null })
/** A published remote layer's resource columns as the catalog's row writers take them. */
export const resourceFields = (row: CascadeLayerRow) => ({
  workspace: row.workspace,
  store: row.store,
  name: row.name,
  title: row.title ?? null,
  srs: row.srs ?? null,
  bbox: row.latLonBbox ? JSON.stringify(row.latLonBbox) : null,
  config: JSON.stringify(row.config)
})

export const LAYER_COLUMNS = "SELECT workspace, store, name, kind, native_name, title, srs, bbox, config FROM resources WHERE kind IN ('wmsLayer', 'wmtsLayer')"
