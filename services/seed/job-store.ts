// What the breeder (job-breeder.ts) keeps in the stores, whichever backend: a request is a job
// (seed_jobs) with its tasks (seed_tasks); its tile range is handed out as chunks (chunks.ts), at
// most WINDOW at a time, each a row of seed_chunks and one item of the work queue, added when the
// transaction that hands them out commits. A chunk's row goes when its tiles are counted, in the
// transaction that counts them: a chunk redone (its worker stopped, its node died) counts once.
// storage/sqlite/job-store.ts (one process) and storage/pg/cluster-store.ts (every node on one
// PostgreSQL, the task slots held by an advisory lock) implement it; the transaction handle a
// store passes to `enqueue` is its own (opaque here).
import type { Rect } from '../tilecache/grid-sets.js'
import type { Chunk, ChunkCursor } from './chunks.js'
import type { TaskState, TaskView } from './task.js'
import type { TaskType } from './seed-request.js'

/** Chunks of one job out at a time (rendering or queued): enough to keep every node's threads busy. */
export const WINDOW = 32

/** How many of a job's `waiting` pending tasks start with `running` tasks running: the slots left, but one task always may. */
export const tasksToStart = (running: number, waiting: number, taskSlots: number): number =>
  running === 0 ? Math.max(1, Math.min(waiting, taskSlots)) : Math.min(waiting, taskSlots - running)

export interface ChunkRef { job: number, seq: number }
export interface Plan { chunks: Chunk[], cursor: ChunkCursor | null }
export interface Limits { taskSlots: number, maxPendingTasks: number }
/** What a transaction that may start jobs or hand out chunks needs (the breeder's, job-context.ts). */
export interface Dispatch extends Limits {
  now: number
  /** Reads a job's request once (before `plan` may be called for it). */
  load (job: number): Promise<void>
  /**
   * Up to `n` chunks of a job from `cursor` on (chunks.ts nextChunks on the job's range); undefined
   * while its request is not read (`load` it, then plan again).
   */
  plan (job: number, cursor: ChunkCursor, n: number, oneLevel: boolean): Plan | undefined
  /** Adds the chunks' work-queue items in the store's transaction `tx` (opaque: the store's own). */
  enqueue (tx: unknown, refs: ChunkRef[]): Promise<unknown>
}

export interface StoredJob {
  id: number
  taskIds: number[]
  layer: string
  type: TaskType
  request: string
  state: TaskState
  total: bigint
  /** A pyramid: levels from the deepest up, each handed out once the one below is finished. */
  descending: boolean
  createdAt: number
  startedAt?: number
  finishedAt?: number
}
export interface StoredJobTask {
  id: number
  job: number
  state: TaskState
  tilesDone: number
  killed: boolean
  error?: string
  /** Metatiles a damaged granule spoiled, and the last reason. */
  failedMetatiles: number
  failure?: string
  /** Its part of the job's total (task.ts splitTotal, passOn); undefined for a truncate. */
  share?: bigint
  view: TaskView
  createdAt: number
  startedAt?: number
  finishedAt?: number
}
/**
 * A chunk a worker took: the task it counts for (and that task's count so far) and its tiles (z -1:
 * a truncate's whole work); its job's layer, tasks and start.
 */
export interface ChunkWork extends ChunkRef { task: number, z: number, rect: Rect, taskDone: number, layer: string, taskIds: number[], startedAt: number }

export interface NewJob {
  layer: string
  type: TaskType
  request: string
  /** The pending view of each task (its grid set, format and levels are what lists show). */
  views: Array<Omit<TaskView, 'id'>>
  total: bigint
  cursor: ChunkCursor | null
  descending: boolean
}

export interface ChunkDone { metatiles: number, tiles: number, failed?: number, failure?: string }
export interface KilledRow { id: number, layer: string, type: TaskType, was: TaskState }

/** The job tables; every method is one transaction. */
export interface JobStore {
  /**
   * Records a request's job and tasks (pending), refused past the pending cap, and starts it if
   * slots are free. `created` learns the job id before any chunk of it is planned. Returns the task ids.
   */
  submit (job: NewJob, d: Dispatch, created: (jobId: number) => void): Promise<number[]>
  /** Starts what the slots allow (at start-up: pending jobs of a run that stopped). */
  promote (d: Dispatch): Promise<void>
  /** Takes a chunk for `node`; undefined when it was counted already or its job stopped. */
  begin (ref: ChunkRef, node: string, queueId: string): Promise<ChunkWork | undefined>
  /** Gives a chunk back unfinished: it is redone. */
  release (ref: ChunkRef, node: string): Promise<void>
  /** A truncate's count so far (it deletes one chunk: its whole work), also once killed. */
  progress (task: number, tilesDone: number): Promise<void>
  /** Counts a finished chunk once (task.ts creditOf); the job gets its next chunks, or is done. */
  complete (ref: ChunkRef, node: string, done: ChunkDone, d: Dispatch): Promise<void>
  /** Ends a job whose request can no longer run: its tasks end ABORTED with the reason. */
  abortJob (jobId: number, reason: string, d: Dispatch): Promise<void>
  /** Kills live tasks (`ids`, or by state and layer); a job without a live task stops. Returns them as they were. */
  kill (which: { ids?: number[], states: TaskState[], layer?: string }, d: Dispatch): Promise<KilledRow[]>
  /** Ends every unfinished job (a start with resuming off, no other node live); returns the tasks ended. */
  abortUnfinished (reason: string, now: number): Promise<number>
  /** Chunks held by nodes no longer live: released, and their work-queue ids returned (to fail them). */
  orphans (liveNodes: string[]): Promise<string[]>
  /** Jobs live or finished since `since`, with their tasks. */
  snapshot (since: number): Promise<{ jobs: StoredJob[], tasks: StoredJobTask[] }>
  /** A job's request and shape, for a worker that renders its chunks. */
  job (jobId: number): Promise<{ request: string, type: TaskType, descending: boolean } | undefined>
  /** Forgets jobs finished before `before` (their task records are pruned by task-records.ts). */
  prune (before: number): Promise<void>
}
