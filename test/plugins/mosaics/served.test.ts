// Rasters as users have them, seeded and served: a mixed-CRS mosaic and a world-file mosaic seeded
// and read back through WMTS (the tiles on disk are the ones served), and wider-than-byte bands
// stretched over their statistics, not clipped.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { build, ADMIN, BASE } from '../../helper.js'
import { makeTiff, makeZip } from '../../fixtures/mosaics/make.js'

const R = `${BASE}/rest/workspaces/ws/coveragestores`
const SEED = `${BASE}/tilecache/rest/seed`

async function upload (app: any, store: string, entries: Record<string, Buffer | string>) {
  const res = await app.inject({ method: 'PUT', url: `${R}/${store}/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await makeZip(entries) })
  if (res.statusCode !== 200 || res.headers.warning) throw new Error(`${store}: ${res.statusCode} ${res.headers.warning ?? res.body}`)
}

async function seedAndServe (t: any, app: any, layer: string, gridSet: string, zoomStop: number) {
  const res = await app.inject({
    method: 'POST', url: `${SEED}/${layer}.json`, headers: { ...ADMIN, 'content-type': 'application/json' },
    payload: JSON.stringify({ seedRequest: { gridSetId: gridSet, format: 'image/png', type: 'seed', zoomStart: 0, zoomStop, threadCount: 2 } })
  })
  t.equal(res.statusCode, 200)
  await app.tileCache.breeder.idle()
  const [ws, name] = layer.split(':')
  const dir = path.join(app.config.dataDir, 'tiles', ws, name, gridSet.replace(':', '_'), 'png', 'default', String(zoomStop))
  const files = fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.png'))
  t.ok(files.length > 0, `${files.length} tiles seeded at z${zoomStop}`)
  let opaque = 0
  for (const f of files) {
    const [x, y] = [Number(path.dirname(f)), Number(path.basename(f, '.png'))]
    // The blob store counts rows from the bottom (GWC); WMTS from the top. Both grid sets have 2^z rows.
    const rows = 2 ** zoomStop
    const tile = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=${layer}&STYLE=&TILEMATRIXSET=${gridSet}&TILEMATRIX=${gridSet}:${zoomStop}&TILEROW=${rows - 1 - y}&TILECOL=${x}&FORMAT=image/png` })
    t.equal(tile.statusCode, 200, `WMTS ${zoomStop}/${x}/${rows - 1 - y}`)
    t.ok(tile.rawPayload.equals(fs.readFileSync(path.join(dir, f))), 'served from the seeded file')
    const rgba = await sharp(tile.rawPayload).ensureAlpha().raw().toBuffer()
    if (rgba.every((v, i) => i % 4 !== 3 || v === 255)) opaque++
  }
  return opaque
}

t.test('a mosaic of EPSG:4326 and EPSG:32632 granules is seeded in EPSG:900913 and served through WMTS', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  await upload(app, 'mixed', {
    'west.tif': makeTiff({ width: 100, height: 80, bbox: [4, 43, 9, 47], value: () => 100 }),
    'east_utm.tif': makeTiff({ width: 100, height: 225, bbox: [500000, 4760000, 700000, 5210000], crs: 32632, value: () => 200 })
  })
  const opaque = await seedAndServe(t, app, 'ws:mixed', 'EPSG:900913', 7)
  t.ok(opaque > 0, 'tiles inside both granules are opaque')
})

t.test('a world-file mosaic is seeded in EPSG:4326 and served through WMTS', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3366cc' } }).png().toBuffer()
  await upload(app, 'world', { 'a.png': png, 'a.pgw': '0.125\n0\n0\n-0.125\n0.0625\n7.9375\n' })
  await seedAndServe(t, app, 'ws:world', 'EPSG:4326', 5)
})

t.test('unstyled 16-bit and float bands are stretched over their statistics, not clipped at 255', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  for (const [store, type, value] of [
    ['u16', 'uint16', (x: number) => 1000 + x * 100], // 1000 .. 7300
    ['f32', 'float32', (x: number) => -2.5 + x * 0.125] // -2.5 .. 5.375
  ] as Array<[string, 'uint16' | 'float32', (x: number) => number]>) {
    await upload(app, store, { [`${store}.tif`]: makeTiff({ width: 64, height: 64, bbox: [0, 0, 90, 90], type, value: (x) => value(x) }) })
    // EPSG:4326 z0 tile x=1 covers 0..180 E: the granule fills its upper-left quarter.
    const tile = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/ws:${store}/EPSG:4326/0/1/0.png` })
    t.equal(tile.statusCode, 200)
    const { data, info } = await sharp(tile.rawPayload).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
    const grey = (px: number) => data[px * info.channels]
    t.equal(grey(0), 0, `${store}: the smallest value is black`)
    t.equal(grey(127), 255, `${store}: the largest value is white`)
    t.ok(grey(64) > 100 && grey(64) < 155, `${store}: the middle is mid-grey (${grey(64)})`)
  }
})
