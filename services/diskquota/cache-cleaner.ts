// GWC CacheCleaner / CacheCleanerTask: while the tiles of a quota's layers use more than the
// quota, truncate the least recently (LRU) or least frequently (LFU) used page, then re-read the
// usage. The quota is re-read on every pass, so a configuration change applies at once.
import type { ExpirationPolicy } from './quota-config.js'
import type { PageRef, QuotaStore, Scope } from './quota-store.js'
import type { PageGeometry } from './tile-page.js'
import { pageRect } from './tile-page.js'
import type { Rect } from '../seed/grid-sets.js'

export interface Limit { limitBytes: number, policy: ExpirationPolicy }

export interface CleanerDeps {
  store: QuotaStore
  /** Makes every recorded tile event visible in the store (the accounting flush). */
  flush: () => Promise<void>
  /** Deletes the page's tiles from the blob store; returns how many existed. */
  truncatePage: (page: PageRef, rect: Rect) => Promise<number>
  log: { info: (obj: object, msg: string) => void, warn: (obj: object, msg: string) => void }
}

export interface ExpireResult { pages: number, tiles: number, bytesBefore: number, bytesAfter: number, limitBytes: number, stoppedShort: boolean }

export function createCacheCleaner ({ store, flush, truncatePage, log }: CleanerDeps) {
  return {
    async expire (name: string, scope: Scope, limit: () => Limit, signal?: AbortSignal): Promise<ExpireResult> {
      await flush()
      const bytesBefore = store.usedBytes(scope)
      const res: ExpireResult = { pages: 0, tiles: 0, bytesBefore, bytesAfter: bytesBefore, limitBytes: limit().limitBytes, stoppedShort: false }
      while (!signal?.aborted) {
        const { limitBytes, policy } = limit()
        res.limitBytes = limitBytes
        res.bytesAfter = store.usedBytes(scope)
        if (res.bytesAfter <= limitBytes) break
        const page = policy === 'LRU' ? store.leastRecentlyUsed(scope) : store.leastFrequentlyUsed(scope)
        if (!page) {
          res.stoppedShort = true
          log.warn({ quota: name, usedBytes: res.bytesAfter, limitBytes }, 'disk quota exceeded but no page is left to expire')
          break
        }
        const g: PageGeometry | undefined = store.geometry(page.layer, page.gridSet, page.z)
        const deleted = g ? await truncatePage(page, pageRect(g, page.px, page.py)) : 0
        await flush()
        store.markTruncated(page) // whatever the page still counted is gone (or never was on disk)
        res.pages++
        res.tiles += deleted
        log.info({ quota: name, policy, layer: page.layer, gridSet: page.gridSet, format: page.format, parameterId: page.parameterId, z: page.z, page: [page.px, page.py], tiles: deleted, bytes: page.bytes }, 'disk quota: expired a tile page')
      }
      return res
    }
  }
}

export type CacheCleaner = ReturnType<typeof createCacheCleaner>
