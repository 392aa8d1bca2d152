// WorldImage coverage stores (GeoServer's format "WorldImage"): PUT file.worldimage with a ZIP of a
// PNG, JPEG or plain TIFF and its world file (.pgw, .jgw, .tfw) and .prj, PUT external.worldimage (a
// server image under the harvest roots), POST coveragestores with type WorldImage then POST
// coverages; each a store, a coverage and a layer drawn by WMS GetMap and WMTS where the world file
// places it, its cached tiles dropped when replaced; refusals change nothing.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import sharp, { type Sharp } from 'sharp'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { makeTiff, makeZip } from '../../fixtures/mosaics/make.js'
import { manifest } from '../../manifest.js'

const R = `${BASE}/rest/workspaces/ws/coveragestores`
const ZIP = { 'content-type': 'application/zip' }
const SIZE = 64
const PRJ_4326 = 'GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]'
/** 64x64 pixels over 0..90 E, 0..90 N (A, D, B, E, C, F; C, F the upper-left pixel's centre). */
const px = 90 / SIZE
const WORLD = [px, 0, 0, -px, px / 2, 90 - px / 2].join('\n') + '\n'

/** West half `west`, east half `east` (RGB): a world file read the wrong way round shows. */
function halves (west: number[], east: number[]): Sharp {
  const raw = Buffer.alloc(SIZE * SIZE * 3)
  for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) raw.set(x < SIZE / 2 ? west : east, (y * SIZE + x) * 3)
  return sharp(raw, { raw: { width: SIZE, height: SIZE, channels: 3 } })
}
const RED = [200, 0, 0]
const BLUE = [0, 0, 200]

async function getMap (app: any, layer: string): Promise<{ west: number[], east: number[] }> {
  const res = await app.inject({ method: 'GET', url: `${BASE}/wms?SERVICE=WMS&REQUEST=GetMap&VERSION=1.1.1&LAYERS=${layer}&STYLES=&SRS=EPSG:4326&BBOX=0,0,90,90&WIDTH=32&HEIGHT=32&FORMAT=image/png` })
  if (res.statusCode !== 200 || res.headers['content-type'] !== 'image/png') throw new Error(`GetMap ${layer}: ${res.statusCode} ${res.body.slice(0, 300)}`)
  return { west: await pixel(res.rawPayload, 4, 16), east: await pixel(res.rawPayload, 28, 16) }
}

async function pixel (png: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  const i = (y * info.width + x) * 4
  return [data[i], data[i + 1], data[i + 2], data[i + 3]]
}

/** Within `tol` of the colour, opaque (JPEG is lossy). */
const near = (p: number[], c: number[], tol = 0) => p[3] === 255 && c.every((v, i) => Math.abs(p[i] - v) <= tol)

t.test('PUT file.worldimage: a PNG with its .pgw and .prj becomes a store, coverage and layer; a re-PUT drops the cached tiles', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const dataDir = app.config.dataDir
  const zip = await makeZip({ 'scan.png': await halves(RED, BLUE).png().toBuffer(), 'scan.pgw': WORLD, 'scan.prj': PRJ_4326 })
  let res = await app.inject({ method: 'PUT', url: `${R}/scans/file.worldimage?coverageName=scan`, headers: { ...ADMIN, ...ZIP, accept: 'application/json' }, payload: zip })
  t.equal(res.statusCode, 201, res.body)
  t.match(res.json().coverageStore, { name: 'scans', type: 'WorldImage', enabled: true, workspace: { name: 'ws' }, url: 'file:data/ws/scans/scan.png' })
  t.same(fs.readdirSync(path.join(dataDir, 'data', 'ws', 'scans')).sort(), ['scan.pgw', 'scan.png', 'scan.prj'], 'the image is kept as sent, with its sidecars (no conversion)')
  res = await app.inject({ method: 'GET', url: `${R}/scans.xml`, headers: ADMIN })
  t.match(res.body, /<coverageStore>\s*<name>scans<\/name>\s*<type>WorldImage<\/type>/)
  res = await app.inject({ method: 'GET', url: `${R}/scans/coverages/scan.json`, headers: ADMIN })
  t.match(res.json().coverage, { name: 'scan', nativeName: 'scan', nativeFormat: 'WorldImage', srs: 'EPSG:4326' })
  t.same(res.json().coverage.nativeBoundingBox, { minx: 0, maxx: 90, miny: 0, maxy: 90, crs: 'EPSG:4326' })
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/layers/ws:scan.json`, headers: ADMIN })
  t.equal(res.json().layer.type, 'RASTER')

  const map = await getMap(app, 'ws:scan')
  t.ok(near(map.west, RED) && near(map.east, BLUE), `GetMap draws it where the world file puts it (${map.west} ${map.east})`)
  // z0 tile 1 covers 0..180 E, 90 S..90 N: the image is its upper-left quarter.
  const tileUrl = `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=ws:scan&STYLE=&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:0&TILEROW=0&TILECOL=1&FORMAT=image/png`
  let tile = await app.inject({ method: 'GET', url: tileUrl })
  t.equal(tile.statusCode, 200)
  t.ok(near(await pixel(tile.rawPayload, 20, 20), RED), 'WMTS draws it')
  t.equal((await app.inject({ method: 'GET', url: tileUrl })).headers['geowebcache-cache-result'], 'HIT')

  // Replaced by the colours swapped: the cached tile goes, the new image shows.
  const swapped = await makeZip({ 'scan.png': await halves(BLUE, RED).png().toBuffer(), 'scan.pgw': WORLD, 'scan.prj': PRJ_4326 })
  res = await app.inject({ method: 'PUT', url: `${R}/scans/file.worldimage?coverageName=scan`, headers: { ...ADMIN, ...ZIP }, payload: swapped })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.headers['content-type'], 'application/xml')
  tile = await app.inject({ method: 'GET', url: tileUrl })
  t.not(tile.headers['geowebcache-cache-result'], 'HIT', 'the cached tile was dropped')
  t.ok(near(await pixel(tile.rawPayload, 20, 20), BLUE), 'the tile shows the new image')

  // A single-file store has nothing to harvest (GeoServer: 405).
  res = await app.inject({ method: 'POST', url: `${R}/scans/file.worldimage`, headers: { ...ADMIN, ...ZIP }, payload: swapped })
  t.equal(res.statusCode, 405)
})

t.test('a plain TIFF placed by its .tfw, and a JPEG by its .jgw without a .prj (EPSG:4326, as GeoTools assumes)', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const tif = await halves(RED, BLUE).tiff({ compression: 'deflate' }).toBuffer()
  let res = await app.inject({ method: 'PUT', url: `${R}/plain/file.worldimage`, headers: { ...ADMIN, ...ZIP, accept: 'application/json' }, payload: await makeZip({ 'sheet/map.tif': tif, 'sheet/map.tfw': WORLD, 'sheet/map.prj': PRJ_4326, 'readme.txt': 'x' }) })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.json().coverageStore.url, 'file:data/ws/plain/sheet/map.tif')
  let map = await getMap(app, 'ws:map')
  t.ok(near(map.west, RED) && near(map.east, BLUE), `a TIFF without GeoTIFF keys drawn from its .tfw (${map.west} ${map.east})`)

  res = await app.inject({ method: 'PUT', url: `${R}/photo/file.worldimage`, headers: { ...ADMIN, ...ZIP }, payload: await makeZip({ 'photo.jpg': await halves(BLUE, RED).jpeg({ quality: 95 }).toBuffer(), 'photo.jgw': WORLD }) })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'GET', url: `${R}/photo/coverages/photo.json`, headers: ADMIN })
  t.equal(res.json().coverage.srs, 'EPSG:4326')
  map = await getMap(app, 'ws:photo')
  t.ok(near(map.west, BLUE, 12) && near(map.east, RED, 12), `the JPEG drawn (${map.west} ${map.east})`)
})

t.test('external.worldimage and POST coveragestores type WorldImage read a server image under the harvest roots', async (t) => {
  const root = tempDir(t, 'mw-wi')
  const outside = tempDir(t, 'mw-wi-out')
  const app = await build(t, { harvestRoots: [root] })
  await app.workspaces.create({ name: 'ws' })
  const dir = fs.realpathSync(root)
  fs.writeFileSync(path.join(dir, 'plan.png'), await halves(RED, BLUE).png().toBuffer())
  fs.writeFileSync(path.join(dir, 'plan.wld'), WORLD)
  fs.writeFileSync(path.join(dir, 'bare.png'), await halves(RED, BLUE).png().toBuffer())
  fs.writeFileSync(path.join(outside, 'o.png'), await halves(RED, BLUE).png().toBuffer())
  fs.writeFileSync(path.join(outside, 'o.pgw'), WORLD)

  let res = await app.inject({ method: 'PUT', url: `${R}/plan/external.worldimage`, headers: { ...ADMIN, 'content-type': 'text/plain', accept: 'application/json' }, payload: `file://${dir}/plan.png` })
  t.equal(res.statusCode, 201, res.body)
  t.match(res.json().coverageStore, { name: 'plan', type: 'WorldImage', url: `file:${dir}/plan.png` })
  const map = await getMap(app, 'ws:plan')
  t.ok(near(map.west, RED) && near(map.east, BLUE), 'drawn from the file in place')

  res = await app.inject({ method: 'POST', url: R, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: `<coverageStore><name>posted</name><workspace>ws</workspace><enabled>true</enabled><type>WorldImage</type><url>file:${dir}/plan.png</url></coverageStore>` })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'POST', url: `${R}/posted/coverages`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ coverage: { name: 'posted_plan', nativeName: 'plan' } }) })
  t.equal(res.statusCode, 201, res.body)
  t.ok(near((await getMap(app, 'ws:posted_plan')).east, BLUE))

  const before = manifest(app.config.dataDir)
  for (const [body, status, re] of [
    [`file://${outside}/o.png`, 403, /harvest roots/],
    [`file://${dir}/bare.png`, 400, /world file/],
    [`file://${dir}`, 400, /not a regular file/],
    [`file://${dir}/plan.wld`, 400, /not a PNG, JPEG, GIF or TIFF/],
    ['http://169.254.169.254/latest/meta-data/x.png', 400, /file: URLs|absolute/]
  ] as Array<[string, number, RegExp]>) {
    res = await app.inject({ method: 'PUT', url: `${R}/other/external.worldimage`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: body })
    t.equal(res.statusCode, status, `${body}: ${res.body}`)
    t.match(res.body, re, body)
  }
  t.equal((await app.inject({ method: 'GET', url: `${R}/other.json`, headers: ADMIN })).statusCode, 404)
  t.same(manifest(app.config.dataDir), before, 'nothing changed')
})

t.test('refusals name the problem and change nothing', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const good = await makeZip({ 'a.png': await halves(RED, BLUE).png().toBuffer(), 'a.pgw': WORLD })
  let res = await app.inject({ method: 'PUT', url: `${R}/kept/file.worldimage`, headers: { ...ADMIN, ...ZIP }, payload: good })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'PUT', url: `${R}/tiff/file.geotiff`, headers: { ...ADMIN, 'content-type': 'image/tiff' }, payload: makeTiff({ width: 8, height: 8, bbox: [0, 0, 1, 1], bands: 1, value: () => 1 }) })
  t.equal(res.statusCode, 201)
  const before = manifest(app.config.dataDir)
  const png = await halves(RED, BLUE).png().toBuffer()
  for (const [name, payload, type, status, re] of [
    ['no world file', await makeZip({ 'a.png': png, 'a.prj': PRJ_4326 }), 'application/zip', 400, /holds no PNG, JPEG, GIF or TIFF image with its world file/],
    ['world file of another image', await makeZip({ 'a.png': png, 'b.pgw': WORLD }), 'application/zip', 400, /world file/],
    ['a bad world file', await makeZip({ 'a.png': png, 'a.pgw': '1\n2\nthree\n' }), 'application/zip', 400, /"a.png" is not a WorldImage .*six numbers/],
    ['a rotated world file', await makeZip({ 'a.png': png, 'a.pgw': '1\n0.5\n0\n-1\n0\n0\n' }), 'application/zip', 400, /rotated/],
    ['not an image', await makeZip({ 'a.png': 'not a png', 'a.pgw': WORLD }), 'application/zip', 400, /not a readable image/],
    ['a .prj naming no known CRS', await makeZip({ 'a.png': png, 'a.pgw': WORLD, 'a.prj': 'PROJCS["Mars"]' }), 'application/zip', 400, /CRS/],
    ['the image alone', png, 'image/png', 415, /application\/zip/],
    ['not a ZIP', Buffer.from('plain text'), 'application/zip', 400, /./]
  ] as Array<[string, Buffer, string, number, RegExp]>) {
    for (const store of ['kept', 'fresh']) {
      res = await app.inject({ method: 'PUT', url: `${R}/${store}/file.worldimage`, headers: { ...ADMIN, 'content-type': type }, payload })
      t.equal(res.statusCode, status, `${name} onto ${store}: ${res.body}`)
      t.match(res.body, re, name)
    }
  }
  res = await app.inject({ method: 'PUT', url: `${R}/tiff/file.worldimage`, headers: { ...ADMIN, ...ZIP }, payload: good })
  t.equal(res.statusCode, 400, 'a GeoTIFF store is not replaced by a WorldImage')
  t.match(res.body, /is a GeoTIFF store, not a WorldImage/)
  t.same(manifest(app.config.dataDir), before, 'nothing changed')
  t.equal((await app.inject({ method: 'GET', url: `${R}/fresh.json`, headers: ADMIN })).statusCode, 404)
  t.ok(near((await getMap(app, 'ws:a')).west, RED), 'the kept store still draws')
})
