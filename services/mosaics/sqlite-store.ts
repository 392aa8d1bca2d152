// MosaicStore in the embedded SQLite database: the granule index (sqlite-granule-index.ts), the
// catalog rows of a mosaic (sqlite-catalog-rows.ts) and the crash-recovery records, each unit of
// work in one transaction.
import type { Db } from '../storage/sqlite/database.js'
import { checkStoreName } from '../catalog/sqlite-store.js'
import { CoverageExists, HarvestNotSupported } from '../errors.js'
import { createSqliteGranuleIndex } from './sqlite-granule-index.js'
import { createCatalogRows } from './sqlite-catalog-rows.js'
import { configuredCoverage, refreshedCoverage } from './coverage-extent.js'
import type { CoverageRow, MosaicRecord, MosaicStore, PendingPurge } from './store.js'

export function createSqliteMosaicStore (db: Db): MosaicStore {
  const index = createSqliteGranuleIndex(db)
  const rows = createCatalogRows(db)
  const recovery = {
    begin: db.prepare('INSERT OR REPLACE INTO mosaic_replacements (workspace, store, had_old) VALUES (?, ?, ?)'),
    end: db.prepare('DELETE FROM mosaic_replacements WHERE workspace = ? AND store = ?'),
    open: db.prepare('SELECT workspace, store, had_old FROM mosaic_replacements'),
    purge: db.prepare('INSERT INTO mosaic_pending_purges (entry) VALUES (?)'),
    purged: db.prepare('DELETE FROM mosaic_pending_purges WHERE id BETWEEN ? AND ?'),
    purges: db.prepare('SELECT id, entry FROM mosaic_pending_purges ORDER BY id')
  }

  /** The mosaic as this transaction sees it (a concurrent delete of the store refuses the write). */
  const mosaicNow = (ws: string, store: string): MosaicRecord => {
    const m = index.getMosaic(ws, store)
    if (!m) throw HarvestNotSupported()
    return m
  }

  const refreshCoverages = (mosaic: MosaicRecord) => {
    const all = index.query(mosaic.workspace, mosaic.store)
    const extent = index.extent(mosaic.workspace, mosaic.store)
    for (const c of rows.coverages(mosaic.workspace, mosaic.store)) rows.updateCoverage(refreshedCoverage(c, mosaic, all, extent))
  }

  const configureCoverage = (mosaic: MosaicRecord, name: string, nativeName: string): CoverageRow => {
    const { workspace: ws, store } = mosaic
    const existing = rows.coverage(ws, store, name)
    const row = configuredCoverage(mosaic, name, nativeName, index.query(ws, store), index.extent(ws, store), existing)
    if (existing) rows.updateCoverage(row)
    else {
      if (rows.resourceExists(ws, name)) throw CoverageExists(name, ws)
      rows.insertCoverage(row)
    }
    rows.publish(ws, name, true)
    return rows.coverage(ws, store, name)!
  }

  return {
    async getMosaic (ws, store) { return index.getMosaic(ws, store) },
    async listMosaics () { return index.listMosaics() },
    async query (ws, store, q) { return index.query(ws, store, q) },
    async count (ws, store, filter) { return index.count(ws, store, filter) },
    async getBySeq (ws, store, seq) { return index.getBySeq(ws, store, seq) },
    async extent (ws, store) { return index.extent(ws, store) },
    async minMax (ws, store, attribute, filter) { return index.minMax(ws, store, attribute, filter) },
    async distinct (ws, store, attribute, limit) { return index.distinct(ws, store, attribute, limit) },
    async markDamaged (path, reason) { return index.markDamaged(path, reason) },

    async store (ws, name) { return rows.store(ws, name) },
    async checkNewStoreName (ws, name) { checkStoreName(db, ws, name) },
    async coverages (ws, store) { return rows.coverages(ws, store) },
    async workspaceCoverages (ws) { return rows.workspaceCoverages(ws) },
    async workspaceStores (ws) { return rows.workspaceStores(ws) },
    async coverage (ws, store, name) { return rows.coverage(ws, store, name) },
    async resourceExists (ws, name) { return rows.resourceExists(ws, name) },
    async layerCoverage (ws, layer) { return rows.layerCoverage(ws, layer) },

    async commitUpload (ws, store, { record, granules, storeConfig, storeType, configure }) {
      return index.transaction(() => {
        recovery.end.run(ws, store)
        if (!rows.store(ws, store)) checkStoreName(db, ws, store)
        rows.putStore(ws, store, storeConfig, storeType)
        index.putMosaic(record)
        index.addGranules(ws, store, granules)
        if (configure) return [configureCoverage(record, configure.name, configure.nativeName).name]
        refreshCoverages(record)
        return []
      })
    },

    async commitHarvest (ws, store, { crs, settings, granules }) {
      return index.transaction(() => {
        const mosaic = mosaicNow(ws, store)
        if (!mosaic.crs && crs) { index.setCrs(ws, store, crs); mosaic.crs = crs }
        if (settings) { index.setCrsAttribute(ws, store, settings); mosaic.settings = settings }
        index.addGranules(ws, store, granules)
        refreshCoverages(mosaic)
        return mosaic
      })
    },

    async addCoverage (ws, store, name, nativeName, edit) {
      return index.transaction(() => {
        const mosaic = mosaicNow(ws, store)
        if (rows.coverage(ws, store, name) || rows.resourceExists(ws, name)) throw CoverageExists(name, ws)
        const row = configureCoverage(mosaic, name, nativeName)
        const next = edit(row, mosaic)
        rows.updateCoverage(next)
        if (next.config.enabled !== row.config.enabled) rows.publish(ws, name, next.config.enabled)
        return rows.coverage(ws, store, name)!
      })
    },

    async editCoverage (ws, store, name, edit) {
      return index.transaction(() => {
        const before = rows.coverage(ws, store, name)
        if (!before) return undefined
        const { next, publish } = edit(before)
        rows.updateCoverage(next)
        if (publish) rows.publish(ws, name, next.config.enabled)
        return { before, after: next }
      })
    },

    async removeGranules (ws, store, { filter, seqs }, purge) {
      return index.transaction(() => {
        const mosaic = mosaicNow(ws, store)
        const removed = seqs === undefined ? index.remove(ws, store, filter) : seqs.flatMap((seq) => index.remove(ws, store, filter, seq))
        refreshCoverages(mosaic)
        const purges = purge ? removed.map((g) => Number(recovery.purge.run(JSON.stringify({ path: g.path, purge: purge.purge, dir: purge.dir })).lastInsertRowid)) : []
        return { removed, purges }
      })
    },

    async deleteStore (ws, store) { rows.deleteStore(ws, store) },

    async beginReplace (ws, store, hadOld) { recovery.begin.run(ws, store, hadOld ? 1 : 0) },
    async endReplace (ws, store) { recovery.end.run(ws, store) },
    async openReplaces () {
      return (recovery.open.all() as Array<{ workspace: string, store: string, had_old: number }>)
        .map((r) => ({ workspace: r.workspace, store: r.store, hadOld: r.had_old !== 0 }))
    },
    async pendingPurges () {
      return (recovery.purges.all() as Array<{ id: number, entry: string }>).map((p) => ({ id: p.id, ...(JSON.parse(p.entry) as PendingPurge) }))
    },
    async purgesDone (first, last) { recovery.purged.run(first, last) }
  }
}
