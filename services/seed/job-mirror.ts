// This node's copy of the tasks in the job tables (job-breeder.ts), which lists, the task resource
// and the event stream read: re-read when any node announces a 'seed' change (a chunk counted: within
// PROGRESS_MS, with the others counted meanwhile) and on a timer. An announced end stops this node's
// work on those jobs at once.
import type { SeedSpec } from './seed-request.js'
import { viewOf, type Task } from './task.js'
import type { BreederContext } from './job-context.js'
import type { SeedChange } from './seed-queue.js'

/** How long progress announced by the nodes may wait before the copy reads it (ms). */
export const PROGRESS_MS = 250

export function createMirror (ctx: BreederContext) {
  const { deps } = ctx

  // The copy of the cluster's tasks. A read asked for while one runs is followed by one more, so a
  // caller that changed something sees its change. Each read first lets the event loop take what
  // waits (a burst of seed POSTs): the reads asked for meanwhile share it, and a string of reads
  // never holds the loop (on SQLite a read is synchronous: it ran once per request in a burst).
  let loading: Promise<void> | undefined
  let again = false
  function refresh (): Promise<void> {
    if (loading) { again = true; return loading }
    loading = (async () => {
      do {
        await new Promise((resolve) => setImmediate(resolve))
        again = false
        await load()
      } while (again)
    })().finally(() => { loading = undefined })
    return loading
  }

  async function load (): Promise<void> {
    const snap = await ctx.seeds.snapshot(ctx.now() - ctx.keepMs)
    const changed: Task[] = []
    const present = new Set<number>()
    const byJob = new Map<number, typeof snap.tasks>()
    for (const t of snap.tasks) byJob.set(t.job, [...(byJob.get(t.job) ?? []), t])
    for (const j of snap.jobs) {
      const rows = byJob.get(j.id) ?? []
      if (rows.length === 0) continue
      present.add(j.id)
      let job = ctx.jobs.get(j.id)
      if (!job) {
        // What lists show of the request: its grid set, formats and levels, as recorded.
        const v = rows[0].view
        const spec = { type: j.type, layer: { qualifiedName: j.layer }, gridSet: { id: v.gridSetId }, formats: v.format.split(','), zoomStart: v.zoomStart, zoomStop: v.zoomStop } as unknown as SeedSpec
        job = { id: j.id, state: j.state, spec, total: j.total, tasks: [] }
        ctx.jobs.set(j.id, job)
      }
      // An end this node could not write yet shows as written (job-work.ts endJob).
      const end = ctx.unrecorded.get(j.id)
      const isLive = (state: typeof j.state) => state === 'pending' || state === 'running'
      if (end && !isLive(j.state)) ctx.unrecorded.delete(j.id)
      job.state = end && isLive(j.state) ? 'aborted' : j.state
      job.startedAt = j.startedAt
      if (!isLive(job.state)) ctx.stopJob(j.id)
      for (const row of rows) {
        const r = end && isLive(row.state) ? { ...row, state: job.state, error: row.error ?? end.reason, finishedAt: end.at } : row
        let t = ctx.tasks.get(r.id)
        if (!t) {
          t = { id: r.id, type: j.type, layer: j.layer, job, state: r.state, tilesDone: -1, killed: r.killed, createdAt: r.createdAt }
          ctx.tasks.set(r.id, t)
          job.tasks.push(t)
          changed.push(t)
        }
        const tilesDone = r.startedAt === undefined ? -1 : r.tilesDone
        if (t.state !== r.state || t.tilesDone !== tilesDone || t.killed !== r.killed || t.share !== r.share) changed.push(t)
        if (t.failedMetatiles !== (r.failedMetatiles || undefined)) changed.push(t)
        Object.assign(t, { state: r.state, tilesDone, share: r.share, killed: r.killed, startedAt: r.startedAt, finishedAt: r.finishedAt, error: r.error, failedMetatiles: r.failedMetatiles || undefined, failure: r.failure })
      }
    }
    for (const [id, job] of ctx.jobs) {
      if (present.has(id)) continue
      ctx.jobs.delete(id)
      ctx.contexts.delete(id)
      ctx.loaded.delete(id)
      ctx.ended.delete(id)
      for (const t of job.tasks) ctx.tasks.delete(t.id)
    }
    const at = ctx.now()
    for (const t of new Set(changed)) ctx.events.emit('task', viewOf(t, at))
  }

  // A chunk counted (`count:<job>`) changes progress only: the copy reads it with the chunks counted
  // after it, at most every PROGRESS_MS, instead of once per chunk on every node.
  let progressTimer: NodeJS.Timeout | undefined
  const reread = () => { refresh().catch((err) => deps.log?.warn({ err }, 'could not read the seed tasks')) }

  function onChange (change: SeedChange): void {
    if (change !== 'resync' && change.topic !== 'seed') return
    if (change !== 'resync' && change.key?.startsWith('end:')) {
      for (const id of change.key.slice(4).split(',')) if (id) ctx.stopJob(Number(id))
    }
    ctx.queue?.wake() // chunks may have been added
    if (change !== 'resync' && change.key?.startsWith('count:')) {
      progressTimer ??= setTimeout(() => { progressTimer = undefined; reread() }, PROGRESS_MS)
      return
    }
    reread()
  }

  /** No more reads of progress (the breeder closes). */
  function stop (): void { clearTimeout(progressTimer) }

  return { refresh, onChange, stop }
}
