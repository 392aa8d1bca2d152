// The PostgreSQL custom grid sets: the counterpart of sqlite-grid-set-store.ts. Every change
// announces 'gridsets' in its transaction, so every instance re-reads them once it commits.
import type { PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import type { GridSetStore } from './store.js'

export function createPgGridSetStore (db: PgDatabase): GridSetStore {
  return {
    async all () {
      return (await db.query<{ name: string, body: string }>('SELECT name, body FROM grid_sets ORDER BY name')).rows
    },
    async put (name, body) {
      return await db.transaction(async (c) => {
        // xmax = 0: the row was inserted by this statement, not updated.
        const r = await c.query<{ created: boolean }>(`INSERT INTO grid_sets (name, body, updated_at) VALUES ($1, $2, $3)
          ON CONFLICT (name) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at
          RETURNING (xmax = 0) AS created`, [name, body, new Date().toISOString()])
        await notify(c, { topic: 'gridsets', key: name })
        return r.rows[0].created
      })
    },
    async remove (name) {
      return await db.transaction(async (c) => {
        const r = await c.query('DELETE FROM grid_sets WHERE name = $1', [name])
        if ((r.rowCount ?? 0) > 0) await notify(c, { topic: 'gridsets', key: name })
        return (r.rowCount ?? 0) > 0
      })
    }
  }
}
