// {base}/rest/security: users, roles, layer rules, catalog mode and master password. GeoServer
// writes these as plain maps: JSON without a root key, XML with one child element per entry.
import { Type, type TSchema } from '@fastify/type-provider-typebox'
import { field, OneOf } from './common.js'
import { MIN_PASSWORD } from '../services/security/accounts.js'
import { CATALOG_MODES } from '../services/security/rules.js'

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

// Bodies. XML has a root element, JSON is the flat map (GeoServer's MapJSONConverter); the route's
// preValidation hook (plugins/security/maps.ts) turns either into the flat map these describe.
const entry = (description: string, type?: TSchema) => Type.Optional(field(description, type))
/** XML gives true and false as text; "" (an empty element) leaves the flag as it is. */
const Enabled = Type.Union([Type.Boolean(), OneOf(['true', 'false', ''])])

export const UserBody = Type.Object({
  userName: entry('The user name (POST; on a change it must be the path\'s): letters, digits, _ . @ + -', Type.String({ minLength: 1, maxLength: 64 })),
  password: entry('The password (write-only; not a well-known default)', Type.String({ minLength: MIN_PASSWORD })),
  enabled: entry('Whether the user may log in', Enabled)
}, { description: 'A user; other fields are refused by name' })
export const CatalogModeBody = Type.Object({ mode: entry('The catalog mode (blanks around it are ignored)', OneOf(CATALOG_MODES)) }, { description: 'The catalog mode' })
export const MasterPasswordBody = Type.Object({
  oldMasterPassword: entry('The current master password', Type.String({ minLength: 1 })),
  newMasterPassword: entry('The new one', Type.String({ minLength: 1 }))
}, { description: 'A master password change' })
/**
 * JSON: `{ "<ws>.<layer>.<r|w|a>": "ROLE,..." }`; XML: `<rules><rule resource="...">ROLE,...</rule></rules>`
 * (read entry by entry by the handler: a resource may repeat, and each entry counts).
 */
const RuleElement = Type.Object({}, { additionalProperties: true, description: 'XML: a rule element (resource attribute, roles as text)' })
export const RulesBody = Type.Record(Type.String(), field('The roles of a resource', Type.Union([
  Type.String({ description: 'JSON: the roles, comma-separated (* for everyone)' }), RuleElement, Type.Array(RuleElement)
])),
  { description: 'Layer access rules: resource to roles', 'x-refusal': 'Expected a rules document in XML or JSON' })
