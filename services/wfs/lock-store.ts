// The WFS locks' store (LockFeature, GetFeatureWithLock, Transaction with a LockId), in the catalog
// database so that every instance sharing it sees the same locks: sqlite-lock-store.ts and
// pg-lock-store.ts. A lock past its expiry holds nothing: its features may be locked again, and a
// Transaction naming it is told it expired.

/** A feature as locks name it: its type (`ws:name`) and its id as GetFeature writes it (`name.id`). */
export interface LockedFeature { type: string, fid: string }

export type LockState = 'live' | 'expired' | 'unknown'

/** What a Transaction asks of the locks (WfsLockStore's reads and release). */
export interface WfsLockReads {
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

export interface WfsLockStore extends WfsLockReads {
  /**
   * One new lock, in one transaction: each feature not held by another live lock is taken by
   * `lockId`, which expires at `expiresAt` (ms). `all`: when one is held, nothing is taken (and no
   * lock made). Locks expired long ago go.
   */
  acquire (lockId: string, features: LockedFeature[], all: boolean, now: number, expiresAt: number): Promise<{ locked: LockedFeature[], notLocked: LockedFeature[] }>
  /**
   * Runs `fn` while no lock can be taken on a feature of these types (an `acquire` naming one waits
   * until `fn` is done, on every instance sharing the store), with the reads and release of the
   * locks to use meanwhile (PostgreSQL: on the guard's own connection and transaction, committed
   * when `fn` returns, rolled back when it throws). A Transaction checks the locks and writes to
   * the data's database under it: the two databases share no transaction, and the guard is what
   * keeps a lock from being taken between the check and the write.
   */
  guard<T> (types: string[], fn: (locks: WfsLockReads) => Promise<T>): Promise<T>
}

/** How long an expired lock is remembered (to answer LockHasExpired rather than InvalidLockId). */
export const EXPIRED_KEPT_MS = 24 * 3600 * 1000
