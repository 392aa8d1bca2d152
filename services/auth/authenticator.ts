// Checks Basic credentials. A verified (user, password) pair is remembered for a short time under
// an HMAC of the pair, so the deliberately slow scrypt does not cap request throughput; a changed
// password, enabled flag or role set takes effect at once through invalidate(user).
// Failed attempts are counted per client address AND per user name (known or not, so the answer
// does not tell which names exist); the next uncached attempt from that address or for that name
// waits a growing delay first. Delayed attempts are capped, per address and in total: past the cap
// the answer is 429 at once, so an attacker cannot pile up sleeping requests. Cached successes and
// other users from other addresses are not slowed.
import { createHmac, randomBytes } from 'node:crypto'
import type { UserStore } from './store.js'
import { ANONYMOUS_ROLE } from './roles.js'
import { DUMMY_HASH_PROMISE, verifyPassword } from './passwords.js'
import { TooManyAuthFailures } from '../errors.js'

export interface Principal { name: string, roles: string[], anonymous: boolean }
export const ANONYMOUS: Principal = Object.freeze({ name: 'anonymous', roles: [ANONYMOUS_ROLE], anonymous: true }) as Principal

export interface AuthenticatorDeps {
  users: UserStore
  cacheSeconds: number
  now?: () => number
  sleep?: (ms: number) => Promise<void>
  onFailure?: (info: { user: string, address: string, failures: number, delayMs: number }) => void
}

const MAX_DELAY_MS = 5000
const MAX_DELAYED = 64        // concurrent delayed attempts, all addresses together
const MAX_DELAYED_PER_ADDRESS = 8
const MAX_TRACKED = 100_000   // failure records kept; past it the oldest are dropped (bounded memory)
const FORGET_AFTER_MS = 15 * 60 * 1000

export function failureDelayMs (failures: number): number {
  // Three free mistakes, then 250 ms doubling up to 5 s.
  return failures < 3 ? 0 : Math.min(MAX_DELAY_MS, 250 * 2 ** (failures - 3))
}

export function createAuthenticator (deps: AuthenticatorDeps) {
  const now = deps.now ?? Date.now
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref()))
  const key = randomBytes(32)
  const cache = new Map<string, { principal: Principal, expires: number }>()
  // Keys: 'a:<address>' and 'u:<user name>'.
  const failures = new Map<string, { count: number, last: number }>()
  const delayedByAddress = new Map<string, number>()
  let delayed = 0
  const inflight = new Map<string, Promise<{ record: Awaited<ReturnType<UserStore['get']>>, ok: boolean }>>()
  const count = (k: string) => failures.get(k)?.count ?? 0
  const fail = (k: string) => {
    const n = count(k) + 1
    if (n === 1 && failures.size >= MAX_TRACKED) failures.delete(failures.keys().next().value as string)
    failures.set(k, { count: n, last: now() })
    return n
  }

  const cacheKey = (user: string, password: string) =>
    createHmac('sha256', key).update(user).update('\0').update(password).digest('base64')

  function prune () {
    const t = now()
    for (const [k, v] of cache) if (v.expires <= t) cache.delete(k)
    for (const [k, v] of failures) if (t - v.last > FORGET_AFTER_MS) failures.delete(k)
  }
  const pruneTimer = setInterval(prune, 60_000)
  pruneTimer.unref()

  return {
    /** The principal of a recently verified pair, without any slow work; undefined on a miss. */
    cached (user: string, password: string): Principal | undefined {
      const hit = cache.get(cacheKey(user, password))
      return hit && hit.expires > now() ? hit.principal : undefined
    },
    /** Resolves the principal, or undefined for wrong credentials (never says which part was wrong). */
    async authenticate (user: string, password: string, address: string): Promise<Principal | undefined> {
      const k = cacheKey(user, password)
      const hit = cache.get(k)
      if (hit && hit.expires > now()) return hit.principal

      const byAddress = `a:${address}`
      const byUser = `u:${user}`
      const wait = Math.max(failureDelayMs(count(byAddress)), failureDelayMs(count(byUser)))
      if (wait > 0) {
        const mine = delayedByAddress.get(address) ?? 0
        if (delayed >= MAX_DELAYED || mine >= MAX_DELAYED_PER_ADDRESS) throw TooManyAuthFailures()
        delayed++
        delayedByAddress.set(address, mine + 1)
        try { await sleep(wait) } finally {
          delayed--
          const left = (delayedByAddress.get(address) ?? 1) - 1
          if (left > 0) delayedByAddress.set(address, left)
          else delayedByAddress.delete(address)
        }
      }

      // Identical checks already under way share their scrypt: a burst of requests with the same
      // header (a client's first requests, before the cache has the pair) costs one computation.
      let check = inflight.get(k)
      if (!check) {
        check = (async () => {
          const record = await deps.users.get(user)
          // Unknown users cost one scrypt too, so timing does not tell which names exist.
          const ok = await verifyPassword(password, record?.passwordHash ?? await DUMMY_HASH_PROMISE)
          return { record, ok }
        })()
        inflight.set(k, check)
        check.finally(() => inflight.delete(k)).catch(() => {})
      }
      const { record, ok } = await check
      if (!ok || !record || !record.enabled) {
        const n = Math.max(fail(byAddress), fail(byUser))
        deps.onFailure?.({ user, address, failures: n, delayMs: failureDelayMs(n) })
        return undefined
      }
      failures.delete(byAddress)
      failures.delete(byUser)
      const principal: Principal = { name: record.name, roles: record.roles, anonymous: false }
      if (deps.cacheSeconds > 0) cache.set(k, { principal, expires: now() + deps.cacheSeconds * 1000 })
      return principal
    },
    /** Forget cached checks: of one user (after its password, enabled flag or roles change), or all. */
    invalidate (user?: string) {
      if (user === undefined) { cache.clear(); return }
      for (const [k, v] of cache) if (v.principal.name === user) cache.delete(k)
    },
    close () { clearInterval(pruneTimer) }
  }
}
export type Authenticator = ReturnType<typeof createAuthenticator>
