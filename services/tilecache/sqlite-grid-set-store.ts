// The SQLite custom grid sets (store.ts GridSetStore): one row per grid set.
import type { Db } from '../storage/sqlite/database.js'
import type { GridSetStore } from './store.js'

export function createSqliteGridSetStore (db: Db): GridSetStore {
  const q = {
    all: db.prepare('SELECT name, body FROM grid_sets ORDER BY name'),
    exists: db.prepare('SELECT 1 FROM grid_sets WHERE name = ?').pluck(),
    put: db.prepare(`INSERT INTO grid_sets (name, body, updated_at) VALUES (?, ?, ?)
      ON CONFLICT(name) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`),
    remove: db.prepare('DELETE FROM grid_sets WHERE name = ?')
  }
  const put = db.transaction((name: string, body: string): boolean => {
    const existed = q.exists.get(name) !== undefined
    q.put.run(name, body, new Date().toISOString())
    return !existed
  })
  return {
    async all () { return q.all.all() as Array<{ name: string, body: string }> },
    async put (name, body) { return put(name, body) },
    async remove (name) { return q.remove.run(name).changes > 0 }
  }
}
