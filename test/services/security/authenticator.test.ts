// Auth hardening in services/auth/authenticator.ts: failures slow the next attempt per address and
// per user name, delayed attempts are capped (429), successes and other callers are not slowed,
// and invalidate(user) forgets one user's cached checks. The clock and the sleep are injected.
import t from 'tap'
import { openDatabase } from '../../../services/storage/sqlite/database.js'
import { createSqliteUserStore } from '../../../services/auth/sqlite-store.js'
import { hashPassword } from '../../../services/auth/passwords.js'
import { createAuthenticator } from '../../../services/auth/authenticator.js'
import { isMapwardenError } from '../../../services/errors.js'
import { tempDir, type TestLike } from '../../helper.js'

async function setup (t: TestLike, sleep: (ms: number) => Promise<void>) {
  const db = openDatabase(tempDir(t))
  const users = createSqliteUserStore(db)
  await users.insert({ name: 'admin', passwordHash: await hashPassword('admin-password'), enabled: true, roles: ['ADMIN'] })
  await users.insert({ name: 'bob', passwordHash: await hashPassword('bob-password'), enabled: true, roles: [] })
  const failures: Array<{ user: string, address: string, failures: number }> = []
  const auth = createAuthenticator({ users, cacheSeconds: 60, sleep, onFailure: (f) => failures.push(f) })
  t.teardown(() => { auth.close(); db.close() })
  return { auth, users, failures }
}

t.test('failures from one address grow the delay; other addresses and users are not slowed', async (t) => {
  const slept: number[] = []
  const { auth } = await setup(t, async (ms) => { slept.push(ms) })
  for (let i = 0; i < 6; i++) t.equal(await auth.authenticate('admin', 'wrong', '10.0.0.1'), undefined)
  t.same(slept, [250, 500, 1000], 'three free mistakes, then 250 ms doubling')
  slept.length = 0
  t.ok(await auth.authenticate('bob', 'bob-password', '10.0.0.2'), 'another user from another address')
  t.same(slept, [])
  t.ok(await auth.authenticate('admin', 'admin-password', '10.0.0.1'), 'the right password still works, after the delay')
  t.same(slept, [2000])
  slept.length = 0
  t.ok(await auth.authenticate('admin', 'admin-password', '10.0.0.1'), 'cached')
  t.equal(await auth.authenticate('admin', 'wrong', '10.0.0.1'), undefined)
  t.same(slept, [], 'a success resets the counters')
})

t.test('failures for one user name slow attempts on that name from any address, known or not', async (t) => {
  const slept: number[] = []
  const { auth, failures } = await setup(t, async (ms) => { slept.push(ms) })
  for (let i = 0; i < 3; i++) await auth.authenticate('admin', `guess${i}`, `10.0.1.${i}`)
  t.same(slept, [], 'three free mistakes')
  await auth.authenticate('admin', 'guess', '10.0.2.1')
  t.same(slept, [250], 'a new address does not help: the user name is counted')
  slept.length = 0
  t.ok(await auth.authenticate('bob', 'bob-password', '10.0.2.9'))
  t.same(slept, [], 'other users are unaffected')
  for (let i = 0; i < 5; i++) await auth.authenticate('nosuchuser', 'x', `10.0.3.${i}`)
  t.same(slept, [250, 500], 'unknown names are throttled the same way')
  t.same(failures.filter((f) => f.user === 'nosuchuser').map((f) => f.failures), [1, 2, 3, 4, 5])
})

t.test('delayed attempts are capped per address: past the cap the answer is 429 at once', async (t) => {
  const waiting: Array<() => void> = []
  const { auth } = await setup(t, () => new Promise<void>((resolve) => { waiting.push(resolve) }))
  for (let i = 0; i < 3; i++) await auth.authenticate('admin', 'wrong', '10.0.0.7')
  const pending = Array.from({ length: 8 }, () => auth.authenticate('admin', 'wrong', '10.0.0.7'))
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(waiting.length, 8)
  try {
    await auth.authenticate('admin', 'wrong', '10.0.0.7')
    t.fail('expected a refusal')
  } catch (err) {
    t.ok(isMapwardenError(err) && err.kind === 'busy', '429')
  }
  for (const w of waiting) w()
  t.same(await Promise.all(pending), new Array(8).fill(undefined))
})

t.test('invalidate(user) forgets that user only', async (t) => {
  const { auth, users } = await setup(t, async () => {})
  t.ok(await auth.authenticate('admin', 'admin-password', '10.0.0.1'))
  t.ok(await auth.authenticate('bob', 'bob-password', '10.0.0.1'))
  await users.update('admin', { passwordHash: await hashPassword('changed-password') })
  await users.update('bob', { passwordHash: await hashPassword('changed-password') })
  auth.invalidate('bob')
  t.ok(await auth.authenticate('admin', 'admin-password', '10.0.0.1'), 'admin still cached')
  t.equal(await auth.authenticate('bob', 'bob-password', '10.0.0.1'), undefined, 'bob re-checked')
  auth.invalidate()
  t.equal(await auth.authenticate('admin', 'admin-password', '10.0.0.1'), undefined)
})
