// A quota page's tiles on disk: deleted when the cleaner evicts the page, counted when it settles
// a truncated page against the disk. Both go position by position, synchronously in short slices
// (no directory listing, no stat, no thread-pool round trip: as fast as `rm`).
import fs from 'node:fs'
import path from 'node:path'
import type { TileKey } from '../tilecache/blob-store.js'
import type { Rect } from '../tilecache/grid-sets.js'
import type { PageRef } from './quota-store.js'
import { blockRound } from './tile-page.js'
import type { QuotaContext } from './quota-context.js'

/** Tile positions unlinked or looked at synchronously between two turns of the event loop (about a millisecond). */
const UNLINK_SLICE = 64

export function pageFiles (ctx: QuotaContext) {
  const { blobStore } = ctx.deps

  /**
   * Calls `tile` with the path of every tile position of a page's rectangle, synchronously in short
   * slices (no directory listing, no thread-pool round trip), and `column` with each column's folder.
   */
  async function eachPosition (page: PageRef, rect: Rect, tile: (file: string) => void, column: (dir: string) => void = () => {}): Promise<void> {
    let slice = 0
    const key: TileKey = { layer: page.layer, gridSet: page.gridSet, format: page.format, parameterId: page.parameterId, z: page.z, x: 0, y: 0 }
    for (let x = rect[0]; x <= rect[2]; x++) {
      for (let y = rect[1]; y <= rect[3]; y++) {
        key.x = x
        key.y = y
        tile(blobStore.tilePath(key))
        if (++slice === UNLINK_SLICE) { slice = 0; await new Promise((resolve) => setImmediate(resolve)) }
      }
      column(path.dirname(blobStore.tilePath(key)))
    }
  }

  return {
    /**
     * Deletes a page's tiles. A page that is mostly full is unlinked tile by tile; its accounting
     * is settled by markTruncated, which zeroes the page. A sparse page (pages are large at deep
     * levels) is truncated through the blob store, which walks only what exists.
     */
    async truncatePage (page: PageRef, rect: Rect): Promise<number> {
      const area = (rect[2] - rect[0] + 1) * (rect[3] - rect[1] + 1)
      if (area > Math.max(4096, 8 * page.tiles)) {
        return blobStore.truncate({
          layer: page.layer, gridSet: page.gridSet, formats: [page.format], parameterId: page.parameterId,
          zoomStart: page.z, zoomStop: page.z, rectAt: () => rect, signal: ctx.signal
        })
      }
      let n = 0
      await eachPosition(page, rect, (file) => {
        try { fs.unlinkSync(file); n++ } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
        }
      }, (dir) => {
        // An emptied column directory goes too, as the blob store's truncate does (it recreates
        // a directory that vanished under a write).
        try { fs.rmdirSync(dir) } catch { /* not empty, or gone */ }
      })
      return n
    },

    /** The page's tiles on disk, counted position by position (the cleaner settles a truncated page with it). */
    async scanPage (page: PageRef, rect: Rect): Promise<{ tiles: number, bytes: number }> {
      let tiles = 0
      let bytes = 0
      await eachPosition(page, rect, (file) => {
        const st = fs.statSync(file, { throwIfNoEntry: false })
        if (st) { tiles++; bytes += blockRound(st.size, ctx.config.diskBlockSize) }
      })
      return { tiles, bytes }
    }
  }
}
