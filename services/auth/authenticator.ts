// Checks Basic credentials. A verified (user, password) pair is remembered for a short time under
// an HMAC of the pair, so the deliberately slow scrypt does not cap request throughput; the cache
// is keyed so that a changed password or role set takes effect when the entry expires or is
// invalidated. Failed attempts per client address are slowed down with a growing delay.
import { createHmac, randomBytes } from 'node:crypto'
import type { UserStore } from './users.js'
import { DUMMY_HASH_PROMISE, verifyPassword } from './passwords.js'
import { TooManyAuthFailures } from '../errors.js'

export interface Principal { name: string, roles: string[], anonymous: boolean }
export const ANONYMOUS: Principal = Object.freeze({ name: 'anonymous', roles: ['ROLE_ANONYMOUS'], anonymous: true }) as Principal

export interface AuthenticatorDeps {
  users: UserStore
  cacheSeconds: number
  now?: () => number
  sleep?: (ms: number) => Promise<void>
  onFailure?: (info: { user: string, address: string, failures: number, delayMs: number }) => void
}

const MAX_DELAY_MS = 5000
const MAX_DELAYED = 64        // concurrent delayed attempts, all addresses together
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
  const failures = new Map<string, { count: number, last: number }>()
  let delayed = 0

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

      const f = failures.get(address)
      const wait = failureDelayMs(f?.count ?? 0)
      if (wait > 0) {
        if (delayed >= MAX_DELAYED) throw TooManyAuthFailures()
        delayed++
        try { await sleep(wait) } finally { delayed-- }
      }

      const record = await deps.users.get(user)
      // Unknown users cost one scrypt too, so timing does not tell which names exist.
      const ok = await verifyPassword(password, record?.passwordHash ?? await DUMMY_HASH_PROMISE)
      if (!ok || !record || !record.enabled) {
        const count = (f?.count ?? 0) + 1
        failures.set(address, { count, last: now() })
        deps.onFailure?.({ user, address, failures: count, delayMs: failureDelayMs(count) })
        return undefined
      }
      failures.delete(address)
      const principal: Principal = { name: record.name, roles: record.roles, anonymous: false }
      if (deps.cacheSeconds > 0) cache.set(k, { principal, expires: now() + deps.cacheSeconds * 1000 })
      return principal
    },
    /** Forget cached checks (after a password or role change). */
    invalidate () { cache.clear() },
    close () { clearInterval(pruneTimer) }
  }
}
export type Authenticator = ReturnType<typeof createAuthenticator>
