// The WFS locks' store (LockFeature, GetFeatureWithLock, Transaction with a LockId), in the catalog
// database so that every instance sharing it sees the same locks: sqlite-lock-store.ts and
// pg-lock-store.ts. A lock past its expiry holds nothing: its features may be locked again, and a
// Transaction naming it is told it expired.

/** A feature as locks name it: its type (`ws:name`) and its id as GetFeature writes it (`name.id`). */
export interface LockedFeature { type: string, fid: string }

export type LockState = 'live' | 'expired' | 'unknown'

export interface WfsLockStore {
  /**
   * One new lock, in one transaction: each feature not held by another live lock is taken by
   * `lockId`, which expires at `expiresAt` (ms). `all`: when one is held, nothing is taken (and no
   * lock made). Locks expired long ago go.
   */
  acquire (lockId: string, features: LockedFeature[], all: boolean, now: number, expiresAt: number): Promise<{ locked: LockedFeature[], notLocked: LockedFeature[] }>
  /** Whether a live lock holds a feature of any of these types (a Transaction without a LockId
   *  reads the ids of the features it changes only then). */
  anyHeld (types: string[], now: number): Promise<boolean>
  /** The live locks holding any of these features, by feature. */
  holders (features: LockedFeature[], now: number): Promise<Array<LockedFeature & { lockId: string }>>
  /** Whether a lock is live, past its expiry, or unknown (released, or never made). */
  state (lockId: string, now: number): Promise<LockState>
  /** Releases some of a lock's features (keeping the rest, its expiry set anew), or the whole lock. */
  release (lockId: string, features: LockedFeature[] | 'all', now: number, expiresAt?: number): Promise<void>
}

/** How long an expired lock is remembered (to answer LockHasExpired rather than InvalidLockId). */
export const EXPIRED_KEPT_MS = 24 * 3600 * 1000
