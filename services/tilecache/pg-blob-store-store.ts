// The PostgreSQL file blob stores: the counterpart of sqlite-blob-store-store.ts. Every change
// announces 'blobstores' in its transaction, so every instance re-reads them once it commits. A
// removal locks the store's row first, so a layer assigned meanwhile (which reads the row, in
// blob-store-registry.ts) is seen by the in-use check or waits for the removal.
import type { PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import type { BlobStoreStore } from './store.js'
import { blobStoreOfRow, type BlobStoreRow } from './sqlite-blob-store-store.js'

export function createPgBlobStoreStore (db: PgDatabase): BlobStoreStore {
  return {
    async all () {
      return (await db.query<BlobStoreRow>('SELECT id, is_default, enabled, base_directory, block_size FROM blob_stores ORDER BY id COLLATE "C"')).rows.map(blobStoreOfRow)
    },
    async put (s) {
      return await db.transaction(async (c) => {
        if (s.default) await c.query('UPDATE blob_stores SET is_default = 0 WHERE id <> $1 AND is_default <> 0', [s.id])
        // xmax = 0: the row was inserted by this statement, not updated.
        const r = await c.query<{ created: boolean }>(`INSERT INTO blob_stores (id, is_default, enabled, base_directory, block_size, updated_at)
          VALUES ($1, $2, $3, $4, $5, $6)
          ON CONFLICT (id) DO UPDATE SET is_default = excluded.is_default, enabled = excluded.enabled, base_directory = excluded.base_directory,
          block_size = excluded.block_size, updated_at = excluded.updated_at
          RETURNING (xmax = 0) AS created`, [s.id, s.default ? 1 : 0, s.enabled ? 1 : 0, s.baseDirectory, s.fileSystemBlockSize, new Date().toISOString()])
        await notify(c, { topic: 'blobstores', key: s.id })
        return r.rows[0].created
      })
    },
    async remove (id) {
      return await db.transaction(async (c) => {
        await c.query('SELECT 1 FROM blob_stores WHERE id = $1 FOR UPDATE', [id])
        const users = await c.query<{ layer: string }>(`SELECT workspace || ':' || name AS layer FROM tile_layer_settings WHERE blob_store_id = $1
          ORDER BY workspace COLLATE "C", name COLLATE "C"`, [id])
        if (users.rows.length > 0) return { removed: false, usedBy: users.rows.map((r) => r.layer) }
        const r = await c.query('DELETE FROM blob_stores WHERE id = $1', [id])
        const removed = (r.rowCount ?? 0) > 0
        if (removed) await notify(c, { topic: 'blobstores', key: id })
        return { removed, usedBy: [] }
      })
    }
  }
}
