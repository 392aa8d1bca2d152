// Route audit: every route the service registers (all areas, both tile-cache prefixes) refuses an
// anonymous caller with GeoServer's 401 challenge and a non-admin with 403, unless the route
// deliberately says `access: 'public'` or `access: 'authenticated'` and is on the lists below.
import t from 'tap'
import Fastify from 'fastify'
import { exposedMapwarden } from '../../../plugins/app.js'
import { hashPassword } from '../../../services/auth/passwords.js'
import { ADMIN_PASSWORD, BASE, basic, tempDir } from '../../helper.js'
import type { FastifyInstance } from 'fastify'

// Public: anonymous callers reach them; data routes check app.layerAccess inside.
const PUBLIC = [
  /^\/geoserver\/health$/,
  /^\/geoserver\/(tilecache|gwc)\/service(\/|$)/,
  // WMS: each layer goes through the tile cache's authorizer (services/wms).
  /^\/geoserver\/(:ws\/)?(wms|ows)$/,
  // WFS: each feature type goes through the layer rules (services/wfs/wfs-context.ts).
  /^\/geoserver\/(:ws\/)?wfs$/
]
// Authenticated: any logged-in user reaches them; the handler checks the role or the layer rules.
const AUTHENTICATED = [
  /^(GET|HEAD) \/geoserver\/rest\/about\/version(\.xml|\.json)?$/,
  /^PUT \/geoserver\/rest\/security\/masterpw(\.xml|\.json)?$/,
  /^POST \/geoserver\/(tilecache|gwc)\/rest\/seed\/:layer$/,
  // Seed by area (write rule of the layer) and exports (read rule of the layer), issue 22.
  /^POST \/geoserver\/(tilecache|gwc)\/rest\/seed\/:layer\/area\.json$/,
  /^(GET|HEAD) \/geoserver\/(tilecache|gwc)\/rest\/export\/:file$/,
  // The admin page and the API description: any user may open them; what they list follows the rules.
  /^(GET|HEAD) \/geoserver\/rest\/openapi\.json$/,
  /^(GET|HEAD) \/geoserver\/web(\/|\/[\w.-]+)?$/,
  /^(GET|HEAD) \/geoserver\/session$/
]

interface Seen { method: string, url: string, access: string }

async function buildAudited (t: Parameters<typeof tempDir>[0]) {
  const routes: Seen[] = []
  const root = Fastify({ logger: false })
  root.addHook('onRoute', (r) => {
    const methods = Array.isArray(r.method) ? r.method : [r.method]
    for (const method of methods) routes.push({ method, url: r.url, access: (r.config as { access?: string } | undefined)?.access ?? 'admin' })
  })
  let app: FastifyInstance | undefined
  await root.register(async (scope) => {
    await scope.register(exposedMapwarden, { env: {}, adminPassword: ADMIN_PASSWORD, announce: () => {}, dataDir: tempDir(t) })
    app = scope
  }, { prefix: BASE })
  await root.ready()
  t.teardown(() => root.close())
  return { root, app: app!, routes }
}

const concrete = (url: string) => url.replace(/:\w+/g, 'x').replace(/\*/g, 'x')

t.test('every registered route is admin-only unless deliberately public or authenticated', async (t) => {
  const { root, app, routes } = await buildAudited(t)
  await app.users.insert({ name: 'plain', passwordHash: await hashPassword('plain-password'), enabled: true, roles: ['ROLE_SOMETHING'] })
  const plain = { authorization: basic('plain', 'plain-password') }
  t.ok(routes.length > 20, `${routes.length} routes audited`)

  let n = 0
  const probed = new Set<string>()
  // Each wrong-password probe comes from its own address and names its own user, so the failure
  // throttling (tested in test/services/security/authenticator.test.ts) does not slow the audit.
  const probe = () => { n++; return { remoteAddress: `10.9.${n >> 8}.${n & 255}`, headers: { authorization: basic(`nobody${n}`, 'not-the-password') } } }
  for (const r of routes) {
    const label = `${r.method} ${r.url}`
    if (r.access === 'public') {
      t.ok(PUBLIC.some((p) => p.test(r.url)), `${label} is deliberately public`)
      continue
    }
    if (r.access === 'authenticated') t.ok(AUTHENTICATED.some((p) => p.test(label)), `${label} is deliberately open to any logged-in user`)
    else t.equal(r.access, 'admin', `${label} has a known access level`)

    const url = concrete(r.url)
    const anon = await root.inject({ method: r.method as 'GET', url })
    t.equal(anon.statusCode, 401, `${label}: anonymous -> 401`)
    t.equal(anon.headers['www-authenticate'], 'Basic realm="GeoServer Realm"', `${label}: challenge`)
    // Wrong credentials go through the same hook everywhere; one probe per area prefix (each costs a scrypt).
    const area = r.url.split('/').slice(0, 4).join('/')
    if (!probed.has(area)) {
      probed.add(area)
      const wrong = await root.inject({ method: r.method as 'GET', url, ...probe() })
      t.equal(wrong.statusCode, 401, `${label}: wrong password -> 401`)
    }
    if (r.access === 'admin') {
      const res = await root.inject({ method: r.method as 'GET', url, headers: plain })
      t.equal(res.statusCode, 403, `${label}: non-admin -> 403`)
    }
  }
})

t.test('unknown paths, HEAD and OPTIONS without credentials are challenged, not 404', async (t) => {
  const { root } = await buildAudited(t)
  for (const [method, url] of [['GET', '/rest'], ['GET', '/rest/index'], ['GET', '/rest/nope'], ['HEAD', '/rest/workspaces'], ['OPTIONS', '/rest/workspaces'], ['GET', '/gwc/rest/seed.json']]) {
    const res = await root.inject({ method: method as 'GET', url: `${BASE}${url}` })
    t.equal(res.statusCode, 401, `${method} ${url}`)
    t.equal(res.headers['www-authenticate'], 'Basic realm="GeoServer Realm"')
  }
})

t.test('malformed Authorization headers are 401, never 500', async (t) => {
  const { root } = await buildAudited(t)
  for (const authorization of ['Basic !!!', 'Basic ', 'Basic dXNlcg==', 'Bearer x', 'Basic ' + Buffer.from('admin:' + 'x'.repeat(4000)).toString('base64')]) {
    const res = await root.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: { authorization }, remoteAddress: `10.8.0.${authorization.length % 250}` })
    t.equal(res.statusCode, 401, authorization.slice(0, 20))
    t.equal(res.headers['www-authenticate'], 'Basic realm="GeoServer Realm"')
  }
})

t.test('an unknown user and a wrong password get the same answer', async (t) => {
  const { root } = await buildAudited(t)
  const url = `${BASE}/rest/workspaces.json`
  const unknown = await root.inject({ method: 'GET', url, headers: { authorization: basic('no-such-user', 'whatever-pw') }, remoteAddress: '10.7.0.1' })
  const wrong = await root.inject({ method: 'GET', url, headers: { authorization: basic('admin', 'whatever-pw') }, remoteAddress: '10.7.0.2' })
  const strip = (h: Record<string, unknown>) => { const rest = { ...h }; delete rest.date; delete rest['x-request-id']; return rest }
  t.equal(unknown.statusCode, 401)
  t.equal(wrong.statusCode, unknown.statusCode)
  t.equal(wrong.body, unknown.body)
  t.same(strip(wrong.headers), strip(unknown.headers))
})
