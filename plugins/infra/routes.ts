// Small helpers that every area's routes use.
import type { FastifyInstance, FastifyBaseLogger, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { InvalidBody } from '../../services/errors.js'
import { refuseTypeHints } from '../../services/body-fields.js'

/** An area's Fastify instance: params, query and body typed from the route's schemas/ shapes. */
export type TypedApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>

/** A collection path with its representation forms: '/styles', '/styles.xml', '/styles.json'. */
export function suffixed (path: string, suffixes: string[] = ['xml', 'json']): string[] {
  return [path, ...suffixes.map((s) => `${path}.${s}`)]
}

/**
 * The object under the expected root of an XML or JSON body ({ workspace: {...} }). XML text
 * values are strings; JSON keeps its types. Unknown roots are refused with the expected name.
 */
export function bodyRoot (body: unknown, ...roots: string[]): Record<string, any> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw InvalidBody(`Expected a ${roots[0]} document in XML or JSON`)
  }
  const keys = Object.keys(body)
  const root = roots.find((r) => keys.length === 1 && keys[0] === r)
  if (!root) throw InvalidBody(`Expected root element ${roots.join(' or ')}, found ${keys.slice(0, 3).join(', ') || 'none'}`)
  const value = (body as Record<string, unknown>)[root]
  if (value === '' || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value)) throw InvalidBody(`${root} must be an object`)
  refuseTypeHints(value, root)
  return value as Record<string, any>
}
