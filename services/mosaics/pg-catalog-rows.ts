// A mosaic's catalog rows in PostgreSQL, the counterpart of sqlite-catalog-rows.ts: its coverage
// store (stores), configured coverages (resources) and published layers (layers), read here and
// written through the catalog's one row writer (catalog/pg-catalog-rows.ts) with the client of the
// caller's transaction. Lists are in SQLite's order (names byte by byte: COLLATE "C"); a resource
// name is compared folded through resources.name_key.
import { createPgCatalogRowWriter } from '../catalog/pg-catalog-rows.js'
import { foldName } from '../files/names.js'
import type { CoverageRow, StoreRow } from './store.js'
import { coverageParams, mosaicStoreRow, toCoverage, toStoreRow } from './index-rows.js'
import type { Queryable } from './pg-granule-index.js'
import type { PgClient } from '../storage/pg/database.js'

export function createPgCatalogRows () {
  const rows = createPgCatalogRowWriter()
  const one = async (c: Queryable, sql: string, params: unknown[]) => (await c.query(sql, params)).rows[0]
  return {
    async store (c: Queryable, workspace: string, name: string): Promise<StoreRow | undefined> {
      const r = await one(c, 'SELECT * FROM stores WHERE workspace = $1 AND name = $2', [workspace, name])
      return r ? toStoreRow(workspace, name, r) : undefined
    },
    async putStore (c: PgClient, workspace: string, name: string, config: Record<string, unknown>, type?: string): Promise<void> {
      if (await one(c, 'SELECT 1 FROM stores WHERE workspace = $1 AND name = $2', [workspace, name])) await rows.setStoreConfig(c, workspace, name, JSON.stringify(config))
      else await rows.insertStore(c, mosaicStoreRow(workspace, name, config, type))
    },
    async deleteStore (c: PgClient, workspace: string, name: string): Promise<void> { await rows.deleteStore(c, workspace, name) },
    async coverages (c: Queryable, workspace: string, store: string): Promise<CoverageRow[]> {
      return (await c.query("SELECT * FROM resources WHERE workspace = $1 AND store = $2 AND kind = 'coverage' ORDER BY name COLLATE \"C\"", [workspace, store])).rows.map(toCoverage)
    },
    /** Every coverage of a workspace, of all its stores. */
    async workspaceCoverages (c: Queryable, workspace: string): Promise<CoverageRow[]> {
      return (await c.query("SELECT * FROM resources WHERE workspace = $1 AND kind = 'coverage' ORDER BY name COLLATE \"C\"", [workspace])).rows.map(toCoverage)
    },
    /** The names of a workspace's coverage stores. */
    async workspaceStores (c: Queryable, workspace: string): Promise<string[]> {
      return (await c.query("SELECT name FROM stores WHERE workspace = $1 AND kind = 'coverage' ORDER BY name COLLATE \"C\"", [workspace])).rows.map((r) => r.name as string)
    },
    async coverage (c: Queryable, workspace: string, store: string, name: string): Promise<CoverageRow | undefined> {
      const r = await one(c, "SELECT * FROM resources WHERE workspace = $1 AND store = $2 AND name = $3 AND kind = 'coverage'", [workspace, store, name])
      return r ? toCoverage(r) : undefined
    },
    /** Any resource (coverage or feature type, any store) with this name, folded, in the workspace. */
    async resourceExists (c: Queryable, workspace: string, name: string): Promise<boolean> {
      return (await one(c, 'SELECT 1 FROM resources WHERE workspace = $1 AND name_key = $2', [workspace, foldName(name)])) !== undefined
    },
    async insertCoverage (c: PgClient, cov: CoverageRow): Promise<void> { await rows.insertResource(c, { ...coverageParams(cov), kind: 'coverage' }) },
    async updateCoverage (c: PgClient, cov: CoverageRow): Promise<void> { await rows.updateResource(c, coverageParams(cov)) },
    /** The store and configuration of the coverage a published layer shows. */
    async layerCoverage (c: Queryable, workspace: string, layer: string): Promise<{ store: string, config: CoverageRow['config'] } | undefined> {
      const r = await one(c, `SELECT r.store, r.config FROM layers l JOIN resources r ON r.workspace = l.workspace AND r.name = l.name
        WHERE l.workspace = $1 AND l.name = $2 AND r.kind = 'coverage'`, [workspace, layer])
      return r ? { store: r.store, config: JSON.parse(r.config) } : undefined
    },
    /** Publishes the coverage as a RASTER layer (kept, with its styles, when it exists); a new one
     *  gets GeoServer's built-in 'raster' style as its default, as CatalogBuilder.buildLayer does. */
    async publish (c: PgClient, workspace: string, name: string, enabled: boolean): Promise<void> {
      if (await one(c, 'SELECT 1 FROM layers WHERE workspace = $1 AND name = $2', [workspace, name])) await rows.setLayerEnabled(c, workspace, name, enabled)
      else {
        await rows.insertLayer(c, workspace, name, 'RASTER', enabled)
        await rows.setLayerStyles(c, workspace, name, 'raster', [])
      }
    }
  }
}
