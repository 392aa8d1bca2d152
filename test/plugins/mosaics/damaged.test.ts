// Damaged granule data (headers sound, compressed tiles garbage): a tile over it answers 422 naming
// the granule, never 500; the index shows the granule's state; a seed records the metatiles it could
// not render and goes on; verify=true on upload and harvest decodes every granule first and skips
// the damaged ones with the reason.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { fromFile } from 'geotiff'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { makeZip } from '../../fixtures/mosaics/make.js'
import { makeTiledTiff } from '../../fixtures/mosaics/tiled-tiff.js'
import sharp from 'sharp'

const R = `${BASE}/rest/workspaces/ws/coveragestores`
const SEED = `${BASE}/tilecache/rest/seed`
const value = (x: number, y: number) => (x + y) % 256

const GOOD = makeTiledTiff({ bbox: [0, 0, 10, 10], tile: 16, deflate: true, levels: [{ width: 64, height: 64, value }] })

/** The same kind of file far east (60-70 E), its tiles' compressed bytes overwritten past their zlib headers. */
async function damaged (): Promise<Buffer> {
  const buf = makeTiledTiff({ bbox: [60, 0, 70, 10], tile: 16, deflate: true, levels: [{ width: 64, height: 64, value }] })
  const dir = tempDir(t, 'mw-damage')
  const file = path.join(dir, 'x.tif')
  fs.writeFileSync(file, buf)
  const tiff = await fromFile(file)
  const fd = (await tiff.getImage()).getFileDirectory()
  const offsets = await fd.loadValue('TileOffsets' as any) as number[]
  const counts = await fd.loadValue('TileByteCounts' as any) as number[]
  await tiff.close()
  for (let i = 0; i < offsets.length; i++) buf.fill(0xa5, Number(offsets[i]) + 2, Number(offsets[i]) + Number(counts[i]))
  return buf
}

async function setup (t: any, query = '') {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const res = await app.inject({
    method: 'PUT',
    url: `${R}/mix/file.imagemosaic${query}`,
    headers: { ...ADMIN, 'content-type': 'application/zip' },
    // bad.png: a PNG cut after its header (sound IHDR, no image data), placed at 80-90 E.
    payload: await makeZip({ 'good.tif': GOOD, 'bad.tif': await damaged(), 'bad.png': (await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } }).png().toBuffer()).subarray(0, 120), 'bad.pgw': '0.15625\n0\n0\n-0.15625\n80.078125\n9.921875\n' })
  })
  return { app, res }
}

t.test('a tile over a damaged granule answers 422 naming it; the index shows its state; the server stays up', async (t) => {
  const { app, res } = await setup(t)
  t.equal(res.statusCode, 200, 'headers are sound: indexed without verify')
  t.notOk(res.headers.warning)
  // EPSG:4326 grid, zoom 4: tiles of 11.25 degrees; x=21 y=7 (XYZ) covers 56.25..67.5 E, its metatile 45..90 E.
  const tile = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/ws:mix/EPSG:4326/4/21/7.png` })
  t.equal(tile.statusCode, 422)
  t.equal(tile.headers['content-type'], 'text/plain; charset=utf-8')
  t.match(tile.body, /^Granule bad\.(tif|png) of layer ws:mix cannot be decoded \(.+\)$/)
  const named = /^Granule (\S+)/.exec(tile.body)![1]
  t.notMatch(tile.body, /\/tmp|\bat \w+ \(|Error:/, 'no path or stack')
  const again = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/ws:mix/EPSG:4326/4/21/7.png` })
  t.equal(again.statusCode, 422, 'not cached as a tile')
  const west = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/ws:mix/EPSG:4326/4/16/7.png` })
  t.equal(west.statusCode, 200, 'tiles away from the damaged granules render')
  const health = await app.inject({ method: 'GET', url: `${BASE}/health` })
  t.equal(health.statusCode, 200)
  const list = JSON.parse((await app.inject({ method: 'GET', url: `${R}/mix/coverages/mix/index/granules.json`, headers: ADMIN })).body)
  const byName = Object.fromEntries(list.features.map((f: any) => [f.properties.location, f.properties]))
  t.match(byName[named].damage, /.+/, 'the granule named says why it cannot be decoded')
  t.notOk('damage' in byName['good.tif'], 'the good one has no such state')
  const xml = await app.inject({ method: 'GET', url: `${R}/mix/coverages/mix/index/granules.xml`, headers: ADMIN })
  t.match(xml.body, /<gf:damage>[^<]+<\/gf:damage>/)
})

t.test('a seed records the metatiles a damaged granule spoils and renders the rest', async (t) => {
  const { app } = await setup(t)
  const res = await app.inject({
    method: 'POST', url: `${SEED}/ws:mix.json`, headers: { ...ADMIN, 'content-type': 'application/json' },
    payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'seed', zoomStart: 0, zoomStop: 6, threadCount: 1 } })
  })
  t.equal(res.statusCode, 200)
  await app.tileCache.breeder.idle()
  const { task } = JSON.parse((await app.inject({ method: 'GET', url: `${SEED}/tasks/1.json`, headers: ADMIN })).body)
  t.equal(task.state, 'done', 'the task goes on to the end')
  t.ok(task.failedMetatiles > 0, `${task.failedMetatiles} metatiles could not be rendered`)
  t.match(task.failure, /^Granule bad\.(tif|png) of layer ws:mix cannot be decoded/)
  // z6: 2.8125-degree tiles in metatiles of 4 columns (11.25 degrees), over the layer's 0-90 E.
  // Columns 64-83 (0-56.25 E: the good granule, then empty tiles) are written; the metatiles of
  // columns 84-95 each read bad.tif (60-70 E) or bad.png (80-90 E) and are skipped.
  const z6 = path.join(app.config.dataDir, 'tiles/ws/mix/EPSG_4326/png/default/6')
  const columns = fs.readdirSync(z6).map(Number).sort((a, b) => a - b)
  t.same(columns, Array.from({ length: 20 }, (_, i) => 64 + i), 'z6 columns of metatiles without a damaged granule')
})

t.test('verify=true decodes every granule first: the damaged one is skipped with the reason', async (t) => {
  const { app, res } = await setup(t, '?verify=true')
  t.equal(res.statusCode, 200)
  t.match(String(res.headers.warning), /bad\.tif: damaged: its data cannot be decoded/)
  const list = JSON.parse((await app.inject({ method: 'GET', url: `${R}/mix/coverages/mix/index/granules.json`, headers: ADMIN })).body)
  t.same(list.features.map((f: any) => f.properties.location), ['good.tif'])
  const tile = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/ws:mix/EPSG:4326/4/16/7.png` })
  t.equal(tile.statusCode, 200, 'the layer renders what it holds')

  const bad = await app.inject({ method: 'PUT', url: `${R}/other/file.imagemosaic?verify=maybe`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await makeZip({ 'good.tif': GOOD }) })
  t.equal(bad.statusCode, 400)
  t.equal(bad.body, 'Invalid verify="maybe": expected true or false')
})

t.test('verify=true on a harvest skips a damaged file with the reason', async (t) => {
  const root = tempDir(t, 'mw-harvest')
  const app = await build(t, { harvestRoots: [root] })
  await app.workspaces.create({ name: 'ws' })
  const up = await app.inject({ method: 'PUT', url: `${R}/h/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await makeZip({ 'good.tif': GOOD }) })
  t.equal(up.statusCode, 200)
  fs.writeFileSync(path.join(root, 'bad.tif'), await damaged())
  const res = await app.inject({ method: 'POST', url: `${R}/h/external.imagemosaic?verify=true`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: path.join(root, 'bad.tif') })
  t.equal(res.statusCode, 400, 'every granule of the harvest was skipped: 400 naming why')
  t.match(res.body, /^No granule could be indexed: bad\.tif: damaged: its data cannot be decoded/)
  const list = JSON.parse((await app.inject({ method: 'GET', url: `${R}/h/coverages/h/index/granules.json`, headers: ADMIN })).body)
  t.same(list.features.map((f: any) => f.properties.location), ['good.tif'])
})
