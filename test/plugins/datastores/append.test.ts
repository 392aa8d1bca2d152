// PUT file.gpkg?update=append onto an existing GeoPackage store: the upload's features are inserted
// into the store's tables of the same names in one transaction, the R-tree and gpkg_contents follow
// (with the file's own GeoPackage triggers, or without), the feature types' bounds are computed again;
// a schema that does not match is a 400 naming the table or column and the file is left as it was;
// append from external.shp is refused (400 naming it); an unknown update value is a 400.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { createWorkspace, zipItems } from '../appschema/helpers.js'
import { wfsGet } from '../wfs/helpers.js'
import { writeGeoPackage, writeShapefile, type GpkgTable } from '../../fixtures/vector/files.js'
import { Database } from '../../../services/storage/sqlite/sqlite-driver.js'

const DS = `${BASE}/rest/workspaces/vx/datastores`
const point = (x: number, y: number) => ({ type: 'Point', coordinates: [x, y] })
const places = (rows: Array<[string, number, number]>, columns = ['name TEXT', 'pop INTEGER']): GpkgTable => ({
  name: 'places', columns, geometryColumn: 'geom', geometryType: 'POINT', rtree: true, extent: [3, 4, 3, 4],
  rows: rows.map(([name, x, y]) => ({ values: columns.map((_, i) => i === 0 ? name : 7), geometry: point(x, y) }))
})
const ROADS: GpkgTable = { name: 'roads', columns: ['kind TEXT'], geometryColumn: 'geom', geometryType: 'LINESTRING', rows: [{ values: ['main'], geometry: { type: 'LineString', coordinates: [[0, 0], [1, 1]] } }] }

interface Setup { app: FastifyInstance, files: string, storeFile: string }

async function setup (t: Test): Promise<Setup> {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir })
  await createWorkspace(app, 'vx')
  const files = tempDir(t, 'files')
  writeGeoPackage(path.join(files, 'city.gpkg'), [places([['A', 3, 4]]), ROADS])
  const r = await putGpkg(app, `${DS}/city/file.gpkg?configure=all`, path.join(files, 'city.gpkg'))
  if (r.statusCode !== 201) throw new Error(`store: ${r.statusCode} ${r.body}`)
  return { app, files, storeFile: path.join(dataDir, 'data', 'vx', 'city', 'city.gpkg') }
}

const putGpkg = async (app: FastifyInstance, url: string, file: string) =>
  app.inject({ method: 'PUT', url, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await zipItems([{ name: path.basename(file), data: fs.readFileSync(file) }]) })
const json = (r: LightMyRequestResponse) => JSON.parse(r.body)
const read = (file: string, sql: string) => { const db = new Database(file, { readonly: true }); try { return db.prepare(sql).raw(true).all() } finally { db.close() } }
const upload = (s: Setup, name: string, tables: GpkgTable[]) => { const f = path.join(s.files, name, 'up.gpkg'); writeGeoPackage(f, tables); return f }

t.test('update=append inserts the upload\'s features into the store\'s table: new ids, R-tree, extent and the feature type\'s bounds follow', async (t) => {
  const s = await setup(t)
  const res = await putGpkg(s.app, `${DS}/city/file.gpkg?update=append`, upload(s, 'a', [places([['B', 50, 60], ['C', -20, -30]])]))
  t.equal(res.statusCode, 201, res.body)
  t.same(read(s.storeFile, 'SELECT fid, name, pop FROM places ORDER BY fid'), [[1, 'A', 7], [2, 'B', 7], [3, 'C', 7]])
  t.same(read(s.storeFile, 'SELECT id, minx, maxy FROM rtree_places_geom ORDER BY id'), [[1, 3, 4], [2, 50, 60], [3, -20, -30]], 'the R-tree holds the new features')
  t.same(read(s.storeFile, "SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = 'places'"), [[-20, -30, 50, 60]])
  t.same(read(s.storeFile, 'SELECT count(*) FROM roads'), [[1]], 'a table the upload does not hold is untouched')
  const ft = json(await s.app.inject({ method: 'GET', url: `${DS}/city/featuretypes/places.json`, headers: ADMIN })).featureType
  t.same(ft.nativeBoundingBox, { minx: -20, maxx: 50, miny: -30, maxy: 60, crs: 'EPSG:4326' })
  t.same([ft.latLonBoundingBox.minx, ft.latLonBoundingBox.maxy], [-20, 60])
  const wfs = await wfsGet(s.app, { service: 'WFS', version: '1.0.0', request: 'GetFeature', typeName: 'vx:places', bbox: '49,59,51,61' })
  t.match(wfs.body, /fid="places\.2"/, 'a bbox read through the R-tree finds the appended feature')
  t.notMatch(wfs.body, /fid="places\.[13]"/)
})

t.test('a GeoPackage with GeoPackage\'s R-tree triggers (as GDAL writes them): the triggers keep the index', async (t) => {
  const s = await setup(t)
  const db = new Database(s.storeFile)
  db.exec(`CREATE TRIGGER "rtree_places_geom_insert" AFTER INSERT ON "places" WHEN (new."geom" NOT NULL AND NOT ST_IsEmpty(NEW."geom"))
    BEGIN INSERT OR REPLACE INTO "rtree_places_geom" VALUES (NEW."fid", ST_MinX(NEW."geom"), ST_MaxX(NEW."geom"), ST_MinY(NEW."geom"), ST_MaxY(NEW."geom")); END`)
  db.close()
  const res = await putGpkg(s.app, `${DS}/city/file.gpkg?update=append`, upload(s, 'a', [places([['B', 50, 60]])]))
  t.equal(res.statusCode, 201, res.body)
  t.same(read(s.storeFile, 'SELECT id, minx, maxx, miny, maxy FROM rtree_places_geom ORDER BY id'), [[1, 3, 3, 4, 4], [2, 50, 50, 60, 60]], 'one entry each, written by the trigger')
})

t.test('a schema that does not match: 400 naming the table or column; the store\'s file is left as it was', async (t) => {
  const s = await setup(t)
  const before = fs.readFileSync(s.storeFile)
  const cases: Array<[string, GpkgTable[], string]> = [
    ['extra', [places([['B', 1, 1]], ['name TEXT', 'pop INTEGER', 'color TEXT'])], 'column "color" of table "places" is not a column of the store\'s table (fid, geom, name, pop)'],
    ['type', [places([['B', 1, 1]], ['name INTEGER', 'pop INTEGER'])], 'column "name" of table "places" is TEXT in the store and INTEGER in the upload'],
    ['table', [{ ...ROADS, name: 'rivers' }], 'table "rivers" of the upload is not in the GeoPackage of data store "city" (append adds features to its tables: places, roads)'],
    ['srs', [{ ...places([['B', 1, 1]]), srsId: 3857 }], 'the geometries of table "places" are in srs_id 4326 in the store and 3857 in the upload'],
    ['geometry', [{ ...places([['B', 1, 1]]), geometryType: 'MULTIPOINT' }], 'column "geom" of table "places" holds POINT in the store and MULTIPOINT in the upload'],
    // The first table fits, the second does not: nothing of the first is written either.
    ['second', [places([['B', 1, 1]]), { ...ROADS, columns: ['kind REAL'] }], 'column "kind" of table "roads" is TEXT in the store and REAL in the upload']
  ]
  for (const [name, tables, message] of cases) {
    const r = await putGpkg(s.app, `${DS}/city/file.gpkg?update=append`, upload(s, name, tables))
    t.equal(r.statusCode, 400, `${name}: ${r.body}`)
    t.equal(r.body, `Invalid data store: update=append: ${message}`, name)
  }
  t.ok(fs.readFileSync(s.storeFile).equals(before), 'the store\'s GeoPackage is byte for byte as before')
  t.same(read(s.storeFile, 'SELECT count(*) FROM places'), [[1]])
})

t.test('update=append from external.shp: 400 naming it; an unknown update value: 400; append with no store creates it', async (t) => {
  const s = await setup(t)
  writeShapefile(s.files, 'wells', { type: 'point', fields: [{ name: 'id', type: 'N', length: 5 }], features: [{ geometry: point(1, 1), values: [1] }] })
  const items = async () => zipItems(['shp', 'shx', 'dbf'].map((e) => ({ name: `wells.${e}`, data: fs.readFileSync(path.join(s.files, `wells.${e}`)) })))
  const put = async (url: string) => s.app.inject({ method: 'PUT', url, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await items() })
  t.equal((await put(`${DS}/wells/file.shp?update=append`)).statusCode, 201, 'no store yet: created, as GeoServer does')
  // The shapefile append itself: shp-append.test.ts. Not from a file elsewhere (external.shp):
  const ext = await s.app.inject({ method: 'PUT', url: `${DS}/wells/external.shp?update=append`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: path.join(s.files, 'wells.shp') })
  t.equal(ext.statusCode, 400)
  t.equal(ext.body, 'Invalid data store: update=append takes an uploaded file (file.shp or file.gpkg), not external.shp')
  const odd = await putGpkg(s.app, `${DS}/city/file.gpkg?update=sideways`, upload(s, 'odd', [places([['B', 1, 1]])]))
  t.equal(odd.statusCode, 400)
  t.equal(odd.body, 'Invalid data store: update="sideways": update is overwrite or append')
  t.same(read(s.storeFile, 'SELECT count(*) FROM places'), [[1]])
})
