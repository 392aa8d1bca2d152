// The tile cache's stores (store.ts) in the shared PostgreSQL catalog, on the tables of
// migrations.ts as schema.ts translates them; the counterpart of sqlite-store.ts, with its row
// mapping (store-rows.ts). Task ids come from the identity column (storage/pg/cluster-store.ts
// inserts the tasks): unique across every node sharing the database and never handed out twice.
// Tile settings, tile sets and drop marks are cached by every node: their writes announce 'tiles'.
import type { PgClient, PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import type { SeedStore, TaskRecordStore } from './store.js'
import type { TileSetStore, TileSettingsStore } from '../tilecache/store.js'
import type { TaskState } from './task.js'
import { BlobStoreInvalid } from '../errors.js'
import {
  dropMark, dropMarkValues, parameterSet, storedTask, tileSettings as tileSettingsRow, tileSettingsValues,
  type DropMarkRow, type ParameterSetRow, type TaskRow, type TileSettingsRow
} from './store-rows.js'

export function createPgSeedStore (db: PgDatabase): SeedStore {
  return { tasks: taskRecords(db), tileSettings: tileSettings(db), tileSets: tileSets(db) }
}


function taskRecords (db: PgDatabase): TaskRecordStore {
  return {
    async get (id) {
      const r = await db.query<TaskRow>('SELECT id, state, view, error FROM seed_tasks WHERE id = $1', [id])
      return r.rows[0] && storedTask(r.rows[0])
    },
    async countByState () {
      return (await db.query<{ state: TaskState, count: number }>('SELECT state, count(*)::int AS count FROM seed_tasks GROUP BY state')).rows
    },
    async prune (finishedBefore, keep) {
      await db.query(`DELETE FROM seed_tasks WHERE finished_at IS NOT NULL AND (finished_at < $1 OR id NOT IN
        (SELECT id FROM seed_tasks WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT $2))`, [finishedBefore, keep])
    }
  }
}

/** Announces a change of a layer's tile settings, tile sets or drops, when something changed. */
async function changed (c: PgClient, rows: number | null, layer: string): Promise<void> {
  if ((rows ?? 0) > 0) await notify(c, { topic: 'tiles', key: layer })
}

function tileSettings (db: PgDatabase): TileSettingsStore {
  return {
    async all () {
      const r = await db.query<TileSettingsRow>(`SELECT workspace, name, expire_cache, expire_clients, cached_only, cached_only_missing, grid_subsets, blob_store_id, parameter_filters
        FROM tile_layer_settings ORDER BY workspace COLLATE "C", name COLLATE "C"`)
      return r.rows.map(tileSettingsRow)
    },
    async put (workspace, name, s) {
      await db.transaction(async (c) => {
        // The blob store named is held until this commits, so its removal (pg-blob-store-store.ts,
        // which locks the row first) sees this layer among its users, or this sees it gone.
        if (s.blobStoreId !== undefined && (await c.query('SELECT 1 FROM blob_stores WHERE id = $1 FOR SHARE', [s.blobStoreId])).rows.length === 0) throw BlobStoreInvalid('blobStoreId', JSON.stringify(s.blobStoreId), 'there is no blob store of that id (GET gwc/rest/blobstores lists them)')
        const r = await c.query(`INSERT INTO tile_layer_settings (workspace, name, expire_cache, expire_clients, cached_only, cached_only_missing, grid_subsets, blob_store_id, parameter_filters)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (workspace, name) DO UPDATE SET expire_cache = EXCLUDED.expire_cache,
          expire_clients = EXCLUDED.expire_clients, cached_only = EXCLUDED.cached_only, cached_only_missing = EXCLUDED.cached_only_missing,
          grid_subsets = EXCLUDED.grid_subsets, blob_store_id = EXCLUDED.blob_store_id, parameter_filters = EXCLUDED.parameter_filters`,
        [workspace, name, ...tileSettingsValues(s)])
        await changed(c, r.rowCount, `${workspace}:${name}`)
      })
    },
    async remove (workspace, name) {
      await db.transaction(async (c) => {
        const r = await c.query('DELETE FROM tile_layer_settings WHERE workspace = $1 AND name = $2', [workspace, name])
        await changed(c, r.rowCount, `${workspace}:${name}`)
      })
    }
  }
}

function tileSets (db: PgDatabase): TileSetStore {
  return {
    async addSet (layer, parameterId, parameters) {
      await db.transaction(async (c) => {
        const r = await c.query('INSERT INTO tile_parameter_sets (layer, parameter_id, parameters) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
          [layer, parameterId, JSON.stringify(parameters)])
        await changed(c, r.rowCount, layer)
      })
    },
    async sets (layers) {
      if (layers.length === 0) return []
      const r = await db.query<ParameterSetRow & { layer: string }>(`SELECT layer, parameter_id, parameters FROM tile_parameter_sets
        WHERE layer = ANY($1::text[]) ORDER BY parameter_id COLLATE "C"`, [layers])
      // In the order of `layers`, as the SQLite store reads them (one layer after the other).
      return layers.flatMap((layer) => r.rows.filter((row) => row.layer === layer).map((row) => parameterSet(layer, row)))
    },
    async removeSets (layer) {
      await db.transaction(async (c) => {
        const r = await c.query('DELETE FROM tile_parameter_sets WHERE layer = $1', [layer])
        await changed(c, r.rowCount, layer)
      })
    },
    async addMark (m) {
      return await db.transaction(async (c) => {
        const r = await c.query<{ id: number }>('INSERT INTO tile_drops (layer, parameter_id, area, before_ms, reason) VALUES ($1, $2, $3, $4, $5) RETURNING id',
          dropMarkValues(m))
        await changed(c, r.rowCount, m.layer)
        return r.rows[0].id
      })
    },
    async clearMark (id) {
      await db.transaction(async (c) => {
        const r = await c.query<{ layer: string }>('DELETE FROM tile_drops WHERE id = $1 RETURNING layer', [id])
        if (r.rows[0]) await changed(c, r.rowCount, r.rows[0].layer)
      })
    },
    async marks () {
      const r = await db.query<DropMarkRow>('SELECT id, layer, parameter_id, area, before_ms, reason FROM tile_drops ORDER BY id')
      return r.rows.map(dropMark)
    }
  }
}
