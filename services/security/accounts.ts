// Users and roles as GeoServer's UsersRestController and RolesRestController manage them, on the
// user store (services/auth/store.ts). Passwords are hashed (scrypt) and never returned. Every
// change is one store call, and a change that would leave no enabled administrator (deleting,
// disabling or demoting the last one) is refused there, so the API cannot lock itself out.
import type { UserStore, UserSummary } from '../auth/store.js'
import { hashPassword } from '../auth/passwords.js'
import {
  InvalidRole, InvalidUser, ReservedRole, RoleExists, UserExists, UserNotFound, WeakPassword
} from '../errors.js'
import { ANONYMOUS_ROLE, AUTHENTICATED_ROLE } from '../auth/roles.js'

const USER_NAME = /^[\p{L}\p{N}_][\p{L}\p{N}_.@+-]{0,63}$/u
const ROLE_NAME = /^[\p{L}\p{N}_][\p{L}\p{N}_.-]{0,99}$/u
const RESERVED = new Set([ANONYMOUS_ROLE, AUTHENTICATED_ROLE])
const WEAK = new Set(['geoserver', 'secured', 'admin', 'password', 'changeit', '12345678'])
export const MIN_PASSWORD = 8
/** Why a password is refused unless weak ones are allowed (MAPWARDEN_ALLOW_WEAK_PASSWORDS): too short, or a well-known default. */
export function passwordWeakness (v: string): string | undefined {
  if (v.length < MIN_PASSWORD) return `must have at least ${MIN_PASSWORD} characters`
  if (WEAK.has(v.toLowerCase())) return 'a well-known default password is not allowed'
  return undefined
}

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
function checkPassword (user: string, v: unknown, allowWeak: boolean): string {
  if (typeof v !== 'string' || v === '') throw InvalidUser(`Missing password for user ${user}`)
  const weakness = allowWeak ? undefined : passwordWeakness(v)
  if (weakness) throw WeakPassword(user, weakness)
  return v
}
function checkEnabled (v: unknown): boolean | undefined {
  if (v === undefined || v === null || v === '') return undefined
  if (v === true || v === 'true') return true
  if (v === false || v === 'false') return false
  throw InvalidUser(`Invalid value of enabled: ${shown(v)}; expected true or false`)
}

/** `allowWeak`: MAPWARDEN_ALLOW_WEAK_PASSWORDS, for throwaway test servers only. */
export function createAccounts (users: UserStore, { allowWeak = false }: { allowWeak?: boolean } = {}) {
  return {
    listUsers (): Promise<UserSummary[]> { return users.list() },
    async addUser (u: NewUser): Promise<string> {
      const name = checkUserName(u.name)
      const password = checkPassword(name, u.password, allowWeak)
      const enabled = checkEnabled(u.enabled) ?? true
      if (await users.get(name) !== undefined) throw UserExists(name)
      const hash = await hashPassword(password)
      // Checked again after the slow hash: a concurrent POST of the same name gets the same 409.
      if (!(await users.insert({ name, passwordHash: hash, enabled, roles: [] }))) throw UserExists(name)
      return name
    },
    async updateUser (name: string, change: UserChange): Promise<void> {
      if (await users.get(name) === undefined) throw UserNotFound(name)
      const enabled = checkEnabled(change.enabled)
      const passwordHash = change.password === undefined || change.password === null
        ? undefined
        : await hashPassword(checkPassword(name, change.password, allowWeak))
      await users.update(name, { passwordHash, enabled })
    },
    removeUser (name: string): Promise<void> { return users.remove(name) },
    listRoles (): Promise<string[]> { return users.roles() },
    async addRole (v: unknown): Promise<string> {
      const name = checkRoleName(v)
      if (!(await users.addRole(name))) throw RoleExists(name)
      return name
    },
    removeRole (name: string): Promise<void> { return users.removeRole(name) },
    async associate (role: string, user: string): Promise<void> { await users.grant(checkRoleName(role), user) },
    disassociate (role: string, user: string): Promise<void> { return users.revoke(role, user) },
    async rolesOf (user: string): Promise<string[]> {
      const roles = await users.rolesOf(user)
      if (!roles) throw UserNotFound(user)
      return roles
    }
  }
}
export type Accounts = ReturnType<typeof createAccounts>
