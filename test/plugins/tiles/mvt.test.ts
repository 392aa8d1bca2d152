// Vector tiles (application/vnd.mapbox-vector-tile, .pbf) of vector layers and layer groups, read
// back by GDAL's MVT driver: PostGIS encodes them (ST_AsMVT), a GeoPackage's and a shapefile's are
// encoded by the render pool, alike; the features no rule of the style draws are left out; a group's
// tile holds one layer per member; WMTS (KVP and REST), TMS and XYZ serve them, the capabilities
// list the format (for vector layers and groups, never a mosaic), a seed writes one .pbf per tile, the disk quota counts them,
// an MBTiles export holds them and a truncate drops them.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { ADMIN, BASE, build, tempDir } from '../../helper.js'
import { G, JSON_TYPE, REST, fill, styleLayer, vectorSetup } from '../../fixtures/vector-tiles.js'
import { decodeMvt, extentOf, mercator, type MvtFeature } from '../../fixtures/mvt.js'
import { writeGeoPackage, writeShapefile, WGS84_WKT } from '../../fixtures/vector/files.js'
import { zipItems } from '../appschema/helpers.js'
import { GRID_SETS, gridSubset } from '../../../services/tilecache/grid-sets.js'
import { countTiles, tileRange } from '../../../services/tilecache/tile-range.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import { Database } from '../../../services/storage/sqlite/sqlite-driver.js'

const MVT = 'application/vnd.mapbox-vector-tile'
/** One tile unit at zoom 2 (4096 across) is 2446 m: coordinates come back within a unit. */
const UNIT = 40075016.69 / 4 / 4096

const pbf = (app: FastifyInstance, layer: string, z = 2, x = 2, y = 1): Promise<LightMyRequestResponse> =>
  app.inject({ url: `${G}/xyz/${layer}/EPSG:900913/${z}/${x}/${y}.pbf`, headers: ADMIN })

function near (t: Test, got: number[], want: number[], what: string, unit = UNIT): void {
  t.ok(got.every((v, i) => Math.abs(v - want[i]) <= unit), `${what}: ${got.map(Math.round).join(',')} is ${want.map(Math.round).join(',')}`)
}

const kinds = (fs: MvtFeature[] | undefined) => (fs ?? []).map((f) => f.properties.kind).sort()
const ONLY_A = `<ogc:Filter><ogc:PropertyIsEqualTo><ogc:PropertyName>kind</ogc:PropertyName><ogc:Literal>a</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter>${fill('#FF0000')}`

t.test('PostGIS encodes a vector layer\'s tiles: attributes, geometry, the style\'s rules; a group is one layer per member', async (t) => {
  const app = await vectorSetup(t)
  const first = await pbf(app, 'vx:shapes')
  t.equal(first.statusCode, 200, 'served')
  t.equal(first.headers['content-type'], MVT)
  t.equal(first.headers['geowebcache-cache-result'], 'MISS')
  let tile = decodeMvt(t, first.rawPayload, 2, 2, 1)
  t.same([...tile.keys()], ['shapes'], 'one layer, named by the layer')
  t.same(kinds(tile.get('shapes')), ['a', 'b'], 'both polygons with their attribute')
  t.notOk('id' in tile.get('shapes')![0].properties, 'the primary key is no attribute (not exposed)')
  near(t, extentOf(tile.get('shapes')!), [0, 0, ...mercator(30, 10)], 'their extent')
  // The miss is answered from the bytes in hand and written after (temp file and rename): the file
  // comes, with those bytes and the time the miss's validators named.
  const file = path.join(app.config.dataDir, 'tiles/vx/shapes/EPSG_900913/pbf/default/2/2/2.pbf')
  while (!fs.existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 10))
  t.same(fs.readFileSync(file), first.rawPayload, 'the file holds the bytes answered')
  const mtimeMs = fs.statSync(file).mtimeMs
  t.equal(first.headers.etag, `"${first.rawPayload.length.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`, 'the ETag names the file\'s time')
  t.equal(first.headers['last-modified'], new Date(mtimeMs).toUTCString(), 'so does Last-Modified')
  const hit = await pbf(app, 'vx:shapes')
  t.equal(hit.headers['geowebcache-cache-result'], 'HIT', 'then served from the cache')
  // The miss served the tile as encoded, not read back: the same bytes and validators as the file's.
  t.same(hit.rawPayload, first.rawPayload, 'the cached tile is the bytes the miss answered')
  t.match(first.headers.etag, /^"[0-9a-f]+-[0-9a-f]+"$/, 'the miss has an ETag')
  t.equal(hit.headers.etag, first.headers.etag, 'one ETag for the tile, rendered or cached')
  t.equal(hit.headers['last-modified'], first.headers['last-modified'])

  // A style whose one rule draws kind a: b is left out.
  await styleLayer(t, app, 'vx:shapes', 'onlya', ONLY_A)
  tile = decodeMvt(t, (await pbf(app, 'vx:shapes')).rawPayload, 2, 2, 1)
  t.same(kinds(tile.get('shapes')), ['a'], 'a feature no rule draws is left out')
  near(t, extentOf(tile.get('shapes')!), [0, 0, ...mercator(10, 10)], 'the one polygon\'s extent')
  // Clipped: the z4 tile of lon 0..22.5 cuts the road (lon 0..30) at its buffer (1/16 of the tile).
  const clipped = decodeMvt(t, (await pbf(app, 'vx:roads', 4, 8, 7)).rawPayload, 4, 8, 7).get('roads')!
  t.equal(clipped.length, 1)
  const span = 40075016.69 / 16
  near(t, extentOf(clipped), [0, mercator(0, 20)[1], span + span / 16, mercator(0, 20)[1]], 'a line is clipped at the tile\'s buffer', span / 4096)

  const cql = await app.inject({ url: `${G}/xyz/vx:shapes/EPSG:900913/2/2/1.pbf?CQL_FILTER=${encodeURIComponent("kind = 'b' OR kind = 'a'")}`, headers: ADMIN })
  t.same(kinds(decodeMvt(t, cql.rawPayload, 2, 2, 1).get('shapes')), ['a'], 'CQL_FILTER and the style\'s rules both apply')

  let res = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/layergroups`, headers: JSON_TYPE, payload: { layerGroup: { name: 'pair', publishables: { published: [{ '@type': 'layer', name: 'vx:shapes' }, { '@type': 'layer', name: 'vx:roads' }] } } } })
  t.equal(res.statusCode, 201, res.body)
  tile = decodeMvt(t, (await pbf(app, 'vx:pair')).rawPayload, 2, 2, 1)
  t.same([...tile.keys()].sort(), ['roads', 'shapes'], 'a group\'s tile has a layer per member')
  t.equal(tile.get('roads')!.length, 1)
  near(t, extentOf(tile.get('roads')!), [0, mercator(0, 20)[1], mercator(30, 0)[0], mercator(0, 20)[1]], 'the road')

  // WMTS KVP and REST, TMS: the same tile.
  const kvp = await app.inject({ url: `${G}/wmts?service=WMTS&request=GetTile&version=1.0.0&layer=vx:roads&style=&tilematrixset=EPSG:900913&tilematrix=EPSG:900913:2&tilerow=1&tilecol=2&format=${MVT}`, headers: ADMIN })
  t.equal(kvp.statusCode, 200, 'WMTS KVP')
  t.equal(kvp.headers['content-type'], MVT)
  t.equal(decodeMvt(t, kvp.rawPayload, 2, 2, 1).get('roads')?.length, 1, 'WMTS GetTile')
  const rest = await app.inject({ url: `${G}/wmts/rest/vx:roads/line/EPSG:900913/EPSG:900913:2/1/2?format=${MVT}`, headers: ADMIN })
  t.equal(rest.statusCode, 200, 'WMTS REST')
  t.same(rest.rawPayload, kvp.rawPayload, 'WMTS REST')
  const tms = await app.inject({ url: `${G}/tms/1.0.0/vx:roads@EPSG:900913@pbf/2/2/2.pbf`, headers: ADMIN })
  t.equal(tms.statusCode, 200, 'TMS')
  t.same(tms.rawPayload, kvp.rawPayload, 'TMS (row from the bottom)')
  t.equal((await app.inject({ url: `${G}/tms/1.0.0/vx:roads@EPSG:900913@pbf`, headers: ADMIN })).statusCode, 200, 'with its tile map')

  const caps = (await app.inject({ url: `${G}/wmts?service=WMTS&request=GetCapabilities` })).body
  t.match(caps, `<Format>${MVT}</Format>`, 'WMTS capabilities list the format')
  t.match(caps, `<ResourceURL format="${MVT}" resourceType="tile"`, 'with its resource URL')
  t.match((await app.inject({ url: `${G}/tms/1.0.0` })).body, 'vx%3Aroads%40EPSG%3A900913%40pbf"', 'TMS lists the tile map')
  const gwc = JSON.parse((await app.inject({ url: `${BASE}/gwc/rest/layers/vx:roads.json`, headers: ADMIN })).body)
  t.ok(JSON.stringify(gwc).includes(MVT), 'the GWC layer has the format')
})

t.test('a seed writes one .pbf per tile, the disk quota counts them, a truncate drops them', async (t) => {
  const app = await vectorSetup(t)
  const SEED = `${BASE}/gwc/rest/seed`
  const body = (type: string) => ({ seedRequest: { name: 'vx:shapes', gridSetId: 'EPSG:900913', zoomStart: 0, zoomStop: 4, format: MVT, type, threadCount: 2 } })
  let res = await app.inject({ method: 'POST', url: `${SEED}/vx:shapes.json`, headers: JSON_TYPE, payload: body('seed') })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  const expected = Number(countTiles(tileRange(gridSubset(GRID_SETS['EPSG:900913'], [0, 0, 30, 10]), 0, 4)))
  const dir = path.join(app.config.dataDir, 'tiles/vx/shapes/EPSG_900913/pbf/default')
  const files = () => fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.pbf')).length : 0
  t.equal(files(), expected, `${expected} tiles on disk`)
  await app.diskQuota.flush()
  const usage = JSON.parse((await app.inject({ url: `${BASE}/tilecache/rest/diskquota/usage.json`, headers: ADMIN })).body)
  t.equal(usage.diskQuotaUsage.layers?.layer?.find((l: { name: string }) => l.name === 'vx:shapes')?.tiles, expected, 'the disk quota counts them')
  t.equal((await pbf(app, 'vx:shapes')).headers['geowebcache-cache-result'], 'HIT', 'a seeded tile is served from the cache')
  const mbtiles = await app.inject({ url: `${BASE}/gwc/rest/export/vx:shapes.mbtiles?gridSetId=EPSG:900913&zoomStart=0&zoomStop=4&format=${MVT}`, headers: ADMIN })
  t.equal(mbtiles.statusCode, 200, 'an MBTiles export of the vector tiles')
  t.equal(mbtiles.headers['x-tile-count'], String(expected))
  const file = path.join(tempDir(t, 'mvt-export'), 'shapes.mbtiles')
  fs.writeFileSync(file, mbtiles.rawPayload)
  const db = new Database(file, { readonly: true })
  t.teardown(() => db.close())
  t.equal((db.prepare("SELECT value FROM metadata WHERE name = 'format'").get() as { value: string }).value, 'pbf', 'its format is pbf')
  const row = db.prepare('SELECT tile_data FROM tiles WHERE zoom_level = 2 AND tile_column = 2 AND tile_row = 2').get() as { tile_data: Buffer }
  t.same(kinds(decodeMvt(t, row.tile_data, 2, 2, 1).get('shapes')), ['a', 'b'], 'holding the tiles as served')
  t.equal((await app.inject({ url: `${BASE}/gwc/rest/export/vx:shapes.gpkg?gridSetId=EPSG:900913&zoomStart=0&zoomStop=4&format=${MVT}`, headers: ADMIN })).statusCode, 400, 'a GeoPackage export holds images only')
  res = await app.inject({ method: 'POST', url: `${SEED}/vx:shapes.json`, headers: JSON_TYPE, payload: body('truncate') })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  t.equal(files(), 0, 'truncate removed them')
})

const POLYGONS = [
  { kind: 'a', geometry: { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]] } },
  { kind: 'b', geometry: { type: 'Polygon', coordinates: [[[20, 0], [30, 0], [30, 10], [20, 10], [20, 0]]] } }
]

t.test('a GeoPackage\'s and a shapefile\'s tiles are encoded by the render pool, as PostGIS\'; a group mixes them', async (t) => {
  const app = await vectorSetup(t)
  const dir = tempDir(t, 'mvt-files')
  writeGeoPackage(path.join(dir, 'blocks.gpkg'), [{ name: 'blocks', columns: ['kind TEXT'], geometryColumn: 'geom', geometryType: 'POLYGON', rtree: true, rows: POLYGONS.map((p) => ({ values: [p.kind], geometry: p.geometry })) }])
  let res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/datastores/gp/file.gpkg?configure=all`, headers: { ...ADMIN, 'content-type': 'application/geopackage+sqlite3' }, payload: fs.readFileSync(path.join(dir, 'blocks.gpkg')) })
  t.equal(res.statusCode, 201, res.body)
  writeShapefile(dir, 'parcels', { type: 'polygon', fields: [{ name: 'kind', type: 'C', length: 4 }], features: POLYGONS.map((p) => ({ geometry: p.geometry, values: [p.kind] })), prj: WGS84_WKT })
  const zip = await zipItems(['shp', 'shx', 'dbf', 'prj'].map((e) => ({ name: `parcels.${e}`, data: fs.readFileSync(path.join(dir, `parcels.${e}`)) })))
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/datastores/sh/file.shp?configure=all`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  t.equal(res.statusCode, 201, res.body)

  for (const layer of ['blocks', 'parcels']) {
    const got = await pbf(app, `vx:${layer}`)
    t.equal(got.statusCode, 200, `${layer} is served`)
    t.equal(got.headers['content-type'], MVT)
    const tile = decodeMvt(t, got.rawPayload, 2, 2, 1)
    t.same([...tile.keys()], [layer], `${layer}: one layer, named by the layer`)
    t.same(kinds(tile.get(layer)), ['a', 'b'], `${layer}: both polygons with their attribute`)
    near(t, extentOf(tile.get(layer)!), [0, 0, ...mercator(30, 10)], `${layer}: their extent`)
    t.same(tile.get(layer)!.map((f) => f.geometry.type), ['Polygon', 'Polygon'], `${layer}: polygons`)
  }
  const cql = await app.inject({ url: `${G}/xyz/vx:parcels/EPSG:900913/2/2/1.pbf?CQL_FILTER=${encodeURIComponent("kind = 'b'")}`, headers: ADMIN })
  t.same(kinds(decodeMvt(t, cql.rawPayload, 2, 2, 1).get('parcels')), ['b'], 'CQL_FILTER applies')
  // Clipped at the tile's buffer: the z4 tile of lon 0..22.5 cuts polygon b (lon 20..30) 1/16 of a tile past its edge.
  const cut = decodeMvt(t, (await pbf(app, 'vx:blocks', 4, 8, 7)).rawPayload, 4, 8, 7).get('blocks')!
  const span = 40075016.69 / 16
  t.equal(cut.length, 2)
  near(t, extentOf(cut), [0, 0, span + span / 16, mercator(0, 10)[1]], 'a polygon is clipped at the tile\'s buffer', span / 4096)
  // A group of a PostGIS, a GeoPackage and a shapefile layer: the database's layer and the pool's in one tile, in order.
  res = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/layergroups`, headers: JSON_TYPE, payload: { layerGroup: { name: 'mixed', publishables: { published: ['vx:roads', 'vx:blocks', 'vx:parcels'].map((name) => ({ '@type': 'layer', name })) } } } })
  t.equal(res.statusCode, 201, res.body)
  const mixed = decodeMvt(t, (await pbf(app, 'vx:mixed')).rawPayload, 2, 2, 1)
  t.same([...mixed.keys()], ['roads', 'blocks', 'parcels'], 'a mixed group\'s tile: each member\'s layer, in order')
  t.same([mixed.get('roads')!.length, mixed.get('blocks')!.length, mixed.get('parcels')!.length], [1, 2, 2])
  await styleLayer(t, app, 'vx:parcels', 'onlya', ONLY_A)
  const tile = decodeMvt(t, (await pbf(app, 'vx:parcels')).rawPayload, 2, 2, 1)
  t.same(kinds(tile.get('parcels')), ['a'], 'a feature no rule draws is left out')
  // A tile between the polygons (lon 11.25..16.875, lat 0..5.6): no layer, no bytes.
  const none = await pbf(app, 'vx:blocks', 6, 34, 31)
  t.equal(none.statusCode, 200)
  t.equal(none.rawPayload.length, 0, 'a tile without features is empty')
})

t.test('a mosaic has no vector tiles: not offered, refused with a 400 naming the format, nothing seeded', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topo', 'm', { 'm.tif': rgbTiff(160, 160, [-20, -10, 20, 30], pattern) })
  const xyz = await app.inject({ url: `${G}/xyz/${layer}/EPSG:4326/4/16/7.pbf`, headers: ADMIN })
  t.equal(xyz.statusCode, 400)
  t.match(xyz.body, `Format ${MVT} is not offered by layer ${layer}`)
  t.equal((await app.inject({ url: `${G}/wmts?service=WMTS&request=GetTile&layer=${layer}&tilematrixset=EPSG:4326&tilematrix=EPSG:4326:4&tilerow=7&tilecol=16&format=${MVT}` })).statusCode, 400, 'on WMTS')
  t.equal((await app.inject({ url: `${G}/tms/1.0.0/${layer}@EPSG:4326@pbf` })).statusCode, 400, 'on TMS')
  const caps = (await app.inject({ url: `${G}/wmts?service=WMTS&request=GetCapabilities` })).body
  t.match(caps, '<Format>image/png</Format>')
  t.notMatch(caps, MVT, 'the capabilities do not offer it')
  t.notMatch((await app.inject({ url: `${G}/tms/1.0.0` })).body, '%40pbf', 'nor TMS')
  const seed = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSON_TYPE, payload: { seedRequest: { name: layer, gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 2, format: MVT, type: 'seed' } } })
  t.equal(seed.statusCode, 400)
  t.match(seed.body, 'format')
  const gwc = await app.inject({ url: `${BASE}/gwc/rest/layers/${layer}.json`, headers: ADMIN })
  t.notMatch(gwc.body, MVT, 'nor its GWC layer')
})
