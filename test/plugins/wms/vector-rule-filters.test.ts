// An SLD rule's ogc:Filter beyond comparisons, through HTTP: the spatial operators (BBOX,
// Intersects, DWithin, Disjoint) on each feature's geometry, with literals in the layer's CRS
// unless their srsName says otherwise (EPSG:3857, a latitude-first URN), and functions (in,
// Categorize, Interpolate, Recode, strConcat) evaluated per feature; a style with them is saved
// (geostyler-sld-parser alone refuses BBOX) and drawn by WMS GetMap, from SLD_BODY too; what
// cannot be evaluated is named in a 400. The layers are GeoPackage tables: alike on both backends.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { createWorkspace } from '../appschema/helpers.js'
import { writeGeoPackage } from '../../fixtures/vector/files.js'
import { at, pixels, wmsUrl, type Pixels } from './helpers.js'

const REST = `${BASE}/rest`
const SLD_TYPE = { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }
const square = (x0: number, y0: number, x1: number, y1: number) => ({ type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] })
// Web Mercator metres of a longitude / latitude.
const mx = (lon: number) => lon * 6378137 * Math.PI / 180
const my = (lat: number) => 6378137 * Math.log(Math.tan(Math.PI / 4 + lat * Math.PI / 360))

async function setup (t: Test): Promise<FastifyInstance> {
  const app = await build(t)
  await createWorkspace(app, 'vx')
  const file = path.join(tempDir(t, 'gpkg'), 'data.gpkg')
  // A 400x400 map of lon -5..35, lat -5..35: lon x is pixel (x+5)*10, lat y is row (35-y)*10.
  writeGeoPackage(file, [
    {
      name: 'shapes',
      columns: ['name TEXT', 'pop INTEGER'],
      geometryColumn: 'geom',
      geometryType: 'POLYGON',
      rows: [
        { values: ['Alpha', 10], geometry: square(0, 0, 10, 10) },
        { values: ['Beta', 100], geometry: square(20, 0, 30, 10) },
        { values: ['Gamma', 1000], geometry: square(0, 20, 10, 30) },
        { values: ['Delta', null], geometry: square(20, 20, 30, 30) }
      ]
    },
    // The same two lower squares stored in Web Mercator metres.
    { name: 'merc', columns: ['name TEXT'], geometryColumn: 'geom', geometryType: 'POLYGON', srsId: 3857, rows: [{ values: ['west'], geometry: square(mx(0), my(0), mx(10), my(10)) }, { values: ['east'], geometry: square(mx(20), my(0), mx(30), my(10)) }] }
  ])
  const up = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/datastores/gp/file.gpkg?configure=all`, headers: { ...ADMIN, 'content-type': 'application/geopackage+sqlite3' }, payload: fs.readFileSync(file) })
  if (up.statusCode !== 201) throw new Error(`GeoPackage: ${up.statusCode} ${up.body}`)
  return app
}

const doc = (rules: string, layer = 'vx:shapes') => `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld" xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="http://www.opengis.net/gml">
<NamedLayer><Name>${layer}</Name><UserStyle><Name>s</Name><FeatureTypeStyle>${rules}</FeatureTypeStyle></UserStyle></NamedLayer></StyledLayerDescriptor>`
const fill = (c: string) => `<PolygonSymbolizer><Fill><CssParameter name="fill">${c}</CssParameter></Fill></PolygonSymbolizer>`
const rule = (filter: string, c: string) => `<Rule><ogc:Filter>${filter}</ogc:Filter>${fill(c)}</Rule>`
const prop = (n: string) => `<ogc:PropertyName>${n}</ogc:PropertyName>`
const lit = (v: string | number) => `<ogc:Literal>${v}</ogc:Literal>`
const fn = (name: string, ...args: string[]) => `<ogc:Function name="${name}">${args.join('')}</ogc:Function>`
const equal = (a: string, b: string) => `<ogc:PropertyIsEqualTo>${a}${b}</ogc:PropertyIsEqualTo>`

const RED = [255, 0, 0, 255]; const GREEN = [0, 255, 0, 255]; const BLUE = [0, 0, 255, 255]; const YELLOW = [255, 255, 0, 255]

/** A style saved through the REST API and made the layer's default. */
async function saveStyle (t: Test, app: FastifyInstance, name: string, sld: string, layer = 'vx:shapes'): Promise<void> {
  const res = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/styles?name=${name}`, headers: SLD_TYPE, payload: sld })
  t.equal(res.statusCode, 201, `style ${name} saved: ${res.body}`)
  const put = await app.inject({ method: 'PUT', url: `${REST}/layers/${layer}`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { layer: { defaultStyle: { name: `vx:${name}` } } } })
  t.equal(put.statusCode, 200, put.body)
}

async function getMap (app: FastifyInstance, params: Record<string, string>): Promise<Pixels> {
  const res = await app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetMap', srs: 'EPSG:4326', bbox: '-5,-5,35,35', width: 400, height: 400, format: 'image/png', transparent: 'true', styles: '', ...params }), headers: ADMIN })
  if (res.statusCode !== 200 || res.headers['content-type'] !== 'image/png') throw new Error(`GetMap ${res.statusCode} ${res.headers['content-type']}: ${res.body.slice(0, 400)}`)
  return await pixels(res.rawPayload)
}

/** The pixels at the middles of Alpha, Beta, Gamma and Delta (lon 5/25, lat 5/25). */
const middles = (p: Pixels) => ({ Alpha: at(p, 100, 300), Beta: at(p, 300, 300), Gamma: at(p, 100, 100), Delta: at(p, 300, 100) })

// Beta by a BBOX in EPSG:4326; Gamma by Intersects with a point in Web Mercator; Delta by DWithin a
// point written latitude first (urn: EPSG axis order) 2 degrees (222 km at GeoTools' equatorial
// metres per degree) east of it; Alpha by the ElseFilter.
const SPATIAL = doc(`
  ${rule(`<ogc:BBOX>${prop('geom')}<gml:Envelope srsName="EPSG:4326"><gml:lowerCorner>15 -5</gml:lowerCorner><gml:upperCorner>35 15</gml:upperCorner></gml:Envelope></ogc:BBOX>`, '#ff0000')}
  ${rule(`<ogc:Intersects>${prop('geom')}<gml:Point srsName="EPSG:3857"><gml:pos>${mx(5)} ${my(25)}</gml:pos></gml:Point></ogc:Intersects>`, '#00ff00')}
  ${rule(`<ogc:DWithin>${prop('geom')}<gml:Point srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>25 32</gml:pos></gml:Point><ogc:Distance units="km">250</ogc:Distance></ogc:DWithin>`, '#ffff00')}
  <Rule><ElseFilter/>${fill('#0000ff')}</Rule>`)

t.test('spatial rule filters draw only the features whose geometry meets the literal, in the CRS its srsName says', async (t) => {
  const app = await setup(t)
  // Saved through the REST API (geostyler-sld-parser alone answers "No Filter detected" on BBOX).
  await saveStyle(t, app, 'spatial', SPATIAL)
  const m = middles(await getMap(app, { layers: 'vx:shapes' }))
  t.same(m, { Alpha: BLUE, Beta: RED, Gamma: GREEN, Delta: YELLOW }, 'each square by its rule; Alpha by ElseFilter')
  // The same from SLD_BODY, and beyond 150 km the point no longer reaches Delta.
  const nearer = SPATIAL.replace('<ogc:Distance units="km">250</ogc:Distance>', '<ogc:Distance units="km">150</ogc:Distance>')
  t.same(middles(await getMap(app, { layers: 'vx:shapes', sld_body: nearer })), { Alpha: BLUE, Beta: RED, Gamma: GREEN, Delta: BLUE }, '150 km: Delta falls to ElseFilter')
  // Disjoint and Not: the other three.
  const disjoint = doc(rule(`<ogc:Disjoint>${prop('geom')}<gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>1 1 2 1 2 2 1 2 1 1</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></ogc:Disjoint>`, '#ff0000'))
  t.same(middles(await getMap(app, { layers: 'vx:shapes', sld_body: disjoint })), { Alpha: [0, 0, 0, 0], Beta: RED, Gamma: RED, Delta: RED }, 'a polygon in the layer\'s CRS inside Alpha: every other square is disjoint from it')
})

t.test('a literal without srsName is in the layer\'s CRS; with one it is taken there', async (t) => {
  const app = await setup(t)
  const metres = doc(rule(`<ogc:BBOX>${prop('geom')}<gml:Envelope><gml:lowerCorner>${mx(15)} ${my(-5)}</gml:lowerCorner><gml:upperCorner>${mx(35)} ${my(15)}</gml:upperCorner></gml:Envelope></ogc:BBOX>`, '#ff0000'), 'vx:merc')
  let m = middles(await getMap(app, { layers: 'vx:merc', sld_body: metres }))
  t.same([m.Alpha, m.Beta], [[0, 0, 0, 0], RED], 'metres, as the Web Mercator layer stores them: the east square only')
  const degrees = doc(rule(`<ogc:BBOX>${prop('geom')}<gml:Envelope srsName="http://www.opengis.net/def/crs/EPSG/0/4326"><gml:lowerCorner>-5 -5</gml:lowerCorner><gml:upperCorner>15 15</gml:upperCorner></gml:Envelope></ogc:BBOX>`, '#00ff00'), 'vx:merc')
  m = middles(await getMap(app, { layers: 'vx:merc', sld_body: degrees }))
  t.same([m.Alpha, m.Beta], [GREEN, [0, 0, 0, 0]], 'degrees latitude first (EPSG axis order) around the west square, taken to Web Mercator')
})

t.test('functions in rule filters are evaluated per feature: in, Categorize, Interpolate, Recode, strConcat', async (t) => {
  const app = await setup(t)
  const style = doc(`
    ${rule(`<ogc:And>${equal(fn('Recode', prop('name'), lit('Alpha'), lit('keep'), lit('Beta'), lit('drop')), lit('keep'))}${equal(fn('strConcat', prop('name'), lit('!')), lit('Alpha!'))}</ogc:And>`, '#ff0000')}
    ${rule(`<ogc:PropertyIsBetween>${fn('Interpolate', prop('pop'), lit(0), lit(0), lit(1000), lit(100))}<ogc:LowerBoundary>${lit(5)}</ogc:LowerBoundary><ogc:UpperBoundary>${lit(50)}</ogc:UpperBoundary></ogc:PropertyIsBetween>`, '#00ff00')}
    ${rule(equal(fn('Categorize', prop('pop'), lit('small'), lit(500), lit('big')), lit('big')), '#0000ff')}
    ${rule(equal(fn('in', prop('name'), lit('Delta'), lit('Epsilon')), lit('true')), '#ffff00')}`)
  await saveStyle(t, app, 'functions', style)
  const m = middles(await getMap(app, { layers: 'vx:shapes' }))
  t.same(m, { Alpha: RED, Beta: GREEN, Gamma: BLUE, Delta: YELLOW }, 'Recode and strConcat: Alpha; Interpolate 100 -> 10: Beta; Categorize 1000 big: Gamma; in: Delta (its null pop is in no class)')
})

t.test('what a rule filter cannot evaluate is named in a 400 and nothing is saved', async (t) => {
  const app = await setup(t)
  const cases: Array<[string, RegExp]> = [
    [rule(`<ogc:FeatureId fid="shapes.1"/>`, '#ff0000'), /rule 1: Unsupported filter operator FeatureId/],
    [rule(equal(fn('buffer', prop('geom'), lit(1)), lit(1)), '#ff0000'), /function "buffer" in the Filter of rule 1 is not known/],
    [rule(`<ogc:BBOX>${prop('geom')}<gml:Envelope srsName="EPSG:999999"><gml:lowerCorner>0 0</gml:lowerCorner><gml:upperCorner>1 1</gml:upperCorner></gml:Envelope></ogc:BBOX>`, '#ff0000'), /rule 1: Invalid filter: unknown CRS "EPSG:999999"/],
    [rule('<ogc:During>' + prop('t') + '</ogc:During>', '#ff0000'), /rule 1: Unsupported filter operator During/]
  ]
  for (const [rules, why] of cases) {
    const res = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/styles?name=bad`, headers: SLD_TYPE, payload: doc(rules) })
    t.equal(res.statusCode, 400)
    t.match(res.body, why)
  }
  t.equal((await app.inject({ method: 'GET', url: `${REST}/workspaces/vx/styles/bad.json`, headers: ADMIN })).statusCode, 404, 'no style was created')
})
