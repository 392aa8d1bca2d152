// What seeding and the tile cache keep in the catalog database, as three stores: the seed task
// records (task-records.ts) here, and the tile cache's per-layer tile settings and tile sets and
// drop marks (services/tilecache/store.ts). Every method is one unit of work (one transaction in
// its implementation); sqlite-store.ts and pg-store.ts implement all three.
import type { TileSetStore, TileSettingsStore } from '../tilecache/store.js'
import type { TaskState, TaskView } from './task.js'

/** A task's record as stored: the view last written, its state and error columns. */
export interface StoredTask { id: number, state: TaskState, view: TaskView, error?: string }

/**
 * The records of seed tasks. The job store of the seed queue (job-store.ts) creates and updates
 * them with its jobs; these are the reads and the clean-ups of the records themselves.
 */
export interface TaskRecordStore {
  get (id: number): Promise<StoredTask | undefined>
  /** How many records are in each state (a few rows: finished ones are pruned). */
  countByState (): Promise<Array<{ state: TaskState, count: number }>>
  /** Deletes finished records that finished before `finishedBefore` or are not among the `keep` newest finished. */
  prune (finishedBefore: number, keep: number): Promise<void>
}

export interface SeedStore {
  tasks: TaskRecordStore
  tileSettings: TileSettingsStore
  tileSets: TileSetStore
}
