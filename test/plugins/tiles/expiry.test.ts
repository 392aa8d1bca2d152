// Per-layer tile settings through the layer resource (GWC's expireCache and expireClients, and the
// cached-only switch): persisted, validated, and applied to tile requests - an expired tile is
// rendered again, the Cache-Control max-age follows expireClients, a cached-only layer answers 404
// (or a transparent tile) for a missing tile instead of rendering it.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { build, tempDir, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'

const REST = `${BASE}/rest`
const JSON_TYPE = { ...ADMIN, 'content-type': 'application/json' }
const XML_TYPE = { ...ADMIN, 'content-type': 'application/xml' }
const BBOX: [number, number, number, number] = [0, 0, 40, 40]
const tileUrl = (layer: string, z: number, x: number, y: number) => `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/${z}/${x}/${y}.png`
const tileFile = (dataDir: string, z: number, x: number, yFromBottom: number) => path.join(dataDir, 'tiles/topp/world/EPSG_4326/png/default', String(z), String(x), `${yFromBottom}.png`)

t.test('expireCache and expireClients are set through the layer resource, persisted, and applied to tiles', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, keepOpen: true, tileMaxAge: 90 })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, BBOX, pattern) })
  let res = await app.inject({ method: 'GET', url: `${REST}/layers/${layer}.json`, headers: ADMIN })
  t.notOk('expireCache' in res.json().layer, 'defaults keep GeoServer\'s document unchanged')
  res = await app.inject({ method: 'PUT', url: `${REST}/layers/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ layer: { expireCache: 600, expireClients: 3600 } }) })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ method: 'GET', url: `${REST}/layers/${layer}.json`, headers: ADMIN })
  t.match(res.json().layer, { name: 'world', expireCache: 600, expireClients: 3600, cachedOnly: false, cachedOnlyMissing: 'notFound' })

  const url = tileUrl(layer, 2, 4, 1) // row 1 from the top is row 2 from the bottom (4 rows at z2)
  res = await app.inject({ method: 'GET', url })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['geowebcache-cache-result'], 'MISS')
  t.equal(res.headers['cache-control'], 'public, max-age=3600', 'expireClients is the max-age')
  const file = tileFile(dataDir, 2, 4, 2)
  t.ok(fs.existsSync(file))
  res = await app.inject({ method: 'GET', url })
  t.equal(res.headers['geowebcache-cache-result'], 'HIT', 'younger than expireCache: served from the cache')

  // Ten minutes and one second old: rendered again, the file rewritten.
  const old = new Date(Date.now() - 601_000)
  fs.utimesSync(file, old, old)
  res = await app.inject({ method: 'GET', url })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['geowebcache-cache-result'], 'MISS', 'older than expireCache: rendered again')
  t.ok(fs.statSync(file).mtimeMs > old.getTime() + 1000, 'and stored again')
  res = await app.inject({ method: 'GET', url })
  t.equal(res.headers['geowebcache-cache-result'], 'HIT')
  // Nine minutes old: still fresh.
  const recent = new Date(Date.now() - 540_000)
  fs.utimesSync(file, recent, recent)
  res = await app.inject({ method: 'GET', url })
  t.equal(res.headers['geowebcache-cache-result'], 'HIT')

  // The special values of GWC: -1 no-cache / no caching, -2 never expire; 0 back to the defaults.
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/topp/layers/world.xml`, headers: XML_TYPE, payload: '<layer><expireClients>-2</expireClients><expireCache>-2</expireCache></layer>' })
  t.equal(res.statusCode, 200)
  const ancient = new Date('2001-01-01T00:00:00Z')
  fs.utimesSync(file, ancient, ancient)
  res = await app.inject({ method: 'GET', url })
  t.equal(res.headers['geowebcache-cache-result'], 'HIT', '-2: never expires')
  t.equal(res.headers['cache-control'], 'public, max-age=31536000')
  res = await app.inject({ method: 'PUT', url: `${REST}/layers/${layer}`, headers: JSON_TYPE, payload: JSON.stringify({ layer: { expireClients: -1, expireCache: -1 } }) })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'GET', url })
  t.equal(res.headers['geowebcache-cache-result'], 'MISS', '-1: the cache is not used')
  t.equal(res.headers['cache-control'], 'public, no-cache')
  res = await app.inject({ method: 'GET', url: `${REST}/layers/${layer}.xml`, headers: ADMIN })
  t.match(res.body, /<expireCache>-1<\/expireCache>\n {2}<expireClients>-1<\/expireClients>/)

  // Bad values: 400 naming the field, nothing changed.
  for (const [body, message] of [
    [{ expireCache: 'soon' }, /expireCache.*whole number of seconds/],
    [{ expireClients: -4 }, /expireClients.*-4/],
    [{ expireClients: -3 }, /expireClients.*-3/],
    [{ cachedOnly: 'maybe' }, /cachedOnly.*true or false/],
    [{ cachedOnlyMissing: 'blank' }, /cachedOnlyMissing.*notFound or transparent/],
    [{ expireCache: 30, cachedOnly: 1.5 }, /cachedOnly/]
  ] as Array<[Record<string, unknown>, RegExp]>) {
    res = await app.inject({ method: 'PUT', url: `${REST}/layers/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ layer: body }) })
    t.equal(res.statusCode, 400, JSON.stringify(body))
    t.match(res.body, message)
  }
  res = await app.inject({ method: 'GET', url: `${REST}/layers/${layer}.json`, headers: ADMIN })
  t.match(res.json().layer, { expireCache: -1, expireClients: -1, cachedOnly: false })

  res = await app.inject({ method: 'PUT', url: `${REST}/layers/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ layer: { expireCache: 120, expireClients: 45 } }) })
  t.equal(res.statusCode, 200)
  await app.close()
  const again = await build(t, { dataDir, tileMaxAge: 90 })
  res = await again.inject({ method: 'GET', url: `${REST}/layers/${layer}.json`, headers: ADMIN })
  t.match(res.json().layer, { expireCache: 120, expireClients: 45 }, 'persisted across a restart')
  res = await again.inject({ method: 'GET', url })
  t.equal(res.headers['cache-control'], 'public, max-age=45')
  res = await again.inject({ method: 'PUT', url: `${REST}/layers/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ layer: { expireCache: 0, expireClients: 0 } }) })
  t.equal(res.statusCode, 200)
  res = await again.inject({ method: 'GET', url })
  t.equal(res.headers['cache-control'], 'public, max-age=90', '0: the server\'s setting')
  res = await again.inject({ method: 'GET', url: `${REST}/layers/${layer}.json`, headers: ADMIN })
  t.notOk('expireCache' in res.json().layer, 'back at the defaults')
})

t.test('a cached-only layer serves its cached tiles and answers 404 or a transparent tile for a missing one, never rendering it', async (t) => {
  const app = await build(t)
  const dataDir = app.config.dataDir
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, BBOX, pattern) })
  // Seed z0-1 first, then switch the layer to cached-only.
  let res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 1, type: 'seed', format: 'image/png' } }) })
  t.equal(res.statusCode, 200)
  await app.tileCache.breeder.idle()
  res = await app.inject({ method: 'PUT', url: `${REST}/layers/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ layer: { cachedOnly: true, expireCache: 1 } }) })
  t.equal(res.statusCode, 200)
  const cached = tileFile(dataDir, 1, 2, 1)
  t.ok(fs.existsSync(cached))
  const old = new Date('2020-01-01T00:00:00Z')
  fs.utimesSync(cached, old, old)
  res = await app.inject({ method: 'GET', url: tileUrl(layer, 1, 2, 0) })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['geowebcache-cache-result'], 'HIT', 'a cached tile is served, even past expireCache (nothing renders)')
  t.equal(fs.statSync(cached).mtimeMs, old.getTime())

  res = await app.inject({ method: 'GET', url: tileUrl(layer, 3, 8, 3) })
  t.equal(res.statusCode, 404)
  t.match(res.headers['content-type'], /^text\/plain/)
  t.equal(res.body, `Tile XYZ 3/8/3 of layer ${layer} in grid set EPSG:4326 is not cached, and the layer serves cached tiles only`)
  t.notOk(fs.existsSync(path.join(dataDir, 'tiles/topp/world/EPSG_4326/png/default/3')), 'nothing rendered')
  res = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=${layer}&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:3&TILEROW=3&TILECOL=8&FORMAT=image/png` })
  t.equal(res.statusCode, 404, 'on every tile path')
  res = await app.inject({ method: 'GET', url: tileUrl(layer, 3, 200, 3) })
  t.equal(res.statusCode, 404)
  t.match(res.body, /outside the coverage/, 'outside the coverage is still said so')

  res = await app.inject({ method: 'PUT', url: `${REST}/layers/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ layer: { cachedOnlyMissing: 'transparent' } }) })
  t.equal(res.statusCode, 200)
  for (const [ext, mime] of [['png', 'image/png'], ['webp', 'image/webp'], ['jpeg', 'image/jpeg']]) {
    res = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/3/8/3.${ext}` })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-type'], mime)
    t.equal(res.headers['cache-control'], 'public, no-cache', 'a stand-in is revalidated: the tile may be seeded later')
    const { data, info } = await sharp(res.rawPayload).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
    t.same([info.width, info.height], [256, 256])
    const alphas = new Set<number>(); const reds = new Set<number>()
    for (let i = 0; i < data.length; i += 4) { reds.add(data[i]); alphas.add(data[i + 3]) }
    t.same([...alphas], [ext === 'jpeg' ? 255 : 0], ext === 'jpeg' ? 'JPEG: opaque white' : 'fully transparent')
    if (ext === 'jpeg') t.same([...reds], [255])
  }
  t.notOk(fs.existsSync(path.join(dataDir, 'tiles/topp/world/EPSG_4326/png/default/3')), 'never stored')

  // Read rules still come first: a layer behind a read rule gives anonymous readers no stand-in.
  res = await app.inject({ method: 'POST', url: `${REST}/security/acl/layers.json`, headers: JSON_TYPE, payload: '{"topp.world.r":"ROLE_READER"}' })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'GET', url: tileUrl(layer, 3, 8, 3) })
  t.equal(res.statusCode, 404)
  t.notMatch(String(res.headers['content-type']), /image/)
  res = await app.inject({ method: 'GET', url: tileUrl(layer, 3, 8, 3), headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'private, no-cache')

  // Switched off: the missing tile renders again.
  res = await app.inject({ method: 'PUT', url: `${REST}/layers/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ layer: { cachedOnly: false } }) })
  res = await app.inject({ method: 'GET', url: tileUrl(layer, 3, 8, 3), headers: ADMIN })
  t.equal(res.headers['geowebcache-cache-result'], 'MISS')
  t.ok(fs.existsSync(path.join(dataDir, 'tiles/topp/world/EPSG_4326/png/default/3')))
})

t.test('one tile request is one read of the tile file (one hit for the disk quota): a hit, a miss, an expired tile rendered again', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, BBOX, pattern) })
  const res = await app.inject({ method: 'PUT', url: `${REST}/layers/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ layer: { expireCache: 600 } }) })
  t.equal(res.statusCode, 200, res.body)
  const reads: string[] = []
  app.tileCache.store.onTileRead((e) => reads.push(`${e.z}/${e.x}/${e.y}`))
  const url = tileUrl(layer, 2, 4, 1)
  const get = async (expected: string) => {
    reads.length = 0
    const r = await app.inject({ method: 'GET', url })
    t.equal(r.statusCode, 200)
    t.equal(r.headers['geowebcache-cache-result'], expected)
    t.same(reads, ['2/4/2'], `${expected}: the tile was read once`)
  }
  await get('MISS')
  await get('HIT')
  const file = tileFile(dataDir, 2, 4, 2)
  const old = new Date(Date.now() - 601_000)
  fs.utimesSync(file, old, old)
  await get('MISS')
  t.ok(fs.statSync(file).mtimeMs > old.getTime() + 1000, 'the expired tile was rendered and stored again')
  await get('HIT')
})
