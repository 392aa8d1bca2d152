// The embedded usage store: tables of services/diskquota/migrations.ts in the catalog database.
// Every flush is one transaction; page counts are clamped at zero and tile-set totals move by
// exactly what their pages moved, so a tile set's usage is always the sum of its pages.
import type Database from 'better-sqlite3'
import { relaxedSync, type Db } from '../storage/sqlite/database.js'
import type { PageDelta, PageRef, QuotaStore, Scope } from './quota-store.js'
import { tileSetId, type PageGeometry } from './tile-page.js'
import { evictionOrder, PAGE_REF_COLUMNS, pageGeometry, pageRef, pageStats, tileSetUsage, tileSetValues, type PageRow } from './quota-rows.js'

const ORDER = evictionOrder('') // SQLite compares text by bytes (BINARY)

export function createSqliteQuotaStore (db: Db): QuotaStore {
  const q = {
    readConfig: db.prepare('SELECT body FROM dq_config WHERE id = 1').pluck(),
    writeConfig: db.prepare(`INSERT INTO dq_config (id, body, updated_at) VALUES (1, ?, ?)
      ON CONFLICT(id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at`),
    getState: db.prepare('SELECT value FROM dq_state WHERE key = ?').pluck(),
    setState: db.prepare('INSERT INTO dq_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value'),
    geometry: db.prepare('SELECT min_x, min_y, tiles_x, tiles_y FROM dq_page_geometry WHERE layer = ? AND grid_set = ? AND z = ?'),
    saveGeometry: db.prepare('INSERT OR IGNORE INTO dq_page_geometry (layer, grid_set, z, min_x, min_y, tiles_x, tiles_y) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    ensureSet: db.prepare('INSERT OR IGNORE INTO dq_tilesets (id, layer, grid_set, format, parameter_id) VALUES (?, ?, ?, ?, ?)'),
    moveSet: db.prepare('UPDATE dq_tilesets SET tiles = tiles + ?, bytes = bytes + ? WHERE id = ?'),
    page: db.prepare('SELECT tiles, bytes, hits, created_ms, last_access_ms FROM dq_pages WHERE tileset_id = ? AND z = ? AND px = ? AND py = ?'),
    putPage: db.prepare(`INSERT OR REPLACE INTO dq_pages (tileset_id, z, px, py, layer, tiles, bytes, hits, created_ms, last_access_ms, fill, frequency)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    zeroPages: db.prepare('UPDATE dq_pages SET tiles = 0, bytes = 0, fill = 0, frequency = 0'),
    zeroSets: db.prepare('UPDATE dq_tilesets SET tiles = 0, bytes = 0'),
    truncate: db.prepare('UPDATE dq_pages SET tiles = 0, bytes = 0, fill = 0, frequency = 0 WHERE tileset_id = ? AND z = ? AND px = ? AND py = ?'),
    sets: db.prepare('SELECT id, layer, grid_set, format, parameter_id, tiles, bytes FROM dq_tilesets ORDER BY layer, grid_set, format, parameter_id'),
    forgetSets: db.prepare('DELETE FROM dq_tilesets WHERE substr(layer, 1, length(?)) = ?'),
    forgetGeometry: db.prepare('DELETE FROM dq_page_geometry WHERE substr(layer, 1, length(?)) = ?'),
    forgetLayerSets: db.prepare('DELETE FROM dq_tilesets WHERE layer = ?'),
    forgetLayerGeometry: db.prepare('DELETE FROM dq_page_geometry WHERE layer = ?')
  }
  const scopeSql = (s: Scope) => 'layers' in s
    ? { where: 'layer IN (SELECT value FROM json_each(?))', arg: JSON.stringify(s.layers) }
    : { where: 'layer NOT IN (SELECT value FROM json_each(?))', arg: JSON.stringify(s.except) }
  const pick = (order: string) => {
    const cache = new Map<string, Database.Statement<unknown[]>>()
    return async (s: Scope, n: number): Promise<PageRef[]> => {
      const { where, arg } = scopeSql(s)
      let st = cache.get(where)
      if (!st) {
        st = db.prepare(`SELECT ${PAGE_REF_COLUMNS}
          FROM dq_pages p JOIN dq_tilesets t ON t.id = p.tileset_id WHERE p.${where} AND (p.tiles > 0 OR p.bytes > 0) ORDER BY ${order} LIMIT ?`)
        cache.set(where, st)
      }
      return (st.all(arg, n) as any[]).map(pageRef)
    }
  }
  function geometry (layer: string, gridSet: string, z: number): PageGeometry | undefined {
    const r = q.geometry.get(layer, gridSet, z)
    return r === undefined ? undefined : pageGeometry(r)
  }
  const usedCache = new Map<string, ReturnType<Db['prepare']>>()

  /** Sets one page to new counts, moving its tile set's totals by the same amounts. */
  function setPage (d: PageDelta, id: string, old: PageRow | undefined, tiles: number, bytes: number, hits: number, accessMs: number, nowMs: number) {
    const s = pageStats(d, old, tiles, hits, accessMs, nowMs)
    q.putPage.run(id, d.z, d.px, d.py, d.tileSet.layer, tiles, bytes, hits, s.created, s.last, s.fill, s.frequency)
    q.moveSet.run(tiles - (old?.tiles ?? 0), bytes - (old?.bytes ?? 0), id)
  }

  const applyBatch = db.transaction((deltas: PageDelta[], nowMs: number) => {
    for (const d of deltas) {
      const id = tileSetId(d.tileSet)
      q.ensureSet.run(...tileSetValues(d.tileSet))
      const old = q.page.get(id, d.z, d.px, d.py) as PageRow | undefined
      setPage(d, id, old, Math.max(0, (old?.tiles ?? 0) + d.tiles), Math.max(0, (old?.bytes ?? 0) + d.bytes),
        (old?.hits ?? 0) + d.hits, d.accessMs, nowMs)
    }
  })
  const replaceCounts = db.transaction((pages: PageDelta[], nowMs: number) => {
    q.zeroPages.run()
    q.zeroSets.run()
    for (const d of pages) {
      const id = tileSetId(d.tileSet)
      q.ensureSet.run(...tileSetValues(d.tileSet))
      const old = q.page.get(id, d.z, d.px, d.py) as PageRow | undefined
      setPage(d, id, old && { ...old, tiles: 0, bytes: 0 }, d.tiles, d.bytes, old?.hits ?? 0, d.accessMs, nowMs)
    }
  })
  const markTruncated = db.transaction((pages: PageRef[]) => {
    for (const p of pages) {
      const old = q.page.get(p.tileSetId, p.z, p.px, p.py) as PageRow | undefined
      if (!old) continue
      q.truncate.run(p.tileSetId, p.z, p.px, p.py)
      q.moveSet.run(-old.tiles, -old.bytes, p.tileSetId)
    }
  })
  const settlePage = db.transaction((p: PageRef, scan: { tiles: number, bytes: number, maxTiles: number }, quietBeforeMs: number): 'changed' | 'same' | 'busy' => {
    const old = q.page.get(p.tileSetId, p.z, p.px, p.py) as PageRow | undefined
    if (!old) return 'same'
    if (old.last_access_ms >= quietBeforeMs) return 'busy'
    if (old.tiles === scan.tiles && old.bytes === scan.bytes) return 'same'
    const d: PageDelta = { tileSet: p, z: p.z, px: p.px, py: p.py, tiles: 0, bytes: 0, hits: 0, accessMs: 0, firstMs: 0, maxTiles: scan.maxTiles }
    setPage(d, p.tileSetId, old, scan.tiles, scan.bytes, old.hits, 0, old.last_access_ms)
    return 'changed'
  })

  return {
    readConfig: async () => q.readConfig.get() as string | undefined,
    writeConfig: async (body) => { db.transaction(() => q.writeConfig.run(body, new Date().toISOString()))() },
    getState: async (key) => q.getState.get(key) as string | undefined,
    setState: async (key, value) => { q.setState.run(key, value) },
    async geometry (layer, gridSet, z) { return geometry(layer, gridSet, z) },
    async saveGeometry (layer, gridSet, z, g: PageGeometry) {
      q.saveGeometry.run(layer, gridSet, z, g.minX, g.minY, g.tilesX, g.tilesY)
      return geometry(layer, gridSet, z) ?? g
    },
    // The accounting flush commits every second while tiles are written, on the event loop; with
    // the catalog's synchronous=FULL its fsync took up to 76 ms on a busy disk. Usage is a tally
    // of files on disk (rebuilt from them when lost), so it commits without the fsync.
    async applyBatch (deltas, nowMs) {
      relaxedSync(db, () => applyBatch(deltas, nowMs))
    },
    replaceCounts: async (pages, nowMs) => { replaceCounts(pages, nowMs) },
    async usedBytes (s) {
      const { where, arg } = scopeSql(s)
      let st = usedCache.get(where)
      if (!st) { st = db.prepare(`SELECT COALESCE(SUM(bytes), 0) FROM dq_tilesets WHERE ${where}`).pluck(); usedCache.set(where, st) }
      return st.get(arg) as number
    },
    leastRecentlyUsed: pick(ORDER.lru),
    leastFrequentlyUsed: pick(ORDER.lfu),
    markTruncated: async (pages) => { markTruncated(pages) },
    settlePage: async (page, scan, quietBeforeMs) => settlePage(page, scan, quietBeforeMs),
    tileSets: async () => (q.sets.all() as any[]).map(tileSetUsage),
    async forgetWorkspace (ws) {
      const prefix = `${ws}:`
      db.transaction(() => { q.forgetSets.run(prefix, prefix); q.forgetGeometry.run(prefix, prefix) })()
    },
    async forgetLayer (layer) {
      db.transaction(() => { q.forgetLayerSets.run(layer); q.forgetLayerGeometry.run(layer) })()
    }
  }
}
