// PUT url.geotiff, url.worldimage and url.imagemosaic (GeoServer's upload method `url`: the body is
// a URL whose bytes are the upload): from an http server on an allowed host (a loopback test server,
// reached through the test-only MAPWARDEN_REMOTE_UPLOAD_ALLOW_PRIVATE), through a redirect, and from a
// file: URL under the harvest roots (copied in); each drawn by GetMap. The refusals (hosts not
// allowed, private addresses, sizes, timeouts) are test/hostile/remote-uploads.test.ts.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { makeTiff, makeZip } from '../../fixtures/mosaics/make.js'
import { remoteServer } from '../../remote-server.js'

const R = `${BASE}/rest/workspaces/ws/coveragestores`
const TEXT = { 'content-type': 'text/plain' }
/** 64x64, one band rising west to east, over 0..90 E, 0..90 N. */
const tiff = makeTiff({ width: 64, height: 64, bbox: [0, 0, 90, 90], bands: 3, value: (x, _y, b) => (b === 0 ? 60 + x * 3 : 0) })
const px = 90 / 64
const WORLD = [px, 0, 0, -px, px / 2, 90 - px / 2].join('\n') + '\n'

async function drawn (app: any, layer: string): Promise<number[]> {
  const res = await app.inject({ method: 'GET', url: `${BASE}/wms?SERVICE=WMS&REQUEST=GetMap&VERSION=1.1.1&LAYERS=${layer}&STYLES=&SRS=EPSG:4326&BBOX=0,0,90,90&WIDTH=32&HEIGHT=32&FORMAT=image/png` })
  if (res.statusCode !== 200) throw new Error(`GetMap ${layer}: ${res.statusCode} ${res.body.slice(0, 200)}`)
  const { data, info } = await sharp(res.rawPayload).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  const i = (16 * info.width + 28) * 4
  return [...data.subarray(i, i + 4)]
}

t.test('url.geotiff, url.worldimage and url.imagemosaic fetch an allowed host\'s file and upload it as file.* does', async (t) => {
  const png = await sharp(Buffer.alloc(64 * 64 * 3, 200), { raw: { width: 64, height: 64, channels: 3 } }).png().toBuffer()
  const server = await remoteServer(t, {
    '/dem.tif': tiff,
    '/moved.tif': { status: 302, headers: { location: '/dem.tif' } },
    '/scan.zip': await makeZip({ 'scan.png': png, 'scan.pgw': WORLD }),
    '/mosaic.zip': await makeZip({ 'a.tif': tiff })
  })
  const app = await build(t, { remoteUploadHosts: ['127.0.0.1'], remoteUploadAllowPrivate: true })
  await app.workspaces.create({ name: 'ws' })
  const dataDir = app.config.dataDir

  let res = await app.inject({ method: 'PUT', url: `${R}/dem/url.geotiff?coverageName=dem`, headers: { ...ADMIN, ...TEXT, accept: 'application/json' }, payload: `${server.url}/dem.tif` })
  t.equal(res.statusCode, 201, res.body)
  t.match(res.json().coverageStore, { name: 'dem', type: 'GeoTIFF', url: 'file:data/ws/dem/dem.geotiff' })
  t.ok(fs.readFileSync(path.join(dataDir, 'data', 'ws', 'dem', 'dem.geotiff')).equals(tiff), 'the fetched bytes, kept in the store\'s folder')
  const [r, g, b, a] = await drawn(app, 'ws:dem')
  t.ok(r > 100 && g === 0 && b === 0 && a === 255, 'drawn')

  res = await app.inject({ method: 'PUT', url: `${R}/moved/url.geotiff?filename=m.tif`, headers: { ...ADMIN, ...TEXT }, payload: `${server.url}/moved.tif` })
  t.equal(res.statusCode, 201, `a redirect on the allowed host is followed: ${res.body}`)
  t.match(res.body, /<url>file:data\/ws\/moved\/m.tif<\/url>/)

  res = await app.inject({ method: 'PUT', url: `${R}/scan/url.worldimage`, headers: { ...ADMIN, ...TEXT, accept: 'application/json' }, payload: `${server.url}/scan.zip` })
  t.equal(res.statusCode, 201, res.body)
  t.match(res.json().coverageStore, { type: 'WorldImage', url: 'file:data/ws/scan/scan.png' })
  t.same((await drawn(app, 'ws:scan')).slice(0, 3), [200, 200, 200])

  res = await app.inject({ method: 'PUT', url: `${R}/mos/url.imagemosaic`, headers: { ...ADMIN, ...TEXT }, payload: `${server.url}/mosaic.zip` })
  t.equal(res.statusCode, 200, `a mosaic ZIP as file.imagemosaic answers: ${res.body}`)
  t.match(res.body, /<type>ImageMosaic<\/type>/)
  t.ok(fs.existsSync(path.join(dataDir, 'data', 'ws', 'mos', 'a.tif')))

  res = await app.inject({ method: 'PUT', url: `${R}/img/url.worldimage`, headers: { ...ADMIN, ...TEXT }, payload: `${server.url}/dem.tif` })
  t.equal(res.statusCode, 400, 'a WorldImage needs a ZIP with its world file')
  t.match(res.body, /ZIP/)
  res = await app.inject({ method: 'PUT', url: `${R}/gone/url.geotiff`, headers: { ...ADMIN, ...TEXT }, payload: `${server.url}/nope.tif` })
  t.equal(res.statusCode, 400)
  t.match(res.body, /^Could not fetch "http:\/\/127.0.0.1:\d+\/nope.tif": it answered HTTP 404$/)
  t.same(fs.readdirSync(path.join(dataDir, 'tmp')).filter((n) => !['uploads', 'tiles'].includes(n)), [], 'no staging file left')
})

t.test('url.geotiff with a file: URL copies a file under the harvest roots into the store; outside them it is refused', async (t) => {
  const root = tempDir(t, 'mw-url-root')
  const outside = tempDir(t, 'mw-url-out')
  const app = await build(t, { harvestRoots: [root] })
  await app.workspaces.create({ name: 'ws' })
  const file = path.join(fs.realpathSync(root), 'scene.tif')
  fs.writeFileSync(file, tiff)
  fs.writeFileSync(path.join(outside, 'x.tif'), tiff)
  let res = await app.inject({ method: 'PUT', url: `${R}/scene/url.geotiff`, headers: { ...ADMIN, ...TEXT, accept: 'application/json' }, payload: `file://${file}` })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.json().coverageStore.url, 'file:data/ws/scene/scene.geotiff', 'a copy in the store\'s folder, as GeoServer\'s url method keeps one')
  fs.rmSync(file)
  const [r] = await drawn(app, 'ws:scene')
  t.ok(r > 100, 'drawn from the copy')
  res = await app.inject({ method: 'PUT', url: `${R}/x/url.geotiff`, headers: { ...ADMIN, ...TEXT }, payload: `file://${outside}/x.tif` })
  t.equal(res.statusCode, 403)
  t.match(res.body, /harvest roots/)
  res = await app.inject({ method: 'PUT', url: `${R}/x/url.geotiff`, headers: { ...ADMIN, 'content-type': 'image/tiff' }, payload: tiff })
  t.equal(res.statusCode, 415, 'url.* takes the URL as text')
})
