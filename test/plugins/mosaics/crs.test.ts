// Heterogeneous mosaics: granules in several CRSs in one mosaic keep their native CRS (the crs
// attribute of the index), are indexed by their footprint in the mosaic's CRS, and are reprojected
// by the renderer. Pixels are compared with gdalwarp (Debian's gdal-bin, scripts/install-gdal.sh)
// of the same granules into the same tile.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { fromFile } from 'geotiff'
import sharp from 'sharp'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { makeTiff, makeZip } from '../../fixtures/mosaics/make.js'

const R = `${BASE}/rest/workspaces/ws/coveragestores`
const HALF = 20037508.342789244

// West: EPSG:4326, 4-9 E, 43-47 N, value 100. East: UTM 32N (central meridian 9 E), from the
// meridian eastwards over the same latitudes, value 200. They meet along 9 E, so a misplaced
// granule shows as a shifted seam.
const WEST = makeTiff({ width: 100, height: 80, bbox: [4, 43, 9, 47], value: () => 100 })
const EAST = makeTiff({ width: 100, height: 225, bbox: [500000, 4760000, 700000, 5210000], crs: 32632, value: () => 200 })

async function setup (t: any) {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const res = await app.inject({
    method: 'PUT',
    url: `${R}/mixed/file.imagemosaic`,
    headers: { ...ADMIN, 'content-type': 'application/zip' },
    payload: await makeZip({ 'west.tif': WEST, 'east_utm.tif': EAST })
  })
  t.equal(res.statusCode, 200, 'upload')
  t.notOk(res.headers.warning, 'no granule skipped')
  return app
}

/** XYZ tile bbox in EPSG:3857 metres. */
function tileBbox (z: number, x: number, y: number): [number, number, number, number] {
  const size = 2 * HALF / 2 ** z
  return [-HALF + x * size, HALF - (y + 1) * size, -HALF + (x + 1) * size, HALF - y * size]
}

/** 0 = no data, 1 = west granule, 2 = east granule, per pixel of a rendered RGBA tile. */
function classesOfTile (rgba: Buffer): Uint8Array {
  const out = new Uint8Array(rgba.length / 4)
  for (let i = 0; i < out.length; i++) out[i] = rgba[i * 4 + 3] === 0 ? 0 : rgba[i * 4] < 128 ? 1 : 2
  return out
}

async function gdalClasses (t: any, bbox: [number, number, number, number], size: number): Promise<Uint8Array> {
  const dir = tempDir(t, 'mw-gdal')
  fs.writeFileSync(path.join(dir, 'west.tif'), WEST)
  fs.writeFileSync(path.join(dir, 'east.tif'), EAST)
  const out = path.join(dir, 'out.tif')
  execFileSync('gdalwarp', ['-q', '-t_srs', 'EPSG:3857', '-te', ...bbox.map(String), '-ts', String(size), String(size),
    '-r', 'near', '-dstnodata', '0', '-of', 'GTiff', path.join(dir, 'west.tif'), path.join(dir, 'east.tif'), out])
  const tiff = await fromFile(out)
  const [band] = await (await tiff.getImage()).readRasters({ interleave: false }) as unknown as ArrayLike<number>[]
  await tiff.close()
  return Uint8Array.from(band, (v) => v === 0 ? 0 : v === 100 ? 1 : 2)
}

t.test('a ZIP with an EPSG:4326 and an EPSG:32632 granule indexes both, each with its native CRS', async (t) => {
  const app = await setup(t)
  const list = await app.inject({ method: 'GET', url: `${R}/mixed/coverages/mixed/index/granules.json`, headers: ADMIN })
  t.equal(list.statusCode, 200)
  const features = JSON.parse(list.body).features as Array<{ properties: Record<string, unknown>, geometry: { coordinates: number[][][] } }>
  t.same(features.map((f) => [f.properties.location, f.properties.crs]), [['east_utm.tif', 'EPSG:32632'], ['west.tif', 'EPSG:4326']])
  // The first granule in file order (east_utm.tif) fixes the mosaic's CRS, as in GeoTools; the
  // EPSG:4326 granule's footprint is indexed in UTM metres: its east edge is the central meridian.
  const west = features[1].geometry.coordinates[0].map((c) => c[0])
  t.ok(Math.abs(Math.max(...west) - 500000) < 1 && Math.min(...west) > 50000 && Math.min(...west) < 200000, `west footprint in metres: ${west}`)
  const schema = await app.inject({ method: 'GET', url: `${R}/mixed/coverages/mixed/index.json`, headers: ADMIN })
  t.match(schema.body, /"name":"crs"/, 'the index schema lists the crs attribute')
  // The crs attribute can be filtered on, like any other.
  const utm = await app.inject({ method: 'GET', url: `${R}/mixed/coverages/mixed/index/granules.json?filter=${encodeURIComponent("crs = 'EPSG:32632'")}`, headers: ADMIN })
  t.same(JSON.parse(utm.body).features.map((f: any) => f.properties.location), ['east_utm.tif'])
  const coverage = JSON.parse((await app.inject({ method: 'GET', url: `${R}/mixed/coverages/mixed.json`, headers: ADMIN })).body).coverage
  t.ok(coverage.latLonBoundingBox.minx <= 4.0001 && coverage.latLonBoundingBox.maxx > 11, 'the coverage extent spans both granules')
})

t.test('a tile of the mixed mosaic puts each granule where gdalwarp puts it', async (t) => {
  const app = await setup(t)
  for (const [z, x, y] of [[5, 16, 11], [7, 67, 46]] as Array<[number, number, number]>) {
    const res = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/ws:mixed/EPSG:900913/${z}/${x}/${y}.png` })
    t.equal(res.statusCode, 200, `tile ${z}/${x}/${y}`)
    const { data, info } = await sharp(res.rawPayload).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
    t.equal(info.width, 256)
    const ours = classesOfTile(data)
    const gdal = await gdalClasses(t, tileBbox(z, x, y), 256)
    let differ = 0
    const counts = [0, 0, 0]
    for (let i = 0; i < ours.length; i++) { if (ours[i] !== gdal[i]) differ++; counts[gdal[i]]++ }
    t.ok(counts[1] > 500 && counts[2] > 500, `the tile ${z}/${x}/${y} shows both granules (${counts})`)
    // Tolerance: nearest-neighbour sampling of the same pixel centres; only pixels whose centre lies
    // within a fraction of a source pixel of a granule edge may fall the other way (< 1 %).
    t.ok(differ / ours.length < 0.01, `${z}/${x}/${y}: ${differ} of ${ours.length} pixels differ from gdalwarp`)
  }
})

t.test('harvesting a UTM granule into an EPSG:4326 mosaic adds the crs attribute to every granule', async (t) => {
  const root = tempDir(t, 'mw-harvest')
  const app = await build(t, { harvestRoots: [root] })
  await app.workspaces.create({ name: 'ws' })
  const first = await app.inject({
    method: 'PUT',
    url: `${R}/grow/file.imagemosaic`,
    headers: { ...ADMIN, 'content-type': 'application/zip' },
    payload: await makeZip({ 'west.tif': WEST })
  })
  t.equal(first.statusCode, 200)
  let list = JSON.parse((await app.inject({ method: 'GET', url: `${R}/grow/coverages/grow/index/granules.json`, headers: ADMIN })).body)
  t.notOk('crs' in list.features[0].properties, 'a one-CRS mosaic has no crs attribute, as in GeoServer')
  fs.writeFileSync(path.join(root, 'east_utm.tif'), EAST)
  const res = await app.inject({ method: 'POST', url: `${R}/grow/external.imagemosaic`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: `file://${path.join(root, 'east_utm.tif')}` })
  t.equal(res.statusCode, 201, res.body)
  list = JSON.parse((await app.inject({ method: 'GET', url: `${R}/grow/coverages/grow/index/granules.json`, headers: ADMIN })).body)
  t.same(list.features.map((f: any) => [f.properties.location, f.properties.crs]), [['west.tif', 'EPSG:4326'], [path.join(fs.realpathSync(root), 'east_utm.tif'), 'EPSG:32632']])
})
