import t from 'tap'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { addStore, withAppDb } from '../../fixtures/catalog-rows.js'

const REST = `${BASE}/rest`
const XML = { ...ADMIN, 'content-type': 'application/xml' }
const JSON_BODY = { ...ADMIN, 'content-type': 'application/json' }

t.test('namespaces: a workspace brings its namespace, listed and read in XML and JSON', async (t) => {
  const app = await build(t)
  let res = await app.inject({ url: `${REST}/namespaces.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '{"namespaces":""}')

  res = await app.inject({ method: 'POST', url: `${REST}/workspaces`, headers: XML, payload: '<workspace><name>cite</name></workspace>' })
  t.equal(res.statusCode, 201)

  res = await app.inject({ url: `${REST}/namespaces.json`, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(res.body, '{"namespaces":{"namespace":[{"name":"cite","href":"http://localhost:80/geoserver/rest/namespaces/cite.json"}]}}')
  res = await app.inject({ url: `${REST}/namespaces.xml`, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, [
    '<namespaces>',
    '  <namespace>',
    '    <name>cite</name>',
    '    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/rest/namespaces/cite.xml" type="application/atom+xml"/>',
    '  </namespace>',
    '</namespaces>'
  ].join('\n'))

  res = await app.inject({ url: `${REST}/namespaces/cite.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '<namespace>\n  <prefix>cite</prefix>\n  <uri>http://mapwarden.org/ns/cite</uri>\n  <isolated>false</isolated>\n</namespace>')
  res = await app.inject({ url: `${REST}/namespaces/cite`, headers: { ...ADMIN, accept: 'application/json' } })
  t.equal(res.body, '{"namespace":{"prefix":"cite","uri":"http://mapwarden.org/ns/cite","isolated":false}}')

  res = await app.inject({ url: `${REST}/namespaces/nope.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(res.body, "No such namespace: 'nope' found")
})

t.test('namespaces: POST creates the workspace too; PUT edits the URI; DELETE removes both', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'POST', url: `${REST}/namespaces`, headers: XML, payload: '<namespace><prefix>topp</prefix><uri>http://www.openplans.org/topp</uri><isolated>true</isolated></namespace>' })
  t.equal(res.statusCode, 201)
  t.match(res.headers['content-type'], /^text\/plain/)
  t.equal(res.body, 'topp')
  t.equal(res.headers.location, 'http://localhost:80/geoserver/rest/namespaces/topp')

  res = await app.inject({ url: `${REST}/workspaces/topp.json`, headers: ADMIN })
  t.equal(res.statusCode, 200, 'its workspace exists')
  t.equal(res.json().workspace.isolated, true, 'with the namespace\'s isolated flag')

  res = await app.inject({ method: 'PUT', url: `${REST}/namespaces/topp.json`, headers: JSON_BODY, payload: '{"namespace":{"uri":"urn:topp:2"}}' })
  t.equal(res.statusCode, 200)
  res = await app.inject({ url: `${REST}/namespaces/topp.json`, headers: ADMIN })
  t.equal(res.body, '{"namespace":{"prefix":"topp","uri":"urn:topp:2","isolated":true}}')

  // GET-modify-PUT with the same prefix is fine.
  res = await app.inject({ method: 'PUT', url: `${REST}/namespaces/topp.xml`, headers: XML, payload: '<namespace><prefix>topp</prefix><uri>urn:topp:3</uri><isolated>false</isolated></namespace>' })
  t.equal(res.statusCode, 200)
  res = await app.inject({ url: `${REST}/namespaces/topp.json`, headers: ADMIN })
  t.equal(res.body, '{"namespace":{"prefix":"topp","uri":"urn:topp:3","isolated":false}}')

  // Renaming the workspace renames its namespace and keeps the URI it was given.
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/topp`, headers: XML, payload: '<workspace><name>topp2</name></workspace>' })
  t.equal(res.statusCode, 200)
  t.equal((await app.inject({ url: `${REST}/namespaces/topp2.json`, headers: ADMIN })).body, '{"namespace":{"prefix":"topp2","uri":"urn:topp:3","isolated":false}}')
  t.equal((await app.inject({ url: `${REST}/namespaces/topp.json`, headers: ADMIN })).statusCode, 404)
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/topp2`, headers: XML, payload: '<workspace><name>topp</name></workspace>' })
  t.equal(res.statusCode, 200)

  res = await app.inject({ method: 'DELETE', url: `${REST}/namespaces/topp`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  res = await app.inject({ url: `${REST}/workspaces/topp.json`, headers: ADMIN })
  t.equal(res.statusCode, 404, 'its workspace went with it')

  // Deleting a workspace deletes its namespace.
  await app.inject({ method: 'POST', url: `${REST}/workspaces`, headers: XML, payload: '<workspace><name>sf</name></workspace>' })
  res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/sf`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  res = await app.inject({ url: `${REST}/namespaces/sf.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
})

t.test('namespaces: refusals name the problem and change nothing', async (t) => {
  const app = await build(t)
  await app.inject({ method: 'POST', url: `${REST}/namespaces`, headers: XML, payload: '<namespace><prefix>topp</prefix><uri>http://topp</uri></namespace>' })
  const before = (await app.inject({ url: `${REST}/namespaces/topp.json`, headers: ADMIN })).body
  const cases: Array<[string, string, string, unknown, number, string]> = [
    ['POST', `${REST}/namespaces`, 'xml', '<namespace><prefix>topp</prefix><uri>http://other</uri></namespace>', 409, "Namespace with prefix 'topp' already exists."],
    ['POST', `${REST}/namespaces`, 'xml', '<namespace><prefix>other</prefix><uri>http://topp</uri></namespace>', 409, "Namespace with URI 'http://topp' already exists."],
    ['POST', `${REST}/namespaces`, 'xml', '<namespace><prefix>x</prefix></namespace>', 400, 'Namespace uri must not be null'],
    ['POST', `${REST}/namespaces`, 'xml', '<namespace><uri>http://x</uri></namespace>', 400, 'Namespace prefix must not be null'],
    ['POST', `${REST}/namespaces`, 'xml', '<namespace><prefix>x</prefix><uri>not a uri</uri></namespace>', 400, 'Invalid URI syntax for "not a uri" in namespace'],
    ['POST', `${REST}/namespaces`, 'json', '{"namespace":{"prefix":"x","uri":"http://x","color":"red"}}', 400, 'Unknown field "color" in namespace'],
    ['PUT', `${REST}/namespaces/topp`, 'xml', '<namespace><prefix>other</prefix></namespace>', 403, "Can't change name of namespace"],
    ['PUT', `${REST}/namespaces/nope`, 'xml', '<namespace><uri>http://n</uri></namespace>', 404, "Can't change a non existant namespace (nope)"],
    ['PUT', `${REST}/namespaces/topp`, 'xml', '<namespace><isolated>maybe</isolated></namespace>', 400, 'workspace isolated must be true or false, got "maybe"'],
    ['DELETE', `${REST}/namespaces/nope`, '', undefined, 404, "Namespace 'nope' not found"],
    ['DELETE', `${REST}/namespaces/default`, '', undefined, 405, "Can't delete the default namespace"]
  ]
  for (const [method, url, type, payload, status, message] of cases) {
    const headers = type === 'xml' ? XML : type === 'json' ? JSON_BODY : ADMIN
    const res = await app.inject({ method: method as 'POST', url, headers, payload: payload as string })
    t.equal(res.statusCode, status, `${method} ${url} ${String(payload)}`)
    t.equal(res.body, message)
  }
  for (const [method, url] of [['PUT', `${REST}/namespaces`], ['DELETE', `${REST}/namespaces.json`], ['POST', `${REST}/namespaces/topp`]] as const) {
    const res = await app.inject({ method, url, headers: XML, payload: '<namespace><prefix>topp</prefix><uri>http://x</uri></namespace>' })
    t.equal(res.statusCode, 405, `${method} ${url}`)
    t.equal(res.body, `Request method ${method} not supported`)
  }
  t.equal((await app.inject({ url: `${REST}/namespaces/topp.json`, headers: ADMIN })).body, before, 'unchanged')
  t.equal((await app.inject({ url: `${REST}/namespaces.json`, headers: ADMIN })).json().namespaces.namespace.length, 1, 'nothing created')

  // A namespace whose workspace holds a store is not deleted.
  await withAppDb(app, async (o) => await addStore(o, { workspace: 'topp', name: 'roads', kind: 'coverage', type: 'ImageMosaic', config: '{}', createdAt: 'now' }))
  const res = await app.inject({ method: 'DELETE', url: `${REST}/namespaces/topp`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  t.equal(res.body, 'Namespace not empty')
  t.equal((await app.inject({ url: `${REST}/workspaces/topp.json`, headers: ADMIN })).statusCode, 200)
})

t.test('default workspace and namespace: the first created, chosen by PUT or ?default=true, kept over a restart', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, keepOpen: true })
  let res = await app.inject({ url: `${REST}/workspaces/default.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, "No such workspace: 'default' found")
  res = await app.inject({ url: `${REST}/namespaces/default.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, "No such namespace: 'default' found")

  await app.inject({ method: 'POST', url: `${REST}/workspaces`, headers: XML, payload: '<workspace><name>b</name></workspace>' })
  await app.inject({ method: 'POST', url: `${REST}/workspaces`, headers: XML, payload: '<workspace><name>a</name></workspace>' })
  res = await app.inject({ url: `${REST}/workspaces/default.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.match(res.body, /^<workspace>\n {2}<name>b<\/name>\n/, 'the first created')
  t.match(res.body, 'href="http://localhost:80/geoserver/rest/workspaces/b/datastores.xml"')

  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/default`, headers: XML, payload: '<workspace><name>a</name></workspace>' })
  t.equal(res.statusCode, 200)
  t.equal((await app.inject({ url: `${REST}/workspaces/default.json`, headers: ADMIN })).json().workspace.name, 'a')
  t.equal((await app.inject({ url: `${REST}/namespaces/default.json`, headers: ADMIN })).body, '{"namespace":{"prefix":"a","uri":"http://mapwarden.org/ns/a","isolated":false}}', 'the default namespace follows')

  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/default`, headers: XML, payload: '<workspace><name>zz</name></workspace>' })
  t.equal(res.statusCode, 404)
  t.equal(res.body, "No such workspace: 'zz' found")
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/default`, headers: XML, payload: '<workspace><title>a</title></workspace>' })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'Unknown field "title" in workspace')
  t.equal((await app.inject({ url: `${REST}/workspaces/default.json`, headers: ADMIN })).json().workspace.name, 'a', 'unchanged')

  res = await app.inject({ method: 'POST', url: `${REST}/workspaces?default=true`, headers: XML, payload: '<workspace><name>c</name></workspace>' })
  t.equal(res.statusCode, 201)
  t.equal((await app.inject({ url: `${REST}/workspaces/default.json`, headers: ADMIN })).json().workspace.name, 'c')

  res = await app.inject({ method: 'PUT', url: `${REST}/namespaces/default`, headers: JSON_BODY, payload: '{"namespace":{"prefix":"b"}}' })
  t.equal(res.statusCode, 200)
  t.equal((await app.inject({ url: `${REST}/workspaces/default.json`, headers: ADMIN })).json().workspace.name, 'b', 'the default workspace follows')
  res = await app.inject({ method: 'PUT', url: `${REST}/namespaces/default`, headers: JSON_BODY, payload: '{"namespace":{"prefix":"nope"}}' })
  t.equal(res.statusCode, 404)
  t.equal(res.body, "No such namespace: 'nope' found")

  await app.close()
  const again = await build(t, { dataDir })
  t.equal((await again.inject({ url: `${REST}/workspaces/default.json`, headers: ADMIN })).json().workspace.name, 'b', 'kept over a restart')

  // The default deleted: the first created of those left.
  t.equal((await again.inject({ method: 'DELETE', url: `${REST}/workspaces/b`, headers: ADMIN })).statusCode, 200)
  t.equal((await again.inject({ url: `${REST}/workspaces/default.json`, headers: ADMIN })).json().workspace.name, 'a')
})
