// Several instances on one PostgreSQL (MAPWARDEN_DATABASE_URL) sharing one data directory: every
// area's PostgreSQL store, the cluster's seed queue (pg-boss) and advisory metatile locks
// (seed-queue.ts). Migrations run once under a cluster-wide lock; changes are announced to every
// instance (change-bus.ts); start-up recovery of shared files runs only on the first instance to
// start (nodes.ts).
import { createPgCascadeRows } from '../../cascade/pg-store.js'
import fs from 'node:fs'
import path from 'node:path'
import type { Stores } from '../stores.js'
import { clearLeftovers } from '../leftovers.js'
import type { FaultPoint } from '../../faults.js'
import { createChangeBus, notify, type ChangeBus } from './change-bus.js'
import { connectPg, ifFirst, migratePg } from './database.js'
import { createNodeRegistry } from './nodes.js'
import { PG_MIGRATIONS } from './schema.js'
import { advisoryMetatileLock, clusterSeedQueue } from './seed-queue.js'
import { createPgUserStore } from '../../auth/pg-store.js'
import { createPgLayerGroupStore, createPgLayerStore, createPgWorkspaceStore } from '../../catalog/pg-store.js'
import { createPgRuleStore } from '../../security/pg-store.js'
import { createPgAppSchemaStore } from '../../appschema/pg-store.js'
import { createPgDataStoreRows } from '../../datastores/pg-store.js'
import { createPgFeatureTypeRows } from '../../vector/pg-store.js'
import { createPgStyleStore } from '../../styles/pg-store.js'
import { createPgMosaicStore } from '../../mosaics/pg-store.js'
import { createPgSeedStore } from '../../seed/pg-store.js'
import { createPgQuotaStore } from '../../diskquota/pg-quota-store.js'
import { createPgServiceSettingsStore, createPgSettingsStore } from '../../settings/pg-store.js'
import { createPgGridSetStore } from '../../tilecache/pg-grid-set-store.js'
import { createPgWfsLockStore } from '../../wfs/pg-lock-store.js'
import { createPgBlobStoreStore } from '../../tilecache/pg-blob-store-store.js'

export async function openPgStores (url: string, dataDir: string, { fault, onError = () => {} }: { fault?: FaultPoint, onError?: (err: Error) => void } = {}): Promise<Stores> {
  fs.mkdirSync(dataDir, { recursive: true })
  const db = connectPg(url, { onError })
  let bus: ChangeBus
  try {
    await migratePg(db, PG_MIGRATIONS)
    bus = await createChangeBus(url, { onError })
  } catch (err) {
    await db.close()
    throw err
  }
  const nodes = createNodeRegistry(db, { onError })
  // Metatile locks are held for a render: on connections of their own, so that renders waiting for
  // one never starve the catalog's requests of connections.
  const locks = connectPg(url, { max: 16, connectionTimeoutMs: 60_000, onError })
  const metatileLock = advisoryMetatileLock(locks)
  return {
    users: createPgUserStore(db),
    workspaces: createPgWorkspaceStore(db),
    layers: createPgLayerStore(db),
    layerGroups: createPgLayerGroupStore(db),
    rules: createPgRuleStore(db, fault),
    appschema: createPgAppSchemaStore(db),
    datastores: createPgDataStoreRows(db),
    cascade: createPgCascadeRows(db),
    featureTypes: createPgFeatureTypeRows(db),
    styles: createPgStyleStore(db),
    mosaics: createPgMosaicStore(db),
    seed: createPgSeedStore(db),
    quota: createPgQuotaStore(db),
    settings: createPgSettingsStore(db),
    serviceSettings: createPgServiceSettingsStore(db),
    gridSets: createPgGridSetStore(db),
    wfsLocks: createPgWfsLockStore(db),
    blobStores: createPgBlobStoreStore(db),
    async announceReload () { await db.transaction(async (c) => { await notify(c, { topic: 'reload' }) }) },
    seedQueue: clusterSeedQueue(db, nodes, bus),
    metatileLock,
    changes: bus,
    async ping () { await db.query('SELECT 1') },
    async databaseVersion () { return (await db.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version },
    // The catalog's pool (pg-boss runs on it too) and the metatile locks' (database.ts).
    dbPools: () => ([['catalog', db], ['locks', locks]] as const).map(([pool, { pool: p }]) => ({ pool, total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount })),
    exclusive: (work, fn) => ifFirst(db, work, fn),
    startup: (fn) => nodes.startup(async (alone, crashed) => {
      // What a crash left in tmp/ and half-written files are only safe to clear when no other
      // instance may be writing them.
      if (alone) await clearLeftovers(dataDir)
      else await fs.promises.mkdir(path.join(dataDir, 'tmp'), { recursive: true })
      return await fn(alone, crashed)
    }),
    async close () {
      await nodes.close()
      await bus.close()
      await metatileLock.flush()
      await locks.close()
      await db.close()
    }
  }
}
