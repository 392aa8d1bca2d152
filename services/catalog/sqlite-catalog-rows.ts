// The one writer of the shared catalog tables in SQLite: stores, resources (coverages, feature
// types) and layers. The areas that publish into the catalog (image mosaics, application schemas)
// and the styles a layer names call these inside their own transactions, so that a data store, its
// resources and its layers change in one commit.
import type { Db } from '../storage/sqlite/database.js'

export interface NewStoreRow { workspace: string, name: string, kind: 'coverage' | 'data' | 'wms' | 'wmts', type: string, config: string, createdAt: string }
export interface StoreFields { workspace: string, name: string, config: string, enabled: boolean, description: string | null }
export interface ResourceRow {
  workspace: string
  store: string
  name: string
  kind: 'coverage' | 'featureType' | 'wmsLayer' | 'wmtsLayer'
  nativeName: string
  title: string | null
  srs: string | null
  /** JSON of the bounding box, or null. */
  bbox: string | null
  config: string
}

export function createCatalogRowWriter (db: Db) {
  const q = {
    insertStore: db.prepare(`INSERT INTO stores (workspace, name, kind, type, enabled, description, config, created_at)
      VALUES (@workspace, @name, @kind, @type, 1, NULL, @config, @createdAt)`),
    setStoreConfig: db.prepare('UPDATE stores SET config = ? WHERE workspace = ? AND name = ?'),
    setStoreFields: db.prepare('UPDATE stores SET config = @config, enabled = @enabled, description = @description WHERE workspace = @workspace AND name = @name'),
    deleteStore: db.prepare('DELETE FROM stores WHERE workspace = ? AND name = ?'),
    insertResource: db.prepare(`INSERT INTO resources (workspace, store, name, kind, native_name, title, srs, bbox, config)
      VALUES (@workspace, @store, @name, @kind, @nativeName, @title, @srs, @bbox, @config)`),
    updateResource: db.prepare('UPDATE resources SET title = @title, srs = @srs, bbox = @bbox, config = @config WHERE workspace = @workspace AND store = @store AND name = @name'),
    updateResourceKeepTitle: db.prepare('UPDATE resources SET srs = @srs, bbox = @bbox, config = @config WHERE workspace = @workspace AND store = @store AND name = @name'),
    insertLayer: db.prepare("INSERT INTO layers (workspace, name, type, default_style, styles, enabled) VALUES (?, ?, ?, NULL, '[]', ?)"),
    insertLayerIfAbsent: db.prepare("INSERT OR IGNORE INTO layers (workspace, name, type, default_style, styles, enabled) VALUES (?, ?, ?, NULL, '[]', 1)"),
    setLayerEnabled: db.prepare('UPDATE layers SET enabled = ? WHERE workspace = ? AND name = ?'),
    setLayerStyles: db.prepare('UPDATE layers SET default_style = ?, styles = ? WHERE workspace = ? AND name = ?')
  }
  return {
    insertStore (row: NewStoreRow): void { q.insertStore.run(row) },
    setStoreConfig (workspace: string, name: string, config: string): void { q.setStoreConfig.run(config, workspace, name) },
    /** Configuration, enabled flag and description of an existing store. */
    setStoreFields (f: StoreFields): void { q.setStoreFields.run({ ...f, enabled: f.enabled ? 1 : 0 }) },
    deleteStore (workspace: string, name: string): void { q.deleteStore.run(workspace, name) },
    insertResource (row: ResourceRow): void { q.insertResource.run(row) },
    /** Title, SRS, bounding box and configuration of an existing resource. */
    updateResource (row: Omit<ResourceRow, 'kind' | 'nativeName'>): void { q.updateResource.run(row) },
    /** SRS, bounding box and configuration of an existing resource; its title stays. */
    updateResourceKeepTitle (row: Omit<ResourceRow, 'kind' | 'nativeName' | 'title'>): void { q.updateResourceKeepTitle.run(row) },
    insertLayer (workspace: string, name: string, type: 'RASTER' | 'VECTOR' | 'WMS' | 'WMTS', enabled: boolean): void { q.insertLayer.run(workspace, name, type, enabled ? 1 : 0) },
    /** A published layer for a resource, unless it is published already. */
    insertLayerIfAbsent (workspace: string, name: string, type: 'RASTER' | 'VECTOR'): void { q.insertLayerIfAbsent.run(workspace, name, type) },
    setLayerEnabled (workspace: string, name: string, enabled: boolean): void { q.setLayerEnabled.run(enabled ? 1 : 0, workspace, name) },
    setLayerStyles (workspace: string, name: string, defaultStyle: string | undefined, styles: string[]): void {
      q.setLayerStyles.run(defaultStyle ?? null, JSON.stringify(styles), workspace, name)
    }
  }
}
