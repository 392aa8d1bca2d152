// A tile layer's grid subsets (GWC's gridSubsets of a GeoServerLayer): the grid sets it is cached in,
// each narrowed to levels and an extent, written through PUT gwc/rest/layers/<layer>.xml|.json and
// applied everywhere tiles are offered or made: WMTS and TMS capabilities, tile requests, seeding.
// Kept over a restart; bad subsets are a 400 naming the field, and nothing changes.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, tempDir, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'

const L = `${BASE}/gwc/rest/layers`
const XMLH = { ...ADMIN, 'content-type': 'text/xml' }
const JSONH = { ...ADMIN, 'content-type': 'application/json' }
const SUBSET = '<gridSubsets><gridSubset><gridSetName>EPSG:4326</gridSetName><extent><coords><double>0</double><double>0</double><double>20</double><double>20</double></coords></extent><zoomStart>1</zoomStart><zoomStop>3</zoomStop></gridSubset></gridSubsets>'

/** Every tile file under a folder, as "z/x/y" relative paths. */
function files (dir: string): string[] {
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/')).sort()
}

t.test('grid subsets narrow a layer to its grid sets, levels and extent in every tile service, and stay over a restart', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, keepOpen: true })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, [0, 0, 40, 40], pattern) })
  let res = await app.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: XMLH, payload: `<GeoServerLayer><name>${layer}</name>${SUBSET}</GeoServerLayer>` })
  t.equal(res.statusCode, 200, res.body)

  // GWC's own shapes, in XML and JSON.
  const xml = (await app.inject({ url: `${L}/${layer}.xml`, headers: ADMIN })).body
  t.match(xml, '<gridSubsets>\n    <gridSubset>\n      <gridSetName>EPSG:4326</gridSetName>\n      <extent>\n        <coords>\n          <double>0</double>\n          <double>0</double>\n          <double>20</double>\n          <double>20</double>\n        </coords>\n      </extent>\n      <zoomStart>1</zoomStart>\n      <zoomStop>3</zoomStop>\n    </gridSubset>\n  </gridSubsets>')
  t.notMatch(xml, 'EPSG:900913', 'the grid set left out is gone')
  t.same((await app.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).json().GeoServerLayer.gridSubsets,
    [{ gridSetName: 'EPSG:4326', extent: { coords: [0, 0, 20, 20] }, zoomStart: 1, zoomStop: 3 }])

  // Tiles: inside the levels and the extent (z2 4/1 holds 0-45 E, 0-45 N; z3 8/3 holds 0-22.5 E, 0-22.5 N).
  const xyz = (gs: string, z: number, x: number, y: number) => app.inject({ url: `${BASE}/gwc/service/xyz/${layer}/${gs}/${z}/${x}/${y}.png` })
  t.equal((await xyz('EPSG:4326', 2, 4, 1)).statusCode, 200)
  t.equal((await xyz('EPSG:4326', 3, 8, 3)).statusCode, 200)
  t.equal((await xyz('EPSG:4326', 0, 1, 0)).statusCode, 404, 'below zoomStart')
  t.equal((await xyz('EPSG:4326', 4, 16, 7)).statusCode, 404, 'above zoomStop')
  t.equal((await xyz('EPSG:4326', 3, 9, 3)).statusCode, 404, 'in the layer\'s bounds, outside the subset\'s extent')
  res = await xyz('EPSG:900913', 3, 4, 3)
  t.equal(res.statusCode, 400)
  t.match(res.body, 'Layer topp:world is not cached in grid set EPSG:900913 (its grid sets: EPSG:4326)')

  // WMTS: one TileMatrixSetLink, its limits levels 1 to 3 only.
  const caps = (await app.inject({ url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetCapabilities` })).body
  const links = caps.split('<TileMatrixSetLink>').slice(1).map((s) => s.split('</TileMatrixSetLink>')[0])
  t.equal(links.length, 1)
  t.match(links[0], '<TileMatrixSet>EPSG:4326</TileMatrixSet>')
  t.same([...links[0].matchAll(/<TileMatrix>([^<]+)<\/TileMatrix>/g)].map((m) => m[1]), ['EPSG:4326:1', 'EPSG:4326:2', 'EPSG:4326:3'])
  t.match(links[0], '<TileMatrix>EPSG:4326:3</TileMatrix>\n            <MinTileRow>3</MinTileRow>\n            <MaxTileRow>3</MaxTileRow>\n            <MinTileCol>8</MinTileCol>\n            <MaxTileCol>8</MaxTileCol>', 'the extent\'s tiles only')
  // TMS: only the grid set offered, its tile sets the levels offered.
  const tms = (await app.inject({ url: `${BASE}/gwc/service/tms/1.0.0` })).body
  t.notMatch(tms, 'EPSG:900913')
  const map = (await app.inject({ url: `${BASE}/gwc/service/tms/1.0.0/${encodeURIComponent(`${layer}@EPSG:4326@png`)}` })).body
  t.same([...map.matchAll(/order="(\d+)"/g)].map((m) => m[1]), ['1', '2', '3'])
  t.match(map, '<BoundingBox minx="0.0" miny="0.0" maxx="20.0" maxy="20.0"/>')
  const other = await app.inject({ url: `${BASE}/gwc/service/tms/1.0.0/${encodeURIComponent(`${layer}@EPSG:900913@png`)}` })
  t.equal(other.statusCode, 400)
  t.match(other.body, 'Layer topp:world is not cached in grid set EPSG:900913 (its grid sets: EPSG:4326)')

  // Seeding z0-5 writes the subset's tiles only: levels 1-3 inside the extent.
  const dir = path.join(dataDir, 'tiles/topp/world/EPSG_4326/png/default')
  fs.rmSync(dir, { recursive: true, force: true })
  res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSONH, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 5, format: 'image/png', type: 'seed', threadCount: 1 } }) })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  t.same(files(dir), ['1/2/1.png', '2/4/2.png', '3/8/4.png'], 'the one tile of the extent at each of levels 1-3')
  res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSONH, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:900913', zoomStart: 0, zoomStop: 2, format: 'image/png', type: 'seed', threadCount: 1 } }) })
  t.equal(res.statusCode, 400)
  t.match(res.body, /gridSetId/)

  await app.close()
  const again = await build(t, { dataDir })
  t.same((await again.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).json().GeoServerLayer.gridSubsets,
    [{ gridSetName: 'EPSG:4326', extent: { coords: [0, 0, 20, 20] }, zoomStart: 1, zoomStop: 3 }], 'kept over a restart')

  // Back to the defaults: every grid set over all its levels, no subset stored.
  res = await again.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: XMLH, payload: `<GeoServerLayer><gridSubsets><gridSubset><gridSetName>EPSG:4326</gridSetName></gridSubset><gridSubset><gridSetName>EPSG:900913</gridSetName><zoomStart>0</zoomStart></gridSubset></gridSubsets></GeoServerLayer>` })
  t.equal(res.statusCode, 200, res.body)
  t.same((await again.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).json().GeoServerLayer.gridSubsets,
    [{ gridSetName: 'EPSG:4326', zoomStart: 0, zoomStop: 21 }, { gridSetName: 'EPSG:900913', zoomStart: 0, zoomStop: 30 }])
  t.equal((await again.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/0/1/0.png` })).statusCode, 200)
})

t.test('bad grid subsets are a 400 naming the field, and nothing changes', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, [0, 0, 40, 40], pattern) })
  const sub = (inner: string) => `<GeoServerLayer><expireCache>60</expireCache><gridSubsets>${inner}</gridSubsets></GeoServerLayer>`
  const one = (inner: string) => sub(`<gridSubset><gridSetName>EPSG:4326</gridSetName>${inner}</gridSubset>`)
  const cases: Array<[string, string]> = [
    [sub('<gridSubset><gridSetName>EPSG:2056</gridSetName></gridSubset>'), 'GeoServerLayer gridSubsets gridSetName: "EPSG:2056" is not a grid set'],
    [sub('<gridSubset><gridSetName>EPSG:4326</gridSetName></gridSubset><gridSubset><gridSetName>EPSG:4326</gridSetName></gridSubset>'), 'grid set EPSG:4326 is named twice'],
    [one('<zoomStop>22</zoomStop>'), 'GeoServerLayer gridSubsets EPSG:4326 zoomStop: 22: grid set EPSG:4326 has levels 0-21'],
    [one('<zoomStart>5</zoomStart><zoomStop>2</zoomStop>'), 'GeoServerLayer gridSubsets EPSG:4326 zoomStart: 5 is above zoomStop 2'],
    [one('<zoomStart>-1</zoomStart>'), 'GeoServerLayer gridSubsets EPSG:4326 zoomStart: "-1" is not a zoom level'],
    [one('<extent><coords><double>10</double><double>0</double><double>5</double><double>20</double></coords></extent>'), 'extent: 10,0,5,20 is empty'],
    [one('<extent><coords><double>0</double><double>0</double></coords></extent>'), 'extent: must be coords of four numbers'],
    [one('<extent><coords><double>200</double><double>0</double><double>300</double><double>20</double></coords></extent>'), 'is outside grid set EPSG:4326'],
    [one('<minCachedLevel>4</minCachedLevel>'), 'GeoServerLayer gridSubsets EPSG:4326 minCachedLevel: levels served without being cached are not supported'],
    [one('<maxCachedLevel>4</maxCachedLevel>'), 'GeoServerLayer gridSubsets EPSG:4326 maxCachedLevel'],
    [one('<tileWidth>4</tileWidth>'), 'GeoServerLayer gridSubsets EPSG:4326 tileWidth: not a field of a grid subset'],
    [sub(''), 'GeoServerLayer gridSubsets: a tile layer needs at least one grid subset']
  ]
  for (const [body, message] of cases) {
    const res = await app.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: XMLH, payload: body })
    t.equal(res.statusCode, 400, body)
    t.match(res.body, message)
  }
  const v = (await app.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).json().GeoServerLayer
  t.equal(v.expireCache, 0, 'nothing changed')
  t.equal(v.gridSubsets.length, 2)
  // Cached levels that cover the levels served say nothing more: accepted.
  const ok = await app.inject({ method: 'PUT', url: `${L}/${layer}.json`, headers: JSONH, payload: JSON.stringify({ GeoServerLayer: { gridSubsets: [{ gridSetName: 'EPSG:4326', zoomStart: 2, zoomStop: 9, minCachedLevel: 0, maxCachedLevel: 12, extent: { coords: [-10, -10, 50, 50] } }] } }) })
  t.equal(ok.statusCode, 200, ok.body)
  t.same((await app.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).json().GeoServerLayer.gridSubsets, [{ gridSetName: 'EPSG:4326', extent: { coords: [-10, -10, 50, 50] }, zoomStart: 2, zoomStop: 9 }], 'JSON in, the same subset out')
})
