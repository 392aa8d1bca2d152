// Users and roles: the one store of the users, roles and user_roles tables, used by the
// authenticator (get) and by the accounts service (the rest). Every method is one atomic unit of
// work: a change that would leave no enabled administrator (a user of one of ADMIN_ROLES) throws
// LastAdmin and changes nothing, so the API cannot lock itself out.
export interface UserRecord { name: string, passwordHash: string, enabled: boolean, roles: string[] }
export interface UserSummary { name: string, enabled: boolean }

export interface UserStore {
  count (): Promise<number>
  get (name: string): Promise<UserRecord | undefined>
  /** Users by name, without their password hashes. */
  list (): Promise<UserSummary[]>
  /** Inserts a user and its roles (creating missing roles); false when the name exists. */
  insert (user: UserRecord): Promise<boolean>
  /** Sets the password hash and/or the enabled flag. Throws UserNotFound, LastAdmin. */
  update (name: string, change: { passwordHash?: string, enabled?: boolean }): Promise<void>
  /** Throws UserNotFound, LastAdmin. */
  remove (name: string): Promise<void>
  roles (): Promise<string[]>
  /** False when the role exists. */
  addRole (name: string): Promise<boolean>
  /** Removes the role and every grant of it. Throws RoleNotFound, LastAdmin. */
  removeRole (name: string): Promise<void>
  /** Throws RoleNotFound, UserNotFound; granting a held role again changes nothing. */
  grant (role: string, user: string): Promise<void>
  /** Throws RoleNotFound, UserNotFound, LastAdmin. */
  revoke (role: string, user: string): Promise<void>
  /** The user's roles by name; undefined when there is no such user. */
  rolesOf (user: string): Promise<string[] | undefined>
}
