// The catalog rows a mosaic owns: its coverage store (stores), configured coverages (resources)
// and published layers (layers). Shapes other areas read: resources.config carries
// { dimensions: { time, elevation }, bands, dataType, nativeBbox, ranges, ... }.
import type { Db } from '../storage/database.js'

export interface CoverageConfig {
  dimensions: { time: boolean, elevation: boolean }
  bands: number
  dataType: string
  /** Extent in the native CRS [minx, miny, maxx, maxy]. */
  nativeBbox: [number, number, number, number] | null
  /** Value range per band over all granules. */
  ranges: Array<{ min: number, max: number }>
  nativeFormat: 'ImageMosaic'
  enabled: boolean
  title?: string
  abstract?: string
  /** Dimension presentation settings as last PUT (metadata/entry dimensionInfo), echoed on GET. */
  dimensionInfo?: Record<string, Record<string, unknown>>
}

/** The coverage's band names, as GeoServer names a GeoTIFF's sample dimensions (REST coverageDimension, WMS GetFeatureInfo). */
export function bandNames (n: number): string[] {
  if (n === 1) return ['GRAY_INDEX']
  if (n === 3) return ['RED_BAND', 'GREEN_BAND', 'BLUE_BAND']
  if (n === 4) return ['RED_BAND', 'GREEN_BAND', 'BLUE_BAND', 'ALPHA_BAND']
  return Array.from({ length: n }, (_, i) => `Band${i + 1}`)
}

export interface CoverageRow {
  workspace: string
  store: string
  name: string
  nativeName: string
  title: string | null
  srs: string | null
  bbox: [number, number, number, number] | null
  config: CoverageConfig
}

export interface StoreRow { workspace: string, name: string, kind: string, type: string, enabled: boolean, description: string | null, config: Record<string, unknown> }

export function createCatalogRows (db: Db) {
  const q = {
    store: db.prepare('SELECT * FROM stores WHERE workspace = ? AND name = ?'),
    insertStore: db.prepare(`INSERT INTO stores (workspace, name, kind, type, enabled, description, config, created_at)
      VALUES (?, ?, 'coverage', 'ImageMosaic', 1, NULL, ?, ?)`),
    updateStore: db.prepare('UPDATE stores SET config = ? WHERE workspace = ? AND name = ?'),
    deleteStore: db.prepare('DELETE FROM stores WHERE workspace = ? AND name = ?'),
    coverages: db.prepare("SELECT * FROM resources WHERE workspace = ? AND store = ? AND kind = 'coverage' ORDER BY name"),
    workspaceCoverages: db.prepare("SELECT * FROM resources WHERE workspace = ? AND kind = 'coverage' ORDER BY name"),
    workspaceStores: db.prepare("SELECT name FROM stores WHERE workspace = ? AND kind = 'coverage' ORDER BY name").pluck(),
    coverage: db.prepare("SELECT * FROM resources WHERE workspace = ? AND store = ? AND name = ? AND kind = 'coverage'"),
    // Folded: a layer's tile folder is named after it (see services/files/names.ts foldName).
    resource: db.prepare('SELECT * FROM resources WHERE workspace = ? AND mw_fold(name) = mw_fold(?)'),
    insertCoverage: db.prepare(`INSERT INTO resources (workspace, store, name, kind, native_name, title, srs, bbox, config)
      VALUES (@workspace, @store, @name, 'coverage', @nativeName, @title, @srs, @bbox, @config)`),
    updateCoverage: db.prepare('UPDATE resources SET title = @title, srs = @srs, bbox = @bbox, config = @config WHERE workspace = @workspace AND name = @name'),
    layer: db.prepare('SELECT * FROM layers WHERE workspace = ? AND name = ?'),
    insertLayer: db.prepare("INSERT INTO layers (workspace, name, type, default_style, styles, enabled) VALUES (?, ?, 'RASTER', NULL, '[]', ?)"),
    setLayerEnabled: db.prepare('UPDATE layers SET enabled = ? WHERE workspace = ? AND name = ?')
  }
  const toCoverage = (r: any): CoverageRow => ({
    workspace: r.workspace,
    store: r.store,
    name: r.name,
    nativeName: r.native_name,
    title: r.title,
    srs: r.srs,
    bbox: r.bbox ? JSON.parse(r.bbox) : null,
    config: JSON.parse(r.config)
  })
  const params = (c: CoverageRow) => ({
    workspace: c.workspace,
    store: c.store,
    name: c.name,
    nativeName: c.nativeName,
    title: c.title,
    srs: c.srs,
    bbox: c.bbox ? JSON.stringify(c.bbox) : null,
    config: JSON.stringify(c.config)
  })
  return {
    store (workspace: string, name: string): StoreRow | undefined {
      const r = q.store.get(workspace, name) as any
      return r ? { workspace, name, kind: r.kind, type: r.type, enabled: r.enabled === 1, description: r.description, config: JSON.parse(r.config) } : undefined
    },
    putStore (workspace: string, name: string, config: Record<string, unknown>) {
      if (q.store.get(workspace, name)) q.updateStore.run(JSON.stringify(config), workspace, name)
      else q.insertStore.run(workspace, name, JSON.stringify(config), new Date().toISOString())
    },
    deleteStore (workspace: string, name: string) { q.deleteStore.run(workspace, name) },
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
    insertCoverage (c: CoverageRow) { q.insertCoverage.run(params(c)) },
    updateCoverage (c: CoverageRow) { q.updateCoverage.run(params(c)) },
    /** Publishes the coverage as a RASTER layer (kept, with its styles, when it exists). */
    publish (workspace: string, name: string, enabled: boolean) {
      if (q.layer.get(workspace, name)) q.setLayerEnabled.run(enabled ? 1 : 0, workspace, name)
      else q.insertLayer.run(workspace, name, enabled ? 1 : 0)
    }
  }
}
export type CatalogRows = ReturnType<typeof createCatalogRows>
