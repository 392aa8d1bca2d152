// The PostgreSQL global and service settings stores: the counterparts of sqlite-store.ts. A change
// locks its row (created empty first if need be, in the same transaction), so two instances' changes
// apply one after the other; it announces 'global' or 'services' so every instance re-reads them.
import type { PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import type { ServiceSettingsStore, SettingsStore } from './store.js'

export function createPgSettingsStore (db: PgDatabase): SettingsStore {
  return {
    async read () {
      return (await db.query<{ body: string }>("SELECT body FROM global_settings WHERE id = 'global'")).rows[0]?.body
    },
    async change (apply) {
      return await db.transaction(async (c) => {
        const at = new Date().toISOString()
        const created = await c.query("INSERT INTO global_settings (id, body, updated_at) VALUES ('global', '', $1) ON CONFLICT (id) DO NOTHING", [at])
        const stored = (await c.query<{ body: string }>("SELECT body FROM global_settings WHERE id = 'global' FOR UPDATE")).rows[0].body
        const body = apply(created.rowCount === 1 || stored === '' ? undefined : stored)
        await c.query("UPDATE global_settings SET body = $1, updated_at = $2 WHERE id = 'global'", [body, at])
        await notify(c, { topic: 'global' })
        return body
      })
    }
  }
}

export function createPgServiceSettingsStore (db: PgDatabase): ServiceSettingsStore {
  return {
    async readAll () {
      return (await db.query<{ service: string, workspace: string, body: string }>(
        "SELECT service, workspace, body FROM service_settings WHERE body <> '' ORDER BY service, workspace")).rows
    },
    async change (service, workspace, apply) {
      return await db.transaction(async (c) => {
        const at = new Date().toISOString()
        const created = await c.query("INSERT INTO service_settings (service, workspace, body, updated_at) VALUES ($1, $2, '', $3) ON CONFLICT (service, workspace) DO NOTHING",
          [service, workspace, at])
        const stored = (await c.query<{ body: string }>('SELECT body FROM service_settings WHERE service = $1 AND workspace = $2 FOR UPDATE', [service, workspace])).rows[0].body
        const body = apply(created.rowCount === 1 || stored === '' ? undefined : stored)
        await c.query('UPDATE service_settings SET body = $1, updated_at = $2 WHERE service = $3 AND workspace = $4', [body, at, service, workspace])
        await notify(c, { topic: 'services' })
        return body
      })
    },
    async remove (service, workspace) {
      return await db.transaction(async (c) => {
        const r = service === undefined
          ? await c.query("DELETE FROM service_settings WHERE workspace = $1 AND workspace <> ''", [workspace])
          : await c.query('DELETE FROM service_settings WHERE service = $1 AND workspace = $2', [service, workspace])
        if ((r.rowCount ?? 0) > 0) await notify(c, { topic: 'services' })
        return (r.rowCount ?? 0) > 0
      })
    }
  }
}
