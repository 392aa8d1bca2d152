// GWC CacheCleaner / CacheCleanerTask: while the tiles of a quota's layers use more than the
// quota, truncate the least recently (LRU) or least frequently (LFU) used page. Pages are taken
// from the store a batch at a time in policy order and the batch's accounting is committed once
// (a page's recorded bytes are exactly what its truncation frees), so eviction costs file
// deletions, not one database commit per page. The quota is re-read before every page, so a
// configuration change applies at once.
import type { ExpirationPolicy } from './quota-config.js'
import type { PageRef, QuotaStore, Scope } from './quota-store.js'
import { pageRect } from './tile-page.js'
import type { Rect } from '../seed/grid-sets.js'

export interface Limit { limitBytes: number, policy: ExpirationPolicy }

export interface CleanerDeps {
  store: QuotaStore
  /**
   * Makes every recorded tile event visible in the store (the accounting flush), then runs
   * `after` before any later flush writes.
   */
  flush: (after?: () => Promise<void>) => Promise<void>
  /** Deletes the page's tiles from the blob store; returns how many existed. */
  truncatePage: (page: PageRef, rect: Rect) => Promise<number>
  log: { info: (obj: object, msg: string) => void, warn: (obj: object, msg: string) => void }
  /** Pages taken from the store at a time. */
  batch?: number
}

export interface ExpireResult { pages: number, tiles: number, bytesBefore: number, bytesAfter: number, limitBytes: number, stoppedShort: boolean }

export function createCacheCleaner ({ store, flush, truncatePage, log, batch = 64 }: CleanerDeps) {
  return {
    async expire (name: string, scope: Scope, limit: () => Limit, signal?: AbortSignal): Promise<ExpireResult> {
      await flush()
      let used = await store.usedBytes(scope)
      const res: ExpireResult = { pages: 0, tiles: 0, bytesBefore: used, bytesAfter: used, limitBytes: limit().limitBytes, stoppedShort: false }
      while (!signal?.aborted) {
        const { limitBytes, policy } = limit()
        res.limitBytes = limitBytes
        if (used <= limitBytes) break
        const pages = policy === 'LRU' ? await store.leastRecentlyUsed(scope, batch) : await store.leastFrequentlyUsed(scope, batch)
        if (pages.length === 0) {
          res.stoppedShort = true
          log.warn({ quota: name, usedBytes: used, limitBytes }, 'disk quota exceeded but no page is left to expire')
          break
        }
        const done: PageRef[] = []
        for (const page of pages) {
          if (signal?.aborted || used <= limit().limitBytes) break
          const g = await store.geometry(page.layer, page.gridSet, page.z)
          const deleted = g ? await truncatePage(page, pageRect(g, page.px, page.py)) : 0
          done.push(page)
          used -= page.bytes
          res.pages++
          res.tiles += deleted
          log.info({ quota: name, policy, layer: page.layer, gridSet: page.gridSet, format: page.format, parameterId: page.parameterId, z: page.z, page: [page.px, page.py], tiles: deleted, bytes: page.bytes }, 'disk quota: expired a tile page')
        }
        // Whatever these pages still counted is gone (or never was on disk); no flush comes between.
        await flush(() => store.markTruncated(done))
        used = await store.usedBytes(scope) // tiles written meanwhile count too
      }
      res.bytesAfter = used
      return res
    }
  }
}

export type CacheCleaner = ReturnType<typeof createCacheCleaner>
