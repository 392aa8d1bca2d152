// One seed, reseed or truncate task, after GWC's GWCTask: an id, a type, a state and progress.
// The tasks of one request share a Job: its request as lists show it, its total and its start.
import { exactCount } from '../exact-json.js'
import type { SeedSpec, TaskType } from './seed-request.js'

export type TaskState = 'pending' | 'running' | 'done' | 'aborted'
/** Fifth column of a task row (interface "States and transitions"). */
export const STATUS_CODE: Record<TaskState, number> = { aborted: -1, pending: 0, running: 1, done: 2 }

export interface Job {
  spec: SeedSpec
  total: bigint
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
  createdAt: number
  startedAt?: number
  finishedAt?: number
  error?: string
  /** Metatiles that could not be rendered because a granule's data cannot be decoded, and the last reason. */
  failedMetatiles?: number
  failure?: string
  /** Its part of the request's total (seed, reseed): fixed at creation; see splitTotal and passOn. */
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
 * A task as its resource shows it. The counts at the top are this task's own part of the request
 * (shareOf): the tiles of it done, its total and what is left of it; the parts of a request's tasks
 * add up to the request. `request` is the sum over the request's tasks (the task list's positions 2
 * and 3).
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

/** Pending or running and not killed: a task that goes on with its request's work. */
export const live = (t: Pick<Task, 'state' | 'killed'>) => (t.state === 'pending' || t.state === 'running') && !t.killed
const ended = (t: Pick<Task, 'state'>) => t.state === 'done' || t.state === 'aborted'

// How a request's tiles are shared between its tasks (issue 31, item 5), on both backends: every
// task has a part of the request's total, fixed when the request is made (the total split evenly;
// the parts add up to it), and counts the tiles of that part only. A finished metatile (a chunk, in
// a cluster) counts to the task that took it, up to its part; what does not fit counts to the
// request's other tasks with room left (running ones first, then pending, then killed ones still
// finishing a metatile, ended ones last, lowest id first), never past a part. So at every moment
// each task's done is at most its total, the tasks' done add up to the request's and their totals
// to the request's total, and a request seeded to the end reads done = total in every task. A task
// that fails, or is killed alone, while others of its request go on keeps what it did as its total
// and passes what it had left to them (passOn); the tasks of a request that ran out of work, or
// that a kill_all stopped, end together (the job store ends a job's tasks in one transaction) and
// keep their parts.

/** `total` split into `n` parts as evenly as it goes, the first ones one more: they add up to it. */
export function splitTotal (total: bigint, n: number): bigint[] {
  const k = BigInt(n)
  return Array.from({ length: n }, (_, i) => total / k + (BigInt(i) < total % k ? 1n : 0n))
}

/** What crediting needs of a task: a row of the job store's (storage/sqlite/job-store.ts, storage/pg/cluster-store.ts). */
export type ShareHolder = Pick<Task, 'id' | 'state' | 'killed' | 'tilesDone' | 'share'>
const room = (t: ShareHolder): bigint => (t.share ?? 0n) - BigInt(Math.max(0, t.tilesDone))

/**
 * Who counts `tiles` finished for `doer` among its request's `tasks`, and how many each: the doer
 * up to its part, the rest as above. Tiles no part has room for (none while the parts add up to the
 * request) go to the doer.
 */
export function creditOf<T extends ShareHolder> (tasks: T[], doer: T, tiles: number): Array<[T, number]> {
  const rank = (t: T) => t === doer && !ended(t) ? 0 : ended(t) ? 4 : t.killed ? 3 : t.state === 'pending' ? 2 : 1
  const out: Array<[T, number]> = []
  let left = BigInt(tiles)
  for (const t of [...tasks].sort((a, b) => rank(a) - rank(b) || a.id - b.id)) {
    const r = room(t)
    if (left === 0n) break
    if (r <= 0n) continue
    const n = r < left ? r : left
    out.push([t, Number(n)])
    left -= n
  }
  if (left > 0n) out.push([doer, Number(left)])
  return out
}

/**
 * A task that stops while others of its request go on: its part becomes what it did and what it
 * had left is split between the live ones (by id, as splitTotal). Returns the tasks whose part
 * changed (none when no other task goes on: the parts stay).
 */
export function passOn<T extends ShareHolder> (tasks: T[], t: T): T[] {
  const heirs = tasks.filter((x) => x !== t && live(x))
  if (heirs.length === 0 || t.share === undefined) return []
  const left = room(t)
  t.share = BigInt(Math.max(0, t.tilesDone))
  splitTotal(left > 0n ? left : 0n, heirs.length).forEach((p, i) => { heirs[i].share = (heirs[i].share ?? 0n) + p })
  return [t, ...heirs]
}

/**
 * A job's tasks after `killed` of them were killed (their rows read again, `tasks`): undefined when
 * none is live any more (the job ends); else the tasks whose part changed, what is left of each
 * killed task's part passed on to the others (passOn), for the job store to write.
 */
export function passOnKilled<T extends ShareHolder> (tasks: T[], killed: number[]): T[] | undefined {
  if (!tasks.some((t) => t.state === 'pending' || t.state === 'running')) return undefined
  const changed = new Set<T>()
  for (const id of killed) {
    for (const t of passOn(tasks, tasks.find((t) => t.id === id)!)) changed.add(t)
  }
  return [...changed]
}

/** Whether any task of the request has started (its counts are known). */
const started = (t: Task) => t.job.tasks.some((x) => x.startedAt !== undefined)

/** The tiles `t` has to process in all (its part, above); -1n while not known (request not started; a truncate until done). */
export function shareOf (t: Task): bigint {
  if (t.type === 'truncate') return t.state === 'done' ? BigInt(t.tilesDone) : -1n
  if (t.share === undefined || !started(t)) return -1n
  return t.share
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
  // -1 while its request has not started; a task still pending in a request that started may
  // already count tiles its peers did for its part.
  const done = share < 0n && t.tilesDone < 0 ? -1 : Math.max(0, t.tilesDone)
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
