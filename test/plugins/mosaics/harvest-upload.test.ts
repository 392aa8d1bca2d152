// Harvest by upload (issue "real clients, round two", 6): POST .../file.imagemosaic with a ZIP of
// granules adds them to an existing mosaic in one step (201, as external.imagemosaic); a granule of
// a name the store holds already, or a bad one, is skipped with the reason; an archive with no good
// granule is 400 and nothing of it stays behind.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE } from '../../helper.js'
import { makeTiff, makeZip, INDEXER, TIMEREGEX, ELEVATIONREGEX } from '../../fixtures/mosaics/make.js'

const R = `${BASE}/rest/workspaces/ws/coveragestores`
const tiff = (x: number) => makeTiff({ width: 8, height: 8, bbox: [x, 0, x + 1, 1], value: () => 7 })
const locations = async (app: any) => JSON.parse((await app.inject({ method: 'GET', url: `${R}/temp/coverages/temp/index/granules.json`, headers: ADMIN })).body).features.map((f: any) => [f.properties.location, f.properties.elevation])

t.test('POST file.imagemosaic with a ZIP of granules harvests them into the mosaic', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const up = await app.inject({
    method: 'PUT', url: `${R}/temp/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' },
    payload: await makeZip({ 'indexer.properties': INDEXER, 'timeregex.properties': TIMEREGEX, 'elevationregex.properties': ELEVATIONREGEX, 'temp_20240101T000000_0.tif': tiff(0) })
  })
  t.equal(up.statusCode, 200)
  const post = (zip: Buffer) => app.inject({ method: 'POST', url: `${R}/temp/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  let res = await post(await makeZip({ 'temp_20240102T000000_100.tif': tiff(1), 'temp_20240103T000000_200.tif': tiff(2), 'broken_20240104T000000_0.tif': 'not a tiff' }))
  t.equal(res.statusCode, 201)
  t.equal(res.body, '')
  t.match(String(res.headers.warning), /broken_20240104T000000_0\.tif: not a readable GeoTIFF/)
  t.same(await locations(app), [['temp_20240101T000000_0.tif', 0], ['temp_20240102T000000_100.tif', 100], ['temp_20240103T000000_200.tif', 200]], 'indexed with the mosaic\'s collectors')
  const dir = path.join(app.config.dataDir, 'data', 'ws', 'temp')
  t.ok(fs.existsSync(path.join(dir, 'temp_20240103T000000_200.tif')), 'the files are in the store')
  t.notOk(fs.existsSync(path.join(dir, 'broken_20240104T000000_0.tif')), 'a skipped file is not kept')
  const coverage = JSON.parse((await app.inject({ method: 'GET', url: `${R}/temp/coverages/temp.json`, headers: ADMIN })).body).coverage
  t.equal(coverage.latLonBoundingBox.maxx, 3, 'the coverage extent grew')

  // Same names again: skipped; nothing good at all: 400 and nothing moved.
  const before = fs.readdirSync(dir).sort()
  res = await post(await makeZip({ 'temp_20240102T000000_100.tif': tiff(5) }))
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'No granule could be indexed: temp_20240102T000000_100.tif: the store holds a granule of that name already')
  res = await post(await makeZip({ 'readme.txt': 'no granules here' }))
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'No granule could be indexed: the archive holds no granule')
  t.same(fs.readdirSync(dir).sort(), before, 'the store folder is as before')
  t.same(fs.readdirSync(path.join(app.config.dataDir, 'tmp')).filter((f) => !['uploads', 'tiles'].includes(f)), [], 'no staging left')
  // Still not PUT semantics: unknown stores are 404.
  res = await app.inject({ method: 'POST', url: `${R}/nosuch/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await makeZip({ 'a.tif': tiff(0) }) })
  t.equal(res.statusCode, 404)
})
