// The task pool (GWC's TileBreeder): turns validated seed requests into tasks, runs at most
// `taskSlots` at once (the others wait as PENDING), kills them, and lists them. Render work never
// runs here: each metatile goes to the render function (a worker pool), which writes its tiles
// to the blob store's paths; the breeder only records what was written.
import { EventEmitter } from 'node:events'
import type { BlobStore, MetatileTarget, TileSet } from './blob-store.js'
import type { TileWrite } from '../render/tile-files.js'
import type { SeedSpec } from './seed-request.js'
import { countTiles, metaTileIterator, rectAt, tileRange, type MetaTile } from './tile-range.js'
import { parameterId } from './parameters.js'
import { areaMetaTileIterator, areaTileFilter, countAreaTiles } from './area.js'
import { rectArea, type Rect } from './grid-sets.js'
import { shareOf, viewOf, type Job, type Task, type TaskState, type TaskView } from './task.js'
import type { LayerInfo } from '../catalog/layers.js'
import type { TileFormat } from './formats.js'
import type { ParameterSet } from './parameters.js'
import type { RenderPriority } from './render-queue.js'
import { GranuleDamaged, MapwardenError, StorageFull, TileCacheClosing, TooManyPendingTasks, isStorageFull } from '../errors.js'
import type { TaskRecords } from './task-records.js'

export interface MetatileRequest {
  layer: LayerInfo
  gridSet: SeedSpec['gridSet']
  z: number
  /** Tiles of the metatile (inclusive indexes, row 0 at the bottom). */
  rect: Rect
  format: TileFormat
  parameters: ParameterSet
  signal?: AbortSignal
  /** 'interactive' for a tile requested and not cached (rendered ahead of seeding); default 'seed'. */
  priority?: RenderPriority
  /** Where the tiles go (the blob store's files of `rect`, image order). */
  target: MetatileTarget
  /**
   * Pyramid: draw the metatile from the tiles of the level below instead of the granules; their
   * files in image order (2 x cols by 2 x rows; a missing file is transparent).
   */
  children?: string[]
}
/** The tiles written, in the target's order; `error` when a write failed after them. */
export interface RenderedMetatile { writes: TileWrite[], error?: Error }
export type MetatileRenderer = (req: MetatileRequest) => Promise<RenderedMetatile>

/** Renders a metatile into the store and reports its tiles (disk quota), also after a failed write. */
export async function renderIntoStore (render: MetatileRenderer, store: BlobStore, set: TileSet, req: Omit<MetatileRequest, 'target'>): Promise<void> {
  const out = await render({ ...req, target: store.metatileTarget(set, req.z, req.rect) })
  store.recordMetatile(set, req.z, req.rect, out.writes)
  if (out.error) throw out.error
}

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
   * Tasks stopped by close() (a shutdown) keep their pending or running record, so that the next
   * start resumes them (tile-cache.ts resumeTasks); otherwise they end ABORTED.
   */
  resume?: boolean
}

/** What seeding one metatile needs: the blob store, the render function and the stale check. */
export type SeedWork = Pick<BreederDeps, 'store' | 'render' | 'isStale'>

/** The files of the tiles under a metatile's tiles, in image order of the level below (2 cols x 2 rows each). */
function childPaths (store: BlobStore, set: TileSet, z: number, rect: Rect): string[] {
  const out: string[] = []
  for (let y = 2 * rect[3] + 1; y >= 2 * rect[1]; y--) {
    for (let x = 2 * rect[0]; x <= 2 * rect[2] + 1; x++) out.push(store.tilePath({ ...set, z: z + 1, x, y }))
  }
  return out
}

async function everyTile (mt: MetaTile, ok: (x: number, y: number) => Promise<boolean>): Promise<boolean> {
  for (let y = mt.wanted[1]; y <= mt.wanted[3]; y++) for (let x = mt.wanted[0]; x <= mt.wanted[2]; x++) if (!(await ok(x, y))) return false
  return true
}

/**
 * One metatile of a seed, reseed (truncates delete instead): a seed fills what is missing (or was
 * drawn before its style or data changed); a reseed with a date redraws what is older than it; a
 * metatile's tiles are one image, so one such tile renders it. A pyramid draws each level above
 * the deepest from the four tiles under each of its tiles.
 */
export async function seedMetatile (deps: SeedWork, job: Pick<Job, 'spec' | 'parameterId'>, type: Task['type'], mt: MetaTile, signal?: AbortSignal): Promise<void> {
  const { spec } = job
  const format = spec.formats[0]
  const set = { layer: spec.layer.qualifiedName, gridSet: spec.gridSet.id, format, parameterId: job.parameterId! }
  const keep = type === 'seed' ? (at: number) => !deps.isStale?.(set.layer, set.parameterId, at)
    : type === 'reseed' && spec.olderThan !== undefined ? (at: number) => at >= spec.olderThan! : undefined
  if (keep && await everyTile(mt, async (x, y) => {
    const at = await deps.store.mtime({ ...set, z: mt.z, x, y })
    return at !== undefined && keep(at)
  })) return
  const children = spec.pyramid && mt.z < spec.zoomStop ? childPaths(deps.store, set, mt.z, mt.render) : undefined
  await renderIntoStore(deps.render, deps.store, set, {
    layer: spec.layer, gridSet: spec.gridSet, z: mt.z, rect: mt.render, format,
    parameters: spec.parameters ?? {}, signal, children
  })
}

/** Deletes a truncate's tiles (every format of the request, its levels, range or area); returns how many. */
export async function truncateJob (store: BlobStore, job: Pick<Job, 'spec' | 'parameterId' | 'range'>, signal: AbortSignal, onDeleted: () => void): Promise<number> {
  const { spec } = job
  return await store.truncate({
    layer: spec.layer.qualifiedName, gridSet: spec.gridSet.id, formats: spec.formats,
    parameterId: job.parameterId, zoomStart: spec.zoomStart, zoomStop: spec.zoomStop,
    rectAt: (z) => rectAt(job.range, z),
    keep: spec.area ? areaTileFilter(job.range, spec.area) : undefined,
    signal, onDeleted
  })
}

export type KillCode = 'running' | 'pending' | 'all'

/** A task a kill reached, as it was before. */
export interface KilledTask { task: Pick<Task, 'id' | 'layer' | 'type'>, was: TaskState }

/** The task pool as the tile cache and the plugins use it: this process's (below) or the cluster's (cluster-breeder.ts). */
export interface Breeder {
  events: EventEmitter
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
}


/** Why a task stopped, as its resource shows it: no file path or stack (the log has the detail). */
export function abortReason (err: unknown): string {
  if (isStorageFull(err)) return `aborted: ${StorageFull().message}`
  if (err instanceof MapwardenError) return `aborted: ${err.message}`
  const code = (err as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && /^E[A-Z]+$/.test(code)
    ? `aborted: ${code} while rendering or writing tiles (details in the server log)`
    : 'aborted: unexpected failure (details in the server log)'
}

export function createTileBreeder (deps: BreederDeps) {
  const now = deps.now ?? Date.now
  const keepMs = deps.keepFinishedMs ?? 3600_000
  const tasks = new Map<number, Task>()
  const queue: Task[] = []
  const events = new EventEmitter()
  events.setMaxListeners(100)
  let nextId = 1
  let reserved = 0
  let running = 0
  let closing = false
  const runs = new Set<Promise<void>>()
  const aborter = new AbortController()

  const changed = (t: Task) => events.emit('task', viewOf(t, now()))

  // Record writes that failed (a full disk) are retried, newest state wins, until they succeed.
  // One write is in flight at a time; changes made meanwhile go in the next one.
  const unsaved = new Map<number, { task: Task, version: number }>()
  let version = 0
  let writing: Promise<void> | undefined
  let next: Promise<void> | undefined
  let retry: NodeJS.Timeout | undefined
  // Inside batch() (kill_all of a long queue) the writes wait for one transaction at its end: one
  // fsync instead of one per task, which would block the event loop for seconds.
  let batching = 0
  const durable = new Set<number>() // unsaved tasks with a state change (not only progress)
  function saveRecords (): Promise<void> {
    if (!deps.records || unsaved.size === 0) return writing ?? Promise.resolve()
    if (writing) return (next ??= writing.then(() => { next = undefined; return saveRecords() }))
    const records = deps.records
    const pending = [...unsaved.values()]
    const items = pending.map(({ task: t }) => ({ view: viewOf(t, now()), finishedAt: t.finishedAt, durable: durable.has(t.id), killed: t.killed, startedAt: t.startedAt }))
    writing = records.save(items).then(() => {
      for (const { task, version: v } of pending) {
        if (unsaved.get(task.id)?.version === v) { unsaved.delete(task.id); durable.delete(task.id) }
      }
    }, (err) => {
      deps.log?.warn({ err, tasks: pending.length }, 'could not write seed task records; retrying')
      if (!retry && !closing) { retry = setTimeout(() => { retry = undefined; void saveRecords() }, 1000); retry.unref() }
    }).finally(() => { writing = undefined })
    return writing
  }
  function persist (t: Task, stateChange = true) {
    if (!deps.records) return
    t.savedAt = now()
    unsaved.set(t.id, { task: t, version: ++version })
    if (stateChange) durable.add(t.id)
    if (batching === 0) void saveRecords()
  }
  function batch<T> (fn: () => T): T {
    batching++
    try { return fn() } finally { if (--batching === 0) void saveRecords() }
  }

  function prune () {
    const limit = now() - keepMs
    for (const [id, t] of tasks) if (t.finishedAt !== undefined && t.finishedAt < limit) tasks.delete(id)
    if (tasks.size > 2000) {
      const finished = [...tasks.values()].filter((t) => t.finishedAt !== undefined)
      for (const t of finished.slice(0, Math.max(0, finished.length - 1000))) tasks.delete(t.id)
    }
    deps.records?.prune().catch((err) => deps.log?.warn({ err }, 'could not prune seed task records'))
  }

  function finish (t: Task, state: TaskState, error?: string) {
    // A task stopped half-way keeps the share it had (what it did plus its part of the rest then).
    if (state === 'aborted' && t.state === 'running') t.share = shareOf(t)
    t.state = state
    t.finishedAt = now()
    if (error) t.error = error
    changed(t)
    persist(t)
    // The request's other live tasks now share what is left without this one: their shares changed.
    for (const x of t.job.tasks) if (x !== t && (x.state === 'running' || x.state === 'pending') && !x.killed) changed(x)
  }

  /**
   * The level barrier of a pyramid: the tasks of a request take metatiles from the deepest level up,
   * and a metatile of level z is handed out only once every metatile of z + 1 is finished, since it
   * is drawn from their tiles.
   */
  function createLevels () {
    const taken = new Map<number, number>()
    const finished = new Map<number, number>()
    let waiting: Array<() => void> = []
    const complete = (z: number) => (finished.get(z) ?? 0) >= (taken.get(z) ?? 0)
    return {
      async take (z: number) {
        taken.set(z, (taken.get(z) ?? 0) + 1)
        while (!complete(z + 1)) await new Promise<void>((resolve) => waiting.push(resolve))
      },
      finish (z: number) {
        finished.set(z, (finished.get(z) ?? 0) + 1)
        const wake = waiting
        waiting = []
        for (const w of wake) w()
      }
    }
  }

  async function run (t: Task) {
    t.state = 'running'
    t.startedAt = now()
    t.job.startedAt ??= t.startedAt
    // A resumed truncate goes on counting what it deleted before; a resumed seed or reseed walks
    // its range again and counts the metatiles it finds written as done.
    t.tilesDone = t.baseDone ?? 0
    changed(t)
    persist(t)
    try {
      if (t.type === 'truncate') {
        // A kill stops the truncate between two tiles (the store checks the signal), rather than
        // marking it aborted while it deletes to the end.
        const stop = new AbortController()
        t.cancel = () => stop.abort()
        if (t.killed || closing) stop.abort()
        const base = t.baseDone ?? 0
        // Progress on record once a second, as seeds: a resumed truncate goes on from there.
        t.tilesDone = base + await truncateJob(deps.store, t.job, stop.signal, () => { t.tilesDone++; if (now() - (t.savedAt ?? 0) >= 1000) persist(t, false) })
      } else {
        // Killing stops the task after the metatile in hand (GWC terminate flag).
        while (!t.killed && !closing) {
          const mt = await t.job.next()
          if (!mt) break
          // A pyramid may have kept it waiting for the level below: a kill or a stop meanwhile wins.
          if (t.killed || closing) { t.job.done(mt); break }
          try {
            await seedMetatile(deps, t.job, t.type, mt, aborter.signal)
          } catch (err) {
            // Bad data in one granule spoils only the metatiles that read it: say so and go on.
            if ((err as MapwardenError).code !== GranuleDamaged.code) throw err
            t.failedMetatiles = (t.failedMetatiles ?? 0) + 1
            t.failure = (err as Error).message
            deps.log?.warn({ task: t.id, layer: t.layer, z: mt.z, reason: t.failure }, 'metatile skipped')
          } finally {
            t.job.done(mt)
          }
          t.tilesDone += rectArea(mt.wanted)
          changed(t)
          if (now() - (t.savedAt ?? 0) >= 1000) persist(t, false) // progress only
        }
      }
      t.cancel = undefined
      if (closing && deps.resume && !t.killed) return persist(t) // resumed after the next start
      finish(t, t.killed || closing ? 'aborted' : 'done')
    } catch (err) {
      t.cancel = undefined
      if (closing && deps.resume && !t.killed) return persist(t) // the shutdown stopped it: resumed
      deps.log?.warn({ err, task: t.id, layer: t.layer }, 'seed task failed')
      finish(t, 'aborted', abortReason(err))
    }
  }

  /** Kills a live task: a pending one leaves the queue as ABORTED; a running one stops after the
   *  metatile in hand (a truncate between two tiles). Returns it with its state before. */
  function terminate (t: Task): { task: Task, was: TaskState } {
    const was = t.state
    t.killed = true
    t.cancel?.()
    if (t.state === 'pending') {
      queue.splice(queue.indexOf(t), 1)
      finish(t, 'aborted')
    } else {
      changed(t)
      persist(t) // the kill is on record before the metatile in hand ends: a crash never resumes it
    }
    return { task: t, was }
  }

  function makeJob (spec: SeedSpec, count: number): { job: Job, fresh: Task[] } {
    const range = tileRange(spec.subset, spec.zoomStart, spec.zoomStop, spec.bounds)
    const pyramid = spec.pyramid && !spec.area ? createLevels() : undefined
    const iter = spec.area ? areaMetaTileIterator(range, spec.area) : metaTileIterator(range, 4, 4, pyramid !== undefined)
    const job: Job = {
      spec,
      parameterId: spec.parameters ? parameterId(spec.parameters) : undefined,
      range,
      total: spec.area ? spec.areaTiles ?? countAreaTiles(range, spec.area) : countTiles(range),
      async next () {
        const mt = iter.next()
        if (mt && pyramid) await pyramid.take(mt.z)
        return mt
      },
      done: (mt) => pyramid?.finish(mt.z),
      tasks: []
    }
    const fresh: Task[] = []
    for (let i = 0; i < count; i++) {
      fresh.push({ id: 0, type: spec.type, layer: spec.layer.qualifiedName, job, state: 'pending', tilesDone: -1, killed: false, createdAt: now() })
    }
    return { job, fresh }
  }

  function enqueue (job: Job, fresh: Task[], ids: number[]) {
    fresh.forEach((t, i) => {
      t.id = ids[i]
      job.tasks.push(t)
      tasks.set(t.id, t)
      queue.push(t)
      changed(t)
    })
    pump()
  }

  function pump () {
    while (!closing && running < deps.taskSlots && queue.length > 0) {
      const t = queue.shift()!
      running++
      const p = run(t).finally(() => { running--; runs.delete(p); pump() })
      runs.add(p)
    }
  }

  return {
    events,

    /**
     * Creates the tasks of a validated request and starts them when slots are free. `request`
     * (JSON) is recorded with them, for a restart to rebuild the job from.
     */
    async submit (spec: SeedSpec, request?: string): Promise<Task[]> {
      if (closing) throw TileCacheClosing()
      prune()
      const count = spec.type === 'truncate' ? 1 : spec.threadCount
      // Tasks being recorded count against the limit until they are queued.
      if (queue.length + reserved + count > deps.maxPendingTasks) throw TooManyPendingTasks(deps.maxPendingTasks)
      const { job, fresh } = makeJob(spec, count)
      let ids: number[]
      if (deps.records) {
        // Ids come from the records (never reused across restarts); a full disk refuses the request here.
        reserved += count
        try {
          ids = await deps.records.create(fresh.map((t) => { const { id, ...view } = viewOf(t, now()); void id; return { layer: t.layer, view } }), request)
        } finally { reserved -= count }
        // A shutdown began meanwhile: the refused request leaves no task to resume.
        if (closing) {
          const records = deps.records
          await Promise.all(ids.map((id) => records.abort(id, null)))
          throw TileCacheClosing()
        }
      } else ids = fresh.map(() => nextId++)
      enqueue(job, fresh, ids)
      return job.tasks
    },

    /**
     * Takes back the tasks of a previous run (same ids, pending again): `baseDone` is what a
     * truncate had already deleted. The spec is the request as validated again at this start.
     */
    resume (spec: SeedSpec, entries: Array<{ id: number, baseDone?: number }>): Task[] {
      if (closing) throw TileCacheClosing()
      const { job, fresh } = makeJob(spec, entries.length)
      fresh.forEach((t, i) => { t.baseDone = entries[i].baseDone })
      enqueue(job, fresh, entries.map((e) => e.id))
      return job.tasks
    },

    /** Pending and running tasks (killed ones leave at once), by id; one layer or all. */
    list (layer?: string): Task[] {
      const out: Task[] = []
      for (const t of tasks.values()) {
        if ((t.state === 'pending' || t.state === 'running') && !t.killed && (!layer || t.layer === layer)) out.push(t)
      }
      return out.sort((a, b) => a.id - b.id)
    },

    task (id: number): Task | undefined { prune(); return tasks.get(id) },

    /** Finished and aborted tasks still kept (an hour), newest first, at most `limit`. */
    recent (limit: number): Task[] {
      prune()
      const out: Task[] = []
      for (const t of tasks.values()) if (t.state === 'done' || t.state === 'aborted') out.push(t)
      return out.sort((a, b) => b.id - a.id).slice(0, limit)
    },

    /** A task of this run or an earlier one, from its record (after a restart: ABORTED, "aborted: restart"). */
    async record (id: number): Promise<TaskView | undefined> { return deps.records?.get(id) },

    /** Terminates tasks; running ones stop after their current metatile. Returns them as they were. */
    kill (code: KillCode, layer?: string): Array<{ task: Task, was: TaskState }> {
      return batch(() => this.list(layer)
        .filter((t) => !(t.state === 'running' && code === 'pending') && !(t.state === 'pending' && code === 'running'))
        .map(terminate))
    },

    /**
     * Terminates one pending or running task (GWC's kill_thread form); with `layer`, only a task of
     * that layer. Undefined when there is no such live task.
     */
    killTask (id: number, layer?: string): { task: Task, was: TaskState } | undefined {
      const t = tasks.get(id)
      if (!t || t.killed || (t.state !== 'pending' && t.state !== 'running') || (layer && t.layer !== layer)) return undefined
      return terminate(t)
    },

    /** Stops everything (server shutdown) and waits for the tasks in hand. */
    async close () {
      closing = true
      if (retry) { clearTimeout(retry); retry = undefined }
      // Pending tasks keep their record as it is when they resume at the next start.
      for (const t of queue.splice(0)) {
        if (deps.resume) { t.state = 'aborted'; t.finishedAt = now() } else { t.killed = true; finish(t, 'aborted') }
      }
      for (const t of tasks.values()) t.cancel?.()
      aborter.abort()
      await Promise.allSettled([...runs])
      await saveRecords() // a last try for records a full disk held back
    },

    /** Resolves when no task is pending or running (tests, bench). */
    async idle () {
      while (runs.size > 0) await Promise.allSettled([...runs])
    }
  }
}

export type TileBreeder = ReturnType<typeof createTileBreeder>
