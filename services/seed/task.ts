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
  /** The next metatile to process; with a pyramid it waits until the level below is finished. */
  next: () => Promise<MetaTile | undefined>
  /** Called once a metatile from next() is processed (or failed). */
  done: (mt: MetaTile) => void
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
  /** The tiles it had to process, fixed when it ends (shareOf). */
  share?: bigint
}

export function jobDone (job: Job): number {
  let n = 0
  for (const t of job.tasks) n += Math.max(0, t.tilesDone)
  return n
}

/** The whole request a task belongs to (its tasks share one tile range): the sum of their work. */
/** Counts and rates, of one task or of its whole request. */
export type Progress = {
  tilesDone: number
  /** Exact: a bigint past 2^53 (a world seed to zoom 30 is 18053587901014829 tiles). */
  tilesTotal: number | bigint
  tilesRemaining: number | bigint
  /** Share done, 0-100 (a task: 100 only once DONE); -1 while not counted. */
  percentDone: number
  tilesPerSecond: number
  etaSeconds: number
}

export type RequestView = Progress & {
  /** Ids of the request's tasks. */
  taskIds: { id: number[] }
}

/**
 * A task as its resource shows it. The counts at the top are this task's own share: the tiles it
 * processed, the tiles it had to process (a finished task: what it did, so DONE reads 100 %; a
 * running one: what it did plus its part of what the request has left, split between the
 * request's live tasks) and its part still to do. `request` is the sum over the request's tasks
 * (the task list's positions 2 and 3).
 */
export interface TaskView extends Progress {
  id: number
  type: TaskType
  layer: string
  gridSetId: string
  format: string
  zoomStart: number
  zoomStop: number
  state: TaskState
  status: number
  request?: RequestView
  error?: string
  failedMetatiles?: number
  failure?: string
}

const live = (t: Task) => (t.state === 'pending' || t.state === 'running') && !t.killed

/**
 * The part of the request's remaining tiles that falls to `t`: the remaining tiles split evenly
 * between the live tasks of the request (ordered by id; the first ones take the odd tiles), so the
 * shares of a request always add up to its total.
 */
function remainingShare (t: Task, remaining: bigint): bigint {
  const sharing = t.job.tasks.filter((x) => x === t || live(x))
  const n = BigInt(sharing.length)
  const i = BigInt(sharing.indexOf(t))
  return remaining / n + (i < remaining % n ? 1n : 0n)
}

/** The tiles `t` has to process in all (its share), fixed once it ends; -1n while not known. */
export function shareOf (t: Task): bigint {
  if (t.share !== undefined) return t.share
  if (t.state === 'pending' || t.tilesDone < 0) return -1n
  if (t.type === 'truncate') return t.state === 'done' ? BigInt(t.tilesDone) : -1n
  if (t.state === 'done') return BigInt(t.tilesDone)
  const done = BigInt(jobDone(t.job))
  const remaining = t.job.total > done ? t.job.total - done : 0n
  return BigInt(t.tilesDone) + remainingShare(t, remaining)
}

/** Whole percent; 100 only once finished (a running share may reach its estimate early). */
const percent = (done: bigint, total: bigint, finished: boolean, running: boolean): number => {
  if (total < 0n) return -1
  if (finished) return 100
  if (total === 0n) return 0
  const p = Number((done * 100n) / total)
  return running ? Math.min(99, p) : p
}
const rate = (done: number, from: number | undefined, to: number): number =>
  from === undefined ? 0 : Math.round((done / Math.max(0.001, (to - from) / 1000)) * 10) / 10

/** The sum of a request's tasks. */
export function requestOf (t: Task, now: number): RequestView {
  const tasks = t.job.tasks
  const ids = tasks.map((x) => x.id)
  const started = tasks.some((x) => x.state !== 'pending')
  const counted = started && (t.type !== 'truncate' || tasks.every((x) => x.state === 'done'))
  const done = jobDone(t.job)
  const total = !counted ? -1n : t.type === 'truncate' ? BigInt(done) : t.job.total
  const remaining = !counted ? -1n : total > BigInt(done) ? total - BigInt(done) : 0n
  const running = tasks.some(live)
  const end = running ? now : Math.max(...tasks.map((x) => x.finishedAt ?? now))
  const tps = counted && t.type !== 'truncate' ? rate(done, t.job.startedAt, end) : 0
  return {
    taskIds: { id: ids },
    tilesDone: started ? done : -1,
    tilesTotal: exactCount(total),
    tilesRemaining: exactCount(remaining),
    percentDone: percent(BigInt(done), total, tasks.every((x) => x.state === 'done'), running),
    tilesPerSecond: tps,
    etaSeconds: !counted ? -1 : !running ? 0 : tps > 0 ? Math.round(Number(remaining) / tps) : -1
  }
}

/** A task as the per-task resource shows it; counts are -1 while unknown (pending, truncate). */
export function viewOf (t: Task, now: number): TaskView {
  const share = shareOf(t)
  const done = t.state === 'pending' ? -1 : t.tilesDone
  const remaining = share < 0n ? -1n : share > BigInt(done) ? share - BigInt(done) : 0n
  const end = t.state === 'running' ? now : (t.finishedAt ?? now)
  const tps = share >= 0n && t.type !== 'truncate' ? rate(Math.max(0, done), t.startedAt, end) : 0
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
    tilesDone: done,
    tilesTotal: exactCount(share),
    tilesRemaining: exactCount(remaining),
    percentDone: percent(BigInt(Math.max(0, done)), share, t.state === 'done', live(t)),
    tilesPerSecond: tps,
    etaSeconds: share < 0n || t.type === 'truncate' ? -1 : t.state !== 'running' ? 0 : tps > 0 ? Math.round(Number(remaining) / tps) : -1,
    request: requestOf(t, now),
    error: t.error,
    ...(t.failedMetatiles ? { failedMetatiles: t.failedMetatiles, failure: t.failure } : {})
  }
}

/**
 * Task row `[tilesDone, tilesTotal, tilesRemaining, id, status]`:
 * -1 in the counts while not counted; totals are BigInt-exact in the text.
 */
export function rowOf (t: Task): string[] {
  if (t.state === 'pending') return ['-1', '-1', '-1', String(t.id), '0']
  if (t.type === 'truncate') return [String(t.tilesDone), '-1', '-1', String(t.id), String(STATUS_CODE[t.state])]
  const done = BigInt(jobDone(t.job))
  const remaining = t.job.total > done ? t.job.total - done : 0n
  return [String(t.tilesDone), String(t.job.total), String(remaining), String(t.id), String(STATUS_CODE[t.state])]
}
