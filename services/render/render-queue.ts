// In front of the render pool: at most `slots` metatiles are handed to the worker threads at once,
// and the next one is chosen here, so a map being panned never waits behind seeding. On-demand
// renders (a tile requested and not cached) wait in their own FIFO of `interactive` places and
// always go first; seed metatiles wait in theirs (each running seed task has one metatile in hand at
// most, so that queue is bounded by the task slots). Past `interactive` waiting renders a request is
// refused with RenderQueueFull (503 and Retry-After), never sooner.
import { RenderQueueFull } from '../errors.js'

export type RenderPriority = 'interactive' | 'seed'

export interface RenderQueueOptions {
  /** Renders handed to the pool at once: as many as its threads work on at once keeps every thread busy. */
  slots: number
  /** On-demand renders that may wait for a slot. */
  interactive: number
  /** How long each render waited for its slot (metrics). */
  onWait?: (priority: RenderPriority, seconds: number) => void
  /** An on-demand render refused because `interactive` renders wait already (metrics). */
  onRefused?: () => void
}

export function createRenderQueue ({ slots, interactive, onWait, onRefused }: RenderQueueOptions) {
  let running = 0
  const waiting: Record<RenderPriority, Array<() => void>> = { interactive: [], seed: [] }
  const next = () => {
    while (running < slots) {
      const start = waiting.interactive.shift() ?? waiting.seed.shift()
      if (!start) return
      running++
      start()
    }
  }
  return {
    /** Runs fn when a slot is free, interactive renders first. */
    async run<T> (priority: RenderPriority, fn: () => Promise<T>): Promise<T> {
      if (running >= slots) { // (next() hands a freed slot on at once, so nobody waits while one is free)
        if (priority === 'interactive' && waiting.interactive.length >= interactive) { onRefused?.(); throw RenderQueueFull() }
        const since = performance.now()
        await new Promise<void>((resolve) => waiting[priority].push(resolve))
        onWait?.(priority, (performance.now() - since) / 1000)
      } else {
        running++
        onWait?.(priority, 0)
      }
      try { return await fn() } finally { running--; next() }
    },
    /** Renders running and waiting, for tests and the bench. */
    stats () { return { running, interactive: waiting.interactive.length, seed: waiting.seed.length } }
  }
}
export type RenderQueue = ReturnType<typeof createRenderQueue>
