// What the tile cache keeps in the catalog database, as three stores: the seed task records
// (task-records.ts), the per-layer tile settings (layer-settings.ts) and the tile sets and drop
// marks of tile-invalidation.ts. Every method is one unit of work (one transaction in its
// implementation). The embedded SQLite implementation is sqlite-store.ts.
import type { BBox } from './grid-sets.js'
import type { TileLayerSettings } from './layer-settings.js'
import type { ParameterSet } from './parameters.js'
import type { TaskState, TaskView } from './task.js'

/** A task as a request creates it (its id comes from the store). */
export interface NewTaskRecord { layer: string, view: Omit<TaskView, 'id'> }

/** A task's state and progress as the breeder writes them. */
export interface TaskRecordUpdate {
  view: TaskView
  finishedAt?: number
  /** Once set, a task's kill flag stays set. */
  killed?: boolean
  /** Kept from the first write that names it. */
  startedAt?: number
}

/** A task's record as stored: the view last written, its state and error columns. */
export interface StoredTask { id: number, state: TaskState, view: TaskView, error?: string }

/** A task of a previous run still pending or running (resume after a restart). */
export interface UnfinishedTask {
  id: number
  /** The first task id of the request that made it (null: recorded before jobs were). */
  job: number | null
  view: TaskView
  /** The request (JSON) its job is rebuilt from. */
  request: string | null
  killed: boolean
  startedAt?: number
}

export interface TaskRecordStore {
  /**
   * Records the tasks of one request as pending, in one transaction; returns their ids in order
   * (never reused, across restarts too). The job of each is the first id.
   */
  create (tasks: NewTaskRecord[], request: string | undefined, createdAt: number): Promise<number[]>
  /**
   * Writes tasks' states and progress in one transaction (rejects on a full disk). With `durable`
   * false (progress only) the commit may skip the flush to disk: it still survives a crash of the
   * process, not of the machine.
   */
  save (items: TaskRecordUpdate[], durable: boolean): Promise<void>
  get (id: number): Promise<StoredTask | undefined>
  /** Tasks still pending or running, by id. */
  unfinished (): Promise<UnfinishedTask[]>
  /** Ends one task if it is still pending or running. */
  abort (id: number, reason: string | null, at: number): Promise<void>
  /** Ends every task still pending or running; returns how many. */
  abortUnfinished (reason: string, at: number): Promise<number>
  /** Deletes finished records that finished before `finishedBefore` or are not among the `keep` newest finished. */
  prune (finishedBefore: number, keep: number): Promise<void>
}

/** The settings of the layers that changed one from its default. */
export interface TileSettingsStore {
  all (): Promise<Array<{ workspace: string, name: string, settings: TileLayerSettings }>>
  put (workspace: string, name: string, settings: TileLayerSettings): Promise<void>
  remove (workspace: string, name: string): Promise<void>
}

/** A drop of a layer's tiles older than `before`: one parameter set, or all; one area, or all. */
export interface DropMark { layer: string, parameterId?: string, area?: BBox, before: number, reason: string }

export interface TileSetStore {
  /** Records the parameters of a non-default tile set (kept as first recorded). */
  addSet (layer: string, parameterId: string, parameters: ParameterSet): Promise<void>
  /** The recorded non-default sets of each layer named. */
  sets (layers: string[]): Promise<Array<{ layer: string, parameterId: string, parameters: ParameterSet }>>
  removeSets (layer: string): Promise<void>
  /** Records a drop in force; returns its id. */
  addMark (mark: DropMark): Promise<number>
  clearMark (id: number): Promise<void>
  /** The drops still in force, oldest first. */
  marks (): Promise<Array<DropMark & { id: number }>>
}

export interface SeedStore {
  tasks: TaskRecordStore
  tileSettings: TileSettingsStore
  tileSets: TileSetStore
}
