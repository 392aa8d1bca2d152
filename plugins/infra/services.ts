// Hands the services to Fastify: builds every service once on the stores the configuration names
// (services/create-services.ts) and decorates the app with them, so each area's
// plugin reads app.<service>. The lifecycle follows the app's: start on ready, seed tasks stop in
// preClose, everything else closes in onClose.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { MapwardenConfig } from './config.js'
import type { Db } from '../../services/storage/sqlite/database.js'
import { createFaults, killProcessAt } from '../../services/faults.js'
import { createServices, type Services } from '../../services/create-services.js'

/**
 * The one place absolute URLs are built (atom links, Location headers, capabilities, task links, the
 * OpenAPI servers): from the global settings' proxyBaseUrl when set, which stands for
 * `http(s)://<host>{base}`, else from the request's scheme and Host.
 */
export interface Urls {
  /** `http(s)://<host>{base}` for this request, or the proxy base URL; no trailing slash. */
  root (req: FastifyRequest): string
  /** Absolute URL of a path under the server that starts with `{base}` (a plugin's `app.prefix` and more). */
  absolute (req: FastifyRequest, path: string): string
  /** Absolute URL of `{base}/rest/<segments>` for links, each segment URL-encoded as GeoServer does. */
  rest (req: FastifyRequest, ...segments: string[]): string
  /** Absolute URL of `{base}/<segments>` (tile services, web page). */
  base (req: FastifyRequest, ...segments: string[]): string
}

type Decorated = Omit<Services, 'db' | 'ping' | 'start' | 'stopTasks' | 'close'>

declare module 'fastify' {
  interface FastifyInstance extends Decorated {
    config: MapwardenConfig
    /** The SQLite catalog (tests read its rows); undefined on PostgreSQL. */
    db: Db
    urls: Urls
    /** Resolves while the catalog database answers (the health check). */
    ping (): Promise<void>
  }
}

/** java.net.URLEncoder semantics: a space is '+'. */
export function encodeSegment (s: string): string {
  return encodeURIComponent(s).replace(/%20/g, '+')
}

export interface ServicesOptions {
  config: MapwardenConfig
  prefix: string
  /** Where a generated admin password is shown, once. */
  announce: (message: string) => void
}

async function services (app: FastifyInstance, { config, prefix, announce }: ServicesOptions) {
  // Test-only (test/crash/): the process kills itself at a configured fault point, as kill -9 would;
  // some of those points are inside the stores' transactions.
  const faults = createFaults(config.faultKillAt, killProcessAt)
  const built = await createServices(config, {
    log: app.log,
    faults,
    announce,
    passwordHint: `curl -u admin:OLD -X POST -H 'Content-Type: application/json' -d '{"user":{"password":"NEW"}}' http://HOST${prefix}/rest/security/usergroup/user/admin`
  })
  const { db, ping, start, stopTasks, close, ...decorated } = built
  for (const [name, service] of Object.entries(decorated)) app.decorate<unknown>(name, service)
  app.decorate('ping', ping)
  app.decorate('config', config)
  app.decorate<Db | undefined>('db', db)
  const root = (req: FastifyRequest) => built.globalSettings.proxyBaseUrl() ?? `${req.protocol}://${req.host}${prefix}`
  const urlFor = (req: FastifyRequest, parts: string[]) => `${root(req)}/${parts.map(encodeSegment).join('/')}`
  app.decorate('urls', {
    root,
    absolute: (req: FastifyRequest, path: string) => {
      if (!path.startsWith(prefix)) throw new Error(`${path} is not under ${prefix}`)
      return root(req) + path.slice(prefix.length)
    },
    rest: (req: FastifyRequest, ...segments: string[]) => urlFor(req, ['rest', ...segments]),
    base: (req: FastifyRequest, ...segments: string[]) => urlFor(req, segments)
  })
  app.addHook('onReady', start)
  app.addHook('preClose', stopTasks)
  app.addHook('onClose', close)
}

export default fp(services, { name: 'services' })
