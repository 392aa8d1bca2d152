// {base}/rest/resource/<path>: GeoServer's resource API over the data directory's styles/,
// templates/ and workspaces/: listings (XML, JSON), file bytes, metadata, HEAD headers, PUT/GET
// round trips, DELETE; the catalog database, security/, temp files and anything a path or a symlink
// would reach outside answer 404; style files are read-only (403); non-admins get 401/403.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE, basic, tempDir } from '../../helper.js'
import { SLD, fixture } from '../styles/helpers.js'

const REST = `${BASE}/rest`
const R = `${REST}/resource`
const HOST = 'http://localhost:80/geoserver/rest/resource'

async function setup (t: Test) {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir })
  const res = await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  t.equal(res.statusCode, 201, 'a style through the catalog')
  return { app, dataDir }
}

t.test('root and directory listings in XML and JSON; a file\'s bytes; metadata; HEAD', async (t) => {
  const { app, dataDir } = await setup(t)
  let res = await app.inject({ url: `${R}`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/xml')
  t.match(res.body, /^<ResourceDirectory>\n {2}<name><\/name>\n {2}<lastModified>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC<\/lastModified>\n {2}<children>/)
  const rootNames = [...res.body.matchAll(/<name>([^<]*)<\/name>/g)].map((m) => m[1]).slice(1)
  t.same(rootNames, ['styles'], 'only the exposed areas that exist: no catalog.db, security, tmp, tiles')
  t.ok(fs.existsSync(path.join(dataDir, 'tmp')), 'tmp/ exists but is not listed')

  res = await app.inject({ url: `${R}/styles?format=xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['resource-type'], 'directory')
  t.equal(res.headers['resource-parent'], '/')
  const xml = res.body
  t.match(xml, '<ResourceDirectory>\n  <name>styles</name>\n  <parent>\n    <path>/</path>\n' +
    `    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="${HOST}/?format=xml" type="application/xml"/>\n  </parent>`)
  t.match(xml, '    <child>\n      <name>rain.sld</name>\n' +
    `      <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="${HOST}/styles/rain.sld" type="application/vnd.ogc.sld+xml"/>\n    </child>`)

  res = await app.inject({ url: `${R}/styles`, headers: { ...ADMIN, accept: 'application/json' } })
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  const dir = res.json().ResourceDirectory
  t.equal(dir.name, 'styles')
  t.same(dir.parent, { path: '/', link: { href: `${HOST}/?format=json`, rel: 'alternate', type: 'application/json' } })
  t.same(dir.children.child.find((c: { name: string }) => c.name === 'rain.sld'), { name: 'rain.sld', link: { href: `${HOST}/styles/rain.sld`, rel: 'alternate', type: 'application/vnd.ogc.sld+xml' } })

  res = await app.inject({ url: `${R}/styles/rain.sld`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/vnd.ogc.sld+xml')
  t.equal(res.headers['resource-type'], 'resource')
  t.equal(res.headers['resource-parent'], '/styles')
  t.ok(res.headers['last-modified'])
  t.same(res.rawPayload, fs.readFileSync(path.join(dataDir, 'styles', 'rain.sld')), 'the file\'s exact bytes')

  res = await app.inject({ url: `${R}/styles/rain.sld?operation=metadata&format=json`, headers: ADMIN })
  const meta = res.json().ResourceMetadata
  t.equal(meta.name, 'rain.sld')
  t.equal(meta.type, 'resource')
  t.same(meta.parent, { path: '/styles', link: { href: `${HOST}/styles?operation=metadata&format=json`, rel: 'alternate', type: 'application/json' } })
  res = await app.inject({ url: `${R}/styles?operation=metadata`, headers: ADMIN })
  t.match(res.body, /^<ResourceMetadata>\n {2}<name>styles<\/name>[\s\S]*<type>directory<\/type>\n<\/ResourceMetadata>$/)

  res = await app.inject({ method: 'HEAD', url: `${R}/styles/rain.sld`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['resource-type'], 'resource')
  t.equal(res.body, '')

  res = await app.inject({ url: `${R}/styles?format=html`, headers: ADMIN })
  t.equal(res.statusCode, 406)
  res = await app.inject({ url: `${R}/styles?operation=copy`, headers: ADMIN })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'Unsupported operation "copy"')
  res = await app.inject({ url: `${R}/styles?formt=json`, headers: ADMIN })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'Unknown query parameter "formt"')
  res = await app.inject({ url: `${R}/styles/nope.sld`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  res = await app.inject({ url: `${REST}/openapi.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.ok(Object.keys(res.json().paths).some((p) => p.startsWith(`${R}/`)), 'the routes are in the OpenAPI document')
})

t.test('PUT writes a file (201 new, 200 replaced), GET reads it back, DELETE removes files and folders', async (t) => {
  const { app, dataDir } = await setup(t)
  const body = Buffer.from('<#-- header --><h1>${name}</h1>\n\u00e9', 'utf8')
  let res = await app.inject({ method: 'PUT', url: `${R}/workspaces/topp/states/content.ftl`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: body })
  t.equal(res.statusCode, 201)
  t.same(fs.readFileSync(path.join(dataDir, 'workspaces', 'topp', 'states', 'content.ftl')), body, 'parents created, bytes as sent')
  t.same(fs.readdirSync(path.join(dataDir, 'workspaces', 'topp', 'states')), ['content.ftl'], 'no temp file left')
  res = await app.inject({ url: `${R}/workspaces/topp/states/content.ftl`, headers: ADMIN })
  t.same(res.rawPayload, body)
  t.equal(res.headers['content-type'], 'text/plain')

  const xml = Buffer.from('<featureType><name>states</name></featureType>')
  res = await app.inject({ method: 'PUT', url: `${R}/workspaces/topp/states/content.ftl`, headers: { ...ADMIN, 'content-type': 'application/xml' }, payload: xml })
  t.equal(res.statusCode, 200, 'replaced')
  res = await app.inject({ url: `${R}/workspaces/topp/states/content.ftl`, headers: ADMIN })
  t.same(res.rawPayload, xml, 'an XML body is kept as bytes, not parsed')

  res = await app.inject({ method: 'PUT', url: `${R}/templates/header.ftl`, headers: ADMIN, payload: 'h' })
  t.equal(res.statusCode, 201)
  const bytes = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff, 0x00, 0x80])
  for (const type of ['application/octet-stream', 'application/zip', 'image/png']) {
    res = await app.inject({ method: 'PUT', url: `${R}/templates/caf%C3%A9.bin`, headers: { ...ADMIN, 'content-type': type }, payload: bytes })
    t.ok(res.statusCode === 201 || res.statusCode === 200, `${type}: ${res.statusCode}`)
    t.same(fs.readFileSync(path.join(dataDir, 'templates', 'caf\u00e9.bin')), bytes, `${type}: stored as sent`)
  }
  res = await app.inject({ url: `${R}/templates/?format=json`, headers: ADMIN })
  t.same(res.json().ResourceDirectory.children.child, [
    { name: 'caf\u00e9.bin', link: { href: `${HOST}/templates/caf%C3%A9.bin`, rel: 'alternate', type: 'application/octet-stream' } },
    { name: 'header.ftl', link: { href: `${HOST}/templates/header.ftl`, rel: 'alternate', type: 'text/plain' } }
  ], 'a trailing slash lists too; non-ASCII names percent-encoded in links')
  res = await app.inject({ method: 'HEAD', url: `${R}/templates/caf%C3%A9.bin`, headers: ADMIN })
  t.equal(res.headers['resource-parent'], '/templates')
  t.equal(res.headers['content-type'], 'application/octet-stream')
  res = await app.inject({ method: 'PUT', url: `${R}/templates`, headers: ADMIN, payload: 'x' })
  t.equal(res.statusCode, 405, 'PUT to a directory')
  res = await app.inject({ method: 'PUT', url: `${R}/workspaces/newws`, headers: ADMIN, payload: 'x' })
  t.equal(res.statusCode, 405, 'a workspace\'s folder is never a file')
  t.notOk(fs.existsSync(path.join(dataDir, 'workspaces', 'newws')))
  res = await app.inject({ method: 'PUT', url: `${R}/templates/header.ftl/inner.ftl`, headers: ADMIN, payload: 'x' })
  t.equal(res.statusCode, 409, 'a file as a parent')
  res = await app.inject({ method: 'POST', url: `${R}/templates/header.ftl`, headers: ADMIN, payload: 'x' })
  t.equal(res.statusCode, 405)

  res = await app.inject({ method: 'DELETE', url: `${R}/workspaces/topp/states/content.ftl`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.notOk(fs.existsSync(path.join(dataDir, 'workspaces', 'topp', 'states', 'content.ftl')))
  res = await app.inject({ url: `${R}/workspaces/topp/states/content.ftl`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  res = await app.inject({ method: 'DELETE', url: `${R}/workspaces/topp/states`, headers: ADMIN })
  t.equal(res.statusCode, 200, 'a directory')
  t.notOk(fs.existsSync(path.join(dataDir, 'workspaces', 'topp', 'states')))
  res = await app.inject({ method: 'DELETE', url: `${R}/templates/nope`, headers: ADMIN })
  t.equal(res.statusCode, 404)
})

t.test('style files belong to the catalog: readable, never written or deleted here', async (t) => {
  const { app, dataDir } = await setup(t)
  const before = fs.readFileSync(path.join(dataDir, 'styles', 'rain.sld'))
  let res = await app.inject({ method: 'PUT', url: `${R}/styles/rain.sld`, headers: ADMIN, payload: '<x/>' })
  t.equal(res.statusCode, 403)
  t.match(res.body, '/rest/styles')
  res = await app.inject({ method: 'PUT', url: `${R}/workspaces/topp/styles/new.sld`, headers: ADMIN, payload: '<x/>' })
  t.equal(res.statusCode, 403)
  t.match(res.body, '/rest/workspaces/topp/styles')
  res = await app.inject({ method: 'DELETE', url: `${R}/styles/rain.sld`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  res = await app.inject({ method: 'DELETE', url: `${R}/styles`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  fs.mkdirSync(path.join(dataDir, 'workspaces', 'topp'), { recursive: true })
  res = await app.inject({ method: 'DELETE', url: `${R}/workspaces/topp`, headers: ADMIN })
  t.equal(res.statusCode, 403, 'a workspace folder holds its styles')
  t.same(fs.readFileSync(path.join(dataDir, 'styles', 'rain.sld')), before, 'unchanged')
  t.ok(fs.existsSync(path.join(dataDir, 'workspaces', 'topp')))
})

t.test('traversal, hidden paths and symlinks out answer 400/404 and change nothing', async (t) => {
  const { app, dataDir } = await setup(t)
  const outside = tempDir(t, 'outside')
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET')
  fs.mkdirSync(path.join(dataDir, 'templates'), { recursive: true })
  fs.symlinkSync(outside, path.join(dataDir, 'templates', 'out'))
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(dataDir, 'templates', 'secret.txt'))
  fs.symlinkSync(path.join(dataDir, 'catalog.db'), path.join(dataDir, 'templates', 'db'))
  fs.writeFileSync(path.join(dataDir, 'templates', '.x.ftl.0123.mwtmp'), 'partial')
  fs.writeFileSync(path.join(dataDir, 'templates', 'ok.ftl'), 'ok')

  const status = async (method: 'GET' | 'PUT' | 'DELETE', url: string) =>
    (await app.inject({ method, url, headers: ADMIN, ...(method === 'PUT' ? { payload: 'x' } : {}) })).statusCode
  for (const url of [`${R}/templates/../catalog.db`, `${R}/templates/%2e%2e/catalog.db`, `${R}/templates/%2E%2E/%2E%2E/etc/passwd`, `${R}/templates/..%2f..%2fetc%2fpasswd`, `${R}/templates/a%5c..%5c..%5cx`]) {
    for (const m of ['GET', 'PUT', 'DELETE'] as const) {
      // A client's URL parser may fold %2e%2e itself (then another route refuses it): never a success.
      const s = await status(m, url)
      t.ok(s >= 400 && s < 500, `${m} ${url}: ${s}`)
    }
  }
  t.equal(await status('GET', `${R}/templates/x%00y`), 400, 'NUL')
  for (const p of ['catalog.db', 'security/master.key', 'security', 'tmp', 'tiles', 'mapwarden.pid', 'templates/.x.ftl.0123.mwtmp',
    'templates/out/secret.txt', 'templates/out', 'templates/secret.txt', 'templates/db', '/etc/passwd']) {
    for (const m of ['GET', 'PUT', 'DELETE'] as const) t.equal(await status(m, `${R}/${p}`), 404, `${m} ${p}`)
  }
  t.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'SECRET', 'untouched')
  t.same(fs.readdirSync(outside), ['secret.txt'], 'nothing written outside')
  t.ok(fs.existsSync(path.join(dataDir, 'catalog.db')) || process.env.MAPWARDEN_TEST_BACKEND === 'pg')
  t.notOk(fs.existsSync(path.join(dataDir, 'security', 'x')))

  const res = await app.inject({ url: `${R}/templates?format=json`, headers: ADMIN })
  t.same(res.json().ResourceDirectory.children.child.map((c: { name: string }) => c.name), ['ok.ftl'], 'links out, temp files and dot-files are not listed')
})

t.test('admin only: 401 without credentials, 403 for another user', async (t) => {
  const { app } = await setup(t)
  let res = await app.inject({ method: 'POST', url: `${REST}/security/usergroup/users.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: '{"user":{"userName":"bob","password":"bob-password","enabled":true}}' })
  t.equal(res.statusCode, 201)
  const bob = { authorization: basic('bob', 'bob-password') }
  res = await app.inject({ url: `${R}/styles/rain.sld` })
  t.equal(res.statusCode, 401)
  for (const m of ['GET', 'PUT', 'DELETE'] as const) {
    res = await app.inject({ method: m, url: `${R}/templates/x.ftl`, headers: bob, ...(m === 'PUT' ? { payload: 'x' } : {}) })
    t.equal(res.statusCode, 403, m)
  }
  res = await app.inject({ url: `${R}/styles/rain.sld`, headers: bob })
  t.equal(res.statusCode, 403)
})

t.test('a workspace removed through the catalog takes its resource folder with it', async (t) => {
  const { app, dataDir } = await setup(t)
  let res = await app.inject({ method: 'POST', url: `${REST}/workspaces`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: '{"workspace":{"name":"topp"}}' })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'PUT', url: `${R}/workspaces/topp/states/content.ftl`, headers: ADMIN, payload: 'x' })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'PUT', url: `${R}/workspaces/other/content.ftl`, headers: ADMIN, payload: 'y' })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/topp?recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  res = await app.inject({ url: `${R}/workspaces/topp/states/content.ftl`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.notOk(fs.existsSync(path.join(dataDir, 'workspaces', 'topp')))
  res = await app.inject({ url: `${R}/workspaces/other/content.ftl`, headers: ADMIN })
  t.equal(res.body, 'y', 'another folder stays')
})
