// Secrets stay out of the logs: Basic credentials, passwords in request bodies and the master
// password never appear in any log line, even at trace level; and HTTPS-only deployments refuse
// Basic credentials sent over plain HTTP.
import t from 'tap'
import Fastify from 'fastify'
import { Writable } from 'node:stream'
import { exposedMapwarden, serverOptions } from '../../../plugins/app.js'
import { ADMIN, ADMIN_PASSWORD, BASE, basic, build, tempDir } from '../../helper.js'
import type { FastifyInstance } from 'fastify'

t.test('credentials, user passwords and the master password never reach the log', async (t) => {
  let logged = ''
  const stream = new Writable({ write (chunk, _enc, cb) { logged += chunk.toString(); cb() } })
  const opts = serverOptions({ logLevel: 'trace', bodyLimit: 1024 * 1024 })
  const root = Fastify({ ...opts, logger: { ...(opts.logger as object), stream } })
  let app: FastifyInstance | undefined
  await root.register(async (scope) => {
    await scope.register(exposedMapwarden, { env: {}, adminPassword: ADMIN_PASSWORD, announce: () => {}, dataDir: tempDir(t), logLevel: 'trace' })
    app = scope
  }, { prefix: BASE })
  await root.ready()
  t.teardown(() => root.close())
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

  t.match(logged, /authentication failed/, 'failures are logged')
  t.match(logged, /incoming request/, 'requests are logged at this level')
  for (const secret of [master, 'new-master-canary-1', 'wrong-master-canary-2', 'new-master-canary-3', 'user-password-canary-4', 'wrong-password-canary-5',
    ADMIN_PASSWORD, ADMIN.authorization.slice(6), wrong.slice(6)]) {
    t.notOk(logged.includes(secret), `log does not contain ${secret.slice(0, 12)}...`)
  }
})

t.test('requireHttps refuses Basic credentials over plain HTTP', async (t) => {
  const app = await build(t, { requireHttps: true })
  const res = await app.inject({ method: 'GET', url: `${BASE}/rest/security/acl/catalog.json`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  t.equal(res.body, 'Access denied: Basic credentials are refused over plain HTTP; use HTTPS')
})

t.test('secrets in query strings are redacted in every log line; other parameters are kept', async (t) => {
  let logged = ''
  const stream = new Writable({ write (chunk, _enc, cb) { logged += chunk.toString(); cb() } })
  const opts = serverOptions({ logLevel: 'info', bodyLimit: 1024 * 1024 })
  const root = Fastify({ ...opts, logger: { ...(opts.logger as object), stream } })
  await root.register(async (scope) => {
    await scope.register(exposedMapwarden, { env: {}, adminPassword: ADMIN_PASSWORD, announce: () => {}, dataDir: tempDir(t), logLevel: 'info' })
  }, { prefix: BASE })
  await root.ready()
  t.teardown(() => root.close())
  const secrets = ['password=pw-canary-1', 'passwd=pw-canary-2', 'PWD=pw-canary-3', 'access_token=tok-canary-4', 'api_key=key-canary-5',
    'key=key-canary-6', 'client_secret=sec-canary-7', 'authkey=auth-canary-8', 'pass%77ord=pw-canary-9']
  const res = await root.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json?user=admin&${secrets.join('&')}&keywords=kept-canary` })
  t.equal(res.statusCode, 401)
  t.match(logged, /incoming request/)
  for (const s of secrets) t.notOk(logged.includes(s.split('=')[1]), `${s.split('=')[0]} is redacted`)
  t.match(logged, /password=\[redacted\]/)
  t.match(logged, /keywords=kept-canary/, 'a parameter that only contains "key" is kept')
  t.match(logged, /user=admin/)
})
