// Tiled WMS from the tile cache: a GetMap with TILED=true that is exactly one tile of a grid set is
// answered from the cache (filling it on a miss) with geowebcache-cache-result, at {base}/wms as
// GeoServer's direct integration does and at {base}/gwc/service/wms (GeoWebCache's WMS, cache only).
import t from 'tap'
import { build, BASE } from '../../helper.js'
import { GRID_SETS, closestRectangle, rectBounds, tilesHigh } from '../../../services/tilecache/grid-sets.js'
import { latToY, lonToX } from '../../../services/render/crs.js'
import TileWMS from 'ol/source/TileWMS.js'
import { get as getProjection } from 'ol/proj.js'
import { pixels, timeMosaic, wmsUrl, worldMosaic } from './helpers.js'

const MAP = { SERVICE: 'WMS', REQUEST: 'GetMap', STYLES: '', FORMAT: 'image/png', WIDTH: 256, HEIGHT: 256 }

t.test('TILED=true on a grid-aligned request: MISS fills the cache, then HIT, the bytes of the cached tile', async (t) => {
  const app = await build(t)
  const layer = await worldMosaic(app)
  const gs = GRID_SETS['EPSG:900913']
  const z = 4
  const p = [lonToX(5), latToY(15)]
  const [x, y] = closestRectangle(gs, z, [p[0], p[1], p[0], p[1]])
  const bbox = rectBounds(gs, z, [x, y, x, y]).join(',')
  const q = { ...MAP, VERSION: '1.1.1', LAYERS: layer, SRS: 'EPSG:900913', BBOX: bbox, TILED: 'true', TRANSPARENT: 'true' }
  let res = await app.inject({ method: 'GET', url: wmsUrl(q) })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.headers['geowebcache-cache-result'], 'MISS')
  const first = res.rawPayload
  res = await app.inject({ method: 'GET', url: wmsUrl(q) })
  t.equal(res.headers['geowebcache-cache-result'], 'HIT')
  t.same(res.rawPayload, first)
  const xyz = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/${layer}/EPSG:900913/${z}/${x}/${tilesHigh(gs, z) - 1 - y}.png` })
  t.equal(xyz.headers['geowebcache-cache-result'], 'HIT', 'the WMS filled the tile cache')
  t.same(xyz.rawPayload, first, 'the same tile')

  // GeoWebCache's own WMS endpoint: cache only, TRANSPARENT is not needed there.
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, TRANSPARENT: '' }, '/gwc/service/wms') })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['geowebcache-cache-result'], 'HIT')
  t.same(res.rawPayload, first)

  // Not a tile: /wms renders it (and says why), /gwc/service/wms refuses it.
  // A third of a tile off the grid (GeoWebCache tolerates a tenth).
  const third = gs.resolutions[z] * gs.tileWidth / 3
  const shifted = rectBounds(gs, z, [x, y, x, y]).map((v, i) => i % 2 === 0 ? v + third : v).join(',')
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, BBOX: shifted }) })
  t.equal(res.statusCode, 200)
  t.notOk(res.headers['geowebcache-cache-result'])
  t.match(res.headers['geowebcache-miss-reason'], 'not aligned')
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, BBOX: shifted }, '/gwc/service/wms') })
  t.equal(res.statusCode, 200)
  t.match(res.body, 'code="InvalidParameterValue"')
  t.match(res.body, 'Not a tile of the cache: BBOX is not aligned')
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, WIDTH: 512, HEIGHT: 512 }, '/gwc/service/wms') })
  t.equal(res.statusCode, 200)
  t.match(res.body, 'WIDTH and HEIGHT must be 256x256')
  // A tile outside the layer's coverage: rendered (empty) at /wms, refused at /gwc/service/wms.
  const far = rectBounds(gs, z, [0, 0, 0, 0]).join(',')
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, BBOX: far }) })
  t.equal(res.statusCode, 200)
  t.notOk(res.headers['geowebcache-cache-result'])
  t.match(res.headers['geowebcache-miss-reason'], 'outside the coverage of layer topp:world')
  t.ok((await pixels(res.rawPayload)).data.every((v, i) => i % 4 !== 3 || v === 0), 'an empty map')
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, BBOX: far }, '/gwc/service/wms') })
  t.equal(res.statusCode, 200)
  t.match(res.body, 'Not a tile of the cache: Tile WMS BBOX')
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, TRANSPARENT: 'false' }) })
  t.notOk(res.headers['geowebcache-cache-result'], 'an opaque PNG is not the cached transparent tile')
  t.match(res.headers['geowebcache-miss-reason'], 'TRANSPARENT=true')
})

t.test('tiled EPSG:4326 in 1.3.0 (latitude first), JPEG, and a TIME of its own tile set', async (t) => {
  const app = await build(t)
  const layer = await worldMosaic(app)
  const temp = await timeMosaic(app)
  const gs = GRID_SETS['EPSG:4326']
  const z = 5
  const [x, y] = closestRectangle(gs, z, [5, 15, 5, 15])
  const [w, s, e, n] = rectBounds(gs, z, [x, y, x, y])
  const q = { ...MAP, VERSION: '1.3.0', LAYERS: layer, CRS: 'EPSG:4326', BBOX: [s, w, n, e].join(','), TILED: 'TRUE', FORMAT: 'image/jpeg' }
  let res = await app.inject({ method: 'GET', url: wmsUrl(q) })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.headers['content-type'], 'image/jpeg')
  t.equal(res.headers['geowebcache-cache-result'], 'MISS')
  const wmts = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=${layer}&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:${z}&TILEROW=${tilesHigh(gs, z) - 1 - y}&TILECOL=${x}&FORMAT=image/jpeg` })
  t.equal(wmts.headers['geowebcache-cache-result'], 'HIT')
  t.same(wmts.rawPayload, res.rawPayload)

  const [tx, ty] = closestRectangle(gs, 6, [5, 5, 5, 5])
  const tb = rectBounds(gs, 6, [tx, ty, tx, ty])
  const tq = { ...MAP, VERSION: '1.1.1', LAYERS: temp, SRS: 'EPSG:4326', BBOX: tb.join(','), TILED: 'true', TRANSPARENT: 'true' }
  const latest = await app.inject({ method: 'GET', url: wmsUrl(tq) })
  t.equal(latest.headers['geowebcache-cache-result'], 'MISS')
  const jan = await app.inject({ method: 'GET', url: wmsUrl({ ...tq, TIME: '2024-01-01T00:00:00.000Z' }) })
  t.equal(jan.headers['geowebcache-cache-result'], 'MISS', 'another TIME, another tile set')
  t.notOk((await pixels(jan.rawPayload)).data.equals((await pixels(latest.rawPayload)).data), 'another time, another map')
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...tq, TIME: '2024-01-01T00:00:00.000Z' }) })
  t.equal(res.headers['geowebcache-cache-result'], 'HIT')
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...tq, LAYERS: `${temp},${layer}` }) })
  t.match(res.headers['geowebcache-miss-reason'], 'exactly one layer')
})

t.test('OpenLayers TileWMS (its own EPSG:3857 grid) hits the tile cache at every zoom', async (t) => {
  const app = await build(t)
  const layer = await worldMosaic(app)
  const source = new TileWMS({ url: `${BASE}/wms`, params: { LAYERS: layer, TILED: true }, projection: 'EPSG:3857' })
  const urlOf = source.getTileUrlFunction()
  const projection = getProjection('EPSG:3857')!
  const grid = source.getTileGridForProjection(projection)
  for (let z = 2; z <= 20; z += 3) {
    const [, x, row] = grid.getTileCoordForCoordAndZ([lonToX(5), latToY(15)], z)
    const url = urlOf([z, x, row], 1, projection)!
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 200, `z${z}`)
    t.equal(res.headers['geowebcache-cache-result'], 'MISS', `z${z}: from the cache (${res.headers['geowebcache-miss-reason'] ?? ''})`)
    const xyz = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/${layer}/EPSG:900913/${z}/${x}/${row}.png` })
    t.equal(xyz.headers['geowebcache-cache-result'], 'HIT', `z${z}: the tile OpenLayers asked for is the XYZ tile ${z}/${x}/${row}`)
    t.same(xyz.rawPayload, res.rawPayload)
  }
})
