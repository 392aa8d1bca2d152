// MosaicStore in PostgreSQL, the counterpart of sqlite-store.ts: the granule index
// (pg-granule-index.ts), the catalog rows of a mosaic (pg-catalog-rows.ts) and the crash-recovery
// records, each unit of work in one transaction. Several nodes write at once: every write of a
// workspace's mosaics first takes a transaction-level advisory lock on the workspace, so that the
// check-then-write steps (store name clash, coverage exists, the next seq) run one at a time as
// they do in SQLite; a unique violation caused by another area's concurrent write (a store or
// resource name) re-runs the transaction, which then sees that row. Writes announce themselves
// on the change bus: 'mosaics' (key workspace:store) and 'catalog' when stores, coverages or
// layers change.
import type { PgClient, PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import { checkPgStoreName } from '../catalog/pg-catalog-rows.js'
import { CoverageExists, HarvestNotSupported } from '../errors.js'
import { createPgGranuleIndex, footprintModeOf, type Queryable } from './pg-granule-index.js'
import { createPgCatalogRows } from './pg-catalog-rows.js'
import { configuredCoverage, refreshedCoverage } from './coverage-extent.js'
import type { CoverageRow, MosaicRecord, MosaicStore, PendingPurge } from './store.js'

const LOCK_PREFIX = 'mapwarden.mosaics.workspace:'
const PURGES_LOCK = 'mapwarden.mosaics.purges'
const UNIQUE_VIOLATION = '23505'
const MAX_ATTEMPTS = 3

export function createPgMosaicStore (db: PgDatabase): MosaicStore {
  const index = createPgGranuleIndex(footprintModeOf(db))
  const rows = createPgCatalogRows()

  /** One unit of work on a workspace's mosaics, announced as a change of the store (and the catalog). */
  async function write<T> (ws: string, store: string | undefined, catalog: boolean, fn: (c: PgClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await db.transaction(async (c) => {
          await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [LOCK_PREFIX + ws])
          const out = await fn(c)
          if (store !== undefined) await notify(c, { topic: 'mosaics', key: `${ws}:${store}` })
          if (catalog) await notify(c, { topic: 'catalog' })
          return out
        })
      } catch (err) {
        if ((err as { code?: string }).code === UNIQUE_VIOLATION && attempt < MAX_ATTEMPTS) continue
        throw err
      }
    }
  }

  /** The mosaic as this transaction sees it (a concurrent delete of the store refuses the write). */
  const mosaicNow = async (c: PgClient, ws: string, store: string): Promise<MosaicRecord> => {
    const m = await index.getMosaic(c, ws, store)
    if (!m) throw HarvestNotSupported()
    return m
  }

  const refreshCoverages = async (c: PgClient, mosaic: MosaicRecord) => {
    const all = await index.query(c, mosaic.workspace, mosaic.store)
    const extent = await index.extent(c, mosaic.workspace, mosaic.store)
    for (const cov of await rows.coverages(c, mosaic.workspace, mosaic.store)) await rows.updateCoverage(c, refreshedCoverage(cov, mosaic, all, extent))
  }

  const configureCoverage = async (c: PgClient, mosaic: MosaicRecord, name: string, nativeName: string): Promise<CoverageRow> => {
    const { workspace: ws, store } = mosaic
    const existing = await rows.coverage(c, ws, store, name)
    const row = configuredCoverage(mosaic, name, nativeName, await index.query(c, ws, store), await index.extent(c, ws, store), existing)
    if (existing) await rows.updateCoverage(c, row)
    else {
      if (await rows.resourceExists(c, ws, name)) throw CoverageExists(name, ws)
      await rows.insertCoverage(c, row)
    }
    await rows.publish(c, ws, name, true)
    return (await rows.coverage(c, ws, store, name))!
  }

  const endReplace = (c: Queryable, ws: string, store: string) =>
    c.query('DELETE FROM mosaic_replacements WHERE workspace = $1 AND store = $2', [ws, store])

  return {
    async getMosaic (ws, store) { return await index.getMosaic(db, ws, store) },
    async listMosaics () { return await index.listMosaics(db) },
    async query (ws, store, q) { return await index.query(db, ws, store, q) },
    async count (ws, store, filter) { return await index.count(db, ws, store, filter) },
    async getBySeq (ws, store, seq) { return await index.getBySeq(db, ws, store, seq) },
    async extent (ws, store) { return await index.extent(db, ws, store) },
    async minMax (ws, store, attribute, filter) { return await index.minMax(db, ws, store, attribute, filter) },
    async distinct (ws, store, attribute, limit) { return await index.distinct(db, ws, store, attribute, limit) },
    async markDamaged (path, reason) {
      return await db.transaction(async (c) => {
        const marked = await index.markDamaged(c, path, reason)
        for (const key of new Set(marked.map((r) => `${r.workspace}:${r.store}`))) await notify(c, { topic: 'mosaics', key })
        return marked.map((r) => r.location)
      })
    },

    async store (ws, name) { return await rows.store(db, ws, name) },
    async checkNewStoreName (ws, name) { await db.transaction((c) => checkPgStoreName(c, ws, name)) },
    async coverages (ws, store) { return await rows.coverages(db, ws, store) },
    async workspaceCoverages (ws) { return await rows.workspaceCoverages(db, ws) },
    async workspaceStores (ws) { return await rows.workspaceStores(db, ws) },
    async coverage (ws, store, name) { return await rows.coverage(db, ws, store, name) },
    async resourceExists (ws, name) { return await rows.resourceExists(db, ws, name) },
    async layerCoverage (ws, layer) { return await rows.layerCoverage(db, ws, layer) },

    async commitUpload (ws, store, { record, granules, storeConfig, storeType, configure }) {
      return await write(ws, store, true, async (c) => {
        await endReplace(c, ws, store)
        if (!(await rows.store(c, ws, store))) await checkPgStoreName(c, ws, store)
        await rows.putStore(c, ws, store, storeConfig, storeType)
        await index.putMosaic(c, record)
        await index.addGranules(c, ws, store, granules)
        if (configure) return [(await configureCoverage(c, record, configure.name, configure.nativeName)).name]
        await refreshCoverages(c, record)
        return []
      })
    },

    async commitHarvest (ws, store, { crs, settings, granules }) {
      return await write(ws, store, true, async (c) => {
        const mosaic = await mosaicNow(c, ws, store)
        if (!mosaic.crs && crs) { await index.setCrs(c, ws, store, crs); mosaic.crs = crs }
        if (settings) { await index.setCrsAttribute(c, ws, store, settings); mosaic.settings = settings }
        await index.addGranules(c, ws, store, granules)
        await refreshCoverages(c, mosaic)
        return mosaic
      })
    },

    async addCoverage (ws, store, name, nativeName, edit) {
      return await write(ws, store, true, async (c) => {
        const mosaic = await mosaicNow(c, ws, store)
        if ((await rows.coverage(c, ws, store, name)) || (await rows.resourceExists(c, ws, name))) throw CoverageExists(name, ws)
        const row = await configureCoverage(c, mosaic, name, nativeName)
        const next = edit(row, mosaic)
        await rows.updateCoverage(c, next)
        if (next.config.enabled !== row.config.enabled) await rows.publish(c, ws, name, next.config.enabled)
        return (await rows.coverage(c, ws, store, name))!
      })
    },

    async editCoverage (ws, store, name, edit) {
      return await write(ws, store, true, async (c) => {
        const before = await rows.coverage(c, ws, store, name)
        if (!before) return undefined
        const { next, publish } = edit(before)
        await rows.updateCoverage(c, next)
        if (publish) await rows.publish(c, ws, name, next.config.enabled)
        return { before, after: next }
      })
    },

    async removeGranules (ws, store, { filter, seqs }, purge) {
      return await write(ws, store, true, async (c) => {
        const mosaic = await mosaicNow(c, ws, store)
        const removed = await index.remove(c, ws, store, filter, seqs)
        await refreshCoverages(c, mosaic)
        let purges: number[] = []
        if (purge && removed.length > 0) {
          // Ids in one range that no other transaction's purges interleave (purgesDone clears by range).
          await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [PURGES_LOCK])
          const entries = removed.map((g) => JSON.stringify({ path: g.path, purge: purge.purge, dir: purge.dir }))
          const r = await c.query<{ id: number }>('INSERT INTO mosaic_pending_purges (entry) SELECT e FROM unnest($1::text[]) WITH ORDINALITY AS u(e, n) ORDER BY n RETURNING id', [entries])
          purges = r.rows.map((p) => p.id).sort((a, b) => a - b)
        }
        return { removed, purges }
      })
    },

    async deleteStore (ws, store) {
      await write(ws, store, true, async (c) => { await rows.deleteStore(c, ws, store) })
    },

    async beginReplace (ws, store, hadOld) {
      await db.query(`INSERT INTO mosaic_replacements (workspace, store, had_old) VALUES ($1, $2, $3)
        ON CONFLICT (workspace, store) DO UPDATE SET had_old = EXCLUDED.had_old`, [ws, store, hadOld ? 1 : 0])
    },
    async endReplace (ws, store) { await endReplace(db, ws, store) },
    async openReplaces () {
      return (await db.query<{ workspace: string, store: string, had_old: number }>('SELECT workspace, store, had_old FROM mosaic_replacements')).rows
        .map((r) => ({ workspace: r.workspace, store: r.store, hadOld: r.had_old !== 0 }))
    },
    async pendingPurges () {
      return (await db.query<{ id: number, entry: string }>('SELECT id, entry FROM mosaic_pending_purges ORDER BY id')).rows
        .map((p) => ({ id: p.id, ...(JSON.parse(p.entry) as PendingPurge) }))
    },
    async purgesDone (first, last) { await db.query('DELETE FROM mosaic_pending_purges WHERE id BETWEEN $1 AND $2', [first, last]) }
  }
}
