// The row mapping of the usage store (quota-store.ts), shared by the SQLite (sqlite-quota-store.ts)
// and PostgreSQL (pg-quota-store.ts) implementations: what a page's statistics become, the
// eviction orders and the reading of rows.
import type { TileSet } from '../tilecache/blob-store.js'
import type { TileFormat } from '../tilecache/formats.js'
import type { PageDelta, PageRef, TileSetUsage } from './quota-store.js'
import { frequencyOfUse, tileSetId, type PageGeometry } from './tile-page.js'

export interface PageRow { tiles: number, bytes: number, hits: number, created_ms: number, last_access_ms: number }

/** The columns of dq_tilesets without its counts, as written. */
export function tileSetValues (s: TileSet): [string, string, string, string, string] {
  return [tileSetId(s), s.layer, s.gridSet, s.format, s.parameterId]
}

/**
 * A page's creation time, last access, fill and frequency of use once it holds `tiles` tiles and
 * `hits` hits after the changes of `d` (`old`: the page as it was, if it existed).
 */
export function pageStats (d: PageDelta, old: Pick<PageRow, 'created_ms' | 'last_access_ms'> | undefined, tiles: number, hits: number, accessMs: number, nowMs: number) {
  const created = old?.created_ms ?? (d.firstMs || nowMs)
  const last = Math.max(old?.last_access_ms ?? created, accessMs)
  const fill = Math.min(1, tiles / d.maxTiles)
  return { created, last, fill, frequency: frequencyOfUse(hits, created, last, fill) }
}

/** The columns eviction reads: a page (p) with its tile set (t). */
export const PAGE_REF_COLUMNS = 'p.tileset_id, p.z, p.px, p.py, p.tiles, p.bytes, p.hits, p.last_access_ms, p.frequency, t.layer, t.grid_set, t.format, t.parameter_id'

/**
 * GWC SQLDialect: LRU = oldest last access; LFU = lowest frequency of use. Ties: older, then deeper
 * zoom, then the page and its tile set id in byte order (`binary`: the collation clause that
 * compares text by bytes, as SQLite does), so that both stores pick the same pages in the same order.
 */
export const evictionOrder = (binary: string) => ({
  lru: `p.last_access_ms ASC, p.hits ASC, p.z DESC, p.px, p.py, p.tileset_id${binary}`,
  lfu: `p.frequency ASC, p.last_access_ms ASC, p.z DESC, p.px, p.py, p.tileset_id${binary}`
})

export const pageRef = (r: any): PageRef => ({
  tileSetId: r.tileset_id, layer: r.layer, gridSet: r.grid_set, format: r.format as TileFormat, parameterId: r.parameter_id,
  z: r.z, px: r.px, py: r.py, tiles: r.tiles, bytes: r.bytes, hits: r.hits, lastAccessMs: r.last_access_ms, frequency: r.frequency
})

export const tileSetUsage = (r: any): TileSetUsage => ({
  id: r.id, layer: r.layer, gridSet: r.grid_set, format: r.format, parameterId: r.parameter_id, tiles: r.tiles, bytes: r.bytes
})

export const pageGeometry = (r: any): PageGeometry => ({ minX: r.min_x, minY: r.min_y, tilesX: r.tiles_x, tilesY: r.tiles_y })
