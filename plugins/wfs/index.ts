// WFS 2.0.0 / 1.1.0 / 1.0.0 (with Transaction and locks) at {base}/wfs, per workspace at {base}/<ws>/wfs, and at
// {base}/ows and {base}/<ws>/ows for requests that say SERVICE=WFS or POST a WFS XML document (a
// route constraint sends those here and leaves the rest of /ows to the WMS). KVP by GET or by POST
// as a form; XML by POST. The routes are public at the HTTP level: every feature type goes through
// app.wfs, which applies the layer rules and the catalog mode.
// Failures answer as WFS clients read them: the exception report of the version asked for, with
// GeoServer's statuses (2.0.0: 400, 404 NotFound, 500; 1.1.0 and 1.0.0: 200), challenges (401, 403), an unknown workspace (404)
// and the server's own trouble (5xx) keeping theirs. Features are streamed (a Readable of the body).
import { Readable } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { statusOf } from '../infra/errors.js'
import { isXmlBody, owsKvp, urlKvp } from '../infra/ows-kvp.js'
import { DoctypeNotAllowed, isMapwardenError, MalformedXml, NulCharacter, TooDeep, WfsInvalidParameter, WorkspaceNotFound } from '../../services/errors.js'
import type { Kvp, WfsVersion, Where } from '../../services/wfs/wfs-service.js'
import { EXCEPTION_TYPE, exceptionReport, ogcFailure, statusOfCode } from '../../services/wfs/exceptions.js'

const PUBLIC = { config: { access: 'public' as const } }
const CONSTRAINT = 'mapwardenOwsService'

const kState = Symbol('wfs request')
const BODY_ERRORS = new Set([NulCharacter.code, MalformedXml.code, DoctypeNotAllowed.code, TooDeep.code])
type WithState = FastifyRequest & { [kState]?: { kvp: Kvp, version: WfsVersion } }

/**
 * Whether a request to /ows is a WFS request: SERVICE=WFS in the query (read as owsKvp reads it:
 * a repeated SERVICE, the last one), or an XML body (the WMS takes none).
 */
function owsIsWfs (req: { method?: string, url?: string, headers: Record<string, string | string[] | undefined> }): boolean {
  const service = urlKvp(req.url).SERVICE
  if (service !== undefined) return service.trim().toUpperCase() === 'WFS'
  return req.method === 'POST' && /^(application|text)\/xml/i.test(String(req.headers['content-type'] ?? ''))
}

export default async function wfs (app: FastifyInstance) {
  const service = app.wfs

  if (!app.hasConstraintStrategy(CONSTRAINT)) {
    app.addConstraintStrategy({
      name: CONSTRAINT,
      storage () {
        const handlers = new Map<string, unknown>()
        return { get: (k: string) => handlers.get(k) ?? null, set: (k: string, v: unknown) => { handlers.set(k, v) } }
      },
      deriveConstraint: (req: { method?: string, url?: string, headers: Record<string, string | string[] | undefined> }) => owsIsWfs(req) ? 'WFS' : 'other',
      mustMatchWhenDerived: false
    } as Parameters<FastifyInstance['addConstraintStrategy']>[0])
  }

  app.setErrorHandler(async (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    // A body the XML parser refused (malformed, a DOCTYPE, too deep, a NUL) is the WFS request's own
    // fault: its report, in the version its root names where that can be read (OperationParsingFailed).
    const bodyRefused = BODY_ERRORS.has(String((err as FastifyError).code))
    const state = (req as WithState)[kState] ?? (bodyRefused ? { kvp: owsKvp(req), version: service.versionOf(owsKvp(req), req.rawText) } : undefined)
    // Refused before the WFS read the request (credentials, a cross-site POST): answered as every
    // other route answers it, by the parent handler (plugins/infra/errors.ts).
    if (state === undefined) throw err
    const status = statusOf(err)
    if (status >= 500 && status !== 503 && status !== 507) req.log.error({ err }, 'unexpected failure')
    else req.log.info({ status, code: (err as FastifyError).code, msg: err.message }, 'request refused')
    const message = isMapwardenError(err) || status < 500 ? err.message : 'Internal server error'
    if (status === 401) reply.header('WWW-Authenticate', 'Basic realm="GeoServer Realm"')
    if (status === 503) reply.header('Retry-After', '1')
    const failure = ogcFailure(err)
    // GeoServer: WFS 2.0.0 answers 400 (404 NotFound, 500 OperationProcessingFailed), 1.x 200.
    let httpStatus = status
    // An unknown workspace of a virtual service ({base}/<ws>/wfs) stays 404, as on the WMS.
    if (status >= 400 && status < 500 && status !== 401 && status !== 403 && status !== 404) httpStatus = state.version === '2.0.0' ? statusOfCode(failure.code) : 200
    return reply.code(httpStatus).type(EXCEPTION_TYPE).send(exceptionReport(state.version, message, failure))
  })

  const serviceUrl = (req: FastifyRequest, path: string) => `${app.urls.absolute(req, app.prefix + path)}?`

  function handler (where: (req: FastifyRequest) => Where, path: (req: FastifyRequest) => string) {
    return async (req: FastifyRequest, reply: FastifyReply) => {
      const q = owsKvp(req)
      const xml = req.method === 'POST' && isXmlBody(req) ? req.rawText ?? '' : undefined;
      (req as WithState)[kState] = { kvp: q, version: service.versionOf(q, xml) }
      const svc = q.SERVICE?.trim()
      if (svc !== undefined && svc !== '' && svc.toUpperCase() !== 'WFS') throw WfsInvalidParameter('service', JSON.stringify(svc.slice(0, 30)), 'this endpoint serves WFS')
      const w = where(req)
      if (w.workspace !== undefined && !(await app.workspaces.exists(w.workspace))) throw WorkspaceNotFound(w.workspace)
      // A disabled WFS (a workspace's own settings on its virtual service) answers every request with its report.
      service.checkEnabled(w)
      const url = serviceUrl(req, path(req))
      const page = req.method === 'GET' ? (start: number) => pageUrl(url, req, start) : undefined
      const answer = await app.wfs.handle(q, xml, req.principal, w, { service: url, ...(page ? { page } : {}) })
      if (answer.disposition) reply.header('content-disposition', answer.disposition)
      reply.type(answer.contentType)
      return typeof answer.body === 'string' ? reply.send(answer.body) : reply.send(Readable.from(answer.body))
    }
  }

  type WsReq = FastifyRequest<{ Params: { ws: string } }>
  const global = handler(() => ({}), () => '/wfs')
  const ows = handler(() => ({}), () => '/ows')
  const perWs = handler((req) => ({ workspace: (req as WsReq).params.ws }), (req) => `/${encodeURIComponent((req as WsReq).params.ws)}/wfs`)
  const perWsOws = handler((req) => ({ workspace: (req as WsReq).params.ws }), (req) => `/${encodeURIComponent((req as WsReq).params.ws)}/ows`)
  const wfsOnly = { constraints: { [CONSTRAINT]: 'WFS' } }
  const routes: Array<[string, typeof global, string, object]> = [
    ['/wfs', global, 'WFS 2.0.0/1.1.0/1.0.0: GetCapabilities, DescribeFeatureType, GetFeature, GetPropertyValue, stored queries, Transaction, LockFeature, GetFeatureWithLock', {}],
    ['/ows', ows, 'OWS endpoint (SERVICE=WFS, or a WFS XML document)', wfsOnly],
    ['/:ws/wfs', perWs, "A workspace's WFS: its feature types only", {}],
    ['/:ws/ows', perWsOws, "A workspace's OWS endpoint (SERVICE=WFS, or a WFS XML document)", wfsOnly]
  ]
  for (const method of ['GET', 'POST'] as const) {
    for (const [url, h, summary, extra] of routes) {
      app.route({ method, url, ...PUBLIC, ...extra, schema: { summary: method === 'POST' ? `${summary} (KVP as a POST form, or XML)` : summary }, handler: h })
    }
  }
}

/** This GET request's URL on the service URL, with STARTINDEX set (paging links). */
function pageUrl (service: string, req: FastifyRequest, start: number): string {
  const params = new URLSearchParams(req.url.split('?')[1] ?? '')
  for (const k of [...params.keys()]) if (k.toUpperCase() === 'STARTINDEX') params.delete(k)
  params.set('startIndex', String(start))
  return service + params.toString()
}
