// The catalog rows of PostGIS data stores: a `stores` row (kind 'data', type 'PostGIS') whose config
// holds the connection parameters (the password sealed with the master key) and GeoServer's
// disableOnConnFailure. Stores of every kind share one name space per workspace (the stores table's
// key and its folded-name check). Every method is one atomic unit of work.
import type { Params } from './params.js'

export const POSTGIS_TYPE = 'PostGIS'

export interface DataStoreConfig {
  /** Connection parameters in the order given; `passwd` is a sealed `crypt2:` token. */
  connectionParameters: Params
  disableOnConnFailure?: boolean
}

export interface DataStoreRow {
  workspace: string
  name: string
  kind: string
  type: string
  enabled: boolean
  description?: string
  createdAt: string
  config: DataStoreConfig
}

export interface DataStoreRows {
  /** Any store of the workspace with that exact name (the caller checks kind and type). */
  get (ws: string, name: string): Promise<DataStoreRow | undefined>
  /**
   * Inserts a new store; throws DataStoreExists when the name is taken by a store of any kind, and
   * StoreNameClash when another store's name equals it under case folding.
   */
  insert (row: DataStoreRow): Promise<void>
  /** Config, enabled and description of an existing store. */
  update (row: DataStoreRow): Promise<void>
  /** Removes the store; its feature types and layers go with it (by cascade). */
  delete (ws: string, name: string): Promise<void>
  /** Number of feature types configured on the store. */
  featureTypeCount (ws: string, name: string): Promise<number>
}

export function dataStoreFromRow (r: any): DataStoreRow {
  return {
    workspace: r.workspace,
    name: r.name,
    kind: r.kind,
    type: r.type,
    enabled: Number(r.enabled) === 1,
    ...(r.description !== null && r.description !== undefined ? { description: r.description } : {}),
    createdAt: r.created_at,
    config: JSON.parse(r.config)
  }
}
