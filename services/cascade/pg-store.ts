// The PostgreSQL rows of cascaded stores and their layers, the counterpart of sqlite-store.ts:
// one transaction per method through the catalog's row writer; every write announces 'catalog'.
import type { PgClient, PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import { foldName } from '../files/names.js'
import { checkPgStoreName, createPgCatalogRowWriter } from '../catalog/pg-catalog-rows.js'
import { CascadeLayerExists, CascadeStoreExists } from '../errors.js'
import { cascadeLayerFromRow, cascadeStoreFromRow, LAYER_COLUMNS, resourceFields, resourceKind, storeFields, storeType, type CascadeRows } from './store.js'

export function createPgCascadeRows (db: PgDatabase): CascadeRows {
  const rows = createPgCatalogRowWriter()
  const checkNewStore = async (c: PgClient, ws: string, name: string) => {
    const same = await c.query('SELECT 1 FROM stores WHERE workspace = $1 AND name = $2', [ws, name])
    if (same.rows.length > 0) throw CascadeStoreExists(name, ws)
    await checkPgStoreName(c, ws, name)
  }
  const checkNewLayer = async (c: PgClient, ws: string, name: string) => {
    const same = await c.query('SELECT 1 FROM resources WHERE workspace = $1 AND (name = $2 OR name_key = $3)', [ws, name, foldName(name)])
    if (same.rows.length > 0) throw CascadeLayerExists(name, ws)
  }
  /** A unique violation raced past the check: reported as the check reports it. */
  const raced = async (err: unknown, check: (c: PgClient) => Promise<void>) => {
    if ((err as { code?: string }).code === '23505') await db.transaction(check)
    throw err
  }
  return {
    async getStore (ws, name) {
      const r = (await db.query('SELECT * FROM stores WHERE workspace = $1 AND name = $2', [ws, name])).rows[0]
      return r ? cascadeStoreFromRow(r) : undefined
    },
    async listStores (ws, kind) {
      return (await db.query('SELECT * FROM stores WHERE workspace = $1 AND kind = $2 ORDER BY name', [ws, kind])).rows.map(cascadeStoreFromRow)
    },
    async insertStore (row) {
      try {
        await db.transaction(async (c) => {
          await checkNewStore(c, row.workspace, row.name)
          await rows.insertStore(c, { workspace: row.workspace, name: row.name, kind: row.kind, type: storeType(row.kind), config: JSON.stringify(row.config), createdAt: row.createdAt })
          await rows.setStoreFields(c, storeFields(row))
          await notify(c, { topic: 'catalog', key: row.workspace })
        })
      } catch (err) { await raced(err, (c) => checkNewStore(c, row.workspace, row.name)) }
    },
    async updateStore (row) {
      await db.transaction(async (c) => {
        await rows.setStoreFields(c, storeFields(row))
        await notify(c, { topic: 'catalog', key: row.workspace })
      })
    },
    async deleteStore (ws, name) {
      await db.transaction(async (c) => {
        await rows.deleteStore(c, ws, name)
        await notify(c, { topic: 'catalog', key: ws })
      })
    },
    async listLayers (ws, store) {
      const r = store === undefined
        ? await db.query(`${LAYER_COLUMNS} AND workspace = $1 ORDER BY name`, [ws])
        : await db.query(`${LAYER_COLUMNS} AND workspace = $1 AND store = $2 ORDER BY name`, [ws, store])
      return r.rows.map(cascadeLayerFromRow)
    },
    async getLayer (ws, name) {
      const r = (await db.query(`${LAYER_COLUMNS} AND workspace = $1 AND name = $2`, [ws, name])).rows[0]
      return r ? cascadeLayerFromRow(r) : undefined
    },
    async insertLayer (row) {
      try {
        await db.transaction(async (c) => {
          await checkNewLayer(c, row.workspace, row.name)
          await rows.insertResource(c, { ...resourceFields(row), kind: resourceKind(row.kind), nativeName: row.nativeName })
          await rows.insertLayer(c, row.workspace, row.name, storeType(row.kind), row.config.enabled)
          await notify(c, { topic: 'catalog', key: row.workspace })
        })
      } catch (err) { await raced(err, (c) => checkNewLayer(c, row.workspace, row.name)) }
    },
    async updateLayer (row) {
      await db.transaction(async (c) => {
        await rows.updateResource(c, resourceFields(row))
        await rows.setLayerEnabled(c, row.workspace, row.name, row.config.enabled)
        await notify(c, { topic: 'catalog', key: row.workspace })
      })
    },
    async deleteLayer (ws, name) {
      await db.transaction(async (c) => {
        await c.query('DELETE FROM resources WHERE workspace = $1 AND name = $2', [ws, name])
        await notify(c, { topic: 'catalog', key: ws })
      })
    }
  }
}
