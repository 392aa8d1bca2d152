// GWC CacheCleaner / CacheCleanerTask: while the tiles of a quota's layers use more than the
// quota, truncate the least recently (LRU) or least frequently (LFU) used page. Pages are taken
// from the store a batch at a time in policy order and the batch's accounting is committed once
// (a page's recorded bytes are exactly what its truncation frees), so eviction costs file
// deletions, not one database commit per page. The quota is re-read before every page, so a
// configuration change applies at once.
//
// Zeroing a truncated page is exact only if no tile of it is written meanwhile. A render thread
// writing into the page while it is truncated (on this node or another) can leave a tile on disk
// whose event the zeroing swallowed, or report a replaced tile the truncation already removed. So
// the cleaner settles each page it truncated against the disk: QUIET_MS after the truncation it
// counts the page's tiles on disk (the scan, at S), and QUIET_MS after the scan it replaces the
// page's counts with the scan's, unless the page saw an event since S - QUIET_MS. A tile written
// before the scan has an event no earlier than its write; it is either in the store before S -
// QUIET_MS (counted by both) or later and then, a node flushing every second, in the store by S +
// QUIET_MS, where it makes the page busy: its count is never taken twice. A busy page is scanned
// again.
import type { ExpirationPolicy } from './quota-config.js'
import type { PageRef, QuotaStore, Scope } from './quota-store.js'
import { maxTilesInPage, pageRect } from './tile-page.js'
import { rectArea, type Rect } from '../tilecache/grid-sets.js'

/** From a truncation to its page's scan, and from the scan to its settling (see the top). */
export const QUIET_MS = 5_000
/** A page busy for this long after its truncation is left as it is. */
const SETTLE_WITHIN_MS = 10 * 60_000
/** Pages larger than this (tile positions) are not counted position by position. */
const SCAN_LIMIT = 65_536

const pageKey = (p: PageRef) => `${p.tileSetId}@${p.z}/${p.px}/${p.py}`

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
  /** The page's tiles on disk and their bytes (rounded to the block size). */
  scanPage: (page: PageRef, rect: Rect) => Promise<{ tiles: number, bytes: number }>
  now: () => number
  log: { info: (obj: object, msg: string) => void, warn: (obj: object, msg: string) => void }
  /** Pages taken from the store at a time. */
  batch?: number
}

export interface ExpireResult { pages: number, tiles: number, bytesBefore: number, bytesAfter: number, limitBytes: number, stoppedShort: boolean }

export function createCacheCleaner ({ store, flush, truncatePage, scanPage, now, log, batch = 64 }: CleanerDeps) {
  interface Unsettled { page: PageRef, rect: Rect, maxTiles: number, at: number, scan?: { tiles: number, bytes: number, at: number } }
  const unsettled = new Map<string, Unsettled>()

  /** Scans or settles the pages truncated here (see the top); the caller flushes the accounting first. */
  async function settle (signal?: AbortSignal): Promise<void> {
    for (const [key, u] of unsettled) {
      const t = now()
      if (signal?.aborted) return
      if (t - u.at > SETTLE_WITHIN_MS) { unsettled.delete(key); continue }
      if (!u.scan) {
        if (t - u.at >= QUIET_MS) u.scan = { ...await scanPage(u.page, u.rect), at: t }
        continue
      }
      if (t - u.scan.at < QUIET_MS) continue
      const outcome = await store.settlePage(u.page, { tiles: u.scan.tiles, bytes: u.scan.bytes, maxTiles: u.maxTiles }, u.scan.at - QUIET_MS)
      if (outcome === 'busy') { u.scan = undefined; continue }
      unsettled.delete(key)
      if (outcome === 'changed') log.info({ layer: u.page.layer, gridSet: u.page.gridSet, z: u.page.z, page: [u.page.px, u.page.py] }, 'disk quota: settled a truncated page against the disk')
    }
  }

  return {
    settle,
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
          const rect = g && pageRect(g, page.px, page.py)
          const deleted = rect ? await truncatePage(page, rect) : 0
          if (rect && rectArea(rect) <= SCAN_LIMIT) {
            unsettled.set(pageKey(page), { page, rect, maxTiles: maxTilesInPage(g), at: now() })
          }
          done.push(page)
          used -= page.bytes
          res.pages++
          res.tiles += deleted
          log.info({ quota: name, policy, layer: page.layer, gridSet: page.gridSet, format: page.format, parameterId: page.parameterId, z: page.z, page: [page.px, page.py], tiles: deleted, bytes: page.bytes }, 'disk quota: expired a tile page')
        }
        // Whatever these pages still counted is gone (or never was on disk); no flush comes between.
        await flush(() => store.markTruncated(done))
        // Their quiet time runs from the zeroing: a scan before it would meet the counts it zeroes.
        const zeroed = now()
        for (const page of done) {
          const u = unsettled.get(pageKey(page))
          if (u) u.at = zeroed
        }
        used = await store.usedBytes(scope) // tiles written meanwhile count too
      }
      res.bytesAfter = used
      return res
    }
  }
}

export type CacheCleaner = ReturnType<typeof createCacheCleaner>
