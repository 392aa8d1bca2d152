// Users and roles as GeoServer's UsersRestController and RolesRestController manage them, on the
// foundation's users / roles / user_roles tables. Passwords are hashed (scrypt) and never returned.
// Every change is one SQLite transaction, and a change that would leave no enabled administrator
// (deleting, disabling or demoting the last one) is refused, so the API cannot lock itself out.
import type { Db } from '../storage/database.js'
import { hashPassword } from '../auth/passwords.js'
import {
  InvalidRole, InvalidUser, LastAdmin, ReservedRole, RoleExists, RoleNotFound, UserExists, UserNotFound, WeakPassword
} from '../errors.js'
import { ANONYMOUS_ROLE, AUTHENTICATED_ROLE, ADMIN_ROLES } from './access.js'

const USER_NAME = /^[\p{L}\p{N}_][\p{L}\p{N}_.@+-]{0,63}$/u
const ROLE_NAME = /^[\p{L}\p{N}_][\p{L}\p{N}_.-]{0,99}$/u
const RESERVED = new Set([ANONYMOUS_ROLE, AUTHENTICATED_ROLE])
const WEAK = new Set(['geoserver', 'secured', 'admin', 'password', 'changeit', '12345678'])
export const MIN_PASSWORD = 8

export interface UserSummary { name: string, enabled: boolean }
export interface NewUser { name: unknown, password: unknown, enabled?: unknown }
export interface UserChange { password?: unknown, enabled?: unknown }

const shown = (v: unknown) => JSON.stringify(typeof v === 'string' && v.length > 64 ? v.slice(0, 64) + '...' : v)

export function checkUserName (v: unknown): string {
  if (typeof v !== 'string' || !USER_NAME.test(v)) throw InvalidUser(`Invalid user name: ${shown(v)}`)
  return v
}
export function checkRoleName (v: unknown): string {
  if (typeof v !== 'string' || !ROLE_NAME.test(v)) throw InvalidRole(shown(v))
  if (RESERVED.has(v)) throw ReservedRole(v)
  return v
}
function checkPassword (user: string, v: unknown): string {
  if (typeof v !== 'string' || v === '') throw InvalidUser(`Missing password for user ${user}`)
  if (v.length < MIN_PASSWORD) throw WeakPassword(user, `must have at least ${MIN_PASSWORD} characters`)
  if (WEAK.has(v.toLowerCase())) throw WeakPassword(user, 'a well-known default password is not allowed')
  return v
}
function checkEnabled (v: unknown): boolean | undefined {
  if (v === undefined || v === null || v === '') return undefined
  if (v === true || v === 'true') return true
  if (v === false || v === 'false') return false
  throw InvalidUser(`Invalid value of enabled: ${shown(v)}; expected true or false`)
}

export function createAccounts (db: Db, { adminRoles = ADMIN_ROLES }: { adminRoles?: string[] } = {}) {
  const marks = adminRoles.map(() => '?').join(',')
  const q = {
    users: db.prepare('SELECT name, enabled FROM users ORDER BY name'),
    user: db.prepare('SELECT name FROM users WHERE name = ?').pluck(),
    insertUser: db.prepare('INSERT INTO users (name, password_hash, enabled) VALUES (?, ?, ?)'),
    setPassword: db.prepare('UPDATE users SET password_hash = ? WHERE name = ?'),
    setEnabled: db.prepare('UPDATE users SET enabled = ? WHERE name = ?'),
    removeUser: db.prepare('DELETE FROM users WHERE name = ?'),
    roles: db.prepare('SELECT name FROM roles ORDER BY name').pluck(),
    role: db.prepare('SELECT name FROM roles WHERE name = ?').pluck(),
    insertRole: db.prepare('INSERT INTO roles (name) VALUES (?)'),
    removeRole: db.prepare('DELETE FROM roles WHERE name = ?'),
    rolesOf: db.prepare('SELECT role FROM user_roles WHERE user = ? ORDER BY role').pluck(),
    grant: db.prepare('INSERT OR IGNORE INTO user_roles (user, role) VALUES (?, ?)'),
    revoke: db.prepare('DELETE FROM user_roles WHERE user = ? AND role = ?'),
    admins: db.prepare(`SELECT count(DISTINCT u.name) FROM users u JOIN user_roles ur ON ur.user = u.name
      WHERE u.enabled = 1 AND ur.role IN (${marks})`).pluck()
  }
  const mustHaveUser = (name: string) => { if (q.user.get(name) === undefined) throw UserNotFound(name) }
  const mustHaveRole = (name: string) => { if (q.role.get(name) === undefined) throw RoleNotFound(name) }
  /** Inside a transaction: undo the change (by throwing) if no enabled administrator is left. */
  const keepAnAdmin = (what: string) => { if ((q.admins.get(...adminRoles) as number) === 0) throw LastAdmin(what) }

  const tx = {
    updateUser: db.transaction((name: string, hash: string | undefined, enabled: boolean | undefined) => {
      mustHaveUser(name)
      if (hash !== undefined) q.setPassword.run(hash, name)
      if (enabled !== undefined) q.setEnabled.run(enabled ? 1 : 0, name)
      keepAnAdmin(`disable user ${name}`)
    }),
    removeUser: db.transaction((name: string) => {
      mustHaveUser(name)
      q.removeUser.run(name)
      keepAnAdmin(`remove user ${name}`)
    }),
    removeRole: db.transaction((name: string) => {
      mustHaveRole(name)
      q.removeRole.run(name)
      keepAnAdmin(`remove role ${name}`)
    }),
    associate: db.transaction((role: string, user: string) => {
      mustHaveRole(role)
      mustHaveUser(user)
      q.grant.run(user, role)
    }),
    disassociate: db.transaction((role: string, user: string) => {
      mustHaveRole(role)
      mustHaveUser(user)
      q.revoke.run(user, role)
      keepAnAdmin(`remove role ${role} from user ${user}`)
    })
  }

  return {
    listUsers (): UserSummary[] {
      return (q.users.all() as Array<{ name: string, enabled: number }>).map((u) => ({ name: u.name, enabled: u.enabled === 1 }))
    },
    async addUser (u: NewUser): Promise<string> {
      const name = checkUserName(u.name)
      const password = checkPassword(name, u.password)
      const enabled = checkEnabled(u.enabled) ?? true
      if (q.user.get(name) !== undefined) throw UserExists(name)
      const hash = await hashPassword(password)
      // Checked again after the slow hash: a concurrent POST of the same name gets the same 409.
      try { q.insertUser.run(name, hash, enabled ? 1 : 0) } catch (err) {
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw UserExists(name)
        throw err
      }
      return name
    },
    async updateUser (name: string, change: UserChange): Promise<void> {
      mustHaveUser(name)
      const enabled = checkEnabled(change.enabled)
      const hash = change.password === undefined || change.password === null
        ? undefined
        : await hashPassword(checkPassword(name, change.password))
      tx.updateUser(name, hash, enabled)
    },
    removeUser (name: string) { tx.removeUser(name) },
    listRoles (): string[] { return q.roles.all() as string[] },
    addRole (v: unknown): string {
      const name = checkRoleName(v)
      if (q.role.get(name) !== undefined) throw RoleExists(name)
      q.insertRole.run(name)
      return name
    },
    removeRole (name: string) { tx.removeRole(name) },
    associate (role: string, user: string) { tx.associate(checkRoleName(role), user) },
    disassociate (role: string, user: string) { tx.disassociate(role, user) },
    rolesOf (user: string): string[] { mustHaveUser(user); return q.rolesOf.all(user) as string[] }
  }
}
export type Accounts = ReturnType<typeof createAccounts>
