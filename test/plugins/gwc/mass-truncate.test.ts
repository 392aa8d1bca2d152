// GeoWebCache's mass truncation through HTTP (POST /gwc/rest/masstruncate): truncateLayer drops every
// tile of a layer in every grid set and the disk quota says so (GeoNode's call), truncateExtent only
// the tiles of one grid set over a box, truncateParameters one parameter set; GET lists the request
// types as GWC writes them; bad requests are 400s naming the problem and change nothing.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, tempDir, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'

const MT = `${BASE}/gwc/rest/masstruncate`
const XML = { ...ADMIN, 'content-type': 'text/xml' }

async function setup (t: any) {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, [0, 0, 40, 40], pattern) })
  // EPSG:4326 z3: 22.5-degree tiles, 8 rows; the data covers columns 8-9, rows 4-5 from the bottom.
  const tiles: Array<[string, number, number, number, string]> = [
    ['EPSG:4326', 3, 8, 3, 'EPSG_4326/png/default/3/8/4.png'],
    ['EPSG:4326', 3, 9, 2, 'EPSG_4326/png/default/3/9/5.png'],
    ['EPSG:900913', 1, 1, 0, 'EPSG_900913/png/default/1/1/1.png']
  ]
  const files: string[] = []
  for (const [gs, z, x, y, file] of tiles) {
    const res = await app.inject({ url: `${BASE}/gwc/service/xyz/${layer}/${gs}/${z}/${x}/${y}.png` })
    t.equal(res.statusCode, 200, `tile ${gs} ${z}/${x}/${y}`)
    files.push(path.join(dataDir, 'tiles/topp/world', file))
  }
  for (const f of files) t.ok(fs.existsSync(f), `cached: ${f}`)
  return { app, layer, files }
}

async function layerUsage (app: any, layer: string): Promise<number> {
  await app.diskQuota.flush()
  const u = (await app.inject({ url: `${BASE}/gwc/rest/diskquota/usage.json`, headers: ADMIN })).json().diskQuotaUsage
  return u.layers.layer?.find((l: any) => l.name === layer)?.tiles ?? 0
}

t.test('GET /gwc/rest/masstruncate lists the request types as GeoWebCache writes them', async (t) => {
  const app = await build(t)
  const res = await app.inject({ url: MT, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, '<massTruncateRequests href="http://localhost:80/geoserver/gwc/rest/masstruncate"> <requestType>truncateLayer</requestType> <requestType>truncateParameters</requestType> <requestType>truncateOrphans</requestType> <requestType>truncateExtent</requestType></massTruncateRequests>')
  t.equal((await app.inject({ url: MT })).statusCode, 401, 'admin only')
  t.equal((await app.inject({ method: 'PUT', url: MT, headers: XML, payload: '<a/>' })).statusCode, 405)
  t.equal((await app.inject({ method: 'DELETE', url: MT, headers: ADMIN })).statusCode, 405)
})

t.test('truncateLayer (GeoNode\'s call) drops every tile of the layer and the quota says so', async (t) => {
  const { app, layer, files } = await setup(t)
  // A miss renders a metatile: its neighbours over the data are cached too.
  t.ok(await layerUsage(app, layer) >= 3, 'the quota counts the cached tiles')
  const res = await app.inject({ method: 'POST', url: MT, headers: XML, payload: `<truncateLayer><layerName>${layer}</layerName></truncateLayer>` })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.body, '')
  for (const f of files) t.notOk(fs.existsSync(f), `gone: ${f}`)
  t.equal(await layerUsage(app, layer), 0, 'the quota says the tiles are gone')
  const again = await app.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/3/8/3.png` })
  t.equal(again.headers['geowebcache-cache-result'], 'MISS', 'rendered again')
})

t.test('truncateLayer in JSON of the same shape', async (t) => {
  const { app, layer, files } = await setup(t)
  const res = await app.inject({ method: 'POST', url: MT, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ truncateLayer: { layerName: layer } }) })
  t.equal(res.statusCode, 200, res.body)
  for (const f of files) t.notOk(fs.existsSync(f))
})

t.test('truncateExtent drops the tiles of one grid set over the box only', async (t) => {
  const { app, layer, files } = await setup(t)
  const before = await layerUsage(app, layer)
  const res = await app.inject({
    method: 'POST',
    url: MT,
    headers: XML,
    payload: `<truncateExtent><layerName>${layer}</layerName><gridSetId>EPSG:4326</gridSetId><bounds><coords><double>1</double><double>1</double><double>20</double><double>20</double></coords></bounds></truncateExtent>`
  })
  t.equal(res.statusCode, 200, res.body)
  t.notOk(fs.existsSync(files[0]), 'the tile over the box is gone')
  t.ok(fs.existsSync(files[1]), 'the tile beside it stays')
  t.ok(fs.existsSync(files[2]), 'the other grid set is untouched')
  const after = await layerUsage(app, layer)
  t.ok(after < before && after >= 2, `the quota counts the tiles left (${before} before, ${after} after)`)
})

t.test('truncateParameters drops the parameter set it names (STYLES= the default is the default set)', async (t) => {
  const { app, layer, files } = await setup(t)
  const res = await app.inject({ method: 'POST', url: MT, headers: XML, payload: `<truncateParameters><layerName>${layer}</layerName><parameters><parameter><key>STYLES</key><value></value></parameter></parameters></truncateParameters>` })
  t.equal(res.statusCode, 200, res.body)
  for (const f of files) t.notOk(fs.existsSync(f))
})

t.test('bad requests are 400s naming the problem, and nothing is truncated', async (t) => {
  const { app, layer, files } = await setup(t)
  const cases: Array<[string, RegExp]> = [
    ['<truncateEverything><layerName>x</layerName></truncateEverything>', /unknown request type truncateEverything; one of truncateLayer, truncateParameters, truncateOrphans, truncateExtent/],
    ['<truncateLayer><layerName>topp:nothing</layerName></truncateLayer>', /Unknown layer topp:nothing/],
    ['<truncateLayer></truncateLayer>', /layerName is required/],
    [`<truncateLayer><layerName>${layer}</layerName><gridSetId>EPSG:4326</gridSetId></truncateLayer>`, /unknown field gridSetId in truncateLayer/],
    [`<truncateExtent><layerName>${layer}</layerName><gridSetId>EPSG:2056</gridSetId><bounds><coords><double>0</double><double>0</double><double>1</double><double>1</double></coords></bounds></truncateExtent>`, /gridSetId "EPSG:2056" is not a grid set/],
    [`<truncateExtent><layerName>${layer}</layerName><gridSetId>EPSG:4326</gridSetId><bounds><coords><double>0</double><double>0</double></coords></bounds></truncateExtent>`, /bounds must hold coords with four numbers/],
    [`<truncateParameters><layerName>${layer}</layerName><parameters><parameter><key>FOO</key><value>1</value></parameter></parameters></truncateParameters>`, /FOO: not a parameter filter of layer topp:world/]
  ]
  for (const [payload, message] of cases) {
    const res = await app.inject({ method: 'POST', url: MT, headers: XML, payload })
    t.equal(res.statusCode, 400, payload)
    t.match(res.body, message)
  }
  for (const f of files) t.ok(fs.existsSync(f), 'still cached')
  t.equal((await app.inject({ method: 'POST', url: MT, headers: { 'content-type': 'text/xml' }, payload: `<truncateLayer><layerName>${layer}</layerName></truncateLayer>` })).statusCode, 401)
  for (const f of files) t.ok(fs.existsSync(f), 'still cached after an anonymous call')
})
