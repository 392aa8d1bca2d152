// The SQLite file blob stores (store.ts BlobStoreStore): one row per store; a removal and its
// in-use check are one transaction, as is a new default and the clearing of the old mark.
import type { Db } from '../storage/sqlite/database.js'
import type { BlobStoreStore, FileBlobStoreInfo } from './store.js'

export interface BlobStoreRow { id: string, is_default: number | boolean, enabled: number | boolean, base_directory: string, block_size: number }
export const blobStoreOfRow = (r: BlobStoreRow): FileBlobStoreInfo =>
  ({ id: r.id, default: Boolean(r.is_default), enabled: Boolean(r.enabled), baseDirectory: r.base_directory, fileSystemBlockSize: Number(r.block_size) })

export function createSqliteBlobStoreStore (db: Db): BlobStoreStore {
  const q = {
    all: db.prepare('SELECT id, is_default, enabled, base_directory, block_size FROM blob_stores ORDER BY id'),
    exists: db.prepare('SELECT 1 FROM blob_stores WHERE id = ?').pluck(),
    clearDefault: db.prepare('UPDATE blob_stores SET is_default = 0 WHERE id <> ?'),
    put: db.prepare(`INSERT INTO blob_stores (id, is_default, enabled, base_directory, block_size, updated_at) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT(id) DO UPDATE SET is_default = excluded.is_default, enabled = excluded.enabled, base_directory = excluded.base_directory,
      block_size = excluded.block_size, updated_at = excluded.updated_at`),
    users: db.prepare("SELECT workspace || ':' || name FROM tile_layer_settings WHERE blob_store_id = ? ORDER BY workspace, name").pluck(),
    remove: db.prepare('DELETE FROM blob_stores WHERE id = ?')
  }
  const put = db.transaction((s: FileBlobStoreInfo): boolean => {
    const existed = q.exists.get(s.id) !== undefined
    if (s.default) q.clearDefault.run(s.id)
    q.put.run(s.id, s.default ? 1 : 0, s.enabled ? 1 : 0, s.baseDirectory, s.fileSystemBlockSize, new Date().toISOString())
    return !existed
  })
  const remove = db.transaction((id: string): { removed: boolean, usedBy: string[] } => {
    const usedBy = q.users.all(id) as string[]
    if (usedBy.length > 0) return { removed: false, usedBy }
    return { removed: q.remove.run(id).changes > 0, usedBy }
  })
  return {
    async all () { return (q.all.all() as BlobStoreRow[]).map(blobStoreOfRow) },
    async put (s) { return put(s) },
    async remove (id) { return remove(id) }
  }
}
