// What the operations of the breeder (job-breeder.ts) share: the seed queue it works (the job
// tables, the node id, announcements, the work queue), this node's copy of the tasks
// (job-mirror.ts), the jobs whose work stops, the chunks in hand (job-work.ts), each job's spec and
// range as read once from its request, and the dispatch (how a store's transaction hands out a
// job's next chunks to the work queue).
import { EventEmitter } from 'node:events'
import { nextChunks } from './chunks.js'
import type { Dispatch, JobStore } from './job-store.js'
import { parameterId } from '../tilecache/parameters.js'
import type { SeedSpec, TaskType } from './seed-request.js'
import type { Job, Task, TaskState } from './task.js'
import type { SeedQueueDeps, WorkQueue } from './seed-queue.js'
import { tileRange, type TileRange } from '../tilecache/tile-range.js'

/** A job's request as every node works it. */
export interface JobContext { spec: SeedSpec, type: TaskType, range: TileRange, parameterId?: string }
/** A job as the copy of the tasks holds it (lists show its request as recorded). */
export type MirrorJob = Job & { id: number, state: TaskState }

export interface BreederContext {
  deps: SeedQueueDeps
  now: () => number
  keepMs: number
  seeds: JobStore
  nodeId: string
  events: EventEmitter
  /** The copy of the tasks and jobs (job-mirror.ts). */
  tasks: Map<number, Task>
  jobs: Map<number, MirrorJob>
  contexts: Map<number, Promise<JobContext>>
  /** Jobs known to have stopped (a kill or an abort announced): their work ends before the next metatile. */
  ended: Set<number>
  /**
   * Jobs this node ended on a failure whose end the stores refused (a full disk, the database
   * away): the copy shows them ABORTED with the reason meanwhile, and the end is written again (job-work.ts).
   */
  unrecorded: Map<number, { reason: string, at: number }>
  truncating: Map<number, AbortController>
  /** Jobs of the chunks in hand here (the copy may not know a job yet that a kill must stop). */
  working: Map<number, { layer: string, taskIds: number[], chunks: number }>
  /** The chunks in hand (idle). */
  inHand: Set<Promise<void>>
  aborter: AbortController
  queue?: WorkQueue
  closing: boolean
  /** A job's spec and range, read once per node from its recorded request. */
  jobContext (jobId: number): Promise<JobContext>
  /** The job contexts read (what `plan` needs at once). */
  loaded: Map<number, JobContext>
  /** What the job tables need to hand out chunks (job-store.ts). */
  dispatch (): Dispatch
  /** This node's work on the job stops before its next metatile. */
  stopJob (jobId: number): void
}

export const makeJobContext = (spec: SeedSpec): JobContext => ({
  spec, type: spec.type, range: tileRange(spec.subset, spec.zoomStart, spec.zoomStop, spec.bounds), parameterId: spec.parameters ? parameterId(spec.parameters) : undefined
})

export function createBreederContext (deps: SeedQueueDeps): BreederContext {
  const now = deps.now ?? Date.now
  const events = new EventEmitter()
  events.setMaxListeners(100)
  const ctx: BreederContext = {
    deps,
    now,
    keepMs: deps.keepFinishedMs ?? 3600_000,
    seeds: deps.queue.jobs,
    nodeId: deps.queue.nodeId,
    events,
    tasks: new Map(),
    jobs: new Map(),
    contexts: new Map(),
    loaded: new Map(),
    ended: new Set(),
    unrecorded: new Map(),
    truncating: new Map(),
    working: new Map(),
    inHand: new Set(),
    aborter: new AbortController(),
    closing: false,
    jobContext (jobId) {
      let p = ctx.contexts.get(jobId)
      if (!p) {
        p = (async () => {
          const row = await ctx.seeds.job(jobId)
          if (!row) throw new Error(`seed job ${jobId} is no longer recorded`)
          const spec = await deps.specOf(row.request)
          spec.pyramid = row.descending // as decided when it was submitted, on every node
          return makeJobContext(spec)
        })()
        ctx.contexts.set(jobId, p)
        p.then((job) => { if (ctx.contexts.get(jobId) === p) ctx.loaded.set(jobId, job) }, () => ctx.contexts.delete(jobId))
      }
      return p
    },
    dispatch: () => ({
      taskSlots: deps.taskSlots,
      maxPendingTasks: deps.maxPendingTasks,
      now: now(),
      enqueue: async (tx, refs) => await ctx.queue!.add(tx, refs),
      async load (jobId) {
        const job = await ctx.jobContext(jobId)
        ctx.loaded.set(jobId, job)
      },
      plan (jobId, cursor, n, oneLevel) {
        const job = ctx.loaded.get(jobId)
        if (!job) return undefined
        // A truncate is one chunk: deleting is cheap next to the walk of the directories.
        if (job.type === 'truncate') return { chunks: [{ z: -1, rect: [0, 0, 0, 0] }], cursor: null }
        return nextChunks(job.range, cursor, n, { descending: job.spec.pyramid, area: job.spec.area, oneLevel })
      }
    }),
    stopJob (jobId) {
      ctx.ended.add(jobId)
      ctx.truncating.get(jobId)?.abort()
    }
  }
  return ctx
}
