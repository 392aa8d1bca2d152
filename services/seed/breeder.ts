// What the tile cache and the seed plugin see of seeding: the Breeder (GWC's TileBreeder), the one
// of job-breeder.ts, built by the tile cache on the stores' seed queue (seed-queue.ts).
import type { EventEmitter } from 'node:events'
import type { BlobStore } from '../tilecache/blob-store.js'
import type { MetatileRenderer } from '../tilecache/metatile-renderer.js'
import type { SeedSpec } from './seed-request.js'
import { live, type Task, type TaskState, type TaskView } from './task.js'
import type { TaskRecords } from './task-records.js'

export interface BreederDeps {
  store: BlobStore
  render: MetatileRenderer
  taskSlots: number
  maxPendingTasks: number
  now?: () => number
  log?: { warn: (obj: object, msg: string) => void }
  /** How long finished and aborted tasks stay visible through `task(id)`. */
  keepFinishedMs?: number
  /** Persistent task records (ids, and what happened to a task after a restart). */
  records?: TaskRecords
  /** Whether a cached tile must be drawn again although it exists (its style or data changed). */
  isStale?: (layer: string, parameterId: string, mtimeMs: number) => boolean
  /**
   * Tasks stopped by a shutdown go on at the next start (their jobs' chunks are redone); otherwise
   * a start alone on the data ends them ABORTED, "aborted: restart".
   */
  resume?: boolean
}

export type KillCode = 'running' | 'pending' | 'all'

/** A task a kill reached, as it was before. */
export interface KilledTask { task: Pick<Task, 'id' | 'layer' | 'type'>, was: TaskState }

/** The task pool as the tile cache and the plugins use it (job-breeder.ts). */
export interface Breeder {
  events: EventEmitter
  /**
   * Once the HTTP layer is ready, on a node started on its data `alone` or not: the tasks of a
   * previous run are taken up (MAPWARDEN_RESUME_TASKS) or end ABORTED; a cluster's workers start.
   */
  start (opts: { alone: boolean }): Promise<{ resumed: number, aborted: number }>
  /** Creates the tasks of a validated request; `request` (JSON) is what a restart rebuilds them from. */
  submit (spec: SeedSpec, request?: string): Promise<Task[]>
  /** Pending and running tasks (killed ones leave at once), by id; one layer or all. */
  list (layer?: string): Task[]
  task (id: number): Task | undefined
  /** Finished and aborted tasks still kept (an hour), newest first, at most `limit`. */
  recent (limit: number): Task[]
  /** A task no longer kept in memory, from its record. */
  record (id: number): Promise<TaskView | undefined>
  kill (code: KillCode, layer?: string): KilledTask[] | Promise<KilledTask[]>
  killTask (id: number, layer?: string): KilledTask | undefined | Promise<KilledTask | undefined>
  close (): Promise<void>
  /** Resolves when no task is pending or running (tests, bench). */
  idle (): Promise<void>
  /** Resolves once the chunks this node has in hand are done: a killed task's last writes. */
  settle (): Promise<void>
}

/** Pending and running tasks not killed, by id; one layer or all (Breeder.list). */
export function liveTasks (tasks: Iterable<Task>, layer?: string): Task[] {
  return [...tasks].filter((t) => live(t) && (!layer || t.layer === layer)).sort((a, b) => a.id - b.id)
}

/** Finished and aborted tasks, newest first, at most `limit` (Breeder.recent). */
export function recentTasks (tasks: Iterable<Task>, limit: number): Task[] {
  return [...tasks].filter((t) => t.state === 'done' || t.state === 'aborted').sort((a, b) => b.id - a.id).slice(0, limit)
}
