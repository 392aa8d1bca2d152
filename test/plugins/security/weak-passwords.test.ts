// MAPWARDEN_ALLOW_WEAK_PASSWORDS: a throwaway test server (a client library's own test suite, with
// admin/geoserver) may set a short or well-known password on purpose; without the setting such a
// password is refused, as ever; with it, the server says so in its log at every start.
import t from 'tap'
import { build, basic, startBuiltServer, tempDir, BASE } from '../../helper.js'
import { resolveConfig, ConfigError } from '../../../plugins/infra/config.js'

t.test('without the setting a weak password is refused; with it, admin/geoserver and short user passwords work', async (t) => {
  t.throws(() => resolveConfig({ env: { MAPWARDEN_ADMIN_PASSWORD: 'geoserver' } }), ConfigError)
  t.throws(() => resolveConfig({ env: { MAPWARDEN_ADMIN_PASSWORD: 'geoserver' } }), /MAPWARDEN_ALLOW_WEAK_PASSWORDS=true allows it on a throwaway test server/)
  t.throws(() => resolveConfig({ env: { MAPWARDEN_ALLOW_WEAK_PASSWORDS: 'maybe' } }), /MAPWARDEN_ALLOW_WEAK_PASSWORDS="maybe": must be true or false/)

  const app = await build(t, { adminPassword: 'geoserver', env: { MAPWARDEN_ALLOW_WEAK_PASSWORDS: 'true' } })
  const admin = { authorization: basic('admin', 'geoserver'), 'content-type': 'application/json' }
  t.equal((await app.inject({ url: `${BASE}/rest/about/version.json`, headers: admin })).statusCode, 200, 'admin/geoserver signs in')
  const res = await app.inject({ method: 'POST', url: `${BASE}/rest/security/usergroup/users`, headers: admin, payload: JSON.stringify({ user: { userName: 'dave', password: 'short' } }) })
  t.equal(res.statusCode, 201, res.body)
  t.equal((await app.inject({ url: `${BASE}/rest/about/version.json`, headers: { authorization: basic('dave', 'short') } })).statusCode, 200)
  const empty = await app.inject({ method: 'POST', url: `${BASE}/rest/security/usergroup/users`, headers: admin, payload: JSON.stringify({ user: { userName: 'erin', password: '' } }) })
  t.equal(empty.statusCode, 400, 'an empty password is still no password')
  t.match(empty.body, 'Missing password for user erin')

  const strict = await build(t)
  const refused = await strict.inject({ method: 'POST', url: `${BASE}/rest/security/usergroup/users`, headers: { authorization: basic('admin', 'test-admin-password'), 'content-type': 'application/json' }, payload: JSON.stringify({ user: { userName: 'dave', password: 'geoserver' } }) })
  t.equal(refused.statusCode, 422)
  t.match(refused.body, 'a well-known default password is not allowed')
})

t.test('the server warns at every start while weak passwords are allowed', async (t) => {
  const dataDir = tempDir(t)
  const env = { MAPWARDEN_ALLOW_WEAK_PASSWORDS: 'true', MAPWARDEN_ADMIN_PASSWORD: 'geoserver', MAPWARDEN_DATABASE_URL: '' }
  for (const round of [1, 2]) {
    const s = await startBuiltServer(dataDir, env)
    const exited = new Promise((resolve) => s.child.once('exit', resolve))
    t.match(s.output(), /MAPWARDEN_ALLOW_WEAK_PASSWORDS is on: short and well-known passwords are accepted/, `start ${round}`)
    t.notMatch(s.output(), /"geoserver"|:geoserver\b/, 'the password itself is not logged')
    s.child.kill('SIGTERM')
    await exited
  }
})
