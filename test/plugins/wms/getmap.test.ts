// WMS GetMap through HTTP on real mosaics: the pixels of a map are those of the tile of the same
// area; 1.3.0's latitude-first EPSG:4326 against 1.1.1 and CRS:84; strips leave no seam; formats,
// transparency and background; layers drawn in order; named styles and SLD_BODY; TIME, ELEVATION
// and CQL_FILTER; UTM and other proj4 CRSs; the size cap.
import t from 'tap'
import sharp from 'sharp'
import { build, ADMIN, BASE } from '../../helper.js'
import { GRID_SETS, closestRectangle, rectBounds, tilesHigh } from '../../../services/tilecache/grid-sets.js'
import { lonToX, latToY } from '../../../services/render/crs.js'
import { at, pixels, timeMosaic, wmsUrl, worldMosaic } from './helpers.js'

const MAP = { SERVICE: 'WMS', REQUEST: 'GetMap', STYLES: '', FORMAT: 'image/png' }

t.test('a GetMap in EPSG:3857 has the pixels of the tile of the same area', async (t) => {
  const app = await build(t)
  const layer = await worldMosaic(app)
  const gs = GRID_SETS['EPSG:900913']
  const z = 5
  const p = [lonToX(5), latToY(15)]
  const [x, y] = closestRectangle(gs, z, [p[0], p[1], p[0], p[1]])
  const bbox = rectBounds(gs, z, [x, y, x, y])
  const tile = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/${layer}/EPSG:900913/${z}/${x}/${tilesHigh(gs, z) - 1 - y}.png` })
  t.equal(tile.statusCode, 200)
  for (const crs of ['EPSG:3857', 'EPSG:900913']) {
    const res = await app.inject({ method: 'GET', url: wmsUrl({ ...MAP, VERSION: '1.3.0', LAYERS: layer, CRS: crs, BBOX: bbox.join(','), WIDTH: 256, HEIGHT: 256 }) })
    t.equal(res.statusCode, 200, res.body)
    t.equal(res.headers['content-type'], 'image/png')
    t.notOk(res.headers['geowebcache-cache-result'], 'not a tiled request: rendered')
    const [a, b] = [await pixels(res.rawPayload), await pixels(tile.rawPayload)]
    t.same(a.data, b.data, `${crs}: same pixels as the tile`)
  }
})

t.test('EPSG:4326 is latitude first in 1.3.0, longitude first in 1.1.1 and CRS:84', async (t) => {
  const app = await build(t)
  const layer = await worldMosaic(app)
  const get = (q: Record<string, string | number>) => app.inject({ method: 'GET', url: wmsUrl({ ...MAP, LAYERS: layer, WIDTH: 200, HEIGHT: 100, TRANSPARENT: 'TRUE', ...q }) })
  const v13 = await get({ VERSION: '1.3.0', CRS: 'EPSG:4326', BBOX: '-10,-30,30,50' })
  const v11 = await get({ VERSION: '1.1.1', SRS: 'EPSG:4326', BBOX: '-30,-10,50,30' })
  const crs84 = await get({ VERSION: '1.3.0', CRS: 'CRS:84', BBOX: '-30,-10,50,30' })
  const urn = await get({ VERSION: '1.1.1', SRS: 'urn:ogc:def:crs:EPSG::4326', BBOX: '-10,-30,30,50' })
  for (const r of [v13, v11, crs84, urn]) t.equal(r.statusCode, 200, r.body)
  const p = await pixels(v13.rawPayload)
  t.same((await pixels(v11.rawPayload)).data, p.data, '1.1.1 lon/lat = 1.3.0 lat/lon')
  t.same((await pixels(crs84.rawPayload)).data, p.data, 'CRS:84 is lon/lat')
  t.same((await pixels(urn.rawPayload)).data, p.data, 'the URN is lat/lon in any version')
  // lon -30..50 over 200 px: the data (lon -20..20) spans columns 25..125; lat -10..30 is the whole height.
  t.equal(at(p, 10, 50)[3], 0, 'west of the data: transparent')
  t.equal(at(p, 60, 50)[3], 255, 'on the data: opaque')
  t.equal(at(p, 150, 50)[3], 0, 'east of the data: transparent')
  const swapped = await get({ VERSION: '1.3.0', CRS: 'EPSG:4326', BBOX: '-30,-10,50,30' })
  t.notOk((await pixels(swapped.rawPayload)).data.equals(p.data), 'lon/lat sent to 1.3.0 is another area')
})

t.test('a map taller than one strip has no seam: its rows equal a map of those rows alone', async (t) => {
  const app = await build(t)
  const layer = await worldMosaic(app)
  // 2048 columns: strips of 512 rows (STRIP_PIXELS = 1 Mi); rows 508..515 straddle the first seam.
  const big = await app.inject({ method: 'GET', url: wmsUrl({ ...MAP, VERSION: '1.1.1', LAYERS: layer, SRS: 'EPSG:4326', BBOX: '-20,-10,20,30', WIDTH: 2048, HEIGHT: 1024 }) })
  t.equal(big.statusCode, 200, big.body)
  const dy = 40 / 1024
  const small = await app.inject({ method: 'GET', url: wmsUrl({ ...MAP, VERSION: '1.1.1', LAYERS: layer, SRS: 'EPSG:4326', BBOX: `-20,${30 - 516 * dy},20,${30 - 508 * dy}`, WIDTH: 2048, HEIGHT: 8 }) })
  t.equal(small.statusCode, 200)
  const rows = await sharp(big.rawPayload).extract({ left: 0, top: 508, width: 2048, height: 8 }).ensureAlpha().raw().toBuffer()
  t.same(rows, (await pixels(small.rawPayload)).data)
})

t.test('formats, TRANSPARENT and BGCOLOR', async (t) => {
  const app = await build(t)
  const layer = await worldMosaic(app)
  const get = (q: Record<string, string | number>) => app.inject({ method: 'GET', url: wmsUrl({ ...MAP, VERSION: '1.1.1', LAYERS: layer, SRS: 'EPSG:4326', BBOX: '-40,-10,20,30', WIDTH: 60, HEIGHT: 40, ...q }) })
  for (const [format, type, sharpFormat] of [['image/png', 'image/png', 'png'], ['image/png8', 'image/png', 'png'], ['image/png; mode=8bit', 'image/png', 'png'], ['image/jpeg', 'image/jpeg', 'jpeg'], ['image/webp', 'image/webp', 'webp']]) {
    const res = await get({ FORMAT: format })
    t.equal(res.statusCode, 200, format)
    t.equal(res.headers['content-type'], type)
    const meta = await sharp(res.rawPayload).metadata()
    t.equal(meta.format, sharpFormat)
    t.same([meta.width, meta.height], [60, 40])
    if (format === 'image/png8') t.equal(meta.isPalette, true, 'png8 is paletted')
  }
  let p = await pixels((await get({})).rawPayload)
  t.same(at(p, 5, 20), [255, 255, 255, 255], 'opaque white outside the data by default (TRANSPARENT=FALSE)')
  p = await pixels((await get({ TRANSPARENT: 'true' })).rawPayload)
  t.equal(at(p, 5, 20)[3], 0, 'TRANSPARENT=TRUE: transparent outside the data')
  p = await pixels((await get({ BGCOLOR: '0x00FF00' })).rawPayload)
  t.same(at(p, 5, 20), [0, 255, 0, 255], 'BGCOLOR')
  const data = at(p, 45, 20)
  t.equal(data[3], 255)
  t.notSame(data.slice(0, 3), [0, 255, 0], 'the data is drawn over the background')
  p = await pixels((await get({ FORMAT: 'image/jpeg', BGCOLOR: '#0000FF' })).rawPayload)
  t.ok(at(p, 5, 20)[2] > 240 && at(p, 5, 20)[0] < 15, 'JPEG flattened on BGCOLOR')
})

const RAMP = `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld">
  <NamedLayer><Name>ws:temp</Name><UserStyle><Name>ramp</Name>
    <FeatureTypeStyle><Rule><RasterSymbolizer><ColorMap>
      <ColorMapEntry color="#0000ff" quantity="0"/><ColorMapEntry color="#ff0000" quantity="40"/>
    </ColorMap></RasterSymbolizer></Rule></FeatureTypeStyle>
  </UserStyle></NamedLayer>
</StyledLayerDescriptor>`

t.test('LAYERS drawn in order; a named style and the same style as SLD_BODY draw the same map', async (t) => {
  const app = await build(t)
  const world = await worldMosaic(app)
  const temp = await timeMosaic(app)
  const get = (q: Record<string, string | number>) => app.inject({ method: 'GET', url: wmsUrl({ ...MAP, VERSION: '1.1.1', SRS: 'EPSG:4326', BBOX: '-5,-5,15,15', WIDTH: 40, HEIGHT: 40, TRANSPARENT: 'true', ...q }) })
  const worldOnly = await pixels((await get({ LAYERS: world })).rawPayload)
  const tempOnly = await pixels((await get({ LAYERS: temp })).rawPayload)
  const worldOnTop = await pixels((await get({ LAYERS: `${temp},${world}`, STYLES: ',' })).rawPayload)
  const tempOnTop = await pixels((await get({ LAYERS: `${world},${temp}` })).rawPayload)
  // The temp mosaic covers lon/lat 0..10: pixels 10..29.
  t.same(at(worldOnTop, 20, 20), at(worldOnly, 20, 20), 'the last layer is on top')
  t.same(at(tempOnTop, 20, 20), at(tempOnly, 20, 20))
  t.same(at(tempOnTop, 5, 5), at(worldOnly, 5, 5), 'outside the top layer the one below shows')
  t.notSame(at(worldOnly, 20, 20), at(tempOnly, 20, 20))

  let res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/ws/styles?name=ramp`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: RAMP })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/layers/${temp}`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { layer: { styles: { style: [{ name: 'ramp' }] } } } })
  t.equal(res.statusCode, 200)
  const named = await get({ LAYERS: temp, STYLES: 'ws:ramp' })
  t.equal(named.statusCode, 200, named.body)
  const local = await get({ LAYERS: temp, STYLES: 'ramp' })
  t.same(local.rawPayload, named.rawPayload, 'a workspace style by its local name')
  const sld = await get({ LAYERS: temp, SLD_BODY: RAMP })
  t.equal(sld.statusCode, 200, sld.body)
  const sldOnly = await get({ SLD_BODY: RAMP })
  t.equal(sldOnly.statusCode, 200, 'SLD_BODY alone names the layers')
  const np = await pixels(named.rawPayload)
  t.same((await pixels(sld.rawPayload)).data, np.data, 'SLD_BODY = the stored style')
  t.same((await pixels(sldOnly.rawPayload)).data, np.data)
  // Default TIME/ELEVATION: 2024-02-01 at 0 holds 30: 3/4 of the ramp from blue to red.
  t.same(at(np, 20, 20), [191, 0, 64, 255])
  t.notOk(np.data.equals(tempOnly.data), 'the style changes the map')
  res = await get({ LAYERS: temp, SLD_BODY: RAMP.replace('0000ff', 'zz') })
  t.equal(res.statusCode, 200)
  t.match(res.body, 'code="InvalidParameterValue"')
  t.match(res.body, 'colour')
  res = await get({ LAYERS: temp, SLD_BODY: `<!--${'x'.repeat(70000)}-->${RAMP}` })
  t.equal(res.statusCode, 200)
  t.match(res.body, 'the limit is 65536')
})

t.test('TIME, ELEVATION and CQL_FILTER select the granules', async (t) => {
  const app = await build(t)
  const temp = await timeMosaic(app)
  const info = async (q: Record<string, string>) => {
    const res = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetFeatureInfo', VERSION: '1.3.0', LAYERS: temp, QUERY_LAYERS: temp, STYLES: '', CRS: 'EPSG:4326', BBOX: '0,0,10,10', WIDTH: 10, HEIGHT: 10, I: 5, J: 5, INFO_FORMAT: 'application/json', ...q }) })
    t.equal(res.statusCode, 200, res.body)
    return JSON.parse(res.body).features.map((f: any) => f.properties.GRAY_INDEX)
  }
  t.same(await info({}), [30], 'defaults: the latest time, the lowest elevation')
  t.same(await info({ TIME: '2024-01-01T00:00:00Z' }), [10])
  t.same(await info({ TIME: '2024-01-01', ELEVATION: '100' }), [20])
  t.same(await info({ TIME: '2024-01-01T00:00:00.000Z/2024-01-31T00:00:00Z', ELEVATION: '100' }), [20], 'a period')
  t.same(await info({ TIME: '2023-01-01' }), [], 'a time without granules: no data')
  t.same(await info({ TIME: '2024-01-01', CQL_FILTER: 'elevation = 100', ELEVATION: '0/100' }), [20], 'CQL_FILTER narrows the dimensions\' choice')
  const map = (q: Record<string, string>) => app.inject({ method: 'GET', url: wmsUrl({ ...MAP, VERSION: '1.3.0', LAYERS: temp, CRS: 'EPSG:4326', BBOX: '0,0,10,10', WIDTH: 10, HEIGHT: 10, ...q }) })
  const a = await map({ TIME: '2024-01-01' })
  const b = await map({ TIME: '2024-02-01' })
  t.equal(a.statusCode, 200)
  t.notOk((await pixels(a.rawPayload)).data.equals((await pixels(b.rawPayload)).data), 'another time, another map')
})

t.test('UTM and other CRSs proj4 knows; WIDTH and HEIGHT capped by MAPWARDEN_WMS_MAX_SIZE', async (t) => {
  const app = await build(t, { wmsMaxSize: 512 })
  const layer = await worldMosaic(app)
  // Zone 31N around 3°E, 5°N..15°N: inside the data.
  const utm = await app.inject({ method: 'GET', url: wmsUrl({ ...MAP, VERSION: '1.3.0', LAYERS: layer, CRS: 'EPSG:32631', BBOX: '400000,600000,600000,1600000', WIDTH: 32, HEIGHT: 64, TRANSPARENT: 'TRUE' }) })
  t.equal(utm.statusCode, 200, utm.body)
  const u = await pixels(utm.rawPayload)
  t.equal(at(u, 16, 32)[3], 255, 'UTM: drawn')
  // EPSG:4269 (NAD83, geographic): latitude first in 1.3.0, like EPSG:4326.
  const nad = await app.inject({ method: 'GET', url: wmsUrl({ ...MAP, VERSION: '1.3.0', LAYERS: layer, CRS: 'EPSG:4269', BBOX: '-10.13,-20.17,29.87,19.83', WIDTH: 40, HEIGHT: 40 }) })
  const wgs = await app.inject({ method: 'GET', url: wmsUrl({ ...MAP, VERSION: '1.3.0', LAYERS: layer, CRS: 'EPSG:4326', BBOX: '-10.13,-20.17,29.87,19.83', WIDTH: 40, HEIGHT: 40 }) })
  t.equal(nad.statusCode, 200, nad.body)
  t.same((await pixels(nad.rawPayload)).data, (await pixels(wgs.rawPayload)).data, 'NAD83 draws as WGS84 (same ellipsoid, no shift)')

  let res = await app.inject({ method: 'GET', url: wmsUrl({ ...MAP, VERSION: '1.3.0', LAYERS: layer, CRS: 'EPSG:4326', BBOX: '-10,-20,30,20', WIDTH: 513, HEIGHT: 10 }) })
  t.equal(res.statusCode, 200)
  t.match(res.body, 'WIDTH 513 is larger than the largest map size of 512 pixels (MAPWARDEN_WMS_MAX_SIZE)')
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...MAP, VERSION: '1.3.0', LAYERS: layer, CRS: 'EPSG:4326', BBOX: '-10,-20,30,20', WIDTH: 512, HEIGHT: 512 }) })
  t.equal(res.statusCode, 200, 'the cap itself is allowed')
})
