// Route shapes shared by several areas. TypeBox (the one @fastify/type-provider-typebox builds on),
// so a route's validation, its handler's types and the OpenAPI document come from one place.
import { Type, type TSchema } from '@fastify/type-provider-typebox'

/** A path segment: any text (the services check names and answer GeoServer's refusals). */
export const Segment = Type.String()
export const WorkspaceParams = Type.Object({ ws: Type.String({ minLength: 1 }) })
export const RecurseQuery = Type.Object({ recurse: Type.Optional(Type.Boolean()) })

/**
 * A query parameter as the query-string parser gives it: one value, or a list when it is repeated.
 * Handlers that read it decide (most take the last value), so a repeated parameter is not refused
 * by validation with a message GeoServer would not give.
 */
export const QueryValue = Type.Union([Type.String(), Type.Array(Type.String())])

/** Query parameters the handler reads loosely, by name; any other parameter passes through. */
export function looseQuery<K extends string> (...names: K[]) {
  return Type.Object(Object.fromEntries(names.map((n) => [n, Type.Optional(QueryValue)])) as Record<K, ReturnType<typeof Type.Optional<typeof QueryValue>>>)
}

/** A resource answered in XML or JSON (the representation layer writes both from one tree). */
export function representation (description: string, schema: TSchema) {
  return { description, content: { 'application/json': { schema }, 'application/xml': { schema } } }
}

/** A list resource as GeoServer writes it: `{ "<list>": { "<item>": [{ name, href }] } }`, `""` when empty. */
export function namedList (list: string, item: string) {
  return Type.Object({
    [list]: Type.Union([Type.Literal(''), Type.Object({ [item]: Type.Array(Type.Object({ name: Type.String(), href: Type.String() })) })])
  })
}

/** An answer without a body: 200 or 201 with nothing, or the new resource's name as text/plain. */
export const Empty = { description: 'No body' }
export const CreatedName = { description: 'The name of the new resource (text/plain); Location points at it', content: { 'text/plain': { schema: Type.String() } } }
