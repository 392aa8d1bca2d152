// Hostile inputs, Auth (hostile cases 1-5).
import t from 'tap'
import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ADMIN, ADMIN_PASSWORD, BASE, basic, hostileApp, refuse, assertMessage, snapshot, assertUnchanged } from './refuse.js'
import { head, wire } from './wire.js'
import { tempDir } from '../helper.js'
import { createAuthenticator } from '../../services/auth/authenticator.js'

const CHALLENGE = 'Basic realm="GeoServer Realm"'
const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'plugins', 'server.js')

t.test('[hostile #1] every route, known or not, answers 401 with the Basic challenge when no credentials are sent', async (t) => {
  const h = await hostileApp(t)
  const cases: Array<[string, string]> = [
    ['GET', '/rest'], ['GET', '/rest/index'], ['GET', '/rest/nope'], ['GET', '/rest/workspaces'],
    ['HEAD', '/rest/workspaces'], ['OPTIONS', '/rest/workspaces'], ['GET', '/gwc/rest/seed.json'],
    ['GET', '/tilecache/rest/diskquota.json'], ['POST', '/gwc/rest/seed/x:y.json'], ['DELETE', '/rest/workspaces/nope'],
    ['GET', '/rest/security/masterpw.json'], ['PUT', '/rest/security/masterpw.json'], ['GET', '/nope/at/all']
  ]
  for (const [method, url] of cases) {
    const res = await refuse(t, h, { method: method as 'GET', url: BASE + url }, { status: 401, message: method === 'HEAD' ? /^$/ : /authentication required/i }, `${method} ${url}`)
    t.equal(res.headers['www-authenticate'], CHALLENGE, `${method} ${url}: GeoServer's challenge`)
  }
})

t.test('[hostile #2] malformed or foreign Authorization headers answer 401, never 500', async (t) => {
  const h = await hostileApp(t)
  for (const authorization of ['Basic !!!', 'Basic ', 'Basic', 'Basic dXNlcg==', 'Bearer x', 'Basic ' + Buffer.from(':').toString('base64'),
    'Basic ' + Buffer.from('admin').toString('base64'), 'Basic ' + Buffer.from('\u0000:\u0000').toString('base64'), 'Digest username="admin"',
    basic('admin', 'x'.repeat(4000))]) {
    const res = await refuse(t, h, { method: 'GET', url: `${BASE}/rest/workspaces`, headers: { authorization } },
      { status: 401, message: /^(HTTP Basic authentication required|The user name or password was refused)$/ }, `Authorization: ${authorization.slice(0, 30)}`)
    t.equal(res.headers['www-authenticate'], CHALLENGE)
  }
})

t.test('[hostile #2] a 16 KB Authorization header answers 431 in text/plain', async (t) => {
  const h = await hostileApp(t, { listen: true })
  const before = snapshot(h)
  const res = await wire(h.port, head('GET', `${BASE}/rest/workspaces`, { authorization: 'Basic ' + 'A'.repeat(16 * 1024) }))
  assertMessage(t, res, 431, /header/i, 'oversize header', h.dataDir)
  assertUnchanged(t, h, before, 'oversize header')
  // The server is still there.
  const ok = await h.inject({ method: 'GET', url: `${BASE}/health` })
  t.equal(ok.statusCode, 200)
})

t.test('[hostile #3] repeated wrong passwords are delayed and capped; other users and /health are not affected', async (t) => {
  const h = await hostileApp(t)
  // The authenticator's delay timers are unref'd (they must not hold a server open); with inject()
  // and no socket, keep the loop alive while they run.
  const keepAlive = setInterval(() => {}, 1000)
  t.teardown(() => clearInterval(keepAlive))
  const wrong = { authorization: basic('admin', 'not-the-password') }
  // Sequential failures: 401 each (the later ones after a growing delay, which is not timed here).
  for (let i = 0; i < 5; i++) {
    const res = await h.inject({ method: 'GET', url: `${BASE}/rest/workspaces`, headers: wrong })
    assertMessage(t, res, 401, /^The user name or password was refused$/, `wrong password #${i + 1}`)
  }
  // 15 more at once: delayed attempts are capped per address, the rest answer 429 at once.
  const burst = await Promise.all(Array.from({ length: 15 }, () => h.inject({ method: 'GET', url: `${BASE}/rest/workspaces`, headers: wrong })))
  const codes = burst.map((r) => r.statusCode)
  t.ok(codes.every((c) => c === 401 || c === 429), `burst answers 401 or 429 only: ${codes.join(',')}`)
  t.ok(codes.includes(429), 'delayed attempts are capped: some answer 429')
  for (const r of burst.filter((r) => r.statusCode === 429)) assertMessage(t, r, 429, /too many failed logins/i, 'capped attempt')
  // Meanwhile: /health, and another user from another address, answer at once.
  const [health, other] = await Promise.all([
    h.inject({ method: 'GET', url: `${BASE}/health` }),
    (async () => {
      const created = await h.inject({ method: 'POST', url: `${BASE}/rest/security/usergroup/users`, remoteAddress: '10.1.2.3', headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { user: { userName: 'reader', password: 'a-long-reader-password', enabled: true } } })
      t.equal(created.statusCode, 201, 'admin from another address is not throttled')
      return h.inject({ method: 'GET', url: `${BASE}/rest/about/version.json`, remoteAddress: '10.9.9.9', headers: { authorization: basic('reader', 'a-long-reader-password') } })
    })()
  ])
  t.equal(health.statusCode, 200, '/health unaffected')
  t.equal(other.statusCode, 200, 'another user from another address unaffected')
  // The right password still works (after the delay it has earned).
  const right = await h.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: ADMIN })
  t.equal(right.statusCode, 200, 'the right password is accepted')
})

t.test('[hostile #4] a valid non-admin user gets 403 on /rest/security and 405 on the master password PUT', async (t) => {
  const h = await hostileApp(t)
  const created = await h.inject({ method: 'POST', url: `${BASE}/rest/security/usergroup/users`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { user: { userName: 'joe', password: 'joe-long-password', enabled: true } } })
  t.equal(created.statusCode, 201)
  const joe = { authorization: basic('joe', 'joe-long-password') }
  for (const url of ['/rest/security/acl/layers.json', '/rest/security/acl/catalog.json', '/rest/security/masterpw.json', '/rest/security/usergroup/users.json', '/rest/security/roles.json']) {
    await refuse(t, h, { method: 'GET', url: BASE + url, headers: joe }, { status: 403, message: /privileges required|access denied/i })
  }
  await refuse(t, h, { method: 'PUT', url: `${BASE}/rest/security/masterpw.json`, headers: { ...joe, 'content-type': 'application/json' }, payload: { oldMasterPassword: 'x', newMasterPassword: 'y-long-new-password' } },
    { status: 405, message: /privileges required/i })
  await refuse(t, h, { method: 'POST', url: `${BASE}/rest/security/acl/layers.json`, headers: { ...joe, 'content-type': 'application/json' }, payload: { 'x.y.r': 'ROLE_X' } },
    { status: 403, message: /privileges required|access denied/i })
})

t.test('[hostile #5] first start with no admin password generates one and shows it once', async (t) => {
  const dataDir = tempDir(t, 'mw-first')
  const shown: string[] = []
  const h = await hostileApp(t, { dataDir, adminPassword: undefined, announce: (m) => { shown.push(m) } })
  t.equal(shown.length, 1, 'announced once')
  const password = /generated password (\S+)/.exec(shown[0])?.[1] ?? ''
  t.ok(password.length >= 16, 'a long generated password')
  t.not(password, 'geoserver')
  const ok = await h.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: { authorization: basic('admin', password) } })
  t.equal(ok.statusCode, 200, 'the generated password works')
  const weak = await h.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: { authorization: basic('admin', 'geoserver') } })
  t.equal(weak.statusCode, 401, 'GeoServer\'s default password does not')
  await h.root.close()
  // A second start on the same directory shows nothing.
  const again: string[] = []
  await hostileApp(t, { dataDir, adminPassword: undefined, announce: (m) => { again.push(m) } })
  t.same(again, [], 'not shown again')
})

for (const weak of ['geoserver', 'secured']) {
  t.test(`[hostile #5] the standalone server refuses to start with MAPWARDEN_ADMIN_PASSWORD=${weak}`, async (t) => {
    const dataDir = tempDir(t, 'mw-weak')
    const child = spawn(process.execPath, [SERVER], {
      env: { PATH: process.env.PATH, MAPWARDEN_ADMIN_PASSWORD: weak, MAPWARDEN_DATA_DIR: dataDir, MAPWARDEN_PORT: '0', MAPWARDEN_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stderr = ''
    child.stderr.on('data', (d) => { stderr += d })
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    t.not(code, 0, 'exits with an error')
    t.match(stderr, /MAPWARDEN_ADMIN_PASSWORD/, 'names the setting')
    t.notMatch(stderr, /\n\s+at /, 'no stack trace')
  })
}

t.test('[hostile #3] concurrent identical credential checks share one password verification', async (t) => {
  const h = await hostileApp(t)
  const real = h.app.users
  let lookups = 0
  const users = new Proxy(real, {
    get (target, prop, receiver) {
      if (prop === 'get') return (name: string) => { lookups++; return target.get(name) }
      return Reflect.get(target, prop, receiver)
    }
  })
  const auth = createAuthenticator({ users, cacheSeconds: 0 })
  t.teardown(() => auth.close())
  const results = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate('admin', ADMIN_PASSWORD, '127.0.0.1')))
  t.ok(results.every((p) => p?.name === 'admin'), 'all 20 succeed')
  t.equal(lookups, 1, 'one lookup and one scrypt for 20 identical checks')
  // Once settled, a new check verifies again (nothing is remembered with cacheSeconds 0).
  await auth.authenticate('admin', ADMIN_PASSWORD, '127.0.0.1')
  t.equal(lookups, 2)
})
