// The UserStore contract (services/auth/store.ts), the same cases on SQLite and PostgreSQL: users
// and roles, the errors for missing ones, and the last-administrator rule. On PostgreSQL also two
// nodes racing to take away the last two administrators, and the changes announced to other nodes.
import t from 'tap'
import { createSqliteUserStore } from '../../../services/auth/sqlite-store.js'
import { createPgUserStore } from '../../../services/auth/pg-store.js'
import type { UserStore } from '../../../services/auth/store.js'
import { BACKENDS, openBackend, openPg, outcomes, recordChanges, secondNode, type Opened } from '../../fixtures/backends.js'

const userStore = (o: Opened): UserStore => o.backend === 'pg' ? createPgUserStore(o.db) : createSqliteUserStore(o.db)
const LAST_ADMIN = { code: 'MW_SECURITY_LAST_ADMIN' }

async function seed (users: UserStore) {
  await users.insert({ name: 'admin', passwordHash: 'h-admin', enabled: true, roles: ['ADMIN'] })
  await users.insert({ name: 'bob', passwordHash: 'h-bob', enabled: true, roles: ['ROLE_EDITOR', 'ROLE_AUTHOR'] })
}

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('users: insert, get, list in byte order, count; a taken name is refused', async (t) => {
      const users = userStore(await openBackend(t, backend))
      await seed(users)
      t.equal(await users.insert({ name: 'Zoe', passwordHash: 'h-zoe', enabled: false, roles: [] }), true)
      t.equal(await users.insert({ name: 'bob', passwordHash: 'other', enabled: false, roles: ['ROLE_X'] }), false)
      t.same(await users.get('bob'), { name: 'bob', passwordHash: 'h-bob', enabled: true, roles: ['ROLE_AUTHOR', 'ROLE_EDITOR'] }, 'the first bob, roles by name')
      t.equal(await users.get('Bob'), undefined, 'names are case-sensitive')
      t.same(await users.list(), [{ name: 'Zoe', enabled: false }, { name: 'admin', enabled: true }, { name: 'bob', enabled: true }])
      t.equal(await users.count(), 3)
      t.same(await users.roles(), ['ADMIN', 'GROUP_ADMIN', 'ROLE_AUTHOR', 'ROLE_EDITOR'], 'missing roles created; ROLE_X was not')
      t.same(await users.rolesOf('Zoe'), [])
      t.equal(await users.rolesOf('nobody'), undefined)
    })

    t.test('update and remove: password, enabled flag, missing users', async (t) => {
      const users = userStore(await openBackend(t, backend))
      await seed(users)
      await users.update('bob', { passwordHash: 'h-bob-2' })
      t.same(await users.get('bob'), { name: 'bob', passwordHash: 'h-bob-2', enabled: true, roles: ['ROLE_AUTHOR', 'ROLE_EDITOR'] })
      await users.update('bob', { enabled: false })
      t.equal((await users.get('bob'))?.enabled, false)
      await t.rejects(users.update('ghost', { enabled: true }), { code: 'MW_SECURITY_USER_NOT_FOUND' })
      await t.rejects(users.remove('ghost'), { code: 'MW_SECURITY_USER_NOT_FOUND' })
      await users.remove('bob')
      t.equal(await users.get('bob'), undefined)
      t.same(await users.roles(), ['ADMIN', 'GROUP_ADMIN', 'ROLE_AUTHOR', 'ROLE_EDITOR'], 'the roles stay')
    })

    t.test('roles: add, grant, revoke, remove with its grants; missing roles and users', async (t) => {
      const users = userStore(await openBackend(t, backend))
      await seed(users)
      t.equal(await users.addRole('ROLE_READER'), true)
      t.equal(await users.addRole('ROLE_READER'), false)
      await users.grant('ROLE_READER', 'bob')
      await users.grant('ROLE_READER', 'bob')
      t.same(await users.rolesOf('bob'), ['ROLE_AUTHOR', 'ROLE_EDITOR', 'ROLE_READER'], 'granted once')
      await t.rejects(users.grant('ROLE_NONE', 'bob'), { code: 'MW_SECURITY_ROLE_NOT_FOUND' })
      await t.rejects(users.grant('ROLE_READER', 'ghost'), { code: 'MW_SECURITY_USER_NOT_FOUND' })
      await t.rejects(users.revoke('ROLE_NONE', 'bob'), { code: 'MW_SECURITY_ROLE_NOT_FOUND' })
      await t.rejects(users.revoke('ROLE_READER', 'ghost'), { code: 'MW_SECURITY_USER_NOT_FOUND' })
      await users.revoke('ROLE_AUTHOR', 'bob')
      await users.revoke('ROLE_AUTHOR', 'bob')
      t.same(await users.rolesOf('bob'), ['ROLE_EDITOR', 'ROLE_READER'])
      await users.removeRole('ROLE_EDITOR')
      t.same(await users.rolesOf('bob'), ['ROLE_READER'], 'the grant went with the role')
      t.same(await users.roles(), ['ADMIN', 'GROUP_ADMIN', 'ROLE_AUTHOR', 'ROLE_READER'])
      await t.rejects(users.removeRole('ROLE_EDITOR'), { code: 'MW_SECURITY_ROLE_NOT_FOUND' })
    })

    t.test('no change may leave no enabled administrator, and a refused one changes nothing', async (t) => {
      const users = userStore(await openBackend(t, backend))
      await seed(users)
      await t.rejects(users.update('admin', { passwordHash: 'h-new', enabled: false }), LAST_ADMIN)
      await t.rejects(users.remove('admin'), LAST_ADMIN)
      await t.rejects(users.revoke('ADMIN', 'admin'), LAST_ADMIN)
      await t.rejects(users.removeRole('ADMIN'), LAST_ADMIN)
      t.same(await users.get('admin'), { name: 'admin', passwordHash: 'h-admin', enabled: true, roles: ['ADMIN'] }, 'not even the password changed')
      await users.update('admin', { passwordHash: 'h-new' })
      t.equal((await users.get('admin'))?.passwordHash, 'h-new', 'a password change alone is allowed')

      // ROLE_ADMINISTRATOR administers too; a disabled administrator does not count.
      await users.insert({ name: 'root', passwordHash: 'h-root', enabled: false, roles: ['ROLE_ADMINISTRATOR'] })
      await t.rejects(users.remove('admin'), LAST_ADMIN, 'root is disabled')
      await users.update('root', { enabled: true })
      await users.remove('admin')
      t.same(await users.list(), [{ name: 'bob', enabled: true }, { name: 'root', enabled: true }])
      await users.removeRole('ADMIN')
      await t.rejects(users.removeRole('ROLE_ADMINISTRATOR'), LAST_ADMIN)
      t.same(await users.rolesOf('root'), ['ROLE_ADMINISTRATOR'])
    })

    if (backend === 'pg') {
      const races: Array<[string, (s: UserStore) => Promise<void>, (s: UserStore) => Promise<void>]> = [
        ['remove / remove', (s) => s.remove('a1'), (s) => s.remove('a2')],
        ['disable / disable', (s) => s.update('a1', { enabled: false }), (s) => s.update('a2', { enabled: false })],
        ['remove / revoke', (s) => s.remove('a1'), (s) => s.revoke('ADMIN', 'a2')],
        ['revoke / disable', (s) => s.revoke('ROLE_ADMINISTRATOR', 'a1'), (s) => s.update('a2', { enabled: false })],
        ['remove role / remove', (s) => s.removeRole('ADMIN'), (s) => s.remove('a1')]
      ]
      t.test('two nodes taking away different ones of the last two administrators at once: exactly one succeeds', async (t) => {
        const opened = await openPg(t)
        const a = createPgUserStore(opened.db)
        const b = createPgUserStore(secondNode(t, opened.url))
        for (const [name, first, second] of races) {
          await opened.db.query('TRUNCATE users, roles CASCADE') // a fresh start for each race
          await a.insert({ name: 'a1', passwordHash: 'h', enabled: true, roles: ['ROLE_ADMINISTRATOR'] })
          await a.insert({ name: 'a2', passwordHash: 'h', enabled: true, roles: ['ADMIN'] })
          const { ok, failed } = await outcomes([first(a), second(b)])
          t.equal(ok.length, 1, `${name}: one succeeded`)
          t.same(failed, ['MW_SECURITY_LAST_ADMIN'], `${name}: the other found itself taking the last one`)
          const admins = []
          for (const u of await a.list()) {
            const r = await a.get(u.name)
            if (r?.enabled && r.roles.some((role) => role === 'ADMIN' || role === 'ROLE_ADMINISTRATOR')) admins.push(u.name)
          }
          t.equal(admins.length, 1, `${name}: one enabled administrator left`)
        }
      })

      t.test('writes announce "users" to other nodes, keyed by the user; refused and empty ones nothing', async (t) => {
        const opened = await openPg(t)
        const users = createPgUserStore(opened.db)
        const changes = await recordChanges(t, opened.url, opened.db)
        await seed(users)
        await users.insert({ name: 'bob', passwordHash: 'x', enabled: true, roles: [] })
        await users.update('bob', { enabled: false })
        await users.grant('GROUP_ADMIN', 'bob')
        await users.grant('GROUP_ADMIN', 'bob')
        await users.revoke('GROUP_ADMIN', 'bob')
        await users.addRole('ROLE_X')
        await users.addRole('ROLE_X')
        await users.removeRole('ROLE_X')
        await users.remove('bob')
        await t.rejects(users.remove('admin'), LAST_ADMIN)
        t.same(await changes.settle(), [
          { topic: 'users', key: 'admin' },
          { topic: 'users', key: 'bob' },
          { topic: 'users', key: 'bob' },
          { topic: 'users', key: 'bob' },
          { topic: 'users', key: 'bob' },
          { topic: 'users' },
          { topic: 'users' },
          { topic: 'users', key: 'bob' }
        ])
      })
    }
  })
}
