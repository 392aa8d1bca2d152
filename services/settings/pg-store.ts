// The PostgreSQL global settings store: the counterpart of sqlite-store.ts. A change locks the row
// (created empty first if need be, in the same transaction), so two instances' changes apply one
// after the other; it announces 'global' so every instance re-reads the settings.
import type { PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import type { SettingsStore } from './store.js'

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
