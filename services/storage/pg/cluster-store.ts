// Seed tasks shared by every instance on one PostgreSQL (MAPWARDEN_DATABASE_URL): the job store
// (seed/job-store.ts) of the breeder (seed/job-breeder.ts). A request is a job (seed_jobs) with its tasks (seed_tasks); its tile range is
// handed out as chunks (chunks.ts), at most WINDOW at a time, each a row of seed_chunks and one job
// of the work queue, added in the same transaction. A chunk's row goes when its tiles are counted,
// in the transaction that counts them: a chunk redone after its node died, or finished by two
// nodes, counts once. The task-slot limit and the pending cap hold for the whole cluster: the
// transactions that start or stop jobs hold one advisory lock. Every change is announced ('seed').
import { lockInTransaction, type PgClient, type PgDatabase } from './database.js'
import { notify } from './change-bus.js'
import { TooManyPendingTasks } from '../../errors.js'
import { stringifyExact } from '../../exact-json.js'
import type { Rect } from '../../tilecache/grid-sets.js'
import type { ChunkCursor } from '../../seed/chunks.js'
import { tasksToStart, WINDOW, type ChunkRef, type ChunkWork, type Dispatch, type JobStore, type NewJob, type StoredJob, type StoredJobTask } from '../../seed/job-store.js'
import { creditOf, passOnKilled, splitTotal, type ShareHolder, type TaskState } from '../../seed/task.js'
import type { TaskType } from '../../seed/seed-request.js'

/** The work queue (pg-boss) that carries the chunks. */
export const SEED_QUEUE = 'mapwarden-seed'
/** Seconds a queue job may be active without its chunk begun before it counts as its node's loss. */
const UNBEGUN_S = 15

export { WINDOW, type ChunkRef, type Dispatch } from '../../seed/job-store.js'

const LIVE = "state IN ('pending', 'running')"

/** A job's tasks as task.ts shares its tiles between them, their rows locked (the job's row is locked first). */
async function sharesOf (c: PgClient, jobId: number): Promise<ShareHolder[]> {
  // BIGINT columns read as numbers (storage/pg/database.ts), NUMERIC as exact text.
  const r = await c.query<{ id: number, state: TaskState, killed: number, tiles_done: number, tiles_total: string | null }>(
    'SELECT id, state, killed, tiles_done, tiles_total FROM seed_tasks WHERE job = $1 ORDER BY id FOR UPDATE', [jobId])
  return r.rows.map((t) => ({ id: t.id, state: t.state, killed: t.killed !== 0, tilesDone: t.tiles_done, share: t.tiles_total === null ? undefined : BigInt(t.tiles_total) }))
}

export function createClusterSeedStore (db: PgDatabase): JobStore & { nodeWork (jobId: number): Promise<Array<{ node: string, metatiles: number, tiles: number }>> } {
  /** Hands out chunks of a running job (its row locked by the caller) up to WINDOW; returns whether it has nothing left. */
  async function handOut (c: PgClient, jobId: number, d: Dispatch): Promise<boolean> {
    const j = (await c.query<{ cursor: ChunkCursor | null, descending: boolean, level: number | null, next_seq: number, outstanding: number, task_ids: number[] }>(
      'SELECT cursor, descending, level, next_seq, outstanding, task_ids FROM seed_jobs WHERE id = $1', [jobId])).rows[0]
    let { cursor, level, next_seq: seq, outstanding } = j
    // Chunks count for the job's running tasks in turn (all of them, before any started).
    const running = (await c.query<{ id: number }>("SELECT id FROM seed_tasks WHERE job = $1 AND state = 'running' ORDER BY id", [jobId])).rows.map((r) => r.id)
    const doers = running.length > 0 ? running : j.task_ids
    const refs: ChunkRef[] = []
    while (cursor && outstanding < WINDOW) {
      // A pyramid's level waits for the one below: nothing of it goes out while chunks of another are out.
      if (j.descending && outstanding > 0 && cursor.z !== level) break
      await d.load(jobId)
      const next = d.plan(jobId, cursor, WINDOW - outstanding, j.descending)
      if (!next) throw new Error(`seed job ${jobId}: its request could not be read`)
      for (const chunk of next.chunks) {
        const task = doers[seq % doers.length]
        await c.query('INSERT INTO seed_chunks (job, seq, task, z, rect) VALUES ($1, $2, $3, $4, $5)', [jobId, seq, task, chunk.z, chunk.rect])
        refs.push({ job: jobId, seq })
        seq++
        outstanding++
        level = chunk.z
      }
      cursor = next.cursor
    }
    await d.enqueue(c, refs)
    await c.query('UPDATE seed_jobs SET cursor = $2, level = $3, next_seq = $4, outstanding = $5 WHERE id = $1', [jobId, cursor === null ? null : JSON.stringify(cursor), level, seq, outstanding])
    return cursor === null && outstanding === 0
  }

  async function finishJob (c: PgClient, jobId: number, state: 'done' | 'aborted', now: number, error?: string): Promise<void> {
    // A task still waiting for a slot when its job is done did its part through the others: it ends as if it ran.
    await c.query(`UPDATE seed_tasks SET state = $2, finished_at = $3, error = COALESCE(error, $4),
      started_at = CASE WHEN $2 = 'done' THEN COALESCE(started_at, $3) ELSE started_at END WHERE job = $1 AND ${LIVE}`, [jobId, state, now, error ?? null])
    await c.query('UPDATE seed_jobs SET state = $2, finished_at = $3, cursor = NULL, outstanding = 0 WHERE id = $1', [jobId, state, now])
    await c.query('DELETE FROM seed_chunks WHERE job = $1', [jobId])
  }

  /**
   * Starts waiting tasks in job id order while the cluster's task slots allow (one task always
   * may): a pending job starts with the tasks that fit (its chunks go out), the rest of its tasks
   * wait as pending and start as slots free. Holds the slots lock.
   */
  async function promote (c: PgClient, d: Dispatch): Promise<void> {
    await lockInTransaction(c, 'seedSlots')
    let running = (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM seed_tasks WHERE state = 'running'")).rows[0].n
    const waiting = await c.query<{ id: number, state: TaskState, n: number }>(`SELECT j.id, j.state, (SELECT count(*)::int FROM seed_tasks t WHERE t.job = j.id AND t.state = 'pending') AS n
      FROM seed_jobs j WHERE ${LIVE} ORDER BY j.id`)
    for (const { id, state, n } of waiting.rows) {
      if (n === 0) continue
      const k = tasksToStart(running, n, d.taskSlots)
      if (k <= 0) break
      if (state === 'pending' && (await c.query("SELECT 1 FROM seed_jobs WHERE id = $1 AND state = 'pending' FOR UPDATE", [id])).rowCount === 0) continue
      await c.query(`UPDATE seed_tasks SET state = 'running', started_at = $2 WHERE id IN
        (SELECT id FROM seed_tasks WHERE job = $1 AND state = 'pending' ORDER BY id LIMIT $3)`, [id, d.now, k])
      running += k
      if (state !== 'pending') continue
      await c.query("UPDATE seed_jobs SET state = 'running', started_at = $2 WHERE id = $1", [id, d.now])
      if (await handOut(c, id, d)) await finishJob(c, id, 'done', d.now)
    }
  }

  return {
    /**
     * Records a request's job and tasks (pending), refused when the cluster's pending tasks would
     * exceed the cap, and starts it if slots are free. `created` learns the job id before any chunk
     * of it is planned. Returns the task ids.
     */
    async submit (job: NewJob, d: Dispatch, created: (jobId: number) => void): Promise<number[]> {
      return await db.transaction(async (c) => {
        await lockInTransaction(c, 'seedSlots')
        const pending = (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM seed_tasks WHERE state = 'pending'")).rows[0].n
        if (pending + job.views.length > d.maxPendingTasks) throw TooManyPendingTasks(d.maxPendingTasks)
        const ids: number[] = []
        // Each task's part of the total, fixed now (task.ts); a truncate's is what it deletes.
        const parts = splitTotal(job.total, job.views.length)
        for (const [i, view] of job.views.entries()) {
          const r = await c.query<{ id: number }>("INSERT INTO seed_tasks (state, layer, view, created_at, request, tiles_total) VALUES ('pending', $1, $2, $3, $4, $5) RETURNING id",
            [job.layer, stringifyExact(view), d.now, job.request, job.type === 'truncate' ? null : parts[i].toString()])
          ids.push(r.rows[0].id)
        }
        await c.query('UPDATE seed_tasks SET job = $1 WHERE id = ANY($2::bigint[])', [ids[0], ids])
        await c.query(`INSERT INTO seed_jobs (id, task_ids, layer, type, request, state, total, cursor, descending, created_at)
          VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $8, $9)`,
        [ids[0], ids, job.layer, job.type, job.request, job.total.toString(), job.cursor === null ? null : JSON.stringify(job.cursor), job.descending, d.now])
        created(ids[0])
        await promote(c, d)
        await notify(c, { topic: 'seed', key: String(ids[0]) })
        return ids
      })
    },

    /** Starts what the slots allow (at start-up: pending jobs of a cluster that stopped). */
    async promote (d: Dispatch): Promise<void> {
      await db.transaction(async (c) => { await promote(c, d); await notify(c, { topic: 'seed' }) })
    },

    /** Takes a chunk for this node; undefined when it was counted already or its job stopped. */
    async begin (ref: ChunkRef, node: string, bossId: string): Promise<ChunkWork | undefined> {
      const r = await db.query<{ task: number, z: number, rect: Rect, task_done: number, layer: string, task_ids: string[], started_at: number }>(`UPDATE seed_chunks c
        SET node = $3, boss_id = $4 FROM seed_jobs j WHERE c.job = $1 AND c.seq = $2 AND j.id = c.job AND j.state = 'running'
        RETURNING c.task, c.z, c.rect, (SELECT tiles_done FROM seed_tasks t WHERE t.id = c.task) AS task_done, j.layer, j.task_ids, j.started_at`, [ref.job, ref.seq, node, bossId])
      const row = r.rows[0]
      return row && { ...ref, task: row.task, z: row.z, rect: row.rect, taskDone: row.task_done, layer: row.layer, taskIds: row.task_ids.map(Number), startedAt: row.started_at }
    },

    /** Gives a chunk back unfinished (this node stops): it goes to another node. */
    async release (ref: ChunkRef, node: string): Promise<void> {
      await db.query('UPDATE seed_chunks SET node = NULL WHERE job = $1 AND seq = $2 AND node = $3', [ref.job, ref.seq, node])
    },

    /** A truncate's count so far (it deletes one chunk: its whole work), also once killed. */
    async progress (task: number, tilesDone: number): Promise<void> {
      await db.query('UPDATE seed_tasks SET tiles_done = $2 WHERE id = $1', [task, tilesDone])
    },

    /**
     * Counts a finished chunk once: its tiles go to its task up to that task's part, the rest to
     * the job's other tasks with room (task.ts creditOf); the job gets its next chunks, and a job
     * with nothing left is done.
     */
    async complete (ref: ChunkRef, node: string, done: { metatiles: number, tiles: number, failed?: number, failure?: string }, d: Dispatch): Promise<void> {
      await db.transaction(async (c) => {
        const job = (await c.query<{ state: TaskState }>('SELECT state FROM seed_jobs WHERE id = $1 FOR UPDATE', [ref.job])).rows[0]
        const chunk = (await c.query<{ task: number }>('DELETE FROM seed_chunks WHERE job = $1 AND seq = $2 RETURNING task', [ref.job, ref.seq])).rows[0]
        if (!job || !chunk) return
        const tasks = await sharesOf(c, ref.job)
        const doer = tasks.find((t) => t.id === chunk.task) ?? tasks[0]
        // Damaged metatiles are told by the task that counts the chunk's first tiles.
        for (const [i, [t, n]] of creditOf(tasks, doer, done.tiles).entries()) {
          await c.query(`UPDATE seed_tasks SET tiles_done = tiles_done + $2, failed_metatiles = failed_metatiles + $3, failure = COALESCE($4, failure) WHERE id = $1`,
            [t.id, n, i === 0 ? done.failed ?? 0 : 0, i === 0 ? done.failure ?? null : null])
        }
        await c.query(`INSERT INTO seed_node_work (job, node, metatiles, tiles) VALUES ($1, $2, $3, $4) ON CONFLICT (job, node)
          DO UPDATE SET metatiles = seed_node_work.metatiles + EXCLUDED.metatiles, tiles = seed_node_work.tiles + EXCLUDED.tiles`, [ref.job, node, done.metatiles, done.tiles])
        await c.query('UPDATE seed_jobs SET outstanding = outstanding - 1 WHERE id = $1', [ref.job])
        const finished = job.state === 'running' && await handOut(c, ref.job, d)
        if (finished) {
          await finishJob(c, ref.job, 'done', d.now)
          await promote(c, d)
        }
        // Progress alone (`count:`) is read by the nodes' copies with the next ones (job-mirror.ts).
        await notify(c, { topic: 'seed', key: finished ? String(ref.job) : `count:${ref.job}` })
      })
    },

    /** Ends a job whose request can no longer run (its layer went): its tasks end ABORTED with the reason. */
    async abortJob (jobId: number, reason: string, d: Dispatch): Promise<void> {
      await db.transaction(async (c) => {
        await c.query('SELECT 1 FROM seed_jobs WHERE id = $1 FOR UPDATE', [jobId])
        await finishJob(c, jobId, 'aborted', d.now, reason)
        await promote(c, d)
        await notify(c, { topic: 'seed', key: `end:${jobId}` })
      })
    },

    /**
     * Kills live tasks (`ids`, or by state and layer): they end ABORTED at once, a job without a
     * live task stops and its chunks are withdrawn. Returns the tasks as they were.
     */
    async kill (which: { ids?: number[], states: TaskState[], layer?: string }, d: Dispatch): Promise<Array<{ id: number, layer: string, type: TaskType, was: TaskState }>> {
      return await db.transaction(async (c) => {
        await lockInTransaction(c, 'seedSlots')
        // The jobs' rows before their tasks', as complete() takes them.
        await c.query(`SELECT 1 FROM seed_jobs j WHERE EXISTS (SELECT 1 FROM seed_tasks t WHERE t.job = j.id AND t.state = ANY($1::text[])
          AND ($2::text IS NULL OR t.layer = $2) AND ($3::bigint[] IS NULL OR t.id = ANY($3::bigint[]))) ORDER BY j.id FOR UPDATE`,
        [which.states, which.layer ?? null, which.ids ?? null])
        const r = await c.query<{ id: number, layer: string, type: TaskType, was: TaskState, job: number }>(`WITH k AS (
            SELECT t.id, t.state FROM seed_tasks t JOIN seed_jobs j ON j.id = t.job
            WHERE t.state = ANY($1::text[]) AND ($2::text IS NULL OR t.layer = $2) AND ($3::bigint[] IS NULL OR t.id = ANY($3::bigint[]))
            ORDER BY t.id FOR UPDATE OF t)
          UPDATE seed_tasks t SET state = 'aborted', killed = 1, finished_at = $4 FROM k, seed_jobs j
          WHERE t.id = k.id AND j.id = t.job RETURNING t.id, t.layer, j.type, k.state AS was, t.job`,
        [which.states, which.layer ?? null, which.ids ?? null, d.now])
        const ended: number[] = []
        for (const job of new Set(r.rows.map((x) => x.job))) {
          const changed = passOnKilled(await sharesOf(c, job), r.rows.filter((x) => x.job === job).map((x) => x.id))
          if (!changed) { await finishJob(c, job, 'aborted', d.now); ended.push(job); continue }
          for (const t of changed) await c.query('UPDATE seed_tasks SET tiles_total = $2 WHERE id = $1', [t.id, t.share!.toString()])
        }
        await promote(c, d)
        if (r.rows.length > 0) await notify(c, { topic: 'seed', key: `end:${ended.join(',')}` })
        return r.rows.sort((a, b) => a.id - b.id).map(({ job, ...x }) => x)
      })
    },

    /** Ends every unfinished job (a start with resuming off, no other node live). */
    async abortUnfinished (reason: string, now: number): Promise<number> {
      return await db.transaction(async (c) => {
        // Every unfinished task record, with a live job or none.
        const r = await c.query(`UPDATE seed_tasks SET state = 'aborted', error = $1, finished_at = $2 WHERE ${LIVE}`, [reason, now])
        await c.query(`UPDATE seed_jobs SET state = 'aborted', finished_at = $1, cursor = NULL, outstanding = 0 WHERE ${LIVE}`, [now])
        await c.query('DELETE FROM seed_chunks')
        await notify(c, { topic: 'seed' })
        return r.rowCount ?? 0
      })
    },

    /** Chunks held by nodes no longer live: released, and their work-queue job ids returned (to fail them). */
    async orphans (liveNodes: string[]): Promise<string[]> {
      const r = await db.query<{ boss_id: string }>('UPDATE seed_chunks SET node = NULL WHERE node IS NOT NULL AND NOT (node = ANY($1::text[])) RETURNING boss_id', [liveNodes])
      // A queue job taken by a node that died before it began the chunk names no node: active for
      // UNBEGUN_S with no chunk begun under it, it is failed too (a live node begins within
      // milliseconds; were it only slow, the chunk still counts once). Without this it waited for
      // pg-boss's expiry (300 s).
      const unbegun = await db.query<{ id: string }>(`SELECT j.id::text AS id FROM pgboss.job j
        WHERE j.name = $1 AND j.state = 'active' AND j.started_on < now() - make_interval(secs => $2)
          AND NOT EXISTS (SELECT 1 FROM seed_chunks c WHERE c.boss_id = j.id::text)`, [SEED_QUEUE, UNBEGUN_S])
      return [...r.rows.map((x) => x.boss_id).filter((x) => x !== null), ...unbegun.rows.map((x) => x.id)]
    },

    /** Jobs live or finished since `since`, with their tasks. */
    async snapshot (since: number): Promise<{ jobs: StoredJob[], tasks: StoredJobTask[] }> {
      const jobs = (await db.query(`SELECT id, task_ids, layer, type, request, state, total, descending, created_at, started_at, finished_at
        FROM seed_jobs WHERE ${LIVE} OR finished_at >= $1 ORDER BY id`, [since])).rows.map((j): StoredJob => ({
        id: j.id, taskIds: j.task_ids.map(Number), layer: j.layer, type: j.type, request: j.request, state: j.state, total: BigInt(j.total),
        descending: j.descending, createdAt: j.created_at, startedAt: j.started_at ?? undefined, finishedAt: j.finished_at ?? undefined
      }))
      const tasks = jobs.length === 0 ? [] : (await db.query('SELECT id, job, state, tiles_done, tiles_total, killed, error, failed_metatiles, failure, view, created_at, started_at, finished_at FROM seed_tasks WHERE job = ANY($1::bigint[]) ORDER BY id', [jobs.map((j) => j.id)]))
        .rows.map((t): StoredJobTask => ({
          id: t.id, job: t.job, state: t.state, tilesDone: t.tiles_done, share: t.tiles_total === null ? undefined : BigInt(t.tiles_total), killed: t.killed !== 0, error: t.error ?? undefined, view: JSON.parse(t.view),
          failedMetatiles: t.failed_metatiles, failure: t.failure ?? undefined,
          createdAt: t.created_at, startedAt: t.started_at ?? undefined, finishedAt: t.finished_at ?? undefined
        }))
      return { jobs, tasks }
    },

    /** A job's request and shape, for a node that renders its chunks. */
    async job (jobId: number): Promise<{ request: string, type: TaskType, descending: boolean } | undefined> {
      return (await db.query<{ request: string, type: TaskType, descending: boolean }>('SELECT request, type, descending FROM seed_jobs WHERE id = $1', [jobId])).rows[0]
    },

    /** What each node did for a job: metatiles rendered (or found fresh) and tiles counted. */
    async nodeWork (jobId: number): Promise<Array<{ node: string, metatiles: number, tiles: number }>> {
      return (await db.query<{ node: string, metatiles: number, tiles: number }>('SELECT node, metatiles, tiles FROM seed_node_work WHERE job = $1 ORDER BY node', [jobId])).rows
    },

    /** Forgets jobs finished before `before` (their task records are pruned by task-records.ts). */
    async prune (before: number): Promise<void> {
      await db.query(`DELETE FROM seed_jobs WHERE finished_at IS NOT NULL AND finished_at < $1`, [before])
    }
  }
}

export type ClusterSeedStore = ReturnType<typeof createClusterSeedStore>
