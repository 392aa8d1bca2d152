// The SQLite global settings store.
import type { Db } from '../storage/sqlite/database.js'
import type { SettingsStore } from './store.js'

export function createSqliteSettingsStore (db: Db): SettingsStore {
  const q = {
    read: db.prepare("SELECT body FROM global_settings WHERE id = 'global'").pluck(),
    write: db.prepare(`INSERT INTO global_settings (id, body, updated_at) VALUES ('global', ?, ?)
      ON CONFLICT(id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`)
  }
  const change = db.transaction((apply: (stored: string | undefined) => string) => {
    const body = apply(q.read.get() as string | undefined)
    q.write.run(body, new Date().toISOString())
    return body
  })
  return {
    async read () { return q.read.get() as string | undefined },
    async change (apply) { return change(apply) }
  }
}
