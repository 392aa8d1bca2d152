// The embedded default's work queue: the chunks of seed jobs waiting in memory for this process's
// workers. The job store (job-store.ts) adds a transaction's chunks once it committed; the rows of
// seed_chunks are the truth, so a new start queues those of running jobs again (`initial`) and a
// kill -9 loses nothing but the order. A chunk whose handler throws is retried (after RETRY_MS),
// as pg-boss retries a failed job: the job store counts it once however often it is worked.
import type { ChunkRef } from '../../seed/job-store.js'
import type { WorkQueue } from '../../seed/seed-queue.js'

/** A failed chunk is handed out again after this wait, at most RETRY_LIMIT times. */
const RETRY_MS = 50
const RETRY_LIMIT = 1000
/** How long stop() waits for the chunks in hand (ms). */
const STOP_WAIT_MS = 30_000

interface Item { ref: ChunkRef, id: string, tries: number }

export function inProcessWorkQueue (initial: ChunkRef[], onError: (err: Error) => void): WorkQueue {
  let nextId = 0
  const waiting: Item[] = []
  const item = (ref: ChunkRef): Item => ({ ref, id: String(++nextId), tries: 0 })
  for (const ref of initial) waiting.push(item(ref))
  let stopping = false
  const loops: Array<Promise<void>> = []
  const retries = new Set<NodeJS.Timeout>()

  // Idle workers wait here until an item is added or the queue stops.
  const sleepers = new Set<() => void>()
  const wake = () => { for (const done of [...sleepers]) done() }
  const nap = () => new Promise<void>((resolve) => {
    const done = () => { sleepers.delete(done); resolve() }
    sleepers.add(done)
  })

  async function loop (handler: (ref: ChunkRef, id: string) => Promise<void>): Promise<void> {
    while (!stopping) {
      const next = waiting.shift()
      if (!next) { await nap(); continue }
      try { await handler(next.ref, next.id) } catch (err) {
        if (stopping || next.tries >= RETRY_LIMIT) { onError(err as Error); continue }
        const timer = setTimeout(() => { retries.delete(timer); waiting.push({ ...next, tries: next.tries + 1 }); wake() }, RETRY_MS)
        retries.add(timer)
      }
    }
  }

  return {
    async add (_tx, refs) {
      const items = refs.map(item)
      waiting.push(...items)
      if (items.length > 0) wake()
      return items.map((i) => i.id)
    },
    async work (workers, handler) {
      if (stopping) throw new Error('the work queue is stopping')
      for (let i = 0; i < workers; i++) loops.push(loop(handler))
    },
    // One process: no worker dies while the queue lives.
    async fail () {},
    wake,
    async stop () {
      stopping = true
      for (const timer of retries) clearTimeout(timer)
      wake()
      let timer: NodeJS.Timeout | undefined
      await Promise.race([Promise.all(loops), new Promise((resolve) => { timer = setTimeout(resolve, STOP_WAIT_MS).unref() })])
      clearTimeout(timer)
    }
  }
}
