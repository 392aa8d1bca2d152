import t from 'tap'
import { createAuthenticator } from '../../../services/auth/authenticator.js'
import { hashPassword, verifyPassword } from '../../../services/auth/passwords.js'
import { openDatabase } from '../../../services/storage/sqlite/database.js'
import { createSqliteUserStore } from '../../../services/auth/sqlite-store.js'
import { tempDir } from '../../helper.js'

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
  await users.update('admin', { passwordHash: await hashPassword('new-password-2') })
  auth.invalidate()
  t.equal(await auth.authenticate('admin', 'right-password', 'a'), undefined, 'the old password no longer works after a change')
})
