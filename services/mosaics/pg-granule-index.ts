// The granule index in PostgreSQL, the counterpart of sqlite-granule-index.ts: every method takes
// the client of the caller's transaction (or the pool for a lone read); pg-store.ts composes them
// into the units of work of MosaicStore. The spatial part of queries uses the footprint's GiST
// index (migration pg/002-footprints): the PostGIS column `footprint` where the database has it,
// else the expression box(point(minx, miny), point(maxx, maxy)). Like SQLite's R*Tree, both
// compare the envelopes inclusively (touching footprints intersect), without a recheck on the
// exact columns. Filters are the filter tree, compiled by services/filters/pg.ts (GRANULE_ATTRIBUTES).
import type { PgDatabase } from '../storage/pg/database.js'
import type { MosaicSettings } from './indexer.js'
import type { AttrValue } from './collect.js'
import type { Filter } from '../filters/tree.js'
import type { Granule, GranuleQuery, MosaicRecord, NewGranule } from './store.js'
import { GRANULE_COLUMNS, granuleRow, toGranule, toMosaic, type GranuleRowValues } from './index-rows.js'
import { quotePgName, toPg, type PgTarget } from '../filters/pg.js'

/** A client in a transaction, or the pool. */
export interface Queryable { query: PgDatabase['query'] }

/** How the footprint index is queried: the PostGIS column, or the box expression. */
export type FootprintMode = 'postgis' | 'box'

const COLUMNS = GRANULE_COLUMNS.map((c) => `g.${c}`).join(', ')
// Bulk inserts: one statement per this many granules (arrays of parameters, unnest).
const INSERT_CHUNK = 2000
const INSERT_COLUMNS: Array<[keyof GranuleRowValues, string]> = [
  ['seq', 'bigint'], ['location', 'text'], ['path', 'text'], ['crs', 'text'],
  ['minx', 'double precision'], ['miny', 'double precision'], ['maxx', 'double precision'], ['maxy', 'double precision'],
  ['native_minx', 'double precision'], ['native_miny', 'double precision'], ['native_maxx', 'double precision'], ['native_maxy', 'double precision'],
  ['width', 'bigint'], ['height', 'bigint'], ['bands', 'bigint'], ['data_type', 'text'], ['nodata', 'double precision'],
  ['ranges', 'text'], ['attrs', 'text']
]

/** Whether mosaic_granules has the PostGIS footprint column (asked once per store). */
export async function footprintMode (db: Queryable): Promise<FootprintMode> {
  const r = await db.query(`SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('mosaic_granules')
    AND attname = 'footprint' AND NOT attisdropped`)
  return r.rows.length > 0 ? 'postgis' : 'box'
}

/** Numbered parameters. */
class Params {
  readonly values: unknown[] = []
  bind = (v: unknown): string => { this.values.push(v); return `$${this.values.length}` }
}

/** A JSON value as SQLite's json_extract returns it (true/false as 1/0). */
const sqliteValue = (v: unknown): AttrValue => (typeof v === 'boolean' ? (v ? 1 : 0) : (v as AttrValue) ?? null)

/** The footprint mode, asked once: `db` is asked again only after the question failed. */
export function footprintModeOf (db: Queryable): () => Promise<FootprintMode> {
  let mode: Promise<FootprintMode> | undefined
  const get = () => (mode ??= footprintMode(db).catch((err) => { mode = undefined; throw err }))
  get().catch(() => {}) // asked at creation; a failure is reported to the first query that needs it
  return get
}

/**
 * A filter's properties are a granule's attributes (JSONB by a bound key), compared through
 * mw_json_value as SQLite compares json_extract's values (numbers below strings, strings byte by
 * byte; booleans as 1/0); before LIKE their text (mw_json_text). Its footprint: the bbox columns.
 */
const GRANULE_ATTRIBUTES: PgTarget = {
  property: (name, bind) => `mw_json_value(g.attrs::jsonb -> ${bind(name)})`,
  propertyText: (name, bind) => `mw_json_text(g.attrs::jsonb -> ${bind(name)})`,
  value: (v, bind) => `mw_json_value(${bind(JSON.stringify(typeof v === 'boolean' ? (v ? 1 : 0) : v ?? null))}::jsonb)`,
  footprint: [`g.${quotePgName('minx')}`, `g.${quotePgName('miny')}`, `g.${quotePgName('maxx')}`, `g.${quotePgName('maxy')}`]
}

export function createPgGranuleIndex (mode: () => Promise<FootprintMode>) {
  const where = async (p: Params, workspace: string, store: string, query: GranuleQuery) => {
    let sql = `FROM mosaic_granules g WHERE g.workspace = ${p.bind(workspace)} AND g.store = ${p.bind(store)}`
    if (query.bbox) {
      const [x0, y0, x1, y1] = query.bbox.map((v) => `${p.bind(v)}::double precision`)
      sql += (await mode()) === 'postgis'
        ? ` AND g.footprint && ST_MakeEnvelope(${x0}, ${y0}, ${x1}, ${y1})`
        : ` AND box(point(g.minx, g.miny), point(g.maxx, g.maxy)) && box(point(${x0}, ${y0}), point(${x1}, ${y1}))`
    }
    if (query.filter) sql += ` AND (${toPg(query.filter, GRANULE_ATTRIBUTES, p.bind)})`
    return sql
  }

  const index = {
    async getMosaic (c: Queryable, workspace: string, store: string): Promise<MosaicRecord | undefined> {
      const r = await c.query('SELECT * FROM mosaic_stores WHERE workspace = $1 AND store = $2', [workspace, store])
      return r.rows[0] ? toMosaic(workspace, store, r.rows[0]) : undefined
    },
    async listMosaics (c: Queryable): Promise<Array<{ workspace: string, store: string }>> {
      const r = await c.query('SELECT workspace, store FROM mosaic_stores ORDER BY workspace COLLATE "C", store COLLATE "C"')
      return r.rows as Array<{ workspace: string, store: string }>
    },
    /** Creates the mosaic record or replaces it, dropping every granule of the old one. */
    async putMosaic (c: Queryable, rec: MosaicRecord): Promise<void> {
      await c.query('DELETE FROM mosaic_stores WHERE workspace = $1 AND store = $2', [rec.workspace, rec.store])
      await c.query('INSERT INTO mosaic_stores (workspace, store, dir, type_name, crs, settings) VALUES ($1, $2, $3, $4, $5, $6)',
        [rec.workspace, rec.store, rec.dir, rec.typeName, rec.crs ?? null, JSON.stringify(rec.settings)])
    },
    async setCrs (c: Queryable, workspace: string, store: string, crs: string): Promise<void> {
      await c.query('UPDATE mosaic_stores SET crs = $1 WHERE workspace = $2 AND store = $3', [crs, workspace, store])
    },
    /** Replaces the settings and writes every granule's native CRS into the attribute `crsAttribute`
     *  names (a key present keeps its place, a new one goes last, as SQLite's json_set does). */
    async setCrsAttribute (c: Queryable, workspace: string, store: string, settings: MosaicSettings): Promise<void> {
      const attribute = settings.crsAttribute
      if (!attribute) return
      await c.query('UPDATE mosaic_stores SET settings = $1 WHERE workspace = $2 AND store = $3', [JSON.stringify(settings), workspace, store])
      const rows = (await c.query<{ id: number, crs: string, attrs: string }>('SELECT id, crs, attrs FROM mosaic_granules WHERE workspace = $1 AND store = $2', [workspace, store])).rows
      if (rows.length === 0) return
      const attrs = rows.map((r) => JSON.stringify({ ...JSON.parse(r.attrs), [attribute]: r.crs }))
      await c.query('UPDATE mosaic_granules g SET attrs = u.attrs FROM unnest($1::bigint[], $2::text[]) AS u(id, attrs) WHERE g.id = u.id',
        [rows.map((r) => r.id), attrs])
    },
    /** Adds granules in a few statements; a granule whose path is indexed already replaces that
     *  row and keeps its seq (re-harvest), as the SQLite index does one granule at a time. */
    async addGranules (c: Queryable, workspace: string, store: string, granules: NewGranule[]): Promise<void> {
      if (granules.length === 0) return
      const paths = [...new Set(granules.map((g) => g.path))]
      const maxSeq = Number((await c.query('SELECT coalesce(max(seq), 0) AS n FROM mosaic_granules WHERE workspace = $1 AND store = $2', [workspace, store])).rows[0].n)
      const old = await c.query<{ path: string, seq: number, id: number }>('DELETE FROM mosaic_granules WHERE workspace = $1 AND store = $2 AND path = ANY($3::text[]) RETURNING path, seq, id',
        [workspace, store, paths])
      const seqOf = new Map(old.rows.map((r) => [r.path, r.seq]))
      // A re-harvested path keeps its row's id as well as its seq: the same file is the same granule.
      const idOf = new Map(old.rows.map((r) => [r.path, r.id]))
      // A path given twice: the later granule replaces the earlier one, under the earlier's seq.
      const last = new Map<string, NewGranule>()
      let seq = maxSeq
      for (const g of granules) {
        if (!seqOf.has(g.path)) seqOf.set(g.path, ++seq)
        last.set(g.path, g)
      }
      const rows = [...last.values()].map((g) => ({ id: idOf.get(g.path) ?? null, ...granuleRow(workspace, store, seqOf.get(g.path)!, g) }))
      const names = INSERT_COLUMNS.map(([col]) => col).join(', ')
      const arrays = INSERT_COLUMNS.map(([, type], k) => `$${k + 4}::${type}[]`).join(', ')
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const chunk = rows.slice(i, i + INSERT_CHUNK)
        // A new granule's id comes from the identity column's sequence; a replaced one keeps its own.
        await c.query(`INSERT INTO mosaic_granules (id, workspace, store, ${names})
          SELECT coalesce(u.id, nextval(pg_get_serial_sequence('mosaic_granules', 'id'))), $1, $2, ${INSERT_COLUMNS.map(([col]) => `u.${col}`).join(', ')}
          FROM unnest($3::bigint[], ${arrays}) AS u(id, ${names})`,
        [workspace, store, chunk.map((r) => r.id), ...INSERT_COLUMNS.map(([col]) => chunk.map((r) => r[col]))])
      }
    },
    async query (c: Queryable, workspace: string, store: string, query: GranuleQuery = {}): Promise<Granule[]> {
      const p = new Params()
      let sql = `SELECT ${COLUMNS} ${await where(p, workspace, store, query)} ORDER BY g.seq`
      if (query.limit !== undefined || query.offset !== undefined) {
        // SQLite reads a negative limit as none and a negative offset as 0; PostgreSQL refuses them.
        const limit = query.limit === undefined || query.limit < 0 ? null : query.limit
        sql += ` LIMIT ${p.bind(limit)}::bigint OFFSET ${p.bind(Math.max(0, query.offset ?? 0))}::bigint`
      }
      return (await c.query(sql, p.values)).rows.map(toGranule)
    },
    async count (c: Queryable, workspace: string, store: string, filter?: Filter): Promise<number> {
      const p = new Params()
      const sql = `SELECT count(*) AS n ${await where(p, workspace, store, { filter })}`
      return Number((await c.query(sql, p.values)).rows[0].n)
    },
    async getBySeq (c: Queryable, workspace: string, store: string, seq: number): Promise<Granule | undefined> {
      const r = await c.query(`SELECT ${COLUMNS} FROM mosaic_granules g WHERE g.workspace = $1 AND g.store = $2 AND g.seq = $3`, [workspace, store, seq])
      return r.rows[0] ? toGranule(r.rows[0]) : undefined
    },
    /** Removes the granules matching the filter (and of these seqs when given) and returns them:
     *  by the seqs' order when given, else by seq. */
    async remove (c: Queryable, workspace: string, store: string, filter?: Filter, seqs?: number[]): Promise<Granule[]> {
      const p = new Params()
      let sql = `DELETE ${await where(p, workspace, store, { filter })}`
      if (seqs !== undefined) sql += ` AND g.seq = ANY(${p.bind(seqs)}::bigint[])`
      const removed = (await c.query(`${sql} RETURNING ${COLUMNS}`, p.values)).rows.map(toGranule).sort((a, b) => a.seq - b.seq)
      if (seqs === undefined) return removed
      const bySeq = new Map(removed.map((g) => [g.seq, g]))
      return seqs.flatMap((s) => {
        const g = bySeq.get(s)
        bySeq.delete(s)
        return g ? [g] : []
      })
    },
    async extent (c: Queryable, workspace: string, store: string): Promise<[number, number, number, number] | undefined> {
      const r = (await c.query('SELECT min(minx) minx, min(miny) miny, max(maxx) maxx, max(maxy) maxy, count(*) n FROM mosaic_granules WHERE workspace = $1 AND store = $2',
        [workspace, store])).rows[0]
      return Number(r.n) > 0 ? [r.minx, r.miny, r.maxx, r.maxy] : undefined
    },
    async minMax (c: Queryable, workspace: string, store: string, attribute: string, filter?: Filter): Promise<{ min: AttrValue, max: AttrValue }> {
      const p = new Params()
      const key = p.bind(attribute)
      const from = await where(p, workspace, store, { filter })
      const r = (await c.query(`WITH s AS (SELECT g.attrs::jsonb -> ${key} AS v ${from}),
        vals AS (SELECT v, mw_json_value(v) AS k FROM s)
        SELECT (SELECT v FROM vals WHERE k IS NOT NULL ORDER BY k LIMIT 1) AS mn,
          (SELECT v FROM vals WHERE k IS NOT NULL ORDER BY k DESC LIMIT 1) AS mx`, p.values)).rows[0]
      return { min: sqliteValue(r.mn), max: sqliteValue(r.mx) }
    },
    async distinct (c: Queryable, workspace: string, store: string, attribute: string, limit: number): Promise<AttrValue[]> {
      const r = await c.query(`SELECT DISTINCT ON (k) v, k FROM (SELECT g.attrs::jsonb -> $3 AS v, mw_json_value(g.attrs::jsonb -> $3) AS k
        FROM mosaic_granules g WHERE g.workspace = $1 AND g.store = $2) s WHERE k IS NOT NULL ORDER BY k LIMIT $4`, [workspace, store, attribute, limit])
      return r.rows.map((row) => sqliteValue(row.v))
    },
    /** Records that the granule file at `path` cannot be decoded; returns its rows' locations and mosaics. */
    async markDamaged (c: Queryable, path: string, reason: string): Promise<Array<{ location: string, workspace: string, store: string }>> {
      return (await c.query('UPDATE mosaic_granules SET damage = $1 WHERE path = $2 RETURNING location, workspace, store', [reason, path])).rows as any
    }
  }
  return index
}
export type PgGranuleIndex = ReturnType<typeof createPgGranuleIndex>
