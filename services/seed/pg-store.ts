// The tile cache's stores (store.ts) in the shared PostgreSQL catalog, on the tables of
// migrations.ts as schema.ts translates them; the counterpart of sqlite-store.ts, with its row
// mapping (store-rows.ts). Task ids come from the identity column: unique across every node sharing
// the database and never handed out twice. Several nodes may write the same task at once: each
// write is one UPDATE whose new values are computed from the row it locks (the kill flag and the
// start time are never lost to a concurrent write), and a transaction locks its tasks in id order.
// Tile settings, tile sets and drop marks are cached by every node: their writes announce 'tiles'.
import { stringifyExact } from '../exact-json.js'
import { noFaults, type FaultPoint } from '../faults.js'
import type { PgClient, PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import type { SeedStore, TaskRecordStore, TileSetStore, TileSettingsStore } from './store.js'
import {
  dropMark, dropMarkValues, parameterSet, storedTask, tileSettings as tileSettingsRow, tileSettingsValues, unfinishedTask,
  type DropMarkRow, type ParameterSetRow, type TaskRow, type TileSettingsRow, type UnfinishedRow
} from './store-rows.js'

export function createPgSeedStore (db: PgDatabase, { fault = noFaults }: { fault?: FaultPoint } = {}): SeedStore {
  return { tasks: taskRecords(db, fault), tileSettings: tileSettings(db), tileSets: tileSets(db) }
}

const UNFINISHED = "state IN ('pending', 'running')"

function taskRecords (db: PgDatabase, fault: FaultPoint): TaskRecordStore {
  return {
    async create (tasks, request, at) {
      return await db.transaction(async (c) => {
        const ids: number[] = []
        for (const t of tasks) {
          fault('seed.taskRecordWrite')
          const r = await c.query<{ id: number }>("INSERT INTO seed_tasks (state, layer, view, created_at, request, job) VALUES ('pending', $1, $2, $3, $4, NULL) RETURNING id",
            [t.layer, stringifyExact(t.view), at, request ?? null])
          ids.push(r.rows[0].id)
          fault('seed.afterTaskRecord')
        }
        if (ids.length > 0) await c.query('UPDATE seed_tasks SET job = $1 WHERE id = ANY($2::bigint[])', [ids[0], ids])
        return ids
      })
    },
    // Progress of running tasks, once a second each: the commit does not wait for the WAL flush
    // (SQLite's relaxedSync): it survives a crash of the server process, not of its machine.
    async save (items, durable) {
      // In id order (stable: the later of two writes of one task still wins), so that two nodes
      // saving the same tasks lock them in the same order.
      const ordered = items.map((item, i) => ({ item, i })).sort((a, b) => a.item.view.id - b.item.view.id || a.i - b.i).map((x) => x.item)
      await db.transaction(async (c) => {
        if (!durable) await c.query('SET LOCAL synchronous_commit = off')
        for (const { view, finishedAt, killed, startedAt } of ordered) {
          fault('seed.taskRecordWrite')
          await c.query(`UPDATE seed_tasks SET state = $1, view = $2, error = $3, finished_at = $4, killed = killed | $5,
            started_at = COALESCE(started_at, $6) WHERE id = $7`,
          [view.state, stringifyExact(view), view.error ?? null, finishedAt ?? null, killed ? 1 : 0, startedAt ?? null, view.id])
          fault('seed.afterTaskRecord')
        }
      })
    },
    async get (id) {
      const r = await db.query<TaskRow>('SELECT id, state, view, error FROM seed_tasks WHERE id = $1', [id])
      return r.rows[0] && storedTask(r.rows[0])
    },
    async unfinished () {
      const r = await db.query<UnfinishedRow>(`SELECT id, job, view, request, killed, started_at FROM seed_tasks WHERE ${UNFINISHED} ORDER BY id`)
      return r.rows.map(unfinishedTask)
    },
    async abort (id, reason, at) {
      await db.query(`UPDATE seed_tasks SET state = 'aborted', error = $1, finished_at = $2 WHERE id = $3 AND ${UNFINISHED}`, [reason, at, id])
    },
    async abortUnfinished (reason, at) {
      const r = await db.query(`UPDATE seed_tasks SET state = 'aborted', error = $1, finished_at = $2 WHERE ${UNFINISHED}`, [reason, at])
      return r.rowCount ?? 0
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
      const r = await db.query<TileSettingsRow>(`SELECT workspace, name, expire_cache, expire_clients, cached_only, cached_only_missing
        FROM tile_layer_settings ORDER BY workspace COLLATE "C", name COLLATE "C"`)
      return r.rows.map(tileSettingsRow)
    },
    async put (workspace, name, s) {
      await db.transaction(async (c) => {
        const r = await c.query(`INSERT INTO tile_layer_settings (workspace, name, expire_cache, expire_clients, cached_only, cached_only_missing)
          VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (workspace, name) DO UPDATE SET expire_cache = EXCLUDED.expire_cache,
          expire_clients = EXCLUDED.expire_clients, cached_only = EXCLUDED.cached_only, cached_only_missing = EXCLUDED.cached_only_missing`,
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
