// When clean-ups run (GWC DiskQuotaMonitor's scheduled CacheCleanerTask): every period, the
// period re-read before each wait so that a configuration change applies from the next run.
// Timers are injected so tests drive time without sleeping; periods longer than a timer can wait
// are chained.
export interface SchedulerDeps {
  /** One clean-up run; a failure is logged by the caller and does not stop the schedule. */
  run: () => Promise<unknown>
  periodMs: () => number
  now?: () => number
  setTimer?: (fn: () => void, ms: number) => unknown
  clearTimer?: (handle: unknown) => void
  minPeriodMs?: number
}

const MAX_TIMER_MS = 2 ** 31 - 1

export function createCleanupScheduler (deps: SchedulerDeps) {
  const now = deps.now ?? Date.now
  const setTimer = deps.setTimer ?? ((fn, ms) => { const h = setTimeout(fn, ms); h.unref(); return h })
  const clearTimer = deps.clearTimer ?? ((h) => clearTimeout(h as NodeJS.Timeout))
  const minPeriod = deps.minPeriodMs ?? 100
  let handle: unknown
  let dueAt = 0
  let stopped = true
  const period = () => Math.max(minPeriod, deps.periodMs())

  function arm () {
    if (stopped) return
    handle = setTimer(tick, Math.min(MAX_TIMER_MS, Math.max(0, dueAt - now())))
  }
  function tick () {
    if (stopped) return
    if (now() < dueAt) return arm()
    dueAt = now() + period()
    arm()
    void deps.run().catch(() => {})
  }
  return {
    start () { stopped = false; dueAt = now() + period(); arm() },
    /** The configuration changed: the next run is one new period after the last one. */
    reschedule () {
      if (stopped) return
      clearTimer(handle)
      dueAt = Math.min(dueAt, now() + period())
      arm()
    },
    stop () { stopped = true; clearTimer(handle) }
  }
}
