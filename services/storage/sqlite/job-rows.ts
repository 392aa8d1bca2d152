// The statements of the SQLite job store (job-store.ts) on the tables of seed/migrations.ts
// (seed/005), and its reads: what the breeder's copy of the tasks loads, a job's request, pruning.
import type Database from 'better-sqlite3'
import type { Db } from './database.js'
import type { JobStore, StoredJob, StoredJobTask } from '../../seed/job-store.js'

export const LIVE = "state IN ('pending', 'running')"

export type Statement = Database.Statement<unknown[]>

const SQL = {
  shares: 'SELECT id, state, killed, tiles_done, tiles_total FROM seed_tasks WHERE job = ? ORDER BY id',
  handOutRead: 'SELECT cursor, descending, level, next_seq, outstanding, task_ids FROM seed_jobs WHERE id = ?',
  insertChunk: 'INSERT INTO seed_chunks (job, seq, task, z, rect) VALUES (?, ?, ?, ?, ?)',
  handOutWrite: 'UPDATE seed_jobs SET cursor = ?, level = ?, next_seq = ?, outstanding = ? WHERE id = ?',
  // A task still waiting for a slot when its job is done did its part through the others: it ends as if it ran.
  finishTasks: `UPDATE seed_tasks SET state = @state, finished_at = @now, error = coalesce(error, @error),
    started_at = CASE WHEN @state = 'done' THEN coalesce(started_at, @now) ELSE started_at END WHERE job = @job AND ${LIVE}`,
  finishJob: 'UPDATE seed_jobs SET state = ?, finished_at = ?, cursor = NULL, outstanding = 0 WHERE id = ?',
  dropChunks: 'DELETE FROM seed_chunks WHERE job = ?',
  countState: 'SELECT count(*) AS n FROM seed_tasks WHERE state = ?',
  waitingJobs: `SELECT j.id, j.state, (SELECT count(*) FROM seed_tasks t WHERE t.job = j.id AND t.state = 'pending') AS n
    FROM seed_jobs j WHERE j.${LIVE} ORDER BY j.id`,
  startTasks: `UPDATE seed_tasks SET state = 'running', started_at = ? WHERE id IN
    (SELECT id FROM seed_tasks WHERE job = ? AND state = 'pending' ORDER BY id LIMIT ?)`,
  runningTasks: "SELECT id FROM seed_tasks WHERE job = ? AND state = 'running' ORDER BY id",
  startJob: "UPDATE seed_jobs SET state = 'running', started_at = ? WHERE id = ?",
  insertTask: "INSERT INTO seed_tasks (state, layer, view, created_at, request, tiles_total) VALUES ('pending', ?, ?, ?, ?, ?)",
  setJob: 'UPDATE seed_tasks SET job = ? WHERE id = ?',
  insertJob: `INSERT INTO seed_jobs (id, task_ids, layer, type, request, state, total, cursor, descending, created_at)
    VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)`,
  begin: `SELECT c.task, c.z, c.rect, coalesce(t.tiles_done, 0) AS task_done, j.layer, j.task_ids, j.started_at
    FROM seed_chunks c JOIN seed_jobs j ON j.id = c.job LEFT JOIN seed_tasks t ON t.id = c.task
    WHERE c.job = ? AND c.seq = ? AND j.state = 'running'`,
  progress: 'UPDATE seed_tasks SET tiles_done = ? WHERE id = ?',
  jobState: 'SELECT state FROM seed_jobs WHERE id = ?',
  deleteChunk: 'DELETE FROM seed_chunks WHERE job = ? AND seq = ? RETURNING task',
  credit: 'UPDATE seed_tasks SET tiles_done = tiles_done + ?, failed_metatiles = failed_metatiles + ?, failure = coalesce(?, failure) WHERE id = ?',
  nodeWork: `INSERT INTO seed_node_work (job, node, metatiles, tiles) VALUES (?, ?, ?, ?) ON CONFLICT (job, node)
    DO UPDATE SET metatiles = metatiles + excluded.metatiles, tiles = tiles + excluded.tiles`,
  chunkDone: 'UPDATE seed_jobs SET outstanding = outstanding - 1 WHERE id = ?',
  killable: `SELECT t.id, t.layer, j.type, t.state AS was, t.job FROM seed_tasks t JOIN seed_jobs j ON j.id = t.job
    WHERE t.state IN (SELECT value FROM json_each(@states)) AND (@layer IS NULL OR t.layer = @layer)
      AND (@ids IS NULL OR t.id IN (SELECT value FROM json_each(@ids))) ORDER BY t.id`,
  killTask: "UPDATE seed_tasks SET state = 'aborted', killed = 1, finished_at = ? WHERE id = ?",
  setShare: 'UPDATE seed_tasks SET tiles_total = ? WHERE id = ?',
  // Every unfinished task record, with a live job or none (a record whose job is gone is no less unfinished).
  abortTasks: `UPDATE seed_tasks SET state = 'aborted', error = ?, finished_at = ? WHERE ${LIVE}`,
  abortJobs: `UPDATE seed_jobs SET state = 'aborted', finished_at = ?, cursor = NULL, outstanding = 0 WHERE ${LIVE}`,
  dropAllChunks: 'DELETE FROM seed_chunks',
  outstanding: "SELECT c.job, c.seq FROM seed_chunks c JOIN seed_jobs j ON j.id = c.job WHERE j.state = 'running' ORDER BY c.job, c.seq",
  snapshotJobs: `SELECT id, task_ids, layer, type, request, state, total, descending, created_at, started_at, finished_at
    FROM seed_jobs WHERE ${LIVE} OR finished_at >= ? ORDER BY id`,
  snapshotTasks: `SELECT id, job, state, tiles_done, tiles_total, killed, error, failed_metatiles, failure, view, created_at, started_at, finished_at
    FROM seed_tasks WHERE job IN (SELECT value FROM json_each(?)) ORDER BY id`,
  job: 'SELECT request, type, descending FROM seed_jobs WHERE id = ?',
  prune: 'DELETE FROM seed_jobs WHERE finished_at IS NOT NULL AND finished_at < ?'
}

export type Statements = Record<keyof typeof SQL, Statement>

export function seedJobStatements (db: Db): Statements {
  return Object.fromEntries(Object.entries(SQL).map(([k, sql]) => [k, db.prepare(sql)])) as Statements
}

export function jobReads (q: Statements): Pick<JobStore, 'snapshot' | 'job' | 'prune'> {
  return {
    async snapshot (since) {
      const jobs = (q.snapshotJobs.all(since) as any[]).map((j): StoredJob => ({
        id: j.id, taskIds: JSON.parse(j.task_ids), layer: j.layer, type: j.type, request: j.request, state: j.state, total: BigInt(j.total),
        descending: j.descending === 1, createdAt: j.created_at, startedAt: j.started_at ?? undefined, finishedAt: j.finished_at ?? undefined
      }))
      const tasks = jobs.length === 0 ? [] : (q.snapshotTasks.all(JSON.stringify(jobs.map((j) => j.id))) as any[]).map((t): StoredJobTask => ({
        id: t.id, job: t.job, state: t.state, tilesDone: t.tiles_done, share: t.tiles_total === null ? undefined : BigInt(t.tiles_total), killed: t.killed !== 0,
        error: t.error ?? undefined, view: JSON.parse(t.view), failedMetatiles: t.failed_metatiles, failure: t.failure ?? undefined,
        createdAt: t.created_at, startedAt: t.started_at ?? undefined, finishedAt: t.finished_at ?? undefined
      }))
      return { jobs, tasks }
    },
    async job (jobId) {
      const r = q.job.get(jobId) as { request: string, type: StoredJob['type'], descending: number } | undefined
      return r && { request: r.request, type: r.type, descending: r.descending === 1 }
    },
    async prune (before) { q.prune.run(before) }
  }
}
