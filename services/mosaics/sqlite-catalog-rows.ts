// A mosaic's catalog rows in SQLite, synchronous: its coverage store (stores), configured coverages
// (resources) and published layers (layers), read here and written through the catalog's one row
// writer (catalog/sqlite-catalog-rows.ts). sqlite-store.ts composes them into MosaicStore.
import type { Db } from '../storage/sqlite/database.js'
import { createCatalogRowWriter } from '../catalog/sqlite-catalog-rows.js'
import type { CoverageRow, StoreRow } from './store.js'
import { coverageParams as params, mosaicStoreRow, toCoverage, toStoreRow } from './index-rows.js'

export function createCatalogRows (db: Db) {
  const rows = createCatalogRowWriter(db)
  const q = {
    store: db.prepare('SELECT * FROM stores WHERE workspace = ? AND name = ?'),
    coverages: db.prepare("SELECT * FROM resources WHERE workspace = ? AND store = ? AND kind = 'coverage' ORDER BY name"),
    workspaceCoverages: db.prepare("SELECT * FROM resources WHERE workspace = ? AND kind = 'coverage' ORDER BY name"),
    workspaceStores: db.prepare("SELECT name FROM stores WHERE workspace = ? AND kind = 'coverage' ORDER BY name").pluck(),
    coverage: db.prepare("SELECT * FROM resources WHERE workspace = ? AND store = ? AND name = ? AND kind = 'coverage'"),
    // Folded: a layer's tile folder is named after it (see services/files/names.ts foldName).
    resource: db.prepare('SELECT * FROM resources WHERE workspace = ? AND mw_fold(name) = mw_fold(?)'),
    layer: db.prepare('SELECT * FROM layers WHERE workspace = ? AND name = ?'),
    layerCoverage: db.prepare(`SELECT r.store, r.config FROM layers l JOIN resources r ON r.workspace = l.workspace AND r.name = l.name
      WHERE l.workspace = ? AND l.name = ? AND r.kind = 'coverage'`)
  }
  return {
    store (workspace: string, name: string): StoreRow | undefined {
      const r = q.store.get(workspace, name) as any
      return r ? toStoreRow(workspace, name, r) : undefined
    },
    putStore (workspace: string, name: string, config: Record<string, unknown>, type?: string) {
      if (q.store.get(workspace, name)) rows.setStoreConfig(workspace, name, JSON.stringify(config))
      else rows.insertStore(mosaicStoreRow(workspace, name, config, type))
    },
    deleteStore (workspace: string, name: string) { rows.deleteStore(workspace, name) },
    coverages (workspace: string, store: string): CoverageRow[] { return (q.coverages.all(workspace, store) as any[]).map(toCoverage) },
    /** Every coverage of a workspace, of all its stores. */
    workspaceCoverages (workspace: string): CoverageRow[] { return (q.workspaceCoverages.all(workspace) as any[]).map(toCoverage) },
    /** The names of a workspace's coverage stores. */
    workspaceStores (workspace: string): string[] { return q.workspaceStores.all(workspace) as string[] },
    coverage (workspace: string, store: string, name: string): CoverageRow | undefined {
      const r = q.coverage.get(workspace, store, name)
      return r ? toCoverage(r) : undefined
    },
    /** Any resource (coverage or feature type, any store) with this name in the workspace. */
    resourceExists (workspace: string, name: string): boolean { return q.resource.get(workspace, name) !== undefined },
    insertCoverage (c: CoverageRow) { rows.insertResource({ ...params(c), kind: 'coverage' }) },
    updateCoverage (c: CoverageRow) { rows.updateResource(params(c)) },
    /** The store and configuration of the coverage a published layer shows. */
    layerCoverage (workspace: string, layer: string) {
      const r = q.layerCoverage.get(workspace, layer) as { store: string, config: string } | undefined
      return r ? { store: r.store, config: JSON.parse(r.config) } : undefined
    },
    /** Publishes the coverage as a RASTER layer (kept, with its styles, when it exists); a new one
     *  gets GeoServer's built-in 'raster' style as its default, as CatalogBuilder.buildLayer does. */
    publish (workspace: string, name: string, enabled: boolean) {
      if (q.layer.get(workspace, name)) rows.setLayerEnabled(workspace, name, enabled)
      else {
        rows.insertLayer(workspace, name, 'RASTER', enabled)
        rows.setLayerStyles(workspace, name, 'raster', [])
      }
    }
  }
}
