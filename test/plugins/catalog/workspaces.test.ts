import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { addStore, appRows, withAppDb } from '../../fixtures/catalog-rows.js'

t.test('workspaces: create, list, get, update, delete in XML and JSON', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(res.body, '{"workspaces":""}')

  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.xml`, headers: ADMIN })
  t.equal(res.body, '<workspaces/>')

  res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<workspace><name>cite</name></workspace>' })
  t.equal(res.statusCode, 201)
  t.equal(res.body, 'cite')
  t.equal(res.headers.location, 'http://localhost:80/geoserver/rest/workspaces/cite')

  res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: '{"workspace":{"name":"topp"}}' })
  t.equal(res.statusCode, 201)

  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: ADMIN })
  t.equal(res.body, '{"workspaces":{"workspace":[{"name":"cite","href":"http://localhost:80/geoserver/rest/workspaces/cite.json"},{"name":"topp","href":"http://localhost:80/geoserver/rest/workspaces/topp.json"}]}}')

  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.xml`, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, [
    '<workspaces>',
    '  <workspace>',
    '    <name>cite</name>',
    '    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/rest/workspaces/cite.xml" type="application/atom+xml"/>',
    '  </workspace>',
    '  <workspace>',
    '    <name>topp</name>',
    '    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/rest/workspaces/topp.xml" type="application/atom+xml"/>',
    '  </workspace>',
    '</workspaces>'
  ].join('\n'))

  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces/cite.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.body, [
    '<workspace>',
    '  <name>cite</name>',
    '  <isolated>false</isolated>',
    '  <dataStores>',
    '    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/rest/workspaces/cite/datastores.xml" type="application/xml"/>',
    '  </dataStores>',
    '  <coverageStores>',
    '    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/rest/workspaces/cite/coveragestores.xml" type="application/xml"/>',
    '  </coverageStores>',
    '  <wmsStores>',
    '    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/rest/workspaces/cite/wmsstores.xml" type="application/xml"/>',
    '  </wmsStores>',
    '  <wmtsStores>',
    '    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/rest/workspaces/cite/wmtsstores.xml" type="application/xml"/>',
    '  </wmtsStores>',
    '</workspace>'
  ].join('\n'))

  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces/cite`, headers: { ...ADMIN, accept: 'application/json' } })
  t.same(JSON.parse(res.body), {
    workspace: {
      name: 'cite',
      isolated: false,
      dataStores: 'http://localhost:80/geoserver/rest/workspaces/cite/datastores.json',
      coverageStores: 'http://localhost:80/geoserver/rest/workspaces/cite/coveragestores.json',
      wmsStores: 'http://localhost:80/geoserver/rest/workspaces/cite/wmsstores.json',
      wmtsStores: 'http://localhost:80/geoserver/rest/workspaces/cite/wmtsstores.json'
    }
  })

  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/topp.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: '{"workspace":{"name":"topp2","isolated":true}}' })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces/topp2.json`, headers: ADMIN })
  t.equal(JSON.parse(res.body).workspace.isolated, true)

  res = await app.inject({ method: 'DELETE', url: `${BASE}/rest/workspaces/topp2`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces/topp2.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(res.body, "No such workspace: 'topp2' found")
})

t.test('workspaces: bad input is refused with a message', async (t) => {
  const app = await build(t)
  const post = (payload: string, ct = 'application/json') =>
    app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, 'content-type': ct }, payload })
  let res = await post('{"workspace":{"name":"../etc"}}')
  t.equal(res.statusCode, 400)
  t.match(res.body, /Invalid workspace name/)
  res = await post('{"workspace":')
  t.equal(res.statusCode, 400)
  t.match(res.body, /Malformed JSON/)
  res = await post('<workspace><name>x</name', 'text/xml')
  t.equal(res.statusCode, 400)
  t.match(res.body, /Malformed XML/)
  res = await post('<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><workspace><name>&e;</name></workspace>', 'text/xml')
  t.equal(res.statusCode, 400)
  t.match(res.body, /DOCTYPE/)
  t.notMatch(res.body, /root:/)
  res = await post('{"__proto__":{"isAdmin":true}}')
  t.equal(res.statusCode, 400)
  t.equal(({} as any).isAdmin, undefined)
  res = await post('{"style":{"name":"x"}}')
  t.equal(res.statusCode, 400)
  t.match(res.body, /Expected root element workspace/)
  res = await post('name=x', 'image/png')
  t.equal(res.statusCode, 415)
  t.match(res.body, /Unsupported media type image\/png/)
  res = await post('{"workspace":{"name":"dup"}}')
  t.equal(res.statusCode, 201)
  res = await post('{"workspace":{"name":"dup"}}')
  t.equal(res.statusCode, 409)
  res = await post('[' .repeat(100000))
  t.equal(res.statusCode, 400)
  t.match(res.body, /nested deeper/)
  const list = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: ADMIN })
  t.equal(JSON.parse(list.body).workspaces.workspace.length, 1, 'only the one good workspace exists')
})

t.test('a body sent to a suffixed resource without a media type is parsed by the suffix', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces.xml`, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: '<workspace><name>curl</name></workspace>' })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces.json`, headers: ADMIN, payload: '{"workspace":{"name":"nocontenttype"}}' })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: ADMIN, payload: '{"workspace":{"name":"nosuffix"}}' })
  t.equal(res.statusCode, 415, 'without a suffix a media type is needed')
})

t.test('DELETE refuses a non-empty workspace unless recurse=true', async (t) => {
  const app = await build(t)
  await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: '{"workspace":{"name":"full"}}' })
  await withAppDb(app, async (o) => await addStore(o, { workspace: 'full', name: 's', kind: 'coverage', type: 'ImageMosaic', config: '{}', createdAt: 'now' }))
  let res = await app.inject({ method: 'DELETE', url: `${BASE}/rest/workspaces/full`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  t.equal(res.body, 'Workspace not empty')
  res = await app.inject({ method: 'DELETE', url: `${BASE}/rest/workspaces/full?recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal((await appRows(app, 'SELECT count(*) AS n FROM stores'))[0].n, 0)
})

t.test('content negotiation: Accept decides without a suffix; 406 when nothing fits', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, accept: 'application/json' } })
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, accept: 'text/xml' } })
  t.equal(res.headers['content-type'], 'application/xml')
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, accept: 'image/png' } })
  t.equal(res.statusCode, 406)
  await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces.json`, headers: ADMIN, payload: '{"workspace":{"name":"cite"}}' })
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces/cite.html`, headers: ADMIN })
  t.equal(res.statusCode, 406)
})

t.test('content negotiation: Accept */* or none answers in the order GeoServer\'s controller produces', async (t) => {
  const app = await build(t)
  await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces.json`, headers: ADMIN, payload: '{"workspace":{"name":"cite"}}' })
  // WorkspaceController produces {JSON, XML, HTML}: what curl and Python's requests send gets JSON
  // (the Python client's get_workspaces parses it).
  for (const accept of ['*/*', undefined, 'text/html;q=0, */*', 'application/*']) {
    const headers = accept === undefined ? ADMIN : { ...ADMIN, accept }
    let res = await app.inject({ url: `${BASE}/rest/workspaces`, headers })
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8', `workspaces, Accept ${accept}`)
    t.same(res.json().workspaces.workspace.map((w: { name: string }) => w.name), ['cite'])
    res = await app.inject({ url: `${BASE}/rest/workspaces/cite`, headers })
    t.equal(res.json().workspace.name, 'cite')
  }
  // Every catalog controller does (layers, styles, namespaces, settings, about).
  for (const url of ['/rest/layers', '/rest/styles', '/rest/namespaces', '/rest/namespaces/cite', '/rest/settings', '/rest/about/version', '/rest/workspaces/cite/datastores', '/rest/workspaces/cite/coveragestores', '/rest/layergroups']) {
    const res = await app.inject({ url: `${BASE}${url}`, headers: { ...ADMIN, accept: '*/*' } })
    t.equal(res.statusCode, 200, url)
    t.equal(res.headers['content-type'], 'application/json; charset=utf-8', url)
    t.type(res.json(), 'object')
  }
  // A named type still wins, and XML is still there for whoever asks for it.
  let res = await app.inject({ url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, accept: 'application/xml, */*;q=0.8' } })
  t.match(res.body, /^<workspaces>\n {2}<workspace>\n {4}<name>cite<\/name>/)
  // GeoWebCache's REST API and the security controllers answer XML first.
  res = await app.inject({ url: `${BASE}/gwc/rest/layers`, headers: { ...ADMIN, accept: '*/*' } })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /xml/)
  t.match(res.body, /^<\?xml|^<layers/)
  res = await app.inject({ url: `${BASE}/rest/security/usergroup/users`, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/xml')
  t.match(res.body, /^<\?xml version="1.0" encoding="UTF-8" standalone="yes"\?><users><user><userName>admin<\/userName>/)
})

t.test('about/version answers in GeoServer\'s shape', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: `${BASE}/rest/about/version.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  const body = JSON.parse(res.body)
  t.same(body.about.resource.map((r: any) => [r['@name'], r.Version]), [['GeoServer', '2.28.0'], ['GeoTools', '34.0'], ['GeoWebCache', '1.28.0'], ['mapwarden', '0.1.0']],
    'the GeoServer release followed, with its GeoTools and GeoWebCache')
  const xml = await app.inject({ method: 'GET', url: `${BASE}/rest/about/version.xml`, headers: ADMIN })
  t.match(xml.body, /^<about>\n {2}<resource name="GeoServer">\n {4}<Build-Timestamp>n\/a<\/Build-Timestamp>\n {4}<Version>2\.28\.0<\/Version>/)
  const older = await build(t, { env: { MAPWARDEN_GEOSERVER_VERSION: '2.24.3' } })
  const versions = JSON.parse((await older.inject({ method: 'GET', url: `${BASE}/rest/about/version.json`, headers: ADMIN })).body).about.resource.map((r: any) => r.Version)
  t.same(versions.slice(0, 3), ['2.24.3', '30.3', '1.24.3'], 'one setting moves the three')
})

t.test('a suffixed request without a body is not parsed by its suffix', async (t) => {
  const app = await build(t)
  await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces.json`, headers: ADMIN, payload: '{"workspace":{"name":"gone"}}' })
  const res = await app.inject({ method: 'DELETE', url: `${BASE}/rest/workspaces/gone.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
})

t.test('a cached list body follows the request\'s host and the catalog\'s changes', async (t) => {
  const app = await build(t)
  await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces.json`, headers: ADMIN, payload: '{"workspace":{"name":"one"}}' })
  const get = (host: string) => app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: { ...ADMIN, host } })
  t.equal((await get('a.example')).body, '{"workspaces":{"workspace":[{"name":"one","href":"http://a.example/geoserver/rest/workspaces/one.json"}]}}')
  t.equal((await get('b.example')).body, '{"workspaces":{"workspace":[{"name":"one","href":"http://b.example/geoserver/rest/workspaces/one.json"}]}}')
  await app.inject({ method: 'DELETE', url: `${BASE}/rest/workspaces/one`, headers: ADMIN })
  t.equal((await get('a.example')).body, '{"workspaces":""}')
})
