// One seed, reseed or truncate task, after GWC's GWCTask: an id, a type, a state and progress.
// The tasks of one request share a Job: its tile range, its metatile iterator and its total.
import { exactCount } from '../exact-json.js'
import type { SeedSpec, TaskType } from './seed-request.js'
import type { TileRange } from './tile-range.js'
import type { MetaTile } from './tile-range.js'

export type TaskState = 'pending' | 'running' | 'done' | 'aborted'
/** Fifth column of a task row (interface "States and transitions"). */
export const STATUS_CODE: Record<TaskState, number> = { aborted: -1, pending: 0, running: 1, done: 2 }

export interface Job {
  spec: SeedSpec
  parameterId?: string
  range: TileRange
  total: bigint
  next: () => MetaTile | undefined
  tasks: Task[]
  startedAt?: number
}

export interface Task {
  id: number
  type: TaskType
  layer: string
  job: Job
  state: TaskState
  /** Tiles this task processed (truncate: tiles deleted). */
  tilesDone: number
  killed: boolean
  /** Stops the work in hand at once (a running truncate); set while it runs. */
  cancel?: () => void
  createdAt: number
  startedAt?: number
  finishedAt?: number
  /** A resumed truncate: tiles it deleted before the restart. */
  baseDone?: number
  /** When the task's record was last written. */
  savedAt?: number
  error?: string
  /** Metatiles that could not be rendered because a granule's data cannot be decoded, and the last reason. */
  failedMetatiles?: number
  failure?: string
}

export function jobDone (job: Job): number {
  let n = 0
  for (const t of job.tasks) n += Math.max(0, t.tilesDone)
  return n
}

export interface TaskView {
  id: number
  type: TaskType
  layer: string
  gridSetId: string
  format: string
  zoomStart: number
  zoomStop: number
  state: TaskState
  status: number
  tilesDone: number
  /** Exact: a bigint past 2^53 (a world seed to zoom 30 is 18053587901014829 tiles). */
  tilesTotal: number | bigint
  tilesRemaining: number | bigint
  tilesPerSecond: number
  etaSeconds: number
  error?: string
  failedMetatiles?: number
  failure?: string
}

/** A task as the per-task resource shows it; counts are -1 while unknown (pending, truncate). */
export function viewOf (t: Task, now: number): TaskView {
  const counted = t.type !== 'truncate' && t.state !== 'pending'
  const done = jobDone(t.job)
  const total = counted ? t.job.total : -1n
  const remaining = counted ? (total > BigInt(done) ? total - BigInt(done) : 0n) : -1n
  const since = t.job.startedAt ?? now
  const end = t.state === 'running' ? now : (t.finishedAt ?? now)
  const secs = Math.max(0.001, (end - since) / 1000)
  const tps = counted ? Math.round((done / secs) * 10) / 10 : 0
  return {
    id: t.id,
    type: t.type,
    layer: t.layer,
    gridSetId: t.job.spec.gridSet.id,
    format: t.job.spec.formats.join(','),
    zoomStart: t.job.spec.zoomStart,
    zoomStop: t.job.spec.zoomStop,
    state: t.state,
    status: STATUS_CODE[t.state],
    tilesDone: t.state === 'pending' ? -1 : t.tilesDone,
    tilesTotal: exactCount(total),
    tilesRemaining: exactCount(remaining),
    tilesPerSecond: tps,
    etaSeconds: !counted ? -1 : t.state !== 'running' ? 0 : tps > 0 ? Math.round(Number(remaining) / tps) : -1,
    error: t.error,
    ...(t.failedMetatiles ? { failedMetatiles: t.failedMetatiles, failure: t.failure } : {})
  }
}

/**
 * Task row `[tilesDone, tilesTotal, tilesRemaining, id, status]` (DECISIONS.md "Task record"):
 * -1 in the counts while not counted; totals are BigInt-exact in the text.
 */
export function rowOf (t: Task): string[] {
  if (t.state === 'pending') return ['-1', '-1', '-1', String(t.id), '0']
  if (t.type === 'truncate') return [String(t.tilesDone), '-1', '-1', String(t.id), String(STATUS_CODE[t.state])]
  const done = BigInt(jobDone(t.job))
  const remaining = t.job.total > done ? t.job.total - done : 0n
  return [String(t.tilesDone), String(t.job.total), String(remaining), String(t.id), String(STATUS_CODE[t.state])]
}
