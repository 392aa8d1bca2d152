// Secrets stay out of the logs: Basic credentials, passwords in request bodies and the master
// password never appear in any log line, even at trace level; and HTTPS-only deployments refuse
// Basic credentials sent over plain HTTP.
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import { Writable } from 'node:stream'
import { exposedMapwarden, serverOptions } from '../../../plugins/app.js'
import { ADMIN, ADMIN_PASSWORD, BASE, basic, build, tempDir } from '../../helper.js'
import type { FastifyInstance } from 'fastify'
import { pgDatabase } from '../../fixtures/pg.js'

/** The app as the standalone server logs (serverOptions' serializers and redaction), its log lines kept. */
async function loggingApp (t: Test, level: 'info' | 'trace'): Promise<{ root: FastifyInstance, app: FastifyInstance, log: () => string }> {
  let logged = ''
  const stream = new Writable({ write (chunk, _enc, cb) { logged += chunk.toString(); cb() } })
  const opts = serverOptions({ logLevel: level, bodyLimit: 1024 * 1024 })
  const root = Fastify({ ...opts, logger: { ...(opts.logger as object), stream } })
  let app: FastifyInstance | undefined
  await root.register(async (scope) => {
    await scope.register(exposedMapwarden, { env: {}, adminPassword: ADMIN_PASSWORD, announce: () => {}, dataDir: tempDir(t), logLevel: level })
    app = scope
  }, { prefix: BASE })
  await root.ready()
  t.teardown(() => root.close())
  return { root, app: app!, log: () => logged }
}

t.test('credentials, user passwords and the master password never reach the log', async (t) => {
  const { root, app, log } = await loggingApp(t, 'trace')
  const S = `${BASE}/rest/security`
  const json = { ...ADMIN, 'content-type': 'application/json' }

  const master = JSON.parse((await root.inject({ method: 'GET', url: `${S}/masterpw.json`, headers: ADMIN })).body).oldMasterPassword as string
  await root.inject({ method: 'PUT', url: `${S}/masterpw.json`, headers: json, payload: { oldMasterPassword: master, newMasterPassword: 'new-master-canary-1' } })
  await root.inject({ method: 'PUT', url: `${S}/masterpw.json`, headers: json, payload: { oldMasterPassword: 'wrong-master-canary-2', newMasterPassword: 'new-master-canary-3' } })
  await root.inject({ method: 'POST', url: `${S}/usergroup/users`, headers: json, payload: { user: { userName: 'alice', password: 'user-password-canary-4' } } })
  await root.inject({ method: 'POST', url: `${S}/usergroup/users`, headers: json, payload: { user: { userName: 'bob', password: 'short' } } })
  const wrong = basic('admin', 'wrong-password-canary-5')
  await root.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: { authorization: wrong } })
  await root.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: { authorization: basic('alice', 'user-password-canary-4') } })
  t.ok(app)

  t.match(log(), /authentication failed/, 'failures are log()')
  t.match(log(), /incoming request/, 'requests are log() at this level')
  for (const secret of [master, 'new-master-canary-1', 'wrong-master-canary-2', 'new-master-canary-3', 'user-password-canary-4', 'wrong-password-canary-5',
    ADMIN_PASSWORD, ADMIN.authorization.slice(6), wrong.slice(6)]) {
    t.notOk(log().includes(secret), `log does not contain ${secret.slice(0, 12)}...`)
  }
})

t.test('data store passwords never reach the log: created, refused, changed', async (t) => {
  const { root, log } = await loggingApp(t, 'trace')
  const db = new URL(await pgDatabase(t, { postgis: true }))
  const xml = { ...ADMIN, 'content-type': 'text/xml' }
  await root.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: xml, payload: '<workspace><name>vx</name></workspace>' })
  const store = (name: string, database: string, passwd: string) => `<dataStore><name>${name}</name><connectionParameters><entry key="host">${db.hostname}</entry>` +
    `<entry key="port">${db.port || '5432'}</entry><entry key="database">${database}</entry><entry key="user">postgres</entry><entry key="passwd">${passwd}</entry><entry key="dbtype">postgis</entry></connectionParameters></dataStore>`
  const created = await root.inject({ method: 'POST', url: `${BASE}/rest/workspaces/vx/datastores`, headers: xml, payload: store('ok', db.pathname.slice(1), 'store-password-canary-6') })
  t.equal(created.statusCode, 201)
  const refused = await root.inject({ method: 'POST', url: `${BASE}/rest/workspaces/vx/datastores`, headers: xml, payload: store('bad', 'mw_no_such_database', 'store-password-canary-7') })
  t.equal(refused.statusCode, 400)
  const changed = await root.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/vx/datastores/ok.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { dataStore: { connectionParameters: { passwd: 'store-password-canary-8' } } } })
  t.equal(changed.statusCode, 200)
  t.match(log(), /request refused/)
  for (const secret of ['store-password-canary-6', 'store-password-canary-7', 'store-password-canary-8']) t.notOk(log().includes(secret), `log does not contain ${secret}`)
})

t.test('requireHttps refuses Basic credentials over plain HTTP', async (t) => {
  const app = await build(t, { requireHttps: true })
  const res = await app.inject({ method: 'GET', url: `${BASE}/rest/security/acl/catalog.json`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  t.equal(res.body, 'Access denied: Basic credentials are refused over plain HTTP; use HTTPS')
})

t.test('secrets in query strings are redacted in every log line; other parameters are kept', async (t) => {
  const { root, log } = await loggingApp(t, 'info')
  const secrets = ['password=pw-canary-1', 'passwd=pw-canary-2', 'PWD=pw-canary-3', 'access_token=tok-canary-4', 'api_key=key-canary-5',
    'key=key-canary-6', 'client_secret=sec-canary-7', 'authkey=auth-canary-8', 'pass%77ord=pw-canary-9']
  const res = await root.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json?user=admin&${secrets.join('&')}&keywords=kept-canary` })
  t.equal(res.statusCode, 401)
  t.match(log(), /incoming request/)
  for (const s of secrets) t.notOk(log().includes(s.split('=')[1]), `${s.split('=')[0]} is redacted`)
  t.match(log(), /password=\[redacted\]/)
  t.match(log(), /keywords=kept-canary/, 'a parameter that only contains "key" is kept')
  t.match(log(), /user=admin/)
})

t.test('a secret is redacted under any spelling of its name, through the real logger; GeoServer parameters stay readable', async (t) => {
  const { root, log } = await loggingApp(t, 'info')
  // Issue 31, 3: each spelling was log() verbatim; the canary is the secret value.
  const spellings = ['password[]', 'password%5B%5D', 'password%00', 'password+', 'password%20', 'password.', 'Pass_Word', 'PASSWORD%5b0%5d',
    'password%255B%255D', '%70assword', 'pass%77ord%zz', '%zz%E9password', 'ｐａｓｓｗｏｒｄ', 'db_pass', 'auth', 'Authorization', 'authKey', 'jwt', 'session', 'JSESSIONID',
    'credentials', 'X-Amz-Credential', 'X-Amz-Signature', 'refresh-token', 'api-key', 'x_api_key', 'apiKey[0]', 'secret', 'client.secret', 'pwd']
  const layers = 'LAYERS=topp:world&STYLES=raster&FORMAT=image/png&CQL_FILTER=location%3D%27a%27&VIEWPARAMS=a:1&TILEMATRIX=EPSG:4326:0&keywords=kept'
  const cases = [
    ...spellings.map((name, i) => `${name}=canary-${i}-x`),
    `x=1;password=canary-semicolon-x`, // ';' separates parameters as '&' does (servlet containers read both)
    `layer=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5hcnkifQ.canary-jwt-x` // a JWT under a harmless name
  ]
  for (const c of cases) {
    const res = await root.inject({ method: 'GET', url: `${BASE}/wms?SERVICE=WMS&REQUEST=GetMap&${layers}&${c}` })
    t.ok(res.statusCode < 500, c)
  }
  // A secret in the path: a servlet session in a path parameter.
  await root.inject({ method: 'GET', url: `${BASE}/web/;jsessionid=canary-path-x?x=1` })
  t.match(log(), /incoming request/)
  for (const c of [...cases, 'jsessionid=canary-path-x']) {
    const secret = c.slice(c.lastIndexOf('=') + 1)
    t.notOk(log().includes(secret), `${c.slice(0, c.lastIndexOf('='))}: the value never reaches the log`)
  }
  t.match(log(), /password%00=\[redacted\]/, 'the name is log() as sent, the value redacted')
  t.match(log(), /x=1;password=\[redacted\]/)
  t.match(log(), /web\/;jsessionid=\[redacted\]\?x=1/)
  for (const kept of layers.split('&')) t.ok(log().includes(kept), `${kept} stays readable`)
})

t.test('isSecretName: what counts as a secret parameter', async (t) => {
  const { isSecretName, redactUrl } = await import('../../../plugins/infra/url-text.js')
  for (const name of ['password', 'passwd', 'pwd', 'passphrase', 'userpass', 'secret', 'token', 'access_token', 'apikey', 'api_key', 'key', 'accessKey',
    'auth', 'authkey', 'authorization', 'oauth_verifier', 'jwt', 'session', 'sessionid', 'credential', 'credentials', 'signature', 'cookie']) t.ok(isSecretName(name), name)
  for (const name of ['layers', 'layer', 'styles', 'format', 'keywords', 'bbox', 'srs', 'crs', 'width', 'height', 'transparent', 'time', 'elevation',
    'cql_filter', 'filter', 'sld', 'sld_body', 'env', 'viewparams', 'format_options', 'tilematrixset', 'tilematrix', 'tilerow', 'tilecol', 'service',
    'request', 'version', 'exceptions', 'info_format', 'query_layers', 'featureid', 'propertyname', 'name', 'recurse', 'purge', 'quietOnNotFound',
    'filename', 'configure', 'limit', 'offset', 'user', 'username']) t.notOk(isSecretName(name), name)
  t.equal(redactUrl('http://admin:pw-canary@host/geoserver/wms?a=1'), 'http://[redacted]@host/geoserver/wms?a=1', 'credentials of an absolute-form target')
  t.equal(redactUrl('/x?password=&a=1'), '/x?password=&a=1', 'an empty value has nothing to hide')
})
