// Small helpers that every area's routes use.
import type { FastifyInstance, FastifyBaseLogger, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { InvalidBody, MethodNotAllowed } from '../../services/errors.js'
import { refuseTypeHints } from '../../services/body-fields.js'

/** An area's Fastify instance: params, query and body typed from the route's schemas/ shapes. */
export type TypedApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>

/** A collection path with its representation forms: '/styles', '/styles.xml', '/styles.json'. */
export function suffixed (path: string, suffixes: string[] = ['xml', 'json']): string[] {
  return [path, ...suffixes.map((s) => `${path}.${s}`)]
}

/**
 * The order in which every route of this scope (and the scopes it registers after) produces its
 * representations, unless a route names its own: GeoServer's catalog controllers list
 * `produces = {JSON, XML, HTML}`, so `Accept: *\/*` or none answers JSON there; GeoWebCache's and the
 * security controllers answer XML. Call before the routes are added.
 */
export function produces (app: FastifyInstance, order: Array<'json' | 'xml'>): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.produces === undefined) route.config = { ...route.config, produces: order }
  })
}

/** A route config for the controllers that produce XML first (GeoServer's upload PUTs, StructuredCoverageController). */
export const XML_FIRST: { produces: Array<'xml' | 'json'> } = { produces: ['xml', 'json'] }

/** Routes that only refuse their methods with 405, as GeoServer's controllers do for the methods
 *  they do not map (after the access check, as every route). */
export function refuseMethods (app: FastifyInstance, urls: string[], methods: Array<'GET' | 'POST' | 'PUT' | 'DELETE'>, who = 'GeoServer'): void {
  for (const url of urls) {
    for (const method of methods) {
      app.route({ method, url, schema: { summary: `Not allowed: answers 405 (as ${who})` }, handler: async (req) => { throw MethodNotAllowed(req.method) } })
    }
  }
}

/**
 * The object under the expected root of an XML or JSON body ({ workspace: {...} }). XML text
 * values are strings; JSON keeps its types. Unknown roots are refused with the expected name.
 */
export function bodyRoot<T extends object = Record<string, any>> (body: unknown, ...roots: string[]): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw InvalidBody(`Expected a ${roots[0]} document in XML or JSON`)
  }
  const keys = Object.keys(body)
  const root = roots.find((r) => keys.length === 1 && keys[0] === r)
  if (!root) throw InvalidBody(`Expected root element ${roots.join(' or ')}, found ${keys.slice(0, 3).join(', ') || 'none'}`)
  const value = (body as Record<string, unknown>)[root]
  if (value === '' || value === null) return {} as T
  if (typeof value !== 'object' || Array.isArray(value)) throw InvalidBody(`${root} must be an object`)
  refuseTypeHints(value, root)
  return value as T
}

/** GeoServer's RestControllerAdvice: `?quietOnNotFound=true` keeps a 404 but drops its message (for this plugin's routes). */
export function quietOnNotFound (app: TypedApp): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode === 404 && (req.query as Record<string, unknown>)?.quietOnNotFound === 'true') return ''
    return payload
  })
}
