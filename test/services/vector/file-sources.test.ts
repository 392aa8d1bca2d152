// The GeoPackage and Shapefile vector sources over the same small data written by the tests (a
// GeoPackage with an R-tree and one without, a shapefile): type lists, schemas with GeoServer's
// bindings, bounds, the CRS, and reads with a bounding box (exact, not only the envelope), ECQL
// filters, properties, order and pages, geometries as WKB and GeoJSON; both sources give the same
// answers. The GeoPackage's SQL binds every value and quotes every name.
import t, { type Test } from 'tap'
import path from 'node:path'
import wkx from 'wkx'
import { tempDir } from '../../helper.js'
import { writeGeoPackage, writeShapefile, ESRI_UTM33N_PRJ, ESRI_WGS84_PRJ, WGS84_WKT } from '../../fixtures/vector/files.js'
import { createGeoPackageSource, gpkgSelectSql } from '../../../services/vector/geopackage-source.js'
import { createShapefileSource } from '../../../services/vector/shapefile-source.js'
import { sridOfPrj } from '../../../services/vector/prj.js'
import { parseEcql } from '../../../services/filters/ecql.js'
import { matches } from '../../../services/filters/evaluate.js'
import type { Feature, ReadQuery, VectorSource } from '../../../services/vector/source.js'

const PLACES = [
  { name: 'Alpha', pop: 100, area: 1.5, capital: true, at: [-10, -5] },
  { name: 'Beta', pop: 200, area: 2.5, capital: false, at: [20, 15] },
  { name: 'Gamma', pop: null, area: null, capital: null, at: [5, 40] },
  { name: 'Ørsted', pop: 50, area: 0.5, capital: false, at: [12, 55] }
]
// An L-shaped polygon whose envelope covers (3, 3) though the polygon does not.
const ELL = { type: 'Polygon', coordinates: [[[0, 0], [4, 0], [4, 1], [1, 1], [1, 4], [0, 4], [0, 0]]] }
const SQUARE = { type: 'Polygon', coordinates: [[[10, 10], [12, 10], [12, 12], [10, 12], [10, 10]]] }

function sources (t: Test): { gpkg: VectorSource, plain: VectorSource, shp: VectorSource } {
  const dir = tempDir(t)
  const file = path.join(dir, 'data.gpkg')
  const places = {
    columns: ['name TEXT(20) NOT NULL', 'pop INTEGER', 'area DOUBLE', 'capital BOOLEAN'],
    geometryColumn: 'geom',
    geometryType: 'POINT',
    rows: PLACES.map((p) => ({ values: [p.name, p.pop, p.area, p.capital === null ? null : p.capital ? 1 : 0], geometry: { type: 'Point', coordinates: p.at } }))
  }
  const parcels = { columns: ['kind TEXT'], geometryColumn: 'geom', geometryType: 'MULTIPOLYGON', rows: [
    { values: ['ell'], geometry: { type: 'MultiPolygon', coordinates: [ELL.coordinates] } },
    { values: ['square'], geometry: { type: 'MultiPolygon', coordinates: [SQUARE.coordinates] } }
  ] }
  writeGeoPackage(file, [
    { name: 'places', ...places, rtree: true, extent: [-180, -90, 180, 90] },
    { name: 'parcels', ...parcels, rtree: true },
    { name: 'notes', columns: ['text TEXT'], rows: [{ values: ['a note'] }] }
  ])
  const plainFile = path.join(dir, 'plain.gpkg')
  writeGeoPackage(plainFile, [{ name: 'places', ...places }, { name: 'parcels', ...parcels }])
  const shpDir = path.join(dir, 'shp')
  writeShapefile(shpDir, 'places', {
    type: 'point',
    fields: [{ name: 'name', type: 'C', length: 20 }, { name: 'pop', type: 'N', length: 9 }, { name: 'area', type: 'N', length: 12, decimals: 3 }, { name: 'capital', type: 'L', length: 1 }],
    features: PLACES.map((p) => ({ geometry: { type: 'Point', coordinates: p.at }, values: [p.name, p.pop, p.area, p.capital] })),
    prj: ESRI_WGS84_PRJ
  })
  writeShapefile(shpDir, 'parcels', {
    type: 'polygon',
    fields: [{ name: 'kind', type: 'C', length: 10 }],
    features: [{ geometry: ELL, values: ['ell'] }, { geometry: SQUARE, values: ['square'] }],
    prj: WGS84_WKT
  })
  const gpkg = createGeoPackageSource({ file, fetchSize: 2, exposePrimaryKeys: false })
  const plain = createGeoPackageSource({ file: plainFile, fetchSize: 2, exposePrimaryKeys: false })
  const shp = createShapefileSource({ path: shpDir, charset: 'ISO-8859-1', fetchSize: 2 })
  t.teardown(async () => { await gpkg.close(); await plain.close(); await shp.close() })
  return { gpkg, plain, shp }
}

async function read (s: VectorSource, q: ReadQuery): Promise<Feature[]> {
  const out: Feature[] = []
  for await (const f of s.readFeatures(q)) out.push(f)
  return out
}
const names = (fs: Feature[]) => fs.map((f) => f.properties.name ?? f.properties.kind)
const schemaOf = (attrs: string[]) => ({ attributes: attrs.map((a) => ({ name: a, type: a === 'name' ? 'String' : a === 'capital' ? 'Boolean' : 'Double' })), crs: 'EPSG:4326' })

t.test('type lists, schemas with GeoServer\'s bindings, bounds and CRS', async (t) => {
  const { gpkg, shp } = sources(t)
  t.same(await gpkg.listTypes(), [{ name: 'notes', hasGeometry: false }, { name: 'parcels', hasGeometry: true }, { name: 'places', hasGeometry: true }])
  t.same(await shp.listTypes(), [{ name: 'parcels', hasGeometry: true }, { name: 'places', hasGeometry: true }])
  const g = await gpkg.describe('places')
  t.same(g?.attributes.map((a) => [a.name, a.binding, a.nillable, a.length]), [
    ['geom', 'org.locationtech.jts.geom.Point', true, undefined], ['name', 'java.lang.String', false, 20], ['pop', 'java.lang.Integer', true, undefined],
    ['area', 'java.lang.Double', true, undefined], ['capital', 'java.lang.Boolean', true, undefined]
  ], 'the integer primary key is no attribute')
  t.same(g?.geometry, { name: 'geom', type: 'POINT', srid: 4326 })
  const s = await shp.describe('places')
  t.same(s?.attributes.map((a) => [a.name, a.binding]), [
    ['the_geom', 'org.locationtech.jts.geom.Point'], ['name', 'java.lang.String'], ['pop', 'java.lang.Integer'], ['area', 'java.lang.Double'], ['capital', 'java.lang.Boolean']
  ])
  t.same((await shp.describe('parcels'))?.geometry, { name: 'the_geom', type: 'MULTIPOLYGON', srid: 4326 })
  t.equal(await gpkg.describe('nothing'), undefined)
  t.equal(await shp.describe('nothing'), undefined)
  t.equal(await shp.describe('../shp/places'), undefined, 'a type is a file of the folder, never a path')
  t.same(await gpkg.bounds('places', false), [-10, -5, 20, 55], 'exact: from the R-tree')
  t.same(await gpkg.bounds('places', true), [-180, -90, 180, 90], 'estimated: gpkg_contents')
  t.same(await gpkg.bounds('parcels', true), [0, 0, 12, 12], 'estimated without an extent: exact')
  t.same(await shp.bounds('places', false), [-10, -5, 20, 55], 'the .shp header')
  t.equal(await gpkg.hasCrs(4326), true)
  t.equal(await gpkg.hasCrs(2154), false, 'not in gpkg_spatial_ref_sys')
  t.same(await gpkg.toLatLon([0, 0, 1113194.9079327357, 1118889.9748579594], 3857).then((e) => e.map((v) => Math.round(v * 1e6) / 1e6)), [0, 0, 10, 10])
})

t.test('the GeoPackage without an R-tree: bounds read from the geometries in batches', async (t) => {
  const { plain } = sources(t)
  t.same(await plain.bounds('places', false), [-10, -5, 20, 55])
  t.same(await plain.bounds('parcels', true), [0, 0, 12, 12])
})

t.test('reads: bbox exact, ECQL filters, properties, order, pages, WKB and GeoJSON; the same from every source', async (t) => {
  const all = sources(t)
  for (const [label, s] of Object.entries(all)) {
    t.test(label, async (t) => {
      const every = await read(s, { type: 'places' })
      t.same(names(every), ['Alpha', 'Beta', 'Gamma', 'Ørsted'])
      t.same(every[0].properties, { name: 'Alpha', pop: 100, area: 1.5, capital: true }, 'a GeoPackage BOOLEAN (0/1) read as a boolean')
      t.same(every[2].properties, { name: 'Gamma', pop: null, area: null, capital: null })
      const wkb = every[1].geometry as Buffer
      t.same(wkx.Geometry.parse(wkb).toGeoJSON(), { type: 'Point', coordinates: [20, 15] }, 'WKB, the GeoPackage header taken off')
      t.ok(every[0].id !== undefined)
      const gj = await read(s, { type: 'places', geometryFormat: 'geojson', properties: ['name'] })
      t.same(JSON.parse(gj[0].geometry as string), { type: 'Point', coordinates: [-10, -5] })
      t.same(gj[0].properties, { name: 'Alpha' })
      t.same(names(await read(s, { type: 'places', bbox: [0, 0, 30, 50] })), ['Beta', 'Gamma'])
      t.same(names(await read(s, { type: 'places', bbox: [20, 15, 20, 15] })), ['Beta'], 'touching counts')
      t.same(names(await read(s, { type: 'parcels', bbox: [2.5, 2.5, 3.5, 3.5] })), [], 'inside the L\'s envelope but not the L: no match')
      t.same(names(await read(s, { type: 'parcels', bbox: [0.5, 0.5, 0.6, 0.6] })), ['ell'])
      t.same(names(await read(s, { type: 'parcels', bbox: [-1, -1, 100, 100] })), ['ell', 'square'])
      const poly = await read(s, { type: 'parcels', geometryFormat: 'geojson', bbox: [11, 11, 11.5, 11.5] })
      t.equal(JSON.parse(poly[0].geometry as string).type, 'MultiPolygon', 'a polygon shapefile reads as MultiPolygon, as declared')
      const f = (text: string) => parseEcql(text, schemaOf(['name', 'pop', 'area', 'capital']))
      t.same(names(await read(s, { type: 'places', filter: f('pop > 90') })), ['Alpha', 'Beta'])
      t.same(names(await read(s, { type: 'places', filter: f('NOT (pop > 90)') })), ['Ørsted'], 'a null is unknown, also under NOT')
      t.same(names(await read(s, { type: 'places', filter: f('pop IS NULL OR capital = true') })), ['Alpha', 'Gamma'])
      t.same(names(await read(s, { type: 'places', filter: f("name LIKE '_e%'") })), ['Beta'])
      t.same(names(await read(s, { type: 'places', filter: f("name ILIKE 'a%'") })), ['Alpha'])
      t.same(names(await read(s, { type: 'places', filter: f("name IN ('Gamma', 'Ørsted')") })), ['Gamma', 'Ørsted'])
      t.same(names(await read(s, { type: 'places', filter: f('area BETWEEN 1 AND 2') })), ['Alpha'])
      t.same(names(await read(s, { type: 'places', filter: { k: 'bbox', env: [0, 0, 30, 50] } })), ['Beta', 'Gamma'])
      const ids = every.map((x) => x.id!)
      t.same(names(await read(s, { type: 'places', filter: { k: 'fid', ids: [ids[1], ids[3], 'no-such-id'] } })), ['Beta', 'Ørsted'], 'feature ids (a WFS resource id) select what readFeatures numbered')
      t.same(names(await read(s, { type: 'places', filter: f("name = 'x'' OR 1=1 --'") })), [], 'a value is a value, never SQL')
      t.same(names(await read(s, { type: 'places', sortBy: [{ name: 'pop', descending: true }] })), ['Beta', 'Alpha', 'Ørsted', 'Gamma'])
      t.same(names(await read(s, { type: 'places', sortBy: [{ name: 'name' }], limit: 2, offset: 1 })), ['Beta', 'Gamma'])
      t.same(names(await read(s, { type: 'places', limit: 2, offset: 2 })), ['Gamma', 'Ørsted'])
      t.same(names(await read(s, { type: 'places', limit: 0 })), [])
      await t.rejects(read(s, { type: 'places', properties: ['nope'] }), { code: 'MW_VECTOR_INVALID_QUERY' })
      await t.rejects(read(s, { type: 'places', sortBy: [{ name: 'x"y' }] }), { code: 'MW_VECTOR_INVALID_QUERY' })
      await t.rejects(read(s, { type: 'places', filter: { k: 'cmp', op: '=', l: { k: 'property', name: 'nope' }, r: { k: 'value', v: 1 } } }), { code: 'MW_VECTOR_INVALID_QUERY' })
      await t.rejects(read(s, { type: 'places', bbox: [1, 1, 0, 0] }), { code: 'MW_VECTOR_INVALID_QUERY' })
      await t.rejects(read(s, { type: 'places', limit: -1 }), { code: 'MW_VECTOR_INVALID_QUERY' })
      await t.rejects(read(s, { type: 'missing' }), { code: 'MW_VECTOR_INVALID_QUERY' })
    })
  }
})

t.test('the .dbf charset: the .cpg wins over the store\'s charset, which is the default without one', async (t) => {
  const dir = tempDir(t)
  const def = { type: 'point' as const, fields: [{ name: 'name', type: 'C' as const, length: 20 }], features: [{ geometry: { type: 'Point', coordinates: [1, 1] }, values: ['Ørsted Å'] }] }
  writeShapefile(path.join(dir, 'utf'), 'towns', { ...def, encoding: 'utf8', cpg: 'UTF-8' })
  writeShapefile(path.join(dir, 'latin'), 'towns', { ...def, encoding: 'latin1' })
  writeShapefile(path.join(dir, 'plainutf'), 'towns', { ...def, encoding: 'utf8' })
  const first = async (p: string, charset: string) => (await read(createShapefileSource({ path: path.join(dir, p), charset, fetchSize: 10 }), { type: 'towns' }))[0].properties.name
  t.equal(await first('utf', 'ISO-8859-1'), 'Ørsted Å', '.cpg UTF-8')
  t.equal(await first('latin', 'ISO-8859-1'), 'Ørsted Å', 'GeoServer\'s default ISO-8859-1')
  t.equal(await first('plainutf', 'UTF-8'), 'Ørsted Å', 'the store\'s charset=UTF-8')
  t.not(await first('plainutf', 'ISO-8859-1'), 'Ørsted Å', 'UTF-8 bytes read as ISO-8859-1 are not the same text')
})

t.test('GeoPackage SQL: bound values, quoted names, the R-tree for a bbox', async (t) => {
  const d = {
    name: 'my "table"', key: 'fid', keyIsColumn: true, rtree: 'rtree_my "table"_geom',
    attributes: [{ name: 'na"me', binding: 'java.lang.String', nillable: true, minOccurs: 0, maxOccurs: 1 }],
    geometry: { name: 'geom', type: 'POINT', srid: 4326 }
  }
  const sql = gpkgSelectSql(d, { type: 'x', bbox: [1, 2, 3, 4], filter: { k: 'cmp', op: '=', l: { k: 'property', name: 'na"me' }, r: { k: 'value', v: "'; DROP TABLE x" } }, limit: 5, offset: 10 }, false)
  t.equal(sql.text, 'SELECT "na""me", "fid" AS mw_fid, "geom" AS mw_geom FROM "my ""table""" WHERE "fid" IN (SELECT id FROM "rtree_my ""table""_geom" WHERE maxx >= ? AND minx <= ? AND maxy >= ? AND miny <= ?) AND mw_meets("geom", ?, ?, ?, ?) AND ("na""me" = ?) ORDER BY "fid" ASC LIMIT ? OFFSET ?')
  t.same(sql.values, [1, 3, 2, 4, 1, 2, 3, 4, "'; DROP TABLE x", 5, 10])
})

t.test('.prj to EPSG: the authority, WGS 84 by name, ESRI names through the registry, unknown as 0, not WKT refused', async (t) => {
  t.equal(await sridOfPrj(WGS84_WKT, 'a.prj'), 4326)
  t.equal(await sridOfPrj(ESRI_WGS84_PRJ, 'a.prj'), 4326)
  t.equal(await sridOfPrj(ESRI_UTM33N_PRJ, 'a.prj'), 32633)
  t.equal(await sridOfPrj('PROJCS["NAD_1983_UTM_Zone_10N",GEOGCS["GCS_North_American_1983"]]', 'a.prj'), 26910)
  t.equal(await sridOfPrj('PROJCS["ETRS_1989_LAEA",GEOGCS["GCS_ETRS_1989"]]', 'a.prj'), 0, 'a name the registry spells otherwise: 0')
  t.equal(await sridOfPrj('PROJCS["CH1903+_LV95",GEOGCS["GCS_CH1903+"]]', 'a.prj'), 2056, 'through the registry: "CH1903+ / LV95"')
  t.equal(await sridOfPrj('PROJCS["WGS_1984_World_Mercator",GEOGCS["GCS_WGS_1984"]]', 'a.prj'), 3395)
  t.equal(await sridOfPrj('PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere",GEOGCS["GCS_WGS_1984"]]', 'a.prj'), 3857)
  t.equal(await sridOfPrj('PROJCS["Made_Up_Local_Grid",GEOGCS["GCS_WGS_1984"]]', 'a.prj'), 0)
  await t.rejects(sridOfPrj('hello', 'broken.prj'), { code: 'MW_DATASTORE_INVALID', message: /"broken\.prj" is not a WKT/ })
})

t.test('the evaluator answers as SQL: null comparisons unknown, LIKE escapes', async (t) => {
  const view = (props: Record<string, unknown>, id = '1') => ({ property: (n: string) => props[n], footprint: () => undefined, id: () => id })
  const f = (text: string) => parseEcql(text, schemaOf(['name', 'pop']))
  t.equal(matches(f('pop <> 1'), view({ pop: null })), false)
  t.equal(matches(f('NOT (pop = 1)'), view({})), false)
  t.equal(matches(f('NOT (pop = 1)'), view({}), { twoValued: true }), true, 'an SLD rule: GeoTools\' two-valued logic, a null comparison is false')
  t.equal(matches(f('NOT (pop = 1 OR pop <> 1)'), view({}), { twoValued: true }), true)
  t.equal(matches(f('NOT NOT (pop = 1)'), view({}), { twoValued: true }), false)
  t.equal(matches(f("name LIKE '50\\%'"), view({ name: '50%' })), true)
  t.equal(matches(f("name LIKE '50\\%'"), view({ name: '500' })), false)
  t.equal(matches(f("name LIKE 'a.c'"), view({ name: 'abc' })), false, 'regular expression characters are literal')
  t.equal(matches({ k: 'bbox', env: [0, 0, 1, 1] }, view({})), false, 'no geometry: no match')
  t.equal(matches({ k: 'fid', ids: ['2', '3'] }, view({}, '3')), true, 'a feature id (WFS resource id) matches its record number')
  t.equal(matches({ k: 'not', a: { k: 'fid', ids: ['2'] } }, view({}, '3')), true)
  t.equal(matches({ k: 'fid', ids: [] }, view({}, '3')), false)
})
