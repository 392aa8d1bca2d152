// The tile cache's stores (store.ts) in the embedded SQLite catalog database, on the tables of
// migrations.ts. Task ids come from an AUTOINCREMENT key (storage/sqlite/job-store.ts inserts the
// tasks), so they never repeat across restarts.
import type { Db } from '../storage/sqlite/database.js'
import type { SeedStore, TaskRecordStore } from './store.js'
import type { TileSetStore, TileSettingsStore } from '../tilecache/store.js'
import type { TaskState } from './task.js'
import type { TileLayerSettings } from '../tilecache/layer-settings.js'
import { BlobStoreInvalid } from '../errors.js'
import {
  dropMark, dropMarkValues, parameterSet, storedTask, tileSettings as tileSettingsRow, tileSettingsValues,
  type DropMarkRow, type ParameterSetRow, type TaskRow, type TileSettingsRow
} from './store-rows.js'

export function createSqliteSeedStore (db: Db): SeedStore {
  return { tasks: taskRecords(db), tileSettings: tileSettings(db), tileSets: tileSets(db) }
}

function taskRecords (db: Db): TaskRecordStore {
  const q = {
    get: db.prepare('SELECT id, state, view, error FROM seed_tasks WHERE id = ?'),
    countByState: db.prepare('SELECT state, count(*) AS count FROM seed_tasks GROUP BY state'),
    prune: db.prepare(`DELETE FROM seed_tasks WHERE finished_at IS NOT NULL AND (finished_at < ? OR id NOT IN
      (SELECT id FROM seed_tasks WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT ?))`)
  }
  return {
    async get (id) {
      const r = q.get.get(id) as TaskRow | undefined
      return r && storedTask(r)
    },
    async countByState () { return q.countByState.all() as Array<{ state: TaskState, count: number }> },
    async prune (finishedBefore, keep) { q.prune.run(finishedBefore, keep) }
  }
}

function tileSettings (db: Db): TileSettingsStore {
  const q = {
    all: db.prepare('SELECT workspace, name, expire_cache, expire_clients, cached_only, cached_only_missing, grid_subsets, blob_store_id, parameter_filters FROM tile_layer_settings ORDER BY workspace, name'),
    upsert: db.prepare(`INSERT INTO tile_layer_settings (workspace, name, expire_cache, expire_clients, cached_only, cached_only_missing, grid_subsets, blob_store_id, parameter_filters)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (workspace, name) DO UPDATE SET expire_cache = excluded.expire_cache,
      expire_clients = excluded.expire_clients, cached_only = excluded.cached_only, cached_only_missing = excluded.cached_only_missing,
      grid_subsets = excluded.grid_subsets, blob_store_id = excluded.blob_store_id, parameter_filters = excluded.parameter_filters`),
    remove: db.prepare('DELETE FROM tile_layer_settings WHERE workspace = ? AND name = ?')
  }
  // The blob store named is checked in the write's transaction, so a removal that ran since the
  // caller looked (blob-store-registry.ts) is not undone by a row naming it (pg-store.ts alike).
  let storeExists: ReturnType<Db['prepare']> | undefined
  const put = db.transaction((workspace: string, name: string, s: TileLayerSettings) => {
    if (s.blobStoreId !== undefined) {
      storeExists ??= db.prepare('SELECT 1 FROM blob_stores WHERE id = ?')
      if (storeExists.get(s.blobStoreId) === undefined) throw BlobStoreInvalid('blobStoreId', JSON.stringify(s.blobStoreId), 'there is no blob store of that id (GET gwc/rest/blobstores lists them)')
    }
    q.upsert.run(workspace, name, ...tileSettingsValues(s))
  })
  return {
    async all () { return (q.all.all() as TileSettingsRow[]).map(tileSettingsRow) },
    async put (workspace, name, s) { put(workspace, name, s) },
    async remove (workspace, name) { q.remove.run(workspace, name) }
  }
}

function tileSets (db: Db): TileSetStore {
  const q = {
    addSet: db.prepare('INSERT OR IGNORE INTO tile_parameter_sets (layer, parameter_id, parameters) VALUES (?, ?, ?)'),
    sets: db.prepare('SELECT parameter_id, parameters FROM tile_parameter_sets WHERE layer = ? ORDER BY parameter_id'),
    removeSets: db.prepare('DELETE FROM tile_parameter_sets WHERE layer = ?'),
    addMark: db.prepare('INSERT INTO tile_drops (layer, parameter_id, area, before_ms, reason) VALUES (?, ?, ?, ?, ?)'),
    clearMark: db.prepare('DELETE FROM tile_drops WHERE id = ?'),
    marks: db.prepare('SELECT id, layer, parameter_id, area, before_ms, reason FROM tile_drops ORDER BY id')
  }
  return {
    async addSet (layer, parameterId, parameters) { q.addSet.run(layer, parameterId, JSON.stringify(parameters)) },
    async sets (layers) {
      return layers.flatMap((layer) => (q.sets.all(layer) as ParameterSetRow[]).map((r) => parameterSet(layer, r)))
    },
    async removeSets (layer) { q.removeSets.run(layer) },
    async addMark (m) { return Number(q.addMark.run(...dropMarkValues(m)).lastInsertRowid) },
    async clearMark (id) { q.clearMark.run(id) },
    async marks () { return (q.marks.all() as DropMarkRow[]).map(dropMark) }
  }
}
