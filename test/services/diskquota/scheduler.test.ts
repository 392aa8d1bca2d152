// The clean-up schedule, driven by a fake clock and fake timers (never sleeps).
import t from 'tap'
import { createCleanupScheduler } from '../../../services/diskquota/scheduler.js'

function fakeTime () {
  let now = 0
  let timer: { fn: () => void, at: number } | undefined
  return {
    now: () => now,
    setTimer: (fn: () => void, ms: number) => { timer = { fn, at: now + ms }; return timer },
    clearTimer: (h: unknown) => { if (h === timer) timer = undefined },
    /** Moves the clock forward, firing the timer each time it comes due. */
    advance (ms: number) {
      const end = now + ms
      while (timer && timer.at <= end) { const { fn, at } = timer; timer = undefined; now = at; fn() }
      now = end
    }
  }
}

t.test('runs every period, and a changed period applies from the next run', async (t) => {
  const time = fakeTime()
  const runs: number[] = []
  let period = 10_000
  const s = createCleanupScheduler({ run: async () => { runs.push(time.now()) }, periodMs: () => period, ...time })
  s.start()
  time.advance(35_000)
  t.same(runs, [10_000, 20_000, 30_000])
  period = 2_000 // an admin PUT: cacheCleanUpFrequency 2 SECONDS
  s.reschedule()
  time.advance(5_000)
  t.same(runs.slice(3), [37_000, 39_000], 'the next run comes one new period after the change')
  s.stop()
  time.advance(100_000)
  t.equal(runs.length, 5, 'nothing runs after stop')
})

t.test('periods longer than a timer can wait are chained; a failing run does not stop the schedule', async (t) => {
  const time = fakeTime()
  const runs: number[] = []
  const days = 30 * 86_400_000
  const s = createCleanupScheduler({ run: async () => { runs.push(time.now()); throw new Error('boom') }, periodMs: () => days, ...time })
  s.start()
  time.advance(days - 1)
  t.same(runs, [])
  time.advance(1)
  t.same(runs, [days])
  await new Promise((resolve) => setImmediate(resolve)) // let the rejected run settle
  time.advance(days)
  t.same(runs, [days, 2 * days])
  s.stop()
})

t.test('tiny periods (NANOSECONDS) are floored so clean-ups never spin', async (t) => {
  const time = fakeTime()
  let runs = 0
  const s = createCleanupScheduler({ run: async () => { runs++ }, periodMs: () => 1e-5, minPeriodMs: 100, ...time })
  s.start()
  time.advance(1000)
  t.equal(runs, 10)
  s.stop()
})
