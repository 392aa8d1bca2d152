// HTTP Basic on every route of the service (GeoServer's `rest` and `gwc` filter chains), with
// per-route access: 'admin' (the default: secure unless a route says otherwise), 'authenticated',
// or 'public' (anonymous allowed; credentials, when sent, are still checked).
import fp from 'fastify-plugin'
import basicAuth from '@fastify/basic-auth'
import type { FastifyInstance, FastifyRequest, FastifyReply } from 'fastify'
import { ANONYMOUS, type Authenticator, type Principal } from '../../services/auth/authenticator.js'
import { AccessDenied, AdminRequired, CredentialsRefused } from '../../services/errors.js'
import { ADMIN_ROLES } from '../../services/auth/roles.js'

export type Access = 'admin' | 'authenticated' | 'public'
export const REALM = 'GeoServer Realm'

declare module 'fastify' {
  interface FastifyRequest { principal: Principal }
  interface FastifyContextConfig {
    /** Who may call the route; default 'admin'. */
    access?: Access
  }
}

export function isAdmin (p: Principal): boolean {
  return p.roles.some((r) => ADMIN_ROLES.includes(r))
}

async function auth (app: FastifyInstance, opts: { authenticator: Authenticator, requireHttps: boolean }) {
  app.decorateRequest('principal', undefined as unknown as Principal)
  await app.register(basicAuth, {
    // No header from the plugin (it would add `, charset="UTF-8"`): plugins/infra/errors.ts sets
    // GeoServer's exact challenge, `Basic realm="GeoServer Realm"`, on every 401.
    authenticate: false,
    async validate (user: string, password: string, req: FastifyRequest) {
      const principal = await opts.authenticator.authenticate(user, password, req.ip)
      if (!principal) throw CredentialsRefused()
      req.principal = principal
    }
  })

  const check = (req: FastifyRequest, reply: FastifyReply) => new Promise<void>((resolve, reject) => {
    app.basicAuth(req, reply, (err?: Error) => err ? reject(err) : resolve())
  })

  // Fast path for a recently verified Authorization header: no promise chain through basic-auth.
  const cachedPrincipal = (header: string | undefined): Principal | undefined => {
    if (!header || !header.startsWith('Basic ')) return undefined
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8')
    const i = decoded.indexOf(':')
    return i > 0 ? opts.authenticator.cached(decoded.slice(0, i), decoded.slice(i + 1)) : undefined
  }

  app.addHook('onRequest', async (req, reply) => {
    const access: Access = req.routeOptions.config?.access ?? 'admin'
    if (opts.requireHttps && req.headers.authorization && req.protocol !== 'https') {
      throw AccessDenied('Basic credentials are refused over plain HTTP; use HTTPS')
    }
    if (access === 'public' && !req.headers.authorization) { req.principal = ANONYMOUS; return }
    const fast = cachedPrincipal(req.headers.authorization)
    if (fast) req.principal = fast
    else await check(req, reply)
    if (access === 'admin' && !isAdmin(req.principal)) throw AdminRequired()
  })
}

export default fp(auth, { name: 'auth', dependencies: ['errors'] })
