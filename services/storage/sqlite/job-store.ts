// The job store (seed/job-store.ts) of the embedded default, in the SQLite catalog: the same tables
// and the same rules as storage/pg/cluster-store.ts, for one process. Each method is one
// better-sqlite3 transaction, synchronous, so nothing else runs inside it; a job's request is read
// (asynchronously) before the transaction that plans its chunks: when a transaction meets a job
// whose request is not read yet, it rolls back, the request is read, and it runs again. The chunks
// a transaction hands out go to the in-process work queue once it committed (a kill -9 loses the
// queue, not the rows: the next start queues the chunks of seed_chunks again, work-queue.ts).
// Counting a chunk commits without an fsync (relaxedSync): it survives a crash of the process.
import { relaxedSync, type Db } from './database.js'
import { noFaults, type FaultPoint } from '../../faults.js'
import { TooManyPendingTasks } from '../../errors.js'
import { stringifyExact } from '../../exact-json.js'
import type { ChunkCursor } from '../../seed/chunks.js'
import type { ChunkRef, Dispatch, JobStore, KilledRow } from '../../seed/job-store.js'
import { tasksToStart, WINDOW } from '../../seed/job-store.js'
import { creditOf, passOnKilled, splitTotal, type ShareHolder, type TaskState } from '../../seed/task.js'
import type { SeedChange } from '../../seed/seed-queue.js'
import { jobReads, seedJobStatements } from './job-rows.js'

/** A transaction met a job whose request is not read yet. */
class NotLoaded extends Error {
  readonly job: number
  constructor (job: number) { super(`seed job ${job} not loaded`); this.job = job }
}

export type SqliteJobStore = JobStore & {
  /** The chunks of running jobs, in order: what the work queue of a new start takes up again. */
  outstanding (): ChunkRef[]
}

export function createSqliteJobStore (db: Db, announce: (change: SeedChange) => void, fault: FaultPoint = noFaults): SqliteJobStore {
  const q = seedJobStatements(db)

  const sharesOf = (jobId: number): ShareHolder[] => (q.shares.all(jobId) as Array<{ id: number, state: TaskState, killed: number, tiles_done: number, tiles_total: string | null }>)
    .map((t) => ({ id: t.id, state: t.state, killed: t.killed !== 0, tilesDone: t.tiles_done, share: t.tiles_total === null ? undefined : BigInt(t.tiles_total) }))

  /** Hands out chunks of a running job up to WINDOW (their refs into `out`); returns whether it has nothing left. */
  function handOut (jobId: number, d: Dispatch, out: ChunkRef[]): boolean {
    const j = q.handOutRead.get(jobId) as { cursor: string | null, descending: number, level: number | null, next_seq: number, outstanding: number, task_ids: string }
    let cursor = j.cursor === null ? null : JSON.parse(j.cursor) as ChunkCursor
    let { level, next_seq: seq, outstanding } = j
    // Chunks count for the job's running tasks in turn (all of them, before any started).
    const running = (q.runningTasks.all(jobId) as Array<{ id: number }>).map((r) => r.id)
    const doers = running.length > 0 ? running : JSON.parse(j.task_ids) as number[]
    while (cursor && outstanding < WINDOW) {
      // A pyramid's level waits for the one below: nothing of it goes out while chunks of another are out.
      if (j.descending === 1 && outstanding > 0 && cursor.z !== level) break
      const next = d.plan(jobId, cursor, WINDOW - outstanding, j.descending === 1)
      if (!next) throw new NotLoaded(jobId)
      for (const chunk of next.chunks) {
        q.insertChunk.run(jobId, seq, doers[seq % doers.length], chunk.z, JSON.stringify(chunk.rect))
        out.push({ job: jobId, seq })
        seq++
        outstanding++
        level = chunk.z
      }
      cursor = next.cursor
    }
    q.handOutWrite.run(cursor === null ? null : JSON.stringify(cursor), level, seq, outstanding, jobId)
    return cursor === null && outstanding === 0
  }

  function finishJob (jobId: number, state: 'done' | 'aborted', now: number, error?: string): void {
    q.finishTasks.run({ state, now, error: error ?? null, job: jobId })
    q.finishJob.run(state, now, jobId)
    q.dropChunks.run(jobId)
  }

  /**
   * Starts waiting tasks in job id order while the task slots allow (one task always may): a
   * pending job starts with the tasks that fit (its chunks go out), the rest of its tasks wait as
   * pending and start as slots free.
   */
  function promote (d: Dispatch, out: ChunkRef[]): void {
    let running = (q.countState.get('running') as { n: number }).n
    for (const { id, state, n } of q.waitingJobs.all() as Array<{ id: number, state: TaskState, n: number }>) {
      if (n === 0) continue
      const k = tasksToStart(running, n, d.taskSlots)
      if (k <= 0) break
      q.startTasks.run(d.now, id, k)
      running += k
      if (state !== 'pending') continue
      q.startJob.run(d.now, id)
      if (handOut(id, d, out)) finishJob(id, 'done', d.now)
    }
  }

  /**
   * Runs `fn` as one transaction (relaxed: without an fsync), again after reading the request of a
   * job it needed to plan; the chunks it handed out go to the queue once committed, then `change` is announced.
   */
  async function unit<T> (d: Dispatch | undefined, relaxed: boolean, fn: (out: ChunkRef[]) => { result: T, change?: SeedChange }): Promise<T> {
    for (let tries = 0; ; tries++) {
      const out: ChunkRef[] = []
      let done: { result: T, change?: SeedChange }
      try {
        const tx = db.transaction(() => fn(out))
        done = relaxed ? relaxedSync(db, () => tx()) : tx()
      } catch (err) {
        if (!(err instanceof NotLoaded) || !d || tries > 8) throw err
        await d.load(err.job)
        continue
      }
      if (out.length > 0) await d!.enqueue(undefined, out)
      if (done.change) announce(done.change)
      return done.result
    }
  }

  return {
    ...jobReads(q),

    async submit (job, d, created) {
      return await unit(d, false, (out) => {
        const pending = (q.countState.get('pending') as { n: number }).n
        if (pending + job.views.length > d.maxPendingTasks) throw TooManyPendingTasks(d.maxPendingTasks)
        // Each task's part of the total, fixed now (task.ts); a truncate's is what it deletes.
        const parts = splitTotal(job.total, job.views.length)
        const ids = job.views.map((view, i) => {
          fault('seed.taskRecordWrite')
          const id = Number(q.insertTask.run(job.layer, stringifyExact(view), d.now, job.request, job.type === 'truncate' ? null : parts[i].toString()).lastInsertRowid)
          fault('seed.afterTaskRecord')
          return id
        })
        for (const id of ids) q.setJob.run(ids[0], id)
        q.insertJob.run(ids[0], JSON.stringify(ids), job.layer, job.type, job.request, job.total.toString(), job.cursor === null ? null : JSON.stringify(job.cursor), job.descending ? 1 : 0, d.now)
        created(ids[0])
        promote(d, out)
        return { result: ids, change: { topic: 'seed', key: String(ids[0]) } }
      })
    },

    async promote (d) { await unit(d, false, (out) => { promote(d, out); return { result: undefined, change: { topic: 'seed' } } }) },

    async begin (ref) {
      // One process: the chunk is this node's from the queue on (nothing else takes it), so no write.
      const row = q.begin.get(ref.job, ref.seq) as { task: number, z: number, rect: string, task_done: number, layer: string, task_ids: string, started_at: number } | undefined
      return row && { ...ref, task: row.task, z: row.z, rect: JSON.parse(row.rect), taskDone: row.task_done, layer: row.layer, taskIds: JSON.parse(row.task_ids), startedAt: row.started_at }
    },

    // The chunk's row stays: the queue hands it out again (work-queue.ts).
    async release () {},

    async progress (task, tilesDone) { relaxedSync(db, () => q.progress.run(tilesDone, task)) },

    async complete (ref, node, done, d) {
      await unit(d, true, (out) => {
        const job = q.jobState.get(ref.job) as { state: TaskState } | undefined
        const chunk = (q.deleteChunk.all(ref.job, ref.seq) as Array<{ task: number }>)[0]
        if (!job || !chunk) return { result: undefined }
        const tasks = sharesOf(ref.job)
        const doer = tasks.find((t) => t.id === chunk.task) ?? tasks[0]
        // Damaged metatiles are told by the task that counts the chunk's first tiles.
        for (const [i, [t, n]] of creditOf(tasks, doer, done.tiles).entries()) {
          fault('seed.taskRecordWrite')
          q.credit.run(n, i === 0 ? done.failed ?? 0 : 0, i === 0 ? done.failure ?? null : null, t.id)
          fault('seed.afterTaskRecord')
        }
        q.nodeWork.run(ref.job, node, done.metatiles, done.tiles)
        q.chunkDone.run(ref.job)
        if (job.state === 'running' && handOut(ref.job, d, out)) {
          finishJob(ref.job, 'done', d.now)
          promote(d, out)
        }
        return { result: undefined, change: { topic: 'seed', key: String(ref.job) } }
      })
    },

    async abortJob (jobId, reason, d) {
      await unit(d, false, (out) => {
        finishJob(jobId, 'aborted', d.now, reason)
        promote(d, out)
        return { result: undefined, change: { topic: 'seed', key: `end:${jobId}` } }
      })
    },

    async kill (which, d) {
      return await unit(d, false, (out) => {
        const rows = q.killable.all({ states: JSON.stringify(which.states), layer: which.layer ?? null, ids: which.ids ? JSON.stringify(which.ids) : null }) as Array<KilledRow & { job: number }>
        for (const r of rows) q.killTask.run(d.now, r.id)
        const ended: number[] = []
        for (const job of new Set(rows.map((x) => x.job))) {
          const changed = passOnKilled(sharesOf(job), rows.filter((x) => x.job === job).map((x) => x.id))
          if (!changed) { finishJob(job, 'aborted', d.now); ended.push(job); continue }
          for (const t of changed) q.setShare.run(t.share!.toString(), t.id)
        }
        promote(d, out)
        return { result: rows.map(({ job, ...x }) => x), change: rows.length > 0 ? { topic: 'seed', key: `end:${ended.join(',')}` } : undefined }
      })
    },

    async abortUnfinished (reason, now) {
      return await unit(undefined, false, () => {
        const n = q.abortTasks.run(reason, now).changes
        q.abortJobs.run(now)
        q.dropAllChunks.run()
        return { result: n, change: { topic: 'seed' } }
      })
    },

    // One node: no chunk is ever held by a node that died while this one lives.
    async orphans () { return [] },

    outstanding: () => q.outstanding.all() as ChunkRef[]
  }
}
