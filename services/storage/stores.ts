// The one place where the stores are chosen: the embedded SQLite catalog in the data directory
// (the default), or PostgreSQL (MAPWARDEN_DATABASE_URL), which several instances share. Every
// service is built from these interfaces (services/create-services.ts); each area has one
// implementation per backend beside its store.ts.
import fs from 'node:fs'
import path from 'node:path'
import { openDatabase, type Db } from './database.js'
import { lockDataDir } from './data-dir-lock.js'
import { removeTempFiles } from '../files/atomic.js'
import type { UserStore } from '../auth/store.js'
import { createSqliteUserStore } from '../auth/sqlite-store.js'
import type { LayerStore, WorkspaceStore } from '../catalog/store.js'
import { createSqliteLayerStore, createSqliteWorkspaceStore } from '../catalog/sqlite-store.js'
import type { RuleStore } from '../security/store.js'
import { createSqliteRuleStore } from '../security/sqlite-store.js'
import type { AppSchemaStore } from '../appschema/store.js'
import { createSqliteAppSchemaStore } from '../appschema/sqlite-store.js'
import type { FaultPoint } from '../faults.js'
import { createChangeBus, type ChangeBus, type ChangeHandler } from './pg/change-bus.js'
import { connectPg, ifFirst, migratePg, withClusterLock } from './pg/database.js'
import { openWorkQueue } from './pg/work-queue.js'
import { createClusterSeedStore, SEED_QUEUE, type ChunkRef } from '../seed/cluster-store.js'
import type { SeedCluster } from '../seed/cluster-breeder.js'
import { createNodeRegistry } from './pg/nodes.js'
import { PG_MIGRATIONS } from './pg/schema.js'
import { createPgUserStore } from '../auth/pg-store.js'
import { createPgLayerStore, createPgWorkspaceStore } from '../catalog/pg-store.js'
import { createPgRuleStore } from '../security/pg-store.js'
import { createPgAppSchemaStore } from '../appschema/pg-store.js'
import { createPgStyleStore } from '../styles/pg-store.js'
import { createPgMosaicStore } from '../mosaics/pg-store.js'
import { createPgSeedStore } from '../seed/pg-store.js'
import { createPgQuotaStore } from '../diskquota/pg-quota-store.js'
import { createSqliteStyleStore } from '../styles/sqlite-store.js'
import type { StyleStore } from '../styles/store.js'
import { createSqliteMosaicStore } from '../mosaics/sqlite-store.js'
import type { MosaicStore } from '../mosaics/store.js'
import { createSqliteSeedStore } from '../seed/sqlite-store.js'
import type { SeedStore } from '../seed/store.js'
import { createSqliteQuotaStore } from '../diskquota/sqlite-quota-store.js'
import type { QuotaStore } from '../diskquota/quota-store.js'

export interface Stores {
  users: UserStore
  workspaces: WorkspaceStore
  layers: LayerStore
  rules: RuleStore
  appschema: AppSchemaStore
  styles: StyleStore
  mosaics: MosaicStore
  /** Seed task records, per-layer tile settings, recorded tile sets and drop marks. */
  seed: SeedStore
  /** Disk quota usage and configuration. */
  quota: QuotaStore
  /** Seed tasks shared by the instances of a cluster (PostgreSQL); none for SQLite, whose tasks are the process's. */
  seedCluster?: SeedCluster
  /** Changes other instances commit to a shared database (PostgreSQL); none for SQLite. */
  changes?: { subscribe (handler: ChangeHandler): () => void }
  /** Resolves while the database answers (the health check). */
  ping (): Promise<void>
  /**
   * Runs the services' start-up (`fn`) as the only process starting on this data: `alone` says
   * that no other process is at work on the data directory, so start-up recovery of its files and
   * of interrupted tasks may run; `crashed`, on a shared database, that an instance died since the
   * last start alone (what it had not written to the database is lost). SQLite: always alone (the
   * data directory's lock); whether it crashed, each store knows.
   */
  startup<T> (fn: (alone: boolean, crashed?: boolean) => Promise<T>): Promise<T>
  /** Runs `fn` unless another instance is running the same work (then undefined): one disk-quota
   *  clean-up at a time in a cluster. SQLite: always runs it. */
  exclusive<T> (work: 'quotaCleanup', fn: () => Promise<T>): Promise<T | undefined>
  close (): void | Promise<void>
}

/** The SQLite stores, and the database itself for tests that read its rows. */
export type SqliteStores = Stores & { db: Db }

/** What an interrupted run left: tmp/ (staging, uploads) emptied, temp files of unfinished writes removed. */
async function clearLeftovers (dataDir: string): Promise<void> {
  const tmp = path.join(dataDir, 'tmp')
  await fs.promises.rm(tmp, { recursive: true, force: true })
  await fs.promises.mkdir(tmp, { recursive: true })
  await removeTempFiles(dataDir, ['tiles', 'tmp'])
}

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
    rules: createSqliteRuleStore(db, fault),
    appschema: createSqliteAppSchemaStore(db),
    styles: createSqliteStyleStore(db),
    mosaics: createSqliteMosaicStore(db),
    seed: createSqliteSeedStore(db, { fault }),
    quota: createSqliteQuotaStore(db),
    db,
    async ping () { ping.get() },
    startup: (fn) => fn(true),
    exclusive: (_work, fn) => fn(),
    close () {
      db.close()
      lock.release()
    }
  }
}

/**
 * The PostgreSQL stores (MAPWARDEN_DATABASE_URL): several instances share the database and one
 * data directory. Migrations run once under a cluster-wide lock; changes are announced to every
 * instance (storage/pg/change-bus.ts); start-up recovery of shared files runs only on the first
 * instance to start (storage/pg/nodes.ts).
 */
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
  const seedCluster: SeedCluster = {
    seeds: createClusterSeedStore(db),
    nodeId: nodes.id,
    liveNodes: async () => (await nodes.live()).map((n) => n.id),
    withMetatileLock: (key, fn) => withClusterLock(locks, { text: key }, fn),
    subscribe: (handler) => bus.subscribe(handler),
    openQueue: (onQueueError) => openWorkQueue<ChunkRef>(db, SEED_QUEUE, { onError: onQueueError })
  }
  return {
    users: createPgUserStore(db),
    workspaces: createPgWorkspaceStore(db),
    layers: createPgLayerStore(db),
    rules: createPgRuleStore(db, fault),
    appschema: createPgAppSchemaStore(db),
    styles: createPgStyleStore(db),
    mosaics: createPgMosaicStore(db),
    seed: createPgSeedStore(db, { fault }),
    quota: createPgQuotaStore(db),
    seedCluster,
    changes: bus,
    async ping () { await db.query('SELECT 1') },
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
      await locks.close()
      await db.close()
    }
  }
}
