// The row mapping of the tile cache's stores (store.ts), shared by the SQLite (sqlite-store.ts) and
// PostgreSQL (pg-store.ts) implementations: one table definition, one reading of its rows.
import { parseExact } from '../exact-json.js'
import type { BBox } from '../tilecache/grid-sets.js'
import type { GridSubsetSetting, TileLayerSettings } from '../tilecache/layer-settings.js'
import type { ParameterFilterSetting, ParameterSet } from '../tilecache/parameters.js'
import type { TaskView } from './task.js'
import type { StoredTask } from './store.js'
import type { DropMark } from '../tilecache/store.js'

export interface TaskRow { id: number, state: TaskView['state'], view: string, error: string | null }
export interface TileSettingsRow {
  workspace: string
  name: string
  expire_cache: number
  expire_clients: number
  cached_only: number
  cached_only_missing: TileLayerSettings['cachedOnlyMissing']
  grid_subsets: string | null
  blob_store_id: string | null
  parameter_filters: string | null
}
export interface ParameterSetRow { parameter_id: string, parameters: string }
export interface DropMarkRow { id: number, layer: string, parameter_id: string | null, area: string | null, before_ms: number, reason: string }

/** The columns of tile_layer_settings after (workspace, name), as written. */
export function tileSettingsValues (s: TileLayerSettings): [number, number, number, string, string | null, string | null, string | null] {
  return [s.expireCache, s.expireClients, s.cachedOnly ? 1 : 0, s.cachedOnlyMissing, s.gridSubsets ? JSON.stringify(s.gridSubsets) : null, s.blobStoreId ?? null,
    s.parameterFilters ? JSON.stringify(s.parameterFilters) : null]
}

/** The columns of tile_drops after its id, as written. */
export function dropMarkValues (m: DropMark): [string, string | null, string | null, number, string] {
  return [m.layer, m.parameterId ?? null, m.area ? JSON.stringify(m.area) : null, m.before, m.reason]
}

export const storedTask = (r: TaskRow): StoredTask =>
  ({ id: r.id, state: r.state, view: parseExact(r.view) as TaskView, error: r.error ?? undefined })

export const tileSettings = (r: TileSettingsRow): { workspace: string, name: string, settings: TileLayerSettings } => ({
  workspace: r.workspace,
  name: r.name,
  settings: {
    expireCache: r.expire_cache,
    expireClients: r.expire_clients,
    cachedOnly: r.cached_only === 1,
    cachedOnlyMissing: r.cached_only_missing,
    ...(r.grid_subsets ? { gridSubsets: JSON.parse(r.grid_subsets) as GridSubsetSetting[] } : {}),
    ...(r.blob_store_id ? { blobStoreId: r.blob_store_id } : {}),
    ...(r.parameter_filters ? { parameterFilters: JSON.parse(r.parameter_filters) as ParameterFilterSetting[] } : {})
  }
})

export const parameterSet = (layer: string, r: ParameterSetRow): { layer: string, parameterId: string, parameters: ParameterSet } =>
  ({ layer, parameterId: r.parameter_id, parameters: JSON.parse(r.parameters) })

export const dropMark = (r: DropMarkRow): DropMark & { id: number } => ({
  id: r.id, layer: r.layer, parameterId: r.parameter_id ?? undefined, area: r.area ? JSON.parse(r.area) as BBox : undefined, before: r.before_ms, reason: r.reason
})
