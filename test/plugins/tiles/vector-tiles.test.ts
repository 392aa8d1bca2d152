// Vector layers are layers of the tile cache (issue 34): their WMTS/XYZ tiles are metatiles drawn
// through the same render entry as WMS GetMap (a tile equals the GetMap of its area), labels are
// never cut at a metatile edge nor drawn twice, a seed counts exactly the tiles, a style or data
// store change drops them, read rules hide them, and the capabilities list them.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { ADMIN, BASE } from '../../helper.js'
import { pixels, type Pixels } from '../wms/helpers.js'
import { GRID_SETS, gridSubset } from '../../../services/tilecache/grid-sets.js'
import { countTiles, tileRange } from '../../../services/tilecache/tile-range.js'
import { differing, fill, G, getMap, ink, JSON_TYPE, LABEL, REST, sld, SLD_TYPE, styleLayer, tileBox, tilePixels, vectorSetup, xyz } from '../../fixtures/vector-tiles.js'

t.test('a vector layer\'s tiles are its WMS maps of the same area; labels are whole, once, inside a metatile', async (t) => {
  const app = await vectorSetup(t)
  t.equal((await xyz(app, 'vx:shapes', 3, 8, 3)).headers['geowebcache-cache-result'], 'MISS', 'a tile not cached yet is drawn')
  for (const [layer, z, x, y] of [['vx:shapes', 3, 8, 3], ['vx:shapes', 3, 9, 3], ['vx:shapes', 4, 16, 7], ['vx:roads', 3, 8, 3], ['vx:roads', 4, 17, 6]] as const) {
    const first = await xyz(app, layer, z, x, y)
    t.equal(first.statusCode, 200, `${layer} ${z}/${x}/${y} is served`)
    const tile = await pixels(first.rawPayload)
    const map = await getMap(app, layer, tileBox(z, x, y))
    t.ok(ink(tile, 0, 256) > 100, `${layer} ${z}/${x}/${y} draws something`)
    t.equal(differing(map, tile), 0, `${layer} ${z}/${x}/${y}: the tile is the GetMap of its area, pixel for pixel`)
    const again = await xyz(app, layer, z, x, y)
    t.equal(again.headers['geowebcache-cache-result'], 'HIT', 'then served from the cache')
  }

  // Labels: at z4 a metatile is lon 0..45, lat 0..45 (tiles x 16..19, y 4..7 from the top).
  await styleLayer(t, app, 'vx:places', 'names', LABEL)
  const tiles: Pixels[][] = []
  for (let y = 4; y < 8; y++) { const row: Pixels[] = []; for (let x = 16; x < 20; x++) row.push(await tilePixels(app, 'vx:places', 4, x, y)); tiles.push(row) }
  // The whole metatile drawn by the WMS at once: the same picture as its sixteen tiles.
  const whole = await getMap(app, 'vx:places', [0, 0, 45, 45], 1024)
  let off = 0
  for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) off += differing(whole, tiles[r][c], c * 256, r * 256)
  t.equal(off, 0, 'the sixteen tiles are the GetMap of the metatile\'s area')
  // 'Across' at lon 33.75 (the edge of tiles 18 and 19, one metatile): whole, half in each tile.
  t.ok(ink(tiles[1][2], 226, 256) > 10 && ink(tiles[1][3], 0, 30) > 10, 'a label across a tile edge inside the metatile is drawn whole')
  t.ok(ink(tiles[2][2], 100, 180) > 10, 'the label inside one tile is drawn')
  // 'Edgeplace' at lon 45 crosses the metatile edge: in neither metatile, no half label.
  const beyond = await tilePixels(app, 'vx:places', 4, 20, 6)
  t.equal(ink(tiles[2][3], 180, 256), 0, 'no half label at the right edge of the metatile')
  t.equal(ink(beyond, 0, 80), 0, 'nor at the left edge of the next one')
})

t.test('a seed of a vector layer renders exactly its tiles; truncate removes them; capabilities list it', async (t) => {
  const app = await vectorSetup(t)
  const SEED = `${BASE}/gwc/rest/seed`
  let res = await app.inject({ method: 'POST', url: `${SEED}/vx:shapes.json`, headers: JSON_TYPE, payload: { seedRequest: { name: 'vx:shapes', gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 5, format: 'image/png', type: 'seed', threadCount: 2 } } })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  const expected = Number(countTiles(tileRange(gridSubset(GRID_SETS['EPSG:4326'], [0, 0, 30, 10]), 0, 5)))
  const dir = path.join(app.config.dataDir, 'tiles/vx/shapes/EPSG_4326/png/default')
  const files = () => fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.png')).length : 0
  t.equal(files(), expected, `${expected} tiles on disk`)
  const total = (JSON.parse((await app.inject({ url: `${SEED}/tasks/1.json`, headers: ADMIN })).body).task.request.tilesTotal)
  t.equal(total, expected, 'the task counted them exactly')
  await app.diskQuota.flush()
  const usage = JSON.parse((await app.inject({ url: `${BASE}/tilecache/rest/diskquota/usage.json`, headers: ADMIN })).body)
  t.equal(usage.diskQuotaUsage.layers?.layer?.find((l: { name: string }) => l.name === 'vx:shapes')?.tiles, expected, 'the disk quota counts them')
  const hit = await xyz(app, 'vx:shapes', 3, 8, 3)
  t.equal(hit.headers['geowebcache-cache-result'], 'HIT', 'a seeded tile is served from the cache')
  res = await app.inject({ method: 'POST', url: `${SEED}/vx:shapes.json`, headers: JSON_TYPE, payload: { seedRequest: { name: 'vx:shapes', gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 5, format: 'image/png', type: 'truncate', threadCount: 1 } } })
  t.equal(res.statusCode, 200)
  await app.tileCache.breeder.idle()
  t.equal(files(), 0, 'truncate removed them')

  const wmts = await app.inject({ url: `${G}/wmts?service=WMTS&request=GetCapabilities` })
  for (const l of ['vx:shapes', 'vx:roads', 'vx:places']) t.match(wmts.body, `<ows:Identifier>${l}</ows:Identifier>`, `WMTS capabilities list ${l}`)
  const tms = await app.inject({ url: `${G}/tms/1.0.0` })
  t.match(tms.body, 'vx%3Ashapes%40EPSG%3A4326%40png"', 'TMS lists it')
  t.equal((await app.inject({ url: `${G}/tms/1.0.0/vx:shapes@EPSG:4326@png` })).statusCode, 200, 'with its tile map')
})

t.test('a style edit and a data store change drop a vector layer\'s tiles; read rules hide them', async (t) => {
  const app = await vectorSetup(t)
  await styleLayer(t, app, 'vx:shapes', 'red', fill('#FF0000'))
  const colour = async () => { const p = await tilePixels(app, 'vx:shapes', 3, 8, 3); const i = (200 * 256 + 20) * 4; return [...p.data.subarray(i, i + 4)] }
  t.same(await colour(), [255, 0, 0, 255], 'lon 1.8, lat 5: red')
  t.equal((await xyz(app, 'vx:shapes', 3, 8, 3)).headers['geowebcache-cache-result'], 'HIT')
  let res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/styles/red`, headers: SLD_TYPE, payload: sld('red', fill('#0000FF')) })
  t.equal(res.statusCode, 200, res.body)
  t.same(await colour(), [0, 0, 255, 255], 'the edited style draws the tile again')
  t.equal((await xyz(app, 'vx:shapes', 3, 8, 3)).headers['geowebcache-cache-result'], 'HIT')
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/datastores/db`, headers: JSON_TYPE, payload: { dataStore: { description: 'changed' } } })
  t.equal(res.statusCode, 200, res.body)
  t.equal((await xyz(app, 'vx:shapes', 3, 8, 3)).headers['geowebcache-cache-result'], 'MISS', 'a changed data store drops the tiles')

  res = await app.inject({ method: 'POST', url: `${REST}/security/acl/layers.json`, headers: JSON_TYPE, payload: '{"vx.shapes.r":"ROLE_READER"}' })
  t.equal(res.statusCode, 201)
  t.equal((await xyz(app, 'vx:shapes', 3, 8, 3, {})).statusCode, 404, 'hidden from an anonymous reader')
  t.equal((await app.inject({ url: `${G}/wmts/rest/vx:shapes/polygon/EPSG:4326/EPSG:4326:3/3/8?format=image/png` })).statusCode, 404, 'on WMTS too')
  t.notMatch((await app.inject({ url: `${G}/wmts?service=WMTS&request=GetCapabilities` })).body, '<ows:Identifier>vx:shapes</ows:Identifier>', 'not listed to them')
  t.equal((await xyz(app, 'vx:shapes', 3, 8, 3)).statusCode, 200, 'the administrator reads them')
  t.equal((await xyz(app, 'vx:roads', 3, 8, 3, {})).statusCode, 200, 'an open vector layer stays readable')
})
