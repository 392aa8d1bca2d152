// The breeder (GWC's TileBreeder), one for every backend, on what the stores' seed queue gives it
// (seed-queue.ts): the job tables (job-store.ts), a work queue, a node id and the announcements of
// changes. A request is one job; its tile range goes out as chunks on the work queue that this
// node consumes with TASKS_PER_THREAD workers per render thread (job-work.ts), as every other node
// sharing the tables does. Each node keeps a copy of the tasks (job-mirror.ts), re-read when any
// node announces a change, so lists, the task resource and the event stream show every task with
// the progress of all nodes. A kill stops that job's work on every node before its next metatile.
// A chunk left unfinished (a kill -9, a node that died) is redone and counts once, so a task ends
// with exactly its tiles. The operations share one context (job-context.ts).
import { TileCacheClosing } from '../errors.js'
import { countAreaTiles } from './area.js'
import { firstCursor } from './chunks.js'
import type { SeedSpec, TaskType } from './seed-request.js'
import { RESTART_REASON } from './task-records.js'
import { live, viewOf, type Task, type TaskState, type TaskView } from './task.js'
import { liveTasks, recentTasks, type Breeder, type KillCode, type KilledTask } from './breeder.js'
import { countTiles } from '../tilecache/tile-range.js'
import { createBreederContext, makeJobContext } from './job-context.js'
import { createMirror } from './job-mirror.js'
import { createChunkWork } from './job-work.js'
import type { SeedQueueDeps } from './seed-queue.js'


export function createJobBreeder (deps: SeedQueueDeps): Breeder {
  const ctx = createBreederContext(deps)
  const pollMs = deps.pollMs ?? 1000
  const { refresh, onChange, stop: stopMirror } = createMirror(ctx)
  const { work, reclaim, recordEnds } = createChunkWork(ctx)
  let timer: NodeJS.Timeout | undefined
  let unsubscribe: (() => void) | undefined

  // A burst of requests queues here, one transaction of this node at a time: they all wait for
  // the cluster's slot lock anyway, and waiting here holds no database connection.
  let submitting: Promise<unknown> = Promise.resolve()
  function oneAtATime<T> (fn: () => Promise<T>): Promise<T> {
    const p = submitting.then(fn, fn)
    submitting = p.catch(() => {})
    return p
  }

  /** Stops this node's work on the running jobs whose every live task `killed` picks; returns their ids. */
  function stopLocally (killed: (t: Pick<Task, 'id' | 'layer'>) => boolean): number[] {
    const out: number[] = []
    const stop = (id: number) => { if (!ctx.ended.has(id)) { ctx.stopJob(id); out.push(id) } }
    for (const job of ctx.jobs.values()) {
      const alive = job.tasks.filter(live)
      if (job.state === 'running' && alive.length > 0 && alive.every(killed)) stop(job.id)
    }
    for (const [id, w] of ctx.working) {
      if (!ctx.jobs.has(id) && w.taskIds.every((t) => killed({ id: t, layer: w.layer }))) stop(id)
    }
    return out
  }
  const killedOf = (rows: Array<{ id: number, layer: string, type: TaskType, was: TaskState }>): KilledTask[] =>
    rows.map(({ was, ...task }) => ({ task, was }))

  return {
    events: ctx.events,

    /** After a stop of every node the unfinished tasks go on, or with resuming off end ABORTED. */
    async start ({ alone }) {
      ctx.queue = await deps.queue.openQueue((err) => deps.log?.warn({ err }, 'seed work queue'))
      // The one abort at start (create-services.ts reports the count).
      const aborted = alone && deps.resume !== true ? await ctx.seeds.abortUnfinished(RESTART_REASON, ctx.now()) : 0
      unsubscribe = deps.queue.subscribe(onChange)
      await ctx.seeds.promote(ctx.dispatch())
      await refresh()
      await ctx.queue.work(deps.workers, (ref, id) => {
        const p = work(ref, id)
        ctx.inHand.add(p)
        return p.finally(() => ctx.inHand.delete(p))
      })
      let pruned = ctx.now()
      timer = setInterval(() => {
        reclaim().catch((err) => deps.log?.warn({ err }, 'could not hand the chunks of a stopped node over'))
        if (ctx.unrecorded.size > 0) recordEnds().catch((err) => deps.log?.warn({ err }, 'could not write a seed task record'))
        refresh().catch((err) => deps.log?.warn({ err }, 'could not read the seed tasks'))
        if (ctx.now() - pruned > 60_000) {
          pruned = ctx.now()
          ctx.seeds.prune(ctx.now() - ctx.keepMs).catch((err) => deps.log?.warn({ err }, 'could not prune seed jobs'))
          deps.records?.prune().catch((err) => deps.log?.warn({ err }, 'could not prune seed task records'))
        }
      }, pollMs)
      timer.unref()
      return { resumed: 0, aborted }
    },

    async submit (spec: SeedSpec, request?: string): Promise<Task[]> {
      if (ctx.closing || !ctx.queue) throw TileCacheClosing()
      const count = spec.type === 'truncate' ? 1 : spec.threadCount
      const job = makeJobContext(spec)
      const total = spec.area ? spec.areaTiles ?? countAreaTiles(job.range, spec.area) : countTiles(job.range)
      const view: Omit<TaskView, 'id'> = {
        type: spec.type, layer: spec.layer.qualifiedName, gridSetId: spec.gridSet.id, format: spec.formats.join(','), zoomStart: spec.zoomStart, zoomStop: spec.zoomStop,
        state: 'pending', status: 0, tilesDone: -1, tilesTotal: -1, tilesRemaining: -1, percentDone: -1, tilesPerSecond: 0, etaSeconds: -1
      }
      const ids = await oneAtATime(() => ctx.seeds.submit({
        layer: spec.layer.qualifiedName,
        type: spec.type,
        request: request ?? JSON.stringify({ layer: spec.layer.qualifiedName, body: {} }),
        views: Array.from({ length: count }, () => view),
        total,
        cursor: spec.type === 'truncate' ? { z: -1, band: 0, col: 0 } : firstCursor(job.range, { descending: spec.pyramid }),
        descending: spec.pyramid === true
      }, ctx.dispatch(), (jobId) => { ctx.contexts.set(jobId, Promise.resolve(job)); ctx.loaded.set(jobId, job) }))
      await refresh()
      ctx.queue.wake()
      return ids.map((id) => ctx.tasks.get(id)).filter((t): t is Task => t !== undefined)
    },

    list: (layer?: string): Task[] => liveTasks(ctx.tasks.values(), layer),

    task: (id: number) => ctx.tasks.get(id),

    recent: (limit: number): Task[] => recentTasks(ctx.tasks.values(), limit),

    async record (id: number) {
      // A task of a job this node's copy does not know yet (submitted on another node a moment
      // ago) is read with the copy, not from its bare record.
      await refresh()
      const t = ctx.tasks.get(id)
      return t ? viewOf(t, ctx.now()) : await deps.records?.get(id)
    },

    async kill (code: KillCode, layer?: string): Promise<KilledTask[]> {
      const states: TaskState[] = code === 'running' ? ['running'] : code === 'pending' ? ['pending'] : ['pending', 'running']
      // This node's work on a job losing every live task stops now, not when the kill is announced.
      // (A kill of pending tasks stops no work; the copy may not know yet that one started.)
      const stopped = code !== 'pending' ? stopLocally((t) => !layer || t.layer === layer) : []
      const rows = await ctx.seeds.kill({ states, layer }, ctx.dispatch()).catch((err) => { for (const id of stopped) ctx.ended.delete(id); throw err })
      await refresh()
      return killedOf(rows)
    },

    async killTask (id: number, layer?: string): Promise<KilledTask | undefined> {
      const stopped = stopLocally((t) => t.id === id && (!layer || t.layer === layer))
      const rows = await ctx.seeds.kill({ ids: [id], states: ['pending', 'running'], layer }, ctx.dispatch()).catch((err) => { for (const j of stopped) ctx.ended.delete(j); throw err })
      await refresh()
      return killedOf(rows)[0]
    },

    async close () {
      // A last try for the ends the stores refused (a full disk that has room again).
      if (ctx.unrecorded.size > 0) await recordEnds().catch((err) => deps.log?.warn({ err }, 'could not write a seed task record'))
      ctx.closing = true
      if (timer) clearInterval(timer)
      unsubscribe?.()
      stopMirror()
      ctx.aborter.abort()
      for (const c of ctx.truncating.values()) c.abort()
      await ctx.queue?.stop()
    },

    async settle () { await Promise.allSettled([...ctx.inHand]) },
    async idle () {
      for (;;) {
        await Promise.allSettled([...ctx.inHand])
        await refresh()
        if (ctx.inHand.size === 0 && ![...ctx.jobs.values()].some((j) => j.state === 'pending' || j.state === 'running')) return
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  }
}
