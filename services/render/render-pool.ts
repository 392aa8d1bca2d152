// The render worker pool (Piscina) that draws metatiles and WMS maps. It resolves the worker entry
// file (`.js` in dist/, `.ts` from source), uses maxQueue 'auto' (the render queue in front keeps it
// empty) and lowers the priority of the process's background threads around each render, so the
// event loop gets the CPU when a request arrives.
import fs from 'node:fs'
import os from 'node:os'
import { Piscina } from 'piscina'
import type { FaultRule } from '../faults.js'
import { RenderQueueFull } from '../errors.js'
import type { RenderThreadData } from './metatile.js'
import type { MessagePort } from 'node:worker_threads'

/**
 * Metatiles each render thread works on at once. A render waits for libvips and zlib on libuv's
 * pool part of the time; with a second metatile in hand the thread draws or filters meanwhile
 * (PNG seed z0-10 of the bench mosaic, 2 threads: 335 -> 347-363 tiles/s, CPU-bound either way).
 * Memory: each metatile in hand has its render scratch (render-mosaic.ts, reused, 8 MB for 4x4
 * tiles of 256), and glibc returns large blocks at once where MALLOC_MMAP_THRESHOLD_ is set (npm
 * start, the image, the bench): peak RSS of that seed 367 MB.
 */
export const TASKS_PER_THREAD = 2

/** Runs one named task of the render worker entry file. */
export type RunOnPool = (payload: unknown, opts: { name: string, signal?: AbortSignal, transferList?: MessagePort[] }) => Promise<unknown>

export interface RenderPool {
  run: RunOnPool
  close (): Promise<void>
}

function workerFile (name: string): URL {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js'
  return new URL(`../../workers/${name}${ext}`, import.meta.url)
}

export interface RenderPoolOptions {
  threads: number
  /** Nice value each render thread gives itself, and the process's other background threads (0: none). */
  nice?: number
  /** Test-only fault points, for the tile writes made in the workers. */
  faultKillAt?: FaultRule[]
  onError?: (err: Error) => void
}

/** The bare Piscina pool of the render entry file (the bench drives it directly). */
export function createTilePool ({ threads, nice = 0, faultKillAt, onError = () => {} }: RenderPoolOptions): Piscina {
  const pool = new Piscina({
    filename: workerFile('render-metatile').href,
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: 30_000,
    maxQueue: 'auto',
    concurrentTasksPerWorker: TASKS_PER_THREAD,
    // Workers need none of the parent's loaders (a test runner's --import hooks break them); a
    // --cpu-prof of the process profiles each render thread too (bench/seed-profile.ts).
    execArgv: process.execArgv.filter((a) => a === '--enable-source-maps' || a.startsWith('--cpu-prof')),
    // geotiff loads `web-worker`, which reads workerData.mod on import in any worker thread.
    workerData: { nice, faultKillAt } satisfies RenderThreadData
  })
  pool.on('error', onError) // a worker that dies outside a task; its tasks reject on their own
  return pool
}

/** The pool as the services use it: every run between two looks at the background threads' priority. */
export function createRenderPool (opts: RenderPoolOptions): RenderPool {
  const pool = createTilePool(opts)
  const lowerThreads = backgroundThreadPriority(opts.nice ?? 0)
  lowerThreads()
  // Before and after each render: a new render thread brings threads of its own along.
  return {
    run: (payload, runOpts) => { lowerThreads(); return pool.run(payload, runOpts).catch(queueFull).finally(lowerThreads) },
    close: () => pool.close({ force: true })
  }
}

/**
 * Piscina's own queue limit, as the render queue's (503). Piscina's errors carry no code, so its
 * message is read here, at the boundary, and nowhere else; the render queue in front keeps Piscina's
 * queue empty, so this is for safety only.
 */
function queueFull (err: unknown): never {
  if (err instanceof Error && /queue is at limit/i.test(err.message)) throw RenderQueueFull()
  throw err
}

/**
 * Lowers the priority of every thread of the process but the main one (Linux: setpriority works
 * per thread): libuv's thread pool, where sharp encodes the render workers' tiles, libvips' and
 * V8's helpers. Under seeding both cores are busy with render work; at nice 10 the event loop gets
 * the CPU when a request arrives (`npm run bench -- load`: event-loop delay p99 63 -> 39 ms, lists
 * answered 7.8k -> 12.6k/s while seeding). The render threads lower their own on start (workers/
 * thread-priority.ts). The returned function looks again only when the number of threads changed
 * (a thread the event loop's thread starts inherits its nice 0).
 */
export function backgroundThreadPriority (nice: number): () => void {
  if (nice <= 0 || process.platform !== 'linux') return () => {}
  let seen = 0
  return () => {
    let tids: string[]
    try { tids = fs.readdirSync('/proc/self/task') } catch { return }
    if (tids.length === seen) return
    seen = tids.length
    for (const tid of tids.map(Number)) {
      if (tid === process.pid) continue
      try { if (os.getPriority(tid) < nice) os.setPriority(tid, nice) } catch { /* the thread ended meanwhile */ }
    }
  }
}
