// In front of the render pool: at most `slots` metatiles are handed to the worker threads at once,
// and the next one is chosen here, so a map being panned never waits behind seeding. On-demand
// renders (a tile requested and not cached) wait in their own FIFO of `interactive` places and
// always go first; seed metatiles wait in theirs (each running seed task has one metatile in hand at
// most, so that queue is bounded by the task slots). Past `interactive` waiting renders a request is
// refused with RenderQueueFull (503 and Retry-After), never sooner. A request that waits for a
// metatile a seed task holds (its lock) would wait behind every later request while that seed
// render waits in the seed lane: hurry(key) moves that render to the interactive lane, and a seed
// render of a metatile wanted that way goes there when it arrives.
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
  const waiting: Record<RenderPriority, Array<{ start: () => void, key?: string }>> = { interactive: [], seed: [] }
  /** Metatiles (their lock keys) that on-demand requests wait for, and how many requests wait. */
  const wanted = new Map<string, number>()
  const next = () => {
    while (running < slots) {
      const entry = waiting.interactive.shift() ?? waiting.seed.shift()
      if (!entry) return
      running++
      entry.start()
    }
  }
  return {
    /** Runs fn when a slot is free, interactive renders first; `key`: the metatile's lock key. */
    async run<T> (priority: RenderPriority, fn: () => Promise<T>, key?: string): Promise<T> {
      if (running >= slots) { // (next() hands a freed slot on at once, so nobody waits while one is free)
        if (priority === 'interactive' && waiting.interactive.length >= interactive) { onRefused?.(); throw RenderQueueFull() }
        // A seed render that a request waits for is not refused: it holds the metatile already.
        const lane = priority === 'seed' && key !== undefined && wanted.has(key) ? 'interactive' : priority
        const since = performance.now()
        await new Promise<void>((resolve) => waiting[lane].push({ start: resolve, key }))
        onWait?.(priority, (performance.now() - since) / 1000)
      } else {
        running++
        onWait?.(priority, 0)
      }
      try { return await fn() } finally { running--; next() }
    },
    /**
     * An on-demand request waits for metatile `key`: a seed render of it waiting now, or arriving
     * before the returned release is called, takes the interactive lane. Release: once, or more.
     */
    hurry (key: string): () => void {
      wanted.set(key, (wanted.get(key) ?? 0) + 1)
      const i = waiting.seed.findIndex((e) => e.key === key)
      if (i >= 0) waiting.interactive.push(...waiting.seed.splice(i, 1))
      let released = false
      return () => {
        if (released) return
        released = true
        const n = wanted.get(key)! - 1
        if (n > 0) wanted.set(key, n)
        else wanted.delete(key)
      }
    },
    /** Renders running and waiting, for tests and the bench. */
    stats () { return { running, interactive: waiting.interactive.length, seed: waiting.seed.length } }
  }
}
export type RenderQueue = ReturnType<typeof createRenderQueue>
