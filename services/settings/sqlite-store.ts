// The SQLite global and service settings stores.
import type { Db } from '../storage/sqlite/database.js'
import type { ServiceSettingsRow, ServiceSettingsStore, SettingsStore } from './store.js'

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

export function createSqliteServiceSettingsStore (db: Db): ServiceSettingsStore {
  const q = {
    all: db.prepare('SELECT service, workspace, body FROM service_settings ORDER BY service, workspace'),
    read: db.prepare('SELECT body FROM service_settings WHERE service = ? AND workspace = ?').pluck(),
    write: db.prepare(`INSERT INTO service_settings (service, workspace, body, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT(service, workspace) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`),
    remove: db.prepare('DELETE FROM service_settings WHERE service = ? AND workspace = ?'),
    removeWorkspace: db.prepare("DELETE FROM service_settings WHERE workspace = ? AND workspace <> ''")
  }
  const change = db.transaction((service: string, workspace: string, apply: (stored: string | undefined) => string) => {
    const body = apply(q.read.get(service, workspace) as string | undefined)
    q.write.run(service, workspace, body, new Date().toISOString())
    return body
  })
  return {
    async readAll () { return q.all.all() as ServiceSettingsRow[] },
    async change (service, workspace, apply) { return change(service, workspace, apply) },
    async remove (service, workspace) {
      return (service === undefined ? q.removeWorkspace.run(workspace) : q.remove.run(service, workspace)).changes > 0
    }
  }
}
