// Spatial filter operators (Intersects, Within, Contains, Disjoint, Touches, Overlaps, Crosses,
// Equals, DWithin, Beyond) in WFS GetFeature, FES 2.0 and Filter 1.1, KVP FILTER and XML POST, on the
// same features in a PostGIS table, a GeoPackage and a shapefile: each answers what PostGIS itself
// answers for the predicate; the ECQL predicates with WKT in CQL_FILTER (WFS and WMS GetMap). Bad
// geometries and properties are OGC exceptions naming them.
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import t from 'tap'
import { ADMIN, BASE, build, tempDir } from '../../helper.js'
import { createWorkspace, zipItems } from '../appschema/helpers.js'
import { postgisStore } from '../../fixtures/postgis-store.js'
import { writeGeoPackage, writeShapefile, WGS84_WKT } from '../../fixtures/vector/files.js'
import { wfsGet, wfsPost } from './helpers.js'
import { at, pixels } from '../wms/helpers.js'

type G = { type: string, coordinates: any }
const sq = (x0: number, y0: number, x1: number, y1: number): G => ({ type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] })
const PLACES: Array<[string, G]> = [['Alpha', { type: 'Point', coordinates: [-10, -5] }], ['Beta', { type: 'Point', coordinates: [20, 15] }],
  ['Gamma', { type: 'Point', coordinates: [5, 40] }], ['Delta', { type: 'Point', coordinates: [0.5, 0.25] }]]
const LOTS: Array<[string, G]> = [['A', sq(0, 0, 2, 2)], ['B', sq(2, 0, 4, 2)], ['C', sq(10, 10, 12, 12)]]

const dataDir = tempDir(t)
const app = await build(t, { dataDir })
const wkt = (g: G): string => g.type === 'Point' ? `POINT(${g.coordinates.join(' ')})`
  : g.type === 'LineString' ? `LINESTRING(${g.coordinates.map((p: number[]) => p.join(' ')).join(', ')})`
    : `POLYGON(${g.coordinates.map((r: number[][]) => `(${r.map((p) => p.join(' ')).join(', ')})`).join(', ')})`
const tables = ['places', 'lots'].map((tbl) => {
  const rows = tbl === 'places' ? PLACES : LOTS
  return `CREATE TABLE ${tbl} (gid serial PRIMARY KEY, name varchar(10), pop integer, geom geometry(${tbl === 'places' ? 'Point' : 'Polygon'}, 4326));
    INSERT INTO ${tbl} (name, pop, geom) VALUES ${rows.map(([n, g], i) => `('${n}', ${i}, ST_GeomFromText('${wkt(g)}', 4326))`).join(', ')};`
}).join('\n')
const url = await postgisStore(t, app, tables)
for (const name of ['places', 'lots']) {
  const r = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/vx/datastores/nyc/featuretypes`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: `<featureType><name>${name}</name></featureType>` })
  if (r.statusCode !== 201) throw new Error(r.body)
}
// The same features in a GeoPackage (workspace gp) and in shapefiles (workspace sh).
await createWorkspace(app, 'gp')
await createWorkspace(app, 'sh')
const files = tempDir(t, 'files')
writeGeoPackage(path.join(files, 'f.gpkg'), ['places', 'lots'].map((name) => ({
  name,
  columns: ['name TEXT(10)', 'pop INTEGER'],
  geometryColumn: 'geom',
  geometryType: name === 'places' ? 'POINT' : 'POLYGON',
  rtree: name === 'places',
  rows: (name === 'places' ? PLACES : LOTS).map(([n, g], i) => ({ values: [n, i], geometry: g }))
})))
const up = await app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/gp/datastores/g/file.gpkg?configure=all`, headers: { ...ADMIN, 'content-type': 'application/geopackage+sqlite3' }, payload: fs.readFileSync(path.join(files, 'f.gpkg')) })
if (up.statusCode !== 201) throw new Error(up.body)
for (const name of ['places', 'lots']) {
  writeShapefile(files, name, {
    type: name === 'places' ? 'point' : 'polygon',
    fields: [{ name: 'name', type: 'C', length: 10 }, { name: 'pop', type: 'N', length: 9 }],
    features: (name === 'places' ? PLACES : LOTS).map(([n, g], i) => ({ geometry: g, values: [n, i] })),
    prj: WGS84_WKT
  })
  const zip = await zipItems(['shp', 'shx', 'dbf', 'prj'].map((e) => ({ name: `${name}.${e}`, data: fs.readFileSync(path.join(files, `${name}.${e}`)) })))
  const r = await app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/sh/datastores/${name}/file.shp?configure=all`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  if (r.statusCode !== 201) throw new Error(r.body)
}

const FES = 'xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2"'
const gml32 = (g: G, srs = 'EPSG:4326'): string => g.type === 'Point' ? `<gml:Point srsName="${srs}"><gml:pos>${g.coordinates.join(' ')}</gml:pos></gml:Point>`
  : g.type === 'LineString' ? `<gml:LineString srsName="${srs}"><gml:posList>${g.coordinates.flat().join(' ')}</gml:posList></gml:LineString>`
    : `<gml:Polygon srsName="${srs}"><gml:exterior><gml:LinearRing><gml:posList>${g.coordinates[0].flat().join(' ')}</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon>`
// A shapefile's geometry is the_geom.
const geomOf = (ws: string) => ws === 'sh' ? 'the_geom' : 'geom'
const fes = (op: string, body: string, extra = '', geom = 'geom') => `<fes:Filter ${FES}><fes:${op}><fes:ValueReference>${geom}</fes:ValueReference>${body}${extra}</fes:${op}></fes:Filter>`

const names = async (ws: string, type: string, filter: string): Promise<string[]> => {
  const r = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: `${ws}:${type}`, outputFormat: 'application/json', filter })
  if (r.statusCode !== 200) throw new Error(`${ws}:${type} ${r.statusCode} ${r.body}`)
  return JSON.parse(r.body).features.map((f: any) => f.properties.name).sort()
}
const postgis = async (sql: string, values: unknown[]): Promise<string[]> => {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try { return (await c.query(sql, values)).rows.map((r) => r.name).sort() } finally { await c.end() }
}

interface Case { type: 'places' | 'lots', op: string, g: G, fn: string, distance?: number, uom?: string, degrees?: number, expect: string[] }
const CASES: Case[] = [
  { type: 'places', op: 'Intersects', g: sq(-11, -6, 1, 1), fn: 'ST_Intersects', expect: ['Alpha', 'Delta'] },
  { type: 'places', op: 'Within', g: sq(-15, -10, 25, 20), fn: 'ST_Within', expect: ['Alpha', 'Beta', 'Delta'] },
  { type: 'places', op: 'DWithin', g: { type: 'Point', coordinates: [0, 0] }, fn: 'ST_DWithin', distance: 2000, uom: 'km', degrees: 2000000 / (6378137 * Math.PI / 180), expect: ['Alpha', 'Delta'] },
  { type: 'places', op: 'Beyond', g: { type: 'Point', coordinates: [0, 0] }, fn: 'NOT ST_DWithin', distance: 2000, uom: 'km', degrees: 2000000 / (6378137 * Math.PI / 180), expect: ['Beta', 'Gamma'] },
  { type: 'lots', op: 'Intersects', g: sq(1, 1, 3, 3), fn: 'ST_Intersects', expect: ['A', 'B'] },
  { type: 'lots', op: 'Overlaps', g: sq(1, 1, 3, 3), fn: 'ST_Overlaps', expect: ['A', 'B'] },
  { type: 'lots', op: 'Disjoint', g: sq(1, 1, 3, 3), fn: 'ST_Disjoint', expect: ['C'] },
  { type: 'lots', op: 'Touches', g: sq(4, 0, 5, 2), fn: 'ST_Touches', expect: ['B'] },
  { type: 'lots', op: 'Within', g: sq(-1, -1, 5, 3), fn: 'ST_Within', expect: ['A', 'B'] },
  { type: 'lots', op: 'Contains', g: { type: 'Point', coordinates: [11, 11] }, fn: 'ST_Contains', expect: ['C'] },
  { type: 'lots', op: 'Equals', g: sq(0, 0, 2, 2), fn: 'ST_Equals', expect: ['A'] },
  { type: 'lots', op: 'Crosses', g: { type: 'LineString', coordinates: [[-1, 1], [1, 1]] }, fn: 'ST_Crosses', expect: ['A'] },
  { type: 'lots', op: 'DWithin', g: { type: 'Point', coordinates: [6, 1] }, fn: 'ST_DWithin', distance: 2.5, uom: 'deg', degrees: 2.5, expect: ['B'] },
  { type: 'lots', op: 'Beyond', g: { type: 'Point', coordinates: [6, 1] }, fn: 'NOT ST_DWithin', distance: 2.5, uom: 'deg', degrees: 2.5, expect: ['A', 'C'] }
]

t.test('each operator: PostGIS, GeoPackage and shapefile layers answer what PostGIS answers', async (t) => {
  for (const c of CASES) {
    const dist = c.distance === undefined ? '' : `<fes:Distance uom="${c.uom}">${c.distance}</fes:Distance>`
    const truth = await postgis(`SELECT name FROM ${c.type} WHERE ${c.fn}(geom, ST_GeomFromText($1, 4326)${c.degrees === undefined ? '' : ', $2'})`,
      c.degrees === undefined ? [wkt(c.g)] : [wkt(c.g), c.degrees])
    t.same(truth, c.expect, `PostGIS: ${c.type} ${c.op}`)
    for (const ws of ['vx', 'gp', 'sh']) t.same(await names(ws, c.type, fes(c.op, gml32(c.g), dist, geomOf(ws))), truth, `${ws}:${c.type} ${c.op}`)
  }
})

t.test('the literal in another CRS or axis order is taken to the layer\'s; XML POST and Filter 1.1 alike', async (t) => {
  // Latitude first (urn), and EPSG:3857.
  const latFirst = `<gml:Polygon srsName="urn:ogc:def:crs:EPSG::4326"><gml:exterior><gml:LinearRing><gml:posList>-6 -11 -6 1 1 1 1 -11 -6 -11</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon>`
  const m = (v: number) => v * 6378137 * Math.PI / 180
  const merc = `<gml:Envelope srsName="EPSG:3857"><gml:lowerCorner>${m(-11)} ${m(-6)}</gml:lowerCorner><gml:upperCorner>${m(1)} ${m(1)}</gml:upperCorner></gml:Envelope>`
  for (const ws of ['vx', 'gp', 'sh']) {
    t.same(await names(ws, 'places', fes('Intersects', latFirst, '', geomOf(ws))), ['Alpha', 'Delta'], `${ws}: urn, latitude first`)
    t.same(await names(ws, 'places', fes('Intersects', merc, '', geomOf(ws))), ['Alpha', 'Delta'], `${ws}: an EPSG:3857 envelope`)
    const body = `<wfs:GetFeature service="WFS" version="2.0.0" outputFormat="application/json" xmlns:wfs="http://www.opengis.net/wfs/2.0" ${FES}>
      <wfs:Query typeNames="${ws}:lots"><fes:Filter><fes:And><fes:Not><fes:Within>${gml32(sq(-1, -1, 3, 3))}</fes:Within></fes:Not>
      <fes:DWithin><fes:ValueReference>${ws}:${geomOf(ws)}</fes:ValueReference>${gml32({ type: 'Point', coordinates: [0, 1] })}<fes:Distance uom="m">${6 * 6378137 * Math.PI / 180}</fes:Distance></fes:DWithin></fes:And></fes:Filter></wfs:Query></wfs:GetFeature>`
    const r = await wfsPost(app, body)
    t.equal(r.statusCode, 200, r.body)
    t.same(JSON.parse(r.body).features.map((f: any) => f.properties.name), ['B'], `${ws}: POST, default geometry, Not Within and DWithin in metres`)
    const ogc = `<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="http://www.opengis.net/gml"><ogc:Intersects><ogc:PropertyName>${geomOf(ws)}</ogc:PropertyName>
      <gml:Polygon srsName="EPSG:4326"><gml:outerBoundaryIs><gml:LinearRing><gml:coordinates>1,1 3,1 3,3 1,3 1,1</gml:coordinates></gml:LinearRing></gml:outerBoundaryIs></gml:Polygon></ogc:Intersects></ogc:Filter>`
    const r11 = await wfsGet(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: `${ws}:lots`, outputFormat: 'application/json', filter: ogc })
    t.equal(r11.statusCode, 200, r11.body)
    t.same(JSON.parse(r11.body).features.map((f: any) => f.properties.name).sort(), ['A', 'B'], `${ws}: Filter 1.1 with GML 2`)
  }
})

t.test('a bad geometry, an unknown or non-geometry property: an OGC exception naming it, nothing injected', async (t) => {
  const point = gml32({ type: 'Point', coordinates: [0, 0] })
  for (const ws of ['vx', 'gp', 'sh']) {
    const get = (filter: string) => wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: `${ws}:places`, filter })
    let r = await get(`<fes:Filter ${FES}><fes:Intersects><fes:ValueReference>nope</fes:ValueReference>${point}</fes:Intersects></fes:Filter>`)
    t.equal(r.statusCode, 400, r.body); t.match(r.body, /ExceptionReport[\s\S]*unknown property &quot;nope&quot;|ExceptionReport[\s\S]*unknown property "nope"/)
    r = await get(`<fes:Filter ${FES}><fes:Intersects><fes:ValueReference>pop</fes:ValueReference>${point}</fes:Intersects></fes:Filter>`)
    t.equal(r.statusCode, 400, r.body); t.match(r.body, 'pop is not a geometry property')
    const g = geomOf(ws)
    r = await get(fes('Intersects', `<gml:Point srsName="EPSG:4326"><gml:pos>1' OR '1'='1 2</gml:pos></gml:Point>`, '', g))
    t.equal(r.statusCode, 400, r.body); t.match(r.body, 'gml:pos holds something other than numbers')
    r = await get(fes('Intersects', '<gml:Curve/>', '', g))
    t.equal(r.statusCode, 400, r.body); t.match(r.body, 'supported geometries')
    r = await get(fes('DWithin', point, '<fes:Distance uom="m">far</fes:Distance>', g))
    t.equal(r.statusCode, 400, r.body); t.match(r.body, 'distance &quot;far&quot;')
    r = await get(fes('Intersects', `<gml:Point srsName="EPSG:999999"><gml:pos>0 0</gml:pos></gml:Point>`, '', g))
    t.equal(r.statusCode, 400, r.body); t.match(r.body, 'EPSG:999999')
    t.same(await names(ws, 'places', fes('Intersects', gml32(sq(-180, -90, 180, 90)), '', g)), ['Alpha', 'Beta', 'Delta', 'Gamma'], `${ws}: all rows still there`)
  }
})

t.test('ECQL spatial predicates with WKT in CQL_FILTER: WFS on each source, WMS GetMap', async (t) => {
  const cases: Array<[string, string, string[]]> = [
    ['places', 'INTERSECTS(%g, POLYGON((-11 -6, 1 -6, 1 1, -11 1, -11 -6)))', ['Alpha', 'Delta']],
    ['places', 'WITHIN(%g, ENVELOPE(-15, 25, 20, -10))', ['Alpha', 'Beta', 'Delta']],
    ['places', 'DWITHIN(%g, POINT(0 0), 2000, kilometers)', ['Alpha', 'Delta']],
    ['places', 'BEYOND(%g, POINT(0 0), 2000, kilometers) AND pop > 1', ['Gamma']],
    ['places', 'NOT DISJOINT(%g, MULTIPOINT((20 15), (5 40)))', ['Beta', 'Gamma']],
    ['lots', 'CONTAINS(%g, POINT(11 11)) OR EQUALS(%g, POLYGON((0 0, 2 0, 2 2, 0 2, 0 0)))', ['A', 'C']],
    ['lots', 'TOUCHES(%g, LINESTRING(4 0, 5 0))', ['B']],
    ['lots', 'CROSSES(%g, LINESTRING(-1 1, 1 1))', ['A']],
    ['lots', 'OVERLAPS(%g, POLYGON((1 1, 3 1, 3 3, 1 3, 1 1)))', ['A', 'B']]
  ]
  for (const ws of ['vx', 'gp', 'sh']) {
    for (const [type, cql, expect] of cases) {
      const r = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: `${ws}:${type}`, outputFormat: 'application/json', cql_filter: cql.replaceAll('%g', geomOf(ws)) })
      t.equal(r.statusCode, 200, r.body)
      t.same(JSON.parse(r.body).features.map((f: any) => f.properties.name).sort(), expect, `${ws}: ${cql}`)
    }
    const bad = async (cql: string, why: string) => {
      const r = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: `${ws}:places`, cql_filter: cql.replaceAll('%g', geomOf(ws)) })
      t.equal(r.statusCode, 400, r.body)
      t.match(r.body, why, cql)
    }
    await bad('INTERSECTS(%g, POLYGON((0 0, 1 0, 1 1)))', 'must end where it starts')
    await bad('INTERSECTS(%g, CIRCLE(0 0, 1))', 'expected a WKT geometry')
    await bad("INTERSECTS(%g, POINT(1' 2))", 'unterminated string')
    await bad("INTERSECTS(%g, POINT(1 '2) OR 1=1 --'))", 'expected a number in the geometry')
    await bad('INTERSECTS(pop, POINT(1 2))', 'pop is not a geometry attribute')
    await bad('DWITHIN(%g, POINT(1 2), 10)', 'DWITHIN needs units after the distance')
  }
  // WMS GetMap: only the lot containing the point is drawn.
  const map = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ service: 'WMS', version: '1.1.1', request: 'GetMap', layers: 'vx:lots', styles: '', srs: 'EPSG:4326', bbox: '0,0,12,12', width: '120', height: '120', format: 'image/png', transparent: 'true', cql_filter: 'CONTAINS(geom, POINT(11 11))' })}`, headers: ADMIN })
  t.equal(map.statusCode, 200, map.body)
  const p = await pixels(map.rawPayload)
  t.equal(at(p, 110, 10)[3], 255, 'lot C is drawn')
  t.equal(at(p, 10, 110)[3], 0, 'lot A is not')
})

t.test('WFS-T Delete with a spatial filter on PostGIS and GeoPackage layers deletes what it selects', async (t) => {
  for (const ws of ['vx', 'gp']) {
    const r = await wfsPost(app, `<wfs:Transaction service="WFS" version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0" ${FES}>
      <wfs:Delete typeName="${ws}:lots">${fes('Within', gml32(sq(9, 9, 13, 13)))}</wfs:Delete></wfs:Transaction>`, '/wfs', ADMIN)
    t.equal(r.statusCode, 200, r.body)
    t.match(r.body, '<wfs:totalDeleted>1</wfs:totalDeleted>')
    t.same(await names(ws, 'lots', fes('Intersects', gml32(sq(-180, -90, 180, 90)))), ['A', 'B'], `${ws}: C deleted, A and B kept`)
  }
})
