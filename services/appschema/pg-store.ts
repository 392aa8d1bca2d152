// The PostgreSQL app-schema store, the counterpart of sqlite-store.ts: the stores, resources and
// layers rows of app-schema data stores, written only through the catalog's row writer
// (catalog/pg-catalog-rows.ts) in the transaction of each method. A new store's name is checked
// against the workspace's others ignoring case (checkPgStoreName) in that transaction; the UNIQUE
// index on the folded names refuses what a node creating a clashing store at the same moment
// slipped past the check, and that is reported as the check reports it. Every write announces
// 'appschema' (the store) and 'catalog' (the workspace's stores, each layer it touches).
import type { PgClient, PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import { checkPgStoreName, createPgCatalogRowWriter } from '../catalog/pg-catalog-rows.js'
import { foldName } from '../files/names.js'
import { STORE_TYPE, type AppSchemaStore } from './store.js'
import { featureTypeFromRow, featureTypeResource, storeFromRow } from './store-rows.js'

export function createPgAppSchemaStore (db: PgDatabase): AppSchemaStore {
  const rows = createPgCatalogRowWriter()
  const checkNewStoreName = (ws: string, name: string) => db.transaction((c) => checkPgStoreName(c, ws, name))
  /** Announces a change of store `name` of workspace `ws` and of the layers named `layers`. */
  const announce = async (c: PgClient, ws: string, name: string, layers: string[]) => {
    await notify(c, { topic: 'appschema', key: `${ws}:${name}` })
    await notify(c, { topic: 'catalog', key: ws })
    for (const l of layers) await notify(c, { topic: 'catalog', key: `${ws}:${l}` })
  }

  return {
    async getStore (ws, name) {
      const r = (await db.query('SELECT * FROM stores WHERE workspace = $1 AND name = $2', [ws, name])).rows[0]
      return r ? storeFromRow(r) : undefined
    },
    async dataStoreNames (ws) {
      const r = await db.query<{ name: string }>("SELECT name FROM stores WHERE workspace = $1 AND kind = 'data' ORDER BY name COLLATE \"C\"", [ws])
      return r.rows.map((x) => x.name)
    },
    async appSchemaStores () {
      return (await db.query('SELECT * FROM stores WHERE type = $1 ORDER BY workspace COLLATE "C", name COLLATE "C"', [STORE_TYPE])).rows.map(storeFromRow)
    },
    async featureTypes (ws, store) {
      // seq: the order of creation (pg/appschema-001-resource-order), SQLite's rowid.
      const r = await db.query("SELECT * FROM resources WHERE workspace = $1 AND store = $2 AND kind = 'featureType' ORDER BY seq", [ws, store])
      return r.rows.map(featureTypeFromRow)
    },
    async featureType (ws, store, name) {
      const r = (await db.query("SELECT * FROM resources WHERE workspace = $1 AND store = $2 AND name = $3 AND kind = 'featureType'", [ws, store, name])).rows[0]
      return r ? featureTypeFromRow(r) : undefined
    },
    async resourceOwner (ws, name) {
      const r = await db.query<{ store: string }>('SELECT store FROM resources WHERE workspace = $1 AND name_key = $2', [ws, foldName(name)])
      return r.rows[0]?.store
    },
    async checkNewStoreName (ws, name) { await checkNewStoreName(ws, name) },
    async save (ws, name, config, create, fts) {
      try {
        await db.transaction(async (c) => {
          if (create) {
            await checkPgStoreName(c, ws, name)
            await rows.insertStore(c, { workspace: ws, name, kind: 'data', type: STORE_TYPE, config: JSON.stringify(config), createdAt: new Date().toISOString() })
          } else await rows.setStoreConfig(c, ws, name, JSON.stringify(config))
          for (const ft of fts.update) await rows.updateResourceKeepTitle(c, featureTypeResource(ws, name, ft))
          for (const ft of fts.insert) {
            await rows.insertResource(c, featureTypeResource(ws, name, ft))
            await rows.insertLayerIfAbsent(c, ws, ft.name, 'VECTOR')
          }
          await announce(c, ws, name, [...fts.update, ...fts.insert].map((ft) => ft.name))
        })
      } catch (err) {
        // Another node created a store whose name folds the same after this one's check: the
        // check, run again, names it.
        const e = err as { code?: string, constraint?: string }
        if (create && e.code === '23505' && e.constraint === 'stores_name_key') await checkNewStoreName(ws, name)
        throw err
      }
    },
    async deleteStore (ws, name) {
      await db.transaction(async (c) => {
        const layers = await c.query<{ name: string }>('SELECT name FROM resources WHERE workspace = $1 AND store = $2 ORDER BY seq', [ws, name])
        // Resources and layers follow by cascade.
        await rows.deleteStore(c, ws, name)
        await announce(c, ws, name, layers.rows.map((r) => r.name))
      })
    }
  }
}
