// WFS locking (serviceLevel COMPLETE): LockFeature and GetFeatureWithLock take a lock on the features
// their queries match, of types the caller may write (locking is writing: the layer rules' `w`);
// a Transaction changing a feature another live lock holds is refused unless it names that lock
// (its LockId), and releases the lock (releaseAction ALL) or the features it changed (SOME) once
// committed. Locks live in the catalog database (lock-store.ts), so every instance sharing it honours
// them; a lock past its expiry (2.0.0: seconds, 1.x: minutes) holds nothing. A Transaction's check
// and write run under the lock store's guard of its types (`guarded`): no lock comes between them.
import { randomUUID } from 'node:crypto'
import type { Principal } from '../auth/authenticator.js'
import { WfsCannotLockAll, WfsFeatureLocked, WfsInvalidLockId, WfsLockExpired } from '../errors.js'
import type { LockedFeature, WfsLockReads, WfsLockStore } from './lock-store.js'
import type { FeatureRequest, LockParams, WfsVersion } from './request.js'
import type { ServedType, Where } from './wfs-context.js'
import { escapeXml } from '../xml-escape.js'

const x = (s: string) => escapeXml(s)
const listed = (fs: LockedFeature[]) => fs.slice(0, 20).map((f) => f.fid).join(', ') + (fs.length > 20 ? `... (${fs.length})` : '')

export interface LockDeps {
  locks: WfsLockStore
  /** The clock locks expire by (ms). */
  now: () => number
}

export interface LockOutcome { lockId: string, locked: LockedFeature[], notLocked: LockedFeature[] }

type Targets = (req: FeatureRequest, principal: Principal | undefined, where: Where, paged: boolean) => Promise<Array<{ t: ServedType, fids: string[] }>>

export function lockOperations (deps: LockDeps, targets: Targets) {
  /** A new lock on what the request's queries match; lockAction ALL refuses with CannotLockAllFeatures when one is held. */
  async function lock (req: FeatureRequest, params: LockParams, principal: Principal | undefined, where: Where, paged: boolean): Promise<LockOutcome> {
    const features = (await targets(req, principal, where, paged)).flatMap(({ t, fids }) => fids.map((fid) => ({ type: t.qualified, fid })))
    const lockId = `GeoServer_${randomUUID().replace(/-/g, '').slice(0, 20)}`
    const now = deps.now()
    const r = await deps.locks.acquire(lockId, features, params.all, now, now + params.expiryMs)
    if (params.all && r.notLocked.length > 0) throw WfsCannotLockAll(listed(r.notLocked))
    return { lockId, ...r }
  }

  /** A Transaction's use of the locks, through `locks` (the guard's). */
  const transactionLocks = (locks: WfsLockReads) => ({
    /** Whether a Transaction must know which features it changes: it names a lock, or one of its types has locked features. */
    async mustCheck (lockId: string | undefined, types: string[]): Promise<boolean> {
      return lockId !== undefined || await locks.anyHeld(types, deps.now())
    },
    /**
     * Before a Transaction writes: its LockId (when it names one) is live, and no feature it changes is
     * held by another live lock.
     */
    async checkTransaction (lockId: string | undefined, changed: LockedFeature[]): Promise<void> {
      const now = deps.now()
      if (lockId !== undefined) {
        const state = await locks.state(lockId, now)
        if (state === 'expired') throw WfsLockExpired(lockId)
        if (state === 'unknown') throw WfsInvalidLockId(lockId)
      }
      const held = (await locks.holders(changed, now)).filter((h) => h.lockId !== lockId)
      if (held.length > 0) throw WfsFeatureLocked(listed(held), lockId === undefined ? 'none given' : `${lockId} is not it`)
    },
    /** After a Transaction's write: releaseAction ALL releases its lock, SOME the features it changed. */
    async afterTransaction (lockId: string | undefined, all: boolean, changed: LockedFeature[]): Promise<void> {
      if (lockId === undefined) return
      await locks.release(lockId, all ? 'all' : changed, deps.now())
    }
  })
  type TransactionLocks = ReturnType<typeof transactionLocks>

  /**
   * A Transaction's lock check, its write and its release as one step for the locks: `fn` runs under
   * the store's guard of the types it updates or deletes in (no lock can be taken on them from the
   * check until the write is done, on any instance); the locks and the data are in two databases
   * with no transaction across them, so the guard, not a transaction, makes the check and the write
   * atomic for the locks. A Transaction that only inserts and names no lock needs no guard.
   */
  async function guarded<T> (lockId: string | undefined, types: string[], fn: (locks: TransactionLocks) => Promise<T>): Promise<T> {
    if (lockId === undefined && types.length === 0) return await fn(transactionLocks(deps.locks))
    return await deps.locks.guard(types, async (locks) => await fn(transactionLocks(locks)))
  }

  return { lock, guarded }
}

/** The LockFeatureResponse of each version, as GeoServer writes it. */
export function lockResponse (version: WfsVersion, o: LockOutcome): string {
  if (version === '2.0.0') {
    const ids = (fs: LockedFeature[]) => fs.map((f) => `<fes:ResourceId rid="${x(f.fid)}"/>`).join('')
    return '<?xml version="1.0" encoding="UTF-8"?><wfs:LockFeatureResponse xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:wfs="http://www.opengis.net/wfs/2.0" ' +
      `xmlns:fes="http://www.opengis.net/fes/2.0" lockId="${x(o.lockId)}" xsi:schemaLocation="http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd">` +
      (o.locked.length > 0 ? `<wfs:FeaturesLocked>${ids(o.locked)}</wfs:FeaturesLocked>` : '') +
      (o.notLocked.length > 0 ? `<wfs:FeaturesNotLocked>${ids(o.notLocked)}</wfs:FeaturesNotLocked>` : '') +
      '</wfs:LockFeatureResponse>\n'
  }
  const ids = (fs: LockedFeature[]) => fs.map((f) => `<ogc:FeatureId fid="${x(f.fid)}"/>`).join('')
  if (version === '1.1.0') {
    return '<?xml version="1.0" encoding="UTF-8"?><wfs:LockFeatureResponse xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:wfs="http://www.opengis.net/wfs" ' +
      'xmlns:ogc="http://www.opengis.net/ogc" xsi:schemaLocation="http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.1.0/wfs.xsd">' +
      `<wfs:LockId>${x(o.lockId)}</wfs:LockId>` +
      (o.locked.length > 0 ? `<wfs:FeaturesLocked>${ids(o.locked)}</wfs:FeaturesLocked>` : '') +
      (o.notLocked.length > 0 ? `<wfs:FeaturesNotLocked>${ids(o.notLocked)}</wfs:FeaturesNotLocked>` : '') +
      '</wfs:LockFeatureResponse>\n'
  }
  return '<?xml version="1.0" encoding="UTF-8"?><WFS_LockFeatureResponse xmlns="http://www.opengis.net/wfs" xmlns:ogc="http://www.opengis.net/ogc" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.0.0/WFS-transaction.xsd">' +
    `<LockId>${x(o.lockId)}</LockId>` +
    (o.locked.length > 0 ? `<FeaturesLocked>${ids(o.locked)}</FeaturesLocked>` : '') +
    (o.notLocked.length > 0 ? `<FeaturesNotLocked>${ids(o.notLocked)}</FeaturesNotLocked>` : '') +
    '</WFS_LockFeatureResponse>\n'
}
