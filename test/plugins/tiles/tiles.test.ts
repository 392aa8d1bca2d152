// Tiles rendered for real from an image mosaic, through the worker pool, stored and served.
import { createRenderQueue } from '../../../services/render/render-queue.js'
import { createRenderer } from '../../../services/render/renderer.js'
import t from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { build, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import { GRID_SETS, rectBounds, type Rect } from '../../../services/tilecache/grid-sets.js'
import { renderMosaic } from '../../../services/render/raster/render-mosaic.js'
import { metatileRenderer } from '../../../services/tilecache/metatile-renderer.js'
import { createRenderPool } from '../../../services/render/render-pool.js'

const SERVICE = `${BASE}/tilecache/service`
const g4326 = GRID_SETS['EPSG:4326']

async function world (app: Awaited<ReturnType<typeof build>>) {
  return createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, [-20, -10, 20, 30], pattern) })
}

/** What the renderer draws for one tile of a metatile (row 0 of the image = top tile row). */
async function expectedTile (app: Awaited<ReturnType<typeof build>>, layer: string, z: number, meta: Rect, x: number, y: number): Promise<Buffer> {
  const cols = meta[2] - meta[0] + 1
  const rows = meta[3] - meta[1] + 1
  const job = await app.mosaics.prepareRender({ layer, crs: 'EPSG:4326', bbox: rectBounds(g4326, z, meta), width: cols * 256, height: rows * 256 })
  const img = await renderMosaic(job)
  return sharp(Buffer.from(img.rgba), { raw: { width: cols * 256, height: rows * 256, channels: 4 } })
    .extract({ left: (x - meta[0]) * 256, top: (meta[3] - y) * 256, width: 256, height: 256 }).raw().toBuffer()
}
const pixels = (png: Buffer) => sharp(png).ensureAlpha().raw().toBuffer()

t.test('a cache miss renders the metatile on the pool, stores it, and serves the renderer\'s pixels; then ETag and 304', async (t) => {
  const app = await build(t)
  const layer = await world(app)
  // z2 in EPSG:4326: 45 degree tiles; the layer covers x 3..4, y 1..2 (rows from the bottom).
  const url = `${SERVICE}/xyz/${layer}/EPSG:4326/2/4/1.png` // XYZ row 1 from the top = grid row 2
  let res = await app.inject({ method: 'GET', url })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'image/png')
  t.equal(res.headers['geowebcache-cache-result'], 'MISS')
  t.equal(res.headers['cache-control'], 'public, max-age=60')
  const etag = res.headers.etag as string
  t.match(etag, /^"[0-9a-f]+-[0-9a-f]+"$/)
  t.same(await pixels(res.rawPayload), await expectedTile(app, layer, 2, [4, 1, 4, 2], 4, 2))
  const dir = path.join(app.config.dataDir, 'tiles/topp/world/EPSG_4326/png/default/2/4')
  t.same(fs.readdirSync(dir).sort(), ['1.png', '2.png'], 'the whole metatile (clipped to the coverage) was stored')

  res = await app.inject({ method: 'GET', url })
  t.equal(res.headers['geowebcache-cache-result'], 'HIT')
  t.equal(res.headers.etag, etag)
  res = await app.inject({ method: 'GET', url, headers: { 'if-none-match': etag } })
  t.equal(res.statusCode, 304)
  t.equal(res.body, '')

  res = await app.inject({ method: 'GET', url: `${SERVICE}/xyz/${layer}/EPSG:4326/2/0/0.png` })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Tile XYZ 2/0/0 is outside the coverage of layer topp:world in grid set EPSG:4326', 'in the request\'s own coordinates')
  res = await app.inject({ method: 'GET', url: `${SERVICE}/xyz/topp:nosuch/EPSG:4326/2/0/0.png` })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Unknown layer topp:nosuch')
})

t.test('WMTS KVP, WMTS RESTful, TMS and XYZ address the same tile; JPEG is encoded too', async (t) => {
  const app = await build(t)
  const layer = await world(app)
  const urls = [
    `${SERVICE}/xyz/${layer}/EPSG:4326/3/8/2.png`,
    `${SERVICE}/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=${layer}&STYLE=&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:3&TILEROW=2&TILECOL=8&FORMAT=image/png`,
    `${SERVICE}/wmts/rest/${layer}/raster/EPSG:4326/EPSG:4326:3/2/8?format=image/png`,
    `${BASE}/gwc/service/tms/1.0.0/${encodeURIComponent(`${layer}@EPSG:4326@png`)}/3/8/5.png`
  ]
  const bodies = []
  for (const url of urls) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, url)
    bodies.push(res.rawPayload)
  }
  for (const b of bodies) t.same(b, bodies[0])
  const jpeg = await app.inject({ method: 'GET', url: `${SERVICE}/xyz/${layer}/EPSG:4326/3/8/2.jpeg` })
  t.equal(jpeg.headers['content-type'], 'image/jpeg', jpeg.body.slice(0, 200))
  t.equal((await sharp(jpeg.rawPayload).metadata()).format, 'jpeg')
  const bad = await app.inject({ method: 'GET', url: `${SERVICE}/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=${layer}&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:3&TILEROW=x&TILECOL=8` })
  t.equal(bad.statusCode, 400)
  t.equal(bad.body, 'TILEROW must be a non-negative integer, got "x"')
})

t.test('parameter sets: a CQL_FILTER that selects no granule is its own (empty) tile set', async (t) => {
  const app = await build(t)
  const layer = await world(app)
  const res = await app.inject({ method: 'GET', url: `${SERVICE}/xyz/${layer}/EPSG:4326/2/4/1.png?CQL_FILTER=${encodeURIComponent("location = 'nothing.tif'")}` })
  t.equal(res.statusCode, 200)
  const px = await pixels(res.rawPayload)
  t.ok(px.every((v, i) => i % 4 !== 3 || v === 0), 'transparent')
  const sets = await app.tileCache.store.tileSets(layer)
  t.equal(sets.length, 1)
  t.match(sets[0].parameterId, /^[0-9a-f]{40}$/)
  const styled = await app.inject({ method: 'GET', url: `${SERVICE}/xyz/${layer}/EPSG:4326/2/4/1.png?STYLES=nosuch` })
  t.equal(styled.statusCode, 400)
  t.match(styled.body, /^Invalid tile request: parameter STYLES=nosuch: not a style of layer topp:world/)
})

t.test('render threads and the other background threads yield to the event loop (MAPWARDEN_RENDER_NICE)', { skip: process.platform !== 'linux' && 'thread priorities are set on Linux only' }, async (t) => {
  const before = os.getPriority(process.pid)
  const app = await build(t, { renderNice: 12 })
  const layer = await world(app)
  const res = await app.inject({ method: 'GET', url: `${SERVICE}/xyz/${layer}/EPSG:4326/2/4/1.png` }) // a render worker exists now
  t.equal(res.statusCode, 200)
  const others = fs.readdirSync('/proc/self/task').map(Number).filter((tid) => tid !== process.pid)
  t.ok(others.length >= 2, 'the process has background threads')
  t.same(others.filter((tid) => os.getPriority(tid) < 12), [], 'every thread but the event loop\'s runs at nice 12 or lower priority')
  t.equal(os.getPriority(process.pid), before, 'the event loop\'s thread keeps its priority')
})

t.test('a mosaic replaced between planning a metatile and rendering it: planned again once, tiles of the new granules; gone twice: an error saying the granules changed (kind unavailable: 503)', async (t) => {
  const app = await build(t)
  const red = (_x: number, _y: number, b: number) => b === 0 ? 200 : 0
  const blue = (_x: number, _y: number, b: number) => b === 2 ? 200 : 0
  const layerName = await createMosaic(app, 'topp', 'world', { 'a.tif': rgbTiff(40, 40, [-20, -10, 20, 30], red) })
  const layer = await app.tileCache.seedLayer(layerName)
  // A pool that lets the mosaic be replaced (new granule names, old files gone) after the job was
  // planned and before a worker opens its files: the race of a PUT during a seed, made certain.
  const pool = createRenderPool({ threads: 1 })
  t.teardown(() => pool.close())
  let replacements = 0
  let names = 0
  const replacing = (times: number) => async (payload: unknown, opts: { name: string }) => {
    if (replacements < times) {
      replacements++
      await createMosaic(app, 'topp', 'world', { [`g${++names}.tif`]: rgbTiff(40, 40, [-20, -10, 20, 30], blue) })
    }
    return pool.run(payload, opts)
  }
  const renderer = (run: ReturnType<typeof replacing>) => metatileRenderer({
    renderer: createRenderer({
      run,
      queue: createRenderQueue({ slots: 1, interactive: 1 }),
      plan: (r) => app.mosaics.prepareRender(r),
      markDamaged: (path, reason) => app.mosaics.markDamaged(path, reason)
    }),
    rasterStyleFor: (ws, style) => app.styles.rasterStyleFor(ws, style),
    vectorStyleFor: (ws, style) => app.styles.vectorStyleFor(ws, style),
    jpegQuality: app.config.jpegQuality
  })
  const set = { layer: layerName, gridSet: 'EPSG:4326', format: 'image/png' as const, parameterId: 'default' }
  const rect: Rect = [4, 1, 4, 2]
  const req = { layer, gridSet: g4326, z: 2, rect, format: 'image/png' as const, parameters: {}, target: app.tileCache.store.metatileTarget(set, 2, rect) }

  const out = await renderer(replacing(1))(req)
  t.equal(replacements, 1)
  t.equal(out.error, undefined)
  t.equal(out.writes.length, 2, 'both tiles of the metatile written')
  const [r, g, b] = await sharp(fs.readFileSync(req.target.paths[1])).raw().toBuffer() // a pixel inside the coverage
  t.same([r, g, b], [0, 0, 200], 'drawn from the replacing granule')

  replacements = 0
  await t.rejects(renderer(replacing(2))(req), { code: 'MW_TILES_GRANULES_CHANGED', message: 'The granules of layer topp:world changed while a tile was being rendered; try again' })
  t.equal(replacements, 2, 'planned twice, then given up')
})
