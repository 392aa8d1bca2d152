// Cached tiles follow their style and their data (issue 16, item 8): a style edit, rename or
// delete, or a change of a layer's styles, drops exactly the tile sets drawn with that style; a
// harvest or granule delete drops the tiles over the changed footprints, in every grid set and
// level, and nothing else. Drops are accounted by the disk quota; ETags change.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import type { FastifyInstance } from 'fastify'
import { build, tempDir, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff, zipOf } from '../../fixtures/seed/mosaic.js'
import { parameterId } from '../../../services/tilecache/parameters.js'
import { appRows, appRun } from '../../fixtures/catalog-rows.js'
import { FORMATS, formatsOf } from '../../../services/tilecache/formats.js'

const sld = (name: string, channel: number, opacity = 1) => `<?xml version="1.0" encoding="UTF-8"?>
<sld:StyledLayerDescriptor version="1.0.0" xmlns:sld="http://www.opengis.net/sld">
  <sld:NamedLayer><sld:Name>${name}</sld:Name><sld:UserStyle><sld:Name>${name}</sld:Name>
    <sld:FeatureTypeStyle><sld:Rule><sld:RasterSymbolizer>
      <sld:Opacity>${opacity}</sld:Opacity>
      <sld:ChannelSelection><sld:GrayChannel><sld:SourceChannelName>${channel}</sld:SourceChannelName></sld:GrayChannel></sld:ChannelSelection>
    </sld:RasterSymbolizer></sld:Rule></sld:FeatureTypeStyle>
  </sld:UserStyle></sld:NamedLayer>
</sld:StyledLayerDescriptor>`
const SLD = { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }
const JSON_BODY = { ...ADMIN, 'content-type': 'application/json' }

async function tile (app: FastifyInstance, layer: string, zxy: string, style?: string, gridSet = 'EPSG:4326', ext = 'png') {
  const res = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/${layer}/${gridSet}/${zxy}.${ext}${style ? `?STYLES=${style}` : ''}` })
  if (res.statusCode !== 200) throw new Error(`${zxy}: ${res.statusCode} ${res.body}`)
  return { result: res.headers['geowebcache-cache-result'], etag: res.headers.etag, pixels: await sharp(res.rawPayload).ensureAlpha().raw().toBuffer() }
}

/** Tiles on disk per tile set ('<grid set>/<STYLES or default>'), after the pending drops, checked
 *  against what the disk quota accounts for the layer. */
async function sets (t: Test, app: FastifyInstance, layer: string, styles: string[] = []): Promise<Record<string, number>> {
  await app.tileCache.invalidation.idle()
  await app.diskQuota.flush()
  const [ws, name] = layer.split(':')
  const names = new Map(styles.map((s) => [parameterId({ STYLES: s }), s]))
  const out: Record<string, number> = {}
  let total = 0
  const dir = path.join(app.config.dataDir, 'tiles', ws, name)
  for (const grid of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    for (const set of fs.readdirSync(path.join(dir, grid, 'png'))) {
      const n = fs.readdirSync(path.join(dir, grid, 'png', set), { recursive: true }).filter((f) => String(f).endsWith('.png')).length
      if (n > 0) out[`${grid.replace('_', ':')}/${names.get(set) ?? set}`] = n
      total += n
    }
  }
  const usage = JSON.parse((await app.inject({ method: 'GET', url: `${BASE}/tilecache/rest/diskquota/usage.json`, headers: ADMIN })).body)
  const accounted = usage.diskQuotaUsage.layers?.layer?.find((l: any) => l.name === layer)?.tiles ?? 0
  t.equal(accounted, total, `${layer}: the disk quota accounts for the tiles on disk`)
  return out
}

t.test('a style edit drops the tile sets drawn with it, in every layer that uses it, and only those', async (t) => {
  const app = await build(t)
  const a = await createMosaic(app, 'topo', 'a', { 'a.tif': rgbTiff(80, 80, [-20, -10, 20, 30], pattern) })
  const b = await createMosaic(app, 'topo', 'b', { 'b.tif': rgbTiff(80, 80, [-20, -10, 20, 30], pattern) })
  for (const [name, body] of [['red', sld('red', 1)], ['green', sld('green', 2)]]) {
    t.equal((await app.inject({ method: 'POST', url: `${BASE}/rest/styles?name=${name}`, headers: SLD, payload: body })).statusCode, 201)
  }
  // a: default red, alternative green; b: default green.
  let res = await app.inject({ method: 'PUT', url: `${BASE}/rest/layers/${a}`, headers: JSON_BODY, payload: { layer: { defaultStyle: { name: 'red' }, styles: { style: [{ name: 'green' }] } } } })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/layers/${b}`, headers: JSON_BODY, payload: { layer: { defaultStyle: { name: 'green' } } } })
  t.equal(res.statusCode, 200, res.body)

  const aRed = await tile(app, a, '2/4/1')
  const aGreen = await tile(app, a, '2/4/1', 'green')
  const bGreen = await tile(app, b, '2/4/1')
  t.equal((await tile(app, a, '2/4/1')).result, 'HIT')
  const aBefore = await sets(t, app, a, ['green'])
  t.same(Object.keys(aBefore).sort(), ['EPSG:4326/default', 'EPSG:4326/green'])

  // The SLD of green changes: a's green set and b's default set go; a's red set stays.
  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/styles/green`, headers: SLD, payload: sld('green', 3, 0.5) })
  t.equal(res.statusCode, 200)
  t.same(await sets(t, app, a, ['green']), { 'EPSG:4326/default': aBefore['EPSG:4326/default'] }, "a's green tiles dropped, its red ones kept")
  t.same(await sets(t, app, b), {}, "b's tiles (its default is green) dropped")
  const aGreenAfter = await tile(app, a, '2/4/1', 'green')
  t.equal(aGreenAfter.result, 'MISS', 'a tile of the changed style is drawn again')
  t.not(aGreenAfter.etag, aGreen.etag, 'with a new ETag')
  t.notSame(aGreenAfter.pixels, aGreen.pixels, 'in the new style')
  const bAfter = await tile(app, b, '2/4/1')
  t.equal(bAfter.result, 'MISS', 'another layer whose default is the style too')
  t.same(bAfter.pixels, aGreenAfter.pixels, 'the same style draws the same pixels')
  t.not(bAfter.etag, bGreen.etag)
  const aRedAfter = await tile(app, a, '2/4/1')
  t.equal(aRedAfter.result, 'HIT', 'the tile set of another style is kept')
  t.equal(aRedAfter.etag, aRed.etag)

  // A style renamed: the sets that named it by its old name go.
  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/styles/green`, headers: JSON_BODY, payload: { style: { name: 'verde' } } })
  t.equal(res.statusCode, 200, res.body)
  t.same(await sets(t, app, a, ['green']), { 'EPSG:4326/default': aBefore['EPSG:4326/default'] }, 'the green set of a dropped, the red one kept')
  t.same(await sets(t, app, b), {})
  t.equal((await tile(app, a, '2/4/1', 'verde')).result, 'MISS')

  // A style deleted with recurse: the sets drawn with it go.
  await tile(app, b, '2/4/1')
  res = await app.inject({ method: 'DELETE', url: `${BASE}/rest/styles/verde?recurse=true&purge=true`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.same(await sets(t, app, b), {})
  t.same(await sets(t, app, a, ['verde']), { 'EPSG:4326/default': aBefore['EPSG:4326/default'] })
  t.equal((await tile(app, a, '2/4/1')).result, 'HIT', 'red tiles still cached')
})

t.test('a style edit drops the tiles of every format the layer offers (issue 31, 4)', async (t) => {
  // image/vnd.jpeg-png tiles stayed: the blob store read tile file names as <y>.<word>, and
  // 'jpeg-png' is not one word, so the drop skipped them and lifted its mark; the next GET was a
  // HIT with the old ETag. The formats come from the one formats table (a mosaic's: formatsOf): a new one is tested too.
  const MOSAIC_FORMATS = formatsOf({ type: 'RASTER' })
  const app = await build(t)
  const layer = await createMosaic(app, 'topo', 'f', { 'f.tif': rgbTiff(80, 80, [-20, -10, 20, 30], pattern) })
  t.equal((await app.inject({ method: 'POST', url: `${BASE}/rest/styles?name=tint`, headers: SLD, payload: sld('tint', 1) })).statusCode, 201)
  t.equal((await app.inject({ method: 'PUT', url: `${BASE}/rest/layers/${layer}`, headers: JSON_BODY, payload: { layer: { defaultStyle: { name: 'tint' } } } })).statusCode, 200)
  const before = new Map<string, Awaited<ReturnType<typeof tile>>>()
  for (const format of MOSAIC_FORMATS) {
    const ext = FORMATS[format].ext
    const first = await tile(app, layer, '2/4/1', undefined, 'EPSG:4326', ext)
    t.equal(first.result, 'MISS', `${format}: first GET renders`)
    const again = await tile(app, layer, '2/4/1', undefined, 'EPSG:4326', ext)
    t.equal(again.result, 'HIT', `${format}: second GET from the cache`)
    t.equal(again.etag, first.etag)
    before.set(format, again)
  }
  const onDisk = (format: string) => {
    const dir = path.join(app.config.dataDir, 'tiles', 'topo', 'f', 'EPSG_4326', FORMATS[format as keyof typeof FORMATS].ext)
    return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.' + FORMATS[format as keyof typeof FORMATS].ext)).length : 0
  }
  for (const format of MOSAIC_FORMATS) t.ok(onDisk(format) > 0, `${format}: its metatile's tiles on disk`)

  const res = await app.inject({ method: 'PUT', url: `${BASE}/rest/styles/tint`, headers: SLD, payload: sld('tint', 3, 0.5) })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.invalidation.idle() // the drop is over and its mark lifted: only the files decide now
  for (const format of MOSAIC_FORMATS) t.equal(onDisk(format), 0, `${format}: the tile of the old style is deleted`)
  for (const format of MOSAIC_FORMATS) {
    const after = await tile(app, layer, '2/4/1', undefined, 'EPSG:4326', FORMATS[format].ext)
    t.equal(after.result, 'MISS', `${format}: drawn again after the style changed`)
    t.not(after.etag, before.get(format)!.etag, `${format}: a new ETag`)
    t.notSame(after.pixels, before.get(format)!.pixels, `${format}: the new style's pixels`)
  }
  await app.diskQuota.flush()
  const usage = JSON.parse((await app.inject({ method: 'GET', url: `${BASE}/tilecache/rest/diskquota/usage.json`, headers: ADMIN })).body)
  const now = MOSAIC_FORMATS.reduce((n, format) => n + onDisk(format), 0)
  t.equal(usage.diskQuotaUsage.layers?.layer?.find((l: any) => l.name === layer)?.tiles, now, 'the disk quota counts the tiles on disk, the new ones only')
})

t.test('a layer\'s default style changed: its default tile set goes, the other styles\' sets stay', async (t) => {
  const app = await build(t)
  const a = await createMosaic(app, 'topo', 'a', { 'a.tif': rgbTiff(80, 80, [-20, -10, 20, 30], pattern) })
  for (const [name, body] of [['red', sld('red', 1)], ['green', sld('green', 2)], ['blue', sld('blue', 3)]]) {
    t.equal((await app.inject({ method: 'POST', url: `${BASE}/rest/styles?name=${name}`, headers: SLD, payload: body })).statusCode, 201)
  }
  let res = await app.inject({ method: 'PUT', url: `${BASE}/rest/layers/${a}`, headers: JSON_BODY, payload: { layer: { defaultStyle: { name: 'red' }, styles: { style: [{ name: 'green' }, { name: 'blue' }] } } } })
  t.equal(res.statusCode, 200)
  const before = await tile(app, a, '2/4/1')
  const green = await tile(app, a, '2/4/1', 'green')
  await tile(app, a, '2/4/1', 'blue')
  await tile(app, a, '2/2/1', 'blue', 'EPSG:900913')
  const all = await sets(t, app, a, ['green', 'blue'])
  t.same(Object.keys(all).sort(), ['EPSG:4326/blue', 'EPSG:4326/default', 'EPSG:4326/green', 'EPSG:900913/blue'])

  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/layers/${a}`, headers: JSON_BODY, payload: { layer: { defaultStyle: { name: 'blue' }, styles: { style: [{ name: 'green' }] } } } })
  t.equal(res.statusCode, 200)
  t.same(await sets(t, app, a, ['green', 'blue']), { 'EPSG:4326/green': all['EPSG:4326/green'] },
    'the default set and the blue sets (blue is the default now) went; green stays')
  const now = await tile(app, a, '2/4/1')
  t.equal(now.result, 'MISS')
  t.notSame(now.pixels, before.pixels, 'drawn with the new default')
  const greenNow = await tile(app, a, '2/4/1', 'green')
  t.equal(greenNow.result, 'HIT')
  t.equal(greenNow.etag, green.etag)
})

t.test('a harvest or a granule delete drops the tiles over the changed footprints only, in every grid set', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topo', 'm', { 'west.tif': rgbTiff(64, 64, [-40, 0, -20, 20], pattern) })
  const get = async (gs: string, zxy: string) => tile(app, layer, zxy, undefined, gs)
  const w4326 = await get('EPSG:4326', '4/13/7')
  const w900913 = await get('EPSG:900913', '4/6/7')
  const coarse = await get('EPSG:900913', '0/0/0')
  const before = await sets(t, app, layer)

  // An east granule, far from the west one: only the z0 tile (over both) goes.
  let res = await app.inject({
    method: 'POST', url: `${BASE}/rest/workspaces/topo/coveragestores/m/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' },
    payload: await zipOf({ 'east.tif': rgbTiff(64, 64, [20, 0, 40, 20], () => 200) })
  })
  t.equal(res.statusCode, 201, res.body)
  t.same(await sets(t, app, layer), { ...before, 'EPSG:900913/default': before['EPSG:900913/default'] - 1 }, 'one tile fewer: the z0 tile')
  t.equal((await get('EPSG:4326', '4/13/7')).etag, w4326.etag, 'a west tile stays cached')
  t.equal((await get('EPSG:900913', '4/6/7')).etag, w900913.etag)
  const coarseAfter = await get('EPSG:900913', '0/0/0')
  t.equal(coarseAfter.result, 'MISS')
  t.notSame(coarseAfter.pixels, coarse.pixels, 'the coarse tile shows the new granule')

  // Tiles over the east granule, then its delete: they go with the z0 tile, the west ones stay.
  await get('EPSG:4326', '4/18/7')
  await get('EPSG:900913', '4/8/7')
  const withEast = await sets(t, app, layer)
  res = await app.inject({ method: 'DELETE', url: `${BASE}/rest/workspaces/topo/coveragestores/m/coverages/m/index/granules?filter=${encodeURIComponent("location = 'east.tif'")}`, headers: ADMIN })
  t.equal(res.statusCode, 200, res.body)
  const after = await sets(t, app, layer)
  t.ok(after['EPSG:4326/default'] < withEast['EPSG:4326/default'], 'east tiles of EPSG:4326 went')
  t.ok(after['EPSG:900913/default'] < withEast['EPSG:900913/default'], 'east tiles of EPSG:900913 went')
  const file = (grid: string, zxy: string) => fs.existsSync(path.join(app.config.dataDir, 'tiles/topo/m', grid, 'png/default', `${zxy}.png`))
  t.notOk(file('EPSG_4326', '4/18/8'), 'the east tile of EPSG:4326 (XYZ 4/18/7) is gone')
  t.notOk(file('EPSG_900913', '4/8/8'), 'the east tile of EPSG:900913 (XYZ 4/8/7) is gone')
  t.notOk(file('EPSG_900913', '0/0/0'), 'the tile over both granules is gone')
  t.ok(file('EPSG_4326', '4/13/8') && file('EPSG_900913', '4/6/8'), 'the west tiles stay')
  t.equal((await get('EPSG:4326', '4/13/7')).result, 'HIT')
  t.equal((await get('EPSG:900913', '4/6/7')).etag, w900913.etag)
})

t.test('marks of a drop a stop cut short stay in force at the next start and the drop finishes', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir, keepOpen: true })
  const layer = await createMosaic(first, 'topo', 'a', { 'a.tif': rgbTiff(80, 80, [-20, -10, 20, 30], pattern) })
  const cached = await tile(first, layer, '2/4/1')
  await first.close()
  // What a kill -9 between the mark's commit and the end of its drop leaves: the mark, the old tile.
  await appRun(first, 'INSERT INTO tile_drops (layer, parameter_id, area, before_ms, reason) VALUES ($1, NULL, NULL, $2, $3)', [layer, Date.now() + 1, 'test'])
  const app = await build(t, { dataDir })
  const again = await tile(app, layer, '2/4/1')
  t.equal(again.result, 'MISS', 'the stale tile is not served')
  t.not(again.etag, cached.etag)
  await app.tileCache.invalidation.idle()
  t.equal((await appRows(app, 'SELECT count(*) AS n FROM tile_drops'))[0].n, 0, 'the drop finished and its mark went')
})
