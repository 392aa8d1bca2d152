// Feature types of PostGIS stores through GeoServer's REST API, against a real PostGIS database the
// test creates: the lists (configured, available, available_with_geom, all), POST in XML and JSON
// with attributes, CRSs and bounds read from the tables, the layer it publishes (VECTOR, the generic
// style of its geometry type), PUT with recalculate, DELETE with recurse, the workspace's list, and
// the refusals that store nothing (no such table, no geometry, a taken name, bad bounds).
import t, { type Test } from 'tap'
import pg from 'pg'
import sharp from 'sharp'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { postgisStore } from '../../fixtures/postgis-store.js'
import { createWorkspace } from '../appschema/helpers.js'

const REST = `${BASE}/rest`
const FT = `${REST}/workspaces/vx/datastores/nyc/featuretypes`

const TABLES = `
  CREATE TABLE places (gid serial PRIMARY KEY, name varchar(40) NOT NULL, pop integer, area double precision,
    founded date, capital boolean, big bigint, small smallint, note text, geom geometry(Point, 4326));
  INSERT INTO places (name, pop, area, founded, capital, geom) VALUES
    ('Alpha', 100, 1.5, '1900-01-01', true, ST_SetSRID(ST_MakePoint(-10, -5), 4326)),
    ('Beta', 200, 2.5, '1950-06-30', false, ST_SetSRID(ST_MakePoint(20, 15), 4326)),
    ('Gamma', NULL, NULL, NULL, NULL, ST_SetSRID(ST_MakePoint(5, 40), 4326));
  CREATE TABLE roads (id bigint PRIMARY KEY, kind text, geom geometry(LineString, 3857));
  INSERT INTO roads VALUES (1, 'main', ST_SetSRID(ST_MakeLine(ST_MakePoint(0, 0), ST_MakePoint(1113194.9079327357, 1118889.9748579594)), 3857));
  CREATE TABLE parcels (id integer PRIMARY KEY, value numeric, geom geometry(MultiPolygon, 4326));
  INSERT INTO parcels VALUES (1, 12.5, ST_Multi(ST_MakeEnvelope(1, 2, 3, 4, 4326)));
  CREATE TABLE "Roads ""x""" (id integer, geom geometry(Point, 4326));
  INSERT INTO "Roads ""x""" VALUES (1, ST_SetSRID(ST_MakePoint(7, 8), 4326));
  CREATE VIEW stats AS SELECT count(*) AS n FROM places;
  CREATE TABLE plain (id integer);
`

async function setup (t: Test, opts: { dataDir?: string, keepOpen?: boolean } = {}): Promise<{ app: FastifyInstance, url: string }> {
  const app = await build(t, opts)
  const url = await postgisStore(t, app, TABLES)
  return { app, url }
}

const get = (app: FastifyInstance, url: string) => app.inject({ method: 'GET', url, headers: ADMIN })
const postXml = (app: FastifyInstance, body: string, url = FT) => app.inject({ method: 'POST', url, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: body })
const postJson = (app: FastifyInstance, body: unknown) => app.inject({ method: 'POST', url: FT, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify(body) })
const json = (r: LightMyRequestResponse) => JSON.parse(r.body)
const configured = async (app: FastifyInstance): Promise<string[]> => {
  const b = json(await get(app, `${FT}.json`))
  return b.featureTypes === '' ? [] : b.featureTypes.featureType.map((f: { name: string }) => f.name)
}

t.test('list=available, available_with_geom and all read the store\'s schema; configured types leave the available lists', async (t) => {
  const { app } = await setup(t)
  t.same(json(await get(app, `${FT}.json?list=all`)), { list: { string: ['Roads "x"', 'parcels', 'places', 'plain', 'roads', 'stats'] } })
  t.same(json(await get(app, `${FT}.json?list=available_with_geom`)), { list: { string: ['Roads "x"', 'parcels', 'places', 'roads'] } })
  t.equal((await postXml(app, '<featureType><name>places</name></featureType>')).statusCode, 201)
  t.same(json(await get(app, `${FT}.json?list=available`)), { list: { string: ['Roads "x"', 'parcels', 'plain', 'roads', 'stats'] } })
  const xml = await get(app, `${FT}.xml?list=available_with_geom`)
  t.equal(xml.body, '<list>\n  <featureTypeName>Roads &quot;x&quot;</featureTypeName>\n  <featureTypeName>parcels</featureTypeName>\n  <featureTypeName>roads</featureTypeName>\n</list>')
  t.same(json(await get(app, `${FT}.json?list=all`)).list.string.length, 6, 'all still lists every type')
  t.equal((await get(app, `${FT}.json?list=bogus`)).statusCode, 400)
  t.same(json(await get(app, `${FT}.json`)), { featureTypes: { featureType: [{ name: 'places', href: `http://localhost:80${FT}/places.json` }] } })
})

t.test('POST <featureType><name>: 201 and a Location; GET shows the attributes, CRS and bounds read from the table, as GeoServer writes them', async (t) => {
  const { app } = await setup(t)
  const res = await postXml(app, '<featureType><name>places</name><title>Places</title><abstract>Towns</abstract></featureType>')
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.body, 'places')
  t.equal(res.headers.location, `http://localhost:80${FT}/places`)
  const xml = await get(app, `${FT}/places.xml`)
  t.equal(xml.statusCode, 200)
  t.equal(xml.body, [
    '<featureType>',
    '  <name>places</name>',
    '  <nativeName>places</nativeName>',
    '  <namespace>',
    '    <name>vx</name>',
    `    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80${REST}/namespaces/vx.xml" type="application/xml"/>`,
    '  </namespace>',
    '  <title>Places</title>',
    '  <abstract>Towns</abstract>',
    '  <keywords>',
    '    <string>features</string>',
    '    <string>places</string>',
    '  </keywords>',
    // GeoServer's CRSConverter: the WKT in GeoTools' layout (the EPSG registry's text); geographic, so no class.
    '  <nativeCRS>GEOGCS[&quot;WGS 84&quot;, ',
    '  DATUM[&quot;WGS_1984&quot;, ',
    '    SPHEROID[&quot;WGS 84&quot;, 6378137, 298.257223563, AUTHORITY[&quot;EPSG&quot;,&quot;7030&quot;]], ',
    '    AUTHORITY[&quot;EPSG&quot;,&quot;6326&quot;]], ',
    '  PRIMEM[&quot;Greenwich&quot;, 0, AUTHORITY[&quot;EPSG&quot;,&quot;8901&quot;]], ',
    '  UNIT[&quot;degree&quot;, 0.0174532925199433, AUTHORITY[&quot;EPSG&quot;,&quot;9122&quot;]], ',
    '  AUTHORITY[&quot;EPSG&quot;,&quot;4326&quot;]]</nativeCRS>',
    '  <srs>EPSG:4326</srs>',
    '  <nativeBoundingBox>',
    '    <minx>-10</minx>',
    '    <maxx>20</maxx>',
    '    <miny>-5</miny>',
    '    <maxy>40</maxy>',
    '    <crs>EPSG:4326</crs>',
    '  </nativeBoundingBox>',
    '  <latLonBoundingBox>',
    '    <minx>-10</minx>',
    '    <maxx>20</maxx>',
    '    <miny>-5</miny>',
    '    <maxy>40</maxy>',
    '    <crs>EPSG:4326</crs>',
    '  </latLonBoundingBox>',
    '  <projectionPolicy>FORCE_DECLARED</projectionPolicy>',
    '  <enabled>true</enabled>',
    '  <store class="dataStore">',
    '    <name>vx:nyc</name>',
    `    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80${REST}/workspaces/vx/datastores/nyc.xml" type="application/xml"/>`,
    '  </store>',
    '  <serviceConfiguration>false</serviceConfiguration>',
    '  <simpleConversionEnabled>false</simpleConversionEnabled>',
    '  <maxFeatures>0</maxFeatures>',
    '  <numDecimals>0</numDecimals>',
    '  <padWithZeros>false</padWithZeros>',
    '  <forcedDecimal>false</forcedDecimal>',
    '  <overridingServiceSRS>false</overridingServiceSRS>',
    '  <skipNumberMatched>false</skipNumberMatched>',
    '  <circularArcPresent>false</circularArcPresent>',
    '  <attributes>',
    ...[
      ['name', 1, false, 'java.lang.String', 40], ['pop', 0, true, 'java.lang.Integer'], ['area', 0, true, 'java.lang.Double'],
      ['founded', 0, true, 'java.sql.Date'], ['capital', 0, true, 'java.lang.Boolean'], ['big', 0, true, 'java.lang.Long'],
      ['small', 0, true, 'java.lang.Short'], ['note', 0, true, 'java.lang.String'], ['geom', 0, true, 'org.locationtech.jts.geom.Point']
    ].flatMap(([name, min, nillable, binding, length]) => [
      '    <attribute>',
      `      <name>${name}</name>`,
      `      <minOccurs>${min}</minOccurs>`,
      '      <maxOccurs>1</maxOccurs>',
      `      <nillable>${nillable}</nillable>`,
      `      <binding>${binding}</binding>`,
      ...(length !== undefined ? [`      <length>${length}</length>`] : []),
      '    </attribute>'
    ]),
    '  </attributes>',
    '</featureType>'
  ].join('\n'))
  t.notOk(xml.body.includes('<name>gid</name>'), 'the primary key is no attribute unless the store exposes primary keys')

  const j = json(await get(app, `${FT}/places.json`)).featureType
  t.same(j.attributes.attribute[0], { name: 'name', minOccurs: 1, maxOccurs: 1, nillable: false, binding: 'java.lang.String', length: 40 })
  t.same(j.latLonBoundingBox, { minx: -10, maxx: 20, miny: -5, maxy: 40, crs: 'EPSG:4326' })
  t.same(j.keywords, { string: ['features', 'places'] })
  t.same(j.store, { '@class': 'dataStore', name: 'vx:nyc', href: `http://localhost:80${REST}/workspaces/vx/datastores/nyc.json` })
})

t.test('creating a feature type publishes its layer: VECTOR, the resource linked, GeoServer\'s generic style of its geometry type', async (t) => {
  const { app } = await setup(t)
  t.equal((await postXml(app, '<featureType><name>places</name></featureType>')).statusCode, 201)
  t.equal((await postJson(app, { featureType: { name: 'roads', srs: 'EPSG:4326' } })).statusCode, 201)
  t.equal((await postJson(app, { featureType: { name: 'parcels' } })).statusCode, 201)
  const layer = json(await get(app, `${REST}/layers/vx:places.json`)).layer
  t.equal(layer.type, 'VECTOR')
  t.equal(layer.defaultStyle.name, 'point')
  t.same(layer.resource, { '@class': 'featureType', name: 'vx:places', href: `http://localhost:80${FT}/places.json` })
  t.equal(json(await get(app, `${REST}/layers/vx:roads.json`)).layer.defaultStyle.name, 'line')
  t.equal(json(await get(app, `${REST}/layers/vx:parcels.json`)).layer.defaultStyle.name, 'polygon')
  const xml = await get(app, `${REST}/layers/vx:roads.xml`)
  t.match(xml.body, '<type>VECTOR</type>')
  t.ok(xml.body.includes('  <resource class="featureType">\n    <name>vx:roads</name>\n'), xml.body)

  // A vector layer is drawn on WMS with its default style (test/plugins/wms/vector-map.test.ts
  // draws every kind); its tiles too (test/plugins/tiles/vector-tiles.test.ts).
  const map = await app.inject({ method: 'GET', url: `${BASE}/wms?service=WMS&version=1.1.1&request=GetMap&layers=vx:places&styles=&srs=EPSG:4326&bbox=-10,-5,20,40&width=64&height=64&format=image/png&transparent=true`, headers: ADMIN })
  t.equal(map.statusCode, 200, map.body)
  t.equal(map.headers['content-type'], 'image/png')
  const { data, info } = await sharp(map.rawPayload).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  // Beta at lon 20, lat 15: the map's right edge, row (40-15)/45*64 = 35.6; GeoServer's red square of 6 pixels.
  const px = (x: number, y: number) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)]
  t.same(px(62, 35), [255, 0, 0, 255], 'the default point style: a red square')
  t.equal(px(32, 10)[3], 0, 'transparent where there is no feature')
  const tile = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/tms/1.0.0/vx:places@EPSG:4326@png/0/0/0.png`, headers: ADMIN })
  t.equal(tile.statusCode, 200, 'its tiles are drawn')
  t.equal(tile.headers['content-type'], 'image/png')
})

t.test('a table in another CRS: srs declared, REPROJECT_TO_DECLARED, lat/lon bounds transformed by PostGIS', async (t) => {
  const { app } = await setup(t)
  t.equal((await postJson(app, { featureType: { name: 'roads', srs: 'EPSG:4326' } })).statusCode, 201)
  const ft = json(await get(app, `${FT}/roads.json`)).featureType
  t.equal(ft.nativeCRS['@class'], 'projected', 'a projected CRS: class="projected", {"@class","$"} in JSON')
  t.match(ft.nativeCRS.$, /^PROJCS\["WGS 84 \/ Pseudo-Mercator", \n  GEOGCS\["WGS 84", \n/)
  t.ok(ft.nativeCRS.$.endsWith('\n  AUTHORITY["EPSG","3857"]]'), ft.nativeCRS.$)
  t.equal(ft.srs, 'EPSG:4326')
  t.equal(ft.projectionPolicy, 'REPROJECT_TO_DECLARED')
  t.same(ft.nativeBoundingBox.crs, { '@class': 'projected', $: 'EPSG:3857' }, 'GeoServer\'s SRSConverter form')
  t.equal(ft.nativeBoundingBox.maxx, 1113194.9079327357)
  t.equal(ft.latLonBoundingBox.minx, 0)
  t.ok(Math.abs(ft.latLonBoundingBox.maxx - 10) < 1e-9, String(ft.latLonBoundingBox.maxx))
  t.ok(Math.abs(ft.latLonBoundingBox.maxy - 10) < 1e-6, String(ft.latLonBoundingBox.maxy))
  t.same(ft.attributes.attribute.map((a: { name: string, binding: string }) => [a.name, a.binding]), [['kind', 'java.lang.String'], ['geom', 'org.locationtech.jts.geom.LineString']])
})

t.test('a table name with quotes and a space is read through quoted identifiers; nativeName differs from name', async (t) => {
  const { app } = await setup(t)
  const res = await postXml(app, '<featureType><name>roads_x</name><nativeName>Roads "x"</nativeName></featureType>')
  t.equal(res.statusCode, 201, res.body)
  const ft = json(await get(app, `${FT}/roads_x.json`)).featureType
  t.equal(ft.nativeName, 'Roads "x"')
  t.same(ft.nativeBoundingBox, { minx: 7, maxx: 7, miny: 8, maxy: 8, crs: 'EPSG:4326' })
  t.same(ft.attributes.attribute.map((a: { name: string }) => a.name), ['id', 'geom'])
})

t.test('refusals name the problem and store nothing', async (t) => {
  const { app } = await setup(t)
  const cases: Array<[string, unknown, number, RegExp]> = [
    ['no such table', { featureType: { name: 'nowhere' } }, 400, /No table or view 'nowhere' in schema 'public' of data store 'nyc'/],
    ['a view without a geometry', { featureType: { name: 'stats' } }, 400, /'stats' of data store 'nyc' has no geometry column/],
    ['a table without a geometry', { featureType: { name: 'plain' } }, 400, /'plain' .* has no geometry column/],
    ['an inverted bbox', { featureType: { name: 'places', nativeBoundingBox: { minx: 5, maxx: 1, miny: 0, maxy: 1 } } }, 400, /nativeBoundingBox minx \(5\) is above maxx \(1\)/],
    ['a bbox that is no number', { featureType: { name: 'places', latLonBoundingBox: { minx: 'x', maxx: 1, miny: 0, maxy: 1 } } }, 400, /latLonBoundingBox minx must be a finite number: "x"/],
    ['lat/lon out of range', { featureType: { name: 'places', latLonBoundingBox: { minx: 0, maxx: 200, miny: 0, maxy: 1 } } }, 400, /outside longitudes -180\.\.180/],
    ['a bad srs', { featureType: { name: 'places', srs: 'WGS84' } }, 400, /srs must be an EPSG code such as EPSG:4326: "WGS84"/],
    ['an unknown srs', { featureType: { name: 'roads', srs: 'EPSG:999999' } }, 400, /srs EPSG:999999 is not a CRS the database of data store 'nyc' knows/],
    ['a bad policy', { featureType: { name: 'places', projectionPolicy: 'SOMETIMES' } }, 400, /projectionPolicy must be one of FORCE_DECLARED, REPROJECT_TO_DECLARED, NONE/],
    ['an unknown field', { featureType: { name: 'places', colour: 'red' } }, 400, /colour/],
    ['an attribute that is no column', { featureType: { name: 'places', attributes: { attribute: [{ name: 'geom' }, { name: 'nope' }] } } }, 400, /attribute "nope" is not a column of "places"/],
    ['a name that cannot be a layer name', { featureType: { name: 'a/b', nativeName: 'places' } }, 400, /a\/b/]
  ]
  for (const [what, body, status, message] of cases) {
    const r = await postJson(app, body)
    t.equal(r.statusCode, status, `${what}: ${r.body}`)
    t.match(r.body, message, what)
  }
  t.same(await configured(app), [], 'nothing stored')
  t.equal((await get(app, `${REST}/layers/vx:places.json`)).statusCode, 404)

  t.equal((await postXml(app, '<featureType><name>places</name></featureType>')).statusCode, 201)
  const again = await postXml(app, '<featureType><name>PLACES</name><nativeName>parcels</nativeName></featureType>')
  t.equal(again.statusCode, 409, again.body)
  t.match(again.body, "Resource named 'places' already exists in workspace 'vx'")
  t.same(await configured(app), ['places'])
  t.equal((await get(app, `${REST}/workspaces/vx/datastores/nope/featuretypes.json`)).statusCode, 404)
  // A disabled store is not connected: its tables are neither listed nor published.
  const off = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/datastores/nyc`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { dataStore: { enabled: false } } })
  t.equal(off.statusCode, 200, off.body)
  const listed = await get(app, `${FT}.json?list=available`)
  t.equal(listed.statusCode, 409)
  t.match(listed.body, "Data store 'nyc' is disabled: it is not connected")
  const posted = await postXml(app, '<featureType><name>parcels</name></featureType>')
  t.equal(posted.statusCode, 409)
  t.same(await configured(app), ['places'], 'the configured list is still read from the catalog')
  t.equal((await get(app, `${FT}/nope.json`)).statusCode, 404)
})

t.test('POST with attributes publishes only those columns; JSON keywords and enabled', async (t) => {
  const { app } = await setup(t)
  const r = await postJson(app, { featureType: { name: 'places', keywords: { string: ['towns', 'demo'] }, enabled: false, attributes: { attribute: [{ name: 'name' }, { name: 'geom' }] } } })
  t.equal(r.statusCode, 201, r.body)
  const ft = json(await get(app, `${FT}/places.json`)).featureType
  t.same(ft.keywords, { string: ['towns', 'demo'] })
  t.equal(ft.enabled, false)
  t.same(ft.attributes.attribute.map((a: { name: string }) => a.name), ['name', 'geom'])
  t.equal(json(await get(app, `${REST}/layers/vx:places.json`)).layer.enabled, false)
})

t.test('PUT changes title and bounds, recalculate=nativebbox,latlonbbox reads them again, GET-modify-PUT round-trips; name changes are refused', async (t) => {
  const { app, url } = await setup(t)
  t.equal((await postXml(app, '<featureType><name>places</name></featureType>')).statusCode, 201)
  const put = (body: string, q = '') => app.inject({ method: 'PUT', url: `${FT}/places${q}`, headers: { ...ADMIN, 'content-type': 'application/xml' }, payload: body })
  let r = await put('<featureType><title>Towns</title><nativeBoundingBox><minx>0</minx><maxx>1</maxx><miny>0</miny><maxy>1</maxy></nativeBoundingBox></featureType>')
  t.equal(r.statusCode, 200, r.body)
  let ft = json(await get(app, `${FT}/places.json`)).featureType
  t.equal(ft.title, 'Towns')
  t.same(ft.nativeBoundingBox, { minx: 0, maxx: 1, miny: 0, maxy: 1, crs: 'EPSG:4326' })

  const c = new pg.Client({ connectionString: url })
  await c.connect()
  await c.query("INSERT INTO places (name, geom) VALUES ('Far', ST_SetSRID(ST_MakePoint(100, 60), 4326))")
  await c.end()
  r = await put('<featureType><title>Towns</title></featureType>', '?recalculate=nativebbox,latlonbbox')
  t.equal(r.statusCode, 200, r.body)
  ft = json(await get(app, `${FT}/places.json`)).featureType
  t.same(ft.nativeBoundingBox, { minx: -10, maxx: 100, miny: -5, maxy: 60, crs: 'EPSG:4326' })
  t.same(ft.latLonBoundingBox, { minx: -10, maxx: 100, miny: -5, maxy: 60, crs: 'EPSG:4326' })

  // What GET shows, sent back unchanged, is accepted.
  const xml = (await get(app, `${FT}/places.xml`)).body
  r = await put(xml)
  t.equal(r.statusCode, 200, r.body)
  t.equal((await get(app, `${FT}/places.xml`)).body, xml)

  // A new name renames (test/plugins/datastores/rename.test.ts); the table it reads cannot change.
  r = await put('<featureType><nativeName>other</nativeName></featureType>')
  t.equal(r.statusCode, 403)
  t.match(r.body, "Can't change the nativeName of a feature type")
  r = await put('<featureType><title>x</title></featureType>', '?recalculate=everything')
  t.equal(r.statusCode, 400)
  t.match(r.body, 'Invalid recalculate value "everything"')
  t.equal(json(await get(app, `${FT}/places.json`)).featureType.title, 'Towns', 'a refused PUT changes nothing')
})

t.test('DELETE needs recurse (the layer goes with it); the workspace list; a store deleted with recurse takes its feature types', async (t) => {
  const { app } = await setup(t)
  t.equal((await postXml(app, '<featureType><name>places</name></featureType>')).statusCode, 201)
  t.equal((await postXml(app, '<featureType><name>parcels</name></featureType>')).statusCode, 201)
  t.same(json(await get(app, `${REST}/workspaces/vx/featuretypes.json`)), { featureTypes: { featureType: [
    { name: 'parcels', href: `http://localhost:80${FT}/parcels.json` },
    { name: 'places', href: `http://localhost:80${FT}/places.json` }
  ] } })
  const xml = await get(app, `${REST}/workspaces/vx/featuretypes.xml`)
  t.match(xml.body, /^<featureTypes>\n {2}<featureType>\n {4}<name>parcels<\/name>/)

  let r = await app.inject({ method: 'DELETE', url: `${FT}/places`, headers: ADMIN })
  t.equal(r.statusCode, 403)
  t.match(r.body, "Feature type 'places' is published as layer 'vx:places': delete it with recurse=true")
  r = await app.inject({ method: 'DELETE', url: `${FT}/places?recurse=true`, headers: ADMIN })
  t.equal(r.statusCode, 200)
  t.equal((await get(app, `${REST}/layers/vx:places.json`)).statusCode, 404)
  t.same(await configured(app), ['parcels'])

  r = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/vx/datastores/nyc`, headers: ADMIN })
  t.equal(r.statusCode, 403)
  r = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/vx/datastores/nyc?recurse=true`, headers: ADMIN })
  t.equal(r.statusCode, 200)
  t.equal((await get(app, `${REST}/layers/vx:parcels.json`)).statusCode, 404)
  t.same(json(await get(app, `${REST}/workspaces/vx/featuretypes.json`)), { featureTypes: '' })
})

t.test('feature types and their layers are in the catalog: a restart reads them, the new process reads the table again', async (t) => {
  const dataDir = tempDir(t)
  const { app, url } = await setup(t, { dataDir, keepOpen: true })
  t.equal((await postXml(app, '<featureType><name>places</name><title>Towns</title></featureType>')).statusCode, 201)
  const before = (await get(app, `${FT}/places.xml`)).body
  await app.close()
  const again = await build(t, { dataDir })
  t.equal((await get(again, `${FT}/places.xml`)).body, before)
  t.equal(json(await get(again, `${REST}/layers/vx:places.json`)).layer.defaultStyle.name, 'point')
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  await c.query("INSERT INTO places (name, geom) VALUES ('Far', ST_SetSRID(ST_MakePoint(-50, -50), 4326))")
  await c.end()
  const r = await again.inject({ method: 'PUT', url: `${FT}/places?recalculate=nativebbox`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { featureType: {} } })
  t.equal(r.statusCode, 200, r.body)
  t.same(json(await get(again, `${FT}/places.json`)).featureType.nativeBoundingBox, { minx: -50, maxx: 20, miny: -50, maxy: 40, crs: 'EPSG:4326' })
  t.same(json(await get(again, `${FT}/places.json`)).featureType.latLonBoundingBox, { minx: -10, maxx: 20, miny: -5, maxy: 40, crs: 'EPSG:4326' }, 'lat/lon bounds only when asked')
})

t.test('a workspace deleted with recurse takes its PostGIS stores, feature types and layers; a new one of that name starts empty', async (t) => {
  const { app } = await setup(t)
  t.equal((await postXml(app, '<featureType><name>places</name></featureType>')).statusCode, 201)
  t.equal((await app.inject({ method: 'DELETE', url: `${REST}/workspaces/vx`, headers: ADMIN })).statusCode, 403)
  t.equal((await app.inject({ method: 'DELETE', url: `${REST}/workspaces/vx?recurse=true`, headers: ADMIN })).statusCode, 200)
  t.equal((await get(app, `${REST}/layers/vx:places.json`)).statusCode, 404)
  await createWorkspace(app, 'vx')
  t.same(json(await get(app, `${REST}/workspaces/vx/featuretypes.json`)), { featureTypes: '' })
})

t.test('a vector layer hidden by a layer rule answers as an unknown layer; its tiles are drawn for who may read it', async (t) => {
  const { app } = await setup(t)
  t.equal((await postXml(app, '<featureType><name>places</name></featureType>')).statusCode, 201)
  const rule = await app.inject({ method: 'POST', url: `${REST}/security/acl/layers.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { 'vx.places.r': 'ROLE_NOBODY' } })
  t.equal(rule.statusCode, 201, rule.body)
  const tileUrl = `${BASE}/gwc/service/tms/1.0.0/vx:places@EPSG:4326@png/0/0/0.png`
  const anonymous = await app.inject({ method: 'GET', url: tileUrl })
  t.equal(anonymous.statusCode, 404)
  t.notMatch(anonymous.body, 'vector')
  t.match(anonymous.body, 'Unknown layer vx:places')
  const admin = await app.inject({ method: 'GET', url: tileUrl, headers: ADMIN })
  t.equal(admin.statusCode, 200, admin.body)
  t.equal(admin.headers['content-type'], 'image/png')
})
