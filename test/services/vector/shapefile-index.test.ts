// The spatial index of shapefiles read in place (services/vector/shapefile-index.ts): a read with a
// bounding box gives exactly what a full scan and an exact filter give (Natural Earth countries of
// world-atlas written as a shapefile by ogr2ogr, holes and islands included, and 5,000 points),
// and what ogr2ogr -spat selects; the index is rebuilt when the .shp changes; a torn index, or one
// that claims to be fresh for a .shp that changed, never gives a wrong answer. Counting: the .shx
// count without a box or filter, the matching records otherwise; a GeoPackage counts in SQL.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { execFileSync, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { feature } from 'topojson-client'
import { tempDir } from '../../helper.js'
import { writeGeoPackage, writeShapefile, WGS84_WKT } from '../../fixtures/vector/files.js'
import { createShapefileSource } from '../../../services/vector/shapefile-source.js'
import { createGeoPackageSource } from '../../../services/vector/geopackage-source.js'
import { indexFileOf, shpStamp } from '../../../services/vector/shapefile-index.js'
import { Database } from '../../../services/storage/sqlite/sqlite-driver.js'
import { parseEcql } from '../../../services/filters/ecql.js'
import type { Feature, ReadQuery, VectorSource } from '../../../services/vector/source.js'
import type { Envelope } from '../../../services/filters/tree.js'

const require = createRequire(import.meta.url)
const hasOgr = spawnSync('ogr2ogr', ['--version'], { stdio: 'ignore' }).status === 0

async function read (s: VectorSource, q: ReadQuery): Promise<Feature[]> {
  const out: Feature[] = []
  for await (const f of s.readFeatures(q)) out.push(f)
  return out
}
/** Features as comparable plain values: id, properties, GeoJSON geometry. */
const plain = (fs_: Feature[]) => fs_.map((f) => ({ id: f.id, properties: f.properties, geometry: f.geometry }))

/** The attributes the filters of these tests name. */
const SCHEMA = { attributes: [{ name: 'name', type: 'String' }, { name: 'num', type: 'Double' }, { name: 'the_geom', type: 'Geometry' }], crs: 'EPSG:4326' }

const BOXES: Envelope[] = [
  [-10.3, 35.7, 30.1, 60.2], // Europe
  [16.1, -35.1, 33.3, -21.9], // South Africa with Lesotho inside it (a hole)
  [-180, -90, 180, 90],
  [100.05, -11.9, 160.3, 7.7], // islands
  [-30.5, -5.5, -29.5, -4.5], // sea only
  [0.01, 0.01, 0.02, 0.02]
]

function pointsShapefile (dir: string, name: string, n: number, shift = 0): string {
  const features = []
  for (let i = 0; i < n; i++) {
    const x = ((i * 7919) % 3600) / 10 - 180 + shift
    const y = ((i * 104729) % 1800) / 10 - 90
    features.push({ geometry: { type: 'Point', coordinates: [x, y] }, values: [`p${i}`, i] })
  }
  return writeShapefile(dir, name, {
    type: 'point',
    fields: [{ name: 'label', type: 'C', length: 12 }, { name: 'num', type: 'N', length: 9 }],
    features,
    prj: WGS84_WKT
  })
}

t.test('a bbox read through the index equals a full scan filtered exactly, and ogr2ogr -spat (Natural Earth countries)', async (t) => {
  if (!hasOgr) return t.fail('ogr2ogr is missing: run scripts/install-gdal.sh')
  const dir = tempDir(t)
  const topo = require('world-atlas/countries-50m.json')
  const geojson = path.join(dir, 'countries.geojson')
  const fc = feature(topo, topo.objects.countries) as any
  fc.features.forEach((f: any, i: number) => { f.properties = { name: f.properties.name, num: i } })
  fs.writeFileSync(geojson, JSON.stringify(fc))
  const shpDir = path.join(dir, 'shp')
  fs.mkdirSync(shpDir)
  execFileSync('ogr2ogr', ['-f', 'ESRI Shapefile', '-nlt', 'MULTIPOLYGON', path.join(shpDir, 'countries.shp'), geojson])
  const indexDir = path.join(dir, 'index')
  const indexed = createShapefileSource({ path: shpDir, charset: 'UTF-8', fetchSize: 7, indexDir })
  const scanned = createShapefileSource({ path: shpDir, charset: 'UTF-8', fetchSize: 7 })
  t.teardown(async () => { await indexed.close(); await scanned.close() })
  for (const bbox of BOXES) {
    const a = await read(indexed, { type: 'countries', bbox, geometryFormat: 'geojson' })
    const b = await read(scanned, { type: 'countries', bbox, geometryFormat: 'geojson' })
    t.same(plain(a), plain(b), `box ${bbox.join(',')}: the indexed read equals the scan (ids, values, geometries, order)`)
    t.equal(await indexed.count!({ type: 'countries', bbox }), b.length, `box ${bbox.join(',')}: count`)
    const out = path.join(dir, `spat-${BOXES.indexOf(bbox)}.csv`)
    execFileSync('ogr2ogr', ['-f', 'CSV', out, path.join(shpDir, 'countries.shp'), '-spat', ...bbox.map(String), '-select', 'num'])
    const ogr = fs.readFileSync(out, 'utf8').trim().split('\n').slice(1).map((l) => Number(l.replace(/"/g, ''))).sort((x, y) => x - y)
    t.same(a.map((f) => f.properties.num as number).sort((x, y) => x - y), ogr, `box ${bbox.join(',')}: the same countries as ogr2ogr -spat`)
  }
  const sa = await read(indexed, { type: 'countries', bbox: BOXES[1], geometryFormat: 'geojson' })
  t.ok(sa.some((f) => f.properties.name === 'Lesotho') && sa.some((f) => f.properties.name === 'South Africa'), 'Lesotho and South Africa (its hole) both read')
  t.ok(fs.existsSync(indexFileOf(path.join(shpDir, 'countries.shp'), indexDir)), 'the index lives under the index folder, not beside the data')
  t.same(fs.readdirSync(shpDir).filter((n) => !/\.(shp|shx|dbf|prj|cpg)$/i.test(n)), [], 'nothing written beside the shapefile')
  // Filter, page and order on top of the index, as the scan gives them.
  const q = { type: 'countries', bbox: BOXES[0], filter: parseEcql("name LIKE '%a%'", SCHEMA), sortBy: [{ name: 'name', descending: true }], offset: 2, limit: 5 }
  t.same(plain(await read(indexed, q)), plain(await read(scanned, q)), 'filter, order and page over an indexed read')
  // The same countries with a Z (PolygonZ records: the envelope at the same place, Z after XY).
  execFileSync('ogr2ogr', ['-f', 'ESRI Shapefile', '-nlt', 'MULTIPOLYGON25D', '-dim', 'XYZ', path.join(shpDir, 'countriesz.shp'), geojson])
  for (const bbox of BOXES.slice(0, 2)) {
    const z = { type: 'countriesz', bbox, geometryFormat: 'geojson' as const }
    const got = await read(indexed, z)
    t.ok(got.length > 0)
    t.same(plain(got), plain(await read(scanned, z)), `PolygonZ, box ${bbox.join(',')}: indexed as scanned`)
  }
  t.ok(fs.existsSync(indexFileOf(path.join(shpDir, 'countriesz.shp'), indexDir)), 'a PolygonZ file is indexed')
  const bboxCql = { type: 'countries', filter: parseEcql('BBOX(the_geom, 16.1, -35.1, 33.3, -21.9)', SCHEMA) }
  t.same(plain(await read(indexed, bboxCql)), plain(await read(scanned, bboxCql)), 'a CQL BBOX (envelopes, as the SQL compilers) through the index as by a scan')
  t.equal(await indexed.count!({ type: 'countries', bbox: BOXES[0], filter: parseEcql("name LIKE '%a%'", SCHEMA) }), (await read(scanned, { type: 'countries', bbox: BOXES[0], filter: parseEcql("name LIKE '%a%'", SCHEMA) })).length)
})

t.test('5,000 points: exact boxes; count from the .shx without a box; the index rebuilt when the .shp changes', async (t) => {
  const dir = tempDir(t)
  const shpDir = path.join(dir, 'shp')
  const shp = pointsShapefile(shpDir, 'pts', 5000)
  const indexDir = path.join(dir, 'index')
  const indexed = createShapefileSource({ path: shpDir, charset: 'ISO-8859-1', fetchSize: 100, indexDir })
  const scanned = createShapefileSource({ path: shpDir, charset: 'ISO-8859-1', fetchSize: 100 })
  const box: Envelope = [-20, -10, 20, 30]
  const a = await read(indexed, { type: 'pts', bbox: box })
  const b = await read(scanned, { type: 'pts', bbox: box })
  t.ok(a.length > 100 && a.length < 2000, `a box holding some of the points (${a.length})`)
  t.same(plain(a), plain(b), 'indexed read equals the scan')
  t.same(plain(await read(indexed, { type: 'pts', bbox: [-180, -90, 180, 90], offset: 4990 })), plain(await read(scanned, { type: 'pts', offset: 4990 })), 'the whole extent, paged')
  t.equal(await indexed.count!({ type: 'pts' }), 5000, 'unfiltered count: the .shx record count')
  t.equal(await indexed.count!({ type: 'pts', bbox: box }), b.length, 'count with a box')
  const file = indexFileOf(shp, indexDir)
  // The index reads only the records it names: a record away from the box broken (shape type 99)
  // breaks a scan, not the indexed read. (The stamp forged, as the edit changed the .shp's mtime.)
  const far = 1 + [...Array(5000).keys()].find((i) => { const x = ((i * 7919) % 3600) / 10 - 180; return x > 100 })!
  const bytes = fs.readFileSync(shp)
  bytes.writeInt32LE(99, 100 + (far - 1) * 28 + 8)
  fs.writeFileSync(shp, bytes)
  const forge = async () => { const db = new Database(file); try { db.prepare("UPDATE meta SET value = ? WHERE key = 'stamp'").run(await shpStamp(shp)) } finally { db.close() } }
  await forge()
  t.same(plain(await read(indexed, { type: 'pts', bbox: box })), plain(b), 'the indexed read never touches a record away from the box')
  t.notSame(plain(await read(scanned, { type: 'pts', bbox: box })), plain(b), 'while a scan stumbles on it')
  // A filter requiring a BBOX (alone or under AND) takes the index too.
  const cql = parseEcql(`BBOX(the_geom, ${box.join(', ')}) AND num >= 0`, { attributes: [{ name: 'num', type: 'Double' }, { name: 'the_geom', type: 'Geometry' }], crs: 'EPSG:4326' })
  t.same(plain(await read(indexed, { type: 'pts', filter: cql })), plain(b), 'a CQL BBOX under AND: the index, the same points')
  const stampOf = () => { const db = new Database(file, { readonly: true }); try { return (db.prepare("SELECT value FROM meta WHERE key = 'stamp'").pluck().get()) } finally { db.close() } }
  const before = stampOf()
  // The .shp rewritten: points moved 50 degrees east, fewer of them.
  pointsShapefile(shpDir, 'pts', 3000, 50)
  const future = new Date(Date.now() + 5000)
  for (const ext of ['shp', 'shx', 'dbf']) fs.utimesSync(path.join(shpDir, `pts.${ext}`), future, future)
  const c = await read(indexed, { type: 'pts', bbox: box })
  t.same(plain(c), plain(await read(scanned, { type: 'pts', bbox: box })), 'after the .shp changed: the new features')
  t.not(stampOf(), before, 'the index was rebuilt for the new .shp')
  t.equal(await indexed.count!({ type: 'pts' }), 3000)
  await indexed.close(); await scanned.close()
})

t.test('a torn index, and a stale one claiming to be fresh, never give a wrong answer', async (t) => {
  const dir = tempDir(t)
  const shpDir = path.join(dir, 'shp')
  const shp = pointsShapefile(shpDir, 'pts', 2000)
  const indexDir = path.join(dir, 'index')
  const indexed = createShapefileSource({ path: shpDir, charset: 'ISO-8859-1', fetchSize: 50, indexDir })
  const scanned = createShapefileSource({ path: shpDir, charset: 'ISO-8859-1', fetchSize: 50 })
  t.teardown(async () => { await indexed.close(); await scanned.close() })
  const box: Envelope = [-60, -40, 60, 40]
  await read(indexed, { type: 'pts', bbox: box })
  const file = indexFileOf(shp, indexDir)
  // Torn: the index file cut in half.
  const bytes = fs.readFileSync(file)
  fs.writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length / 2)))
  t.same(plain(await read(indexed, { type: 'pts', bbox: box })), plain(await read(scanned, { type: 'pts', bbox: box })), 'a torn index: rebuilt, the right features')
  // Garbage: not SQLite at all.
  fs.writeFileSync(file, 'not an index')
  t.same(plain(await read(indexed, { type: 'pts', bbox: box })), plain(await read(scanned, { type: 'pts', bbox: box })), 'a file that is no index: rebuilt, the right features')
  // Stale but claiming fresh: the .shp rewritten with polygons of other sizes (other offsets), the
  // old index's stamp forged to the new file's.
  const old = fs.readFileSync(file)
  const feats = []
  for (let i = 0; i < 1500; i++) {
    const x = (i % 60) * 6 - 180; const y = Math.floor(i / 60) * 7 - 90
    feats.push({ geometry: { type: 'Polygon', coordinates: [[[x, y], [x + 2 + (i % 3), y], [x + 2, y + 3], [x, y]]] }, values: [`q${i}`, i] })
  }
  writeShapefile(shpDir, 'pts', { type: 'polygon', fields: [{ name: 'label', type: 'C', length: 12 }, { name: 'num', type: 'N', length: 9 }], features: feats })
  fs.writeFileSync(file, old)
  const db = new Database(file)
  db.prepare("UPDATE meta SET value = ? WHERE key = 'stamp'").run(await shpStamp(shp))
  db.close()
  t.same(plain(await read(indexed, { type: 'pts', bbox: box })), plain(await read(scanned, { type: 'pts', bbox: box })), 'a stale index with a forged stamp: every answer as the scan gives it')
  // Fewer records than the index names: record headers past the end.
  writeShapefile(shpDir, 'pts', { type: 'point', fields: [{ name: 'label', type: 'C', length: 12 }, { name: 'num', type: 'N', length: 9 }], features: [{ geometry: { type: 'Point', coordinates: [1, 1] }, values: ['only', 1] }] })
  fs.writeFileSync(file, old)
  const db2 = new Database(file)
  db2.prepare("UPDATE meta SET value = ? WHERE key = 'stamp'").run(await shpStamp(shp))
  db2.close()
  t.same(plain(await read(indexed, { type: 'pts', bbox: box })), plain(await read(scanned, { type: 'pts', bbox: box })), 'an index naming records the .shp no longer has')
})

t.test('GeoPackage count: the table without a box or filter, the compiled WHERE otherwise', async (t) => {
  const dir = tempDir(t)
  const file = path.join(dir, 'g.gpkg')
  const rows = []
  for (let i = 0; i < 120; i++) rows.push({ values: [`r${i}`, i], geometry: { type: 'Point', coordinates: [(i % 30) - 15, Math.floor(i / 30) - 5] } })
  writeGeoPackage(file, [{ name: 'pts', columns: ['label TEXT', 'num INTEGER'], geometryColumn: 'geom', geometryType: 'POINT', rtree: true, rows }])
  const g = createGeoPackageSource({ file, fetchSize: 16, exposePrimaryKeys: false })
  t.teardown(() => g.close())
  t.equal(await g.count!({ type: 'pts' }), 120)
  const q = { type: 'pts', bbox: [-3.5, -2.5, 4.5, 3.5] as Envelope, filter: parseEcql('num > 100', SCHEMA) }
  t.equal(await g.count!(q), (await read(g, q)).length)
  t.equal(await g.count!({ type: 'pts', filter: parseEcql('num < 10', SCHEMA), limit: 3, offset: 1 }), 10, 'page and order aside')
  await t.rejects(g.count!({ type: 'nope' }), /no feature table/)
})
