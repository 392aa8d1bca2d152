// The granule index in the embedded SQLite database (whatever datastore.properties named: H2,
// shapefile or nothing), synchronous: sqlite-store.ts composes its methods into the units of work of
// MosaicStore. Footprints are in the mosaic's CRS; an R*Tree answers the spatial part of queries.
import type Database from 'better-sqlite3'
import type { Db } from '../storage/sqlite/database.js'
import type { MosaicSettings } from './indexer.js'
import type { AttrValue } from './collect.js'
import type { Filter } from '../filters/tree.js'
import { quoteSqliteName, toSqlite, type SqliteTarget } from '../filters/sqlite.js'
import type { Granule, GranuleQuery, MosaicRecord, NewGranule } from './store.js'
import { granuleRow, toGranule, toMosaic } from './index-rows.js'

export interface SqliteGranuleIndex {
  getMosaic (workspace: string, store: string): MosaicRecord | undefined
  listMosaics (): Array<{ workspace: string, store: string }>
  /** Creates the mosaic record or replaces it, dropping every granule of the old one. */
  putMosaic (rec: MosaicRecord): void
  setCrs (workspace: string, store: string, crs: string): void
  /** Replaces the settings and writes every granule's native CRS into the attribute `crsAttribute`
   *  names (a mosaic that has just become heterogeneous). */
  setCrsAttribute (workspace: string, store: string, settings: MosaicSettings): void
  /** Adds granules; a granule whose path is indexed already replaces that row (re-harvest). */
  addGranules (workspace: string, store: string, granules: NewGranule[]): Granule[]
  query (workspace: string, store: string, q?: GranuleQuery): Granule[]
  count (workspace: string, store: string, filter?: Filter): number
  getBySeq (workspace: string, store: string, seq: number): Granule | undefined
  /** Removes matching granules and returns them (for purging files). */
  remove (workspace: string, store: string, filter?: Filter, seq?: number): Granule[]
  /** Envelope of all footprints, undefined when empty. */
  extent (workspace: string, store: string): [number, number, number, number] | undefined
  /** Largest and smallest value of an attribute (time/elevation defaults). */
  minMax (workspace: string, store: string, attribute: string, filter?: Filter): { min: AttrValue, max: AttrValue }
  /** Distinct non-null values of an attribute, ascending, at most `limit` (time/elevation pickers). */
  distinct (workspace: string, store: string, attribute: string, limit: number): AttrValue[]
  /** Records that the granule file at `path` cannot be decoded; returns the locations of its rows. */
  markDamaged (path: string, reason: string): string[]
  /** Runs fn in one transaction together with the catalog writes it makes (a rollback clears the cache). */
  transaction<T> (fn: () => T): T
}

/** A filter's properties are a granule's attributes (JSON, read by a bound path); its footprint the bbox columns. */
export const GRANULE_ATTRIBUTES: SqliteTarget = {
  property (name, params) { params.push(`$."${name}"`); return 'json_extract(g.attrs, ?)' },
  footprint: [`g.${quoteSqliteName('minx')}`, `g.${quoteSqliteName('miny')}`, `g.${quoteSqliteName('maxx')}`, `g.${quoteSqliteName('maxy')}`]
}

export function createSqliteGranuleIndex (db: Db): SqliteGranuleIndex {
  const q = {
    getMosaic: db.prepare('SELECT * FROM mosaic_stores WHERE workspace = ? AND store = ?'),
    deleteMosaic: db.prepare('DELETE FROM mosaic_stores WHERE workspace = ? AND store = ?'),
    insertMosaic: db.prepare('INSERT INTO mosaic_stores (workspace, store, dir, type_name, crs, settings) VALUES (?, ?, ?, ?, ?, ?)'),
    setCrs: db.prepare('UPDATE mosaic_stores SET crs = ? WHERE workspace = ? AND store = ?'),
    maxSeq: db.prepare('SELECT coalesce(max(seq), 0) FROM mosaic_granules WHERE workspace = ? AND store = ?').pluck(),
    byPath: db.prepare('SELECT id, seq FROM mosaic_granules WHERE workspace = ? AND store = ? AND path = ?'),
    deleteId: db.prepare('DELETE FROM mosaic_granules WHERE id = ?'),
    insert: db.prepare(`INSERT INTO mosaic_granules (workspace, store, seq, location, path, crs, minx, miny, maxx, maxy,
      native_minx, native_miny, native_maxx, native_maxy, width, height, bands, data_type, nodata, ranges, attrs)
      VALUES (@workspace, @store, @seq, @location, @path, @crs, @minx, @miny, @maxx, @maxy,
      @native_minx, @native_miny, @native_maxx, @native_maxy, @width, @height, @bands, @data_type, @nodata, @ranges, @attrs)`),
    // A re-harvested path keeps its row's id as well as its seq: the same file is the same granule.
    insertKeepingId: db.prepare(`INSERT INTO mosaic_granules (id, workspace, store, seq, location, path, crs, minx, miny, maxx, maxy,
      native_minx, native_miny, native_maxx, native_maxy, width, height, bands, data_type, nodata, ranges, attrs)
      VALUES (@id, @workspace, @store, @seq, @location, @path, @crs, @minx, @miny, @maxx, @maxy,
      @native_minx, @native_miny, @native_maxx, @native_maxy, @width, @height, @bands, @data_type, @nodata, @ranges, @attrs)`),
    markDamaged: db.prepare('UPDATE mosaic_granules SET damage = ? WHERE path = ? RETURNING location').pluck(),
    setSettings: db.prepare('UPDATE mosaic_stores SET settings = ? WHERE workspace = ? AND store = ?'),
    fillCrsAttribute: db.prepare('UPDATE mosaic_granules SET attrs = json_set(attrs, ?, crs) WHERE workspace = ? AND store = ?'),
    bySeq: db.prepare('SELECT * FROM mosaic_granules WHERE workspace = ? AND store = ? AND seq = ?'),
    extent: db.prepare('SELECT min(minx) minx, min(miny) miny, max(maxx) maxx, max(maxy) maxy, count(*) n FROM mosaic_granules WHERE workspace = ? AND store = ?'),
    listMosaics: db.prepare('SELECT workspace, store FROM mosaic_stores ORDER BY workspace, store')
  }
  const where = (workspace: string, store: string, query: GranuleQuery) => {
    const params: unknown[] = [workspace, store]
    let sql = 'FROM mosaic_granules g WHERE g.workspace = ? AND g.store = ?'
    if (query.bbox) {
      // The R*Tree drives: candidate ids first, then the rows by primary key.
      sql += ' AND g.id IN (SELECT id FROM mosaic_granules_rtree WHERE maxx >= ? AND minx <= ? AND maxy >= ? AND miny <= ?)'
      params.push(query.bbox[0], query.bbox[2], query.bbox[1], query.bbox[3])
    }
    if (query.filter) {
      const f = toSqlite(query.filter, GRANULE_ATTRIBUTES)
      sql += ` AND (${f.sql})`
      params.push(...f.params)
    }
    return { sql, params }
  }
  // Statements are cached by their text (filters compile to a few shapes with bound values).
  const statements = new Map<string, Database.Statement<unknown[]>>()
  const prepared = (sql: string) => {
    let st = statements.get(sql)
    if (!st) {
      st = db.prepare(sql)
      if (statements.size > 500) statements.clear()
      statements.set(sql, st)
    }
    return st
  }
  // min/max of an attribute (TIME/ELEVATION defaults) is asked on every render: cached until the
  // index changes.
  let version = 0
  const minMaxCache = new Map<string, { min: AttrValue, max: AttrValue }>()
  const changed = () => { version++; minMaxCache.clear() }
  return {
    getMosaic (workspace, store) {
      const r = q.getMosaic.get(workspace, store) as any
      return r ? toMosaic(workspace, store, r) : undefined
    },
    listMosaics () { return q.listMosaics.all() as Array<{ workspace: string, store: string }> },
    putMosaic (rec) {
      q.deleteMosaic.run(rec.workspace, rec.store)
      q.insertMosaic.run(rec.workspace, rec.store, rec.dir, rec.typeName, rec.crs ?? null, JSON.stringify(rec.settings))
      changed()
    },
    setCrs (workspace, store, crs) { q.setCrs.run(crs, workspace, store) },
    setCrsAttribute (workspace, store, settings) {
      if (!settings.crsAttribute) return
      q.setSettings.run(JSON.stringify(settings), workspace, store)
      q.fillCrsAttribute.run(`$."${settings.crsAttribute}"`, workspace, store)
      changed()
    },
    addGranules (workspace, store, granules) {
      const out: Granule[] = []
      changed()
      let seq = q.maxSeq.get(workspace, store) as number
      for (const g of granules) {
        const old = q.byPath.get(workspace, store, g.path) as { id: number, seq: number } | undefined
        if (old) q.deleteId.run(old.id)
        const row = granuleRow(workspace, store, old ? old.seq : ++seq, g)
        const id = old ? (q.insertKeepingId.run({ ...row, id: old.id }), old.id) : Number(q.insert.run(row).lastInsertRowid)
        out.push({ ...g, id, seq: row.seq })
      }
      return out
    },
    query (workspace, store, query = {}) {
      const { sql, params } = where(workspace, store, query)
      let tail = ' ORDER BY g.seq'
      if (query.limit !== undefined || query.offset !== undefined) {
        tail += ' LIMIT ? OFFSET ?'
        params.push(query.limit ?? -1, query.offset ?? 0)
      }
      return (prepared(`SELECT g.* ${sql}${tail}`).all(...params) as any[]).map(toGranule)
    },
    count (workspace, store, filter) {
      const { sql, params } = where(workspace, store, { filter })
      return (prepared(`SELECT count(*) n ${sql}`).get(...params) as any).n as number
    },
    getBySeq (workspace, store, seq) {
      const r = q.bySeq.get(workspace, store, seq)
      return r ? toGranule(r) : undefined
    },
    remove (workspace, store, filter, seq) {
      const { sql, params } = where(workspace, store, { filter })
      let s = sql
      if (seq !== undefined) { s += ' AND g.seq = ?'; params.push(seq) }
      const rows = (prepared(`SELECT g.* ${s}`).all(...params) as any[]).map(toGranule)
      for (const r of rows) q.deleteId.run(r.id)
      if (rows.length) changed()
      return rows
    },
    extent (workspace, store) {
      const r = q.extent.get(workspace, store) as any
      return r.n > 0 ? [r.minx, r.miny, r.maxx, r.maxy] : undefined
    },
    minMax (workspace, store, attribute, filter) {
      const { sql, params } = where(workspace, store, { filter })
      const key = JSON.stringify([version, attribute, sql, params])
      const hit = minMaxCache.get(key)
      if (hit) return hit
      const r = prepared(`SELECT min(json_extract(g.attrs, ?)) mn, max(json_extract(g.attrs, ?)) mx ${sql}`)
        .get(`$."${attribute}"`, `$."${attribute}"`, ...params) as any
      const out = { min: r.mn ?? null, max: r.mx ?? null }
      if (minMaxCache.size > 1000) minMaxCache.clear()
      minMaxCache.set(key, out)
      return out
    },
    distinct (workspace, store, attribute, limit) {
      return prepared(`SELECT DISTINCT json_extract(g.attrs, ?) v FROM mosaic_granules g WHERE g.workspace = ? AND g.store = ?
        AND json_extract(g.attrs, ?) IS NOT NULL ORDER BY v LIMIT ?`).pluck()
        .all(`$."${attribute}"`, workspace, store, `$."${attribute}"`, limit) as AttrValue[]
    },
    markDamaged (path, reason) {
      return q.markDamaged.all(reason, path) as string[]
    },
    transaction (fn) {
      try { return db.transaction(fn)() } finally { changed() } // a rollback must not leave stale cache entries
    }
  }
}
