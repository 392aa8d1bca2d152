// The SQLite user store: each method one statement or one transaction.
import type { Db } from '../storage/sqlite/database.js'
import { LastAdmin, RoleNotFound, UserNotFound } from '../errors.js'
import { ADMIN_ROLES } from './roles.js'
import type { UserRecord, UserStore } from './store.js'

export function createSqliteUserStore (db: Db): UserStore {
  const marks = ADMIN_ROLES.map(() => '?').join(',')
  const q = {
    count: db.prepare('SELECT count(*) FROM users').pluck(),
    get: db.prepare('SELECT * FROM users WHERE name = ?'),
    list: db.prepare('SELECT name, enabled FROM users ORDER BY name'),
    user: db.prepare('SELECT name FROM users WHERE name = ?').pluck(),
    insert: db.prepare('INSERT OR IGNORE INTO users (name, password_hash, enabled) VALUES (?, ?, ?)'),
    setPassword: db.prepare('UPDATE users SET password_hash = ? WHERE name = ?'),
    setEnabled: db.prepare('UPDATE users SET enabled = ? WHERE name = ?'),
    remove: db.prepare('DELETE FROM users WHERE name = ?'),
    roles: db.prepare('SELECT name FROM roles ORDER BY name').pluck(),
    role: db.prepare('SELECT name FROM roles WHERE name = ?').pluck(),
    addRole: db.prepare('INSERT OR IGNORE INTO roles (name) VALUES (?)'),
    removeRole: db.prepare('DELETE FROM roles WHERE name = ?'),
    rolesOf: db.prepare('SELECT role FROM user_roles WHERE user = ? ORDER BY role').pluck(),
    grant: db.prepare('INSERT OR IGNORE INTO user_roles (user, role) VALUES (?, ?)'),
    revoke: db.prepare('DELETE FROM user_roles WHERE user = ? AND role = ?'),
    admins: db.prepare(`SELECT count(DISTINCT u.name) FROM users u JOIN user_roles ur ON ur.user = u.name
      WHERE u.enabled = 1 AND ur.role IN (${marks})`).pluck()
  }
  const toRecord = (r: any): UserRecord =>
    ({ name: r.name, passwordHash: r.password_hash, enabled: r.enabled === 1, roles: q.rolesOf.all(r.name) as string[] })
  const mustHaveUser = (name: string) => { if (q.user.get(name) === undefined) throw UserNotFound(name) }
  const mustHaveRole = (name: string) => { if (q.role.get(name) === undefined) throw RoleNotFound(name) }
  /** Inside a transaction: undo the change (by throwing) if no enabled administrator is left. */
  const keepAnAdmin = (what: string) => { if ((q.admins.get(...ADMIN_ROLES) as number) === 0) throw LastAdmin(what) }

  const tx = {
    insert: db.transaction((u: UserRecord) => {
      if (q.insert.run(u.name, u.passwordHash, u.enabled ? 1 : 0).changes === 0) return false
      for (const role of u.roles) { q.addRole.run(role); q.grant.run(u.name, role) }
      return true
    }),
    update: db.transaction((name: string, hash: string | undefined, enabled: boolean | undefined) => {
      mustHaveUser(name)
      if (hash !== undefined) q.setPassword.run(hash, name)
      if (enabled !== undefined) q.setEnabled.run(enabled ? 1 : 0, name)
      keepAnAdmin(`disable user ${name}`)
    }),
    remove: db.transaction((name: string) => {
      mustHaveUser(name)
      q.remove.run(name)
      keepAnAdmin(`remove user ${name}`)
    }),
    removeRole: db.transaction((name: string) => {
      mustHaveRole(name)
      q.removeRole.run(name)
      keepAnAdmin(`remove role ${name}`)
    }),
    grant: db.transaction((role: string, user: string) => {
      mustHaveRole(role)
      mustHaveUser(user)
      q.grant.run(user, role)
    }),
    revoke: db.transaction((role: string, user: string) => {
      mustHaveRole(role)
      mustHaveUser(user)
      q.revoke.run(user, role)
      keepAnAdmin(`remove role ${role} from user ${user}`)
    })
  }

  return {
    async count () { return q.count.get() as number },
    async get (name) { const r = q.get.get(name); return r ? toRecord(r) : undefined },
    async list () {
      return (q.list.all() as Array<{ name: string, enabled: number }>).map((u) => ({ name: u.name, enabled: u.enabled === 1 }))
    },
    async insert (u) { return tx.insert(u) },
    async update (name, change) { tx.update(name, change.passwordHash, change.enabled) },
    async remove (name) { tx.remove(name) },
    async roles () { return q.roles.all() as string[] },
    async addRole (name) { return q.addRole.run(name).changes === 1 },
    async removeRole (name) { tx.removeRole(name) },
    async grant (role, user) { tx.grant(role, user) },
    async revoke (role, user) { tx.revoke(role, user) },
    async rolesOf (user) { return q.user.get(user) === undefined ? undefined : q.rolesOf.all(user) as string[] }
  }
}
