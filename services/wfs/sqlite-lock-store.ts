// The SQLite WFS lock store: one process on the catalog, each change one transaction; the guard of
// a type (a Transaction's check and write) and the locks taken on it wait for each other in process.
import type { Db } from '../storage/sqlite/database.js'
import { createKeyedQueue } from '../keyed-queue.js'
import { EXPIRED_KEPT_MS, type LockedFeature, type WfsLockReads, type WfsLockStore } from './lock-store.js'

export function createSqliteWfsLockStore (db: Db): WfsLockStore {
  const q = {
    purge: db.prepare('DELETE FROM wfs_locks WHERE expires_at <= ?'),
    insertLock: db.prepare('INSERT INTO wfs_locks (lock_id, expires_at, created_at) VALUES (?, ?, ?)'),
    holder: db.prepare(`SELECT f.lock_id AS lockId FROM wfs_locked_features f JOIN wfs_locks l ON l.lock_id = f.lock_id
      WHERE f.type = ? AND f.fid = ? AND l.expires_at > ?`),
    take: db.prepare(`INSERT INTO wfs_locked_features (type, fid, lock_id) VALUES (?, ?, ?)
      ON CONFLICT (type, fid) DO UPDATE SET lock_id = excluded.lock_id`),
    state: db.prepare('SELECT expires_at FROM wfs_locks WHERE lock_id = ?').pluck(),
    dropLock: db.prepare('DELETE FROM wfs_locks WHERE lock_id = ?'),
    dropFeature: db.prepare('DELETE FROM wfs_locked_features WHERE lock_id = ? AND type = ? AND fid = ?'),
    refresh: db.prepare('UPDATE wfs_locks SET expires_at = ? WHERE lock_id = ?'),
    remaining: db.prepare('SELECT count(*) FROM wfs_locked_features WHERE lock_id = ?').pluck()
  }
  const acquire = db.transaction((lockId: string, features: LockedFeature[], all: boolean, now: number, expiresAt: number) => {
    q.purge.run(now - EXPIRED_KEPT_MS)
    const free = features.filter((f) => q.holder.get(f.type, f.fid, now) === undefined)
    const notLocked = features.filter((f) => !free.includes(f))
    if (all && notLocked.length > 0) return { locked: [], notLocked }
    q.insertLock.run(lockId, expiresAt, now)
    for (const f of free) q.take.run(f.type, f.fid, lockId)
    return { locked: free, notLocked }
  })
  const release = db.transaction((lockId: string, features: LockedFeature[] | 'all', expiresAt?: number) => {
    if (features === 'all') { q.dropLock.run(lockId); return }
    for (const f of features) q.dropFeature.run(lockId, f.type, f.fid)
    if (expiresAt !== undefined) q.refresh.run(expiresAt, lockId)
  })
  // One process works on the catalog: the guard is a queue per type in it, taken in name order.
  const queue = createKeyedQueue()
  const guarded = <T>(types: string[], fn: () => Promise<T>): Promise<T> => {
    const sorted = [...new Set(types)].sort()
    const at = (i: number): Promise<T> => i === sorted.length ? fn() : queue(sorted[i], () => at(i + 1))
    return at(0)
  }
  const reads: WfsLockReads = {
    async anyHeld (types, now) {
      if (types.length === 0) return false
      return db.prepare(`SELECT 1 FROM wfs_locked_features f JOIN wfs_locks l ON l.lock_id = f.lock_id
        WHERE l.expires_at > ? AND f.type IN (${types.map(() => '?').join(', ')}) LIMIT 1`).get(now, ...types) !== undefined
    },
    async holders (features, now) {
      return features.flatMap((f) => {
        const h = q.holder.get(f.type, f.fid, now) as { lockId: string } | undefined
        return h ? [{ ...f, lockId: h.lockId }] : []
      })
    },
    async state (lockId, now) {
      const at = q.state.get(lockId) as number | undefined
      return at === undefined ? 'unknown' : at > now ? 'live' : 'expired'
    },
    async release (lockId, features, _now, expiresAt) { release(lockId, features, expiresAt) }
  }
  return {
    ...reads,
    async acquire (lockId, features, all, now, expiresAt) {
      return await guarded(features.map((f) => f.type), async () => acquire(lockId, features, all, now, expiresAt))
    },
    async guard (types, fn) { return await guarded(types, async () => await fn(reads)) }
  }
}
