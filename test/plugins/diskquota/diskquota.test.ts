// The disk quota resource: GWC's body shapes under mapwarden's root, partial
// PUTs validated whole and persisted before the 200, errors as 400 text/plain, 405s.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { addLayer } from '../../fixtures/seed/layers.js'
import { appRows } from '../../fixtures/catalog-rows.js'
import { FORMATS, TILE_FORMATS } from '../../../services/tilecache/formats.js'

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/diskquota')
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8')
const DQ = `${BASE}/tilecache/rest/diskquota`
const GWC = `${BASE}/gwc/rest/diskquota`

const storedConfig = async (app: Awaited<ReturnType<typeof build>>) => (await appRows(app, 'SELECT body FROM dq_config'))[0]?.body

t.test('GET diskquota answers the defaults of a new data directory in XML and JSON, under both prefixes', async (t) => {
  const app = await build(t)
  for (const base of [DQ, GWC]) {
    let res = await app.inject({ url: `${base}.xml`, headers: ADMIN })
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /^application\/xml/)
    t.equal(res.body, fixture('default.xml').trimEnd())
    res = await app.inject({ url: `${base}.json`, headers: ADMIN })
    t.equal(res.statusCode, 200)
    t.match(res.headers['content-type'], /^application\/json/)
    t.equal(res.body, fixture('default.json').trimEnd())
  }
  const plain = await app.inject({ url: DQ, headers: ADMIN })
  t.equal(plain.body, fixture('default.xml').trimEnd(), 'no suffix: XML')
  const asked = await app.inject({ url: DQ, headers: { ...ADMIN, accept: 'application/json' } })
  t.equal(asked.body, fixture('default.json').trimEnd(), 'no suffix, Accept JSON: JSON')
})

t.test("PUT accepts GWC's documented XML body sent as curl -d sends it, and answers the full configuration", async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'PUT', url: `${GWC}.xml`, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: fixture('gwc-put.xml') })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^application\/xml/)
  const expected = [
    '<tilecacheQuotaConfiguration>',
    '  <enabled>true</enabled>',
    '  <diskBlockSize>4096</diskBlockSize>',
    '  <cacheCleanUpFrequency>5</cacheCleanUpFrequency>',
    '  <cacheCleanUpUnits>SECONDS</cacheCleanUpUnits>',
    '  <maxConcurrentCleanUps>5</maxConcurrentCleanUps>',
    '  <globalExpirationPolicyName>LRU</globalExpirationPolicyName>',
    '  <globalQuota>',
    '    <value>100</value>',
    '    <units>MiB</units>',
    '  </globalQuota>',
    '  <layerQuotas/>',
    '</tilecacheQuotaConfiguration>'
  ].join('\n')
  t.equal(res.body, expected)
  const again = await app.inject({ url: `${DQ}.xml`, headers: ADMIN })
  t.equal(again.body, expected, 'the tilecache prefix sees the same configuration')
})

t.test("PUT accepts GWC's documented JSON body (diskBlockSize included)", async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'PUT', url: `${DQ}.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: fixture('gwc-put.json') })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '{"tilecacheQuotaConfiguration":{"enabled":true,"diskBlockSize":2048,"cacheCleanUpFrequency":5,"cacheCleanUpUnits":"SECONDS","maxConcurrentCleanUps":5,"globalExpirationPolicyName":"LRU","globalQuota":{"value":"100","units":"MiB"},"layerQuotas":[]}}')
})

t.test("PUT also takes the shape of GWC's own GET (class-name root, quota in bytes)", async (t) => {
  const app = await build(t)
  const res = await app.inject({
    method: 'PUT',
    url: `${GWC}.xml`,
    headers: { ...ADMIN, 'content-type': 'application/xml' },
    payload: '<org.geowebcache.diskquota.DiskQuotaConfig><enabled>true</enabled><globalQuota><id>0</id><bytes>21474836480</bytes></globalQuota><quotaStore>sqlite</quotaStore></org.geowebcache.diskquota.DiskQuotaConfig>'
  })
  t.equal(res.statusCode, 200)
  t.match(res.body, '<enabled>true</enabled>')
  t.match(res.body, '<globalQuota>\n    <value>20</value>\n    <units>GiB</units>\n  </globalQuota>')
})

t.test('PUT is partial: only the properties present change; quotas are shown in the largest unit of at least 1', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'PUT', url: `${DQ}.json`, headers: ADMIN, payload: '{"tilecacheQuotaConfiguration":{"globalQuota":{"value":"1536","units":"MiB"}}}' })
  t.equal(res.statusCode, 200)
  t.equal(res.body, fixture('default.json').trimEnd().replace('{"value":"500","units":"MiB"}', '{"value":"1.5","units":"GiB"}'))
  res = await app.inject({ method: 'PUT', url: `${DQ}.xml`, headers: ADMIN, payload: '<tilecacheQuotaConfiguration><cacheCleanUpUnits>MINUTES</cacheCleanUpUnits></tilecacheQuotaConfiguration>' })
  t.equal(res.statusCode, 200)
  t.equal(res.body, fixture('default.xml').trimEnd().replace('SECONDS', 'MINUTES').replace('<value>500</value>\n    <units>MiB</units>', '<value>1.5</value>\n    <units>GiB</units>'))
  res = await app.inject({ method: 'PUT', url: `${DQ}.json`, headers: ADMIN, payload: '{"tilecacheQuotaConfiguration":{"globalQuota":{"value":"0.5","units":"KiB"}}}' })
  t.match(res.body, '"globalQuota":{"value":"512","units":"B"}')
  res = await app.inject({ method: 'PUT', url: `${DQ}.json`, headers: ADMIN, payload: '{"tilecacheQuotaConfiguration":{"globalQuota":{"value":2,"units":"TiB"}}}' })
  t.match(res.body, '"globalQuota":{"value":"2","units":"TiB"}', 'a JSON number is accepted too')
})

t.test('[hostile #46] layer quotas name known layers; an unknown layer is 400', async (t) => {
  const app = await build(t)
  await addLayer(app)
  let res = await app.inject({
    method: 'PUT',
    url: `${DQ}.xml`,
    headers: ADMIN,
    payload: '<gwcQuotaConfiguration><layerQuotas><LayerQuota><layer>topp:states</layer><expirationPolicyName>LRU</expirationPolicyName><quota><value>100</value><units>MiB</units></quota></LayerQuota></layerQuotas></gwcQuotaConfiguration>'
  })
  t.equal(res.statusCode, 200)
  t.match(res.body, [
    '  <layerQuotas>',
    '    <LayerQuota>',
    '      <layer>topp:states</layer>',
    '      <expirationPolicyName>LRU</expirationPolicyName>',
    '      <quota>',
    '        <value>100</value>',
    '        <units>MiB</units>',
    '      </quota>',
    '    </LayerQuota>',
    '  </layerQuotas>',
    '</tilecacheQuotaConfiguration>'
  ].join('\n'))
  res = await app.inject({ url: `${DQ}.json`, headers: ADMIN })
  t.match(res.body, '"layerQuotas":[{"layer":"topp:states","expirationPolicyName":"LRU","quota":{"value":"100","units":"MiB"}}]}}')
  const before = res.body
  res = await app.inject({ method: 'PUT', url: `${DQ}.json`, headers: ADMIN, payload: '{"tilecacheQuotaConfiguration":{"layerQuotas":[{"layer":"topp:nosuch","quota":{"value":"1","units":"GiB"}}]}}' })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'layerQuotas: unknown layer topp:nosuch')
  t.equal((await app.inject({ url: `${DQ}.json`, headers: ADMIN })).body, before)
  res = await app.inject({ method: 'PUT', url: `${DQ}.json`, headers: ADMIN, payload: '{"tilecacheQuotaConfiguration":{"layerQuotas":[]}}' })
  t.match(res.body, '"layerQuotas":[]}}', 'an empty list removes them')
})

t.test('[hostile #45] [hostile #46] [hostile #47] [hostile #48] bad PUTs are 400 text/plain naming the problem and change nothing', async (t) => {
  const app = await build(t)
  await addLayer(app)
  await app.inject({ method: 'PUT', url: `${DQ}.json`, headers: ADMIN, payload: '{"tilecacheQuotaConfiguration":{"maxConcurrentCleanUps":3}}' })
  const stored = await storedConfig(app)
  const before = (await app.inject({ url: `${DQ}.json`, headers: ADMIN })).body
  const units = 'valid units: B, KiB, MiB, GiB, TiB, PiB, EiB, ZiB, YiB'
  const cases: Array<[string, string]> = [
    ['{"maxConcurrentCleanUps":0}', 'maxConcurrentCleanUps shall be a positive integer: 0'],
    ['{"maxConcurrentCleanUps":-1}', 'maxConcurrentCleanUps shall be a positive integer: -1'],
    ['{"maxConcurrentCleanUps":"two"}', 'maxConcurrentCleanUps shall be a positive integer: two'],
    ['{"enabled":true,"maxConcurrentCleanUps":0}', 'maxConcurrentCleanUps shall be a positive integer: 0'],
    ['{"cacheCleanUpFrequency":0}', 'cacheCleanUpFrequency shall be a positive integer: 0'],
    ['{"cacheCleanUpFrequency":1.5}', 'cacheCleanUpFrequency shall be a positive integer: 1.5'],
    ['{"cacheCleanUpUnits":"FORTNIGHTS"}', 'cacheCleanUpUnits shall be one of NANOSECONDS, MICROSECONDS, MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS: FORTNIGHTS'],
    ['{"globalExpirationPolicyName":"MRU"}', 'globalExpirationPolicyName shall be LRU or LFU: MRU'],
    ['{"enabled":"yes"}', 'enabled shall be true or false: yes'],
    ['{"diskBlockSize":0}', 'diskBlockSize shall be a positive integer: 0'],
    ['{"globalQuota":{"value":"1","units":"ZZiB"}}', `Unknown storage unit ZZiB in globalQuota.units; ${units}`],
    ['{"globalQuota":{"value":"1","units":"mb"}}', `Unknown storage unit mb in globalQuota.units; ${units}`],
    ['{"globalQuota":{"value":"-1","units":"MiB"}}', 'globalQuota.value shall be a non-negative number: -1'],
    ['{"globalQuota":{"value":"NaN","units":"MiB"}}', 'globalQuota.value shall be a non-negative number: NaN'],
    ['{"globalQuota":{"value":"ten","units":"MiB"}}', 'globalQuota.value shall be a non-negative number: ten'],
    ['{"globalQuota":{"value":"1e309","units":"MiB"}}', 'globalQuota is too large: 1e309'],
    ['{"globalQuota":{"value":"1e300","units":"YiB"}}', 'globalQuota is too large: 1e300'],
    ['{"globalQuota":"big"}', 'globalQuota shall be an object with value and units: big'],
    ['{"layerQuotas":[{"layer":"topp:states","quota":{"value":"1","units":"XB"}}]}', `Unknown storage unit XB in layerQuotas[0].quota.units; ${units}`],
    ['{"layerQuotas":[{"layer":"topp:states","expirationPolicyName":"FIFO","quota":{"value":"1","units":"MiB"}}]}', 'layerQuotas[0].expirationPolicyName shall be LRU or LFU: FIFO'],
    ['{"quotaStore":"JDBC"}', 'quotaStore JDBC: only the embedded store (sqlite) is supported'],
    ['{"jdbcConfiguration":{"dialect":"Oracle","JNDISource":"java:comp/env/jdbc/x"}}', 'jdbcConfiguration: only the embedded quota store (sqlite) is supported']
  ]
  for (const [inner, message] of cases) {
    const res = await app.inject({ method: 'PUT', url: `${DQ}.json`, headers: ADMIN, payload: `{"tilecacheQuotaConfiguration":${inner}}` })
    t.equal(res.statusCode, 400, inner)
    t.match(res.headers['content-type'], /^text\/plain/)
    t.equal(res.body, message)
  }
  const xmlCases: Array<[string, RegExp]> = [
    ['<gwcQuotaConfiguration><maxConcurrentCleanUps>-1</maxConcurrentCleanUps></gwcQuotaConfiguration>', /^maxConcurrentCleanUps shall be a positive integer: -1$/],
    ['<gwcQuotaConfiguration><globalQuota><value>1</value><units>ZZiB</units></globalQuota></gwcQuotaConfiguration>', /^Unknown storage unit ZZiB/],
    ['<gwcQuotaConfiguration><enabled>true</enabled', /^Malformed XML/],
    ['<seedRequest/>', /^Expected root element tilecacheQuotaConfiguration or gwcQuotaConfiguration/]
  ]
  for (const [payload, message] of xmlCases) {
    const res = await app.inject({ method: 'PUT', url: `${GWC}.xml`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload })
    t.equal(res.statusCode, 400, payload)
    t.match(res.body, message)
  }
  const malformed = await app.inject({ method: 'PUT', url: `${DQ}.json`, headers: ADMIN, payload: '{"tilecacheQuotaConfiguration":' })
  t.equal(malformed.statusCode, 400)
  t.match(malformed.body, /^Malformed JSON/)
  t.equal((await app.inject({ url: `${DQ}.json`, headers: ADMIN })).body, before, 'the configuration is unchanged')
  t.equal(await storedConfig(app), stored, 'the stored configuration is unchanged')
})

t.test('POST and DELETE are 405; without credentials 401', async (t) => {
  const app = await build(t)
  for (const method of ['POST', 'DELETE'] as const) {
    for (const url of [DQ, `${DQ}.xml`, `${GWC}.json`]) {
      const res = await app.inject({ method, url, headers: ADMIN, payload: method === 'POST' ? '<gwcQuotaConfiguration/>' : undefined })
      t.equal(res.statusCode, 405, `${method} ${url}`)
      t.equal(res.body, `Request method ${method} not supported`)
    }
  }
  const res = await app.inject({ url: `${DQ}.xml` })
  t.equal(res.statusCode, 401)
  const put = await app.inject({ method: 'PUT', url: `${DQ}.json`, payload: '{"tilecacheQuotaConfiguration":{"enabled":true}}' })
  t.equal(put.statusCode, 401)
})

t.test('an acknowledged PUT survives a restart', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir, keepOpen: true })
  const put = await first.inject({ method: 'PUT', url: `${DQ}.xml`, headers: ADMIN, payload: fixture('gwc-put.xml') })
  t.equal(put.statusCode, 200)
  await first.close()
  const second = await build(t, { dataDir })
  const got = await second.inject({ url: `${DQ}.xml`, headers: ADMIN })
  t.equal(got.body, put.body)
})

t.test('GET diskquota/usage reports usage against the quotas in JSON and XML', async (t) => {
  const app = await build(t)
  await addLayer(app)
  await app.inject({ method: 'PUT', url: `${DQ}.json`, headers: ADMIN, payload: '{"tilecacheQuotaConfiguration":{"layerQuotas":[{"layer":"topp:states","expirationPolicyName":"LRU","quota":{"value":"1","units":"MiB"}}]}}' })
  await app.tileCache.store.put({ layer: 'topp:states', gridSet: 'EPSG:4326', format: 'image/png', parameterId: 'default', z: 1, x: 0, y: 0 }, Buffer.alloc(5000))
  await app.tileCache.store.put({ layer: 'topp:states', gridSet: 'EPSG:900913', format: 'image/jpeg', parameterId: 'default', z: 0, x: 0, y: 0 }, Buffer.alloc(10))
  await app.diskQuota.flush() // the start-up rebuild of an empty cache may still be running
  const res = await app.inject({ url: `${GWC}/usage.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  const u = res.json().diskQuotaUsage
  t.equal(u.usedBytes, 8192 + 4096)
  t.same(u.globalQuota, { quotaBytes: 524288000, usedBytes: 0, expirationPolicyName: 'LFU' })
  t.same(u.layers.layer, [{
    name: 'topp:states',
    quota: 'layer',
    quotaBytes: 1048576,
    expirationPolicyName: 'LRU',
    usedBytes: 12288,
    tiles: 2,
    tileSets: {
      tileSet: [
        { gridSetId: 'EPSG:4326', format: 'image/png', parameterId: 'default', tiles: 1, usedBytes: 8192 },
        { gridSetId: 'EPSG:900913', format: 'image/jpeg', parameterId: 'default', tiles: 1, usedBytes: 4096 }
      ]
    }
  }])
  t.equal(u.rebuild.state, 'done')
  const xml = await app.inject({ url: `${DQ}/usage.xml`, headers: ADMIN })
  t.equal(xml.statusCode, 200)
  t.match(xml.body, /^<diskQuotaUsage>\n {2}<enabled>false<\/enabled>\n {2}<diskBlockSize>4096<\/diskBlockSize>\n {2}<usedBytes>12288<\/usedBytes>/)
  t.match(xml.body, '<tileSet>\n          <gridSetId>EPSG:4326</gridSetId>')
})

t.test('a usage rebuild counts the tiles of every format of the formats table (jpeg-png has a dash in its extension)', async (t) => {
  const app = await build(t)
  await addLayer(app)
  await app.diskQuota.flush() // the start-up rebuild of an empty cache
  for (const format of TILE_FORMATS) {
    const dir = path.join(app.config.dataDir, 'tiles', 'topp', 'states', 'EPSG_4326', FORMATS[format].ext, 'default', '1', '0')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, `0.${FORMATS[format].ext}`), Buffer.alloc(10))
  }
  await app.diskQuota.rebuild()
  const u = (await app.inject({ url: `${GWC}/usage.json`, headers: ADMIN })).json().diskQuotaUsage
  t.same(u.layers.layer[0].tileSets.tileSet.map((s: { format: string, tiles: number }) => [s.format, s.tiles]).sort(), TILE_FORMATS.map((f) => [f, 1]).sort())
  t.equal(u.layers.layer[0].tiles, TILE_FORMATS.length)
})

t.test('deleting a workspace with recurse drops the usage of its layers', async (t) => {
  const app = await build(t)
  await addLayer(app)
  await addLayer(app, { workspace: 'kept', name: 'roads' })
  for (const layer of ['topp:states', 'kept:roads']) {
    await app.tileCache.store.put({ layer, gridSet: 'EPSG:4326', format: 'image/png', parameterId: 'default', z: 0, x: 0, y: 0 }, Buffer.alloc(100))
  }
  await app.diskQuota.flush()
  const res = await app.inject({ method: 'DELETE', url: `${BASE}/rest/workspaces/topp?recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  const u = (await app.inject({ url: `${DQ}/usage.json`, headers: ADMIN })).json().diskQuotaUsage
  t.same(u.layers.layer.map((l: any) => l.name), ['kept:roads'])
  t.equal(u.usedBytes, 4096)
})

t.test('concurrent partial PUTs queue: neither loses the other\'s change', async (t) => {
  const app = await build(t)
  await addLayer(app)
  const put = (inner: string) => app.inject({ method: 'PUT', url: `${DQ}.json`, headers: ADMIN, payload: `{"tilecacheQuotaConfiguration":${inner}}` })
  const [a, b] = await Promise.all([
    put('{"layerQuotas":[{"layer":"topp:states","quota":{"value":"1","units":"GiB"}}]}'), // waits on a catalog look-up
    put('{"maxConcurrentCleanUps":7}')
  ])
  t.equal(a.statusCode, 200)
  t.equal(b.statusCode, 200)
  const got = (await app.inject({ url: `${DQ}.json`, headers: ADMIN })).json().tilecacheQuotaConfiguration
  t.equal(got.maxConcurrentCleanUps, 7)
  t.equal(got.layerQuotas.length, 1)
})
