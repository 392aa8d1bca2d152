// The task pool of a cluster (MAPWARDEN_DATABASE_URL): the same interface as tile-breeder.ts, with
// the tasks in PostgreSQL (cluster-store.ts) and their work spread over every instance. A request is
// one job; its tile range goes out as chunks on a work queue (storage/pg/work-queue.ts) that every
// instance consumes with TASKS_PER_THREAD workers per render thread. Each node keeps a copy of the cluster's tasks,
// re-read when any node announces a change, so lists, the task resource and the event stream show
// every task with the progress of all nodes. A kill on any node is announced and every node stops
// that job's work before its next metatile. A node that dies leaves its chunks to the others: the
// first node to see it gone fails its queue jobs, which are retried at once elsewhere; a chunk counts
// once, so the task ends with exactly its tiles.
import { EventEmitter } from 'node:events'
import type { WorkQueue } from '../storage/pg/work-queue.js'
import { GranuleDamaged, TileCacheClosing, isMapwardenError } from '../errors.js'
import { countAreaTiles } from './area.js'
import { chunkMetaTiles, firstCursor, nextChunks } from './chunks.js'
import type { ChunkRef, ChunkWork, ClusterSeedStore, Dispatch } from './cluster-store.js'
import { rectArea } from './grid-sets.js'
import { parameterId } from './parameters.js'
import type { SeedSpec, TaskType } from './seed-request.js'
import { RESTART_REASON, type TaskRecords } from './task-records.js'
import { viewOf, type Job, type Task, type TaskState, type TaskView } from './task.js'
import { abortReason, seedMetatile, truncateJob, type Breeder, type KillCode, type KilledTask, type SeedWork } from './tile-breeder.js'
import { countTiles, tileRange, type MetaTile, type TileRange } from './tile-range.js'

/** What the cluster offers the seeder (storage/stores.ts builds it on the PostgreSQL stores). */
export interface SeedCluster {
  seeds: ClusterSeedStore
  /** This instance's node id and the ids of the live nodes (storage/pg/nodes.ts). */
  nodeId: string
  liveNodes (): Promise<string[]>
  /** Runs `fn` holding the cluster-wide lock of one metatile (two nodes never render it at once). */
  withMetatileLock<T> (key: string, fn: () => Promise<T>): Promise<T>
  /** Changes announced by any node ('seed' topic), and 'resync' after a lost listener. */
  subscribe (handler: (change: { topic: string, key?: string } | 'resync') => void): () => void
  openQueue (onError: (err: Error) => void): Promise<WorkQueue<ChunkRef>>
}

export interface ClusterBreederDeps extends SeedWork {
  cluster: SeedCluster
  taskSlots: number
  maxPendingTasks: number
  /** Chunks this node renders at once (its render threads). */
  workers: number
  /** The validated spec of a recorded request (the layer looked up again). */
  specOf: (request: string) => Promise<SeedSpec>
  records?: TaskRecords
  log?: { info: (obj: object, msg: string) => void, warn: (obj: object, msg: string) => void }
  now?: () => number
  keepFinishedMs?: number
  /** How often the copy of the cluster's tasks is re-read without an announcement, and dead nodes looked for (ms). */
  pollMs?: number
}

interface JobContext { spec: SeedSpec, type: TaskType, range: TileRange, parameterId?: string }
type MirrorJob = Job & { id: number, state: TaskState }

/** The key of the cluster-wide lock of a metatile (its tile set and place). */
export function metatileKey (spec: Pick<SeedSpec, 'layer' | 'gridSet'>, format: string, parameterId: string | undefined, z: number, x: number, y: number): string {
  return `${spec.layer.qualifiedName}/${spec.gridSet.id}/${format}/${parameterId ?? ''}/${z}/${x}/${y}`
}

export function createClusterBreeder (deps: ClusterBreederDeps): Breeder & { start (opts: { alone: boolean, resume: boolean }): Promise<void> } {
  const now = deps.now ?? Date.now
  const keepMs = deps.keepFinishedMs ?? 3600_000
  const pollMs = deps.pollMs ?? 1000
  const { seeds, nodeId } = deps.cluster
  const events = new EventEmitter()
  events.setMaxListeners(100)
  const tasks = new Map<number, Task>()
  const jobs = new Map<number, MirrorJob>()
  const contexts = new Map<number, Promise<JobContext>>()
  /** Jobs known to have stopped (a kill or an abort announced): their work ends before the next metatile. */
  const ended = new Set<number>()
  const truncating = new Map<number, AbortController>()
  /** Jobs of the chunks in hand here (the copy may not know a job yet that a kill must stop). */
  const working = new Map<number, { layer: string, taskIds: number[], chunks: number }>()
  const aborter = new AbortController()
  let queue: WorkQueue<ChunkRef> | undefined
  let closing = false
  const inHand = new Set<Promise<void>>()
  let timer: NodeJS.Timeout | undefined
  let unsubscribe: (() => void) | undefined

  const makeContext = (spec: SeedSpec): JobContext => ({
    spec, type: spec.type, range: tileRange(spec.subset, spec.zoomStart, spec.zoomStop, spec.bounds), parameterId: spec.parameters ? parameterId(spec.parameters) : undefined
  })
  /** A job's spec and range, read once per node from its recorded request. */
  function context (jobId: number): Promise<JobContext> {
    let p = contexts.get(jobId)
    if (!p) {
      p = (async () => {
        const row = await seeds.job(jobId)
        if (!row) throw new Error(`seed job ${jobId} is no longer recorded`)
        const spec = await deps.specOf(row.request)
        spec.pyramid = row.descending // as decided when it was submitted, on every node
        return makeContext(spec)
      })()
      contexts.set(jobId, p)
      p.catch(() => contexts.delete(jobId))
    }
    return p
  }

  const dispatch = (): Dispatch => ({
    taskSlots: deps.taskSlots,
    maxPendingTasks: deps.maxPendingTasks,
    now: now(),
    enqueue: async (client, refs) => await queue!.add(client, refs),
    async plan (jobId, cursor, n, oneLevel) {
      const ctx = await context(jobId)
      // A truncate is one chunk: deleting is cheap next to the walk of the directories.
      if (ctx.type === 'truncate') return { chunks: [{ z: -1, rect: [0, 0, 0, 0] }], cursor: null }
      return nextChunks(ctx.range, cursor, n, { descending: ctx.spec.pyramid, area: ctx.spec.area, oneLevel })
    }
  })

  // The copy of the cluster's tasks. A read asked for while one runs is followed by one more, so a
  // caller that changed something sees its change.
  let loading: Promise<void> | undefined
  let again = false
  function refresh (): Promise<void> {
    if (loading) { again = true; return loading }
    loading = (async () => {
      do { again = false; await load() } while (again)
    })().finally(() => { loading = undefined })
    return loading
  }

  async function load (): Promise<void> {
    const snap = await seeds.snapshot(now() - keepMs)
    const changed: Task[] = []
    const present = new Set<number>()
    const byJob = new Map<number, typeof snap.tasks>()
    for (const t of snap.tasks) byJob.set(t.job, [...(byJob.get(t.job) ?? []), t])
    for (const j of snap.jobs) {
      const rows = byJob.get(j.id) ?? []
      if (rows.length === 0) continue
      present.add(j.id)
      let job = jobs.get(j.id)
      if (!job) {
        // What lists show of the request: its grid set, formats and levels, as recorded.
        const v = rows[0].view
        const spec = { type: j.type, layer: { qualifiedName: j.layer }, gridSet: { id: v.gridSetId }, formats: v.format.split(','), zoomStart: v.zoomStart, zoomStop: v.zoomStop } as unknown as SeedSpec
        job = { id: j.id, state: j.state, spec, total: j.total, tasks: [], range: undefined as unknown as TileRange, next: async () => undefined, done: () => {} }
        jobs.set(j.id, job)
      }
      job.state = j.state
      job.startedAt = j.startedAt
      if (j.state !== 'pending' && j.state !== 'running') stopJob(j.id)
      for (const r of rows) {
        let t = tasks.get(r.id)
        if (!t) {
          t = { id: r.id, type: j.type, layer: j.layer, job, state: r.state, tilesDone: -1, killed: r.killed, createdAt: r.createdAt }
          tasks.set(r.id, t)
          job.tasks.push(t)
          changed.push(t)
        }
        const tilesDone = r.startedAt === undefined ? -1 : r.tilesDone
        if (t.state !== r.state || t.tilesDone !== tilesDone || t.killed !== r.killed) changed.push(t)
        if (t.failedMetatiles !== (r.failedMetatiles || undefined)) changed.push(t)
        Object.assign(t, { state: r.state, tilesDone, killed: r.killed, startedAt: r.startedAt, finishedAt: r.finishedAt, error: r.error, failedMetatiles: r.failedMetatiles || undefined, failure: r.failure })
      }
    }
    for (const [id, job] of jobs) {
      if (present.has(id)) continue
      jobs.delete(id)
      contexts.delete(id)
      ended.delete(id)
      for (const t of job.tasks) tasks.delete(t.id)
    }
    const at = now()
    for (const t of new Set(changed)) events.emit('task', viewOf(t, at))
  }

  function stopJob (jobId: number): void {
    ended.add(jobId)
    truncating.get(jobId)?.abort()
  }

  function onChange (change: { topic: string, key?: string } | 'resync'): void {
    if (change !== 'resync' && change.topic !== 'seed') return
    if (change !== 'resync' && change.key?.startsWith('end:')) {
      for (const id of change.key.slice(4).split(',')) if (id) stopJob(Number(id))
    }
    queue?.wake() // chunks may have been added
    refresh().catch((err) => deps.log?.warn({ err }, 'could not read the cluster\'s seed tasks'))
  }

  /** Releases the chunks of nodes that died; their queue jobs are retried at once on live nodes. */
  async function reclaim (): Promise<void> {
    const ids = await seeds.orphans(await deps.cluster.liveNodes())
    if (ids.length === 0) return
    await queue!.fail(ids)
    deps.log?.warn({ chunks: ids.length }, 'seed chunks of a node that stopped answering handed to the live nodes')
  }

  async function truncate (ctx: JobContext, chunk: ChunkWork): Promise<void> {
    const stop = new AbortController()
    truncating.set(chunk.job, stop)
    if (ended.has(chunk.job) || closing) stop.abort()
    let deleted = 0
    let saved = now()
    try {
      deleted = await truncateJob(deps.store, ctx, stop.signal, () => {
        deleted++
        if (now() - saved >= 1000) {
          saved = now()
          seeds.progress(chunk.task, chunk.taskDone + deleted).catch((err) => deps.log?.warn({ err }, 'could not record a truncate\'s progress'))
        }
      })
    } finally { truncating.delete(chunk.job) }
    // Killed or stopped by a shutdown, what it deleted is on record (after a shutdown another node
    // deletes the rest and goes on counting).
    await seeds.progress(chunk.task, chunk.taskDone + deleted)
    stopping(chunk.job)
    await seeds.complete(chunk, nodeId, { metatiles: 0, tiles: 0 }, dispatch())
  }

  /**
   * Leaves a chunk unfinished when its job was stopped or this node stops: the chunk is given back
   * and its queue job failed, so it is retried: skipped if the job did stop, run elsewhere if not.
   */
  function stopping (jobId: number): void {
    if (closing) throw TileCacheClosing()
    if (ended.has(jobId)) throw new Error(`seed job ${jobId} stopped`)
  }

  /** One chunk from the queue: its metatiles rendered (or found fresh), then counted once. */
  async function work (ref: ChunkRef, bossId: string): Promise<void> {
    if (closing) throw TileCacheClosing() // failed: retried at once on a node that is not stopping
    const chunk = await seeds.begin(ref, nodeId, bossId)
    if (!chunk) return // counted already, or its job stopped
    const held = working.get(ref.job) ?? { layer: chunk.layer, taskIds: chunk.taskIds, chunks: 0 }
    held.chunks++
    working.set(ref.job, held)
    try {
      let ctx: JobContext
      try { ctx = await context(ref.job) } catch (err) {
        if (!isMapwardenError(err)) throw err
        // The layer went, or the request no longer validates: the job cannot go on anywhere.
        await seeds.abortJob(ref.job, `aborted: its request is no longer valid: ${err.message}`, dispatch())
        return
      }
      if (chunk.z === -1) return await truncate(ctx, chunk)
      // A reseed leaves alone what was drawn since it started: a chunk done again (its node died or
      // stopped) does not redraw the metatiles it had finished.
      if (ctx.type === 'reseed') ctx = { ...ctx, spec: { ...ctx.spec, olderThan: Math.min(ctx.spec.olderThan ?? Infinity, chunk.startedAt) } }
      const format = ctx.spec.formats[0]
      let metatiles = 0
      let tiles = 0
      let failed = 0
      let failure: string | undefined
      for (const mt of chunkMetaTiles(ctx.range, chunk, ctx.spec.area)) {
        stopping(ref.job)
        try {
          await deps.cluster.withMetatileLock(metatileKey(ctx.spec, format, ctx.parameterId, mt.z, mt.render[0], mt.render[1]),
            () => seedMetatile(deps, ctx, ctx.type, mt as MetaTile, aborter.signal))
        } catch (err) {
          if (closing) throw err
          // Bad data in one granule spoils only the metatiles that read it: say so and go on.
          if ((err as { code?: string }).code !== GranuleDamaged.code) {
            deps.log?.warn({ err, job: ref.job, layer: ctx.spec.layer.qualifiedName }, 'seed task failed')
            await seeds.abortJob(ref.job, abortReason(err), dispatch())
            return
          }
          failed++
          failure = (err as Error).message
          deps.log?.warn({ job: ref.job, layer: ctx.spec.layer.qualifiedName, z: mt.z, reason: failure }, 'metatile skipped')
        }
        metatiles++
        tiles += rectArea(mt.wanted)
      }
      await seeds.complete(ref, nodeId, { metatiles, tiles, failed, failure }, dispatch())
    } catch (err) {
      // Not counted: another node takes it (the queue retries a failed job at once).
      await seeds.release(ref, nodeId).catch(() => {})
      throw err
    } finally {
      if (--held.chunks === 0) working.delete(ref.job)
    }
  }

  // A burst of requests queues here, one transaction of this node at a time: they all wait for
  // the cluster's slot lock anyway, and waiting here holds no database connection.
  let submitting: Promise<unknown> = Promise.resolve()
  function oneAtATime<T> (fn: () => Promise<T>): Promise<T> {
    const p = submitting.then(fn, fn)
    submitting = p.catch(() => {})
    return p
  }

  const live = (t: Task) => (t.state === 'pending' || t.state === 'running') && !t.killed
  /** Stops this node's work on the running jobs whose every live task `killed` picks; returns their ids. */
  function stopLocally (killed: (t: Pick<Task, 'id' | 'layer'>) => boolean): number[] {
    const out: number[] = []
    const stop = (id: number) => { if (!ended.has(id)) { stopJob(id); out.push(id) } }
    for (const job of jobs.values()) {
      const alive = job.tasks.filter(live)
      if (job.state === 'running' && alive.length > 0 && alive.every(killed)) stop(job.id)
    }
    for (const [id, w] of working) {
      if (!jobs.has(id) && w.taskIds.every((t) => killed({ id: t, layer: w.layer }))) stop(id)
    }
    return out
  }
  const killedOf = (rows: Array<{ id: number, layer: string, type: TaskType, was: TaskState }>): KilledTask[] =>
    rows.map(({ was, ...task }) => ({ task, was }))

  return {
    events,

    async start ({ alone, resume }) {
      queue = await deps.cluster.openQueue((err) => deps.log?.warn({ err }, 'seed work queue'))
      if (alone && !resume) {
        const aborted = await seeds.abortUnfinished(RESTART_REASON, now())
        if (aborted > 0) deps.log?.warn({ tasks: aborted }, 'seed tasks of the previous run marked aborted: restart')
      }
      unsubscribe = deps.cluster.subscribe(onChange)
      await seeds.promote(dispatch())
      await refresh()
      await queue.work(deps.workers, (ref, id) => {
        const p = work(ref, id)
        inHand.add(p)
        return p.finally(() => inHand.delete(p))
      })
      let pruned = now()
      timer = setInterval(() => {
        reclaim().catch((err) => deps.log?.warn({ err }, 'could not hand the chunks of a stopped node over'))
        refresh().catch((err) => deps.log?.warn({ err }, 'could not read the cluster\'s seed tasks'))
        if (now() - pruned > 60_000) {
          pruned = now()
          seeds.prune(now() - keepMs).catch((err) => deps.log?.warn({ err }, 'could not prune seed jobs'))
          deps.records?.prune().catch((err) => deps.log?.warn({ err }, 'could not prune seed task records'))
        }
      }, pollMs)
      timer.unref()
    },

    async submit (spec: SeedSpec, request?: string): Promise<Task[]> {
      if (closing || !queue) throw TileCacheClosing()
      const count = spec.type === 'truncate' ? 1 : spec.threadCount
      const ctx = makeContext(spec)
      const total = spec.area ? spec.areaTiles ?? countAreaTiles(ctx.range, spec.area) : countTiles(ctx.range)
      const view: Omit<TaskView, 'id'> = {
        type: spec.type, layer: spec.layer.qualifiedName, gridSetId: spec.gridSet.id, format: spec.formats.join(','), zoomStart: spec.zoomStart, zoomStop: spec.zoomStop,
        state: 'pending', status: 0, tilesDone: -1, tilesTotal: -1, tilesRemaining: -1, percentDone: -1, tilesPerSecond: 0, etaSeconds: -1
      }
      const ids = await oneAtATime(() => seeds.submit({
        layer: spec.layer.qualifiedName,
        type: spec.type,
        request: request ?? JSON.stringify({ layer: spec.layer.qualifiedName, body: {} }),
        views: Array.from({ length: count }, () => view),
        total,
        cursor: spec.type === 'truncate' ? { z: -1, band: 0, col: 0 } : firstCursor(ctx.range, { descending: spec.pyramid }),
        descending: spec.pyramid === true
      }, dispatch(), (jobId) => { contexts.set(jobId, Promise.resolve(ctx)) }))
      await refresh()
      queue.wake()
      return ids.map((id) => tasks.get(id)).filter((t): t is Task => t !== undefined)
    },

    list (layer?: string): Task[] {
      return [...tasks.values()].filter((t) => live(t) && (!layer || t.layer === layer)).sort((a, b) => a.id - b.id)
    },

    task: (id: number) => tasks.get(id),

    recent (limit: number): Task[] {
      return [...tasks.values()].filter((t) => t.state === 'done' || t.state === 'aborted').sort((a, b) => b.id - a.id).slice(0, limit)
    },

    async record (id: number) { return await deps.records?.get(id) },

    async kill (code: KillCode, layer?: string): Promise<KilledTask[]> {
      const states: TaskState[] = code === 'running' ? ['running'] : code === 'pending' ? ['pending'] : ['pending', 'running']
      // This node's work on a job losing every live task stops now, not when the kill is announced.
      // (A kill of pending tasks stops no work; the copy may not know yet that one started.)
      const stopped = code !== 'pending' ? stopLocally((t) => !layer || t.layer === layer) : []
      const rows = await seeds.kill({ states, layer }, dispatch()).catch((err) => { for (const id of stopped) ended.delete(id); throw err })
      await refresh()
      return killedOf(rows)
    },

    async killTask (id: number, layer?: string): Promise<KilledTask | undefined> {
      const stopped = stopLocally((t) => t.id === id && (!layer || t.layer === layer))
      const rows = await seeds.kill({ ids: [id], states: ['pending', 'running'], layer }, dispatch()).catch((err) => { for (const j of stopped) ended.delete(j); throw err })
      await refresh()
      return killedOf(rows)[0]
    },

    async close () {
      closing = true
      if (timer) clearInterval(timer)
      unsubscribe?.()
      aborter.abort()
      for (const c of truncating.values()) c.abort()
      await queue?.stop()
    },

    async idle () {
      for (;;) {
        await Promise.allSettled([...inHand])
        await refresh()
        if (inHand.size === 0 && ![...jobs.values()].some((j) => j.state === 'pending' || j.state === 'running')) return
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  }
}
