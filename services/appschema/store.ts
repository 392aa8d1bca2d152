// The app-schema rows of the shared catalog: a `stores` row (kind 'data', type
// 'Application Schema DataAccess'), one `resources` row (kind 'featureType') and one `layers` row
// (type 'VECTOR') per configured feature type. Every method is one atomic unit of work.
import type { AttributeInfo } from './schemas.js'
import type { Bbox } from './properties.js'
import type { SourceStore } from './mapping.js'

export const STORE_TYPE = 'Application Schema DataAccess'

export interface StoreConfig {
  /** `file:` URL of the stored main mapping file. */
  url: string
  /** Workspace namespace URI at upload time. */
  namespace: string
  /** Data-dir-relative directory holding this version of the files. */
  dir: string
  mainFile: string
  /** Feature types the mapping exposes (main-file mappings, in order). */
  featureTypeNames: string[]
  /** Those of featureTypeNames whose schema declares a geometry property. */
  geometryNames?: string[]
  sources: SourceStore[]
}

export interface StoreRow {
  workspace: string
  name: string
  kind: string
  type: string
  enabled: boolean
  config: StoreConfig
}

export interface FeatureTypeConfig {
  targetElement: string
  namespaceUri: string
  sourceDataStore: string
  sourceType: string
  nativeBbox?: Bbox
  /** The XPath of the mapped geometry (a source geometry column): the type is drawn as a map layer. */
  mappedGeometry?: string
  attributes: AttributeInfo[]
}

export interface FeatureTypeRow {
  workspace: string
  store: string
  name: string
  nativeName: string
  title: string
  srs?: string
  /** lon/lat bounds */
  bbox?: Bbox
  config: FeatureTypeConfig
}

export interface AppSchemaStore {
  getStore (ws: string, name: string): Promise<StoreRow | undefined>
  /** Names of the workspace's data stores of every type. */
  dataStoreNames (ws: string): Promise<string[]>
  appSchemaStores (): Promise<StoreRow[]>
  featureTypes (ws: string, store: string): Promise<FeatureTypeRow[]>
  featureType (ws: string, store: string, name: string): Promise<FeatureTypeRow | undefined>
  /** The store owning a resource name in the workspace, if any (names are unique per workspace). */
  resourceOwner (ws: string, name: string): Promise<string | undefined>
  /** Throws StoreNameClash when another store's name equals `name` under case folding. */
  checkNewStoreName (ws: string, name: string): Promise<void>
  /**
   * Writes the store and its feature types (with their layers) in one unit. Creating a store
   * throws StoreNameClash when another store's name equals it under case folding.
   */
  save (ws: string, name: string, config: StoreConfig, create: boolean, fts: { insert: FeatureTypeRow[], update: FeatureTypeRow[] }): Promise<void>
  /** Removes the store; its feature types and layers go with it. */
  deleteStore (ws: string, name: string): Promise<void>
}
