// PUT file.shp?update=append onto an existing Shapefile store: the upload's records are appended to the
// store's shapefile of the same name (record numbers on, .shx offsets, header lengths and bbox, .dbf
// count and fields in the store's order and charset), the folder swapped in whole; WFS reads old and
// new features (a bbox read through the rebuilt spatial index too), GDAL's ogrinfo reads the files as
// valid, the feature type's bounds follow; a mismatching upload is a 400 naming what, the files left
// byte for byte; a directory store gains an uploaded type it lacks.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { execFile, spawnSync } from 'node:child_process'
import { promisify } from 'node:util'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { createWorkspace, zipItems } from '../appschema/helpers.js'
import { wfsGet } from '../wfs/helpers.js'
import { xyz } from '../../fixtures/vector-tiles.js'
import { indexFileOf, openShapefileIndex, shpStamp } from '../../../services/vector/shapefile-index.js'
import { writeShapefile, WGS84_WKT, ESRI_UTM33N_PRJ, type ShapefileDef } from '../../fixtures/vector/files.js'

const run = promisify(execFile)
const DS = `${BASE}/rest/workspaces/vx/datastores`
const point = (x: number, y: number) => ({ type: 'Point', coordinates: [x, y] })
const WELLS: ShapefileDef = {
  type: 'point',
  prj: WGS84_WKT,
  fields: [{ name: 'id', type: 'N', length: 5 }, { name: 'name', type: 'C', length: 10 }, { name: 'depth', type: 'N', length: 8, decimals: 2 }],
  features: [{ geometry: point(3, 4), values: [1, 'Alpha', 10.5] }]
}
const json = (r: LightMyRequestResponse) => JSON.parse(r.body)

interface Setup { app: FastifyInstance, files: string, folder: string }

async function zipOf (dir: string, names: string[]): Promise<Buffer> {
  const items = []
  for (const n of names) {
    for (const e of ['shp', 'shx', 'dbf', 'prj', 'cpg']) {
      const f = path.join(dir, `${n}.${e}`)
      if (fs.existsSync(f)) items.push({ name: `${n}.${e}`, data: fs.readFileSync(f) })
    }
  }
  return await zipItems(items)
}

const put = async (app: FastifyInstance, url: string, payload: Buffer) =>
  app.inject({ method: 'PUT', url, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload })

async function setup (t: Test, stores: Record<string, ShapefileDef> = { wells: WELLS }, store = 'wells'): Promise<Setup> {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir })
  await createWorkspace(app, 'vx')
  const files = tempDir(t, 'files')
  const base = path.join(files, 'base')
  for (const [n, def] of Object.entries(stores)) writeShapefile(base, n, def)
  const r = await put(app, `${DS}/${store}/file.shp?configure=all`, await zipOf(base, Object.keys(stores)))
  if (r.statusCode !== 201) throw new Error(`store: ${r.statusCode} ${r.body}`)
  return { app, files, folder: path.join(dataDir, 'data', 'vx', store) }
}

/** A ZIP of shapefiles written under a fresh folder of the test's files. */
async function upload (s: Setup, tag: string, defs: Record<string, ShapefileDef>): Promise<Buffer> {
  const dir = path.join(s.files, tag)
  for (const [n, def] of Object.entries(defs)) writeShapefile(dir, n, def)
  return await zipOf(dir, Object.keys(defs))
}

const snapshot = (folder: string) => Object.fromEntries(fs.readdirSync(folder).sort().map((n) => [n, fs.readFileSync(path.join(folder, n)).toString('base64')]))
const features = async (app: FastifyInstance, typeName: string, extra: Record<string, string> = {}) =>
  json(await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: typeName, outputFormat: 'application/json', ...extra }))
const gdal = !(spawnSync('ogrinfo', ['--version'], { stdio: 'ignore' }).status !== 0)

t.test('update=append adds the upload\'s records to the store\'s shapefile: WFS, the spatial index, ogrinfo and the bounds see old and new', async (t) => {
  const s = await setup(t)
  t.equal((await xyz(s.app, 'vx:wells', 0, 1, 0)).statusCode, 200)
  t.equal((await xyz(s.app, 'vx:wells', 0, 1, 0)).headers['geowebcache-cache-result'], 'HIT', 'a cached tile')
  // The upload's fields in another order, one shorter, one missing (left null), another decimal count.
  const res = await put(s.app, `${DS}/wells/file.shp?update=append`, await upload(s, 'a', {
    wells: {
      type: 'point',
      prj: WGS84_WKT,
      fields: [{ name: 'NAME', type: 'C', length: 6 }, { name: 'depth', type: 'N', length: 6, decimals: 1 }],
      features: [{ geometry: point(50, 60), values: ['Beta', 7.5] }, { geometry: point(-20, -30), values: ['Gamma', null] }]
    }
  }))
  t.equal(res.statusCode, 201, res.body)
  t.equal((await xyz(s.app, 'vx:wells', 0, 1, 0)).headers['geowebcache-cache-result'], 'MISS', 'the append dropped the layer\'s tiles')
  const all = await features(s.app, 'vx:wells')
  t.equal(all.numberMatched, 3)
  t.same(all.features.map((f: any) => [f.properties.id, f.properties.name, f.properties.depth, f.geometry.coordinates]),
    [[1, 'Alpha', 10.5, [3, 4]], [null, 'Beta', 7.5, [50, 60]], [null, 'Gamma', null, [-20, -30]]])
  const hits = await wfsGet(s.app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'vx:wells', resultType: 'hits' })
  t.match(hits.body, /numberOfFeatures="3"/)
  const boxed = await features(s.app, 'vx:wells', { bbox: '49,59,51,61,EPSG:4326' })
  t.same(boxed.features.map((f: any) => f.properties.name), ['Beta'], 'a bbox read finds the appended record')
  const ft = json(await s.app.inject({ method: 'GET', url: `${DS}/wells/featuretypes/wells.json`, headers: ADMIN })).featureType
  t.same([ft.nativeBoundingBox.minx, ft.nativeBoundingBox.miny, ft.nativeBoundingBox.maxx, ft.nativeBoundingBox.maxy], [-20, -30, 50, 60])
  // The bytes: record numbers on, .shx offsets, header lengths and bbox, .dbf count.
  const shp = fs.readFileSync(path.join(s.folder, 'wells.shp'))
  const shx = fs.readFileSync(path.join(s.folder, 'wells.shx'))
  t.equal(shp.readInt32BE(24) * 2, shp.length)
  t.equal(shx.length, 100 + 3 * 8)
  t.equal(shx.readInt32BE(24) * 2, shx.length)
  t.same([0, 1, 2].map((i) => shp.readInt32BE(shx.readInt32BE(100 + i * 8) * 2)), [1, 2, 3], 'each .shx offset points at the record of its number')
  t.same([36, 44, 52, 60].map((o) => shp.readDoubleLE(o)), [-20, -30, 50, 60])
  const dbf = fs.readFileSync(path.join(s.folder, 'wells.dbf'))
  t.equal(dbf.readUInt32LE(4), 3)
  t.equal(dbf[dbf.length - 1], 0x1a)
  t.equal(dbf.length, dbf.readUInt16LE(8) + 3 * dbf.readUInt16LE(10) + 1)
  t.same(fs.readdirSync(path.dirname(s.folder)), ['wells'], 'no folder left aside')
  const shpFile = path.join(s.folder, 'wells.shp')
  const index = openShapefileIndex(indexFileOf(shpFile, path.join(s.folder, '..', '..', '..', 'shapefile-index')), await shpStamp(shpFile))
  t.ok(index, 'the spatial index was built again for the new .shp')
  t.same(index?.prepare('SELECT id FROM records ORDER BY id').pluck().all(), [1, 2, 3])
  index?.close()
  if (!gdal) return t.fail('ogrinfo is missing: run scripts/install-gdal.sh')
  const info = await run('ogrinfo', ['-ro', '-al', path.join(s.folder, 'wells.shp')], { env: { ...process.env, CPL_DEBUG: 'OFF' } })
  t.match(info.stdout, /Feature Count: 3/)
  t.match(info.stdout, /name \(String\) = Gamma/)
  t.notMatch(info.stderr, /ERROR|Warning/i, info.stderr)
})

t.test('a mismatching upload: 400 naming what differs; the store\'s files are byte for byte as before', async (t) => {
  const s = await setup(t)
  const before = snapshot(s.folder)
  const one = (patch: Partial<ShapefileDef>): Record<string, ShapefileDef> => ({ wells: { ...WELLS, features: [{ geometry: point(1, 1), values: [2, 'B', 1] }], ...patch } })
  const cases: Array<[string, Record<string, ShapefileDef>, string]> = [
    ['shape', one({ type: 'polygon', features: [{ geometry: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] }, values: [2, 'B', 1] }] }), 'shapefile "wells" holds Point shapes in the store and Polygon in the upload'],
    ['type', one({ fields: [{ name: 'id', type: 'C', length: 5 }], features: [{ geometry: point(1, 1), values: ['x'] }] }), 'field "id" of shapefile "wells" is of type N in the store and C in the upload'],
    ['extra', one({ fields: [{ name: 'color', type: 'C', length: 5 }], features: [{ geometry: point(1, 1), values: ['red'] }] }), 'field "color" of shapefile "wells" is not a field of the store\'s .dbf (id, name, depth)'],
    ['length', one({ fields: [{ name: 'name', type: 'C', length: 40 }], features: [{ geometry: point(1, 1), values: ['long'] }] }), 'field "name" of shapefile "wells" is 10 long in the store and 40 in the upload'],
    ['digits', one({ fields: [{ name: 'depth', type: 'N', length: 12, decimals: 2 }], features: [{ geometry: point(1, 1), values: [1] }] }), 'field "depth" of shapefile "wells" is N(8,2) in the store and N(12,2) in the upload: its values would not fit'],
    ['crs', one({ prj: ESRI_UTM33N_PRJ }), 'the .prj of shapefile "wells" names EPSG:4326 in the store and EPSG:32633 in the upload'],
    ['name', { lakes: WELLS }, 'shapefile "lakes" of the upload is not the type of shapefile store "wells" ("wells"); append adds features to that type']
  ]
  for (const [tag, defs, message] of cases) {
    const r = await put(s.app, `${DS}/wells/file.shp?update=append`, await upload(s, tag, defs))
    t.equal(r.statusCode, 400, `${tag}: ${r.body}`)
    t.equal(r.body, `Invalid data store: update=append: ${message}`, tag)
  }
  // A torn upload: its last record runs past the end of its .shp.
  const torn = path.join(s.files, 'torn')
  writeShapefile(torn, 'wells', { ...WELLS, features: [{ geometry: point(1, 1), values: [2, 'B', 1] }, { geometry: point(2, 2), values: [3, 'C', 1] }] })
  fs.truncateSync(path.join(torn, 'wells.shp'), fs.statSync(path.join(torn, 'wells.shp')).size - 4)
  const r = await put(s.app, `${DS}/wells/file.shp?update=append`, await zipOf(torn, ['wells']))
  t.equal(r.statusCode, 400, r.body)
  t.equal(r.body, 'Invalid data store: update=append: the uploaded "wells.shp" is not whole at record 2')
  t.same(snapshot(s.folder), before, 'the store\'s files are as they were')
  t.equal((await features(s.app, 'vx:wells')).numberMatched, 1)
})

t.test('a directory store: an uploaded type it has gets the records, one it lacks joins the folder; text goes into the store\'s charset', async (t) => {
  const roads: ShapefileDef = { type: 'polyline', prj: WGS84_WKT, fields: [{ name: 'kind', type: 'C', length: 12 }], features: [{ geometry: { type: 'LineString', coordinates: [[0, 0], [1, 1]] }, values: ['main'] }] }
  const s = await setup(t, { wells: WELLS, roads }, 'net')
  const res = await put(s.app, `${DS}/net/file.shp?update=append&configure=all`, await upload(s, 'a', {
    roads: { ...roads, cpg: 'UTF-8', encoding: 'utf8', features: [{ geometry: { type: 'LineString', coordinates: [[5, 5], [6, 7]] }, values: ['Zürichweg'] }] },
    lakes: { ...WELLS, features: [{ geometry: point(9, 9), values: [9, 'Lake', 1] }] }
  }))
  t.equal(res.statusCode, 201, res.body)
  t.same((await features(s.app, 'vx:roads')).features.map((f: any) => f.properties.kind), ['main', 'Zürichweg'])
  const dbf = fs.readFileSync(path.join(s.folder, 'roads.dbf'))
  t.ok(dbf.includes(Buffer.from('Zürichweg', 'latin1')), 'written in the store\'s ISO-8859-1')
  t.same((await features(s.app, 'vx:lakes')).features.map((f: any) => f.properties.name), ['Lake'], 'the new type, published by configure=all')
  t.equal((await features(s.app, 'vx:wells')).numberMatched, 1, 'a type the upload does not hold is untouched')
  if (!gdal) return t.fail('ogrinfo is missing: run scripts/install-gdal.sh')
  const info = await run('ogrinfo', ['-ro', '-so', path.join(s.folder, 'roads.shp'), 'roads'], { env: { ...process.env, CPL_DEBUG: 'OFF' } })
  t.match(info.stdout, /Feature Count: 2/)
  t.match(info.stdout, /Extent: \(0\.000000, 0\.000000\) - \(6\.000000, 7\.000000\)/)
})
