// The admin page at {base}/web/: static files built by scripts/build-web.ts into dist/web (read
// into memory at registration, served with an ETag and a strict Content-Security-Policy), plus
// the small JSON resources the page needs beyond the REST API: who is logged in ({base}/session),
// the tile layers the user may read ({base}/web/layers.json), the vector layers they may read
// ({base}/web/vector-layers.json), the mosaics ({base}/web/mosaics.json) and the app-schema feature
// types ({base}/web/app-schema.json).
// Behind the same Basic login: the browser asks for credentials on the first 401.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isAdmin } from '../infra/auth.js'
import { GRID_SETS, maxZoom } from '../../services/tilecache/grid-sets.js'
import { formatsOf } from '../../services/tilecache/formats.js'
import { allowedStyles, defaultStyleOf } from '../../services/tilecache/parameters.js'
import { styleColours } from '../../services/styles/style-colours.js'
import { LayerNotFound, LegendLayerMissing, UnknownField, LegendStyleInvalid, WebPageNotBuilt } from '../../services/errors.js'

export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'api.html': 'text/html; charset=utf-8',
  'api.js': 'text/javascript; charset=utf-8'
}

interface Asset { body: Buffer, type: string, etag: string }

/** dist/web next to dist/plugins (this file runs as dist/plugins/web/index.js). */
export const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web')

function loadAssets (dir: string): Map<string, Asset> | undefined {
  const out = new Map<string, Asset>()
  for (const [name, type] of Object.entries(FILES)) {
    let body: Buffer
    try { body = fs.readFileSync(path.join(dir, name)) } catch { return undefined }
    out.set(name, { body, type, etag: `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` })
  }
  return out
}

const AUTH = { config: { access: 'authenticated' as const } }

export default async function web (app: FastifyInstance, opts: { dir?: string }) {
  const assets = loadAssets(opts.dir ?? WEB_DIR)
  if (!assets) app.log.warn({ dir: opts.dir ?? WEB_DIR }, 'the admin page is not built (npm run build); {base}/web/ answers 503')
  const { tileCache, mosaics } = app

  const send = (name: string) => async (req: FastifyRequest, reply: FastifyReply) => {
    const a = assets?.get(name)
    if (!a) throw WebPageNotBuilt()
    reply.header('content-security-policy', CSP).header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer').header('cache-control', 'no-cache').header('etag', a.etag)
    if (req.headers['if-none-match'] === a.etag) return reply.code(304).send()
    return reply.type(a.type).send(a.body)
  }
  app.get('/web', { ...AUTH, schema: { summary: 'The admin page (redirects to web/)' } }, async (req, reply) =>
    // Behind a proxy (proxyBaseUrl) the path the browser sees may differ from {base}: its URL then.
    reply.redirect(app.globalSettings.proxyBaseUrl() === undefined ? `${app.prefix}/web/` : app.urls.absolute(req, `${app.prefix}/web/`)))
  app.get('/web/', { ...AUTH, schema: { summary: 'The admin page' } }, send('index.html'))
  for (const name of Object.keys(FILES)) app.get(`/web/${name}`, { ...AUTH, schema: { summary: 'A file of the admin page' } }, send(name))

  app.get('/session', { ...AUTH, schema: { summary: 'Who is logged in' } }, async (req) => ({
    user: req.principal.name,
    roles: req.principal.roles,
    admin: isAdmin(req.principal)
  }))

  // The tile layers this user may read: those WMTS capabilities list for the principal (catalog
  // mode and layer rules) whose tiles they may also read.
  app.get('/web/layers.json', { ...AUTH, schema: { summary: 'Tile layers the user may read, with grid sets and dimension values' } }, async (req) => {
    const out = []
    for (const l of await tileCache.tileLayers(req.principal, ['list', 'read'])) {
      out.push({
        name: l.qualifiedName,
        workspace: l.workspace,
        title: typeof l.config.title === 'string' ? l.config.title : l.name,
        type: l.type,
        bbox: l.bbox,
        defaultStyle: defaultStyleOf(l),
        styles: allowedStyles(l),
        formats: formatsOf(l),
        dimensions: l.type === 'RASTER' ? await mosaics.dimensionValues(l.workspace, l.store, l.name) : {}
      })
    }
    return {
      layers: out,
      gridSets: Object.values(GRID_SETS).map((g) => ({
        id: g.id, extent: g.extent, resolutions: g.resolutions.slice(0, 21), maxZoom: Math.min(maxZoom(g), 20), tileSize: g.tileWidth
      }))
    }
  })

  // The vector layers this user may read, under the same rules as the tile layers above (catalog mode
  // and layer rules, `list` and `read`): geometry type, feature count and lon/lat bounds.
  app.get('/web/vector-layers.json', { ...AUTH, schema: { summary: 'Vector layers the user may read, with geometry type, feature count and bounds' } }, async (req) => {
    const out = []
    for (const l of await tileCache.tileLayers(req.principal, ['list', 'read'])) {
      // An app-schema type (a mapped geometry) has its own list, web/app-schema.json.
      const s = l.type === 'VECTOR' && typeof l.config.mappedGeometry !== 'string' ? await app.vectorLayerSummary(l.workspace, l.name) : undefined
      if (s) out.push({ name: l.qualifiedName, ...s })
    }
    return { layers: out }
  })

  // The legend of a layer's style, from the ColorMap of its RasterSymbolizer (the same compiled
  // style the renderer applies). Only for layers this user may read (else 404, as if absent);
  // the style must be one the layer offers (as for STYLES= on its tiles).
  app.get<{ Querystring: { layer?: string, style?: string } }>('/web/legend.json', {
    ...AUTH,
    schema: {
      summary: "A layer style's legend: the entries of its color map",
      querystring: { type: 'object', properties: { layer: { type: 'string' }, style: { type: 'string' } } }
    }
  }, async (req) => {
    const unknown = Object.keys(req.query).find((k) => k !== 'layer' && k !== 'style')
    if (unknown !== undefined) throw UnknownField(JSON.stringify(unknown), 'the query (layer, style)')
    const name = req.query.layer ?? ''
    if (name === '') throw LegendLayerMissing()
    const layer = (await tileCache.tileLayers(req.principal, ['list', 'read'])).find((l) => l.qualifiedName === name)
    if (!layer) throw LayerNotFound(name)
    const styles = allowedStyles(layer)
    const style = req.query.style || defaultStyleOf(layer) || ''
    if (!styles.includes(style)) throw LegendStyleInvalid(JSON.stringify(style), name, styles.join(', ') || '(none)')
    const compiled = layer.type === 'RASTER' ? await app.styles.rasterStyleFor(layer.workspace, style) : undefined
    const map = compiled?.colorMap
    // A vector layer's plain colours, which the vector-tile preview draws its features in.
    const colours = layer.type === 'VECTOR' ? styleColours(await app.styles.vectorStyleFor(layer.workspace, style)) : undefined
    return {
      legend: {
        layer: name,
        style,
        type: map?.type ?? null,
        ...(colours ? { colours } : {}),
        // An intervals map's last class is open-ended (quantity Infinity): null in JSON.
        entries: (map?.entries ?? []).map((e) => ({ quantity: Number.isFinite(e.quantity) ? e.quantity : null, color: '#' + e.color.map((c) => c.toString(16).padStart(2, '0')).join(''), opacity: e.opacity, ...(e.label !== undefined ? { label: e.label } : {}) }))
      }
    }
  })

  // Admin only (the default access): every mosaic, for the read-only list and the footprints.
  app.get('/web/mosaics.json', { schema: { summary: 'Image mosaics with CRS, extent and coverages' } }, async () => ({ mosaics: await mosaics.overview() }))
  // Admin only: every app-schema feature type with its target element and source (a map layer where it maps a geometry).
  app.get('/web/app-schema.json', { schema: { summary: 'App-schema feature types with target element, source data store and mapped geometry' } }, async () => ({ stores: await app.appschema.overview() }))
}
