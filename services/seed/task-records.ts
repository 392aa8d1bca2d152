// Seed task records in SQLite, so that a task's fate survives the process:
// GWC loses its tasks on a restart; we keep a record of each task so that after a restart or a
// kill -9 the per-task resource says what happened. On boot, tasks that were pending or running
// resume (MAPWARDEN_RESUME_TASKS, tile-cache.ts resumeTasks: the record keeps the request, the
// job, the kill flag and the start time), or with resuming off become ABORTED with the reason
// "aborted: restart". Ids come from an
// AUTOINCREMENT key, so they never repeat across restarts. Finished records are kept an hour, and
// at most 1000 of them.
import { parseExact, stringifyExact } from '../exact-json.js'
import { relaxedSync, type Db } from '../storage/database.js'
import { STATUS_CODE, type TaskState, type TaskView } from './task.js'
import { noFaults, type FaultPoint } from '../faults.js'

export const RESTART_REASON = 'aborted: restart'

export interface TaskRecordsDeps {
  now?: () => number
  keepMs?: number
  keepMax?: number
  fault?: FaultPoint
}

export function createTaskRecords (db: Db, deps: TaskRecordsDeps = {}) {
  const now = deps.now ?? Date.now
  const keepMs = deps.keepMs ?? 3600_000
  const keepMax = deps.keepMax ?? 1000
  const fault = deps.fault ?? noFaults
  const q = {
    insert: db.prepare('INSERT INTO seed_tasks (state, layer, view, created_at, request, job) VALUES (?, ?, ?, ?, ?, ?)'),
    setJob: db.prepare('UPDATE seed_tasks SET job = ? WHERE id = ?'),
    update: db.prepare('UPDATE seed_tasks SET state = ?, view = ?, error = ?, finished_at = ?, killed = killed | ?, started_at = coalesce(started_at, ?) WHERE id = ?'),
    unfinished: db.prepare("SELECT id, job, view, request, killed, started_at FROM seed_tasks WHERE state IN ('pending', 'running') ORDER BY id"),
    abortOne: db.prepare("UPDATE seed_tasks SET state = 'aborted', error = ?, finished_at = ? WHERE id = ? AND state IN ('pending', 'running')"),
    get: db.prepare('SELECT id, state, view, error FROM seed_tasks WHERE id = ?'),
    abort: db.prepare("UPDATE seed_tasks SET state = 'aborted', error = ?, finished_at = ? WHERE state IN ('pending', 'running')"),
    prune: db.prepare(`DELETE FROM seed_tasks WHERE finished_at IS NOT NULL AND (finished_at < ? OR id NOT IN
      (SELECT id FROM seed_tasks WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT ?))`)
  }

  return {
    /** Marks the tasks of a previous run that never finished; returns how many. */
    abortUnfinished (reason = RESTART_REASON): number {
      return q.abort.run(reason, now()).changes
    },
    /** Allocates the id of a new task (never reused) and records it as pending. */
    create (layer: string, view: Omit<TaskView, 'id'>, request?: string, job?: number): number {
      fault('seed.taskRecordWrite')
      const id = Number(q.insert.run('pending', layer, stringifyExact(view), now(), request ?? null, job ?? null).lastInsertRowid)
      fault('seed.afterTaskRecord')
      return id
    },
    /**
     * Records the tasks of one request in one transaction; returns their ids in order. `request`
     * (JSON) is what a restart rebuilds their job from; the job is the first task's id.
     */
    createAll (tasks: Array<{ layer: string, view: Omit<TaskView, 'id'> }>, request?: string): number[] {
      return db.transaction(() => {
        const ids = tasks.map((t) => this.create(t.layer, t.view, request))
        for (const id of ids) q.setJob.run(ids[0], id)
        return ids
      })()
    },
    /** Tasks of a previous run still pending or running, by id (resume after a restart). */
    unfinished (): Array<{ id: number, job: number | null, view: TaskView, request: string | null, killed: boolean, startedAt?: number }> {
      return (q.unfinished.all() as any[]).map((r) => ({
        id: r.id, job: r.job, view: parseExact(r.view) as TaskView, request: r.request, killed: r.killed === 1, startedAt: r.started_at ?? undefined
      }))
    },
    /** Ends one unfinished task of a previous run (killed, or its request no longer valid). */
    abort (id: number, reason: string | null): void { q.abortOne.run(reason, now(), id) },
    /**
     * Writes tasks' states and progress in one transaction (throws on a full disk; the caller
     * retries): one commit instead of one per task, e.g. for kill_all of a full queue. Unless one
     * of them is `durable` (a state change), it commits without an fsync on the event loop (the
     * progress of running tasks, once a second each): that still survives a crash of the process.
     */
    saveAll (items: Array<{ view: TaskView, finishedAt?: number, durable?: boolean, killed?: boolean, startedAt?: number }>): void {
      const write = db.transaction(() => {
        for (const { view, finishedAt, killed, startedAt } of items) {
          fault('seed.taskRecordWrite')
          q.update.run(view.state, stringifyExact(view), view.error ?? null, finishedAt ?? null, killed ? 1 : 0, startedAt ?? null, view.id)
          fault('seed.afterTaskRecord')
        }
      })
      if (items.some((i) => i.durable !== false)) write()
      else relaxedSync(db, write)
    },
    /** A task as the per-task resource shows it, from its record. */
    get (id: number): TaskView | undefined {
      const r = q.get.get(id) as { id: number, state: TaskState, view: string, error: string | null } | undefined
      if (!r) return undefined
      const view = parseExact(r.view) as TaskView
      const finished = r.state !== 'pending' && r.state !== 'running'
      return {
        ...view,
        id: r.id,
        state: r.state,
        status: STATUS_CODE[r.state],
        etaSeconds: finished ? 0 : view.etaSeconds,
        request: view.request && finished ? { ...view.request, etaSeconds: 0 } : view.request,
        error: r.error ?? undefined
      }
    },
    prune (): void { q.prune.run(now() - keepMs, keepMax) }
  }
}

export type TaskRecords = ReturnType<typeof createTaskRecords>
