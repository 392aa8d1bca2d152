// The SQLite app-schema store: the store, resources and layers rows of app-schema data stores.
import type { Db } from '../storage/sqlite/database.js'
import { checkStoreName } from '../catalog/sqlite-store.js'
import { createCatalogRowWriter } from '../catalog/sqlite-catalog-rows.js'
import { STORE_TYPE, type AppSchemaStore, type FeatureTypeRow, type StoreConfig } from './store.js'
import { featureTypeFromRow, featureTypeResource, storeFromRow } from './store-rows.js'

export function createSqliteAppSchemaStore (db: Db): AppSchemaStore {
  const rows = createCatalogRowWriter(db)
  const q = {
    store: db.prepare('SELECT * FROM stores WHERE workspace = ? AND name = ?'),
    dataStores: db.prepare("SELECT name FROM stores WHERE workspace = ? AND kind = 'data' ORDER BY name").pluck(),
    allOfType: db.prepare('SELECT * FROM stores WHERE type = ? ORDER BY workspace, name'),
    fts: db.prepare("SELECT * FROM resources WHERE workspace = ? AND store = ? AND kind = 'featureType' ORDER BY rowid"),
    ft: db.prepare("SELECT * FROM resources WHERE workspace = ? AND store = ? AND name = ? AND kind = 'featureType'"),
    resourceName: db.prepare('SELECT store FROM resources WHERE workspace = ? AND mw_fold(name) = mw_fold(?)').pluck()
  }
  const save = db.transaction((ws: string, name: string, config: StoreConfig, create: boolean, fts: { insert: FeatureTypeRow[], update: FeatureTypeRow[] }) => {
    if (create) {
      checkStoreName(db, ws, name)
      rows.insertStore({ workspace: ws, name, kind: 'data', type: STORE_TYPE, config: JSON.stringify(config), createdAt: new Date().toISOString() })
    } else rows.setStoreConfig(ws, name, JSON.stringify(config))
    for (const ft of fts.update) rows.updateResourceKeepTitle(featureTypeResource(ws, name, ft))
    for (const ft of fts.insert) {
      rows.insertResource(featureTypeResource(ws, name, ft))
      rows.insertLayerIfAbsent(ws, ft.name, 'VECTOR')
    }
  })
  return {
    async getStore (ws, name) {
      const r = q.store.get(ws, name)
      return r ? storeFromRow(r) : undefined
    },
    async dataStoreNames (ws) { return q.dataStores.all(ws) as string[] },
    async appSchemaStores () { return (q.allOfType.all(STORE_TYPE) as any[]).map(storeFromRow) },
    async featureTypes (ws, store) { return (q.fts.all(ws, store) as any[]).map(featureTypeFromRow) },
    async featureType (ws, store, name) {
      const r = q.ft.get(ws, store, name)
      return r ? featureTypeFromRow(r) : undefined
    },
    async resourceOwner (ws, name) { return q.resourceName.get(ws, name) as string | undefined },
    async checkNewStoreName (ws, name) { checkStoreName(db, ws, name) },
    async save (ws, name, config, create, fts) { save(ws, name, config, create, fts) },
    // Resources and layers follow by cascade.
    async deleteStore (ws, name) { rows.deleteStore(ws, name) }
  }
}
