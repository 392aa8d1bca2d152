// The usage store (quota-store.ts) in the shared PostgreSQL catalog: the tables of migrations.ts as
// schema.ts translates them; the counterpart of sqlite-quota-store.ts, with its row mapping
// (quota-rows.ts). Several nodes flush usage of the same pages at once, so no count is read and
// written back: a page's additions are one upsert (INSERT ... ON CONFLICT DO UPDATE adding to the
// row), a removal one UPDATE computing the clamped counts from the row it locks and returning what
// they moved; tile-set totals then move by exactly what their pages moved (a tile set's usage
// stays the sum of its pages). A flush holds its tile sets, locks its pages, then moves the tile
// sets' totals, each step in key order, so concurrent flushes queue instead of deadlocking. The statistics PostgreSQL computes are the same
// IEEE double arithmetic as tile-page.ts frequencyOfUse, so both stores rank pages for eviction
// identically (ties too: text compared by bytes, as SQLite does).
import type { PgClient, PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import type { PageDelta, PageRef, QuotaStore, Scope } from './quota-store.js'
import { tileSetId, type PageGeometry } from './tile-page.js'
import { evictionOrder, PAGE_REF_COLUMNS, pageGeometry, pageRef, pageStats, tileSetUsage, tileSetValues } from './quota-rows.js'

const ORDER = evictionOrder(' COLLATE "C"') // byte order, as SQLite's BINARY

/** tile-page.ts frequencyOfUse as SQL: hits per minute of life (whole minutes) times the fill. */
export const frequencySql = (hits: string, created: string, last: string, fill: string) =>
  `(${hits})::float8 / GREATEST(1, 1 + floor((${last}) / 60000.0) - floor((${created}) / 60000.0))::float8 * (${fill})`

/** The page $1..$4 (tileset_id, z, px, py). */
const PAGE = 'tileset_id = $1 AND z = $2 AND px = $3 AND py = $4'

interface Move { tiles: number, bytes: number }

/** Pages in key order (stable: two changes of one page apply in batch order). */
function byPage<T> (items: T[], key: (x: T) => { id: string, z: number, px: number, py: number }): T[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return items.map((x, i) => ({ x, k: key(x), i }))
    .sort((a, b) => cmp(a.k.id, b.k.id) || a.k.z - b.k.z || a.k.px - b.k.px || a.k.py - b.k.py || a.i - b.i)
    .map((e) => e.x)
}
const deltaKey = (d: PageDelta) => ({ id: tileSetId(d.tileSet), z: d.z, px: d.px, py: d.py })

/**
 * Records the tile sets of `deltas` (in id order) unless they are, and holds them (KEY SHARE) until
 * commit: a concurrent forgetLayer waits for this flush rather than pulling a set from under its
 * pages (which would fail the whole flush), and comes after it, as in SQLite.
 */
async function ensureSets (c: PgClient, deltas: PageDelta[]): Promise<void> {
  const sets = new Map(deltas.map((d) => [tileSetId(d.tileSet), d.tileSet]))
  for (const id of [...sets.keys()].sort()) {
    for (let attempt = 0; ; attempt++) {
      await c.query('INSERT INTO dq_tilesets (id, layer, grid_set, format, parameter_id) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING',
        tileSetValues(sets.get(id)!))
      if ((await c.query('SELECT 1 FROM dq_tilesets WHERE id = $1 FOR KEY SHARE', [id])).rowCount === 1) break
      if (attempt === 10) throw new Error(`tile set ${id} kept being forgotten under the usage flush`)
    }
  }
}

/** Moves tile sets' totals by what their pages moved, in id order. */
async function moveSets (c: PgClient, moves: Map<string, Move>): Promise<void> {
  for (const id of [...moves.keys()].sort()) {
    const m = moves.get(id)!
    if (m.tiles !== 0 || m.bytes !== 0) await c.query('UPDATE dq_tilesets SET tiles = tiles + $1, bytes = bytes + $2 WHERE id = $3', [m.tiles, m.bytes, id])
  }
}

function addMove (moves: Map<string, Move>, id: string, m: Move): void {
  const t = moves.get(id) ?? { tiles: 0, bytes: 0 }
  moves.set(id, { tiles: t.tiles + m.tiles, bytes: t.bytes + m.bytes })
}

const INSERT_PAGE = `INSERT INTO dq_pages AS p (tileset_id, z, px, py, layer, tiles, bytes, hits, created_ms, last_access_ms, fill, frequency)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`
/** A page as it is inserted when new (a removal's counts clamped at zero). */
const insertStats = (d: PageDelta, nowMs: number) => pageStats(d, undefined, Math.max(0, d.tiles), d.hits, d.accessMs, nowMs)
const pageValues = (d: PageDelta, tiles: number, bytes: number, hits: number, nowMs: number) => {
  const s = pageStats(d, undefined, tiles, hits, d.accessMs, nowMs)
  return [tileSetId(d.tileSet), d.z, d.px, d.py, d.tileSet.layer, tiles, bytes, hits, s.created, s.last, s.fill, s.frequency]
}

/** Takes the lock every page writer takes, first: replaceCounts' table lock then orders before any row lock. */
const lockPages = (c: PgClient) => c.query('LOCK TABLE dq_pages IN ROW EXCLUSIVE MODE')

const scopeSql = (s: Scope) => 'layers' in s
  ? { where: 'layer = ANY($1::text[])', arg: s.layers }
  : { where: 'layer <> ALL($1::text[])', arg: s.except }

export function createPgQuotaStore (db: PgDatabase): QuotaStore {
  const pick = (order: string) => async (s: Scope, n: number): Promise<PageRef[]> => {
    const { where, arg } = scopeSql(s)
    const r = await db.query(`SELECT ${PAGE_REF_COLUMNS} FROM dq_pages p JOIN dq_tilesets t ON t.id = p.tileset_id
      WHERE p.${where} AND (p.tiles > 0 OR p.bytes > 0) ORDER BY ${order} LIMIT $2`, [arg, n])
    return r.rows.map(pageRef)
  }
  async function geometry (layer: string, gridSet: string, z: number): Promise<PageGeometry | undefined> {
    const r = await db.query('SELECT min_x, min_y, tiles_x, tiles_y FROM dq_page_geometry WHERE layer = $1 AND grid_set = $2 AND z = $3', [layer, gridSet, z])
    return r.rows[0] && pageGeometry(r.rows[0])
  }
  async function forget (where: string, arg: string): Promise<void> {
    await db.transaction(async (c) => {
      await lockPages(c)
      await c.query(`DELETE FROM dq_tilesets WHERE ${where}`, [arg])
      await c.query(`DELETE FROM dq_page_geometry WHERE ${where}`, [arg])
    })
  }

  return {
    async readConfig () {
      const r = await db.query<{ body: string }>('SELECT body FROM dq_config WHERE id = 1')
      return r.rows[0]?.body
    },
    async writeConfig (body) {
      await db.transaction(async (c) => {
        await c.query(`INSERT INTO dq_config (id, body, updated_at) VALUES (1, $1, $2)
          ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body, updated_at = EXCLUDED.updated_at`, [body, new Date().toISOString()])
        await notify(c, { topic: 'quota' })
      })
    },
    async getState (key) {
      const r = await db.query<{ value: string }>('SELECT value FROM dq_state WHERE key = $1', [key])
      return r.rows[0]?.value
    },
    async setState (key, value) {
      await db.query('INSERT INTO dq_state (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [key, value])
    },
    geometry,
    async saveGeometry (layer, gridSet, z, g) {
      // The first geometry committed wins; ON CONFLICT waits for a concurrent first one to commit.
      await db.query('INSERT INTO dq_page_geometry (layer, grid_set, z, min_x, min_y, tiles_x, tiles_y) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING',
        [layer, gridSet, z, g.minX, g.minY, g.tilesX, g.tilesY])
      return await geometry(layer, gridSet, z) ?? g
    },
    // Usage is a tally of files on disk (rebuilt from them when lost), flushed every second while
    // tiles are written: one statement per flush, whatever the pages (mw_dq_apply_batch, the
    // function of pg-migrations.ts, in the server), committed without waiting for the WAL flush,
    // as SQLite's relaxedSync. Retried on a deadlock (a clean-up truncating the same pages).
    async applyBatch (deltas, nowMs) {
      if (deltas.length === 0) return
      const ordered = byPage(deltas, deltaKey)
      const sets = new Map(ordered.map((d) => [tileSetId(d.tileSet), d.tileSet]))
      const ids = [...sets.keys()].sort()
      const col = <T>(f: (d: PageDelta, ins: ReturnType<typeof pageStats>) => T) => ordered.map((d) => f(d, insertStats(d, nowMs)))
      await db.retrying('SELECT mw_dq_apply_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)', [
        ids, ids.map((id) => sets.get(id)!.layer), ids.map((id) => sets.get(id)!.gridSet), ids.map((id) => sets.get(id)!.format), ids.map((id) => sets.get(id)!.parameterId),
        col((d) => tileSetId(d.tileSet)), col((d) => d.z), col((d) => d.px), col((d) => d.py), col((d) => d.tileSet.layer), col((d) => d.tiles), col((d) => d.bytes),
        col((d) => Math.max(0, d.tiles)), col((d) => Math.max(0, d.bytes)), col((d) => d.hits), col((_, s) => s.created), col((_, s) => s.last),
        col((_, s) => s.fill), col((_, s) => s.frequency), col((d) => d.accessMs), col((d) => d.maxTiles)
      ])
    },
    // Runs alone: the table lock waits for every flush in progress and holds new ones back until
    // the scan's counts are in.
    async replaceCounts (pages, nowMs) {
      const ordered = byPage(pages, deltaKey)
      await db.transaction(async (c) => {
        await c.query('LOCK TABLE dq_pages IN SHARE ROW EXCLUSIVE MODE')
        await c.query('UPDATE dq_pages SET tiles = 0, bytes = 0, fill = 0, frequency = 0')
        await c.query('UPDATE dq_tilesets SET tiles = 0, bytes = 0')
        await ensureSets(c, ordered)
        const moves = new Map<string, Move>()
        for (const d of ordered) {
          // A new page starts with no hits; a known one keeps its hits and creation time.
          await c.query(`${INSERT_PAGE} ON CONFLICT (tileset_id, z, px, py) DO UPDATE SET
            tiles = EXCLUDED.tiles, bytes = EXCLUDED.bytes, last_access_ms = GREATEST(p.last_access_ms, $13), fill = EXCLUDED.fill,
            frequency = ${frequencySql('p.hits', 'p.created_ms', 'GREATEST(p.last_access_ms, $13)', 'EXCLUDED.fill')}`,
          [...pageValues(d, d.tiles, d.bytes, 0, nowMs), d.accessMs])
          addMove(moves, tileSetId(d.tileSet), { tiles: d.tiles, bytes: d.bytes })
        }
        await moveSets(c, moves)
      })
    },
    async usedBytes (s) {
      const { where, arg } = scopeSql(s)
      const r = await db.query<{ used: number }>(`SELECT COALESCE(SUM(bytes), 0)::bigint AS used FROM dq_tilesets WHERE ${where}`, [arg])
      return r.rows[0].used
    },
    leastRecentlyUsed: pick(ORDER.lru),
    leastFrequentlyUsed: pick(ORDER.lfu),
    async markTruncated (pages) {
      const ordered = byPage(pages, (p) => ({ id: p.tileSetId, z: p.z, px: p.px, py: p.py }))
      await db.transaction(async (c) => {
        const moves = new Map<string, Move>()
        for (const p of ordered) {
          const r = await c.query<Move>(`UPDATE dq_pages p SET tiles = 0, bytes = 0, fill = 0, frequency = 0
            FROM (SELECT tiles, bytes FROM dq_pages WHERE ${PAGE} FOR UPDATE) o
            WHERE p.tileset_id = $1 AND p.z = $2 AND p.px = $3 AND p.py = $4 RETURNING -o.tiles AS tiles, -o.bytes AS bytes`, [p.tileSetId, p.z, p.px, p.py])
          if (r.rows[0]) addMove(moves, p.tileSetId, r.rows[0])
        }
        await moveSets(c, moves)
      })
    },
    async settlePage (p, scan, quietBeforeMs) {
      return await db.transaction(async (c) => {
        await lockPages(c)
        const old = (await c.query<{ tiles: number, bytes: number, last: number }>(
          `SELECT tiles, bytes, last_access_ms AS last FROM dq_pages WHERE ${PAGE} FOR UPDATE`, [p.tileSetId, p.z, p.px, p.py])).rows[0]
        if (!old) return 'same'
        if (Number(old.last) >= quietBeforeMs) return 'busy'
        if (Number(old.tiles) === scan.tiles && Number(old.bytes) === scan.bytes) return 'same'
        await c.query(`UPDATE dq_pages p SET tiles = $5, bytes = $6, fill = $7,
          frequency = ${frequencySql('p.hits', 'p.created_ms', 'p.last_access_ms', '$7')} WHERE ${PAGE}`,
        [p.tileSetId, p.z, p.px, p.py, scan.tiles, scan.bytes, Math.min(1, scan.tiles / scan.maxTiles)])
        await moveSets(c, new Map([[p.tileSetId, { tiles: scan.tiles - Number(old.tiles), bytes: scan.bytes - Number(old.bytes) }]]))
        return 'changed'
      })
    },
    async tileSets () {
      const r = await db.query(`SELECT id, layer, grid_set, format, parameter_id, tiles, bytes FROM dq_tilesets
        ORDER BY layer COLLATE "C", grid_set COLLATE "C", format COLLATE "C", parameter_id COLLATE "C"`)
      return r.rows.map(tileSetUsage)
    },
    forgetWorkspace: (ws) => forget('starts_with(layer, $1)', `${ws}:`),
    forgetLayer: (layer) => forget('layer = $1', layer)
  }
}
