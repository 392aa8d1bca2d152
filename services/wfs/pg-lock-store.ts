// The PostgreSQL WFS lock store, which every instance shares. A feature is taken with an upsert that
// only overwrites a row of an expired lock: under READ COMMITTED the conflicting row is locked and
// re-read, so two instances locking the same feature at once cannot both get it. The guard of a
// type (a Transaction's check and write) is a transaction-level advisory lock on the type's name,
// which `acquire` takes too for the types it locks, both in name order (no deadlock between them).
import type pg from 'pg'
import { lockInTransaction, type PgClient, type PgDatabase } from '../storage/pg/database.js'
import { EXPIRED_KEPT_MS, type LockedFeature, type WfsLockReads, type WfsLockStore } from './lock-store.js'

class NotAll extends Error {}

type Query = <R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params: unknown[]) => Promise<pg.QueryResult<R>>

/** The advisory locks of the types' guards, in name order, until the end of the client's transaction. */
async function guardTypes (c: PgClient, types: string[]): Promise<void> {
  for (const type of [...new Set(types)].sort()) await lockInTransaction(c, { text: `wfs-lock-type:${type}` })
}

/** The reads and release through `query`; `transaction` runs the release's statements as one. */
function readsOn (query: Query, transaction: <T>(fn: (q: Query) => Promise<T>) => Promise<T>): WfsLockReads {
  return {
    async anyHeld (types, now) {
      if (types.length === 0) return false
      const r = await query(`SELECT 1 FROM wfs_locked_features f JOIN wfs_locks l ON l.lock_id = f.lock_id
        WHERE l.expires_at > $1 AND f.type = ANY($2::text[]) LIMIT 1`, [now, types])
      return (r.rowCount ?? 0) > 0
    },
    async holders (features, now) {
      if (features.length === 0) return []
      const r = await query<{ type: string, fid: string, lock_id: string }>(
        `SELECT f.type, f.fid, f.lock_id FROM wfs_locked_features f JOIN wfs_locks l ON l.lock_id = f.lock_id
         WHERE l.expires_at > $1 AND (f.type, f.fid) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
        [now, features.map((f) => f.type), features.map((f) => f.fid)])
      return r.rows.map((x) => ({ type: x.type, fid: x.fid, lockId: x.lock_id }))
    },
    async state (lockId, now) {
      const r = await query<{ expires_at: string | number }>('SELECT expires_at FROM wfs_locks WHERE lock_id = $1', [lockId])
      if (r.rows.length === 0) return 'unknown'
      return Number(r.rows[0].expires_at) > now ? 'live' : 'expired'
    },
    async release (lockId, features, _now, expiresAt) {
      await transaction(async (q) => {
        if (features === 'all') { await q('DELETE FROM wfs_locks WHERE lock_id = $1', [lockId]); return }
        if (features.length > 0) {
          await q('DELETE FROM wfs_locked_features WHERE lock_id = $1 AND (type, fid) IN (SELECT * FROM unnest($2::text[], $3::text[]))',
            [lockId, features.map((f) => f.type), features.map((f) => f.fid)])
        }
        if (expiresAt !== undefined) await q('UPDATE wfs_locks SET expires_at = $1 WHERE lock_id = $2', [expiresAt, lockId])
      })
    }
  }
}

export function createPgWfsLockStore (db: PgDatabase): WfsLockStore {
  const onPool: Query = async (sql, params) => await db.query(sql, params)
  return {
    ...readsOn(onPool, async (fn) => await db.transaction(async (c) => await fn(async (sql, params) => await c.query(sql, params)))),
    async acquire (lockId, features, all, now, expiresAt) {
      try {
        return await db.transaction(async (c) => {
          await guardTypes(c, features.map((f) => f.type))
          await c.query('DELETE FROM wfs_locks WHERE expires_at <= $1', [now - EXPIRED_KEPT_MS])
          await c.query('INSERT INTO wfs_locks (lock_id, expires_at, created_at) VALUES ($1, $2, $3)', [lockId, expiresAt, now])
          const locked: LockedFeature[] = []
          const notLocked: LockedFeature[] = []
          for (const f of features) {
            const r = await c.query(`INSERT INTO wfs_locked_features (type, fid, lock_id) VALUES ($1, $2, $3)
              ON CONFLICT (type, fid) DO UPDATE SET lock_id = EXCLUDED.lock_id
              WHERE NOT EXISTS (SELECT 1 FROM wfs_locks l WHERE l.lock_id = wfs_locked_features.lock_id AND l.expires_at > $4)`,
            [f.type, f.fid, lockId, now])
            ;(r.rowCount === 1 ? locked : notLocked).push(f)
          }
          if (all && notLocked.length > 0) throw new NotAll(JSON.stringify(notLocked))
          return { locked, notLocked }
        })
      } catch (err) {
        if (err instanceof NotAll) return { locked: [], notLocked: JSON.parse(err.message) as LockedFeature[] }
        throw err
      }
    },
    async guard (types, fn) {
      // Not db.transaction: it runs its function again on a conflict, and this one writes to the
      // data's database. The statements here only read and delete lock rows behind the advisory
      // locks, taken in name order by every holder: nothing here waits in a cycle.
      const { client, release } = await db.checkout()
      let broken = false
      try {
        await client.query('BEGIN')
        try {
          await guardTypes(client, types)
          const q: Query = async (sql, params) => await client.query(sql, params)
          const out = await fn(readsOn(q, async (inner) => await inner(q)))
          await client.query('COMMIT')
          return out
        } catch (err) {
          await client.query('ROLLBACK').catch(() => { broken = true })
          throw err
        }
      } finally { release(broken) }
    }
  }
}
