// The tile cache's stores (store.ts) in the embedded SQLite catalog database, on the tables of
// migrations.ts. Task ids come from an AUTOINCREMENT key, so they never repeat across restarts.
import { stringifyExact } from '../exact-json.js'
import { relaxedSync, type Db } from '../storage/database.js'
import { noFaults, type FaultPoint } from '../faults.js'
import type { SeedStore, TaskRecordStore, TileSetStore, TileSettingsStore } from './store.js'
import {
  dropMark, dropMarkValues, parameterSet, storedTask, tileSettings as tileSettingsRow, tileSettingsValues, unfinishedTask,
  type DropMarkRow, type ParameterSetRow, type TaskRow, type TileSettingsRow, type UnfinishedRow
} from './store-rows.js'

export function createSqliteSeedStore (db: Db, { fault = noFaults }: { fault?: FaultPoint } = {}): SeedStore {
  return { tasks: taskRecords(db, fault), tileSettings: tileSettings(db), tileSets: tileSets(db) }
}

function taskRecords (db: Db, fault: FaultPoint): TaskRecordStore {
  const q = {
    insert: db.prepare('INSERT INTO seed_tasks (state, layer, view, created_at, request, job) VALUES (?, ?, ?, ?, ?, ?)'),
    setJob: db.prepare('UPDATE seed_tasks SET job = ? WHERE id = ?'),
    update: db.prepare('UPDATE seed_tasks SET state = ?, view = ?, error = ?, finished_at = ?, killed = killed | ?, started_at = coalesce(started_at, ?) WHERE id = ?'),
    unfinished: db.prepare("SELECT id, job, view, request, killed, started_at FROM seed_tasks WHERE state IN ('pending', 'running') ORDER BY id"),
    abortOne: db.prepare("UPDATE seed_tasks SET state = 'aborted', error = ?, finished_at = ? WHERE id = ? AND state IN ('pending', 'running')"),
    get: db.prepare('SELECT id, state, view, error FROM seed_tasks WHERE id = ?'),
    abort: db.prepare("UPDATE seed_tasks SET state = 'aborted', error = ?, finished_at = ? WHERE state IN ('pending', 'running')"),
    prune: db.prepare(`DELETE FROM seed_tasks WHERE finished_at IS NOT NULL AND (finished_at < ? OR id NOT IN
      (SELECT id FROM seed_tasks WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT ?))`)
  }
  const create = db.transaction((tasks: Parameters<TaskRecordStore['create']>[0], request: string | undefined, at: number) => {
    const ids = tasks.map((t) => {
      fault('seed.taskRecordWrite')
      const id = Number(q.insert.run('pending', t.layer, stringifyExact(t.view), at, request ?? null, null).lastInsertRowid)
      fault('seed.afterTaskRecord')
      return id
    })
    for (const id of ids) q.setJob.run(ids[0], id)
    return ids
  })
  const save = db.transaction((items: Parameters<TaskRecordStore['save']>[0]) => {
    for (const { view, finishedAt, killed, startedAt } of items) {
      fault('seed.taskRecordWrite')
      q.update.run(view.state, stringifyExact(view), view.error ?? null, finishedAt ?? null, killed ? 1 : 0, startedAt ?? null, view.id)
      fault('seed.afterTaskRecord')
    }
  })
  return {
    async create (tasks, request, at) { return create(tasks, request, at) },
    // Progress of running tasks, once a second each, commits without an fsync on the event loop.
    async save (items, durable) { if (durable) save(items); else relaxedSync(db, () => save(items)) },
    async get (id) {
      const r = q.get.get(id) as TaskRow | undefined
      return r && storedTask(r)
    },
    async unfinished () { return (q.unfinished.all() as UnfinishedRow[]).map(unfinishedTask) },
    async abort (id, reason, at) { q.abortOne.run(reason, at, id) },
    async abortUnfinished (reason, at) { return q.abort.run(reason, at).changes },
    async prune (finishedBefore, keep) { q.prune.run(finishedBefore, keep) }
  }
}

function tileSettings (db: Db): TileSettingsStore {
  const q = {
    all: db.prepare('SELECT workspace, name, expire_cache, expire_clients, cached_only, cached_only_missing FROM tile_layer_settings ORDER BY workspace, name'),
    upsert: db.prepare(`INSERT INTO tile_layer_settings (workspace, name, expire_cache, expire_clients, cached_only, cached_only_missing)
      VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (workspace, name) DO UPDATE SET expire_cache = excluded.expire_cache,
      expire_clients = excluded.expire_clients, cached_only = excluded.cached_only, cached_only_missing = excluded.cached_only_missing`),
    remove: db.prepare('DELETE FROM tile_layer_settings WHERE workspace = ? AND name = ?')
  }
  return {
    async all () { return (q.all.all() as TileSettingsRow[]).map(tileSettingsRow) },
    async put (workspace, name, s) { q.upsert.run(workspace, name, ...tileSettingsValues(s)) },
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
