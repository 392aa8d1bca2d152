// Vector layers (PostGIS feature types) drawn on WMS GetMap with SLD, against a real PostGIS
// database the test creates: GeoServer's default point, line and polygon styles; a style's rule
// filters, ElseFilter and scale ranges choosing colours; labels; several layers (raster and
// vector) in one map, in order; a map in another CRS; SLD_BODY; bad SLD refused with 400.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { createWorkspace } from '../appschema/helpers.js'
import { writeGeoPackage } from '../../fixtures/vector/files.js'
import { postgisStore } from '../../fixtures/postgis-store.js'
import { at, pixels, wmsUrl, worldMosaic, type Pixels } from './helpers.js'

const REST = `${BASE}/rest`
const FT = `${REST}/workspaces/vx/datastores/db/featuretypes`

// A 400x400 map of lon -5..35, lat -5..35 has 10 pixels a degree: lon x is pixel (x+5)*10, lat y is row (35-y)*10.
const TABLES = `
  CREATE TABLE shapes (id integer PRIMARY KEY, kind text, pop integer, geom geometry(Polygon, 4326));
  INSERT INTO shapes VALUES (1, 'a', 10, ST_MakeEnvelope(0, 0, 10, 10, 4326)), (2, 'b', 100, ST_MakeEnvelope(20, 0, 30, 10, 4326));
  CREATE TABLE roads (id integer PRIMARY KEY, geom geometry(LineString, 4326));
  INSERT INTO roads VALUES (1, ST_SetSRID(ST_MakeLine(ST_MakePoint(0, 20), ST_MakePoint(30, 20)), 4326));
  CREATE TABLE towns (id integer PRIMARY KEY, name text, geom geometry(Point, 4326));
  INSERT INTO towns VALUES (1, 'Here', ST_SetSRID(ST_MakePoint(5, 30), 4326));
`

async function setup (t: Test, opts: { wmsMaxFeatures?: number } = {}): Promise<FastifyInstance> {
  const app = await build(t, opts)
  await postgisStore(t, app, TABLES, { store: 'db' })
  for (const name of ['shapes', 'roads', 'towns']) {
    const r = await app.inject({ method: 'POST', url: FT, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { featureType: { name } } })
    if (r.statusCode !== 201) throw new Error(`feature type ${name}: ${r.statusCode} ${r.body}`)
  }
  return app
}

const MAP = { service: 'WMS', version: '1.1.1', request: 'GetMap', srs: 'EPSG:4326', bbox: '-5,-5,35,35', width: 400, height: 400, format: 'image/png', transparent: 'true', styles: '' }

async function getMap (app: FastifyInstance, params: Record<string, string | number>): Promise<Pixels> {
  const res = await app.inject({ method: 'GET', url: wmsUrl({ ...MAP, ...params }), headers: ADMIN })
  if (res.statusCode !== 200 || res.headers['content-type'] !== 'image/png') throw new Error(`GetMap ${res.statusCode} ${res.headers['content-type']}: ${res.body.slice(0, 400)}`)
  return await pixels(res.rawPayload)
}

const SLD = (rules: string, name = 'vx:shapes') => `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld" xmlns:ogc="http://www.opengis.net/ogc">
<NamedLayer><Name>${name}</Name><UserStyle><Name>s</Name><FeatureTypeStyle>${rules}</FeatureTypeStyle></UserStyle></NamedLayer></StyledLayerDescriptor>`
const fill = (c: string) => `<PolygonSymbolizer><Fill><CssParameter name="fill">${c}</CssParameter></Fill></PolygonSymbolizer>`

/** Whether a pixel is close to an opaque colour. */
const near = (px: number[], rgb: number[], tol = 8) => px[3] > 240 && rgb.every((v, i) => Math.abs(px[i] - v) <= tol)

t.test('GeoServer\'s default styles draw each geometry type; nothing elsewhere', async (t) => {
  const app = await setup(t)
  const p = await getMap(app, { layers: 'vx:shapes,vx:roads,vx:towns' })
  t.same(at(p, 100, 300), [0xAA, 0xAA, 0xAA, 255], 'inside the first polygon: the default grey fill')
  t.same(at(p, 300, 300), [0xAA, 0xAA, 0xAA, 255], 'inside the second polygon')
  // Lon 0 and lat 20 fall on pixel edges: the one-pixel strokes cover half of the two pixels beside them.
  const edge = at(p, 50, 300)
  t.ok(edge[0] < 100 && edge[0] === edge[1] && edge[1] === edge[2] && edge[3] === 255, `the polygon's black outline at lon 0 over the grey: ${edge}`)
  const line = at(p, 200, 150)
  t.ok(line[2] === 255 && line[0] === 0 && line[1] === 0 && line[3] > 100, `the blue line at lat 20: ${line}`)
  t.same(at(p, 100, 50), [255, 0, 0, 255], 'the red square of the point')
  t.same(at(p, 102, 52), [255, 0, 0, 255], 'the square is 6 pixels wide')
  t.equal(at(p, 110, 50)[3], 0, 'beside the square: transparent')
  t.equal(at(p, 380, 380)[3], 0, 'no feature: transparent')
  t.equal(at(p, 200, 300)[3], 0, 'between the polygons: transparent')
  t.equal(at(p, 200, 170)[3], 0, 'off the line: transparent')

  // GetCapabilities offers the vector layers with their default styles.
  const caps = await app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.3.0', request: 'GetCapabilities' }), headers: ADMIN })
  t.equal(caps.statusCode, 200)
  for (const [layer, style] of [['vx:shapes', 'polygon'], ['vx:roads', 'line'], ['vx:towns', 'point']]) {
    const i = caps.body.indexOf(`<Name>${layer}</Name>`)
    t.ok(i > 0, `${layer} is listed`)
    t.ok(caps.body.slice(i, caps.body.indexOf('</Layer>', i)).includes(`<Name>${style}</Name>`), `with its style ${style}`)
  }

  // The same polygons in Web Mercator: reprojected to the map's CRS.
  const merc = await getMap(app, { layers: 'vx:shapes', srs: 'EPSG:3857', bbox: '-556597.45,-556597.45,3896182.18,3896182.18' })
  // lon 5 -> x 556597.45: pixel (556597.45+556597.45)/4452779.63*400 = 100; lat 5 -> y 557305.26: row (3896182.18-557305.26)/4452779.63*400 = 300
  t.same(at(merc, 100, 300), [0xAA, 0xAA, 0xAA, 255], 'in EPSG:3857 too')
  t.equal(at(merc, 200, 300)[3], 0)
})

t.test('a style\'s rules: a filter, an ElseFilter and a scale range choose each polygon\'s colour', async (t) => {
  const app = await setup(t)
  const sld = SLD(`
    <Rule><Name>big</Name><ogc:Filter><ogc:PropertyIsGreaterThan><ogc:PropertyName>pop</ogc:PropertyName><ogc:Literal>50</ogc:Literal></ogc:PropertyIsGreaterThan></ogc:Filter>${fill('#FF0000')}</Rule>
    <Rule><Name>close</Name><ogc:Filter><ogc:PropertyIsEqualTo><ogc:PropertyName>kind</ogc:PropertyName><ogc:Literal>a</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter>
      <MaxScaleDenominator>1000000</MaxScaleDenominator>${fill('#FFFF00')}</Rule>
    <Rule><Name>rest</Name><ElseFilter/>${fill('#00FF00')}</Rule>`)
  let res = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/styles?name=rules`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: sld })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'PUT', url: `${REST}/layers/vx:shapes`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { layer: { styles: { style: [{ name: 'vx:rules' }] } } } })
  t.equal(res.statusCode, 200, res.body)
  const p = await getMap(app, { layers: 'vx:shapes', styles: 'rules' })
  t.same(at(p, 300, 300), [255, 0, 0, 255], 'pop 100 > 50: red')
  t.same(at(p, 100, 300), [0, 255, 0, 255], 'at 1:39,757,000 the scale rule is off: the ElseFilter\'s green')
  // One degree over 400 pixels: 1:993,920 (0.28 mm pixels), inside the scale rule's range.
  const close = await getMap(app, { layers: 'vx:shapes', styles: 'rules', bbox: '4,4,5,5' })
  t.same(at(close, 200, 200), [255, 255, 0, 255], 'below 1:1,000,000 kind a is yellow')
  // Just past it: 1.1 degrees over 400 pixels is 1:1,093,000.
  const far = await getMap(app, { layers: 'vx:shapes', styles: 'rules', bbox: '4,4,5.1,5.1' })
  t.same(at(far, 200, 200), [0, 255, 0, 255], 'above 1:1,000,000 the ElseFilter again')

  // CQL_FILTER restricts the features read (compiled to PostGIS SQL).
  const cql = await getMap(app, { layers: 'vx:shapes', styles: 'rules', cql_filter: 'pop > 50' })
  t.same(at(cql, 300, 300), [255, 0, 0, 255], 'CQL_FILTER keeps pop 100')
  t.equal(at(cql, 100, 300)[3], 0, 'and leaves pop 10 out')
  const bad = await app.inject({ method: 'GET', url: wmsUrl({ ...MAP, layers: 'vx:shapes', cql_filter: 'nosuch > 1', W3CSTATUS: 'true' }), headers: ADMIN })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, 'unknown attribute &quot;nosuch&quot;')
})

t.test('labels: a TextSymbolizer writes the property\'s value at the point; overlapping labels are skipped', async (t) => {
  const app = await setup(t)
  const sld = SLD(`<Rule><TextSymbolizer><Label><ogc:PropertyName>name</ogc:PropertyName></Label>
    <Font><CssParameter name="font-family">DejaVu Sans</CssParameter><CssParameter name="font-size">14</CssParameter><CssParameter name="font-weight">bold</CssParameter></Font>
    <LabelPlacement><PointPlacement><AnchorPoint><AnchorPointX>0.5</AnchorPointX><AnchorPointY>0.5</AnchorPointY></AnchorPoint></PointPlacement></LabelPlacement>
    <Halo><Radius>2</Radius><Fill><CssParameter name="fill">#FFFFFF</CssParameter></Fill></Halo>
    <Fill><CssParameter name="fill">#000000</CssParameter></Fill></TextSymbolizer></Rule>`, 'vx:towns')
  const p = await getMap(app, { layers: 'vx:towns', sld_body: sld })
  let dark = 0; let white = 0; let outside = 0
  for (let y = 0; y < 400; y++) {
    for (let x = 0; x < 400; x++) {
      const px = at(p, x, y)
      const inBox = x >= 70 && x <= 130 && y >= 38 && y <= 62
      if (px[3] === 0) continue
      if (!inBox) outside++
      else if (near(px, [0, 0, 0], 60)) dark++
      else if (near(px, [255, 255, 255], 30)) white++
    }
  }
  t.ok(dark > 30, `black text around the point (5, 30): ${dark} pixels`)
  t.ok(white > 30, `its white halo: ${white} pixels`)
  t.equal(outside, 0, 'nothing drawn away from the label')

  // A polygon's label at its pole of inaccessibility: the middle of the square.
  const poly = SLD(`<Rule>${fill('#FFFFFF')}<TextSymbolizer><Label>X<ogc:PropertyName>kind</ogc:PropertyName></Label><Font><CssParameter name="font-size">12</CssParameter></Font>
    <LabelPlacement><PointPlacement><AnchorPoint><AnchorPointX>0.5</AnchorPointX><AnchorPointY>0.5</AnchorPointY></AnchorPoint></PointPlacement></LabelPlacement></TextSymbolizer></Rule>`)
  const q = await getMap(app, { layers: 'vx:shapes', sld_body: poly })
  let darkAt = 0
  for (let y = 290; y <= 310; y++) for (let x = 85; x <= 115; x++) if (near(at(q, x, y), [0, 0, 0], 80)) darkAt++
  t.ok(darkAt > 10, `the label in the middle of polygon 1: ${darkAt} dark pixels`)
  t.same(at(q, 60, 260), [255, 255, 255, 255], 'the fill elsewhere')
})

t.test('raster and vector layers in one map, drawn in the order asked', async (t) => {
  const app = await setup(t)
  const raster = await worldMosaic(app)
  const over = await getMap(app, { layers: `${raster},vx:shapes`, styles: ',' })
  t.same(at(over, 100, 300), [0xAA, 0xAA, 0xAA, 255], 'the polygon over the raster')
  const under = await getMap(app, { layers: `vx:shapes,${raster}`, styles: ',' })
  t.notSame(at(under, 100, 300), [0xAA, 0xAA, 0xAA, 255], 'the raster over the polygon')
  t.equal(at(under, 100, 300)[3], 255)
})

t.test('a layer group of vector layers draws its members in order with their default styles', async (t) => {
  const app = await setup(t)
  const res = await app.inject({
    method: 'POST',
    url: `${REST}/layergroups`,
    headers: { ...ADMIN, 'content-type': 'application/json' },
    payload: { layerGroup: { name: 'all', publishables: { published: [{ '@type': 'layer', name: 'vx:shapes' }, { '@type': 'layer', name: 'vx:roads' }, { '@type': 'layer', name: 'vx:towns' }] } } }
  })
  t.equal(res.statusCode, 201, res.body)
  const p = await getMap(app, { layers: 'all' })
  t.same(at(p, 100, 300), [0xAA, 0xAA, 0xAA, 255], 'the polygons')
  t.same(at(p, 100, 50), [255, 0, 0, 255], 'the point')
  t.equal(at(p, 380, 380)[3], 0)
})

t.test('bad SLD: a ServiceException naming the problem (400 with W3CSTATUS=true), never 500', async (t) => {
  const app = await setup(t)
  const cases: Array<[string, RegExp]> = [
    [SLD(`<Rule><PointSymbolizer><Graphic><Mark><WellKnownName>hexagon</WellKnownName></Mark></Graphic></PointSymbolizer></Rule>`), /hexagon/],
    [SLD(`<Rule><ogc:Filter><ogc:PropertyIsSomething><ogc:PropertyName>pop</ogc:PropertyName></ogc:PropertyIsSomething></ogc:Filter>${fill('#FF0000')}</Rule>`), /PropertyIsSomething/],
    [SLD(`<Rule>${fill('red-ish')}</Rule>`), /red-ish/],
    ['<StyledLayerDescriptor', /./]
  ]
  for (const [body, why] of cases) {
    const res = await app.inject({ method: 'GET', url: wmsUrl({ ...MAP, layers: 'vx:shapes', sld_body: body }), headers: ADMIN })
    t.equal(res.statusCode, 200, 'WMS 1.1.1 reports exceptions with 200, as GeoServer')
    t.match(res.headers['content-type'], /^application\/vnd\.ogc\.se_xml/)
    t.match(res.body, why)
    const w3c = await app.inject({ method: 'GET', url: wmsUrl({ ...MAP, layers: 'vx:shapes', sld_body: body, W3CSTATUS: 'true' }), headers: ADMIN })
    t.equal(w3c.statusCode, 400, body.slice(-120))
  }
})

t.test('GetFeatureInfo on vector layers: the features under the pixel (BUFFER pixels around it) in text/plain, application/json, text/html and GML', async (t) => {
  const app = await setup(t)
  const q = { ...MAP, request: 'GetFeatureInfo', layers: 'vx:shapes,vx:towns', query_layers: 'vx:shapes,vx:towns', feature_count: 10 }
  const info = (extra: Record<string, string | number>) => app.inject({ method: 'GET', url: wmsUrl({ ...q, ...extra }), headers: ADMIN })
  // Pixel (100, 300) is lon 5, lat 5: inside polygon 1 only.
  let res = await info({ x: 100, y: 300, info_format: 'application/json' })
  t.equal(res.statusCode, 200, res.body)
  t.match(res.headers['content-type'], /^application\/json/)
  const doc = JSON.parse(res.body)
  t.equal(doc.type, 'FeatureCollection')
  t.equal(doc.numberReturned, 1)
  t.same(doc.crs, { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::4326' } })
  t.same(doc.features[0].properties, { kind: 'a', pop: 10 })
  t.equal(doc.features[0].geometry.type, 'Polygon')
  t.same(doc.features[0].geometry.coordinates[0][0], [0, 0])

  res = await info({ x: 100, y: 300, info_format: 'text/plain' })
  t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(res.body, [
    "Results for FeatureType 'vx:shapes':",
    '--------------------------------------------',
    'kind = a',
    'pop = 10',
    'geometry = [GEOMETRY (Polygon) with 5 points]',
    '--------------------------------------------',
    ''
  ].join('\n'))

  res = await info({ x: 100, y: 300, info_format: 'text/html' })
  t.equal(res.headers['content-type'], 'text/html; charset=utf-8')
  t.match(res.body, '<table class="featureInfo">')
  t.match(res.body, '<caption class="featureInfo">shapes</caption>')
  t.match(res.body, '<tr><th>fid</th><th>kind</th><th>pop</th></tr>')
  t.match(res.body, '<tr><td>shapes.1</td><td>a</td><td>10</td></tr>')

  res = await info({ x: 100, y: 300, info_format: 'application/vnd.ogc.gml' })
  t.match(res.body, '<vx:shapes fid="shapes.1">')
  t.match(res.body, '<vx:kind>a</vx:kind>')

  // The town at pixel (100, 50): found from 2 pixels away within the default BUFFER of 3, not with BUFFER=1.
  res = await info({ x: 102, y: 52, info_format: 'application/json' })
  t.same(JSON.parse(res.body).features.map((f: { properties: { name?: string } }) => f.properties.name), ['Here'])
  res = await info({ x: 102, y: 52, info_format: 'application/json', buffer: 1 })
  t.equal(JSON.parse(res.body).numberReturned, 0)
  res = await info({ x: 200, y: 300, info_format: 'text/plain' })
  t.equal(res.body, 'no features were found\n')
  res = await info({ x: 100, y: 300, info_format: 'text/plain', buffer: -1 })
  t.match(res.body, 'Invalid BUFFER')
})

t.test('GetLegendGraphic: a swatch per rule of a vector style with its title; RULE picks one', async (t) => {
  const app = await setup(t)
  const sld = SLD(`
    <Rule><Name>big</Name><Title>Big towns</Title><ogc:Filter><ogc:PropertyIsGreaterThan><ogc:PropertyName>pop</ogc:PropertyName><ogc:Literal>50</ogc:Literal></ogc:PropertyIsGreaterThan></ogc:Filter>${fill('#FF0000')}</Rule>
    <Rule><Name>rest</Name><Title>Others</Title><ElseFilter/>${fill('#00FF00')}</Rule>`)
  let res = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/styles?name=two`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: sld })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'PUT', url: `${REST}/layers/vx:shapes`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { layer: { styles: { style: [{ name: 'vx:two' }] } } } })
  t.equal(res.statusCode, 200, res.body)
  const legend = (extra: Record<string, string>) => app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetLegendGraphic', format: 'image/png', layer: 'vx:shapes', ...extra }), headers: ADMIN })
  res = await legend({ style: 'two' })
  t.equal(res.statusCode, 200, 'the legend')
  t.equal(res.headers['content-type'], 'image/png')
  const p = await pixels(res.rawPayload)
  t.equal(p.height, 42, 'two rows of 20 pixels and a gap of 2')
  t.ok(p.width > 60, `the titles beside the swatches: ${p.width} pixels wide`)
  t.same(at(p, 10, 10), [255, 0, 0, 255], 'the first rule\'s red swatch')
  t.same(at(p, 10, 32), [0, 255, 0, 255], 'the second rule\'s green swatch')
  let text = 0
  for (let y = 0; y < 20; y++) for (let x = 24; x < p.width; x++) if (near(at(p, x, y), [0, 0, 0], 100)) text++
  t.ok(text > 20, `the title beside the first swatch: ${text} dark pixels`)
  // The picture is as wide as the longer title is drawn (measured with the font file it is drawn in).
  let inkRight = 0
  for (let y = 0; y < p.height; y++) for (let x = 24; x < p.width; x++) if (near(at(p, x, y), [0, 0, 0], 160)) inkRight = Math.max(inkRight, x)
  t.ok(inkRight >= p.width - 3 && inkRight < p.width, `the title's ink ends at ${inkRight}, the picture at ${p.width}`)

  res = await legend({ style: 'two', rule: 'rest', width: '30', height: '10' })
  const one = await pixels(res.rawPayload)
  t.equal(one.height, 10)
  t.same(at(one, 15, 5), [0, 255, 0, 255], 'RULE=rest: its swatch only')

  // GeoServer's default style of a point layer: the red square.
  const pt = await pixels((await app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetLegendGraphic', format: 'image/png', layer: 'vx:towns' }), headers: ADMIN })).rawPayload)
  t.same(at(pt, 10, 10), [255, 0, 0, 255])

  res = await legend({ style: 'two', rule: 'nope' })
  t.match(res.body, 'Invalid RULE &quot;nope&quot;: no rule of that name in style vx:two')
  res = await legend({ style: 'other' })
  t.match(res.body, 'StyleNotDefined')
})

t.test('MAPWARDEN_WMS_MAX_FEATURES: a map with more features of a layer is refused naming the layer, never drawn short', async (t) => {
  const app = await setup(t, { wmsMaxFeatures: 1 })
  const res = await app.inject({ method: 'GET', url: wmsUrl({ ...MAP, layers: 'vx:shapes', W3CSTATUS: 'true' }), headers: ADMIN })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'Layer vx:shapes has more than 1 features in the map')
  t.match(res.body, '(MAPWARDEN_WMS_MAX_FEATURES)')
  const one = await getMap(app, { layers: 'vx:towns' })
  t.same(at(one, 100, 50), [255, 0, 0, 255], 'a layer within the cap is drawn')
})

t.test('a GeoPackage DATE column: CQL_FILTER compares it as written, on WMS GetMap as on WFS GetFeature (one attribute typing)', async (t) => {
  const app = await build(t)
  await createWorkspace(app, 'vx')
  const dir = tempDir(t, 'gpkg')
  writeGeoPackage(path.join(dir, 'fields.gpkg'), [{
    name: 'fields',
    columns: ['founded DATE', 'stamp DATETIME'],
    geometryColumn: 'geom',
    geometryType: 'POLYGON',
    rows: [
      { values: ['1950-06-30', '1950-06-30T12:00:00.000Z'], geometry: { type: 'Polygon', coordinates: [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]] } },
      { values: ['2000-01-01', '2000-01-01T00:00:00.000Z'], geometry: { type: 'Polygon', coordinates: [[[20, 0], [30, 0], [30, 10], [20, 10], [20, 0]]] } }
    ]
  }])
  const up = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/datastores/gp/file.gpkg?configure=all`, headers: { ...ADMIN, 'content-type': 'application/geopackage+sqlite3' }, payload: fs.readFileSync(path.join(dir, 'fields.gpkg')) })
  t.equal(up.statusCode, 201, up.body)
  const map = await getMap(app, { layers: 'vx:fields', cql_filter: "founded = '1950-06-30'" })
  t.ok(at(map, 50, 300)[3] > 0, 'the feature founded 1950-06-30 is drawn')
  t.equal(at(map, 250, 300)[3], 0, 'the other is not')
  const wfs = await app.inject({ method: 'GET', url: `${BASE}/wfs?service=WFS&version=2.0.0&request=GetFeature&typeNames=vx:fields&outputFormat=application/json&cql_filter=${encodeURIComponent("founded = '1950-06-30'")}`, headers: ADMIN })
  t.equal(wfs.statusCode, 200, wfs.body)
  t.same(JSON.parse(wfs.body).features.map((f: { properties: { founded: string } }) => f.properties.founded), ['1950-06-30'], 'WFS reads the same filter alike')
  const stamp = await getMap(app, { layers: 'vx:fields', cql_filter: 'stamp AFTER 1999-12-31T00:00:00Z' })
  t.equal(at(stamp, 50, 300)[3], 0, 'a DATETIME column is an instant: AFTER keeps 2000 only')
  t.ok(at(stamp, 250, 300)[3] > 0)
})
