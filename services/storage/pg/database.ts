// The PostgreSQL catalog (node-postgres pool), for MAPWARDEN_DATABASE_URL. Several instances share
// one database: migrations run once, under a cluster-wide advisory lock, whichever node starts
// first; every write that is one transaction in SQLite is one here (`transaction`), retried when
// PostgreSQL reports a serialization failure or a deadlock, so concurrent nodes never see a
// half-applied change and a conflict is not an error for the client.
import pg from 'pg'
import type { Migration } from '../migrations.js'
import type { ClaimOptions } from '../../seed/seed-queue.js'

export type PgPool = pg.Pool
export type PgClient = pg.PoolClient

/** Advisory-lock keys: mapwarden's namespace, then one number per cluster-wide lock. */
const LOCK_NAMESPACE = 0x6d77 // 'mw'
const LOCKS = { migrations: 1, startup: 2, quotaCleanup: 3, seedSlots: 10 } as const
/** Advisory-lock namespace of keyed locks (a metatile's): the second key is the text's hash. */
const KEYED_NAMESPACE = 0x6d78 // 'mx'

/** A cluster-wide lock: one of mapwarden's named locks, or one named by any text (a WFS type's
 *  guard), hashed into the keyed locks' namespace (createKeyedLock's metatile locks). */
export type LockKey = keyof typeof LOCKS | { text: string }
const lockArgs = (key: LockKey): { sql: string, params: unknown[] } => typeof key === 'string'
  ? { sql: '$1, $2', params: [LOCK_NAMESPACE, LOCKS[key]] }
  : { sql: '$1, hashtext($2)', params: [KEYED_NAMESPACE, key.text] }

/** Takes a cluster-wide lock until the end of the client's transaction. */
export async function lockInTransaction (client: PgClient, key: LockKey): Promise<void> {
  const { sql, params } = lockArgs(key)
  await client.query(`SELECT pg_advisory_xact_lock(${sql})`, params)
}

export interface PgDatabase {
  pool: PgPool
  /**
   * A connection of the pool for several statements. While it is out, a connection lost between two
   * statements is reported by the next one (an unheard 'error' event would end the process);
   * release it with `broken` true when it must not be reused.
   */
  checkout (): Promise<{ client: PgClient, release (broken?: boolean): void }>
  /** Runs `fn` in one transaction (READ COMMITTED unless `serializable`), retried on conflicts. */
  transaction<T> (fn: (client: PgClient) => Promise<T>, opts?: { serializable?: boolean }): Promise<T>
  /** One statement outside a transaction. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow> (sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>
  /** One statement that is its own transaction (a function doing several steps), retried on conflicts as `transaction` is. */
  retrying<R extends pg.QueryResultRow = pg.QueryResultRow> (sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>
  close (): Promise<void>
}

const RETRYABLE = new Set(['40001', '40P01']) // serialization_failure, deadlock_detected
const MAX_ATTEMPTS = 30

/** Whether a failed unit of work is tried again (a conflict, attempts left); waits before it if so. */
async function retryable (err: unknown, attempt: number): Promise<boolean> {
  const code = (err as { code?: string }).code
  if (code === undefined || !RETRYABLE.has(code) || attempt >= MAX_ATTEMPTS) return false
  // Full jitter, growing: contenders spread out instead of colliding again.
  await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(5 * 2 ** attempt, 500)))
  return true
}

export interface PgOptions {
  /** Connections this process keeps (default 10). */
  max?: number
  /** Milliseconds to wait for a connection before a request fails (default 5000). */
  connectionTimeoutMs?: number
  onError?: (err: Error) => void
}

// BIGINT columns (ids, byte counts, times in ms) read as numbers, as SQLite's integers do: every
// value the catalog keeps is below 2^53. Set on this pool only, not on the pg module globally.
const int8 = (v: string) => Number(v)
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => oid === 20 ? int8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser
}

export function connectPg (url: string, { max = 10, connectionTimeoutMs = 5000, onError = () => {} }: PgOptions = {}): PgDatabase {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: connectionTimeoutMs, application_name: 'mapwarden', types })
  // An idle client whose server went away: the pool drops it; the next query reconnects.
  pool.on('error', onError)
  // A connection checked out is told of its loss by its next statement. Its 'error' event needs a
  // listener from the moment the pool hands it out: the server's termination notice can arrive in
  // the same packet as the connection's first ready-for-query, before the caller could listen.
  const ignore = () => {}
  pool.on('connect', (client) => { client.on('error', ignore) })
  const checkout = async () => {
    const client = await pool.connect()
    return { client, release (broken = false) { client.release(broken) } }
  }
  return {
    pool,
    checkout,
    query: (sql, params) => pool.query(sql, params),
    async retrying (sql, params) {
      for (let attempt = 1; ; attempt++) {
        try { return await pool.query(sql, params) } catch (err) {
          if (!(await retryable(err, attempt))) throw err
        }
      }
    },
    async transaction (fn, opts = {}) {
      for (let attempt = 1; ; attempt++) {
        const { client, release } = await checkout()
        let broken = false
        try {
          await client.query(opts.serializable ? 'BEGIN ISOLATION LEVEL SERIALIZABLE' : 'BEGIN')
          const out = await fn(client)
          await client.query('COMMIT')
          return out
        } catch (err) {
          try { await client.query('ROLLBACK') } catch { broken = true }
          if (await retryable(err, attempt)) continue
          throw err
        } finally {
          release(broken)
        }
      }
    },
    close: () => pool.end()
  }
}

/**
 * Applies, in order and each in its own transaction, the migrations not yet recorded. A
 * transaction-level advisory lock makes concurrent starts wait for each other: the first applies,
 * the others find them recorded.
 */
export async function migratePg (db: PgDatabase, migrations: Migration[]): Promise<string[]> {
  return await db.transaction(async (c) => {
    await lockInTransaction(c, 'migrations')
    await c.query('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())')
    const done = new Set((await c.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id))
    const applied: string[] = []
    for (const m of migrations) {
      if (done.has(m.id)) continue
      await c.query(m.sql)
      await c.query('INSERT INTO schema_migrations (id) VALUES ($1)', [m.id])
      applied.push(m.id)
    }
    return applied
  })
}

/**
 * Runs `fn` holding a cluster-wide lock: a session advisory lock on a connection of its own,
 * released by PostgreSQL if this process dies. `wait`: queue for the lock; otherwise, when another
 * instance holds it, resolve at once with `{ got: false }`.
 */
async function locked<T> (db: PgDatabase, key: LockKey, wait: boolean, fn: () => Promise<T>): Promise<{ got: true, value: T } | { got: false }> {
  const { client, release } = await db.checkout()
  const { sql, params } = lockArgs(key)
  let broken = false
  try {
    if (wait) await client.query(`SELECT pg_advisory_lock(${sql})`, params)
    else if (!(await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${sql}) AS ok`, params)).rows[0].ok) return { got: false }
    try { return { got: true, value: await fn() } } finally {
      await client.query(`SELECT pg_advisory_unlock(${sql})`, params).catch(() => { broken = true })
    }
  } finally {
    release(broken)
  }
}

/** Runs `fn` holding the cluster-wide lock, waiting for it while another instance holds it. */
export async function withClusterLock<T> (db: PgDatabase, key: LockKey, fn: () => Promise<T>): Promise<T> {
  return ((await locked(db, key, true, fn)) as { value: T }).value
}

/** Runs `fn` unless another instance holds the lock (then undefined, at once). */
export async function ifFirst<T> (db: PgDatabase, lock: keyof typeof LOCKS, fn: () => Promise<T>): Promise<T | undefined> {
  const r = await locked(db, lock, false, fn)
  return r.got ? r.value : undefined
}


/**
 * Locks named by any text (a metatile's), each taken in one round trip: a session advisory lock on
 * a connection of `db`'s pool, released by PostgreSQL if this process dies. A connection whose lock
 * is no longer needed keeps it until the next lock is asked for (the next metatile of a seed chunk
 * follows at once): then one statement releases the old lock and takes the new one, in that order,
 * so a connection holds at most one lock while it waits for another (no deadlock). If nothing asks
 * by the next turn of the event loop, the lock is released on its own and the connection goes back.
 * A seed waits for a lock in PostgreSQL (`run`); a request that missed the cache waits without a
 * connection and for a bounded time (`claim`).
 */
export function createKeyedLock (db: PgDatabase) {
  interface Session { client: PgClient, release (broken?: boolean): void, key: string }
  const spare: Session[] = []
  const idleTimers = new Map<Session, NodeJS.Immediate>()

  async function unlock (s: Session): Promise<void> {
    try {
      await s.client.query(`SELECT pg_advisory_unlock(${KEYED_NAMESPACE}, hashtext($1))`, [s.key])
      s.release()
    } catch { s.release(true) } // its session ends: PostgreSQL releases what it held
  }

  function setAside (s: Session): void {
    spare.push(s)
    idleTimers.set(s, setImmediate(() => {
      idleTimers.delete(s)
      const i = spare.indexOf(s)
      if (i >= 0) { spare.splice(i, 1); void unlock(s) }
    }))
  }

  async function take (key: string): Promise<Session> {
    const s = spare.pop()
    if (s) {
      clearImmediate(idleTimers.get(s))
      idleTimers.delete(s)
      try {
        // The subquery (OFFSET 0: not flattened) runs first: the old lock goes before the new one is waited for.
        await s.client.query(`SELECT pg_advisory_lock(${KEYED_NAMESPACE}, hashtext($2)) FROM (SELECT pg_advisory_unlock(${KEYED_NAMESPACE}, hashtext($1)) OFFSET 0) u`, [s.key, key])
      } catch (err) { s.release(true); throw err }
      s.key = key
      return s
    }
    const { client, release } = await db.checkout()
    try {
      await client.query(`SELECT pg_advisory_lock(${KEYED_NAMESPACE}, hashtext($1))`, [key])
    } catch (err) { release(true); throw err }
    return { client, release, key }
  }

  /**
   * The lock of `key` if nobody holds it, in one round trip (a spare connection's old lock released
   * in the same statement); 'held', the connection back in the pool, if somebody does. The wait for
   * a connection is bounded by `deadline` ('late' past it).
   */
  async function attempt (key: string, deadline: number): Promise<Session | 'held' | 'late'> {
    let s = spare.pop()
    const fresh = !s
    if (s) {
      clearImmediate(idleTimers.get(s))
      idleTimers.delete(s)
    } else {
      // The lock pool may be all out (each render holds one connection while it runs): wait for
      // one no longer than the claim may wait; a connection that comes later goes straight back.
      const out = db.checkout()
      let late = () => {}
      const timer = setTimeout(() => { late() }, Math.max(0, deadline - Date.now()))
      const got = await Promise.race([out, new Promise<undefined>((resolve) => { late = () => { resolve(undefined) } })])
      clearTimeout(timer)
      if (!got) { out.then((c) => c.release(), () => {}); return 'late' }
      s = { ...got, key }
    }
    let ok: boolean
    try {
      ok = (await (fresh
        ? s.client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${KEYED_NAMESPACE}, hashtext($1)) AS ok`, [key])
        // (The subquery, OFFSET 0: not flattened, runs first: the old lock goes before the new one is
        // tried, and a lock held again is held once, not twice.)
        : s.client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${KEYED_NAMESPACE}, hashtext($2)) AS ok FROM (SELECT pg_advisory_unlock(${KEYED_NAMESPACE}, hashtext($1)) OFFSET 0) u`, [s.key, key]))).rows[0].ok
    } catch (err) { s.release(true); throw err }
    if (!ok) { s.release(); return 'held' } // it holds nothing now
    s.key = key
    return s
  }

  return {
    /**
     * Runs `fn(true)` holding the lock of `key`. While another session holds it, the wait holds no
     * connection: the lock is tried again after a pause growing from 5 to 100 ms (jittered), each
     * try one round trip on a connection borrowed for it; past `waitMs`, `fn(false)` runs without
     * the lock. A holder that dies takes its lock with its session, so the wait ends at the next try.
     */
    async claim<T> (key: string, { waitMs, onWait }: ClaimOptions, fn: (held: boolean) => Promise<T>): Promise<T> {
      const deadline = Date.now() + waitMs
      let waited = false
      for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
        const s = await attempt(key, deadline)
        if (typeof s === 'object') {
          try { return await fn(true) } finally { setAside(s) }
        }
        if (s === 'held' && !waited) { waited = true; onWait?.('waited') }
        if (s === 'late' || Date.now() >= deadline) { onWait?.('timedOut'); return await fn(false) }
        await new Promise((resolve) => setTimeout(resolve, Math.min(pause * (0.5 + Math.random()), Math.max(0, deadline - Date.now()))))
      }
    },
    /** Runs `fn` holding the lock of `key`; two texts may share a hash: then they only wait for each other. */
    async run<T> (key: string, fn: () => Promise<T>): Promise<T> {
      const s = await take(key)
      try { return await fn() } finally { setAside(s) }
    },
    /** Releases the locks set aside now (before the pool closes). */
    async flush (): Promise<void> {
      const all = spare.splice(0)
      for (const s of all) { clearImmediate(idleTimers.get(s)); idleTimers.delete(s) }
      await Promise.all(all.map(unlock))
    }
  }
}
