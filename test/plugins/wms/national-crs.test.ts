// Every EPSG code of the registry (services/render/epsg.ts) through WMS: GetMap in the national grids
// Europe publishes in puts each pixel where gdalwarp (Debian's gdal-bin, scripts/install-gdal.sh) puts
// it, the capabilities list the registry's codes, and codes that are not horizontal coordinate systems
// stay InvalidCRS / InvalidSRS.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import { fromFile } from 'geotiff'
import { build, tempDir } from '../../helper.js'
import { createMosaic } from '../../fixtures/seed/mosaic.js'
import { makeTiff } from '../../fixtures/mosaics/make.js'
import { pointTransform } from '../../../services/render/crs.js'
import { pixels, wmsUrl } from './helpers.js'

// Europe, lon -12..32, lat 34..62 at 0.05 degrees: a checkerboard of 1-degree cells holding 60 and
// 200, so a misplaced pixel shows as a shifted cell edge.
const BOX = [-12, 34, 32, 62]
const EUROPE = makeTiff({ width: 880, height: 560, bbox: BOX as [number, number, number, number], value: (x, y) => (Math.floor(x / 20) + Math.floor(y / 20)) % 2 === 0 ? 60 : 200 })
const SIZE = 128

// A centre (lon, lat) inside each system's area of use; the map is 200 km a side around it.
const CASES: Array<[number, number, number]> = [
  [3035, 10, 52], [27700, -1.5, 52.5], [2154, 2.5, 47], [2056, 8, 46.8], [28992, 5.3, 52.2], [25832, 9, 51], [31467, 9, 50.5]
]

/** 0 = no data, 1 = the cells holding 60, 2 = those holding 200. */
function classes (rgba: Buffer): Uint8Array {
  const out = new Uint8Array(rgba.length / 4)
  for (let i = 0; i < out.length; i++) out[i] = rgba[i * 4 + 3] === 0 ? 0 : rgba[i * 4] < 128 ? 1 : 2
  return out
}

async function gdal (t: any, code: number, bbox: number[]): Promise<Uint8Array> {
  const dir = tempDir(t, 'mw-gdal-crs')
  fs.writeFileSync(path.join(dir, 'europe.tif'), EUROPE)
  const out = path.join(dir, 'out.tif')
  execFileSync('gdalwarp', ['-q', '-t_srs', `EPSG:${code}`, '-te', ...bbox.map(String), '-ts', String(SIZE), String(SIZE),
    '-r', 'near', '-dstnodata', '0', '-of', 'GTiff', path.join(dir, 'europe.tif'), out])
  const tiff = await fromFile(out)
  const [band] = await (await tiff.getImage()).readRasters({ interleave: false }) as unknown as ArrayLike<number>[]
  await tiff.close()
  return Uint8Array.from(band, (v) => v === 0 ? 0 : v === 60 ? 1 : 2)
}

t.test('GetMap in national grids puts each pixel where gdalwarp puts it', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'eu', 'europe', { 'europe.tif': EUROPE })
  for (const [code, lon, lat] of CASES) {
    const [x, y] = pointTransform('EPSG:4326', `EPSG:${code}`)(lon, lat)
    const bbox = [x - 100000, y - 100000, x + 100000, y + 100000]
    for (const [version, key] of [['1.3.0', 'CRS'], ['1.1.1', 'SRS']]) {
      const res = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: version, LAYERS: layer, STYLES: '', FORMAT: 'image/png', TRANSPARENT: 'TRUE', [key]: `EPSG:${code}`, BBOX: bbox.join(','), WIDTH: SIZE, HEIGHT: SIZE }) })
      t.equal(res.statusCode, 200, `EPSG:${code} ${version}: ${res.statusCode === 200 ? '' : res.body}`)
      t.equal(res.headers['content-type'], 'image/png')
      const ours = classes((await pixels(res.rawPayload)).data)
      const theirs = await gdal(t, code, bbox)
      let differ = 0
      const counts = [0, 0, 0]
      for (let i = 0; i < ours.length; i++) { if (ours[i] !== theirs[i]) differ++; counts[theirs[i]]++ }
      t.ok(counts[1] > 1000 && counts[2] > 1000, `EPSG:${code}: the map crosses cell edges (${counts})`)
      // Nearest-neighbour sampling of the same pixel centres: only pixels whose centre lies within a
      // fraction of a source pixel (or of the datum shift's difference, grid against Helmert, a few
      // metres) of a cell edge may fall the other way.
      t.ok(differ / ours.length < 0.005, `EPSG:${code} ${version}: ${differ} of ${ours.length} pixels differ from gdalwarp`)
    }
  }
})

t.test('WMS 1.3.0 takes the registry axis order of geographic codes: ETRS89 (EPSG:4258) is latitude first', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'eu', 'europe', { 'europe.tif': EUROPE })
  const get = (q: Record<string, string>) => app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetMap', LAYERS: layer, STYLES: '', FORMAT: 'image/png', WIDTH: '64', HEIGHT: '48', ...q }) })
  const v13 = await get({ VERSION: '1.3.0', CRS: 'EPSG:4258', BBOX: '40,0,46,8' })
  const v11 = await get({ VERSION: '1.1.1', SRS: 'EPSG:4258', BBOX: '0,40,8,46' })
  t.equal(v13.statusCode, 200, v13.body)
  t.equal(v11.statusCode, 200, v11.body)
  t.same((await pixels(v13.rawPayload)).data, (await pixels(v11.rawPayload)).data, '1.3.0 lat/lon = 1.1.1 lon/lat')
})

t.test('codes that are no horizontal coordinate system stay InvalidCRS and InvalidSRS', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'eu', 'europe', { 'europe.tif': EUROPE })
  for (const code of ['EPSG:5714', 'EPSG:999999', 'EPSG:4979', 'EPSG:abc']) {
    const v13 = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.3.0', LAYERS: layer, STYLES: '', FORMAT: 'image/png', CRS: code, BBOX: '0,0,1,1', WIDTH: 10, HEIGHT: 10 }) })
    t.equal(v13.statusCode, 200, 'WMS exceptions answer 200')
    t.match(v13.body, /code="InvalidCRS"/, `${code} 1.3.0`)
    const v11 = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.1.1', LAYERS: layer, STYLES: '', FORMAT: 'image/png', SRS: code, BBOX: '0,0,1,1', WIDTH: 10, HEIGHT: 10 }) })
    t.match(v11.body, /code="InvalidSRS"/, `${code} 1.1.1`)
  }
})

t.test('the capabilities root layer lists every code of the registry, once', async (t) => {
  const app = await build(t)
  await createMosaic(app, 'eu', 'europe', { 'europe.tif': EUROPE })
  for (const [version, tag] of [['1.3.0', 'CRS'], ['1.1.1', 'SRS']]) {
    const res = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: version }) })
    t.equal(res.statusCode, 200)
    const root = res.body.slice(res.body.indexOf('<Layer>'), res.body.indexOf('<Layer queryable'))
    const codes = [...root.matchAll(new RegExp(`<${tag}>([^<]+)</${tag}>`, 'g'))].map((m) => m[1])
    for (const c of ['EPSG:3035', 'EPSG:27700', 'EPSG:2154', 'EPSG:2056', 'EPSG:28992', 'EPSG:25832', 'EPSG:31467', 'EPSG:4258', 'EPSG:4326', 'EPSG:900913']) {
      t.ok(codes.includes(c), `${version} lists ${c}`)
    }
    t.notOk(codes.includes('EPSG:5714'), 'no vertical system')
    t.equal(new Set(codes).size, codes.length, 'each code once')
    t.ok(codes.length > 6000, `${codes.length} codes`)
    t.equal(codes[0], version === '1.3.0' ? 'CRS:84' : 'EPSG:4326')
  }
})
