// An SLD rule whose ogc:Filter is a function call alone, through HTTP on the same four squares in a
// PostGIS table, a GeoPackage and a shapefile: GeoServer reads it as the function equal to true, so
// a feature is drawn where the result is true (in, strStartsWith, between, strMatches, the
// comparisons, isNull, not/and/or, and any function whose value reads as true: Recode to 'true').
// The calls that map to the filter tree's nodes are answered by the source (PostGIS' and SQLite's
// SQL, the shapefile's read): with a one-feature cap (MAPWARDEN_WMS_MAX_FEATURES) a rule choosing one
// square draws it, where reading the four would be refused.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { createWorkspace, zipItems } from '../appschema/helpers.js'
import { writeGeoPackage, writeShapefile, WGS84_WKT } from '../../fixtures/vector/files.js'
import { postgisStore } from '../../fixtures/postgis-store.js'
import { at, pixels, wmsUrl, type Pixels } from './helpers.js'

const REST = `${BASE}/rest`
const square = (x0: number, y0: number, x1: number, y1: number) => ({ type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] })
// A 400x400 map of lon -5..35, lat -5..35: lon x is pixel (x+5)*10, lat y is row (35-y)*10.
const ROWS: Array<[string, number | null, ReturnType<typeof square>]> = [
  ['Alpha', 10, square(0, 0, 10, 10)], ['Beta', 100, square(20, 0, 30, 10)], ['Gamma', 1000, square(0, 20, 10, 30)], ['Delta', null, square(20, 20, 30, 30)]
]
const LAYERS = ['vx:shapes', 'gp:shapes', 'sh:shapes']

async function setup (t: Test, opts: { wmsMaxFeatures?: number } = {}): Promise<FastifyInstance> {
  const app = await build(t, opts)
  const values = ROWS.map(([n, p, g], i) => `(${i + 1}, '${n}', ${p ?? 'NULL'}, ST_GeomFromGeoJSON('${JSON.stringify(g)}'))`).join(', ')
  await postgisStore(t, app, `CREATE TABLE shapes (id integer PRIMARY KEY, name text, pop integer, geom geometry(Polygon, 4326));
    INSERT INTO shapes VALUES ${values};
    UPDATE shapes SET geom = ST_SetSRID(geom, 4326);`, { store: 'db' })
  const ft = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/datastores/db/featuretypes`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { featureType: { name: 'shapes' } } })
  if (ft.statusCode !== 201) throw new Error(`feature type: ${ft.statusCode} ${ft.body}`)
  await createWorkspace(app, 'gp')
  await createWorkspace(app, 'sh')
  const files = tempDir(t, 'files')
  writeGeoPackage(path.join(files, 'f.gpkg'), [{ name: 'shapes', columns: ['name TEXT', 'pop INTEGER'], geometryColumn: 'geom', geometryType: 'POLYGON', rows: ROWS.map(([n, p, g]) => ({ values: [n, p], geometry: g })) }])
  const up = await app.inject({ method: 'PUT', url: `${REST}/workspaces/gp/datastores/g/file.gpkg?configure=all`, headers: { ...ADMIN, 'content-type': 'application/geopackage+sqlite3' }, payload: fs.readFileSync(path.join(files, 'f.gpkg')) })
  if (up.statusCode !== 201) throw new Error(`GeoPackage: ${up.statusCode} ${up.body}`)
  writeShapefile(files, 'shapes', {
    type: 'polygon',
    fields: [{ name: 'name', type: 'C', length: 10 }, { name: 'pop', type: 'N', length: 9 }],
    features: ROWS.map(([n, p, g]) => ({ geometry: g, values: [n, p] })),
    prj: WGS84_WKT
  })
  const zip = await zipItems(['shp', 'shx', 'dbf', 'prj'].map((e) => ({ name: `shapes.${e}`, data: fs.readFileSync(path.join(files, `shapes.${e}`)) })))
  const sh = await app.inject({ method: 'PUT', url: `${REST}/workspaces/sh/datastores/shapes/file.shp?configure=all`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  if (sh.statusCode !== 201) throw new Error(`shapefile: ${sh.statusCode} ${sh.body}`)
  return app
}

const doc = (layer: string, rules: string) => `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld" xmlns:ogc="http://www.opengis.net/ogc">
<NamedLayer><Name>${layer}</Name><UserStyle><Name>s</Name><FeatureTypeStyle>${rules}</FeatureTypeStyle></UserStyle></NamedLayer></StyledLayerDescriptor>`
const rule = (filter: string, c: string) => `<Rule><ogc:Filter>${filter}</ogc:Filter><PolygonSymbolizer><Fill><CssParameter name="fill">${c}</CssParameter></Fill></PolygonSymbolizer></Rule>`
const prop = (n: string) => `<ogc:PropertyName>${n}</ogc:PropertyName>`
const lit = (v: string | number) => `<ogc:Literal>${v}</ogc:Literal>`
const fn = (name: string, ...args: string[]) => `<ogc:Function name="${name}">${args.join('')}</ogc:Function>`

const RED = [255, 0, 0, 255]; const GREEN = [0, 255, 0, 255]; const BLUE = [0, 0, 255, 255]; const YELLOW = [255, 255, 0, 255]; const NONE = [0, 0, 0, 0]

async function getMap (app: FastifyInstance, layer: string, rules: string): Promise<Pixels> {
  const res = await app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetMap', srs: 'EPSG:4326', bbox: '-5,-5,35,35', width: 400, height: 400, format: 'image/png', transparent: 'true', styles: '', layers: layer, sld_body: doc(layer, rules) }), headers: ADMIN })
  if (res.statusCode !== 200 || res.headers['content-type'] !== 'image/png') throw new Error(`GetMap ${layer} ${res.statusCode} ${res.headers['content-type']}: ${res.body.slice(0, 400)}`)
  return await pixels(res.rawPayload)
}

/** The pixels at the middles of Alpha, Beta, Gamma and Delta (lon 5/25, lat 5/25). */
const middles = (p: Pixels) => ({ Alpha: at(p, 100, 300), Beta: at(p, 300, 300), Gamma: at(p, 100, 100), Delta: at(p, 300, 100) })

t.test('a function alone as a rule filter draws the features where it is true, on PostGIS, GeoPackage and shapefile layers', async (t) => {
  const app = await setup(t)
  const four = [
    rule(fn('in', prop('name'), lit('Alpha'), lit('Zeta')), '#ff0000'),
    rule(fn('strStartsWith', prop('name'), lit('Be')), '#00ff00'),
    rule(fn('between', prop('pop'), lit(500), lit(2000)), '#0000ff'),
    // No node for a regular expression: evaluated on each feature read.
    rule(fn('strMatches', prop('name'), lit('D.*a')), '#ffff00')
  ].join('')
  const logic = (c: string) => [
    // Beta only: pop above 50 and below 500.
    rule(fn('and', fn('greaterThan', prop('pop'), lit(50)), fn('lessThan', prop('pop'), lit(500))), c)
  ].join('')
  for (const layer of LAYERS) {
    t.same(middles(await getMap(app, layer, four)), { Alpha: RED, Beta: GREEN, Gamma: BLUE, Delta: YELLOW }, `${layer}: in, strStartsWith, between, strMatches each choose their square`)
    t.same(middles(await getMap(app, layer, logic('#ff0000'))), { Alpha: NONE, Beta: RED, Gamma: NONE, Delta: NONE }, `${layer}: and of greaterThan and lessThan`)
    // not(equalTo): Delta's null pop is no match of equalTo, so not draws it (GeoTools' two-valued logic).
    t.same(middles(await getMap(app, layer, rule(fn('not', fn('equalTo', prop('pop'), lit(1000))), '#00ff00'))), { Alpha: GREEN, Beta: GREEN, Gamma: NONE, Delta: GREEN }, `${layer}: not(equalTo) draws the null too`)
    t.same(middles(await getMap(app, layer, rule(fn('or', fn('isNull', prop('pop')), fn('strEqualsIgnoreCase', prop('name'), lit('ALPHA'))), '#0000ff'))), { Alpha: BLUE, Beta: NONE, Gamma: NONE, Delta: BLUE }, `${layer}: or of isNull and strEqualsIgnoreCase`)
    // Not a boolean function: its value read as GeoTools compares it with true.
    t.same(middles(await getMap(app, layer, rule(fn('Recode', prop('name'), lit('Gamma'), lit('true'), lit('Beta'), lit('yes')), '#ff0000'))), { Alpha: NONE, Beta: NONE, Gamma: RED, Delta: NONE }, `${layer}: Recode to 'true' selects Gamma, to 'yes' nothing`)
    t.same(middles(await getMap(app, layer, rule(fn('strEndsWith', prop('name'), lit('ta')), '#ff0000'))), { Alpha: NONE, Beta: RED, Gamma: NONE, Delta: RED }, `${layer}: strEndsWith`)
  }
})

t.test('the source answers the calls that map to the filter tree: a one-feature cap is not passed', async (t) => {
  const app = await setup(t, { wmsMaxFeatures: 1 })
  for (const layer of LAYERS) {
    t.same(middles(await getMap(app, layer, rule(fn('in', prop('name'), lit('Gamma')), '#ff0000'))), { Alpha: NONE, Beta: NONE, Gamma: RED, Delta: NONE }, `${layer}: in read one feature`)
    t.same(middles(await getMap(app, layer, rule(fn('strStartsWith', prop('NAME'), lit('Al')), '#00ff00'))), { Alpha: GREEN, Beta: NONE, Gamma: NONE, Delta: NONE }, `${layer}: strStartsWith (a property named in another case) read one feature`)
    t.same(middles(await getMap(app, layer, rule(fn('between', prop('pop'), lit(50), lit(500)), '#0000ff'))), { Alpha: NONE, Beta: BLUE, Gamma: NONE, Delta: NONE }, `${layer}: between read one feature`)
    // strMatches has no SQL: the four are read and the cap refuses the map.
    const res = await app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetMap', srs: 'EPSG:4326', bbox: '-5,-5,35,35', width: 400, height: 400, format: 'image/png', styles: '', layers: layer, sld_body: doc(layer, rule(fn('strMatches', prop('name'), lit('G.*')), '#ff0000')) }), headers: ADMIN })
    t.not(res.headers['content-type'], 'image/png', `${layer}: strMatches reads every feature, past the cap`)
  }
})

t.test('a function alone that is no boolean one is saved; an unknown one is named in a 400', async (t) => {
  const app = await setup(t)
  const ok = await app.inject({ method: 'POST', url: `${REST}/workspaces/gp/styles?name=fnalone`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: doc('gp:shapes', rule(fn('in', prop('name'), lit('Alpha')), '#ff0000')) })
  t.equal(ok.statusCode, 201, ok.body)
  const bad = await app.inject({ method: 'POST', url: `${REST}/workspaces/gp/styles?name=bad`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: doc('gp:shapes', rule(fn('strNope', prop('name')), '#ff0000')) })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, /function "strNope" in the Filter of rule 1 is not known/)
  const arity = await app.inject({ method: 'POST', url: `${REST}/workspaces/gp/styles?name=bad`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: doc('gp:shapes', rule(fn('between', prop('pop'), lit(1)), '#ff0000')) })
  t.equal(arity.statusCode, 400)
  t.match(arity.body, /between in the Filter of rule 1 takes 3 arguments, found 2/)
})
