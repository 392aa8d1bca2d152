// WMS 1.1.1 and 1.3.0 (GetCapabilities, GetMap, GetFeatureInfo) at {base}/wms, {base}/ows
// (SERVICE=WMS), per workspace at {base}/<ws>/wms and {base}/<ws>/ows, and GeoWebCache's tiled WMS
// at {base}/gwc/service/wms (maps from the tile cache only). KVP by GET, or by POST as a form.
// The routes are public at the HTTP level: every layer goes through app.wms, which reads it through
// the tile cache's authorizer (the layer rules and the catalog mode).
// Failures answer as WMS clients read them: a ServiceExceptionReport with the OGC code, in the
// version asked for, with the status plugins/infra/errors.ts gives the failure; EXCEPTIONS=INIMAGE
// or BLANK turn a GetMap failure into an image.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { statusOf } from '../infra/errors.js'
import { owsKvp } from '../infra/ows-kvp.js'
import { isMapwardenError, NulCharacter, WmsInvalidParameter, WorkspaceNotFound } from '../../services/errors.js'
import { type Kvp, type MapAnswer, type Where } from '../../services/wms/wms-service.js'
import { EXCEPTION_TYPES, ogcCode, serviceExceptionReport } from '../../services/wms/exceptions.js'
import { versionOf } from '../../services/wms/request.js'

const PUBLIC = { config: { access: 'public' as const } }

const kKvp = Symbol('wms kvp')
type WithKvp = FastifyRequest & { [kKvp]?: Kvp }

function sendMap (reply: FastifyReply, map: MapAnswer) {
  if (map.cacheResult) reply.header('geowebcache-cache-result', map.cacheResult)
  if (map.missReason) reply.header('geowebcache-miss-reason', map.missReason)
  return reply.type(map.contentType).send(Buffer.from(map.data.buffer, map.data.byteOffset, map.data.byteLength))
}

export default async function wms (app: FastifyInstance) {
  const service = app.wms

  app.setErrorHandler(async (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    // A NUL in a parameter is refused before the handler runs (infra/negotiate.ts) but is the
    // client's WMS request all the same: answered as the WMS answers any bad parameter.
    const q = (req as WithKvp)[kKvp] ?? ((err as FastifyError).code === NulCharacter.code ? owsKvp(req) : undefined)
    // Refused before the WMS read the request (credentials, a cross-site POST): answered as every
    // other route answers it, by the parent handler (plugins/infra/errors.ts).
    if (q === undefined) throw err
    const status = statusOf(err)
    const known = isMapwardenError(err)
    if (status === 502 && known) req.log.warn({ code: (err as FastifyError).code, msg: err.message }, 'a cascaded remote server failed')
    else if (status >= 500 && status !== 503 && status !== 507) req.log.error({ err }, 'unexpected failure')
    else req.log.info({ status, code: (err as FastifyError).code, msg: err.message }, 'request refused')
    const message = known || status < 500 ? err.message : 'Internal server error'
    if (status === 401) reply.header('WWW-Authenticate', 'Basic realm="GeoServer Realm"')
    if (status === 503) reply.header('Retry-After', '1')
    // INIMAGE / BLANK: a GetMap whose size and format are readable gets an image (GeoServer: 200).
    if (status !== 401 && status !== 403 && (q.REQUEST ?? '').toLowerCase() === 'getmap') {
      const image = await service.exceptionImage(q, message).catch(() => undefined)
      if (image) return sendMap(reply.code(200), image)
    }
    const version = versionOf(q, q.CRS !== undefined ? '1.3.0' : q.SRS !== undefined ? '1.1.1' : '1.3.0')
    // GeoServer's OWS dispatcher answers a refused request with its exception report and 200 (some
    // clients give up on a 4xx before reading the report); W3CSTATUS=true asks for the HTTP status
    // instead, as GeoServer Cloud offers. Challenges (401, 403), a missing service (404) and the
    // server's own trouble (5xx) keep their status.
    const w3c = String(q.W3CSTATUS ?? '').toLowerCase() === 'true'
    const httpStatus = status >= 400 && status < 500 && ![401, 403, 404].includes(status) && !w3c ? 200 : status
    return reply.code(httpStatus).type(`${EXCEPTION_TYPES[version]}; charset=utf-8`)
      .send(serviceExceptionReport(version, message, ogcCode(err, version)))
  })

  const url = (req: FastifyRequest, path: string) => `${app.urls.absolute(req, app.prefix + path)}?`

  function handler (where: (req: FastifyRequest) => Where, path: (req: FastifyRequest) => string, serviceRequired = false) {
    return async (req: FastifyRequest, reply: FastifyReply) => {
      const q = owsKvp(req);
      (req as WithKvp)[kKvp] = q
      const svc = q.SERVICE?.trim()
      if (svc !== undefined && svc !== '' && svc.toUpperCase() !== 'WMS') throw WmsInvalidParameter('SERVICE', JSON.stringify(svc.slice(0, 30)), 'this endpoint serves WMS')
      // /ows serves several OGC services: only WMS's own operations may leave SERVICE out.
      if (serviceRequired && (svc === undefined || svc === '') && !['getmap', 'getfeatureinfo', 'getlegendgraphic'].includes((q.REQUEST ?? '').toLowerCase())) {
        throw WmsInvalidParameter('SERVICE', '(missing)', 'SERVICE=WMS is needed at /ows')
      }
      const w = where(req)
      if (w.workspace !== undefined && !(await app.workspaces.exists(w.workspace))) throw WorkspaceNotFound(w.workspace)
      // A disabled WMS answers every request, GeoWebCache's tiled WMS included, with its exception.
      service.checkEnabled(w)
      const op = service.operation(q)
      if (op === 'GetCapabilities') {
        const caps = await service.capabilities(q, req.principal, w, url(req, path(req)))
        return reply.type(`${caps.contentType}; charset=utf-8`).header('cache-control', 'no-cache').send(caps.body)
      }
      if (op === 'GetMap') {
        const map = await service.getMap(q, req.principal, w)
        // GeoWebCache's tiled WMS (WMS-C) answers from the cache only; the others draw what it cannot answer.
        app.metrics.tileServed(w.cacheOnly ? 'wms-c' : 'wms', map.cacheResult === 'HIT' ? 'hit' : map.cacheResult === 'MISS' ? 'miss' : 'uncached')
        return sendMap(reply, map)
      }
      if (op === 'GetLegendGraphic') return sendMap(reply, await service.getLegendGraphic(q, req.principal, w))
      const info = await service.getFeatureInfo(q, req.principal, w)
      return reply.type(info.contentType).send(info.body)
    }
  }

  type WsReq = FastifyRequest<{ Params: { ws: string } }>
  const global = handler(() => ({}), () => '/wms')
  const ows = handler(() => ({}), () => '/ows', true)
  const perWs = handler((req) => ({ workspace: (req as WsReq).params.ws }), (req) => `/${encodeURIComponent((req as WsReq).params.ws)}/wms`)
  const perWsOws = handler((req) => ({ workspace: (req as WsReq).params.ws }), (req) => `/${encodeURIComponent((req as WsReq).params.ws)}/ows`, true)
  const gwc = handler(() => ({ cacheOnly: true }), () => '/gwc/service/wms')
  const routes: Array<[string, typeof global, string]> = [
    ['/wms', global, 'WMS 1.1.1/1.3.0: GetCapabilities, GetMap, GetFeatureInfo'],
    ['/ows', ows, 'OWS endpoint (SERVICE=WMS): GetCapabilities, GetMap, GetFeatureInfo'],
    ['/:ws/wms', perWs, "A workspace's WMS: its layers only, by their local names"],
    ['/:ws/ows', perWsOws, "A workspace's OWS endpoint (SERVICE=WMS)"],
    ['/gwc/service/wms', gwc, "GeoWebCache's WMS: tile-aligned GetMap from the tile cache"]
  ]
  for (const method of ['GET', 'POST'] as const) {
    for (const [url, h, summary] of routes) {
      app.route({ method, url, ...PUBLIC, schema: { summary: method === 'POST' ? `${summary} (KVP as a POST form)` : summary }, handler: h })
    }
  }
}
