// The admin page's server side over HTTP: the built files behind Basic auth with a strict CSP,
// /session, web/layers.json under the layer rules and catalog mode, web/mosaics.json, GWC's
// kill_thread form, and the OpenAPI document (valid, and covering every registered route).
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import Fastify from 'fastify'
import { Validator } from '@seriousme/openapi-schema-validator'
import { build, ADMIN, ADMIN_PASSWORD, BASE, basic, tempDir } from '../../helper.js'
import { exposedMapwarden } from '../../../plugins/app.js'
import { CSP, WEB_DIR } from '../../../plugins/web/index.js'
import { demoSld, demoZip } from '../../../scripts/demo.js'
import { closeRenderCache } from '../../../services/render/raster/render-mosaic.js'

t.teardown(closeRenderCache)
const S = `${BASE}/rest/security`
const JSON_HEADERS = { ...ADMIN, 'content-type': 'application/json' }

async function withDemo (app: Awaited<ReturnType<typeof build>>) {
  await app.workspaces.create({ name: 'demo' })
  const r = await app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/demo/coveragestores/watertemp/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await demoZip() })
  if (r.statusCode !== 200) throw new Error(`demo upload: ${r.statusCode} ${r.body}`)
}

async function addUser (app: Awaited<ReturnType<typeof build>>, name: string, role?: string) {
  const r = await app.inject({ method: 'POST', url: `${S}/usergroup/users`, headers: JSON_HEADERS, payload: { user: { userName: name, password: `${name}-password`, enabled: true } } })
  if (r.statusCode !== 201) throw new Error(`user ${name}: ${r.statusCode} ${r.body}`)
  if (role) {
    await app.inject({ method: 'POST', url: `${S}/roles/role/${role}`, headers: ADMIN })
    await app.inject({ method: 'POST', url: `${S}/roles/role/${role}/user/${name}`, headers: ADMIN })
  }
  return { authorization: basic(name, `${name}-password`) }
}

t.test('the page is built, behind Basic auth, with a strict CSP, an ETag and no inline script', async (t) => {
  t.ok(fs.existsSync(path.join(WEB_DIR, 'app.js')), 'npm run build bundled the page into dist/web')
  const app = await build(t)
  let r = await app.inject({ url: `${BASE}/web/` })
  t.equal(r.statusCode, 401)
  t.equal(r.headers['www-authenticate'], 'Basic realm="GeoServer Realm"')
  r = await app.inject({ url: `${BASE}/web`, headers: ADMIN })
  t.equal(r.statusCode, 302)
  t.equal(r.headers.location, `${BASE}/web/`)
  for (const [file, type] of [['', 'text/html'], ['app.js', 'text/javascript'], ['app.css', 'text/css'], ['api.html', 'text/html'], ['api.js', 'text/javascript']]) {
    r = await app.inject({ url: `${BASE}/web/${file}`, headers: ADMIN })
    t.equal(r.statusCode, 200, file)
    t.match(r.headers['content-type'], type)
    t.equal(r.headers['content-security-policy'], CSP)
    t.equal(r.headers['x-content-type-options'], 'nosniff')
    const again = await app.inject({ url: `${BASE}/web/${file}`, headers: { ...ADMIN, 'if-none-match': String(r.headers.etag) } })
    t.equal(again.statusCode, 304, `${file} revalidates with its ETag`)
    if (type === 'text/html') {
      t.notMatch(r.body, /<script(?![^>]*\bsrc=)[^>]*>/i, `${file}: every script is a file`)
      t.notMatch(r.body, /\son[a-z]+\s*=/i, `${file}: no inline event handler`)
      t.notMatch(r.body, /\sstyle\s*=/i, `${file}: no inline style`)
      t.notMatch(r.body, /https?:\/\//i, `${file}: nothing from another origin`)
    }
  }
  r = await app.inject({ url: `${BASE}/web/app.js`, headers: ADMIN })
  t.notMatch(r.body, /https?:\/\/(cdn|unpkg|cdnjs)/i, 'OpenLayers is bundled, no CDN')
  r = await app.inject({ url: `${BASE}/web/nothing.js`, headers: ADMIN })
  t.equal(r.statusCode, 404)
})

t.test('the page answers 503 naming the fix when dist/web is missing', async (t) => {
  const root = Fastify({ logger: false })
  await root.register(async (scope) => {
    const { default: web } = await import('../../../plugins/web/index.js')
    await scope.register(exposedMapwarden, { env: {}, adminPassword: ADMIN_PASSWORD, announce: () => {}, dataDir: tempDir(t) })
    await scope.register(web, { dir: tempDir(t, 'no-web'), prefix: '/unbuilt' })
  }, { prefix: '/other' })
  await root.ready()
  t.teardown(() => root.close())
  const r = await root.inject({ url: '/other/unbuilt/web/', headers: ADMIN })
  t.equal(r.statusCode, 503)
  t.match(r.headers['content-type'], 'text/plain')
  t.equal(r.body, 'The admin page is not built: run npm run build')
})

t.test('/session says who is logged in and whether an administrator', async (t) => {
  const app = await build(t)
  const reader = await addUser(app, 'reader')
  let r = await app.inject({ url: `${BASE}/session`, headers: ADMIN })
  t.same(r.json(), { user: 'admin', roles: ['ADMIN'], admin: true })
  r = await app.inject({ url: `${BASE}/session`, headers: reader })
  t.equal(r.statusCode, 200)
  t.same(r.json().admin, false)
  t.equal(r.json().user, 'reader')
  r = await app.inject({ url: `${BASE}/session` })
  t.equal(r.statusCode, 401)
})

t.test('web/layers.json lists the readable tile layers with styles and dimension values', async (t) => {
  const app = await build(t)
  await withDemo(app)
  const plain = await addUser(app, 'plain')
  const reader = await addUser(app, 'reader', 'ROLE_READER')
  let r = await app.inject({ url: `${BASE}/web/layers.json`, headers: ADMIN })
  t.equal(r.statusCode, 200)
  const doc = r.json()
  t.same(doc.layers.map((l: any) => l.name), ['demo:watertemp'])
  const l = doc.layers[0]
  t.same(l.dimensions.elevation, [0, 100])
  t.equal(l.dimensions.time.length, 2)
  t.ok(l.dimensions.time[0] < l.dimensions.time[1], 'times ascending')
  t.equal(l.defaultStyle, 'raster')
  t.same(doc.gridSets.map((g: any) => g.id).sort(), ['EPSG:4326', 'EPSG:900913'])
  // Every time value offered works as a TIME parameter of a tile read.
  for (const time of l.dimensions.time) {
    const tile = await app.inject({ url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=demo:watertemp&STYLE=&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:2&TILEROW=1&TILECOL=4&FORMAT=image/png&TIME=${encodeURIComponent(time)}&ELEVATION=100` })
    t.equal(tile.statusCode, 200, `TIME=${time}`)
  }

  // Default rules: everyone reads. Restrict demo to ROLE_READER: plain loses the layer.
  r = await app.inject({ url: `${BASE}/web/layers.json`, headers: plain })
  t.same(r.json().layers.map((x: any) => x.name), ['demo:watertemp'])
  r = await app.inject({ method: 'POST', url: `${S}/acl/layers.json`, headers: JSON_HEADERS, payload: '{"demo.*.r":"ROLE_READER"}' })
  t.equal(r.statusCode, 201)
  r = await app.inject({ url: `${BASE}/web/layers.json`, headers: plain })
  t.same(r.json().layers, [], 'HIDE: a layer the user may not read does not appear')
  r = await app.inject({ url: `${BASE}/web/layers.json`, headers: reader })
  t.same(r.json().layers.map((x: any) => x.name), ['demo:watertemp'])
  // CHALLENGE lists unreadable layers in capabilities; the page still leaves them out.
  r = await app.inject({ method: 'PUT', url: `${S}/acl/catalog.json`, headers: JSON_HEADERS, payload: '{"mode":"CHALLENGE"}' })
  t.equal(r.statusCode, 200)
  r = await app.inject({ url: `${BASE}/web/layers.json`, headers: plain })
  t.same(r.json().layers, [], 'CHALLENGE: still absent')
})

t.test("web/legend.json gives the style's color map entries, under the layer's read rules", async (t) => {
  const app = await build(t)
  await withDemo(app)
  const sld = { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }
  let r = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/demo/styles?name=watertemp`, headers: sld, payload: demoSld() })
  t.equal(r.statusCode, 201)
  r = await app.inject({ method: 'PUT', url: `${BASE}/rest/layers/demo:watertemp`, headers: JSON_HEADERS, payload: { layer: { styles: { style: [{ name: 'demo:watertemp' }] } } } })
  t.equal(r.statusCode, 200)

  r = await app.inject({ url: `${BASE}/web/legend.json?layer=demo:watertemp&style=demo:watertemp`, headers: ADMIN })
  t.equal(r.statusCode, 200)
  t.same(r.json().legend, {
    layer: 'demo:watertemp',
    style: 'demo:watertemp',
    type: 'ramp',
    entries: [
      { quantity: 0, color: '#000000', opacity: 0, label: 'nodata' },
      { quantity: 1, color: '#2c7bb6', opacity: 1, label: 'cold' },
      { quantity: 80, color: '#abd9e9', opacity: 1, label: 'cool' },
      { quantity: 140, color: '#fdae61', opacity: 1, label: 'mild' },
      { quantity: 220, color: '#d7191c', opacity: 1, label: 'warm' }
    ]
  })
  // No style named: the layer's default, the built-in raster rendering (no color map).
  r = await app.inject({ url: `${BASE}/web/legend.json?layer=demo:watertemp`, headers: ADMIN })
  t.same(r.json().legend, { layer: 'demo:watertemp', style: 'raster', type: null, entries: [] })

  r = await app.inject({ url: `${BASE}/web/legend.json?layer=demo:watertemp&style=nope`, headers: ADMIN })
  t.equal(r.statusCode, 400)
  t.equal(r.body, 'Style "nope" is not a style of layer demo:watertemp; allowed: raster, demo:watertemp')
  r = await app.inject({ url: `${BASE}/web/legend.json`, headers: ADMIN })
  t.equal(r.statusCode, 400)
  t.match(r.body, 'Query parameter layer is required')
  r = await app.inject({ url: `${BASE}/web/legend.json?layer=demo:watertemp&colour=red`, headers: ADMIN })
  t.equal(r.statusCode, 400, 'an unknown parameter is refused')
  t.equal(r.body, 'Unknown field "colour" in the query (layer, style)')
  r = await app.inject({ url: `${BASE}/web/legend.json?layer=demo:nothing`, headers: ADMIN })
  t.equal(r.statusCode, 404)

  // A user who may not read the layer gets the same 404 as for a layer that does not exist.
  const plain = await addUser(app, 'plain')
  r = await app.inject({ url: `${BASE}/web/legend.json?layer=demo:watertemp`, headers: plain })
  t.equal(r.statusCode, 200, 'default rules: everyone reads')
  r = await app.inject({ method: 'POST', url: `${S}/acl/layers.json`, headers: JSON_HEADERS, payload: '{"demo.*.r":"ROLE_READER"}' })
  t.equal(r.statusCode, 201)
  r = await app.inject({ url: `${BASE}/web/legend.json?layer=demo:watertemp&style=demo:watertemp`, headers: plain })
  t.equal(r.statusCode, 404)
  t.notMatch(r.body, 'cold')
  r = await app.inject({ url: `${BASE}/web/legend.json?layer=demo:watertemp` })
  t.equal(r.statusCode, 401)
})

t.test('web/mosaics.json is for administrators and describes each mosaic', async (t) => {
  const app = await build(t)
  await withDemo(app)
  const plain = await addUser(app, 'plain')
  let r = await app.inject({ url: `${BASE}/web/mosaics.json`, headers: plain })
  t.equal(r.statusCode, 403)
  t.equal(r.body, 'Administrative privileges required')
  r = await app.inject({ url: `${BASE}/web/mosaics.json`, headers: ADMIN })
  t.equal(r.statusCode, 200)
  const [m] = r.json().mosaics
  t.match(m, { workspace: 'demo', store: 'watertemp', crs: 'EPSG:4326', granules: 4, coverages: ['watertemp'] })
  t.same(m.extent, [-10, 35, 30, 60])
})

t.test("POST seed/<layer> with kill_thread kills that one task, GWC's way", async (t) => {
  const app = await build(t, { taskSlots: 1 })
  await withDemo(app)
  const seed = (zoomStop: number) => app.inject({
    method: 'POST', url: `${BASE}/gwc/rest/seed/demo:watertemp.json`, headers: JSON_HEADERS,
    payload: { seedRequest: { name: 'demo:watertemp', gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop, format: 'image/png', type: 'seed', threadCount: 2 } }
  })
  t.equal((await seed(6)).statusCode, 200)
  const ids = app.tileCache.breeder.list().map((x) => x.id)
  t.equal(ids.length, 2)
  const form = { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }
  const kill = (payload: string, layer = 'demo:watertemp') => app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}`, headers: form, payload })

  let r = await kill(`kill_thread=1&thread_id=${ids[1]}`)
  t.equal(r.statusCode, 200)
  t.match(r.headers['content-type'], 'text/html')
  t.equal(r.body, `<ul><li>Requested to terminate task ${ids[1]}.</li></ul>`)
  t.same(app.tileCache.breeder.list().map((x) => x.id), [ids[0]], 'only that task left the list')
  t.equal(app.tileCache.breeder.task(ids[1])!.state, 'aborted')

  r = await kill(`kill_thread=1&thread_id=${ids[1]}`)
  t.equal(r.statusCode, 200)
  t.match(r.body, `Sorry, either task ${ids[1]} has not started yet`)
  r = await kill('kill_thread=1&thread_id=999999')
  t.match(r.body, 'Sorry, either task 999999')

  for (const bad of ['abc', '-1', '1.5', '', '99999999999999999999']) {
    r = await kill(`kill_thread=1&thread_id=${encodeURIComponent(bad)}`)
    t.equal(r.statusCode, 400, `thread_id=${bad}`)
    t.match(r.headers['content-type'], 'text/plain')
    t.match(r.body, 'Invalid thread_id')
  }
  r = await kill('kill_thread=1')
  t.equal(r.statusCode, 400, 'thread_id missing')
  t.equal(r.body, 'Invalid thread_id "": a task id (a non-negative integer) is expected')
  t.same(app.tileCache.breeder.list().map((x) => x.id), [ids[0]], 'bad requests killed nothing')

  // A non-admin without write access may not kill.
  const plain = await addUser(app, 'plain')
  r = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/demo:watertemp`, headers: { ...plain, 'content-type': 'application/x-www-form-urlencoded' }, payload: `kill_thread=1&thread_id=${ids[0]}` })
  t.equal(r.statusCode, 403)
  t.equal(r.body, 'Access denied: no write permission on layer demo:watertemp')
  t.same(app.tileCache.breeder.list().map((x) => x.id), [ids[0]])

  r = await kill(`kill_thread=1&thread_id=${ids[0]}`)
  t.equal(r.statusCode, 200)
  t.same(app.tileCache.breeder.list(), [])
  await app.tileCache.breeder.idle()
})

t.test('the OpenAPI document validates and covers every registered route', async (t) => {
  const root = Fastify({ logger: false })
  const routes = new Set<string>()
  root.addHook('onRoute', (r) => {
    for (const m of [r.method].flat()) if (m !== 'HEAD') routes.add(`${m.toLowerCase()} ${r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{*}')}`)
  })
  await root.register(async (scope) => {
    await scope.register(exposedMapwarden, { env: {}, adminPassword: ADMIN_PASSWORD, announce: () => {}, dataDir: tempDir(t) })
  }, { prefix: BASE })
  await root.ready()
  t.teardown(() => root.close())
  let r = await root.inject({ url: `${BASE}/rest/openapi.json` })
  t.equal(r.statusCode, 401)
  const reader = basic('admin', ADMIN_PASSWORD)
  r = await root.inject({ url: `${BASE}/rest/openapi.json`, headers: { authorization: reader } })
  t.equal(r.statusCode, 200)
  t.match(r.headers['content-type'], 'application/json')
  const spec = r.json()
  t.equal(spec.openapi, '3.0.3')

  const result = await new Validator().validate(spec)
  t.same(result.errors, undefined, 'no validation error')
  t.equal(result.valid, true)
  const broken = await new Validator().validate({ ...spec, paths: { [`${BASE}/x`]: { get: { responses: 'none' } } } })
  t.equal(broken.valid, false, 'the validator does refuse a broken document')

  const documented = new Set<string>()
  for (const [p, item] of Object.entries(spec.paths as Record<string, Record<string, unknown>>)) {
    for (const m of Object.keys(item)) documented.add(`${m} ${p}`)
  }
  t.ok(routes.size > 100, `${routes.size} routes registered`)
  t.same([...routes].filter((x) => !documented.has(x)), [], 'every route is in the document')
  t.same([...documented].filter((x) => !routes.has(x)), [], 'and nothing else')
  for (const must of [`post ${BASE}/gwc/rest/seed/{layer}`, `get ${BASE}/tilecache/rest/diskquota/usage.json`, `get ${BASE}/rest/workspaces`, `get ${BASE}/web/layers.json`, `get ${BASE}/rest/openapi.json`, `get ${BASE}/health`]) {
    t.ok(documented.has(must), must)
  }
  t.same(spec.paths[`${BASE}/health`].get.security, [], 'public routes need no credentials')
  t.same(spec.security, [{ basicAuth: [] }])

  // Every operation says what it does in a summary (issue 24): a route added without one fails here.
  const unsummarised: string[] = []
  const refusals: Array<[string, string]> = []
  for (const [p, item] of Object.entries(spec.paths as Record<string, Record<string, { summary?: unknown }>>)) {
    for (const [m, op] of Object.entries(item)) {
      if (typeof op.summary !== 'string' || op.summary.trim().length < 5) unsummarised.push(`${m.toUpperCase()} ${p}`)
      else if (/^Not allowed/.test(op.summary)) refusals.push([m.toUpperCase(), p])
    }
  }
  t.same(unsummarised, [], 'every operation has a summary')
  // A summary that says "Not allowed" is true: the operation answers 405.
  t.ok(refusals.length > 20, `${refusals.length} operations documented as refused`)
  for (const [method, p] of refusals) {
    const url = p.replace(/\{[^}]+\}/g, 'x')
    const res = await root.inject({ method: method as 'PUT', url, headers: { authorization: reader } })
    t.equal(res.statusCode, 405, `${method} ${url} answers 405 as its summary says`)
  }
})

t.test('a host that documents its own API with @fastify/swagger keeps its decorator', async (t) => {
  const { default: swagger } = await import('@fastify/swagger')
  const root = Fastify({ logger: false })
  await root.register(swagger, { openapi: { info: { title: 'host', version: '1' } } })
  root.get('/mine', async () => 'mine')
  await root.register(async (scope) => {
    await scope.register(exposedMapwarden, { env: {}, adminPassword: ADMIN_PASSWORD, announce: () => {}, dataDir: tempDir(t) })
  }, { prefix: BASE })
  await root.ready()
  t.teardown(() => root.close())
  t.equal((root.swagger() as any).info.title, 'host')
  const r = await root.inject({ url: `${BASE}/rest/openapi.json`, headers: ADMIN })
  t.equal(r.statusCode, 200)
  t.equal(r.json().info.title, 'mapwarden REST API')
  t.notOk(r.json().paths['/mine'], "the host's routes are not in mapwarden's document")
})
