// The app-schema rows of the shared catalog: a `stores` row (kind 'data', type
// 'Application Schema DataAccess'), one `resources` row (kind 'featureType') and one `layers` row
// (type 'VECTOR') per configured feature type. Everything here is synchronous SQLite, so one
// upload's rows change in a single transaction.
import type { Db } from '../storage/database.js'
import type { AttributeInfo } from './schemas.js'
import type { Bbox } from './properties.js'
import type { SourceStore } from './mapping.js'

export const STORE_TYPE = 'Application Schema DataAccess'

export interface StoreConfig {
  /** `file:` URL of the stored main mapping file. */
  url: string
  /** Workspace namespace URI at upload time. */
  namespace: string
  /** Data-dir-relative directory holding this version of the files. */
  dir: string
  mainFile: string
  /** Feature types the mapping exposes (main-file mappings, in order). */
  featureTypeNames: string[]
  /** Those of featureTypeNames whose schema declares a geometry property. */
  geometryNames?: string[]
  sources: SourceStore[]
}

export interface StoreRow {
  workspace: string
  name: string
  kind: string
  type: string
  enabled: boolean
  config: StoreConfig
}

export interface FeatureTypeConfig {
  targetElement: string
  namespaceUri: string
  sourceDataStore: string
  sourceType: string
  nativeBbox?: Bbox
  attributes: AttributeInfo[]
}

export interface FeatureTypeRow {
  workspace: string
  store: string
  name: string
  nativeName: string
  title: string
  srs?: string
  /** lon/lat bounds */
  bbox?: Bbox
  config: FeatureTypeConfig
}

export function createCatalogRows (db: Db) {
  const q = {
    store: db.prepare('SELECT * FROM stores WHERE workspace = ? AND name = ?'),
    dataStores: db.prepare("SELECT name FROM stores WHERE workspace = ? AND kind = 'data' ORDER BY name").pluck(),
    allOfType: db.prepare('SELECT * FROM stores WHERE type = ?'),
    insertStore: db.prepare("INSERT INTO stores (workspace, name, kind, type, enabled, config, created_at) VALUES (?, ?, 'data', ?, 1, ?, ?)"),
    updateStore: db.prepare('UPDATE stores SET config = ? WHERE workspace = ? AND name = ?'),
    deleteStore: db.prepare('DELETE FROM stores WHERE workspace = ? AND name = ?'),
    fts: db.prepare("SELECT * FROM resources WHERE workspace = ? AND store = ? AND kind = 'featureType' ORDER BY rowid"),
    ft: db.prepare("SELECT * FROM resources WHERE workspace = ? AND store = ? AND name = ? AND kind = 'featureType'"),
    resourceName: db.prepare('SELECT store FROM resources WHERE workspace = ? AND mw_fold(name) = mw_fold(?)').pluck(),
    insertFt: db.prepare("INSERT INTO resources (workspace, store, name, kind, native_name, title, srs, bbox, config) VALUES (?, ?, ?, 'featureType', ?, ?, ?, ?, ?)"),
    updateFt: db.prepare('UPDATE resources SET srs = ?, bbox = ?, config = ? WHERE workspace = ? AND store = ? AND name = ?'),
    insertLayer: db.prepare("INSERT OR IGNORE INTO layers (workspace, name, type, styles, enabled) VALUES (?, ?, 'VECTOR', '[]', 1)")
  }
  const toStore = (r: any): StoreRow => ({
    workspace: r.workspace, name: r.name, kind: r.kind, type: r.type, enabled: r.enabled === 1, config: JSON.parse(r.config)
  })
  const toFt = (r: any): FeatureTypeRow => ({
    workspace: r.workspace,
    store: r.store,
    name: r.name,
    nativeName: r.native_name,
    title: r.title ?? r.name,
    ...(r.srs ? { srs: r.srs } : {}),
    ...(r.bbox ? { bbox: JSON.parse(r.bbox) } : {}),
    config: JSON.parse(r.config)
  })
  return {
    getStore (ws: string, name: string): StoreRow | undefined {
      const r = q.store.get(ws, name)
      return r ? toStore(r) : undefined
    },
    dataStoreNames (ws: string): string[] { return q.dataStores.all(ws) as string[] },
    appSchemaStores (): StoreRow[] { return (q.allOfType.all(STORE_TYPE) as any[]).map(toStore) },
    featureTypes (ws: string, store: string): FeatureTypeRow[] { return (q.fts.all(ws, store) as any[]).map(toFt) },
    featureType (ws: string, store: string, name: string): FeatureTypeRow | undefined {
      const r = q.ft.get(ws, store, name)
      return r ? toFt(r) : undefined
    },
    /** The store owning a resource name in the workspace, if any (names are unique per workspace). */
    resourceOwner (ws: string, name: string): string | undefined { return q.resourceName.get(ws, name) as string | undefined },
    /** Writes the store and its feature types in one transaction. */
    save (ws: string, name: string, config: StoreConfig, create: boolean, fts: { insert: FeatureTypeRow[], update: FeatureTypeRow[] }): void {
      db.transaction(() => {
        if (create) q.insertStore.run(ws, name, STORE_TYPE, JSON.stringify(config), new Date().toISOString())
        else q.updateStore.run(JSON.stringify(config), ws, name)
        for (const ft of fts.update) {
          q.updateFt.run(ft.srs ?? null, ft.bbox ? JSON.stringify(ft.bbox) : null, JSON.stringify(ft.config), ws, name, ft.name)
        }
        for (const ft of fts.insert) {
          q.insertFt.run(ws, name, ft.name, ft.nativeName, ft.title, ft.srs ?? null, ft.bbox ? JSON.stringify(ft.bbox) : null, JSON.stringify(ft.config))
          q.insertLayer.run(ws, ft.name)
        }
      })()
    },
    /** Removes the store; resources and layers follow by cascade. */
    deleteStore (ws: string, name: string): void { q.deleteStore.run(ws, name) }
  }
}
export type CatalogRows = ReturnType<typeof createCatalogRows>
