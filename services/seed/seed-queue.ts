// What seeding takes from the stores (services/storage/ openStores): the seed queue, where a
// request's job, tasks and chunks are kept (job-store.ts) and its chunks handed to workers (a work
// queue), and the metatile lock that keeps two renders of one metatile apart. sqlite/: the job
// tables in the catalog, an in-process work queue, one node, a lock in memory; pg/: the same tables
// in PostgreSQL, pg-boss, every live instance a node, advisory locks. The one breeder
// (job-breeder.ts) is built on it by the tile cache and never asks which backend it runs on.
import type { BreederDeps } from './breeder.js'
import type { ChunkRef, JobStore } from './job-store.js'
import type { SeedSpec } from './seed-request.js'

/** Runs `fn` holding the lock of one metatile: nobody else renders it meanwhile. */
export interface MetatileLock {
  run<T> (key: string, fn: () => Promise<T>): Promise<T>
  /**
   * For a request that missed the cache: `fn(true)` holding the lock. While another holds it (a
   * seed, another node's request), waits for it holding nothing a render or a request needs (no
   * database connection, no thread) and, past `waitMs`, runs `fn(false)` without it: a metatile
   * drawn twice rather than a request stuck behind a render that does not end. `onWait` is told
   * when the lock is first found held ('waited') and when the wait gives up ('timedOut').
   */
  claim<T> (key: string, opts: ClaimOptions, fn: (held: boolean) => Promise<T>): Promise<T>
}

export interface ClaimOptions {
  waitMs: number
  onWait?: (event: 'waited' | 'timedOut') => void
}

/** The queue of chunks every node's workers take from. */
export interface WorkQueue {
  /** Adds items in the job store's transaction `tx` (opaque here); returns their queue ids. */
  add (tx: unknown, items: ChunkRef[]): Promise<string[]>
  /** Starts `workers` loops, each taking one item at a time; a handler that throws fails its item (retried). */
  work (workers: number, handler: (item: ChunkRef, id: string) => Promise<void>): Promise<void>
  /** Fails items in hand of a worker that died: they are retried at once. */
  fail (ids: string[]): Promise<void>
  /** Wakes this node's idle workers (items were added). */
  wake (): void
  /** Stops taking items and waits for the ones in hand. */
  stop (): Promise<void>
}

/** A committed change announced to every node ('seed' topic; key `end:<job ids>` when jobs ended), or 'resync'. */
export type SeedChange = { topic: string, key?: string } | 'resync'

export interface SeedQueue {
  jobs: JobStore
  /** This node's id and the ids of the live nodes (one on SQLite). */
  nodeId: string
  liveNodes (): Promise<string[]>
  /** Changes announced by any node. */
  subscribe (handler: (change: SeedChange) => void): () => void
  openQueue (onError: (err: Error) => void): Promise<WorkQueue>
}

/** What the breeder is built from (tile-cache.ts). */
export interface SeedQueueDeps extends BreederDeps {
  queue: SeedQueue
  lock: MetatileLock
  /** Metatiles this node renders at once for the queue (its render threads). */
  workers: number
  /** The validated spec of a recorded request (JSON; its layer looked up again). */
  specOf: (request: string) => Promise<SeedSpec>
  log?: { info: (obj: object, msg: string) => void, warn: (obj: object, msg: string) => void }
  /** How often the copy of the tasks is re-read without an announcement, and dead nodes looked for (ms). */
  pollMs?: number
}
