// Seed task records, so that a task's fate survives the process:
// GWC loses its tasks on a restart; we keep a record of each task so that after a restart or a
// kill -9 the per-task resource says what happened. On boot, tasks that were pending or running
// resume (MAPWARDEN_RESUME_TASKS, tile-cache.ts resumeTasks: the record keeps the request, the
// job, the kill flag and the start time), or with resuming off become ABORTED with the reason
// "aborted: restart". Ids never repeat across restarts. Finished records are kept an hour, and
// at most 1000 of them. Where they are kept is the TaskRecordStore (store.ts).
import { STATUS_CODE, type TaskView } from './task.js'
import type { NewTaskRecord, TaskRecordStore, TaskRecordUpdate, UnfinishedTask } from './store.js'

export const RESTART_REASON = 'aborted: restart'

export interface TaskRecordsDeps {
  now?: () => number
  keepMs?: number
  keepMax?: number
}

export function createTaskRecords (store: TaskRecordStore, deps: TaskRecordsDeps = {}) {
  const now = deps.now ?? Date.now
  const keepMs = deps.keepMs ?? 3600_000
  const keepMax = deps.keepMax ?? 1000

  return {
    /** Marks the tasks of a previous run that never finished; returns how many. */
    abortUnfinished (reason = RESTART_REASON): Promise<number> { return store.abortUnfinished(reason, now()) },
    /**
     * Records the tasks of one request as pending (one transaction); returns their ids in order.
     * `request` (JSON) is what a restart rebuilds their job from; the job is the first task's id.
     */
    create (tasks: NewTaskRecord[], request?: string): Promise<number[]> { return store.create(tasks, request, now()) },
    /** Tasks of a previous run still pending or running, by id (resume after a restart). */
    unfinished (): Promise<UnfinishedTask[]> { return store.unfinished() },
    /** Ends one unfinished task of a previous run (killed, or its request no longer valid). */
    abort (id: number, reason: string | null): Promise<void> { return store.abort(id, reason, now()) },
    /**
     * Writes tasks' states and progress in one transaction (rejects on a full disk; the caller
     * retries): one commit instead of one per task, e.g. for kill_all of a full queue. Unless one
     * of them is `durable` (a state change), it may commit without an fsync (the progress of
     * running tasks, once a second each): that still survives a crash of the process.
     */
    save (items: Array<TaskRecordUpdate & { durable?: boolean }>): Promise<void> {
      return store.save(items, items.some((i) => i.durable !== false))
    },
    /** A task as the per-task resource shows it, from its record. */
    async get (id: number): Promise<TaskView | undefined> {
      const r = await store.get(id)
      if (!r) return undefined
      const finished = r.state !== 'pending' && r.state !== 'running'
      return {
        ...r.view,
        id: r.id,
        state: r.state,
        status: STATUS_CODE[r.state],
        etaSeconds: finished ? 0 : r.view.etaSeconds,
        request: r.view.request && finished ? { ...r.view.request, etaSeconds: 0 } : r.view.request,
        error: r.error
      }
    },
    prune (): Promise<void> { return store.prune(now() - keepMs, keepMax) }
  }
}

export type TaskRecords = ReturnType<typeof createTaskRecords>
