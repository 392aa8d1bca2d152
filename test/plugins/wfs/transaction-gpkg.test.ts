// WFS-T on GeoPackage layers: Insert, Update and Delete written to the file (geometry blobs with the
// GP header and the column's srs_id, the R-tree kept in step, the contents' extent grown), all or
// nothing when an action fails, GeoServer's responses; shapefile layers refused with the OGC code
// (their files untouched).
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { ADMIN, BASE, build, tempDir } from '../../helper.js'
import { createWorkspace, zipItems } from '../appschema/helpers.js'
import { writeGeoPackage, writeShapefile, WGS84_WKT } from '../../fixtures/vector/files.js'
import { Database } from '../../../services/storage/sqlite/sqlite-driver.js'
import { wfsGet, wfsPost } from './helpers.js'

const dataDir = tempDir(t)
const app = await build(t, { dataDir })
await createWorkspace(app, 'vx')
const dir = tempDir(t, 'gpkg')
writeGeoPackage(path.join(dir, 'sites.gpkg'), [{
  name: 'sites',
  columns: ['name TEXT(20) NOT NULL', 'height REAL', 'open BOOLEAN'],
  geometryColumn: 'geom',
  geometryType: 'POINT',
  rtree: true,
  extent: [0, 0, 10, 10],
  rows: [
    { values: ['One', 1.5, 1], geometry: { type: 'Point', coordinates: [0, 0] } },
    { values: ['Two', 2.5, 0], geometry: { type: 'Point', coordinates: [10, 10] } }
  ]
}])
const up = await app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/vx/datastores/gp/file.gpkg?configure=all`, headers: { ...ADMIN, 'content-type': 'application/geopackage+sqlite3' }, payload: fs.readFileSync(path.join(dir, 'sites.gpkg')) })
if (up.statusCode !== 201) throw new Error(up.body)
const stored = path.join(dataDir, 'data', 'vx', 'gp')
const file = path.join(stored, fs.readdirSync(stored).find((f) => f.endsWith('.gpkg'))!)

const W20 = 'xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:s="http://mapwarden.org/ns/vx"'
const tx = (xml: string) => wfsPost(app, xml, '/wfs', ADMIN)
interface Feat { id: string, properties: Record<string, unknown>, geometry: { coordinates: number[] } }
const features = async (): Promise<Feat[]> =>
  JSON.parse((await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'vx:sites', outputFormat: 'application/json', sortBy: 'name' }, ADMIN)).body).features
const inFile = <T>(fn: (db: InstanceType<typeof Database>) => T): T => {
  const db = new Database(file, { readonly: true })
  try { return fn(db) } finally { db.close() }
}

t.test('Insert, Update and Delete in one transaction, written to the GeoPackage as GeoServer would', async (t) => {
  const r = await tx(`<wfs:Transaction service="WFS" version="2.0.0" ${W20}>
    <wfs:Insert><s:sites><s:name>Three</s:name><s:height>3</s:height><s:open>true</s:open>
      <s:geom><gml:Point srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>20 30</gml:pos></gml:Point></s:geom></s:sites></wfs:Insert>
    <wfs:Update typeName="s:sites"><wfs:Property><wfs:ValueReference>geom</wfs:ValueReference><wfs:Value><gml:Point srsName="EPSG:4326"><gml:pos>5 6</gml:pos></gml:Point></wfs:Value></wfs:Property>
      <fes:Filter><fes:ResourceId rid="sites.1"/></fes:Filter></wfs:Update>
    <wfs:Delete typeName="s:sites"><fes:Filter><fes:PropertyIsEqualTo><fes:ValueReference>name</fes:ValueReference><fes:Literal>Two</fes:Literal></fes:PropertyIsEqualTo></fes:Filter></wfs:Delete>
  </wfs:Transaction>`)
  t.equal(r.statusCode, 200, r.body)
  t.match(r.body, '<wfs:TransactionSummary><wfs:totalInserted>1</wfs:totalInserted><wfs:totalUpdated>1</wfs:totalUpdated><wfs:totalReplaced>0</wfs:totalReplaced><wfs:totalDeleted>1</wfs:totalDeleted></wfs:TransactionSummary>' +
    '<wfs:InsertResults><wfs:Feature><fes:ResourceId rid="sites.3"/></wfs:Feature></wfs:InsertResults>')
  const f = await features()
  t.same(f.map((x) => [x.id, x.properties.name, x.properties.height, x.properties.open, x.geometry.coordinates]),
    [['sites.1', 'One', 1.5, true, [5, 6]], ['sites.3', 'Three', 3, true, [30, 20]]])
  t.same(inFile((db) => db.prepare('SELECT id, minx, maxx, miny, maxy FROM rtree_sites_geom ORDER BY id').all()),
    [{ id: 1, minx: 5, maxx: 5, miny: 6, maxy: 6 }, { id: 3, minx: 30, maxx: 30, miny: 20, maxy: 20 }], 'the R-tree follows')
  t.same(inFile((db) => db.prepare('SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = ?').get('sites')), { min_x: 0, min_y: 0, max_x: 30, max_y: 20 }, 'the extent grew')
  const blob = inFile((db) => db.prepare('SELECT geom FROM sites WHERE fid = 3').pluck().get()) as Buffer
  t.equal(blob.subarray(0, 2).toString('latin1'), 'GP')
  t.equal(blob.readInt32LE(4), 4326, 'the column\'s srs_id')
  // A BBOX read goes through the R-tree: the moved point is found where it is now.
  const box = JSON.parse((await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'vx:sites', outputFormat: 'application/json', bbox: '4,4,7,7,EPSG:4326' }, ADMIN)).body)
  t.same(box.features.map((x: Feat) => x.id), ['sites.1'])
})

t.test('all or nothing: a NOT NULL column left empty by the 2nd action undoes the 1st', async (t) => {
  const before = await features()
  const rtree = inFile((db) => db.prepare('SELECT count(*) FROM rtree_sites_geom').pluck().get())
  const r = await tx(`<wfs:Transaction service="WFS" version="1.1.0" xmlns:wfs="http://www.opengis.net/wfs" xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="http://www.opengis.net/gml" xmlns:s="http://mapwarden.org/ns/vx">
    <wfs:Insert><s:sites><s:name>Four</s:name><s:geom><gml:Point><gml:pos>1 1</gml:pos></gml:Point></s:geom></s:sites></wfs:Insert>
    <wfs:Update typeName="s:sites"><wfs:Property><wfs:Name>name</wfs:Name></wfs:Property><ogc:Filter><ogc:FeatureId fid="sites.1"/></ogc:Filter></wfs:Update>
  </wfs:Transaction>`)
  t.equal(r.statusCode, 200, 'WFS 1.1.0 reports with 200')
  t.match(r.body, /exceptionCode="InvalidParameterValue"/)
  t.match(r.body, /NOT NULL/)
  t.same(await features(), before, 'nothing changed')
  t.equal(inFile((db) => db.prepare('SELECT count(*) FROM rtree_sites_geom').pluck().get()), rtree)
})

t.test('bad values and geometries: the OGC code, nothing written', async (t) => {
  const before = await features()
  for (const [xml, text] of [
    ['<s:sites><s:name>x</s:name><s:height>high</s:height></s:sites>', /takes a number/],
    ['<s:sites><s:name>x</s:name><s:open>maybe</s:open></s:sites>', /true or false/],
    ['<s:sites><s:name>x</s:name><s:geom><gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>0 0 1 0 1 1 0 0</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></s:geom></s:sites>', /holds POINT geometries/],
    ['<s:sites><s:name>x</s:name><s:geom><gml:Curve/></s:geom></s:sites>', /supported geometries/]
  ] as const) {
    const r = await tx(`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Insert>${xml}</wfs:Insert></wfs:Transaction>`)
    t.equal(r.statusCode, 400, r.body)
    t.match(r.body, /exceptionCode="InvalidParameterValue"/)
    t.match(r.body, text)
  }
  t.same(await features(), before)
})

t.test('a shapefile layer is OperationNotSupported and its files are untouched', async (t) => {
  writeShapefile(dir, 'pts', { type: 'point', fields: [{ name: 'num', type: 'N', length: 9 }], features: [{ geometry: { type: 'Point', coordinates: [1, 2] }, values: [1] }], prj: WGS84_WKT })
  const zip = await zipItems(['shp', 'shx', 'dbf', 'prj'].map((e) => ({ name: `pts.${e}`, data: fs.readFileSync(path.join(dir, `pts.${e}`)) })))
  const res = await app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/vx/datastores/pts/file.shp?configure=all`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  t.equal(res.statusCode, 201, res.body)
  const shp = path.join(dataDir, 'data', 'vx', 'pts')
  const before = fs.readdirSync(shp).map((f) => [f, fs.readFileSync(path.join(shp, f)).toString('base64')])
  const r = await tx(`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Insert><s:pts><s:num>2</s:num><s:the_geom><gml:Point><gml:pos>3 4</gml:pos></gml:Point></s:the_geom></s:pts></wfs:Insert></wfs:Transaction>`)
  t.equal(r.statusCode, 400, r.body)
  t.match(r.body, 'exceptionCode="OperationNotSupported" locator="Transaction"')
  t.match(r.body, /vx:pts is read from Shapefile files/)
  t.same(fs.readdirSync(shp).map((f) => [f, fs.readFileSync(path.join(shp, f)).toString('base64')]), before)
})

t.test('a GeoPackage written by GDAL (R-tree kept by its triggers) stays whole for GDAL after a Transaction', async (t) => {
  if (spawnSync('ogr2ogr', ['--version'], { stdio: 'ignore' }).status !== 0) return t.fail('ogr2ogr is missing: run scripts/install-gdal.sh')
  const src = path.join(dir, 'towns.geojson')
  fs.writeFileSync(src, JSON.stringify({ type: 'FeatureCollection', features: [
    { type: 'Feature', properties: { label: 'A' }, geometry: { type: 'Point', coordinates: [1, 1] } },
    { type: 'Feature', properties: { label: 'B' }, geometry: { type: 'Point', coordinates: [2, 2] } }
  ] }))
  const gpkg = path.join(dir, 'towns.gpkg')
  execFileSync('ogr2ogr', ['-f', 'GPKG', gpkg, src, '-nln', 'towns', '-a_srs', 'EPSG:4326'])
  const res = await app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/vx/datastores/towns/file.gpkg?configure=all`, headers: { ...ADMIN, 'content-type': 'application/geopackage+sqlite3' }, payload: fs.readFileSync(gpkg) })
  t.equal(res.statusCode, 201, res.body)
  const r = await tx(`<wfs:Transaction service="WFS" version="2.0.0" ${W20}>
    <wfs:Insert><s:towns><s:label>C</s:label><s:geom><gml:Point srsName="EPSG:4326"><gml:pos>7 8</gml:pos></gml:Point></s:geom></s:towns></wfs:Insert>
    <wfs:Delete typeName="s:towns"><fes:Filter><fes:ResourceId rid="towns.1"/></fes:Filter></wfs:Delete></wfs:Transaction>`)
  t.equal(r.statusCode, 200, r.body)
  t.match(r.body, '<fes:ResourceId rid="towns.3"/>')
  const stored = path.join(dataDir, 'data', 'vx', 'towns')
  const file = path.join(stored, fs.readdirSync(stored).find((f) => f.endsWith('.gpkg'))!)
  // GDAL reads the file back: the features, and through its spatial index the new one where it is.
  const all = execFileSync('ogrinfo', ['-ro', '-q', file, 'towns', '-sql', 'SELECT label FROM towns ORDER BY label'], { encoding: 'utf8' })
  t.same([...all.matchAll(/label \(String\) = (\w)/g)].map((m) => m[1]), ['B', 'C'])
  const near = execFileSync('ogrinfo', ['-ro', '-q', file, 'towns', '-spat', '6', '7', '8', '9'], { encoding: 'utf8' })
  t.same([...near.matchAll(/label \(String\) = (\w)/g)].map((m) => m[1]), ['C'])
  const db = new Database(file, { readonly: true })
  try {
    t.same(db.prepare('SELECT id FROM rtree_towns_geom ORDER BY id').pluck().all(), [2, 3], 'the triggers kept the R-tree in step')
  } finally { db.close() }
})
