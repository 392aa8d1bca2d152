// Tile services over the tile cache: WMTS 1.0.0 (GetCapabilities and GetTile, KVP and RESTful),
// TMS 1.0.0 and an XYZ path. Tiles come from the blob store; a miss renders the metatile on the
// worker pool, stores it and serves it. ETag/If-None-Match and Cache-Control on every tile: public
// when the layer is readable anonymously, private otherwise; max-age MAPWARDEN_TILE_MAX_AGE.
// Access: the routes are public at the HTTP level and every tile read goes through
// app.tileCache.readTile / tileLayer, whose authorizer (the tile-authorizer the services are built with) is the one place
// where the security area checks per-layer read access (GeoServer's default `*.*.r=*` meanwhile).
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { TypedApp } from '../infra/routes.js'
import { TmsMapParams, TmsTileParams, WmtsTileParams, XyzTileParams, responses } from '../../schemas/tiles.js'
import { matrixLevel, matrixName, maxZoom, tilesHigh, type GridSet } from '../../services/tilecache/grid-sets.js'
import { FORMATS, formatOfExtension, formatsOf, isTileFormat, mediaTypeOf, TILE_FORMATS, type TileFormat } from '../../services/tilecache/formats.js'
import { GridSetNotOffered, TileRequestInvalid, TileServiceDisabled } from '../../services/errors.js'
import { tmsService, tmsTileMap, wmtsCapabilities } from './capabilities.js'
import { NEVER_EXPIRES_SECONDS } from '../../services/tilecache/layer-settings.js'
import type { TileService } from '../../services/metrics.js'

const PUBLIC = { access: 'public' as const }
const PARAMS = ['STYLES', 'CQL_FILTER', 'TIME', 'ELEVATION', 'VIEWPARAMS']

type Query = Record<string, string | string[] | undefined>

/** Query parameters by upper-cased name (OGC KVP names are case-insensitive). */
function kvp (q: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries((q ?? {}) as Query)) {
    if (v === undefined) continue
    out[k.toUpperCase()] = Array.isArray(v) ? v[v.length - 1] : v
  }
  return out
}

function int (what: string, s: string | undefined): number {
  if (s === undefined || !/^\d{1,10}$/.test(s)) throw TileRequestInvalid(`${what} must be a non-negative integer, got ${JSON.stringify(s ?? '')}`)
  return Number(s)
}


function checkIndex (gs: GridSet, z: number) {
  if (z >= gs.resolutions.length) throw TileRequestInvalid(`zoom level ${z} is not in grid set ${gs.id}`)
}

export default async function tiles (app: TypedApp) {
  const cache = app.tileCache
  const grid = (id: string | undefined): GridSet => {
    const gs = cache.findGridSet(id === 'EPSG:3857' ? 'EPSG:900913' : id ?? '')
    if (!gs) throw TileRequestInvalid(`Unknown grid set ${JSON.stringify(id ?? '')}; known: ${cache.gridSetNames().join(', ')}`)
    return gs
  }
  const serviceUrl = (req: FastifyRequest) => app.urls.absolute(req, app.prefix)
  // A disabled WMTS answers its KVP, capabilities and RESTful paths with 400 "Service is disabled",
  // as GeoServer's GWCServiceEnablementInterceptor does (TMS and XYZ are not WMTS).
  const wmtsEnabled = () => { if (!app.serviceSettings.get('wmts').enabled) throw TileServiceDisabled() }
  const wmtsDoc = (req: FastifyRequest, layers: Parameters<typeof wmtsCapabilities>[0]) => {
    const s = app.serviceSettings.get('wmts')
    return wmtsCapabilities(layers, serviceUrl(req), { title: s.title ?? '', abstract: s.abstrct, keywords: s.keywords, onlineResource: s.onlineResource, fees: s.fees, accessConstraints: s.accessConstraints }, cache.gridsOf)
  }

  /** `asked`: the tile in the request's own terms, for messages ("XYZ 3/8/0"); y here counts from the bottom. */
  async function sendTile (req: FastifyRequest, reply: FastifyReply, service: TileService, layer: string, gs: GridSet, format: TileFormat, z: number, x: number, y: number,
    params: Record<string, string>, asked: string) {
    checkIndex(gs, z)
    const parameters: Record<string, string> = {}
    for (const p of PARAMS) if (params[p] !== undefined) parameters[p] = params[p]
    const tile = await cache.readTile({ layer, gridSet: gs, format, parameters, z, x, y, asked }, req.principal)
    app.metrics.tileServed(service, tile.placeholder ? 'placeholder' : tile.cached ? 'hit' : 'miss')
    // A tile that needs a login is private: a shared proxy must not hand it to anyone else.
    // The layer's expireClients (GWC) when set: -1 no-cache, -2 a year; 0 the server's setting.
    // A cached-only layer's stand-in for a missing tile is revalidated every time (it may be seeded).
    const clients = tile.settings.expireClients
    const age = tile.placeholder || clients === -1 ? 'no-cache' : `max-age=${clients === -2 ? NEVER_EXPIRES_SECONDS : clients > 0 ? clients : app.config.tileMaxAge}`
    const cacheControl = `${tile.public ? 'public' : 'private'}, ${age}`
    reply.header('geowebcache-cache-result', tile.cached ? 'HIT' : 'MISS').header('etag', tile.etag).header('cache-control', cacheControl).header('last-modified', new Date(tile.mtimeMs).toUTCString())
    if (req.headers['if-none-match'] === tile.etag) return reply.code(304).send()
    // HTTP dates count whole seconds: a tile modified within the second named is not newer.
    const since = req.headers['if-none-match'] === undefined && req.headers['if-modified-since'] ? Date.parse(req.headers['if-modified-since']) : NaN
    if (Math.floor(tile.mtimeMs / 1000) * 1000 <= since) return reply.code(304).send()
    return reply.type(mediaTypeOf(format, tile.data)).send(tile.data)
  }

  // --- WMTS KVP ---
  app.get('/wmts', { config: { ...PUBLIC }, schema: { summary: 'WMTS KVP: GetCapabilities and GetTile', response: responses.kvp } }, async (req, reply) => {
    wmtsEnabled()
    const q = kvp(req.query)
    const request = (q.REQUEST ?? '').toLowerCase()
    if (q.SERVICE !== undefined && q.SERVICE.toUpperCase() !== 'WMTS') throw TileRequestInvalid(`SERVICE must be WMTS, got ${q.SERVICE}`)
    if (request === 'getcapabilities') {
      return reply.type('application/vnd.ogc.wmts+xml; charset=utf-8').header('cache-control', 'no-cache')
        .send(wmtsDoc(req, await cache.tileLayers(req.principal, ['list'], { groups: true })))
    }
    if (request !== 'gettile') throw TileRequestInvalid(`REQUEST must be GetCapabilities or GetTile, got ${JSON.stringify(q.REQUEST ?? '')}`)
    const gs = grid(q.TILEMATRIXSET)
    const z = matrixLevel(gs, q.TILEMATRIX ?? '')
    if (z === undefined) throw TileRequestInvalid(`TILEMATRIX ${JSON.stringify(q.TILEMATRIX ?? '')} is not a TileMatrix of ${gs.id} (${matrixName(gs, 0)} to ${matrixName(gs, maxZoom(gs))})`)
    const format = q.FORMAT ?? 'image/png'
    if (!isTileFormat(format)) throw TileRequestInvalid(`Unsupported FORMAT ${format}`)
    const row = int('TILEROW', q.TILEROW)
    const col = int('TILECOL', q.TILECOL)
    if (!q.LAYER) throw TileRequestInvalid('LAYER is required')
    return sendTile(req, reply, 'wmts', q.LAYER, gs, format, z, col, tilesHigh(gs, z) - 1 - row, { ...q, STYLES: q.STYLE ?? q.STYLES },
      `WMTS TileMatrix ${matrixName(gs, z)} TileRow ${row} TileCol ${col}`)
  })
  app.get('/wmts/1.0.0/WMTSCapabilities.xml', { config: { ...PUBLIC }, schema: { summary: 'WMTS capabilities document (RESTful)', response: responses.wmtsCapabilities } }, async (req, reply) => {
    wmtsEnabled()
    return reply.type('application/vnd.ogc.wmts+xml; charset=utf-8').header('cache-control', 'no-cache')
      .send(wmtsDoc(req, await cache.tileLayers(req.principal, ['list'], { groups: true })))
  })

  // --- WMTS RESTful: {layer}/{style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}?format= ---
  app.get(
    '/wmts/rest/:layer/:style/:tms/:tm/:row/:col', { config: { ...PUBLIC }, schema: { summary: 'WMTS tile (RESTful)', params: WmtsTileParams, response: responses.tile } }, async (req, reply) => {
      wmtsEnabled()
      const q = kvp(req.query)
      const gs = grid(req.params.tms)
      const z = matrixLevel(gs, req.params.tm)
      if (z === undefined) throw TileRequestInvalid(`TileMatrix ${JSON.stringify(req.params.tm)} is not a TileMatrix of ${gs.id} (${matrixName(gs, 0)} to ${matrixName(gs, maxZoom(gs))})`)
      const colMatch = /^(\d{1,10})(?:\.([\w-]+))?$/.exec(req.params.col)
      const format = q.FORMAT ?? (colMatch?.[2] ? formatOfExtension(colMatch[2]) : 'image/png')
      if (!format || !isTileFormat(format)) throw TileRequestInvalid(`Unsupported format ${q.FORMAT ?? colMatch?.[2]}`)
      const col = int('TileCol', colMatch?.[1])
      const row = int('TileRow', req.params.row)
      return sendTile(req, reply, 'wmts', req.params.layer, gs, format, z, col, tilesHigh(gs, z) - 1 - row, { ...q, STYLES: req.params.style },
        `WMTS TileMatrix ${matrixName(gs, z)} TileRow ${row} TileCol ${col}`)
    })

  // --- TMS 1.0.0: <layer>@<gridset>@<ext>/<z>/<x>/<y>.<ext>, y from the bottom ---
  app.get('/tms/1.0.0', { config: { ...PUBLIC }, schema: { summary: 'TMS: the tile maps', response: responses.tms } }, async (req, reply) =>
    reply.type('text/xml; charset=utf-8').send(tmsService(await cache.tileLayers(req.principal, ['list'], { groups: true }), `${serviceUrl(req)}/tms`, cache.gridsOf)))
  const tileMap = (name: string) => {
    const m = /^(.+)@([A-Za-z0-9][\w.:-]*)@([\w-]+)$/.exec(name)
    const format = m ? formatOfExtension(m[3]) : undefined
    if (!m || !format) throw TileRequestInvalid(`TileMap must be <layer>@<gridset>@<${TILE_FORMATS.map((f) => FORMATS[f].ext).join('|')}>, got ${name}`)
    return { layer: m[1], gs: grid(m[2]), ext: m[3], format }
  }
  app.get('/tms/1.0.0/:map', { config: { ...PUBLIC }, schema: { summary: 'TMS: one tile map', params: TmsMapParams, response: responses.tms } }, async (req, reply) => {
    const t = tileMap(req.params.map)
    const layer = await cache.tileLayer(t.layer, req.principal, 'metadata')
    if (!formatsOf(layer).includes(t.format)) throw TileRequestInvalid(`Format ${t.format} is not offered by layer ${layer.qualifiedName}: vector tiles are for vector layers and layer groups`)
    const sub = cache.subsetOf(layer, t.gs)
    if (!sub) throw GridSetNotOffered(layer.qualifiedName, t.gs.id, cache.gridSetsOf(layer).map((g) => g.id).join(', '))
    return reply.type('text/xml; charset=utf-8').send(tmsTileMap(layer, sub, t.ext, t.format, `${serviceUrl(req)}/tms`))
  })
  app.get('/tms/1.0.0/:map/:z/:x/:y', { config: { ...PUBLIC }, schema: { summary: 'TMS tile', params: TmsTileParams, response: responses.tile } }, async (req, reply) => {
    const t = tileMap(req.params.map)
    const ym = /^(\d{1,10})\.([\w-]+)$/.exec(req.params.y)
    if (!ym || formatOfExtension(ym[2]) !== t.format) throw TileRequestInvalid(`tile must be <y>.${t.ext}, got ${req.params.y}`)
    const [z, x, y] = [int('z', req.params.z), int('x', req.params.x), Number(ym[1])]
    return sendTile(req, reply, 'tms', t.layer, t.gs, t.format, z, x, y, kvp(req.query), `TMS ${z}/${x}/${y}`)
  })

  // --- XYZ: y from the top, as web maps count ---
  app.get('/xyz/:layer/:gridset/:z/:x/:y', { config: { ...PUBLIC }, schema: { summary: 'XYZ tile', params: XyzTileParams, response: responses.tile } }, async (req, reply) => {
    const gs = grid(req.params.gridset)
    const ym = /^(\d{1,10})\.([\w-]+)$/.exec(req.params.y)
    const format = ym ? formatOfExtension(ym[2]) : undefined
    if (!ym || !format) throw TileRequestInvalid(`tile must be <y>.<${TILE_FORMATS.map((f) => FORMATS[f].ext).join('|')}>, got ${req.params.y}`)
    const z = int('z', req.params.z)
    if (z >= gs.resolutions.length) throw TileRequestInvalid(`zoom level ${z} is not in grid set ${gs.id}`)
    const x = int('x', req.params.x)
    return sendTile(req, reply, 'xyz', req.params.layer, gs, format, z, x, tilesHigh(gs, z) - 1 - Number(ym[1]), kvp(req.query), `XYZ ${z}/${x}/${ym[1]}`)
  })
}
