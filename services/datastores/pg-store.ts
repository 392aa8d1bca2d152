// The PostgreSQL rows of PostGIS data stores, the counterpart of sqlite-store.ts, written through
// the catalog's row writer in one transaction per method. A new name is checked against the
// workspace's stores (exact, then under case folding) in that transaction; the primary key and the
// UNIQUE index on folded names refuse what a node creating the same name at that moment slipped
// past the check, and that is reported as the check reports it. Every write announces 'catalog'.
import type { PgClient, PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import { checkPgStoreName, createPgCatalogRowWriter } from '../catalog/pg-catalog-rows.js'
import { DataStoreExists } from '../errors.js'
import { dataStoreFromRow, type DataStoreRow, type DataStoreRows } from './store.js'

const fields = (row: DataStoreRow) => ({ workspace: row.workspace, name: row.name, config: JSON.stringify(row.config), enabled: row.enabled, description: row.description ?? null })

export function createPgDataStoreRows (db: PgDatabase): DataStoreRows {
  const rows = createPgCatalogRowWriter()
  const checkNew = async (c: PgClient, ws: string, name: string) => {
    const same = await c.query('SELECT 1 FROM stores WHERE workspace = $1 AND name = $2', [ws, name])
    if (same.rows.length > 0) throw DataStoreExists(name, ws)
    await checkPgStoreName(c, ws, name)
  }
  return {
    async get (ws, name) {
      const r = (await db.query('SELECT * FROM stores WHERE workspace = $1 AND name = $2', [ws, name])).rows[0]
      return r ? dataStoreFromRow(r) : undefined
    },
    async insert (row) {
      try {
        await db.transaction(async (c) => {
          await checkNew(c, row.workspace, row.name)
          await rows.insertStore(c, { workspace: row.workspace, name: row.name, kind: 'data', type: row.type, config: JSON.stringify(row.config), createdAt: row.createdAt })
          await rows.setStoreFields(c, fields(row))
          await notify(c, { topic: 'catalog', key: row.workspace })
        })
      } catch (err) {
        const e = err as { code?: string }
        if (e.code === '23505') await db.transaction((c) => checkNew(c, row.workspace, row.name))
        throw err
      }
    },
    async update (row) {
      await db.transaction(async (c) => {
        await rows.setStoreFields(c, fields(row))
        await notify(c, { topic: 'catalog', key: row.workspace })
      })
    },
    async delete (ws, name) {
      await db.transaction(async (c) => {
        await rows.deleteStore(c, ws, name)
        await notify(c, { topic: 'catalog', key: ws })
      })
    },
    async featureTypeCount (ws, name) {
      const r = await db.query<{ n: string }>("SELECT count(*) AS n FROM resources WHERE workspace = $1 AND store = $2 AND kind = 'featureType'", [ws, name])
      return Number(r.rows[0].n)
    }
  }
}
