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
import { isNorthingFirst, pointTransform } from '../../../services/render/crs.js'
import { pixels, wmsUrl } from './helpers.js'

// Europe, lon -12..32, lat 34..62 at 0.05 degrees: a checkerboard of 1-degree cells holding 60 and
// 200, so a misplaced pixel shows as a shifted cell edge.
const BOX = [-12, 34, 32, 62]
const EUROPE = makeTiff({ width: 880, height: 560, bbox: BOX as [number, number, number, number], value: (x, y) => (Math.floor(x / 20) + Math.floor(y / 20)) % 2 === 0 ? 60 : 200 })
const SIZE = 128
// The cases EPSG orders northing first (axis 1 points north in the registry); gdalwarp's -te is
// always easting first.
const NORTHING_FIRST = new Set([3035, 31467])

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
      // WMS 1.3.0 takes EPSG's axis order: EPSG:3035 and the Gauss-Krüger zone EPSG:31467 are
      // northing first, the others easting first (GeoServer, from the EPSG database).
      const sent = version === '1.3.0' && NORTHING_FIRST.has(code) ? [bbox[1], bbox[0], bbox[3], bbox[2]] : bbox
      const res = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: version, LAYERS: layer, STYLES: '', FORMAT: 'image/png', TRANSPARENT: 'TRUE', [key]: `EPSG:${code}`, BBOX: sent.join(','), WIDTH: SIZE, HEIGHT: SIZE }) })
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

t.test('WMS 1.3.0 BBOX and BoundingBox follow EPSG: northing first for EPSG:3035 and 31467, easting first for 27700 and 2056', async (t) => {
  const app = await build(t)
  // A layer whose data is in EPSG:3035, so its capabilities carry a BoundingBox in it.
  const [x, y] = pointTransform('EPSG:4326', 'EPSG:3035')(10, 52)
  const laea = makeTiff({ width: 200, height: 100, bbox: [x - 100000, y - 50000, x + 100000, y + 50000], crs: 3035, value: (c) => c < 100 ? 60 : 200 })
  const layer = await createMosaic(app, 'eu', 'laea', { 'laea.tif': laea })
  const map = (version: string, key: string, code: string, bbox: number[]) => app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: version, LAYERS: layer, STYLES: '', FORMAT: 'image/png', TRANSPARENT: 'TRUE', [key]: code, BBOX: bbox.join(','), WIDTH: 64, HEIGHT: 32 }) })
  const box = [x - 80000, y - 40000, x + 80000, y + 40000]
  const v11 = await map('1.1.1', 'SRS', 'EPSG:3035', box)
  const v13 = await map('1.3.0', 'CRS', 'EPSG:3035', [box[1], box[0], box[3], box[2]])
  t.equal(v11.statusCode, 200)
  t.equal(v13.headers['content-type'], 'image/png', v13.body)
  const a = (await pixels(v11.rawPayload)).data
  t.same((await pixels(v13.rawPayload)).data, a, '1.3.0 northing,easting = 1.1.1 easting,northing')
  t.equal(a[0], 60, 'west half'); t.equal(a[(63) * 4], 200, 'east half')
  // The same numbers easting first in 1.3.0 name another box: (y, x) read as northing, easting lies
  // far outside the data, so the map is empty.
  const swapped = await pixels((await map('1.3.0', 'CRS', 'EPSG:3035', box)).rawPayload)
  t.ok(swapped.data.every((v, i) => i % 4 !== 3 || v === 0), '1.3.0 with easting first draws nothing')
  // The urn form is EPSG's order in 1.1.1 too.
  const urn = await map('1.1.1', 'SRS', 'urn:ogc:def:crs:EPSG::3035', [box[1], box[0], box[3], box[2]])
  t.same((await pixels(urn.rawPayload)).data, a, 'urn:ogc:def:crs:EPSG::3035 is northing first')
  // GetFeatureInfo reads BBOX the same way: the pixel at I=10 holds the west half's 60.
  const info = (version: string, key: string, bbox: number[]) => app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetFeatureInfo', VERSION: version, LAYERS: layer, QUERY_LAYERS: layer, STYLES: '', FORMAT: 'image/png', INFO_FORMAT: 'application/json', [key]: 'EPSG:3035', BBOX: bbox.join(','), WIDTH: 64, HEIGHT: 32, ...(version === '1.3.0' ? { I: 10, J: 16 } : { X: 10, Y: 16 }) }) })
  const i11 = await info('1.1.1', 'SRS', box)
  const i13 = await info('1.3.0', 'CRS', [box[1], box[0], box[3], box[2]])
  t.equal(i13.statusCode, 200)
  t.same(JSON.parse(i13.body).features, JSON.parse(i11.body).features, 'GetFeatureInfo 1.3.0 northing first = 1.1.1')
  t.match(JSON.parse(i13.body).features[0].properties, { GRAY_INDEX: 60 })

  const caps = async (version: string) => (await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: version }) })).body
  const bboxOf = (doc: string, tag: string, code: string) => {
    const start = doc.indexOf('<Name>eu:laea</Name>')
    const m = new RegExp(`<BoundingBox ${tag}="${code}" minx="([^"]+)" miny="([^"]+)" maxx="([^"]+)" maxy="([^"]+)"/>`).exec(doc.slice(start))
    return m ? m.slice(1).map(Number) : []
  }
  const c11 = bboxOf(await caps('1.1.1'), 'SRS', 'EPSG:3035')
  const c13 = bboxOf(await caps('1.3.0'), 'CRS', 'EPSG:3035')
  t.equal(c11.length, 4, 'a 1.1.1 BoundingBox in EPSG:3035')
  // The box went through the layer's lon/lat bounds and back: within a few km of the granule's.
  t.ok(Math.abs(c11[0] - (x - 100000)) < 5000 && Math.abs(c11[1] - (y - 50000)) < 5000, `1.1.1 easting first: ${c11}`)
  t.same(c13, [c11[1], c11[0], c11[3], c11[2]], `1.3.0 northing first: ${c13}`)
  const g13 = bboxOf(await caps('1.3.0'), 'CRS', 'EPSG:4326')
  const g11 = bboxOf(await caps('1.1.1'), 'SRS', 'EPSG:4326')
  t.same(g13, [g11[1], g11[0], g11[3], g11[2]], 'EPSG:4326 latitude first in 1.3.0')
})

t.test('EPSG axis order from the registry: which codes are northing first', async (t) => {
  for (const c of ['EPSG:3035', 'EPSG:31466', 'EPSG:31467', 'EPSG:31468', 'EPSG:31469', 'EPSG:2180', 'EPSG:3006', 'EPSG:4326', 'EPSG:4258', 'urn:ogc:def:crs:EPSG::4326']) t.ok(isNorthingFirst(c), c)
  for (const c of ['EPSG:27700', 'EPSG:2056', 'EPSG:2154', 'EPSG:28992', 'EPSG:25832', 'EPSG:3857', 'EPSG:900913', 'EPSG:32632', 'EPSG:5514', 'CRS:84', 'EPSG:7035']) t.notOk(isNorthingFirst(c), c)
})
