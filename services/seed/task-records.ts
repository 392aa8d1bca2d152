// Seed task records, so that a task's fate survives the process:
// GWC loses its tasks on a restart; we keep a record of each task (a row of seed_tasks, written by
// the seed queue's job store with its job, job-store.ts) so that after a restart or a kill -9 the
// per-task resource says what happened. On boot, tasks that were pending or running go on
// (MAPWARDEN_RESUME_TASKS: their jobs' chunks are redone), or with resuming off become ABORTED
// with the reason "aborted: restart" (by the job store with their jobs, at the breeder's start:
// job-breeder.ts). Ids never repeat across restarts. Finished records are kept
// an hour, and at most 1000 of them. Where they are kept is the TaskRecordStore (store.ts).
import { STATUS_CODE, type TaskState, type TaskView } from './task.js'
import type { TaskRecordStore } from './store.js'

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
    /** How many tasks are on record in each state (every state named, 0 when none). */
    async countByState (): Promise<Record<TaskState, number>> {
      const out: Record<TaskState, number> = { pending: 0, running: 0, done: 0, aborted: 0 }
      for (const r of await store.countByState()) out[r.state] = r.count
      return out
    },
    prune (): Promise<void> { return store.prune(now() - keepMs, keepMax) }
  }
}

export type TaskRecords = ReturnType<typeof createTaskRecords>
