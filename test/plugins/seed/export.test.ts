// MBTiles and GeoPackage export of the cached tiles: GDAL opens both files, and every tile in them
// equals the cached file byte for byte (MBTiles rows counted from the bottom, GeoPackage rows from
// the top); bounds, zoom levels and the layer's read rule apply; bad parameters are 400.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { Database } from '../../../services/storage/sqlite/sqlite-driver.js'
import { build, tempDir, basic, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import { GRID_SETS, tilesHigh } from '../../../services/tilecache/grid-sets.js'

const JSON_TYPE = { ...ADMIN, 'content-type': 'application/json' }
const BBOX: [number, number, number, number] = [-20, -10, 20, 30]

/** gdalinfo -checksum reads every tile through GDAL's driver: any decoding problem is an ERROR on stderr. */
function gdalinfo (file: string): string {
  const r = spawnSync('gdalinfo', ['-checksum', file], { encoding: 'utf8' })
  if (r.status !== 0 || /ERROR/.test(r.stderr)) throw new Error(`gdalinfo ${file}: ${r.status} ${r.stderr}`)
  return r.stdout
}

function cached (dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  if (!fs.existsSync(dir)) return out
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out.set(path.relative(dir, path.join(e.parentPath, e.name)), fs.readFileSync(path.join(e.parentPath, e.name)))
  }
  return out
}

async function seed (app: Awaited<ReturnType<typeof build>>, layer: string, gridSetId: string, zoomStop: number, format = 'image/png') {
  const res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId, zoomStart: 0, zoomStop, format, type: 'seed', threadCount: 2 } }) })
  if (res.statusCode !== 200) throw new Error(res.body)
  await app.tileCache.breeder.idle()
}

t.test('an MBTiles export opens in GDAL and holds every cached tile of the range, byte for byte, in TMS rows', async (t) => {
  const app = await build(t)
  const out = tempDir(t, 'export')
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  await seed(app, layer, 'EPSG:900913', 5)
  const dir = path.join(app.config.dataDir, 'tiles/topp/world/EPSG_900913/png/default')
  const files = cached(dir)
  t.ok(files.size > 20, `${files.size} cached tiles`)

  const res = await app.inject({ method: 'GET', url: `${BASE}/tilecache/rest/export/${layer}.mbtiles?gridSetId=EPSG:900913&zoomStart=0&zoomStop=5`, headers: ADMIN })
  t.equal(res.statusCode, 200, res.body.slice(0, 200))
  t.equal(res.headers['content-type'], 'application/vnd.sqlite3')
  t.equal(res.headers['content-disposition'], 'attachment; filename="topp_world.mbtiles"')
  t.equal(Number(res.headers['content-length']), res.rawPayload.length)
  t.equal(res.headers['x-tile-count'], String(files.size))
  const file = path.join(out, 'world.mbtiles')
  fs.writeFileSync(file, res.rawPayload)
  const info = gdalinfo(file)
  t.match(info, /Driver: MBTiles\/MBTiles/)
  t.match(info, /Pseudo-Mercator/)
  const db = new Database(file, { readonly: true })
  t.teardown(() => db.close())
  const meta = Object.fromEntries((db.prepare('SELECT name, value FROM metadata').all() as Array<{ name: string, value: string }>).map((r) => [r.name, r.value]))
  t.match(meta, { name: layer, format: 'png', minzoom: '0', maxzoom: '5' })
  const b = meta.bounds.split(',').map(Number)
  t.ok(Math.abs(b[0] + 20) < 1e-6 && Math.abs(b[1] + 10) < 1e-6 && Math.abs(b[2] - 20) < 1e-6 && Math.abs(b[3] - 30) < 1e-6, `bounds ${meta.bounds} are the layer's in lon/lat`)
  const rows = db.prepare('SELECT zoom_level z, tile_column x, tile_row y, tile_data d FROM tiles').all() as Array<{ z: number, x: number, y: number, d: Buffer }>
  t.equal(rows.length, files.size, 'every cached tile')
  let same = 0
  for (const r of rows) if (files.get(`${r.z}/${r.x}/${r.y}.png`)?.equals(r.d)) same++
  t.equal(same, rows.length, 'each one equal to its cached file, the TMS row being our row')

  // A smaller box and zoom range: exactly the cached tiles inside.
  const box = [0, 0, 2000000, 3000000]
  const part = await app.inject({ method: 'GET', url: `${BASE}/gwc/rest/export/${layer}.mbtiles?gridSetId=EPSG:900913&zoomStart=3&zoomStop=5&bounds=${box.join(',')}`, headers: ADMIN })
  t.equal(part.statusCode, 200)
  const partFile = path.join(out, 'part.mbtiles')
  fs.writeFileSync(partFile, part.rawPayload)
  const pdb = new Database(partFile, { readonly: true })
  t.teardown(() => pdb.close())
  const span = (z: number) => 2 * 20037508.34 / 2 ** z
  const expected = [...files.keys()].filter((k) => {
    const [z, x, y] = k.split(/[/.]/).map(Number)
    if (z < 3) return false
    // Tiles the box touches (GWC's closestRectangle: a box edge on a tile edge takes no neighbour).
    const s = span(z)
    const col = (v: number) => (v + 20037508.34) / s
    return x >= Math.floor(col(box[0])) && x <= Math.ceil(col(box[2])) - 1 && y >= Math.floor(col(box[1])) && y <= Math.ceil(col(box[3])) - 1
  })
  const got = (pdb.prepare('SELECT zoom_level z, tile_column x, tile_row y FROM tiles').all() as Array<{ z: number, x: number, y: number }>).map((r) => `${r.z}/${r.x}/${r.y}.png`)
  t.same(got.sort(), expected.sort(), 'the box and zoom levels select the tiles')
  t.ok(got.length > 0 && got.length < files.size)
  t.same(fs.readdirSync(path.join(app.config.dataDir, 'tmp', 'exports')), [], 'no temp file left behind')
})

t.test('a GeoPackage export (EPSG:4326 and EPSG:900913) opens in GDAL with its tile matrices and holds the cached tiles byte for byte, rows from the top', async (t) => {
  const app = await build(t)
  const out = tempDir(t, 'export')
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  for (const [gridSetId, dirName, srs, format, ext] of [
    ['EPSG:4326', 'EPSG_4326', 4326, 'image/png', 'png'], ['EPSG:900913', 'EPSG_900913', 3857, 'image/jpeg', 'jpeg']
  ] as const) {
    await seed(app, layer, gridSetId, 4, format)
    const files = cached(path.join(app.config.dataDir, 'tiles/topp/world', dirName, ext, 'default'))
    const res = await app.inject({ method: 'GET', url: `${BASE}/gwc/rest/export/${layer}.gpkg?gridSetId=${gridSetId}&zoomStart=0&zoomStop=4&format=${format}`, headers: ADMIN })
    t.equal(res.statusCode, 200, res.body.slice(0, 200))
    t.equal(res.headers['content-type'], 'application/geopackage+sqlite3')
    const file = path.join(out, `${dirName}.gpkg`)
    fs.writeFileSync(file, res.rawPayload)
    const info = gdalinfo(file)
    t.match(info, /Driver: GPKG\/GeoPackage/, gridSetId)
    t.match(info, srs === 4326 ? /WGS 84/ : /Pseudo-Mercator/)
    t.match(info, /Size is \d+, \d+/)
    const db = new Database(file, { readonly: true })
    t.equal(db.pragma('application_id', { simple: true }), 0x47504B47)
    t.match(db.prepare('SELECT * FROM gpkg_contents').get(), { table_name: 'topp_world', data_type: 'tiles', identifier: layer, srs_id: srs })
    const gs = GRID_SETS[gridSetId]
    t.match(db.prepare('SELECT * FROM gpkg_tile_matrix_set').get(), { srs_id: srs, min_x: gs.extent[0], min_y: gs.extent[1], max_x: gs.extent[2], max_y: gs.extent[3] })
    const matrices = db.prepare('SELECT * FROM gpkg_tile_matrix ORDER BY zoom_level').all() as Array<Record<string, number>>
    t.equal(matrices.length, 5)
    for (const m of matrices) {
      t.equal(m.matrix_width * m.tile_width * m.pixel_x_size, gs.extent[2] - gs.extent[0], `z${m.zoom_level}: the matrix spans the set's width`)
      t.ok(Math.abs(m.matrix_height * m.tile_height * m.pixel_y_size - (gs.extent[3] - gs.extent[1])) < 1e-6, 'and its height')
    }
    t.ok((db.prepare('SELECT srs_id FROM gpkg_spatial_ref_sys').all() as Array<{ srs_id: number }>).map((r) => r.srs_id).includes(srs))
    const rows = db.prepare('SELECT zoom_level z, tile_column x, tile_row r, tile_data d FROM topp_world').all() as Array<{ z: number, x: number, r: number, d: Buffer }>
    t.equal(rows.length, files.size)
    let same = 0
    for (const r of rows) if (files.get(`${r.z}/${r.x}/${tilesHigh(gs, r.z) - 1 - r.r}.${ext}`)?.equals(r.d)) same++
    t.equal(same, rows.length, `${gridSetId}: each tile equal to its cached file, rows from the top`)
    db.close()
  }
})

t.test('an export holds the cached tiles of image/vnd.jpeg-png too (its extension has a dash)', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  await seed(app, layer, 'EPSG:4326', 2, 'image/vnd.jpeg-png')
  const files = cached(path.join(app.config.dataDir, 'tiles/topp/world/EPSG_4326/jpeg-png/default'))
  t.ok(files.size > 0, 'tiles cached')
  const res = await app.inject({ method: 'GET', url: `${BASE}/gwc/rest/export/${layer}.gpkg?gridSetId=EPSG:4326&zoomStart=0&zoomStop=2&format=image/vnd.jpeg-png`, headers: ADMIN })
  t.equal(res.statusCode, 200, res.body.slice(0, 200))
  const file = path.join(tempDir(t, 'export'), 'jpeg-png.gpkg')
  fs.writeFileSync(file, res.rawPayload)
  const db = new Database(file, { readonly: true })
  t.teardown(() => db.close())
  const rows = db.prepare('SELECT zoom_level z, tile_column x, tile_row r, tile_data d FROM topp_world').all() as Array<{ z: number, x: number, r: number, d: Buffer }>
  t.equal(rows.length, files.size, 'every cached tile exported')
  t.equal(rows.filter((r) => files.get(`${r.z}/${r.x}/${tilesHigh(GRID_SETS['EPSG:4326'], r.z) - 1 - r.r}.jpeg-png`)?.equals(r.d)).length, rows.length, 'byte for byte, rows from the top')
})

t.test('exports follow the layer read rule and refuse bad parameters with a 400 naming them', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'secret', { 'secret.tif': rgbTiff(20, 20, BBOX, pattern) })
  const json = JSON_TYPE
  let res = await app.inject({ method: 'POST', url: `${BASE}/rest/security/acl/layers.json`, headers: json, payload: '{"topp.secret.r":"ROLE_READER"}' })
  t.equal(res.statusCode, 201)
  for (const who of ['reader', 'plain']) {
    res = await app.inject({ method: 'POST', url: `${BASE}/rest/security/usergroup/users`, headers: json, payload: { user: { userName: who, password: `${who}-password` } } })
    t.equal(res.statusCode, 201)
  }
  await app.inject({ method: 'POST', url: `${BASE}/rest/security/roles/role/ROLE_READER`, headers: ADMIN })
  await app.inject({ method: 'POST', url: `${BASE}/rest/security/roles/role/ROLE_READER/user/reader`, headers: ADMIN })
  const url = `${BASE}/gwc/rest/export/${layer}.gpkg?gridSetId=EPSG:4326&zoomStop=1`
  t.equal((await app.inject({ method: 'GET', url })).statusCode, 401)
  res = await app.inject({ method: 'GET', url, headers: { authorization: basic('plain', 'plain-password') } })
  t.ok([403, 404].includes(res.statusCode), `a user without read access: ${res.statusCode}`)
  t.notMatch(String(res.headers['content-type']), /sqlite/)
  res = await app.inject({ method: 'GET', url, headers: { authorization: basic('reader', 'reader-password') } })
  t.equal(res.statusCode, 200, 'a reader may export (an empty cache is an empty file)')
  t.equal(res.headers['x-tile-count'], '0')

  for (const [q, message] of [
    ['gridSetId=EPSG:4326', /gridSetId EPSG:4326: MBTiles holds spherical mercator tiles only/],
    ['zoomStart=4&zoomStop=2', /zoomStart 4: is greater than zoomStop 2/],
    ['zoomStop=31', /zoomStop 31/],
    ['bounds=1,2,3', /bounds 1,2,3/],
    ['bounds=5,5,1,1', /bounds/],
    ['bounds=-20037508,0,-19000000,1', /bounds .*do not intersect the layer's extent/],
    ['format=image/gif', /format image\/gif/],
    ['STYLES=nope', /STYLES=nope/],
    ['colour=red', /colour red: unknown parameter/],
    ['zoomStop=1&zoomStop=2', /zoomStop .*more than once/]
  ] as Array<[string, RegExp]>) {
    res = await app.inject({ method: 'GET', url: `${BASE}/gwc/rest/export/${layer}.mbtiles?${q}`, headers: ADMIN })
    t.equal(res.statusCode, 400, q)
    t.match(res.body, message, q)
  }
  res = await app.inject({ method: 'GET', url: `${BASE}/gwc/rest/export/${layer}.zip`, headers: ADMIN })
  t.equal(res.statusCode, 400)
  res = await app.inject({ method: 'GET', url: `${BASE}/gwc/rest/export/topp:nope.mbtiles`, headers: ADMIN })
  t.equal(res.statusCode, 404)
})
