import t from 'tap'
import { createAuthenticator, failureDelayMs } from '../../services/auth/authenticator.js'
import { hashPassword, verifyPassword } from '../../services/auth/passwords.js'
import { openDatabase } from '../../services/storage/database.js'
import { createSqliteUserStore } from '../../services/auth/users.js'
import { tempDir } from '../helper.js'

t.test('passwords are stored as salted scrypt hashes and verified in constant time', async (t) => {
  const a = await hashPassword('correct horse')
  const b = await hashPassword('correct horse')
  t.match(a, /^scrypt\$32768\$8\$1\$/)
  t.not(a, b, 'salted')
  t.notMatch(a, /correct/)
  t.equal(await verifyPassword('correct horse', a), true)
  t.equal(await verifyPassword('correct horsf', a), false)
  t.equal(await verifyPassword('x', 'not-a-hash'), false)
})

t.test('repeated failures from one address are slowed down; other addresses are not', async (t) => {
  const db = openDatabase(tempDir(t))
  t.teardown(() => db.close())
  const users = createSqliteUserStore(db)
  await users.insert({ name: 'admin', passwordHash: await hashPassword('right-password'), enabled: true, roles: ['ADMIN'] })
  const slept: number[] = []
  const failures: number[] = []
  const auth = createAuthenticator({ users, cacheSeconds: 0, sleep: async (ms) => { slept.push(ms) }, onFailure: (f) => failures.push(f.failures) })
  t.teardown(() => auth.close())
  for (let i = 0; i < 6; i++) t.equal(await auth.authenticate('admin', 'wrong', '10.0.0.1'), undefined)
  t.same(failures, [1, 2, 3, 4, 5, 6], 'each failure is reported (and logged by the app)')
  t.same(slept, [250, 500, 1000], 'no delay for the first three, then a growing one')
  t.ok(await auth.authenticate('admin', 'right-password', '10.0.0.2'), 'another address is not delayed')
  t.equal(slept.length, 3)
  t.ok(await auth.authenticate('admin', 'right-password', '10.0.0.1'), 'the right password still works, after the delay')
  t.same(slept, [250, 500, 1000, 2000])
  t.equal(failureDelayMs(50), 5000, 'the delay is capped')
})

t.test('unknown users and wrong passwords get the same answer', async (t) => {
  const db = openDatabase(tempDir(t))
  t.teardown(() => db.close())
  const users = createSqliteUserStore(db)
  await users.insert({ name: 'admin', passwordHash: await hashPassword('right-password'), enabled: true, roles: ['ADMIN'] })
  const auth = createAuthenticator({ users, cacheSeconds: 0, sleep: async () => {} })
  t.teardown(() => auth.close())
  t.equal(await auth.authenticate('ghost', 'right-password', 'a'), undefined)
  t.equal(await auth.authenticate('admin', 'wrong', 'b'), undefined)
})

t.test('verified credentials are cached until invalidated or expired', async (t) => {
  const db = openDatabase(tempDir(t))
  t.teardown(() => db.close())
  const users = createSqliteUserStore(db)
  await users.insert({ name: 'admin', passwordHash: await hashPassword('right-password'), enabled: true, roles: ['ADMIN'] })
  let now = 1_000_000
  let lookups = 0
  const counting = { ...users, get: async (n: string) => { lookups++; return users.get(n) } }
  const auth = createAuthenticator({ users: counting, cacheSeconds: 60, now: () => now })
  t.teardown(() => auth.close())
  await auth.authenticate('admin', 'right-password', 'a')
  await auth.authenticate('admin', 'right-password', 'a')
  t.equal(lookups, 1, 'second check served from the cache')
  now += 61_000
  await auth.authenticate('admin', 'right-password', 'a')
  t.equal(lookups, 2, 'expired entries are checked again')
  auth.invalidate()
  await auth.authenticate('admin', 'right-password', 'a')
  t.equal(lookups, 3, 'invalidate() forgets')
  await users.setPassword('admin', await hashPassword('new-password-2'))
  auth.invalidate()
  t.equal(await auth.authenticate('admin', 'right-password', 'a'), undefined, 'the old password no longer works after a change')
})

t.test('delayed attempts are capped: past the cap a failing address is answered busy at once', async (t) => {
  const db = openDatabase(tempDir(t))
  t.teardown(() => db.close())
  const users = createSqliteUserStore(db)
  await users.insert({ name: 'admin', passwordHash: await hashPassword('right-password'), enabled: true, roles: ['ADMIN'] })
  const release: Array<() => void> = []
  const auth = createAuthenticator({ users, cacheSeconds: 0, sleep: () => new Promise<void>((resolve) => { release.push(resolve) }) })
  t.teardown(() => auth.close())
  for (let i = 0; i < 3; i++) await auth.authenticate('admin', 'wrong', 'attacker')
  const pending = Array.from({ length: 64 }, () => auth.authenticate('admin', 'wrong', 'attacker'))
  await t.rejects(auth.authenticate('admin', 'wrong', 'attacker'), { code: 'MW_CORE_TOO_MANY_AUTH_FAILURES' })
  t.ok(await auth.authenticate('admin', 'right-password', 'someone-else'), 'other addresses are not delayed')
  for (const r of release) r()
  await Promise.all(pending)
})
