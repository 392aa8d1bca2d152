// A work queue every instance consumes, on pg-boss 10 (pg-boss 12 needs Node >= 22.12; mapwarden
// runs on Node 20 and the current LTS). pg-boss keeps its jobs in its own schema of the shared
// database and runs its statements on mapwarden's pool, so a job is added in the caller's
// transaction: it exists exactly when the change that made it committed. A job whose worker dies is
// failed by whoever notices (`fail`) and retried at once on another node; pg-boss's own expiry
// (maintenance on some node every 30 s) is the backstop. The workers are loops of ours on
// pg-boss's fetch, complete and fail, so that a database that goes away under them (a restart, a
// failover) is waited for instead of ending the process.
import crypto from 'node:crypto'
import PgBoss from 'pg-boss'
import { isConnectionError } from '../../errors.js'
import type { PgClient, PgDatabase } from './database.js'

export interface WorkQueue<T extends object> {
  /** Adds jobs in the caller's transaction (on its client); returns their pg-boss ids. */
  add (client: PgClient, items: T[]): Promise<string[]>
  /** Starts `workers` loops, each taking one job at a time; a handler that throws fails its job (retried). */
  work (workers: number, handler: (item: T, id: string) => Promise<void>): Promise<void>
  /** Fails active jobs (their worker died): they are retried at once. */
  fail (ids: string[]): Promise<void>
  /** Wakes this instance's idle workers (new jobs were added). */
  wake (): void
  /** Stops taking jobs and waits for the ones in hand. */
  stop (): Promise<void>
}

/** The pg-boss schema's statements (the test template installs them once). */
export const queueSchemaSql = (): string => PgBoss.getConstructionPlans('pgboss')

/** How often an idle worker looks for jobs (ms), unless woken. */
const POLL_MS = 500
/** Waits after a failed statement, ms: doubling from the first to the last while the database is away. */
const RETRY_MS = [100, 2000] as const
/** How long stop() waits for the jobs in hand (ms). */
const STOP_WAIT_MS = 30_000

export async function openWorkQueue<T extends object> (db: PgDatabase, name: string, { expireInSeconds = 300, onError = () => {} }: { expireInSeconds?: number, onError?: (err: Error) => void } = {}): Promise<WorkQueue<T>> {
  let stopped = false
  let stopping = false
  const boss = new PgBoss({
    db: {
      executeSql: async (text, values) => {
        // After stop(), pg-boss may still run a statement (its maintenance, say) on a pool the app
        // is closing: its rejection, or an empty answer, would surface as an unhandled error inside
        // pg-boss. Such a statement never completes instead.
        if (stopped) return await new Promise<never>(() => {})
        return await db.query(text, values)
      }
    },
    schedule: false,
    maintenanceIntervalSeconds: 30
  })
  // pg-boss reports what fails in its own timers (maintenance) here; unheard, it would end the process.
  boss.on('error', onError)
  await boss.start()
  await boss.createQueue(name, { name, retryLimit: 1000, retryDelay: 0, expireInSeconds })
  const onClient = (client: PgClient) => ({ executeSql: async (text: string, values: unknown[]) => await client.query(text, values) })

  // Idle workers wait here until the poll interval passes or wake() is called.
  const sleepers = new Set<() => void>()
  const nap = (ms: number) => new Promise<void>((resolve) => {
    const done = () => { clearTimeout(timer); sleepers.delete(done); resolve() }
    const timer = setTimeout(done, ms)
    sleepers.add(done)
  })
  const wakeAll = () => { for (const done of [...sleepers]) done() }

  /**
   * Runs a statement of the queue until it succeeds while the database is away (its connection
   * lost, the server restarting), waiting longer each time; gives up when the queue stops or on
   * any other failure (both reported). A job left active then expires, or is failed by the node
   * that finds its worker gone.
   */
  async function persist (what: () => Promise<unknown>): Promise<void> {
    for (let wait: number = RETRY_MS[0]; ; wait = Math.min(wait * 2, RETRY_MS[1])) {
      try { await what(); return } catch (err) {
        onError(err as Error)
        if (stopping || !isConnectionError(err)) return
        await nap(wait)
      }
    }
  }

  // Each worker is a loop of ours on fetch, complete and fail, every promise awaited. pg-boss's own
  // work() calls complete() and fail() without awaiting them (pg-boss 10 manager.js, onFetch): a
  // database that goes away while a job ends rejects one of them unheard, which ends the process.
  const loops: Array<Promise<void>> = []
  async function loop (handler: (item: T, id: string) => Promise<void>): Promise<void> {
    while (!stopping) {
      let jobs: Array<PgBoss.Job<T>> = []
      // pg-boss's fetch answers no job when its statement fails (the database away): wait and ask again.
      try { jobs = await boss.fetch<T>(name, { batchSize: 1 }) } catch (err) { onError(err as Error) }
      if (jobs.length === 0) { await nap(POLL_MS); continue }
      for (const job of jobs) {
        let failure: Error | undefined
        try { await handler(job.data, job.id) } catch (err) { failure = err instanceof Error ? err : new Error(String(err)) }
        // A failed job is retried at once, here or on another node.
        await persist(() => failure === undefined ? boss.complete(name, job.id) : boss.fail(name, job.id, { message: failure.message }))
      }
    }
  }

  return {
    async add (client, items) {
      if (items.length === 0) return []
      const ids = items.map(() => crypto.randomUUID())
      await boss.insert(items.map((data, i) => ({ id: ids[i], name, data, retryLimit: 1000, retryDelay: 0, expireInSeconds })), { db: onClient(client) })
      return ids
    },
    async work (workers, handler) {
      if (stopping) throw new Error('the work queue is stopping')
      for (let i = 0; i < workers; i++) loops.push(loop(handler))
    },
    async fail (ids) { if (ids.length > 0) await boss.fail(name, ids) },
    wake: wakeAll,
    async stop () {
      stopping = true
      wakeAll()
      try {
        // The jobs in hand end before their next piece of work; one still running after
        // STOP_WAIT_MS (a render waiting for a lock, a database that does not answer) is left
        // active: it expires, or a node still running finds this one gone and fails it.
        let timer: NodeJS.Timeout | undefined
        await Promise.race([Promise.all(loops), new Promise((resolve) => { timer = setTimeout(resolve, STOP_WAIT_MS).unref() })])
        clearTimeout(timer)
        await boss.stop({ graceful: true, wait: true, close: false, timeout: 30_000 })
      } finally { stopped = true }
    }
  }
}
