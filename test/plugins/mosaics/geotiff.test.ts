// GeoTIFF coverage stores as clients make them: PUT file.geotiff (Python geoserver-rest's
// create_coveragestore, geoserver-node-client's createGeotiffFromFile), PUT external.geotiff, a
// POSTed store then POST coverages (gsconfig, GeoNode), and a mosaic from a server folder (PUT
// external.imagemosaic); each read back in XML and JSON and drawn by WMS GetMap and WMTS.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { makeTiff, makeZip } from '../../fixtures/mosaics/make.js'
import { manifest } from '../../manifest.js'

const R = `${BASE}/rest/workspaces/ws/coveragestores`
const TIFF = { 'content-type': 'image/tiff' }

/** 64x64 RGB over 0..90 E, 0..90 N: one channel rises west to east, the others are 0. */
const rgb = (channel: number) => makeTiff({ width: 64, height: 64, bbox: [0, 0, 90, 90], bands: 3, value: (x, _y, b) => (b === channel ? 60 + x * 3 : 0) })

async function getMap (app: any, layer: string) {
  const res = await app.inject({ method: 'GET', url: `${BASE}/wms?SERVICE=WMS&REQUEST=GetMap&VERSION=1.1.1&LAYERS=${layer}&STYLES=&SRS=EPSG:4326&BBOX=0,0,90,90&WIDTH=32&HEIGHT=32&FORMAT=image/png` })
  if (res.statusCode !== 200 || res.headers['content-type'] !== 'image/png') throw new Error(`GetMap ${layer}: ${res.statusCode} ${res.body.slice(0, 300)}`)
  return await pixel(res.rawPayload, 28, 16)
}

async function pixel (png: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  const i = (y * info.width + x) * 4
  return [data[i], data[i + 1], data[i + 2], data[i + 3]]
}

const red = (p: number[]) => p[0] > 100 && p[1] === 0 && p[2] === 0 && p[3] === 255
const blue = (p: number[]) => p[2] > 100 && p[0] === 0 && p[1] === 0 && p[3] === 255

t.test('PUT file.geotiff creates a GeoTIFF store, coverage and layer; a re-PUT replaces the file and the cached tiles', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const dataDir = app.config.dataDir
  // As Python geoserver-rest sends it: filename and coverageName, JSON asked for.
  let res = await app.inject({ method: 'PUT', url: `${R}/elev/file.geotiff?filename=dem.tif&coverageName=dem`, headers: { ...ADMIN, ...TIFF, accept: 'application/json' }, payload: rgb(0) })
  t.equal(res.statusCode, 201, res.body)
  t.match(res.headers['content-type'], /^application\/json/)
  const created = JSON.parse(res.body).coverageStore
  t.match(created, { name: 'elev', type: 'GeoTIFF', enabled: true, workspace: { name: 'ws' }, url: 'file:data/ws/elev/dem.tif' })
  t.ok(fs.readFileSync(path.join(dataDir, 'data', 'ws', 'elev', 'dem.tif')).equals(rgb(0)), 'the file is kept under the data directory')

  res = await app.inject({ method: 'GET', url: `${R}/elev.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.match(res.body, /<coverageStore>\s*<name>elev<\/name>\s*<type>GeoTIFF<\/type>/)
  t.match(res.body, /<url>file:data\/ws\/elev\/dem.tif<\/url>/)
  res = await app.inject({ method: 'GET', url: `${R}/elev/coverages.json`, headers: ADMIN })
  t.same(JSON.parse(res.body).coverages.coverage.map((c: any) => c.name), ['dem'])
  res = await app.inject({ method: 'GET', url: `${R}/elev/coverages/dem.json`, headers: ADMIN })
  const cov = JSON.parse(res.body).coverage
  t.match(cov, { name: 'dem', nativeName: 'dem', nativeFormat: 'GeoTIFF', srs: 'EPSG:4326', nativeCoverageName: 'dem' })
  t.same(cov.dimensions.coverageDimension.length, 3)
  res = await app.inject({ method: 'GET', url: `${R}/elev/coverages/dem.xml`, headers: ADMIN })
  t.match(res.body, /<nativeFormat>GeoTIFF<\/nativeFormat>/)
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/layers/ws:dem.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(JSON.parse(res.body).layer.type, 'RASTER')

  t.ok(red(await getMap(app, 'ws:dem')), 'GetMap draws the red band')
  const tileUrl = `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=ws:dem&STYLE=&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:0&TILEROW=0&TILECOL=1&FORMAT=image/png`
  let tile = await app.inject({ method: 'GET', url: tileUrl })
  t.equal(tile.statusCode, 200)
  // z0 tile 1 covers 0..180 E, 90 S..90 N: the coverage is its upper-left quarter.
  t.ok(red(await pixel(tile.rawPayload, 100, 20)), 'WMTS draws it')
  t.equal((await app.inject({ method: 'GET', url: tileUrl })).headers['geowebcache-cache-result'], 'HIT', 'the tile is cached')

  // Re-PUT (geoserver-node-client: no filename): the store's folder is replaced as a whole.
  res = await app.inject({ method: 'PUT', url: `${R}/elev/file.geotiff?coverageName=dem`, headers: { ...ADMIN, ...TIFF }, payload: rgb(2) })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.headers['content-type'], 'application/xml')
  t.match(res.body, /<url>file:data\/ws\/elev\/elev.geotiff<\/url>/)
  t.same(fs.readdirSync(path.join(dataDir, 'data', 'ws', 'elev')), ['elev.geotiff'], 'only the new file is left')
  t.notOk(fs.existsSync(path.join(dataDir, 'aside', 'ws', 'elev')), 'nothing left aside')
  tile = await app.inject({ method: 'GET', url: tileUrl })
  t.not(tile.headers['geowebcache-cache-result'], 'HIT', 'the cached tile was dropped')
  t.ok(blue(await pixel(tile.rawPayload, 100, 20)), 'the tile shows the new file')
  t.ok(blue(await getMap(app, 'ws:dem')), 'GetMap too')
  res = await app.inject({ method: 'GET', url: `${R}/elev/coverages/dem.json`, headers: ADMIN })
  t.equal(JSON.parse(res.body).coverage.nativeName, 'dem', 'the coverage keeps its native name')

  // Seeding draws the new file too, and capabilities say what the layer is.
  res = await app.inject({
    method: 'POST', url: `${BASE}/tilecache/rest/seed/ws:dem.json`, headers: { ...ADMIN, 'content-type': 'application/json' },
    payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'seed', zoomStart: 1, zoomStop: 1, threadCount: 1 } })
  })
  t.equal(res.statusCode, 200)
  await app.tileCache.breeder.idle()
  // z1 column 2 row 1 (from the bottom, as the blob store counts) covers 0..90 E, 0..90 N: the coverage.
  const seeded = fs.readFileSync(path.join(dataDir, 'tiles', 'ws', 'dem', 'EPSG_4326', 'png', 'default', '1', '2', '1.png'))
  t.ok(blue(await pixel(seeded, 200, 128)), 'the seeded tile shows the new file')
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?SERVICE=WMS&REQUEST=GetCapabilities&VERSION=1.3.0` })
  t.match(res.body, /<Name>ws:dem<\/Name>[\s\S]*?<Keyword>GeoTIFF<\/Keyword>/)

  // A single file has no granule index to show or delete from (GeoServer's StructuredCoverageController).
  for (const [method, url] of [['GET', 'index.json'], ['GET', 'index/granules.json'], ['DELETE', 'index/granules?filter=INCLUDE&purge=all']]) {
    res = await app.inject({ method: method as 'GET', url: `${R}/elev/coverages/dem/${url}`, headers: ADMIN })
    t.equal(res.statusCode, 404, `${method} ${url}`)
    t.match(res.body, /not a structured coverage/)
  }
  t.ok(fs.existsSync(path.join(dataDir, 'data', 'ws', 'elev', 'elev.geotiff')), 'the file stays')

  // POST is a harvest, which a single file does not take (GeoServer: 405).
  res = await app.inject({ method: 'POST', url: `${R}/elev/file.geotiff`, headers: { ...ADMIN, ...TIFF }, payload: rgb(1) })
  t.equal(res.statusCode, 405)

  // DELETE without recurse keeps a store with a coverage; with it, everything goes.
  res = await app.inject({ method: 'DELETE', url: `${R}/elev`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  res = await app.inject({ method: 'DELETE', url: `${R}/elev?recurse=true&purge=all`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.notOk(fs.existsSync(path.join(dataDir, 'data', 'ws', 'elev')), 'the folder is gone')
  t.equal((await app.inject({ method: 'GET', url: `${R}/elev.json`, headers: ADMIN })).statusCode, 404)
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/rest/layers/ws:dem.json`, headers: ADMIN })).statusCode, 404)
})

t.test('PUT file.geotiff refuses a body that is not a GeoTIFF, naming it, and leaves nothing behind', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const dataDir = app.config.dataDir
  const before = manifest(dataDir)
  for (const [what, body] of [['text', Buffer.from('hello, not a tiff')], ['a truncated TIFF', rgb(0).subarray(0, 200)], ['a PNG', await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } }).png().toBuffer()]] as Array<[string, Buffer]>) {
    const res = await app.inject({ method: 'PUT', url: `${R}/bad/file.geotiff`, headers: { ...ADMIN, ...TIFF }, payload: body })
    t.equal(res.statusCode, 400, what)
    t.match(res.body, /^The request body is not a GeoTIFF mapwarden can serve: /, what)
    t.same(manifest(dataDir), before, `${what}: data directory unchanged`)
    t.equal((await app.inject({ method: 'GET', url: `${R}/bad.json`, headers: ADMIN })).statusCode, 404, `${what}: no store`)
  }
  // A bad re-PUT keeps the store as it was.
  t.equal((await app.inject({ method: 'PUT', url: `${R}/good/file.geotiff`, headers: { ...ADMIN, ...TIFF }, payload: rgb(0) })).statusCode, 201)
  const kept = manifest(dataDir)
  const res = await app.inject({ method: 'PUT', url: `${R}/good/file.geotiff`, headers: { ...ADMIN, ...TIFF }, payload: Buffer.from('II*\0garbage') })
  t.equal(res.statusCode, 400)
  t.same(manifest(dataDir), kept, 'the old file stays')
  t.ok(red(await getMap(app, 'ws:good')), 'and is drawn')
  // Names and parameters are checked before anything is written.
  for (const [url, re] of [
    [`${R}/good/file.geotiff?filename=../x.tif`, /filename/],
    [`${R}/good/file.geotiff?filename=x.png`, /must end with \.tif/],
    [`${R}/good/file.geotiff?configure=some`, /configure/],
    [`${R}/good/file.geotiff?verify=true`, /verify/]
  ] as Array<[string, RegExp]>) {
    const r = await app.inject({ method: 'PUT', url, headers: { ...ADMIN, ...TIFF }, payload: rgb(2) })
    t.equal(r.statusCode, 400, url)
    t.match(r.body, re, url)
  }
  t.same(manifest(dataDir), kept)
  // A replace whose commit fails (the coverage name is taken in the workspace) puts the old file back.
  t.equal((await app.inject({ method: 'PUT', url: `${R}/other/file.geotiff?coverageName=taken`, headers: { ...ADMIN, ...TIFF }, payload: rgb(1) })).statusCode, 201)
  const both = manifest(dataDir)
  const clash = await app.inject({ method: 'PUT', url: `${R}/good/file.geotiff?coverageName=taken`, headers: { ...ADMIN, ...TIFF }, payload: rgb(2) })
  t.equal(clash.statusCode, 409, clash.body)
  t.match(clash.body, /taken/)
  t.same(manifest(dataDir), both, 'the old file is back in place')
  t.ok(red(await getMap(app, 'ws:good')), 'and still drawn')
  t.equal((await app.inject({ method: 'DELETE', url: `${R}/other?recurse=true`, headers: ADMIN })).statusCode, 200)
  // A ZIP without a GeoTIFF, or not a ZIP at all.
  for (const body of [await makeZip({ 'readme.txt': 'no raster here' }), Buffer.from('PK\u0003\u0004 not a zip')]) {
    const r = await app.inject({ method: 'PUT', url: `${R}/good/file.geotiff`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: body })
    t.equal(r.statusCode, 400, r.body)
  }
  t.same(manifest(dataDir), kept)
  // A TIFF is not a mosaic archive, and a GeoTIFF store does not become a mosaic.
  t.equal((await app.inject({ method: 'PUT', url: `${R}/good/file.imagemosaic`, headers: { ...ADMIN, ...TIFF }, payload: rgb(0) })).statusCode, 415)
  const zip = await app.inject({ method: 'PUT', url: `${R}/good/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await makeZip({ 'a.tif': rgb(0) }) })
  t.equal(zip.statusCode, 400)
  t.match(zip.body, /is a GeoTIFF store, not an ImageMosaic/)
  t.same(manifest(dataDir), kept)
})

t.test('PUT file.geotiff takes a ZIP: the first GeoTIFF in it is the coverage, its sidecars kept beside it', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const res = await app.inject({
    method: 'PUT', url: `${R}/zipped/file.geotiff`, headers: { ...ADMIN, 'content-type': 'application/zip' },
    payload: await makeZip({ 'readme.txt': 'x', 'scene/b.tif': rgb(2), 'scene/b.tif.aux.xml': '<PAMDataset/>' })
  })
  t.equal(res.statusCode, 201, res.body)
  t.match(res.body, /<url>file:data\/ws\/zipped\/scene\/b.tif<\/url>/)
  t.ok(fs.existsSync(path.join(app.config.dataDir, 'data', 'ws', 'zipped', 'scene', 'b.tif.aux.xml')))
  const cov = JSON.parse((await app.inject({ method: 'GET', url: `${R}/zipped/coverages.json`, headers: ADMIN })).body)
  t.same(cov.coverages.coverage.map((c: any) => c.name), ['b'], 'named after the file, as GeoServer names it')
  t.ok(blue(await getMap(app, 'ws:b')))
})

t.test('PUT file.geotiff with configure=none makes the store only; POST coverages publishes it', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  let res = await app.inject({ method: 'PUT', url: `${R}/later/file.geotiff?configure=none`, headers: { ...ADMIN, ...TIFF }, payload: rgb(0) })
  t.equal(res.statusCode, 201)
  t.equal(res.body, '', 'no body, as GeoServer')
  t.equal(JSON.parse((await app.inject({ method: 'GET', url: `${R}/later/coverages.json`, headers: ADMIN })).body).coverages, '')
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/rest/layers/ws:later.json`, headers: ADMIN })).statusCode, 404, 'no layer yet')
  res = await app.inject({ method: 'POST', url: `${R}/later/coverages.xml`, headers: { ...ADMIN, 'content-type': 'application/xml' }, payload: '<coverage><name>later</name><title>Later</title></coverage>' })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'GET', url: `${R}/later/coverages/later.json`, headers: ADMIN })
  t.match(JSON.parse(res.body).coverage, { name: 'later', nativeName: 'later', title: 'Later', nativeFormat: 'GeoTIFF' })
  t.ok(red(await getMap(app, 'ws:later')))
})

t.test('PUT external.geotiff reads a file under the harvest roots in place; outside them it is refused', async (t) => {
  const root = tempDir(t, 'mw-external')
  const outside = tempDir(t, 'mw-outside')
  const app = await build(t, { harvestRoots: [root] })
  await app.workspaces.create({ name: 'ws' })
  const file = path.join(fs.realpathSync(root), 'scene.tif')
  fs.writeFileSync(file, rgb(0))
  fs.writeFileSync(path.join(outside, 'x.tif'), rgb(0))
  let res = await app.inject({ method: 'PUT', url: `${R}/scene/external.geotiff`, headers: { ...ADMIN, 'content-type': 'text/plain', accept: 'application/json' }, payload: `file://${file}` })
  t.equal(res.statusCode, 201, res.body)
  t.match(JSON.parse(res.body).coverageStore, { name: 'scene', type: 'GeoTIFF', url: `file:${file}` })
  res = await app.inject({ method: 'GET', url: `${R}/scene/coverages/scene.json`, headers: ADMIN })
  t.match(JSON.parse(res.body).coverage, { name: 'scene', nativeName: 'scene', nativeFormat: 'GeoTIFF' })
  t.ok(red(await getMap(app, 'ws:scene')), 'drawn from the file in place')
  // The file changed on disk and is PUT again: the layer's tiles go.
  await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/ws:scene/EPSG:4326/0/1/0.png` })
  fs.writeFileSync(file, rgb(2))
  res = await app.inject({ method: 'PUT', url: `${R}/scene/external.geotiff`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: file })
  t.equal(res.statusCode, 201, res.body)
  const tile = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/ws:scene/EPSG:4326/0/1/0.png` })
  t.ok(blue(await pixel(tile.rawPayload, 100, 20)), 'the tile shows the file as it is now')

  for (const [body, status, re] of [
    [`file://${path.join(outside, 'x.tif')}`, 403, /harvest roots/],
    [`file://${path.join(root, 'missing.tif')}`, 400, /no such file/],
    [`file://${root}`, 400, /not a regular file/],
    ['relative/x.tif', 400, /absolute/]
  ] as Array<[string, number, RegExp]>) {
    res = await app.inject({ method: 'PUT', url: `${R}/other/external.geotiff`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: body })
    t.equal(res.statusCode, status, body)
    t.match(res.body, re, body)
  }
  fs.writeFileSync(path.join(root, 'junk.tif'), 'not a tiff')
  res = await app.inject({ method: 'PUT', url: `${R}/other/external.geotiff`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: path.join(root, 'junk.tif') })
  t.equal(res.statusCode, 400)
  t.match(res.body, /^"junk.tif" is not a GeoTIFF/)
  t.equal((await app.inject({ method: 'GET', url: `${R}/other.json`, headers: ADMIN })).statusCode, 404)

  // Deleting the store leaves the file it read.
  res = await app.inject({ method: 'DELETE', url: `${R}/scene?recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.ok(fs.existsSync(file), 'the server file stays')
})

t.test('POST coveragestores with a url, then POST coverages, publishes a GeoTIFF (gsconfig, GeoNode)', async (t) => {
  const root = tempDir(t, 'mw-post')
  const app = await build(t, { harvestRoots: [root] })
  await app.workspaces.create({ name: 'ws' })
  const file = path.join(fs.realpathSync(root), 'ortho.tif')
  fs.writeFileSync(file, rgb(1))
  // gsconfig's create_coveragestore(upload_data=False), word for word.
  let res = await app.inject({
    method: 'POST', url: R, headers: { ...ADMIN, 'content-type': 'text/xml' },
    payload: `<coverageStore><name>ortho</name><workspace>ws</workspace><enabled>true</enabled><type>GeoTIFF</type><url>file:${file}</url></coverageStore>`
  })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.body, 'ortho')
  t.match(res.headers.location, /\/rest\/workspaces\/ws\/coveragestores\/ortho$/)
  res = await app.inject({ method: 'GET', url: `${R}/ortho/coverages.json`, headers: ADMIN })
  t.same(JSON.parse(res.body).coverages, '', 'no coverage until one is POSTed (GeoServer\'s empty list)')
  res = await app.inject({ method: 'POST', url: `${R}/ortho/coverages`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<coverage><name>orthophoto</name><nativeName>orthophoto</nativeName></coverage>' })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'GET', url: `${R}/ortho/coverages/orthophoto.xml`, headers: ADMIN })
  t.match(res.body, /<nativeName>orthophoto<\/nativeName>/)
  const [r, g, b, a] = await getMap(app, 'ws:orthophoto')
  t.ok(g > 100 && r === 0 && b === 0 && a === 255, 'the green band is drawn')

  // JSON, as geoserver-node-client sends it.
  res = await app.inject({
    method: 'POST', url: `${R}.json`, headers: { ...ADMIN, 'content-type': 'application/json' },
    payload: JSON.stringify({ coverageStore: { name: 'ortho2', type: 'GeoTIFF', enabled: true, workspace: { name: 'ws' }, url: `file://${file}` } })
  })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'GET', url: `${R}/ortho2.json`, headers: ADMIN })
  t.match(JSON.parse(res.body).coverageStore, { name: 'ortho2', type: 'GeoTIFF', url: `file:${file}` })

  for (const [body, status, re] of [
    [{ name: 'ortho', type: 'GeoTIFF', url: file }, 409, /already exists/],
    [{ name: 'x', type: 'NetCDF', url: file }, 400, /NetCDF/],
    [{ name: 'x', type: 'GeoTIFF' }, 400, /url/],
    [{ name: 'x', type: 'GeoTIFF', url: 'file:data/ws/x.tif' }, 400, /relative/],
    [{ name: 'x', type: 'GeoTIFF', url: file, color: 'red' }, 400, /color/],
    [{ name: 'x', type: 'GeoTIFF', url: file, workspace: 'other' }, 400, /workspace/],
    [{ name: 'x', type: 'GeoTIFF', url: 'file:///etc/hostname' }, 403, /harvest roots/]
  ] as Array<[Record<string, unknown>, number, RegExp]>) {
    res = await app.inject({ method: 'POST', url: R, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ coverageStore: body }) })
    t.equal(res.statusCode, status, JSON.stringify(body))
    t.match(res.body, re, JSON.stringify(body))
  }
  t.equal((await app.inject({ method: 'GET', url: `${R}/x.json`, headers: ADMIN })).statusCode, 404)
})

t.test('PUT external.imagemosaic makes a mosaic of a server folder; POST coveragestores too', async (t) => {
  const root = tempDir(t, 'mw-folder')
  const app = await build(t, { harvestRoots: [root] })
  await app.workspaces.create({ name: 'ws' })
  const dir = path.join(fs.realpathSync(root), 'tiles')
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, 'west.tif'), makeTiff({ width: 32, height: 32, bbox: [0, 0, 45, 90], bands: 3, value: (_x, _y, b) => (b === 0 ? 200 : 0) }))
  fs.writeFileSync(path.join(dir, 'east.tif'), makeTiff({ width: 32, height: 32, bbox: [45, 0, 90, 90], bands: 3, value: (_x, _y, b) => (b === 2 ? 200 : 0) }))
  let res = await app.inject({ method: 'PUT', url: `${R}/folder/external.imagemosaic`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: `file://${dir}` })
  t.equal(res.statusCode, 201, res.body)
  t.match(res.body, /<type>ImageMosaic<\/type>/)
  res = await app.inject({ method: 'GET', url: `${R}/folder/coverages/folder/index/granules.json`, headers: ADMIN })
  t.same(JSON.parse(res.body).features.map((f: any) => f.properties.location).sort(), ['east.tif', 'west.tif'])
  const map = await app.inject({ method: 'GET', url: `${BASE}/wms?SERVICE=WMS&REQUEST=GetMap&VERSION=1.1.1&LAYERS=ws:folder&STYLES=&SRS=EPSG:4326&BBOX=0,0,90,90&WIDTH=32&HEIGHT=32&FORMAT=image/png` })
  t.equal(map.statusCode, 200)
  const west = await pixel(map.rawPayload, 4, 16)
  const east = await pixel(map.rawPayload, 28, 16)
  t.ok(west[0] > 100 && west[2] === 0, `west is red (${west})`)
  t.ok(east[2] > 100 && east[0] === 0, `east is blue (${east})`)
  res = await app.inject({ method: 'PUT', url: `${R}/folder2/external.imagemosaic`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: `file://${path.join(dir, 'west.tif')}` })
  t.equal(res.statusCode, 400)
  t.match(res.body, /folder/)

  res = await app.inject({ method: 'POST', url: R, headers: { ...ADMIN, 'content-type': 'application/xml' }, payload: `<coverageStore><name>posted</name><type>ImageMosaic</type><url>file:${dir}</url><enabled>true</enabled></coverageStore>` })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'POST', url: `${R}/posted/coverages`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ coverage: { name: 'posted' } }) })
  t.equal(res.statusCode, 201, res.body)
  t.equal((await app.inject({ method: 'DELETE', url: `${R}/folder?recurse=true`, headers: ADMIN })).statusCode, 200)
  t.same(fs.readdirSync(dir).sort(), ['east.tif', 'west.tif'], 'the folder is left as it was')
})
