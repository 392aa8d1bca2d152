// GeoWebCache's REST blob stores (BlobStoreController) over the registry (blob-store-registry.ts):
// list, one, create or replace, remove. A change that moves layers' tiles to another directory (a
// new default store, a store's new baseDirectory) drops what the old directories held of them, as a
// layer's new blobStoreId does (tile-layers.ts): GWC never moves tiles, and tiles left where nothing
// serves, counts or truncates them would only fill the disk.
import { BlobStoreNotFound } from '../errors.js'
import { parseFileBlobStore } from './blob-store-registry.js'
import type { FileBlobStoreInfo } from './store.js'
import type { TileCacheContext } from './tile-cache-context.js'

export function blobStoreOperations (ctx: TileCacheContext) {
  const registry = (id: string, action: string) => {
    if (!ctx.blobStores) throw BlobStoreNotFound(action, id)
    return ctx.blobStores
  }
  return {
    blobStores: (): FileBlobStoreInfo[] => ctx.blobStores?.list() ?? [],
    blobStore: (id: string): FileBlobStoreInfo => registry(id, 'get').get(id),
    /** PUT blobstores/<id>: `created` false when it replaced one. */
    async putBlobStore (id: string, body: Record<string, unknown>): Promise<{ created: boolean }> {
      const reg = registry(id, 'put')
      const info = parseFileBlobStore(id, body)
      const before = ctx.store.roots()
      const created = await reg.put(info)
      await ctx.store.dropMoved(before)
      return { created }
    },
    async deleteBlobStore (id: string): Promise<void> { await registry(id, 'remove').remove(id) }
  }
}
