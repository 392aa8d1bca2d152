// Route shapes shared by several areas. TypeBox (the one @fastify/type-provider-typebox builds on),
// so a route's validation, its handler's types and the OpenAPI document come from one place.
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@fastify/type-provider-typebox'

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

/** Bytes (a tile, a ZIP), sent as a buffer or a stream: never put through the JSON serializer. */
export const Binary = Type.Unsafe<unknown>({ type: 'string', format: 'binary' })

/** An answer without a body: 200 or 201 with nothing, or the new resource's name as text/plain. */
export const Empty = { description: 'No body' }
export const CreatedName = { description: 'The name of the new resource (text/plain); Location points at it', content: { 'text/plain': { schema: Type.String() } } }

// Bodies. GeoServer words each refusal of a field (unknown name, wrong value, read-only) itself, and
// the services make those checks with its messages, in its order (unknown fields and names before
// values; most messages quote the value); XML sends every value as text. So a field carries its real
// type (OpenAPI, the reader) but is marked checked by the service: the body validator accepts any
// value there (plugins/infra/body-validation.ts), and the handler sees `unknown`, as the service does.
// A schema refuses only where its `x-refusal` gives the same message the hand-written check gave, at
// the same point of the request.

/** Marks a body field whose value the service checks: the validator reads it as any value. */
export const CHECKED_BY = 'x-checked-by'

/**
 * A body field: described, with the type GeoServer accepts there (as the wire sends it: XML gives
 * numbers and booleans as text) when given; its value is checked by the service.
 */
export function field (description: string, type?: TSchema) {
  if (type === undefined) return Type.Unknown({ description })
  return Type.Unsafe<unknown>({ ...stripKind(type), description, [CHECKED_BY]: 'service' })
}

/** The JSON Schema of a TypeBox node without its TypeBox marks, so the copy is plain JSON Schema. */
function stripKind (schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>
}

/** A boolean as GeoServer reads one: true or false, or their text (XML, or JSON sent as text). */
export const BooleanText = Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')])
/** An integer as GeoServer reads one: a JSON number or its text. */
export const IntegerText = Type.Union([Type.Integer(), Type.String({ pattern: '^-?[0-9]+$' })])
/** A number as GeoServer reads one: a JSON number or its text. */
export const NumberText = Type.Union([Type.Number(), Type.String()])
/** One of `values`: the exact text. */
export const OneOf = (values: string[]) => Type.Union(values.map((v) => Type.Literal(v)))

/**
 * A body object's fields, all optional. Without a `type`: a non-object (`""` for an empty element,
 * a string where an object belongs) is the service's to refuse or accept, with its message.
 */
export function fields<T extends TProperties> (props: T, description?: string) {
  const { type: _type, required: _required, ...shape } = Type.Object(props, description === undefined ? {} : { description }) as TObject<T> & { required?: string[] }
  return Type.Unsafe<{ [K in keyof Static<TObject<T>>]?: Static<TObject<T>>[K] }>(shape)
}

/**
 * A GeoServer body `{ "<root>": {...} }` (the XML root element parses to the same shape). Anything
 * but an object is refused with GeoServer's message for it; an unexpected root is refused by the
 * handler's bodyRoot, which names what it found.
 */
export function rootBody<T extends TSchema> (roots: string[], inner: T) {
  const props = Object.fromEntries(roots.map((r) => [r, Type.Optional(inner)])) as Record<string, ReturnType<typeof Type.Optional<T>>>
  return Type.Object(props, { 'x-refusal': `Expected a ${roots[0]} document in XML or JSON` })
}

/** The fields under a rootBody's root as the handler gets them (bodyRoot): their names, values unknown. */
export type RootFields<S extends TSchema> = NonNullable<Static<S>[string]>

/**
 * The same shape where the handler checks something else first (a layer, a style name): the body
 * is described, and its refusal left to the handler so the first failure stays the one answered.
 */
export function describedRootBody<T extends TSchema> (roots: string[], inner: T) {
  const { type: _type, 'x-refusal': _refusal, ...shape } = rootBody(roots, inner) as ReturnType<typeof rootBody<T>> & { type?: string, 'x-refusal'?: string }
  return Type.Unsafe<Static<ReturnType<typeof rootBody<T>>>>(shape)
}

/** The same body schema for JSON and XML (the XML parser gives the JSON shape), nothing for other media types. */
export function jsonOrXml (schema: TSchema) {
  return { content: { 'application/json': { schema }, 'application/xml': { schema }, 'text/xml': { schema } } }
}

/** GET {base}/health: an object the handler returns, so this schema is its serializer too. */
export const Health = { 200: { description: 'The catalog database answers', content: { 'application/json': { schema: Type.Object({ status: Type.Literal('ok') }) } } } }
