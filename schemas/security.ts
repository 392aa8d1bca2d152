// {base}/rest/security: users, roles, layer rules, catalog mode and master password. GeoServer
// writes these as plain maps: JSON without a root key, XML with one child element per entry.
import { Type } from '@fastify/type-provider-typebox'

export const UserParams = Type.Object({ user: Type.String() })
export const RoleParams = Type.Object({ role: Type.String() })
export const RoleUserParams = Type.Object({ role: Type.String(), user: Type.String() })
export const RuleParams = Type.Object({ rule: Type.String() })

const map = (description: string, json: ReturnType<typeof Type.Object> | ReturnType<typeof Type.Record>) =>
  ({ description, content: { 'application/json': { schema: json }, 'application/xml': { schema: Type.String() } } })

export const responses = {
  users: { 200: map('The users', Type.Object({ users: Type.Array(Type.Object({ userName: Type.String(), enabled: Type.Boolean() })) })) },
  roles: { 200: map('The roles', Type.Object({ roles: Type.Array(Type.String()) })) },
  catalog: { 200: map('The catalog mode', Type.Object({ mode: Type.Union([Type.Literal('HIDE'), Type.Literal('MIXED'), Type.Literal('CHALLENGE')]) })) },
  rules: { 200: map('Layer access rules: resource (workspace.layer.mode) to roles', Type.Record(Type.String(), Type.String())) },
  masterpw: { 200: map('The master password', Type.Object({ oldMasterPassword: Type.String() })) }
}
