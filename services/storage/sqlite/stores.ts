// The embedded default: every area's store on the SQLite catalog in the data directory, this
// process's seed queue and metatile locks (seed-queue.ts). One process owns the data directory.
import { createSqliteCascadeRows } from '../../cascade/sqlite-store.js'
import fs from 'node:fs'
import { openDatabase, type Db } from './database.js'
import { lockDataDir } from './data-dir-lock.js'
import type { Stores } from '../stores.js'
import { clearLeftovers } from '../leftovers.js'
import { inProcessMetatileLock, inProcessSeedQueue } from './seed-queue.js'
import type { FaultPoint } from '../../faults.js'
import { createSqliteUserStore } from '../../auth/sqlite-store.js'
import { createSqliteLayerGroupStore, createSqliteLayerStore, createSqliteWorkspaceStore } from '../../catalog/sqlite-store.js'
import { createSqliteRuleStore } from '../../security/sqlite-store.js'
import { createSqliteAppSchemaStore } from '../../appschema/sqlite-store.js'
import { createSqliteDataStoreRows } from '../../datastores/sqlite-store.js'
import { createSqliteFeatureTypeRows } from '../../vector/sqlite-store.js'
import { createSqliteStyleStore } from '../../styles/sqlite-store.js'
import { createSqliteMosaicStore } from '../../mosaics/sqlite-store.js'
import { createSqliteSeedStore } from '../../seed/sqlite-store.js'
import { createSqliteQuotaStore } from '../../diskquota/sqlite-quota-store.js'
import { createSqliteServiceSettingsStore, createSqliteSettingsStore } from '../../settings/sqlite-store.js'
import { createSqliteGridSetStore } from '../../tilecache/sqlite-grid-set-store.js'
import { createSqliteWfsLockStore } from '../../wfs/sqlite-lock-store.js'
import { createSqliteBlobStoreStore } from '../../tilecache/sqlite-blob-store-store.js'

/** The SQLite stores, with the database itself for tests that read its rows. */
export type SqliteStores = Stores & { db: Db }

/**
 * Takes the data directory for this process (a second live process on it would have its work
 * undone by the recovery below), clears what a previous run left in tmp/ (staging, uploads, temp
 * files of interrupted writes), and opens the SQLite catalog with every area's migrations applied.
 * `fault`: the crash harness's fault points inside store transactions (services/faults.ts).
 */
export async function openSqliteStores (dataDir: string, { fault }: { fault?: FaultPoint } = {}): Promise<SqliteStores> {
  fs.mkdirSync(dataDir, { recursive: true })
  const lock = await lockDataDir(dataDir)
  await clearLeftovers(dataDir)
  const db = openDatabase(dataDir)
  const ping = db.prepare('SELECT 1')
  return {
    users: createSqliteUserStore(db),
    workspaces: createSqliteWorkspaceStore(db),
    layers: createSqliteLayerStore(db),
    layerGroups: createSqliteLayerGroupStore(db),
    rules: createSqliteRuleStore(db, fault),
    appschema: createSqliteAppSchemaStore(db),
    datastores: createSqliteDataStoreRows(db),
    cascade: createSqliteCascadeRows(db),
    featureTypes: createSqliteFeatureTypeRows(db),
    styles: createSqliteStyleStore(db),
    mosaics: createSqliteMosaicStore(db),
    seed: createSqliteSeedStore(db),
    quota: createSqliteQuotaStore(db),
    settings: createSqliteSettingsStore(db),
    serviceSettings: createSqliteServiceSettingsStore(db),
    gridSets: createSqliteGridSetStore(db),
    wfsLocks: createSqliteWfsLockStore(db),
    blobStores: createSqliteBlobStoreStore(db),
    async announceReload () {},
    seedQueue: inProcessSeedQueue(db, fault),
    metatileLock: inProcessMetatileLock(),
    db,
    async ping () { ping.get() },
    async databaseVersion () { return String(db.prepare('SELECT sqlite_version()').pluck().get()) },
    startup: (fn) => fn(true),
    exclusive: (_work, fn) => fn(),
    close () {
      db.close()
      lock.release()
    }
  }
}
