// Users and their roles. The store is an interface; the embedded one is SQLite.
import type { Db } from '../storage/database.js'

export interface UserRecord { name: string, passwordHash: string, enabled: boolean, roles: string[] }

export interface UserStore {
  count (): Promise<number>
  get (name: string): Promise<UserRecord | undefined>
  list (): Promise<UserRecord[]>
  /** Inserts a user and its roles (creating missing roles); false when the name exists. */
  insert (user: UserRecord): Promise<boolean>
  setPassword (name: string, passwordHash: string): Promise<void>
  remove (name: string): Promise<boolean>
}

export function createSqliteUserStore (db: Db): UserStore {
  const q = {
    count: db.prepare('SELECT count(*) FROM users').pluck(),
    get: db.prepare('SELECT * FROM users WHERE name = ?'),
    list: db.prepare('SELECT * FROM users ORDER BY name'),
    roles: db.prepare('SELECT role FROM user_roles WHERE user = ? ORDER BY role').pluck(),
    insert: db.prepare('INSERT OR IGNORE INTO users (name, password_hash, enabled) VALUES (?, ?, ?)'),
    role: db.prepare('INSERT OR IGNORE INTO roles (name) VALUES (?)'),
    grant: db.prepare('INSERT OR IGNORE INTO user_roles (user, role) VALUES (?, ?)'),
    setPassword: db.prepare('UPDATE users SET password_hash = ? WHERE name = ?'),
    remove: db.prepare('DELETE FROM users WHERE name = ?')
  }
  const toRecord = (r: any): UserRecord =>
    ({ name: r.name, passwordHash: r.password_hash, enabled: r.enabled === 1, roles: q.roles.all(r.name) as string[] })
  const insert = db.transaction((u: UserRecord) => {
    if (q.insert.run(u.name, u.passwordHash, u.enabled ? 1 : 0).changes === 0) return false
    for (const role of u.roles) { q.role.run(role); q.grant.run(u.name, role) }
    return true
  })
  return {
    async count () { return q.count.get() as number },
    async get (name) { const r = q.get.get(name); return r ? toRecord(r) : undefined },
    async list () { return (q.list.all() as any[]).map(toRecord) },
    async insert (u) { return insert(u) },
    async setPassword (name, hash) { q.setPassword.run(hash, name) },
    async remove (name) { return q.remove.run(name).changes === 1 }
  }
}
