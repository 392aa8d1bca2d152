// What the disk quota needs from a usage store (GWC QuotaStore). The embedded SQLite store
// (sqlite-quota-store.ts) is the default; a PostgreSQL store joins behind this interface. Every
// method is one unit of work (one transaction).
import type { TileSet } from '../tilecache/blob-store.js'
import type { PageGeometry } from './tile-page.js'

/** Which layers a quota covers: exactly these, or every layer but these (the global quota). */
export type Scope = { layers: string[] } | { except: string[] }

/** Accumulated change of one page since the last flush. */
export interface PageDelta {
  tileSet: TileSet
  z: number
  px: number
  py: number
  tiles: number
  bytes: number
  hits: number
  /** Latest access (read or write) in the batch, ms since epoch; 0 = none. */
  accessMs: number
  /** Earliest event in the batch (the page's creation time if it is new). */
  firstMs: number
  maxTiles: number
}

export interface PageRef extends TileSet {
  tileSetId: string
  z: number
  px: number
  py: number
  tiles: number
  bytes: number
  hits: number
  lastAccessMs: number
  frequency: number
}

export interface TileSetUsage extends TileSet { id: string, tiles: number, bytes: number }

export interface QuotaStore {
  readConfig (): Promise<string | undefined>
  /** Persists the configuration before resolving (one transaction). */
  writeConfig (body: string): Promise<void>
  getState (key: string): Promise<string | undefined>
  setState (key: string, value: string): Promise<void>
  geometry (layer: string, gridSet: string, z: number): Promise<PageGeometry | undefined>
  /** Keeps the geometry a page set was first given; resolves to the one in force. */
  saveGeometry (layer: string, gridSet: string, z: number, g: PageGeometry): Promise<PageGeometry>
  /** Applies one flush of accounting in a transaction; counts never go below zero. */
  applyBatch (deltas: PageDelta[], nowMs: number): Promise<void>
  /** Replaces tile and byte counts with a scan of the disk (hits and access times are kept), in one transaction. */
  replaceCounts (pages: PageDelta[], nowMs: number): Promise<void>
  usedBytes (scope: Scope): Promise<number>
  /** The `n` pages with tiles that LRU would expire first (oldest last access first). */
  leastRecentlyUsed (scope: Scope, n: number): Promise<PageRef[]>
  /** The `n` pages with tiles that LFU would expire first (lowest frequency of use first). */
  leastFrequentlyUsed (scope: Scope, n: number): Promise<PageRef[]>
  /** The pages were truncated: whatever their counts still say is gone (one transaction). */
  markTruncated (pages: PageRef[]): Promise<void>
  /**
   * Sets a page's tile and byte counts to a scan of its tiles on disk, moving its tile set's
   * totals by the difference, unless the page was accessed at or after `quietBeforeMs` (a write
   * whose event may not be in yet: 'busy', whatever the counts). One transaction; 'same' when they
   * already agreed.
   */
  settlePage (page: PageRef, scan: { tiles: number, bytes: number, maxTiles: number }, quietBeforeMs: number): Promise<'changed' | 'same' | 'busy'>
  tileSets (): Promise<TileSetUsage[]>
  /** Usage rows of layers whose name starts with `<workspace>:` are dropped (one transaction). */
  forgetWorkspace (workspace: string): Promise<void>
  /** Usage rows of one layer (<workspace>:<layer>) are dropped (one transaction). */
  forgetLayer (layer: string): Promise<void>
}
