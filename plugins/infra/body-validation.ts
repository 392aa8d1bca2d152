// Request bodies are checked by TypeBox's compiled checker rather than Fastify's Ajv: Ajv's
// defaults (coerceTypes, removeAdditional, useDefaults) rewrite a body before the handler sees it,
// so a value GeoServer refuses by name would be changed or dropped in silence. A schema node may
// carry `x-refusal`, GeoServer's message for a body refused there; errors.ts sends it, so every
// refusal keeps GeoServer's wording whichever check makes it. A field marked `x-checked-by`
// (schemas/common.ts field()) shows its type in the OpenAPI document but is the service's to refuse,
// in GeoServer's words and order: the validator reads it as any value.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify'
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import { createRequire } from 'node:module'
import { CHECKED_BY } from '../../schemas/common.js'

const REFUSAL = 'x-refusal'

type Node = Record<string, unknown> | undefined
const refusalOf = (node: Node) => (typeof node?.[REFUSAL] === 'string' ? node[REFUSAL] : undefined)

/** The `x-refusal` of the deepest node on a failing check's schema path (`#/properties/a/...`). */
export function refusalAt (schema: unknown, schemaPath: string): string | undefined {
  let node = schema as Node
  let found = refusalOf(node)
  for (const step of schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    node = node?.[step.replace(/~1/g, '/').replace(/~0/g, '~')] as Node
    found = refusalOf(node) ?? found
  }
  return found
}

/** The schema the validator compiles: a field the service checks accepts any value there. */
export function validatedShape (schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(validatedShape)
  if (schema === null || typeof schema !== 'object') return schema
  const node = schema as Record<string, unknown>
  if (node[CHECKED_BY] !== undefined) return { description: node.description }
  // Descriptors, not a spread: TypeBox keeps its own (non-enumerable) marks on a node.
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(node)) as Record<string, unknown>
  for (const [k, v] of Object.entries(node)) copy[k] = validatedShape(v)
  return copy
}

interface CheckError { schemaPath: string, refusal?: string }

// Params and query of the same routes keep the compiler (and the messages) Fastify gives every other
// route: its own @fastify/ajv-compiler, with its default options.
type AjvFactory = () => (externalSchemas: object, options: { customOptions: object }) => FastifySchemaCompiler<unknown>
const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'))
let ajv: FastifySchemaCompiler<unknown> | undefined
const defaultCompiler = () => (ajv ??= (fastifyRequire('@fastify/ajv-compiler') as AjvFactory)()({}, { customOptions: {} }))

const compile: FastifySchemaCompiler<unknown> = (route) => {
  if (route.httpPart !== 'body') return defaultCompiler()(route)
  const check = TypeBoxValidatorCompiler({ ...route, schema: validatedShape(route.schema) } as Parameters<typeof TypeBoxValidatorCompiler>[0])
  return (value: unknown) => {
    const result = check(value) as { value?: unknown, error?: CheckError[] }
    for (const e of result.error ?? []) e.refusal = refusalAt(route.schema, e.schemaPath)
    return result as ReturnType<typeof check>
  }
}

/** Every route with a body schema (schemas/) gets the compiler above. */
async function bodyValidation (app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    if (route.schema?.body !== undefined && route.validatorCompiler === undefined) route.validatorCompiler = compile
  })
}

export default fp(bodyValidation, { name: 'body-validation' })
