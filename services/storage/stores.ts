// The seam between the services and the databases: openStores is the one place where the backend is
// chosen, the embedded SQLite catalog in the data directory (the default, sqlite/) or PostgreSQL
// (MAPWARDEN_DATABASE_URL, pg/), which several instances share. Every service is built from the
// interfaces below (services/create-services.ts); each area has one implementation per backend beside
// its store.ts, and no code outside storage/ asks which backend it runs on.
import type { UserStore } from '../auth/store.js'
import type { LayerGroupStore, LayerStore, WorkspaceStore } from '../catalog/store.js'
import type { RuleStore } from '../security/store.js'
import type { AppSchemaStore } from '../appschema/store.js'
import type { DataStoreRows } from '../datastores/store.js'
import type { CascadeRows } from '../cascade/store.js'
import type { ServiceSettingsStore, SettingsStore } from '../settings/store.js'
import type { BlobStoreStore, GridSetStore } from '../tilecache/store.js'
import type { FeatureTypeRows } from '../vector/store.js'
import type { FaultPoint } from '../faults.js'
import type { ChangeHandler } from './pg/change-bus.js'
import type { StyleStore } from '../styles/store.js'
import type { MosaicStore } from '../mosaics/store.js'
import type { SeedStore } from '../seed/store.js'
import type { QuotaStore } from '../diskquota/quota-store.js'
import type { MetatileLock, SeedQueue } from '../seed/seed-queue.js'
import type { Db } from './sqlite/database.js'
import type { WfsLockStore } from '../wfs/lock-store.js'
import { openSqliteStores } from './sqlite/stores.js'
import { openPgStores } from './pg/stores.js'

export interface Stores {
  users: UserStore
  workspaces: WorkspaceStore
  layers: LayerStore
  layerGroups: LayerGroupStore
  rules: RuleStore
  appschema: AppSchemaStore
  datastores: DataStoreRows
  cascade: CascadeRows
  /** Feature types of PostGIS data stores, with their layers. */
  featureTypes: FeatureTypeRows
  styles: StyleStore
  mosaics: MosaicStore
  /** Seed task records, per-layer tile settings, recorded tile sets and drop marks. */
  seed: SeedStore
  /** Disk quota usage and configuration. */
  quota: QuotaStore
  /** The global settings (proxyBaseUrl, contact...). */
  settings: SettingsStore
  /** The service settings (WMS, WMTS, WFS; global and per workspace). */
  serviceSettings: ServiceSettingsStore
  /** The custom grid sets of GWC's REST. */
  gridSets: GridSetStore
  /** The WFS locks (LockFeature, GetFeatureWithLock), shared by every instance on the catalog. */
  wfsLocks: WfsLockStore
  /** The file blob stores of GWC's REST. */
  blobStores: BlobStoreStore
  /** Tells every other instance to re-read everything it keeps in memory (POST rest/reload);
   *  SQLite: nothing to tell, one instance. */
  announceReload (): Promise<void>
  /** Where seed tasks wait and are worked: this process's task pool (SQLite) or the cluster's
   *  jobs and chunks on pg-boss (PostgreSQL). */
  seedQueue: SeedQueue
  /** Keeps two renders of one metatile apart: in this process (SQLite), cluster-wide (PostgreSQL). */
  metatileLock: MetatileLock
  /** Changes other instances commit to a shared database (PostgreSQL); none for SQLite. */
  changes?: { subscribe (handler: ChangeHandler): () => void }
  /** The SQLite catalog itself, which tests read rows of; none for PostgreSQL. */
  db?: Db
  /** Resolves while the database answers (the health check). */
  ping (): Promise<void>
  /** The database server's version (SQLite's library, PostgreSQL's server), for about/status. */
  databaseVersion (): Promise<string>
  /** The connection pools' counts (metrics); none for SQLite, one connection used in-process. */
  dbPools?: () => PoolStats[]
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

export interface PoolStats { pool: string, total: number, idle: number, waiting: number }

/** Where the stores live: the data directory, and a shared PostgreSQL database if one is named. */
export interface StoresConfig { dataDir: string, databaseUrl?: string }
export interface StoresHooks {
  /** The crash harness's fault points inside store transactions (services/faults.ts). */
  fault?: FaultPoint
  /** A database connection failed (PostgreSQL; the pools reconnect). */
  onError?: (err: Error) => void
}

export async function openStores (config: StoresConfig, hooks: StoresHooks = {}): Promise<Stores> {
  return config.databaseUrl
    ? await openPgStores(config.databaseUrl, config.dataDir, hooks)
    : await openSqliteStores(config.dataDir, hooks)
}
