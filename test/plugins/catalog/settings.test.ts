// {base}/rest/settings and settings/contact: GeoServer's shapes, partial PUTs persisted, refusals
// that name the field and change nothing; proxyBaseUrl rewrites every absolute URL mapwarden writes.
import t from 'tap'
import { build, ADMIN, BASE, TEST_BACKEND, tempDir } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'

const REST = `${BASE}/rest`
const XML = { ...ADMIN, 'content-type': 'application/xml' }
const JSON_BODY = { ...ADMIN, 'content-type': 'application/json' }

t.test('GET settings: the defaults in XML and JSON; admin only', async (t) => {
  const app = await build(t)
  let res = await app.inject({ url: `${REST}/settings.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, [
    '<global>',
    '  <settings>',
    '    <contact/>',
    '    <charset>UTF-8</charset>',
    '    <numDecimals>8</numDecimals>',
    '    <verbose>false</verbose>',
    '    <verboseExceptions>false</verboseExceptions>',
    '  </settings>',
    '  <updateSequence>0</updateSequence>',
    '</global>'
  ].join('\n'))
  res = await app.inject({ url: `${REST}/settings`, headers: { ...ADMIN, accept: 'application/json' } })
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(res.body, '{"global":{"settings":{"contact":{},"charset":"UTF-8","numDecimals":8,"verbose":false,"verboseExceptions":false},"updateSequence":0}}')
  res = await app.inject({ url: `${REST}/settings/contact.json`, headers: ADMIN })
  t.equal(res.body, '{"contact":{}}')

  for (const url of [`${REST}/settings`, `${REST}/settings/contact.json`]) {
    for (const method of ['POST', 'DELETE'] as const) {
      res = await app.inject({ method, url, headers: ADMIN })
      t.equal(res.statusCode, 405, `${method} ${url}`)
      t.equal(res.body, `Request method ${method} not supported`)
    }
  }

  res = await app.inject({ url: `${REST}/settings.json` })
  t.equal(res.statusCode, 401)
  res = await app.inject({ method: 'PUT', url: `${REST}/settings.json`, headers: { 'content-type': 'application/json' }, payload: '{"global":{"settings":{"numDecimals":3}}}' })
  t.equal(res.statusCode, 401)
  t.equal(app.globalSettings.get().settings.numDecimals, 8)
})

t.test('PUT settings and settings/contact: partial, read back, kept over a restart', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, keepOpen: true })
  let res = await app.inject({
    method: 'PUT',
    url: `${REST}/settings.xml`,
    headers: XML,
    payload: '<global><settings><charset>ISO-8859-1</charset><numDecimals>4</numDecimals><verbose>true</verbose><onlineResource>https://example.org/about</onlineResource>' +
      '<contact><contactPerson>Claudius Ptolomaeus</contactPerson><addressCity>Alexandria</addressCity></contact></settings></global>'
  })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '')
  res = await app.inject({ method: 'PUT', url: `${REST}/settings/contact.json`, headers: JSON_BODY, payload: '{"contact":{"contactEmail":"maps@example.org","addressCity":""}}' })
  t.equal(res.statusCode, 200)
  const expected = '{"global":{"settings":{"contact":{"contactPerson":"Claudius Ptolomaeus","contactEmail":"maps@example.org"},"charset":"ISO-8859-1","numDecimals":4,' +
    '"onlineResource":"https://example.org/about","verbose":true,"verboseExceptions":false},"updateSequence":2}}'
  t.equal((await app.inject({ url: `${REST}/settings.json`, headers: ADMIN })).body, expected)
  res = await app.inject({ url: `${REST}/settings/contact.xml`, headers: ADMIN })
  t.equal(res.body, '<contact>\n  <contactPerson>Claudius Ptolomaeus</contactPerson>\n  <contactEmail>maps@example.org</contactEmail>\n</contact>')

  // GET-modify-PUT: the document as read is accepted back whole (updateSequence ignored).
  const doc = (await app.inject({ url: `${REST}/settings.json`, headers: ADMIN })).json()
  doc.global.settings.verboseExceptions = true
  res = await app.inject({ method: 'PUT', url: `${REST}/settings.json`, headers: JSON_BODY, payload: JSON.stringify(doc) })
  t.equal(res.statusCode, 200, res.body)
  const after = expected.replace('"verboseExceptions":false', '"verboseExceptions":true').replace('"updateSequence":2', '"updateSequence":3')
  t.equal((await app.inject({ url: `${REST}/settings.json`, headers: ADMIN })).body, after)

  await app.close()
  const again = await build(t, { dataDir })
  t.equal((await again.inject({ url: `${REST}/settings.json`, headers: ADMIN })).body, after, 'kept over a restart')
})

t.test('bad settings are refused by name and change nothing', async (t) => {
  const app = await build(t)
  await app.inject({ method: 'PUT', url: `${REST}/settings.json`, headers: JSON_BODY, payload: '{"global":{"settings":{"numDecimals":5,"proxyBaseUrl":"https://maps.example.org/geoserver"}}}' })
  const before = (await app.inject({ url: `${REST}/settings.json`, headers: ADMIN })).body
  const cases: Array<[string, string, string]> = [
    [`${REST}/settings.json`, '{"global":{"settings":{"numDecimals":3},"color":"red"}}', 'Unknown field "color" in global'],
    [`${REST}/settings.json`, '{"global":{"settings":{"numDecimals":3,"colour":"red"}}}', 'Unknown field "colour" in settings'],
    [`${REST}/settings.json`, '{"global":{"settings":{"contact":{"contactPerson":"x","shoeSize":"9"}}}}', 'Unknown field "shoeSize" in contact'],
    [`${REST}/settings.json`, '{"global":{"settings":{"charset":"KLINGON-8"}}}', 'settings charset is not a known character set: "KLINGON-8"'],
    [`${REST}/settings.json`, '{"global":{"settings":{"numDecimals":-1}}}', 'settings numDecimals must be an integer from 0 to 17, got "-1"'],
    [`${REST}/settings.json`, '{"global":{"settings":{"numDecimals":"many"}}}', 'settings numDecimals must be an integer from 0 to 17, got "many"'],
    [`${REST}/settings.json`, '{"global":{"settings":{"verbose":"maybe"}}}', 'settings verbose must be true or false, got "maybe"'],
    [`${REST}/settings.json`, '{"global":{"settings":{"proxyBaseUrl":"ftp://example.org/gs"}}}', 'settings proxyBaseUrl must be an http or https URL without query, fragment or credentials, got "ftp://example.org/gs"'],
    [`${REST}/settings.json`, '{"global":{"settings":{"proxyBaseUrl":"https://example.org/gs?x=1"}}}', 'settings proxyBaseUrl must be an http or https URL without query, fragment or credentials, got "https://example.org/gs?x=1"'],
    [`${REST}/settings.json`, '{"global":{"settings":{"onlineResource":"javascript:alert(1)"}}}', 'settings onlineResource must be an http or https URL, got "javascript:alert(1)"'],
    [`${REST}/settings.json`, '{"settings":{"numDecimals":3}}', 'Expected root element global, found settings'],
    [`${REST}/settings/contact.json`, '{"contact":{"contactPerson":"x","age":3}}', 'Unknown field "age" in contact'],
    [`${REST}/settings/contact.json`, '{"global":{}}', 'Expected root element contact, found global']
  ]
  for (const [url, payload, message] of cases) {
    const res = await app.inject({ method: 'PUT', url, headers: JSON_BODY, payload })
    t.equal(res.statusCode, 400, payload)
    t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
    t.equal(res.body, message)
  }
  t.equal((await app.inject({ url: `${REST}/settings.json`, headers: ADMIN })).body, before, 'unchanged')
})

t.test('proxyBaseUrl changes every absolute URL written: atom links, Location, capabilities, task links, OpenAPI', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, [-20, -10, 20, 30], pattern) })
  // Served once before the proxy is set: a cached body must not outlive the change.
  let res = await app.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })
  t.equal(res.body, '{"workspaces":{"workspace":[{"name":"topp","href":"http://localhost:80/geoserver/rest/workspaces/topp.json"}]}}')
  res = await app.inject({ method: 'POST', url: `${REST}/styles`, headers: JSON_BODY, payload: '{"style":{"name":"plain","filename":"plain.sld"}}' })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ url: `${REST}/styles.json`, headers: ADMIN })
  const stylesBefore = res.body
  t.match(stylesBefore, '"href":"http://localhost:80/geoserver/rest/styles/plain.json"')

  res = await app.inject({ method: 'PUT', url: `${REST}/settings.xml`, headers: XML, payload: '<global><settings><proxyBaseUrl>https://maps.example.org/gs/</proxyBaseUrl></settings></global>' })
  t.equal(res.statusCode, 200)
  t.equal(app.globalSettings.proxyBaseUrl(), 'https://maps.example.org/gs', 'stored without the trailing slash')
  t.equal((await app.inject({ url: `${REST}/settings.json`, headers: ADMIN })).json().global.settings.proxyBaseUrl, 'https://maps.example.org/gs')

  res = await app.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })
  t.equal(res.body, '{"workspaces":{"workspace":[{"name":"topp","href":"https://maps.example.org/gs/rest/workspaces/topp.json"}]}}')
  res = await app.inject({ url: `${REST}/workspaces/topp.xml`, headers: ADMIN })
  t.match(res.body, 'href="https://maps.example.org/gs/rest/workspaces/topp/datastores.xml"')
  t.notMatch(res.body, 'localhost')
  res = await app.inject({ url: `${REST}/styles.json`, headers: ADMIN })
  t.match(res.body, '"href":"https://maps.example.org/gs/rest/styles/plain.json"')
  t.notMatch(res.body, 'localhost')
  res = await app.inject({ method: 'POST', url: `${REST}/namespaces`, headers: XML, payload: '<namespace><prefix>sf</prefix><uri>http://sf</uri></namespace>' })
  t.equal(res.headers.location, 'https://maps.example.org/gs/rest/namespaces/sf')

  res = await app.inject({ url: `${BASE}/wms?SERVICE=WMS&REQUEST=GetCapabilities&VERSION=1.3.0` })
  t.equal(res.statusCode, 200)
  t.match(res.body, 'xlink:href="https://maps.example.org/gs/wms?')
  t.notMatch(res.body, 'localhost')
  res = await app.inject({ url: `${BASE}/gwc/service/wmts?service=WMTS&request=GetCapabilities` })
  t.equal(res.statusCode, 200)
  t.match(res.body, `template="https://maps.example.org/gs/gwc/service/wmts/rest/${encodeURIComponent(layer)}/`)
  t.notMatch(res.body, 'localhost')

  res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSON_BODY, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'seed', zoomStart: 0, zoomStop: 1, threadCount: 1 } }) })
  t.equal(res.statusCode, 200)
  t.match(res.headers.link, /^<https:\/\/maps\.example\.org\/gs\/gwc\/rest\/seed\/tasks\/\d+\.json>; rel="item"$/)
  await app.tileCache.breeder.idle()

  res = await app.inject({ url: `${BASE}/web`, headers: ADMIN })
  t.equal(res.statusCode, 302)
  t.equal(res.headers.location, 'https://maps.example.org/gs/web/', 'the admin page\'s redirect')

  res = await app.inject({ url: `${REST}/openapi.json`, headers: ADMIN })
  const spec = res.json()
  t.same(spec.servers, [{ url: 'https://maps.example.org/gs' }])
  t.ok(spec.paths['/rest/workspaces'], 'paths relative to the proxy base URL')
  t.notOk(spec.paths[`${BASE}/rest/workspaces`])

  // Removed: back to the request's own host.
  res = await app.inject({ method: 'PUT', url: `${REST}/settings.json`, headers: JSON_BODY, payload: '{"global":{"settings":{"proxyBaseUrl":""}}}' })
  t.equal(res.statusCode, 200)
  t.equal((await app.inject({ url: `${REST}/settings.json`, headers: ADMIN })).json().global.settings.proxyBaseUrl, undefined)
  res = await app.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })
  t.match(res.body, '"href":"http://localhost:80/geoserver/rest/workspaces/topp.json"')
  t.equal((await app.inject({ url: `${BASE}/web`, headers: ADMIN })).headers.location, `${BASE}/web/`)
  res = await app.inject({ url: `${REST}/openapi.json`, headers: ADMIN })
  t.equal(res.json().servers, undefined)
  t.ok(res.json().paths[`${BASE}/rest/workspaces`])
})

t.test('changes at once all apply: PUTs in parallel, and (a shared database) on two instances', async (t) => {
  const dataDir = tempDir(t)
  const one = await build(t, { dataDir })
  const puts = ['contactPerson', 'contactEmail', 'contactVoice', 'contactOrganization'].map((f, i) =>
    one.inject({ method: 'PUT', url: `${REST}/settings/contact.json`, headers: JSON_BODY, payload: JSON.stringify({ contact: { [f]: `v${i}` } }) }))
  puts.push(one.inject({ method: 'PUT', url: `${REST}/settings.json`, headers: JSON_BODY, payload: '{"global":{"settings":{"numDecimals":2}}}' }))
  for (const res of await Promise.all(puts)) t.equal(res.statusCode, 200)
  let g = (await one.inject({ url: `${REST}/settings.json`, headers: ADMIN })).json().global
  t.same(g.settings.contact, { contactPerson: 'v0', contactEmail: 'v1', contactVoice: 'v2', contactOrganization: 'v3' })
  t.equal(g.settings.numDecimals, 2)
  t.equal(g.updateSequence, 5)
  if (TEST_BACKEND !== 'pg') return
  // The second instance's copy may be behind: its change applies to what is stored, not to its copy.
  const two = await build(t, { dataDir })
  await one.inject({ method: 'PUT', url: `${REST}/settings.json`, headers: JSON_BODY, payload: '{"global":{"settings":{"verbose":true}}}' })
  const res = await two.inject({ method: 'PUT', url: `${REST}/settings.json`, headers: JSON_BODY, payload: '{"global":{"settings":{"charset":"UTF-16"}}}' })
  t.equal(res.statusCode, 200)
  g = (await two.inject({ url: `${REST}/settings.json`, headers: ADMIN })).json().global
  t.equal(g.settings.verbose, true, 'the other instance\'s change kept')
  t.equal(g.settings.charset, 'UTF-16')
  t.equal(g.updateSequence, 7)
})
