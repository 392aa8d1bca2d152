// Issue 16 item 1 for every area: take what GET returned, change each writable field, send it back
// in XML and in JSON, read it back; a changed read-only field or an unknown one is a 400 naming it
// that changes nothing. (Coverages: mosaics-coverage-edit.test.ts.)
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { makeTiff, makeZip } from '../../fixtures/mosaics/make.js'
import { SLD, fixture } from '../styles/helpers.js'
import { addLayer as addSeedLayer } from '../../fixtures/seed/layers.js'

const REST = `${BASE}/rest`
const S = `${REST}/security`
const DQ = `${BASE}/tilecache/rest/diskquota`
const XML = { ...ADMIN, 'content-type': 'application/xml' }
const JSON_ = { ...ADMIN, 'content-type': 'application/json' }

type App = Awaited<ReturnType<typeof build>>
const get = async (app: App, url: string) => (await app.inject({ method: 'GET', url, headers: ADMIN })).body as string
const send = (app: App, method: 'PUT' | 'POST', url: string, headers: Record<string, string>, payload: unknown) =>
  app.inject({ method, url, headers, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) })

/** Each refusal: 400, text/plain, the message naming the field; and GET unchanged afterwards. */
async function refused (t: any, app: App, readUrl: string, cases: Array<[string, () => Promise<any>, RegExp]>) {
  const before = await get(app, readUrl)
  for (const [label, run, message] of cases) {
    const r = await run()
    t.equal(r.statusCode, 400, label)
    t.match(r.headers['content-type'], /^text\/plain/, label)
    t.match(r.body, message, label)
  }
  t.equal(await get(app, readUrl), before, 'nothing changed')
}

t.test('workspace: isolated and name applied from GET-modify-PUT in XML and JSON; unknown and bad values refused', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'w1' })
  const xml = await get(app, `${REST}/workspaces/w1.xml`)
  let r = await send(app, 'PUT', `${REST}/workspaces/w1.xml`, XML, xml.replace('<isolated>false</isolated>', '<isolated>true</isolated>'))
  t.equal(r.statusCode, 200)
  t.equal(JSON.parse(await get(app, `${REST}/workspaces/w1.json`)).workspace.isolated, true)
  const doc = JSON.parse(await get(app, `${REST}/workspaces/w1.json`))
  doc.workspace.name = 'w2'
  doc.workspace.isolated = false
  r = await send(app, 'PUT', `${REST}/workspaces/w1.json`, JSON_, doc)
  t.equal(r.statusCode, 200)
  t.match(JSON.parse(await get(app, `${REST}/workspaces/w2.json`)).workspace, { name: 'w2', isolated: false })
  await refused(t, app, `${REST}/workspaces/w2.json`, [
    ['dateCreated', () => send(app, 'PUT', `${REST}/workspaces/w2.json`, JSON_, { workspace: { name: 'w2', dateCreated: '2020-01-01' } }), /Unknown field "dateCreated" in workspace/],
    ['isolated', () => send(app, 'PUT', `${REST}/workspaces/w2.xml`, XML, '<workspace><isolated>maybe</isolated></workspace>'), /isolated must be true or false/]
  ])
})

async function mosaicLayer (t: any): Promise<App> {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const zip = await makeZip({ 'temp.tif': makeTiff({ width: 8, height: 8, bbox: [0, 40, 10, 50], value: (x) => x }) })
  const r = await app.inject({ method: 'PUT', url: `${REST}/workspaces/ws/coveragestores/temp/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  t.equal(r.statusCode, 200, 'mosaic uploaded')
  for (const sld of ['rain.sld', 'dem.sld']) {
    t.equal((await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture(sld) })).statusCode, 201)
  }
  return app
}

t.test('layer: defaultStyle, styles and enabled applied from GET-modify-PUT in XML and JSON; read-only and unknown fields refused', async (t) => {
  const app = await mosaicLayer(t)
  const L = `${REST}/layers/ws:temp`
  const xml = await get(app, `${L}.xml`)
  t.match(xml, '<enabled>true</enabled>')
  // A new raster layer has GeoServer's built-in raster style as its default: the edit replaces it.
  t.match(xml, /  <defaultStyle>\n    <name>raster<\/name>\n/)
  const edited = xml
    .replace(/  <defaultStyle>[\s\S]*?<\/defaultStyle>\n/, '')
    .replace('  <resource', '  <defaultStyle>\n    <name>rain</name>\n  </defaultStyle>\n  <styles class="linked-hash-set">\n    <style>\n      <name>dem</name>\n    </style>\n  </styles>\n  <resource')
    .replace('<enabled>true</enabled>', '<enabled>false</enabled>')
  let r = await send(app, 'PUT', `${L}.xml`, XML, edited)
  t.equal(r.statusCode, 200, r.body)
  let layer = JSON.parse(await get(app, `${L}.json`)).layer
  t.equal(layer.defaultStyle.name, 'rain')
  t.same(layer.styles.style.map((s: any) => s.name), ['dem'])
  t.equal(layer.enabled, false)
  t.equal(JSON.parse(await get(app, `${REST}/workspaces/ws/coveragestores/temp/coverages/temp.json`)).coverage.enabled, false, 'the coverage follows')

  layer.defaultStyle = { name: 'dem' }
  layer.styles.style = [{ name: 'rain' }]
  layer.enabled = true
  r = await send(app, 'PUT', `${L}.json`, JSON_, { layer })
  t.equal(r.statusCode, 200, r.body)
  layer = JSON.parse(await get(app, `${L}.json`)).layer
  t.equal(layer.defaultStyle.name, 'dem')
  t.same(layer.styles.style.map((s: any) => s.name), ['rain'])
  t.equal(layer.enabled, true)
  // The whole document back unchanged, both forms.
  for (const [url, headers, body] of [[`${L}.xml`, XML, await get(app, `${L}.xml`)], [`${L}.json`, JSON_, await get(app, `${L}.json`)]] as const) {
    t.equal((await send(app, 'PUT', url, headers, body)).statusCode, 200, `${url} sent back as read`)
  }

  await refused(t, app, `${L}.json`, [
    ['name', () => send(app, 'PUT', `${L}.json`, JSON_, { layer: { name: 'other', defaultStyle: 'rain' } }), /Field "name" of layer is read-only: it is "temp", the request sends "other"/],
    ['type', () => send(app, 'PUT', `${L}.xml`, XML, '<layer><type>VECTOR</type></layer>'), /Field "type" of layer is read-only/],
    ['resource', () => send(app, 'PUT', `${L}.xml`, XML, '<layer><resource class="coverage"><name>ws:elsewhere</name></resource></layer>'), /Field "resource" of layer is read-only/],
    ['unknown', () => send(app, 'PUT', `${L}.json`, JSON_, { layer: { queryable: true } }), /Unknown field "queryable" in layer/],
    ['style ref field', () => send(app, 'PUT', `${L}.json`, JSON_, { layer: { defaultStyle: { name: 'rain', format: 'css' } } }), /Unknown field "format" in a style reference/],
    ['enabled', () => send(app, 'PUT', `${L}.json`, JSON_, { layer: { enabled: 'sometimes' } }), /enabled must be true or false/]
  ])
})

t.test('style entry: name and filename applied from GET-modify-PUT in XML and JSON; format and languageVersion read-only', async (t) => {
  const app = await build(t)
  t.equal((await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })).statusCode, 201)
  const xml = await get(app, `${REST}/styles/rain.xml`)
  let r = await send(app, 'PUT', `${REST}/styles/rain.xml`, XML, xml.replace('<filename>rain.sld</filename>', '<filename>wet.sld</filename>'))
  t.equal(r.statusCode, 200, r.body)
  t.equal(JSON.parse(await get(app, `${REST}/styles/rain.json`)).style.filename, 'wet.sld')
  const doc = JSON.parse(await get(app, `${REST}/styles/rain.json`))
  doc.style.name = 'drizzle'
  r = await send(app, 'PUT', `${REST}/styles/rain.json`, JSON_, doc)
  t.equal(r.statusCode, 200, r.body)
  t.match(JSON.parse(await get(app, `${REST}/styles/drizzle.json`)).style, { name: 'drizzle', filename: 'wet.sld', format: 'sld', languageVersion: { version: '1.0.0' } })

  await refused(t, app, `${REST}/styles/drizzle.json`, [
    ['languageVersion', () => send(app, 'PUT', `${REST}/styles/drizzle.json`, JSON_, { style: { languageVersion: { version: '1.1.0' } } }), /Field "languageVersion" of style is read-only/],
    ['format', () => send(app, 'PUT', `${REST}/styles/drizzle.xml`, XML, '<style><format>css</format></style>'), /Field "format" of style is read-only/],
    ['unknown', () => send(app, 'PUT', `${REST}/styles/drizzle.json`, JSON_, { style: { legend: { width: 20 } } }), /Unknown field "legend" in style/]
  ])
  // POST of an entry: the same fields; the path's workspace only.
  r = await send(app, 'POST', `${REST}/styles`, JSON_, { style: { name: 'snow', filename: 'snow.sld', legend: {} } })
  t.equal(r.statusCode, 400)
  t.match(r.body, /Unknown field "legend" in style/)
  r = await send(app, 'POST', `${REST}/styles`, XML, '<style><name>snow</name><languageVersion><version>1.1.0</version></languageVersion></style>')
  t.equal(r.statusCode, 400)
  t.match(r.body, /Field "languageVersion" of style is read-only/)
  t.equal((await app.inject({ method: 'GET', url: `${REST}/styles/snow.json`, headers: ADMIN })).statusCode, 404, 'no style created')
})

t.test('disk quota: each field applied from GET-modify-PUT in XML and JSON; computed and unknown fields refused', async (t) => {
  const app = await build(t)
  const xml = await get(app, `${DQ}.xml`)
  let r = await send(app, 'PUT', `${DQ}.xml`, XML, xml.replace('<enabled>false</enabled>', '<enabled>true</enabled>')
    .replace(/<maxConcurrentCleanUps>\d+<\/maxConcurrentCleanUps>/, '<maxConcurrentCleanUps>3</maxConcurrentCleanUps>')
    .replace(/<globalExpirationPolicyName>\w+<\/globalExpirationPolicyName>/, '<globalExpirationPolicyName>LFU</globalExpirationPolicyName>'))
  t.equal(r.statusCode, 200, r.body)
  let q = JSON.parse(await get(app, `${DQ}.json`)).tilecacheQuotaConfiguration
  t.match(q, { enabled: true, maxConcurrentCleanUps: 3, globalExpirationPolicyName: 'LFU' })
  q.cacheCleanUpFrequency = 7
  q.globalQuota = { value: '2', units: 'GiB' }
  r = await send(app, 'PUT', `${DQ}.json`, JSON_, { tilecacheQuotaConfiguration: q })
  t.equal(r.statusCode, 200, r.body)
  q = JSON.parse(await get(app, `${DQ}.json`)).tilecacheQuotaConfiguration
  t.match(q, { cacheCleanUpFrequency: 7, globalQuota: { value: '2', units: 'GiB' } })
  await refused(t, app, `${DQ}.json`, [
    ['globalUsedQuota', () => send(app, 'PUT', `${DQ}.json`, JSON_, { tilecacheQuotaConfiguration: { globalUsedQuota: { bytes: 5 } } }), /Unknown field "globalUsedQuota"/],
    ['quota key', () => send(app, 'PUT', `${DQ}.xml`, XML, '<tilecacheQuotaConfiguration><globalQuota><value>1</value><units>GiB</units><unit>MiB</unit></globalQuota></tilecacheQuotaConfiguration>'), /Unknown field "unit" in globalQuota/],
    ['value and bytes', () => send(app, 'PUT', `${DQ}.json`, JSON_, { tilecacheQuotaConfiguration: { globalQuota: { value: '1', units: 'GiB', bytes: 5 } } }), /give value and units, or bytes, not both/],
    ['layer quota key', () => send(app, 'PUT', `${DQ}.json`, JSON_, { tilecacheQuotaConfiguration: { layerQuotas: [{ layer: 'ws:x', quota: { value: 1, units: 'MiB' }, usedQuota: { bytes: 1 } }] } }), /Unknown field "usedQuota" in layerQuotas\[0\]/]
  ])
})

t.test('catalog mode, users, master password and layer rules: applied in XML and JSON, extra fields refused by name', async (t) => {
  const app = await build(t)
  // Catalog mode.
  let r = await send(app, 'PUT', `${S}/acl/catalog.xml`, XML, (await get(app, `${S}/acl/catalog.xml`)).replace('HIDE', 'MIXED'))
  t.equal(r.statusCode, 200, r.body)
  t.equal(await get(app, `${S}/acl/catalog.json`), '{"mode":"MIXED"}')
  r = await send(app, 'PUT', `${S}/acl/catalog.json`, JSON_, { ...JSON.parse(await get(app, `${S}/acl/catalog.json`)), mode: 'CHALLENGE' })
  t.equal(r.statusCode, 200, r.body)
  t.equal(await get(app, `${S}/acl/catalog.json`), '{"mode":"CHALLENGE"}')
  await refused(t, app, `${S}/acl/catalog.json`, [
    ['catalog extra', () => send(app, 'PUT', `${S}/acl/catalog.json`, JSON_, { mode: 'HIDE', strict: true }), /Unknown field "strict" in catalog/]
  ])

  // Users: enabled applied, the name is the path's.
  r = await send(app, 'POST', `${S}/usergroup/users.xml`, XML, '<user><userName>alice</userName><password>alice-password-1</password><enabled>true</enabled></user>')
  t.equal(r.statusCode, 201, r.body)
  const enabledOf = async () => JSON.parse(await get(app, `${S}/usergroup/users.json`)).users.find((u: any) => u.userName === 'alice').enabled
  r = await send(app, 'POST', `${S}/usergroup/user/alice.xml`, XML, '<user><userName>alice</userName><enabled>false</enabled></user>')
  t.equal(r.statusCode, 200, r.body)
  t.equal(await enabledOf(), false)
  r = await send(app, 'POST', `${S}/usergroup/user/alice.json`, JSON_, { user: { userName: 'alice', enabled: true } })
  t.equal(r.statusCode, 200, r.body)
  t.equal(await enabledOf(), true)
  await refused(t, app, `${S}/usergroup/users.json`, [
    ['rename', () => send(app, 'POST', `${S}/usergroup/user/alice.json`, JSON_, { user: { userName: 'bob', enabled: false } }), /Field "userName" of user is read-only/],
    ['user extra', () => send(app, 'POST', `${S}/usergroup/user/alice.xml`, XML, '<user><enabled>false</enabled><email>a@b</email></user>'), /Unknown field "email" in user/],
    ['new user extra', () => send(app, 'POST', `${S}/usergroup/users.json`, JSON_, { user: { userName: 'carol', password: 'carol-password-1', groups: 'x' } }), /Unknown field "groups" in user/]
  ])

  // Master password: the new one is what GET shows next.
  const old = JSON.parse(await get(app, `${S}/masterpw.json`)).oldMasterPassword
  r = await send(app, 'PUT', `${S}/masterpw.xml`, XML, `<masterPassword><oldMasterPassword>${old}</oldMasterPassword><newMasterPassword>second-Master-pw-1</newMasterPassword></masterPassword>`)
  t.equal(r.statusCode, 200, r.body)
  t.equal(JSON.parse(await get(app, `${S}/masterpw.json`)).oldMasterPassword, 'second-Master-pw-1')
  r = await send(app, 'PUT', `${S}/masterpw.json`, JSON_, { oldMasterPassword: 'second-Master-pw-1', newMasterPassword: 'third-Master-pw-2' })
  t.equal(r.statusCode, 200, r.body)
  await refused(t, app, `${S}/masterpw.json`, [
    ['masterpw extra', () => send(app, 'PUT', `${S}/masterpw.json`, JSON_, { oldMasterPassword: 'third-Master-pw-2', newMasterPassword: 'fourth-Master-pw-3', confirm: 'fourth-Master-pw-3' }), /Unknown field "confirm" in masterPassword/]
  ])

  // Layer rules: roles changed by PUT in both forms.
  r = await send(app, 'PUT', `${S}/acl/layers.xml`, XML, (await get(app, `${S}/acl/layers.xml`)).replace('<rule resource="*.*.r">*</rule>', '<rule resource="*.*.r">ROLE_READER</rule>'))
  t.equal(r.statusCode, 200, r.body)
  t.match(JSON.parse(await get(app, `${S}/acl/layers.json`)), { '*.*.r': 'ROLE_READER' })
  r = await send(app, 'PUT', `${S}/acl/layers.json`, JSON_, { ...JSON.parse(await get(app, `${S}/acl/layers.json`)), '*.*.r': '*' })
  t.equal(r.statusCode, 200, r.body)
  t.match(JSON.parse(await get(app, `${S}/acl/layers.json`)), { '*.*.r': '*' })
  await refused(t, app, `${S}/acl/layers.json`, [
    ['rule attribute', () => send(app, 'PUT', `${S}/acl/layers.xml`, XML, '<rules><rule resource="*.*.r" priority="1">ROLE_X</rule></rules>'), /Unknown field "@priority" in rule/]
  ])
})

t.test('seed request: name must be the layer of the path, GWC failure-tolerance fields are refused by name, and no task is created', async (t) => {
  const app = await build(t)
  await addSeedLayer(app, {})
  const SEED = `${BASE}/tilecache/rest/seed`
  const body = (over: Record<string, unknown>) => ({ seedRequest: { zoomStart: 0, zoomStop: 0, type: 'truncate', gridSetId: 'EPSG:4326', format: 'image/png', ...over } })
  const cases: Array<[string, unknown, RegExp]> = [
    ['another layer', body({ name: 'topp:roads' }), /^Invalid seed request: name "topp:roads": names another layer than the path's topp:states$/],
    ['retry count', body({ tileFailureRetryCount: 3 }), /^Invalid seed request: tileFailureRetryCount "3": is not supported/],
    ['retry wait', body({ tileFailureRetryWaitTime: 100 }), /^Invalid seed request: tileFailureRetryWaitTime "100": is not supported/],
    ['abort count', body({ totalFailuresBeforeAborting: 1000 }), /^Invalid seed request: totalFailuresBeforeAborting "1000": is not supported/],
    ['filterUpdate', body({ filterUpdate: true }), /^Invalid seed request: filterUpdate "true": is not supported/]
  ]
  for (const [label, payload, message] of cases) {
    const r = await send(app, 'POST', `${SEED}/topp:states.json`, JSON_, payload)
    t.equal(r.statusCode, 400, label)
    t.match(r.body, message, label)
  }
  const xmlRefused = await send(app, 'POST', `${SEED}/topp:states.xml`, XML, '<seedRequest><name>other</name><zoomStart>0</zoomStart><zoomStop>0</zoomStop><type>truncate</type></seedRequest>')
  t.equal(xmlRefused.statusCode, 400)
  t.match(xmlRefused.body, /name "other": names another layer/)
  t.equal(await get(app, `${SEED}.json`), '{"long-array-array":[]}', 'no task')
  // The layer's own name, qualified or not, and filterUpdate false are what is done anyway.
  for (const over of [{ name: 'topp:states' }, { name: 'states', filterUpdate: false }]) {
    const r = await send(app, 'POST', `${SEED}/topp:states.json`, JSON_, body(over))
    t.equal(r.statusCode, 200, JSON.stringify(over))
  }
  const r = await send(app, 'POST', `${SEED}/topp:states.xml`, XML, '<seedRequest><name>topp:states</name><zoomStart>0</zoomStart><zoomStop>0</zoomStop><type>truncate</type><filterUpdate>false</filterUpdate></seedRequest>')
  t.equal(r.statusCode, 200, r.body)
})

t.test('kill forms: a field other than kill_all, kill_thread and thread_id is refused by name and kills nothing', async (t) => {
  const app = await build(t)
  await addSeedLayer(app, {})
  const form = { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }
  let r = await app.inject({ method: 'POST', url: `${BASE}/tilecache/rest/seed`, headers: form, payload: 'kill_all=all&layer=topp:states' })
  t.equal(r.statusCode, 400)
  t.equal(r.body, 'Unknown field "layer" in the kill form')
  r = await app.inject({ method: 'POST', url: `${BASE}/tilecache/rest/seed/topp:states`, headers: form, payload: 'kill_thread=1&thread_id=1&force=true' })
  t.equal(r.statusCode, 400)
  t.equal(r.body, 'Unknown field "force" in the kill form')
  r = await app.inject({ method: 'POST', url: `${BASE}/tilecache/rest/seed`, headers: form, payload: 'kill_all=all' })
  t.equal(r.statusCode, 200)
})

t.test('app-schema upload: a filename with a ZIP (whose entries keep their names) is refused by name, nothing created', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const zip = await makeZip({ 'mapping.xml': '<as:AppSchemaDataAccess xmlns:as="http://www.geotools.org/app-schema"/>' })
  const url = `${REST}/workspaces/ws/datastores/st/file.appschema`
  const r = await app.inject({ method: 'PUT', url: `${url}?filename=other.xml`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  t.equal(r.statusCode, 400)
  t.match(r.body, /^filename="other.xml" names the file of a single mapping-file upload/)
  t.equal((await app.inject({ method: 'GET', url, headers: ADMIN })).statusCode, 404, 'no store')
})

t.test('mosaic uploads and harvests: a query parameter they do not read is refused by name, nothing created', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const zip = await makeZip({ 'temp.tif': makeTiff({ width: 8, height: 8, bbox: [0, 40, 10, 50], value: (x) => x }) })
  const url = `${REST}/workspaces/ws/coveragestores/temp`
  let r = await app.inject({ method: 'PUT', url: `${url}/file.imagemosaic?configure=all&recalculate=nativebbox`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  t.equal(r.statusCode, 400)
  t.equal(r.body, 'Unknown query parameter "recalculate" for file.imagemosaic; known: configure, coverageName, verify')
  t.equal((await app.inject({ method: 'GET', url: `${url}.json`, headers: ADMIN })).statusCode, 404, 'no store')
  r = await app.inject({ method: 'PUT', url: `${url}/file.imagemosaic?coverageName=sst`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  t.equal(r.statusCode, 200, r.body)
  r = await app.inject({ method: 'POST', url: `${url}/file.imagemosaic?configure=all`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  t.equal(r.statusCode, 400)
  t.equal(r.body, 'Unknown query parameter "configure" for file.imagemosaic; known: verify')
})
