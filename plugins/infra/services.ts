// Hands the services to Fastify: opens the stores (services/storage/stores.ts), builds every
// service once (services/create-services.ts) and decorates the app with them, so each area's
// plugin reads app.<service>. The lifecycle follows the app's: start on ready, seed tasks stop in
// preClose, everything else closes in onClose.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { MapwardenConfig } from './config.js'
import { openPgStores, openSqliteStores, type SqliteStores, type Stores } from '../../services/storage/stores.js'
import { createFaults, killProcessAt } from '../../services/faults.js'
import { createServices, type Services } from '../../services/create-services.js'

export interface Urls {
  /** Absolute URL of `{base}/rest/<segments>` for links, each segment URL-encoded as GeoServer does. */
  rest (req: FastifyRequest, ...segments: string[]): string
  /** Absolute URL of `{base}/<segments>` (tile services, web page). */
  base (req: FastifyRequest, ...segments: string[]): string
}

type Decorated = Omit<Services, 'ping' | 'start' | 'stopTasks' | 'close'>

declare module 'fastify' {
  interface FastifyInstance extends Decorated {
    config: MapwardenConfig
    /** The SQLite catalog (tests read its rows); undefined on PostgreSQL. */
    db: SqliteStores['db']
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
  const stores: Stores = config.databaseUrl
    ? await openPgStores(config.databaseUrl, config.dataDir, { fault: faults, onError: (err) => app.log.warn({ err }, 'catalog database connection') })
    : await openSqliteStores(config.dataDir, { fault: faults })
  const built = await createServices(config, stores, {
    log: app.log,
    faults,
    announce,
    passwordHint: `curl -u admin:OLD -X POST -H 'Content-Type: application/json' -d '{"user":{"password":"NEW"}}' http://HOST${prefix}/rest/security/usergroup/user/admin`
  }).catch(async (err) => { await stores.close(); throw err })
  const { ping, start, stopTasks, close, ...decorated } = built
  for (const [name, service] of Object.entries(decorated)) app.decorate<unknown>(name, service)
  app.decorate('ping', ping)
  app.decorate('config', config)
  app.decorate<SqliteStores['db'] | undefined>('db', 'db' in stores ? (stores as SqliteStores).db : undefined)
  const urlFor = (req: FastifyRequest, parts: string[]) =>
    `${req.protocol}://${req.host}${prefix}/${parts.map(encodeSegment).join('/')}`
  app.decorate('urls', {
    rest: (req: FastifyRequest, ...segments: string[]) => urlFor(req, ['rest', ...segments]),
    base: (req: FastifyRequest, ...segments: string[]) => urlFor(req, segments)
  })
  app.addHook('onReady', start)
  app.addHook('preClose', stopTasks)
  app.addHook('onClose', close)
}

export default fp(services, { name: 'services' })
