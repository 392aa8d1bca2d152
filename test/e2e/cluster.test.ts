// Two built servers on one PostgreSQL database and one data directory, as docker-compose.cluster.yml
// runs them: a change made through one is in force on the other (LISTEN/NOTIFY), without a restart.
import t from 'tap'
import { ADMIN_PASSWORD, BASE, basic, startBuiltServer, tempDir } from '../helper.js'
import { pgDatabase } from '../fixtures/pg.js'
import { until } from '../fixtures/cluster.js'
import { rgbTiff, pattern, zipOf } from '../fixtures/seed/mosaic.js'

const ADMIN = basic('admin', ADMIN_PASSWORD)

t.test('two instances on one database: catalog lists, credentials, rules and the catalog mode changed on A hold on B', async (t) => {
  const databaseUrl = await pgDatabase(t, { migrated: true })
  const dataDir = tempDir(t)
  const env = { MAPWARDEN_DATABASE_URL: databaseUrl }
  const a = await startBuiltServer(dataDir, env)
  t.teardown(() => { a.child.kill('SIGKILL') })
  const b = await startBuiltServer(dataDir, env)
  t.teardown(() => { b.child.kill('SIGKILL') })
  t.notMatch(b.output(), /generated password/, 'the second instance finds the administrator the first created')

  const call = (node: { url: string }, method: string, path: string, auth = ADMIN, body?: string | Uint8Array, type = 'application/json') =>
    fetch(`${node.url}${BASE}${path}`, { method, headers: { authorization: auth, ...(body ? { 'content-type': type } : {}) }, body: body as BodyInit | undefined })

  // A workspace list B has cached, then a workspace made on A.
  let res = await call(b, 'GET', '/rest/workspaces.json')
  t.equal(res.status, 200)
  t.same(await res.json(), { workspaces: '' }, 'B: no workspace yet')
  res = await call(a, 'POST', '/rest/workspaces', ADMIN, JSON.stringify({ workspace: { name: 'topp' } }))
  t.equal(res.status, 201)
  await until('B lists the workspace A made', async () => JSON.stringify(await (await call(b, 'GET', '/rest/workspaces.json')).json()).includes('"topp"'))

  // A mosaic uploaded through A is a layer B serves from the shared data directory.
  const zip = await zipOf({ 'g.tif': rgbTiff(64, 64, [0, 0, 10, 10], pattern) })
  res = await call(a, 'PUT', '/rest/workspaces/topp/coveragestores/m/file.imagemosaic', ADMIN, zip, 'application/zip')
  t.ok(res.status < 300, `mosaic upload on A: ${res.status}`)
  res = await call(b, 'GET', '/rest/layers/topp:m.json')
  t.equal(res.status, 200, 'B knows the layer')
  // The granule lies east of Greenwich: the eastern one of the two tiles of level 0.
  const tile = '/gwc/service/xyz/topp:m/EPSG:4326/0/1/0.png'
  t.equal((await call(b, 'GET', tile)).status, 200, 'B: the administrator reads a tile')

  // A user made on A logs in on B; its password changed on A, B refuses the old one at once
  // although it had remembered it (the credential cache).
  res = await call(a, 'POST', '/rest/security/usergroup/users', ADMIN, JSON.stringify({ user: { userName: 'bob', password: 'bob-password-1' } }))
  t.equal(res.status, 201)
  const bob1 = basic('bob', 'bob-password-1')
  t.equal((await call(b, 'GET', tile, bob1)).status, 200, 'B: bob reads the layer')
  res = await call(a, 'POST', '/rest/security/usergroup/user/bob.xml', ADMIN, '<user><password>bob-password-2</password></user>', 'application/xml')
  t.equal(res.status, 200)
  await until('B refuses the old password', async () => (await call(b, 'GET', tile, bob1)).status === 401)
  const bob2 = basic('bob', 'bob-password-2')
  t.equal((await call(b, 'GET', tile, bob2)).status, 200, 'B: the new password')

  // A rule added on A hides the layer from bob on B; removed on A, it is no longer applied on B.
  res = await call(a, 'POST', '/rest/security/acl/layers.json', ADMIN, '{"topp.m.r":"ROLE_READER"}')
  t.equal(res.status, 201)
  await until('B enforces the rule', async () => (await call(b, 'GET', tile, bob2)).status === 404)
  t.equal((await call(b, 'GET', tile)).status, 200, 'B: the administrator still reads it')
  // The catalog mode set on A: B challenges instead of hiding.
  res = await call(a, 'PUT', '/rest/security/acl/catalog.json', ADMIN, JSON.stringify({ mode: 'MIXED' }))
  t.equal(res.status, 200)
  await until('B applies the catalog mode', async () => (await call(b, 'GET', tile, bob2)).status === 403)
  res = await call(a, 'DELETE', '/rest/security/acl/layers/topp.m.r')
  t.equal(res.status, 200)
  await until('B no longer applies the removed rule', async () => (await call(b, 'GET', tile, bob2)).status === 200)

  // A user removed on A is refused on B.
  res = await call(a, 'DELETE', '/rest/security/usergroup/user/bob')
  t.equal(res.status, 200)
  await until('B refuses the removed user', async () => (await call(b, 'GET', tile, bob2)).status === 401)
})
