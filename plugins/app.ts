// mapwarden as a Fastify plugin: `host.register(mapwarden, { prefix: '/geoserver', dataDir })`.
// Not wrapped in fastify-plugin: its hooks, parsers, error handler and decorators stay inside its
// own encapsulation context, so a host's routes and parsers are untouched.
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'
import fp from 'fastify-plugin'
import { resolveConfig, type MapwardenConfig, type MapwardenOptions } from './infra/config.js'
import errors, { escapeControls } from './infra/errors.js'
import bodyValidation from './infra/body-validation.js'
import services from './infra/services.js'
import negotiate from './infra/negotiate.js'
import slowClients from './infra/slow-clients.js'
import auth from './infra/auth.js'
import catalog from './catalog/index.js'
import styles from './styles/index.js'
import mosaics from './mosaics/index.js'
import appschema from './appschema/index.js'
import datastores from './datastores/index.js'
import cascade from './cascade/index.js'
import security from './security/index.js'
import resource from './resource/index.js'
import seed from './seed/index.js'
import diskquota from './diskquota/index.js'
import massTruncate from './gwc/mass-truncate.js'
import gwcLayers from './gwc/layers.js'
import gwcGridsets from './gwc/gridsets.js'
import gwcBlobstores from './gwc/blobstores.js'
import tiles from './tiles/index.js'
import web from './web/index.js'
import wms from './wms/index.js'
import wfs from './wfs/index.js'
import metrics from './metrics/index.js'
import { registerOpenApi } from './openapi/index.js'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Duplex } from 'node:stream'
import { CrossSiteRequest, ServerClosing } from '../services/errors.js'
import { redactUrl } from './infra/url-text.js'
import { produces } from './infra/routes.js'
import { Health } from '../schemas/common.js'

export type MapwardenPluginOptions = MapwardenOptions & {
  /** Where a generated admin password is shown once; default: standard error. */
  announce?: (message: string) => void
}

export default async function mapwarden (app: FastifyInstance, opts: MapwardenPluginOptions) {
  const config = resolveConfig(opts)
  const announce = opts.announce ?? ((m: string) => { process.stderr.write(m) })
  // A request that reaches a closing server (pipelined, or on a busy keep-alive connection) is
  // refused like every other 503, with Retry-After, ahead of every other hook: Fastify's own
  // return503OnClosing answer has no Retry-After, so serverOptions turns it off.
  let closing = false
  app.addHook('preClose', (done) => { closing = true; done() })
  app.addHook('onRequest', (_req, reply, done) => { if (closing) reply.header('connection', 'close'); done(closing ? ServerClosing() : undefined) })
  await app.register(errors)
  await app.register(bodyValidation)
  await app.register(services, { config, prefix: app.prefix, announce })
  await app.register(slowClients, {
    bodyMinRate: config.bodyMinRate,
    bodyTimeoutMs: config.bodyTimeout * 1000,
    uploadTimeoutMs: config.uploadTimeout * 1000,
    maxConnectionsPerAddress: config.maxConnectionsPerAddress
  })
  await app.register(negotiate, { bodyLimit: config.bodyLimit, uploadLimit: config.uploadLimit, uploadDir: path.join(config.dataDir, 'tmp', 'uploads') })
  await app.register(auth, { authenticator: app.authenticator, requireHttps: config.requireHttps })
  // Before every route, so the OpenAPI document ({base}/rest/openapi.json) lists them all.
  await registerOpenApi(app, (createRequire(import.meta.url)('../../package.json') as { version: string }).version)

  app.addHook('onRequest', (req, reply, done) => { reply.header('x-request-id', req.id); done() })
  app.addHook('onRequest', refuseCrossSite(config.trustedOrigins))
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).type('text/plain; charset=utf-8').send(escapeControls(`No such resource: ${req.method} ${req.url.split('?')[0]}`))
  })
  app.get('/health', { schema: { summary: 'Health check: 200 while the catalog database answers', response: Health }, config: { access: 'public' } }, async () => {
    await app.ping()
    return { status: 'ok' as const }
  })

  await app.register(async (rest) => {
    // GeoServer's catalog controllers produce {JSON, XML, HTML} (about: HTML, JSON, XML): `Accept: */*`
    // or none answers JSON there (the Python client's get_workspaces parses it). The security
    // controllers, the resource API and GeoWebCache keep XML first.
    await rest.register(async (jsonFirst) => {
      produces(jsonFirst, ['json', 'xml'])
      await jsonFirst.register(catalog)
      await jsonFirst.register(styles)
      await jsonFirst.register(mosaics)
      await jsonFirst.register(datastores)
      await jsonFirst.register(cascade)
      await jsonFirst.register(appschema)
    })
    await rest.register(security, { prefix: '/security' })
    await rest.register(resource, { prefix: '/resource' })
  }, { prefix: '/rest' })
  // GeoWebCache's REST API, under mapwarden's name and GeoServer's (/gwc).
  for (const prefix of ['/tilecache', '/gwc']) {
    await app.register(async (cache) => {
      await cache.register(seed, { prefix: '/rest' })
      await cache.register(diskquota, { prefix: '/rest' })
      await cache.register(massTruncate, { prefix: '/rest' })
      await cache.register(gwcLayers, { prefix: '/rest' })
      await cache.register(gwcGridsets, { prefix: '/rest' })
      await cache.register(gwcBlobstores, { prefix: '/rest' })
      await cache.register(tiles, { prefix: '/service' })
    }, { prefix })
  }
  // WMS 1.1.1/1.3.0: {base}/wms, {base}/ows, {base}/<ws>/wms, {base}/gwc/service/wms.
  await app.register(wms)
  // WFS 2.0.0/1.1.0/1.0.0 (read-only): {base}/wfs, {base}/<ws>/wfs, and /ows when SERVICE=WFS.
  await app.register(wfs)
  // The admin page ({base}/web/) and {base}/session.
  await app.register(web)
  // {base}/metrics for Prometheus (MAPWARDEN_METRICS).
  if (config.metrics !== 'off') await app.register(metrics, { access: config.metrics })
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'DELETE', 'PATCH'])

/**
 * A browser that used the admin page keeps sending its Basic credentials; any other page could make
 * it post a form or a text/plain body here. State-changing requests that the browser marks as
 * cross-site (Sec-Fetch-Site, or an Origin that is neither this server's nor a trusted one) are
 * refused; requests without those headers (curl, client libraries) are not browsers' and pass.
 */
function refuseCrossSite (trusted: string[]) {
  const allowed = new Set(trusted)
  return (req: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    if (!STATE_CHANGING.has(req.method)) return done()
    const origin = req.headers.origin
    const own = `${req.protocol}://${req.host}`
    const crossSite = req.headers['sec-fetch-site'] === 'cross-site' && (origin === undefined || !allowed.has(origin))
    if (crossSite || (origin !== undefined && origin !== own && !allowed.has(origin))) {
      return done(CrossSiteRequest(req.method, JSON.stringify(origin ?? 'another site')))
    }
    done()
  }
}

/**
 * The router's options. `//` in a path is one `/`, as GeoServer's Spring MVC reads it:
 * geoserver-node-client's layer group calls build `${url}/workspaces/...` on a base URL that ends in `/`.
 */
export const ROUTER_OPTIONS = { maxParamLength: 1000, ignoreDuplicateSlashes: true }

/** Fastify options for a standalone server (plugins/server.ts) or a host that wants the same. */
export function serverOptions (config: Pick<MapwardenConfig, 'logLevel' | 'bodyLimit'>): FastifyServerOptions {
  return {
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'], censor: '[redacted]' },
      serializers: {
        req: (req: FastifyRequest) => ({ method: req.method, url: redactUrl(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort })
      }
    },
    requestIdHeader: 'x-request-id',
    bodyLimit: config.bodyLimit,
    routerOptions: ROUTER_OPTIONS,
    forceCloseConnections: 'idle',
    return503OnClosing: false, // mapwarden answers them itself, with Retry-After (see above)
    // Errors met before a route is found answer like every other refusal: text/plain, no internals
    // (Fastify's defaults are JSON that names its own error codes).
    frameworkErrors: (err, _req, reply) => {
      const message = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'Path segment too long' : 'Malformed URL: a path segment is not valid percent-encoded UTF-8'
      ;(reply as FastifyReply).code(400).type('text/plain; charset=utf-8').send(message)
    },
    clientErrorHandler
  }
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'Request headers larger than the server accepts'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'Request not received in time']
}

/** Requests Node's HTTP parser refuses (bad framing, oversize headers): a text/plain answer, then close. */
function clientErrorHandler (err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, reason, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad Request', 'Malformed HTTP request']
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(message)}\r\nConnection: close\r\n\r\n${message}`)
  }
  socket.destroy()
}

export { resolveConfig, redactUrl }
export type { MapwardenConfig, MapwardenOptions }

/**
 * The same plugin without its own encapsulation, for tests, benchmarks and hosts that want the
 * decorators (app.tileCache, app.styles...). A separate function, because fastify-plugin marks the
 * function it is given: wrapping the default export itself would strip its encapsulation (and
 * its prefix) everywhere else in the process.
 */
export const exposedMapwarden = fp((instance: FastifyInstance, opts: MapwardenPluginOptions) => mapwarden(instance, opts), { name: 'mapwarden-exposed' })
