// The PostgreSQL user store, the counterpart of sqlite-store.ts: one transaction per method. The
// changes that can take away an administrator (disable, remove, remove a role, revoke) run
// SERIALIZABLE: two nodes each removing a different one of the last two administrators both read
// the rows the other writes, so one of them is rolled back, retried, and then finds itself
// removing the last one (LastAdmin). Every write announces 'users' on the change bus, keyed by the
// user name when one user changed.
import type { PgClient, PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import { LastAdmin, RoleNotFound, UserNotFound } from '../errors.js'
import { ADMIN_ROLES } from './roles.js'
import type { UserStore } from './store.js'

/** The roles of user row `u`, by name (byte order, as SQLite sorts). */
const ROLES_OF = 'ARRAY(SELECT role FROM user_roles WHERE "user" = u.name ORDER BY role COLLATE "C")'

export function createPgUserStore (db: PgDatabase): UserStore {
  /** Throws UserNotFound; KEY SHARE keeps the row (and its name) until the transaction ends. */
  const mustHaveUser = async (c: PgClient, name: string) => {
    if ((await c.query('SELECT 1 FROM users WHERE name = $1 FOR KEY SHARE', [name])).rowCount === 0) throw UserNotFound(name)
  }
  const mustHaveRole = async (c: PgClient, name: string) => {
    if ((await c.query('SELECT 1 FROM roles WHERE name = $1 FOR KEY SHARE', [name])).rowCount === 0) throw RoleNotFound(name)
  }
  /** Inside a transaction: undo the change (by throwing) if no enabled administrator is left. */
  const keepAnAdmin = async (c: PgClient, what: string) => {
    const r = await c.query<{ n: number }>(`SELECT count(DISTINCT u.name) AS n FROM users u JOIN user_roles ur ON ur."user" = u.name
      WHERE u.enabled = 1 AND ur.role = ANY($1)`, [ADMIN_ROLES])
    if (r.rows[0].n === 0) throw LastAdmin(what)
  }
  const changed = (c: PgClient, user?: string) => notify(c, { topic: 'users', key: user })
  /** A change that may leave no administrator: serializable, so the check cannot be beaten. */
  const guarded = (fn: (c: PgClient) => Promise<void>) => db.transaction(fn, { serializable: true })

  return {
    async count () {
      return (await db.query<{ n: number }>('SELECT count(*) AS n FROM users')).rows[0].n
    },
    async get (name) {
      // One statement, so the user and its roles are read at one moment.
      const r = (await db.query<{ name: string, password_hash: string, enabled: number, roles: string[] }>(
        `SELECT name, password_hash, enabled, ${ROLES_OF} AS roles FROM users u WHERE name = $1`, [name])).rows[0]
      return r ? { name: r.name, passwordHash: r.password_hash, enabled: r.enabled === 1, roles: r.roles } : undefined
    },
    async list () {
      const r = await db.query<{ name: string, enabled: number }>('SELECT name, enabled FROM users ORDER BY name COLLATE "C"')
      return r.rows.map((u) => ({ name: u.name, enabled: u.enabled === 1 }))
    },
    async insert (u) {
      return await db.transaction(async (c) => {
        const r = await c.query('INSERT INTO users (name, password_hash, enabled) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [u.name, u.passwordHash, u.enabled ? 1 : 0])
        if (r.rowCount === 0) return false
        for (const role of u.roles) {
          await c.query('INSERT INTO roles (name) VALUES ($1) ON CONFLICT DO NOTHING', [role])
          await c.query('INSERT INTO user_roles ("user", role) VALUES ($1, $2) ON CONFLICT DO NOTHING', [u.name, role])
        }
        await changed(c, u.name)
        return true
      })
    },
    async update (name, change) {
      await guarded(async (c) => {
        await mustHaveUser(c, name)
        if (change.passwordHash !== undefined) await c.query('UPDATE users SET password_hash = $1 WHERE name = $2', [change.passwordHash, name])
        if (change.enabled !== undefined) await c.query('UPDATE users SET enabled = $1 WHERE name = $2', [change.enabled ? 1 : 0, name])
        await keepAnAdmin(c, `disable user ${name}`)
        await changed(c, name)
      })
    },
    async remove (name) {
      await guarded(async (c) => {
        await mustHaveUser(c, name)
        await c.query('DELETE FROM users WHERE name = $1', [name])
        await keepAnAdmin(c, `remove user ${name}`)
        await changed(c, name)
      })
    },
    async roles () {
      return (await db.query<{ name: string }>('SELECT name FROM roles ORDER BY name COLLATE "C"')).rows.map((r) => r.name)
    },
    async addRole (name) {
      return await db.transaction(async (c) => {
        if ((await c.query('INSERT INTO roles (name) VALUES ($1) ON CONFLICT DO NOTHING', [name])).rowCount === 0) return false
        await changed(c)
        return true
      })
    },
    async removeRole (name) {
      await guarded(async (c) => {
        await mustHaveRole(c, name)
        await c.query('DELETE FROM roles WHERE name = $1', [name])
        await keepAnAdmin(c, `remove role ${name}`)
        await changed(c)
      })
    },
    async grant (role, user) {
      await db.transaction(async (c) => {
        // Both rows locked against removal until the grant commits, so its foreign keys hold.
        await mustHaveRole(c, role)
        await mustHaveUser(c, user)
        const r = await c.query('INSERT INTO user_roles ("user", role) VALUES ($1, $2) ON CONFLICT DO NOTHING', [user, role])
        if (r.rowCount === 1) await changed(c, user)
      })
    },
    async revoke (role, user) {
      await guarded(async (c) => {
        await mustHaveRole(c, role)
        await mustHaveUser(c, user)
        const r = await c.query('DELETE FROM user_roles WHERE "user" = $1 AND role = $2', [user, role])
        await keepAnAdmin(c, `remove role ${role} from user ${user}`)
        if (r.rowCount === 1) await changed(c, user)
      })
    },
    async rolesOf (user) {
      return (await db.query<{ roles: string[] }>(`SELECT ${ROLES_OF} AS roles FROM users u WHERE name = $1`, [user])).rows[0]?.roles
    }
  }
}
