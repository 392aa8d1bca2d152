// The SQLite rows of PostGIS data stores, written through the catalog's row writer.
import type { Db } from '../storage/sqlite/database.js'
import { checkStoreName } from '../catalog/sqlite-store.js'
import { createCatalogRowWriter } from '../catalog/sqlite-catalog-rows.js'
import { DataStoreExists } from '../errors.js'
import { dataStoreFromRow, type DataStoreRow, type DataStoreRows } from './store.js'

const fields = (row: DataStoreRow) => ({ workspace: row.workspace, name: row.name, config: JSON.stringify(row.config), enabled: row.enabled, description: row.description ?? null })

export function createSqliteDataStoreRows (db: Db): DataStoreRows {
  const rows = createCatalogRowWriter(db)
  const q = {
    get: db.prepare('SELECT * FROM stores WHERE workspace = ? AND name = ?'),
    fts: db.prepare("SELECT count(*) FROM resources WHERE workspace = ? AND store = ? AND kind = 'featureType'").pluck()
  }
  const insert = db.transaction((row: DataStoreRow) => {
    if (q.get.get(row.workspace, row.name) !== undefined) throw DataStoreExists(row.name, row.workspace)
    checkStoreName(db, row.workspace, row.name)
    rows.insertStore({ workspace: row.workspace, name: row.name, kind: 'data', type: row.type, config: JSON.stringify(row.config), createdAt: row.createdAt })
    rows.setStoreFields(fields(row))
  })
  return {
    async get (ws, name) {
      const r = q.get.get(ws, name)
      return r ? dataStoreFromRow(r) : undefined
    },
    async insert (row) { insert(row) },
    async update (row) { rows.setStoreFields(fields(row)) },
    async delete (ws, name) { rows.deleteStore(ws, name) },
    async featureTypeCount (ws, name) { return q.fts.get(ws, name) as number }
  }
}
