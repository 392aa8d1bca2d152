import t from 'tap'
import { appRows } from '../../fixtures/catalog-rows.js'
import fs from 'node:fs'
import path from 'node:path'
import { resolveConfig, ConfigError } from '../../../plugins/infra/config.js'
import { build, tempDir, basic } from '../../helper.js'

t.test('defaults and MAPWARDEN_* variables', async (t) => {
  const c = resolveConfig({ env: {} })
  t.equal(c.port, 8080)
  t.equal(c.basePath, '/geoserver')
  t.equal(c.dataDir, path.resolve('data'))
  t.same(c.harvestRoots, [])
  const e = resolveConfig({ env: { MAPWARDEN_PORT: '9090', MAPWARDEN_BASE_PATH: '/gs/', MAPWARDEN_HARVEST_ROOTS: '/srv/a:/srv/b', MAPWARDEN_UPLOAD_LIMIT: '10MiB', MAPWARDEN_LOG_LEVEL: 'warn' } })
  t.equal(e.port, 9090)
  t.equal(e.basePath, '/gs')
  t.same(e.harvestRoots, ['/srv/a', '/srv/b'])
  t.equal(e.uploadLimit, 10 * 2 ** 20)
  t.equal(e.logLevel, 'warn')
  t.equal(resolveConfig({ env: { MAPWARDEN_PORT: '9090' }, port: 7000 }).port, 7000, 'options win over the environment')
})

t.test('a bad setting stops the start with a message that names it', async (t) => {
  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ MAPWARDEN_PORT: 'eighty' }, /MAPWARDEN_PORT="eighty": must be an integer/],
    [{ MAPWARDEN_PORT: '70000' }, /MAPWARDEN_PORT/],
    [{ MAPWARDEN_BASE_PATH: 'no-slash' }, /MAPWARDEN_BASE_PATH/],
    [{ MAPWARDEN_HARVEST_ROOTS: 'relative/dir' }, /MAPWARDEN_HARVEST_ROOTS.*absolute/],
    [{ MAPWARDEN_LOG_LEVEL: 'loud' }, /MAPWARDEN_LOG_LEVEL/],
    [{ MAPWARDEN_WORKER_THREADS: '0' }, /MAPWARDEN_WORKER_THREADS/],
    [{ MAPWARDEN_RENDER_NICE: '20' }, /MAPWARDEN_RENDER_NICE="20": must be an integer from 0 to 19/],
    [{ MAPWARDEN_ADMIN_PASSWORD: 'geoserver' }, /MAPWARDEN_ADMIN_PASSWORD/],
    [{ MAPWARDEN_ADMIN_PASSWORD: 'secured' }, /MAPWARDEN_ADMIN_PASSWORD/],
    [{ MAPWARDEN_ADMIN_PASSWORD: 'short' }, /at least 8 characters/]
  ]
  for (const [env, msg] of bad) {
    t.throws(() => resolveConfig({ env }), ConfigError)
    t.throws(() => resolveConfig({ env }), msg)
  }
})

t.test('first start without a password generates one, shows it once and stores only a hash', async (t) => {
  const dataDir = tempDir(t)
  const shown: string[] = []
  const app = await build(t, { dataDir, adminPassword: undefined, announce: (m) => shown.push(m), keepOpen: true })
  t.equal(shown.length, 1)
  const password = /generated password (\S+)/.exec(shown[0])![1]
  t.ok(password.length >= 20)
  const res = await app.inject({ method: 'GET', url: '/geoserver/rest/workspaces.json', headers: { authorization: basic('admin', password) } })
  t.equal(res.statusCode, 200)
  await app.close()
  // The users' rows on either backend, and on SQLite the database file itself.
  const users = await appRows(app, 'SELECT name, password_hash FROM users')
  t.same(users.map((u) => u.name), ['admin'])
  t.notOk(JSON.stringify(users).includes(password), 'the password is not in the users table in clear')
  t.match(users[0].password_hash, /^scrypt\$\d+\$/, 'stored as an scrypt hash')
  if (fs.existsSync(path.join(dataDir, 'catalog.db'))) {
    t.notOk(fs.readFileSync(path.join(dataDir, 'catalog.db')).includes(Buffer.from(password)), 'the password is not in the database file in clear')
  }
  const again = await build(t, { dataDir, adminPassword: undefined, announce: (m) => shown.push(m) })
  t.equal(shown.length, 1, 'not generated or shown again on restart')
  const res2 = await again.inject({ method: 'GET', url: '/geoserver/rest/workspaces.json', headers: { authorization: basic('admin', password) } })
  t.equal(res2.statusCode, 200)
})

t.test('the README documents every setting', async (t) => {
  const { SETTINGS } = await import('../../../plugins/infra/config.js')
  const readme = fs.readFileSync(path.resolve('README.md'), 'utf8')
  for (const s of SETTINGS) t.ok(readme.includes('`' + s.env + '`'), s.env)
})
