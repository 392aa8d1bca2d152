// The SQLite rows of cascaded stores and their layers, written through the catalog's row writer.
import type { Db } from '../storage/sqlite/database.js'
import { checkStoreName } from '../catalog/sqlite-store.js'
import { createCatalogRowWriter } from '../catalog/sqlite-catalog-rows.js'
import { CascadeLayerExists, CascadeStoreExists } from '../errors.js'
import { cascadeLayerFromRow, cascadeStoreFromRow, LAYER_COLUMNS, resourceFields, resourceKind, storeFields, storeType, type CascadeLayerRow, type CascadeRows, type CascadeStoreRow } from './store.js'

export function createSqliteCascadeRows (db: Db): CascadeRows {
  const rows = createCatalogRowWriter(db)
  const q = {
    getStore: db.prepare('SELECT * FROM stores WHERE workspace = ? AND name = ?'),
    listStores: db.prepare('SELECT * FROM stores WHERE workspace = ? AND kind = ? ORDER BY name'),
    listLayers: db.prepare(`${LAYER_COLUMNS} AND workspace = ? ORDER BY name`),
    listStoreLayers: db.prepare(`${LAYER_COLUMNS} AND workspace = ? AND store = ? ORDER BY name`),
    getLayer: db.prepare(`${LAYER_COLUMNS} AND workspace = ? AND name = ?`),
    anyResource: db.prepare('SELECT 1 FROM resources WHERE workspace = ? AND name = ?'),
    deleteResource: db.prepare('DELETE FROM resources WHERE workspace = ? AND name = ?')
  }
  const insertStore = db.transaction((row: CascadeStoreRow) => {
    if (q.getStore.get(row.workspace, row.name) !== undefined) throw CascadeStoreExists(row.name, row.workspace)
    checkStoreName(db, row.workspace, row.name)
    rows.insertStore({ workspace: row.workspace, name: row.name, kind: row.kind, type: storeType(row.kind), config: JSON.stringify(row.config), createdAt: row.createdAt })
    rows.setStoreFields(storeFields(row))
  })
  const insertLayer = db.transaction((row: CascadeLayerRow) => {
    if (q.anyResource.get(row.workspace, row.name) !== undefined) throw CascadeLayerExists(row.name, row.workspace)
    rows.insertResource({ ...resourceFields(row), kind: resourceKind(row.kind), nativeName: row.nativeName })
    rows.insertLayer(row.workspace, row.name, storeType(row.kind), row.config.enabled)
  })
  const updateLayer = db.transaction((row: CascadeLayerRow) => {
    rows.updateResource(resourceFields(row))
    rows.setLayerEnabled(row.workspace, row.name, row.config.enabled)
  })
  return {
    async getStore (ws, name) {
      const r = q.getStore.get(ws, name) as any
      return r ? cascadeStoreFromRow(r) : undefined
    },
    async listStores (ws, kind) { return q.listStores.all(ws, kind).map(cascadeStoreFromRow) },
    async insertStore (row) { insertStore(row) },
    async updateStore (row) { rows.setStoreFields(storeFields(row)) },
    async deleteStore (ws, name) { rows.deleteStore(ws, name) },
    async listLayers (ws, store) { return (store === undefined ? q.listLayers.all(ws) : q.listStoreLayers.all(ws, store)).map(cascadeLayerFromRow) },
    async getLayer (ws, name) {
      const r = q.getLayer.get(ws, name)
      return r ? cascadeLayerFromRow(r) : undefined
    },
    async insertLayer (row) { insertLayer(row) },
    async updateLayer (row) { updateLayer(row) },
    async deleteLayer (ws, name) { q.deleteResource.run(ws, name) }
  }
}
