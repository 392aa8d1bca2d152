// The one writer of the shared catalog tables in PostgreSQL: stores, resources (coverages, feature
// types) and layers, the counterpart of sqlite-catalog-rows.ts. The areas that publish into the
// catalog call these with the client of their own transaction, so that a data store, its resources
// and its layers change in one commit. Names are also written folded (name_key): the UNIQUE index
// on it refuses two names equal under case folding on every node at once.
import type { PgClient } from '../storage/pg/database.js'
import { foldName } from '../files/names.js'
import type { NewStoreRow, ResourceRow, StoreFields } from './sqlite-catalog-rows.js'
import { StoreNameClash } from '../errors.js'

export type { NewStoreRow, ResourceRow, StoreFields }

export function createPgCatalogRowWriter () {
  return {
    async insertStore (c: PgClient, row: NewStoreRow): Promise<void> {
      await c.query(`INSERT INTO stores (workspace, name, name_key, kind, type, enabled, description, config, created_at)
        VALUES ($1, $2, $3, $4, $5, 1, NULL, $6, $7)`, [row.workspace, row.name, foldName(row.name), row.kind, row.type, row.config, row.createdAt])
    },
    async setStoreConfig (c: PgClient, workspace: string, name: string, config: string): Promise<void> {
      await c.query('UPDATE stores SET config = $1 WHERE workspace = $2 AND name = $3', [config, workspace, name])
    },
    /** Configuration, enabled flag and description of an existing store. */
    async setStoreFields (c: PgClient, f: StoreFields): Promise<void> {
      await c.query('UPDATE stores SET config = $1, enabled = $2, description = $3 WHERE workspace = $4 AND name = $5',
        [f.config, f.enabled ? 1 : 0, f.description, f.workspace, f.name])
    },
    async deleteStore (c: PgClient, workspace: string, name: string): Promise<void> {
      await c.query('DELETE FROM stores WHERE workspace = $1 AND name = $2', [workspace, name])
    },
    async insertResource (c: PgClient, r: ResourceRow): Promise<void> {
      await c.query(`INSERT INTO resources (workspace, store, name, name_key, kind, native_name, title, srs, bbox, config)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [r.workspace, r.store, r.name, foldName(r.name), r.kind, r.nativeName, r.title, r.srs, r.bbox, r.config])
    },
    /** Title, SRS, bounding box and configuration of an existing resource. */
    async updateResource (c: PgClient, r: Omit<ResourceRow, 'kind' | 'nativeName'>): Promise<void> {
      await c.query('UPDATE resources SET title = $1, srs = $2, bbox = $3, config = $4 WHERE workspace = $5 AND store = $6 AND name = $7',
        [r.title, r.srs, r.bbox, r.config, r.workspace, r.store, r.name])
    },
    /** SRS, bounding box and configuration of an existing resource; its title stays. */
    async updateResourceKeepTitle (c: PgClient, r: Omit<ResourceRow, 'kind' | 'nativeName' | 'title'>): Promise<void> {
      await c.query('UPDATE resources SET srs = $1, bbox = $2, config = $3 WHERE workspace = $4 AND store = $5 AND name = $6',
        [r.srs, r.bbox, r.config, r.workspace, r.store, r.name])
    },
    async insertLayer (c: PgClient, workspace: string, name: string, type: 'RASTER' | 'VECTOR' | 'WMS' | 'WMTS', enabled: boolean): Promise<void> {
      await c.query("INSERT INTO layers (workspace, name, type, default_style, styles, enabled) VALUES ($1, $2, $3, NULL, '[]', $4)", [workspace, name, type, enabled ? 1 : 0])
    },
    /** A published layer for a resource, unless it is published already. */
    async insertLayerIfAbsent (c: PgClient, workspace: string, name: string, type: 'RASTER' | 'VECTOR'): Promise<void> {
      await c.query("INSERT INTO layers (workspace, name, type, default_style, styles, enabled) VALUES ($1, $2, $3, NULL, '[]', 1) ON CONFLICT DO NOTHING", [workspace, name, type])
    },
    async setLayerEnabled (c: PgClient, workspace: string, name: string, enabled: boolean): Promise<void> {
      await c.query('UPDATE layers SET enabled = $1 WHERE workspace = $2 AND name = $3', [enabled ? 1 : 0, workspace, name])
    },
    async setLayerStyles (c: PgClient, workspace: string, name: string, defaultStyle: string | undefined, styles: string[]): Promise<void> {
      await c.query('UPDATE layers SET default_style = $1, styles = $2 WHERE workspace = $3 AND name = $4', [defaultStyle ?? null, JSON.stringify(styles), workspace, name])
    }
  }
}

/** Throws StoreNameClash when another store of the workspace has a name equal to `name` under case folding. */
export async function checkPgStoreName (c: PgClient, workspace: string, name: string): Promise<void> {
  const r = await c.query<{ name: string }>('SELECT name FROM stores WHERE workspace = $1 AND name_key = $2 AND name <> $3', [workspace, foldName(name), name])
  if (r.rows.length > 0) throw StoreNameClash(name, r.rows[0].name)
}
