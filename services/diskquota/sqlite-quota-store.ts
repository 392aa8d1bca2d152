// The embedded usage store: tables of services/diskquota/migrations.ts in the catalog database.
// Every flush is one transaction; page counts are clamped at zero and tile-set totals move by
// exactly what their pages moved, so a tile set's usage is always the sum of its pages.
import type Database from 'better-sqlite3'
import { relaxedSync, type Db } from '../storage/database.js'
import type { PageDelta, PageRef, QuotaStore, Scope, TileSetUsage } from './quota-store.js'
import { frequencyOfUse, tileSetId, type PageGeometry } from './tile-page.js'
import type { TileFormat } from '../seed/formats.js'

interface PageRow { tiles: number, bytes: number, hits: number, created_ms: number, last_access_ms: number }

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
    return (s: Scope, n: number): PageRef[] => {
      const { where, arg } = scopeSql(s)
      let st = cache.get(where)
      if (!st) {
        st = db.prepare(`SELECT p.tileset_id, p.z, p.px, p.py, p.tiles, p.bytes, p.hits, p.last_access_ms, p.frequency, t.layer, t.grid_set, t.format, t.parameter_id
          FROM dq_pages p JOIN dq_tilesets t ON t.id = p.tileset_id WHERE p.${where} AND (p.tiles > 0 OR p.bytes > 0) ORDER BY ${order} LIMIT ?`)
        cache.set(where, st)
      }
      return (st.all(arg, n) as any[]).map((r) => ({
        tileSetId: r.tileset_id, layer: r.layer, gridSet: r.grid_set, format: r.format as TileFormat, parameterId: r.parameter_id,
        z: r.z, px: r.px, py: r.py, tiles: r.tiles, bytes: r.bytes, hits: r.hits, lastAccessMs: r.last_access_ms, frequency: r.frequency
      }))
    }
  }
  const usedCache = new Map<string, ReturnType<Db['prepare']>>()

  /** Sets one page to new counts, moving its tile set's totals by the same amounts. */
  function setPage (d: PageDelta, id: string, old: PageRow | undefined, tiles: number, bytes: number, hits: number, accessMs: number, nowMs: number) {
    const created = old?.created_ms ?? (d.firstMs || nowMs)
    const last = Math.max(old?.last_access_ms ?? created, accessMs)
    const fill = Math.min(1, tiles / d.maxTiles)
    q.putPage.run(id, d.z, d.px, d.py, d.tileSet.layer, tiles, bytes, hits, created, last, fill, frequencyOfUse(hits, created, last, fill))
    q.moveSet.run(tiles - (old?.tiles ?? 0), bytes - (old?.bytes ?? 0), id)
  }

  const applyBatch = db.transaction((deltas: PageDelta[], nowMs: number) => {
    for (const d of deltas) {
      const id = tileSetId(d.tileSet)
      q.ensureSet.run(id, d.tileSet.layer, d.tileSet.gridSet, d.tileSet.format, d.tileSet.parameterId)
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
      q.ensureSet.run(id, d.tileSet.layer, d.tileSet.gridSet, d.tileSet.format, d.tileSet.parameterId)
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

  return {
    readConfig: () => q.readConfig.get() as string | undefined,
    writeConfig: (body) => { db.transaction(() => q.writeConfig.run(body, new Date().toISOString()))() },
    getState: (key) => q.getState.get(key) as string | undefined,
    setState: (key, value) => { q.setState.run(key, value) },
    geometry (layer, gridSet, z) {
      const r = q.geometry.get(layer, gridSet, z) as any
      return r && { minX: r.min_x, minY: r.min_y, tilesX: r.tiles_x, tilesY: r.tiles_y }
    },
    saveGeometry (layer, gridSet, z, g: PageGeometry) { q.saveGeometry.run(layer, gridSet, z, g.minX, g.minY, g.tilesX, g.tilesY) },
    // The accounting flush commits every second while tiles are written, on the event loop; with
    // the catalog's synchronous=FULL its fsync took up to 76 ms on a busy disk. Usage is a tally
    // of files on disk (rebuilt from them when lost), so it commits without the fsync.
    applyBatch (deltas, nowMs) {
      relaxedSync(db, () => applyBatch(deltas, nowMs))
    },
    replaceCounts: (pages, nowMs) => replaceCounts(pages, nowMs),
    usedBytes (s) {
      const { where, arg } = scopeSql(s)
      let st = usedCache.get(where)
      if (!st) { st = db.prepare(`SELECT COALESCE(SUM(bytes), 0) FROM dq_tilesets WHERE ${where}`).pluck(); usedCache.set(where, st) }
      return st.get(arg) as number
    },
    // GWC SQLDialect: LRU = oldest last access; LFU = lowest frequency of use. Ties: older, then deeper zoom.
    leastRecentlyUsed: pick('p.last_access_ms ASC, p.hits ASC, p.z DESC, p.px, p.py'),
    leastFrequentlyUsed: pick('p.frequency ASC, p.last_access_ms ASC, p.z DESC, p.px, p.py'),
    markTruncated: (pages) => markTruncated(pages),
    tileSets: () => (q.sets.all() as any[]).map((r): TileSetUsage => ({
      id: r.id, layer: r.layer, gridSet: r.grid_set, format: r.format, parameterId: r.parameter_id, tiles: r.tiles, bytes: r.bytes
    })),
    forgetWorkspace (ws) {
      const prefix = `${ws}:`
      db.transaction(() => { q.forgetSets.run(prefix, prefix); q.forgetGeometry.run(prefix, prefix) })()
    },
    forgetLayer (layer) {
      db.transaction(() => { q.forgetLayerSets.run(layer); q.forgetLayerGeometry.run(layer) })()
    }
  }
}
