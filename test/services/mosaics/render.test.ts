import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, tempDir } from '../../helper.js'
import { makeTiff, makeZip, INDEXER, TIMEREGEX, ELEVATIONREGEX } from '../../fixtures/mosaics/make.js'
import { renderMosaic, closeRenderCache } from '../../../services/render/raster/render-mosaic.js'
import { latToY, lonToX } from '../../../services/render/crs.js'
import { appRows } from '../../fixtures/catalog-rows.js'

t.teardown(closeRenderCache)

async function upload (t: any, app: any, files: Record<string, string | Buffer>, configure: 'none' | 'all' = 'all') {
  const dir = tempDir(t, 'mwzip')
  const zip = path.join(dir, 'm.zip')
  fs.writeFileSync(zip, await makeZip(files))
  return await app.mosaics.upload('ws', 'temp', zip, { configure })
}

// Row-coded granules: the value of a pixel is its row (plus an offset), so a rendered grey level
// tells which source row was sampled.
const rows = (offset: number) => (_x: number, y: number) => y + offset

t.test('a configured mosaic is a RASTER layer with lon/lat bounds and coverage config', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  await upload(t, app, {
    'indexer.properties': INDEXER,
    'timeregex.properties': TIMEREGEX,
    'elevationregex.properties': ELEVATIONREGEX,
    'temp_20081101T000000_0.tif': makeTiff({ width: 100, height: 100, bbox: [0, 40, 10, 50], value: rows(0) }),
    'temp_20081102T000000_0.tif': makeTiff({ width: 100, height: 100, bbox: [0, 40, 10, 50], value: rows(100) }),
    'temp_20081102T000000_100.tif': makeTiff({ width: 100, height: 100, bbox: [0, 40, 10, 50], value: rows(50) })
  })
  const layer = await app.layers.get('ws', 'temp')
  t.ok(layer)
  t.equal(layer!.type, 'RASTER')
  t.equal(layer!.srs, 'EPSG:4326')
  t.same(layer!.bbox, [0, 40, 10, 50])
  t.same(layer!.config, {
    dimensions: { time: true, elevation: true },
    bands: 1,
    dataType: 'Byte',
    nativeBbox: [0, 40, 10, 50],
    ranges: [{ min: 0, max: 255 }],
    nativeFormat: 'ImageMosaic',
    enabled: true
  })
  const [store] = await appRows(app, "SELECT kind, type FROM stores WHERE workspace = 'ws' AND name = 'temp'")
  t.same(store, { kind: 'coverage', type: 'ImageMosaic' })

  // Default: latest time, lowest elevation -> the granule with offset 100.
  let job = await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 40, 10, 50], width: 10, height: 10 })
  t.equal(job.granules.length, 1)
  t.match(job.granules[0].path, /temp_20081102T000000_0\.tif$/)
  t.same(JSON.parse(JSON.stringify(job)), job, 'the job is plain data')
  let img = await renderMosaic(job)
  t.equal(img.rgba.length, 10 * 10 * 4)
  // Target row 0 samples source row 5 (centre of the first tenth): value 105.
  t.same([...img.rgba.slice(0, 4)], [105, 105, 105, 255])

  job = await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 40, 10, 50], width: 10, height: 10, time: '2008-11-02T00:00:00Z', elevation: '100' })
  t.match(job.granules[0].path, /_100\.tif$/)
  img = await renderMosaic(job)
  t.equal(img.rgba[0], 55)

  job = await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 40, 10, 50], width: 10, height: 10, time: '2008-11-01T00:00:00Z' })
  t.match(job.granules[0].path, /20081101T000000_0\.tif$/)

  job = await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 40, 10, 50], width: 10, height: 10, time: '2008-11-01T00:00:00Z/2008-11-02T00:00:00Z', elevation: '0', cqlFilter: "location LIKE '%1101%'" })
  t.equal(job.granules.length, 1)
  t.match(job.granules[0].path, /20081101T000000_0\.tif$/)

  await t.rejects(app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 40, 10, 50], width: 10, height: 10, cqlFilter: 'nosuch = 1' }),
    { message: /^Invalid cql syntax: unknown attribute "nosuch"/ })
  await t.rejects(app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 40, 10, 50], width: 10, height: 10, cqlFilter: 'location = ' }),
    { message: /^Invalid cql syntax: / })

  // Outside the granules: no granule, all transparent.
  job = await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [20, 40, 30, 50], width: 4, height: 4 })
  t.equal(job.granules.length, 0)
  img = await renderMosaic(job)
  t.ok(img.rgba.every((v) => v === 0))
})

t.test('a 4326 granule renders into an EPSG:900913 bbox at the right rows', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  // 200 rows over lat 40..60: row r covers lat 60 - r*0.1 .. 60 - (r+1)*0.1; value = row.
  await upload(t, app, {
    'g.tif': makeTiff({ width: 100, height: 200, bbox: [0, 40, 10, 60], value: rows(0) })
  })
  const bbox: [number, number, number, number] = [lonToX(0), latToY(40), lonToX(10), latToY(60)]
  const job = await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:900913', bbox, width: 64, height: 256 })
  t.equal(job.granules.length, 1)
  const img = await renderMosaic(job)
  const grey = (x: number, y: number) => img.rgba[(y * 64 + x) * 4]
  for (const y of [0, 10, 100, 128, 200, 255]) {
    // Independent expectation: the mercator y of the pixel centre, back to latitude.
    const my = bbox[3] - (y + 0.5) * (bbox[3] - bbox[1]) / 256
    const lat = (2 * Math.atan(Math.exp(my / 6378137)) - Math.PI / 2) * 180 / Math.PI
    t.equal(grey(5, y), Math.floor((60 - lat) / 0.1), `row ${y}`)
  }
  // A 3857 bbox partly outside: pixels left of lon 0 are transparent.
  const job2 = await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:3857', bbox: [lonToX(-10), latToY(40), lonToX(10), latToY(60)], width: 20, height: 20 })
  const img2 = await renderMosaic(job2)
  t.equal(img2.rgba[3], 0, 'left half transparent')
  t.equal(img2.rgba[(10 * 20 + 15) * 4 + 3], 255, 'right half opaque')
})

t.test('nodata is transparent and later granules draw over earlier ones', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  await upload(t, app, {
    'a.tif': makeTiff({ width: 10, height: 10, bbox: [0, 0, 10, 10], type: 'uint16', value: () => 1000, nodata: 0 }),
    'b.tif': makeTiff({ width: 10, height: 10, bbox: [5, 0, 15, 10], type: 'uint16', value: (x) => (x < 5 ? 0 : 3000), nodata: 0 })
  })
  const layer = await app.layers.get('ws', 'temp')
  t.same(layer!.config.ranges, [{ min: 1000, max: 3000 }])
  const job = await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 0, 15, 10], width: 15, height: 10 })
  t.equal(job.granules.length, 2)
  const img = await renderMosaic(job)
  const px = (x: number) => [...img.rgba.slice(x * 4, x * 4 + 4)]
  t.same(px(2), [0, 0, 0, 255], 'a only: 1000 is the bottom of the range')
  t.same(px(7), [0, 0, 0, 255], "b's nodata lets a show through")
  t.same(px(12), [255, 255, 255, 255], 'b over nothing: 3000 is the top')
})

t.test('RGB granules render as colour; a 3857 granule renders into a 4326 bbox', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const b = [lonToX(0), latToY(0), lonToX(10), latToY(10)] as [number, number, number, number]
  await upload(t, app, {
    'rgb.tif': makeTiff({ width: 50, height: 50, bbox: b, crs: 3857, bands: 3, value: (_x, _y, band) => [200, 100, 50][band] })
  })
  const layer = await app.layers.get('ws', 'temp')
  t.equal(layer!.srs, 'EPSG:3857')
  t.ok(Math.abs(layer!.bbox![3] - 10) < 1e-9)
  const job = await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 0, 10, 10], width: 8, height: 8 })
  const img = await renderMosaic(job)
  t.same([...img.rgba.slice(0, 4)], [200, 100, 50, 255])
})

t.test('a large granule without overviews is decimated once in memory for coarse renders', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  // 2048x2048, value = column % 251 (a prime, so neighbouring decimated columns differ).
  await upload(t, app, { 'big.tif': makeTiff({ width: 2048, height: 2048, bbox: [0, 0, 20.48, 20.48], value: (x: number) => x % 251 }) })
  const job = await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 0, 20.48, 20.48], width: 60, height: 60 })
  const coarse = await renderMosaic(job)
  // 34.1 source pixels per target pixel: the level decimated by 4 holds source columns 0, 4, 8...,
  // so target column i (centre at source column v = (i + 0.5) * 2048 / 60) shows column
  // floor(v / 4) * 4, where exact sampling would show floor(v).
  for (const i of [0, 1, 17, 59]) {
    const v = (i + 0.5) * 2048 / 60
    t.equal(coarse.rgba[(5 * 60 + i) * 4], (Math.floor(v / 4) * 4) % 251, `column ${i}`)
  }
  t.not(Math.floor(1.5 * 2048 / 60 / 4) * 4, Math.floor(1.5 * 2048 / 60), 'column 1 tells the two samplings apart')
  // Fine renders still sample the granule exactly.
  const fine = await renderMosaic(await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 0, 0.64, 0.64], width: 64, height: 64 }))
  for (const i of [0, 5, 63]) t.equal(fine.rgba[(5 * 64 + i) * 4], i % 251, `fine column ${i}`)
})
