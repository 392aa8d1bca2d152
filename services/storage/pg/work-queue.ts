// A work queue every instance consumes, on pg-boss 10 (pg-boss 12 needs Node >= 22.12; mapwarden
// runs on Node 20 and the current LTS). pg-boss keeps its jobs in its own schema of the shared
// database and runs its statements on mapwarden's pool, so a job is added in the caller's
// transaction: it exists exactly when the change that made it committed. A job whose worker dies is
// failed by whoever notices (`fail`) and retried at once on another node; pg-boss's own expiry
// (maintenance on some node every 30 s) is the backstop.
import crypto from 'node:crypto'
import PgBoss from 'pg-boss'
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

export async function openWorkQueue<T extends object> (db: PgDatabase, name: string, { expireInSeconds = 300, onError = () => {} }: { expireInSeconds?: number, onError?: (err: Error) => void } = {}): Promise<WorkQueue<T>> {
  let stopped = false
  const boss = new PgBoss({
    db: {
      executeSql: async (text, values) => {
        // After stop(), pg-boss may still run a statement (failing the job of a handler that ended
        // with the shutdown, say) on a pool the app is closing: its rejection, or an empty answer,
        // would surface as an unhandled error inside pg-boss. Such a statement never completes
        // instead; a job it would have failed expires, or the nodes left take its chunk back.
        if (stopped) return await new Promise<never>(() => {})
        return await db.query(text, values)
      }
    },
    schedule: false,
    maintenanceIntervalSeconds: 30
  })
  boss.on('error', onError)
  await boss.start()
  await boss.createQueue(name, { name, retryLimit: 1000, retryDelay: 0, expireInSeconds })
  const workerIds: string[] = []
  const onClient = (client: PgClient) => ({ executeSql: async (text: string, values: unknown[]) => await client.query(text, values) })
  return {
    async add (client, items) {
      if (items.length === 0) return []
      const ids = items.map(() => crypto.randomUUID())
      await boss.insert(items.map((data, i) => ({ id: ids[i], name, data, retryLimit: 1000, retryDelay: 0, expireInSeconds })), { db: onClient(client) })
      return ids
    },
    async work (workers, handler) {
      for (let i = 0; i < workers; i++) {
        workerIds.push(await boss.work<T>(name, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async (jobs) => {
          for (const job of jobs) await handler(job.data, job.id)
        }))
      }
    },
    async fail (ids) { if (ids.length > 0) await boss.fail(name, ids) },
    wake () { for (const id of workerIds) boss.notifyWorker(id) },
    async stop () {
      try { await boss.stop({ graceful: true, wait: true, close: false, timeout: 30_000 }) } finally { stopped = true }
    }
  }
}
