// A feature type's nativeCRS as GeoServer writes it (WKT in GeoTools' layout, class="projected" for
// a projected CRS; the bounding box's CRS as a code with the same class), the .prj's own WKT where it
// names no EPSG code, and a nativeCRS sent in a body: GET's own value sent back changes nothing, a
// contradiction of the data is a 400 naming nativeCRS, a CRS for data that declares none is applied.
import t, { type Test } from 'tap'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { createWorkspace } from '../appschema/helpers.js'
import { writeGeoPackage, writeShapefile, type GpkgTable } from '../../fixtures/vector/files.js'

const DS = `${BASE}/rest/workspaces/vx/datastores`
// A projected CRS no EPSG name matches (a local Transverse Mercator grid, as surveyors' .prj files have).
const LOCAL_PRJ = 'PROJCS["Local_Survey_Grid",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",1000.0],PARAMETER["False_Northing",2000.0],PARAMETER["Central_Meridian",7.5],PARAMETER["Scale_Factor",1.0],PARAMETER["Latitude_Of_Origin",46.0],UNIT["Meter",1.0]]'
const PLACES: GpkgTable = { name: 'places', columns: ['name TEXT'], geometryColumn: 'geom', geometryType: 'POINT', rows: [{ values: ['a'], geometry: { type: 'Point', coordinates: [1, 2] } }] }
const ROADS: GpkgTable = {
  name: 'roads', columns: ['kind TEXT'], geometryColumn: 'shape', geometryType: 'LINESTRING', srsId: 3857,
  rows: [{ values: ['main'], geometry: { type: 'LineString', coordinates: [[0, 0], [1113194.9079327357, 1118889.9748579594]] } }]
}

const get = (app: FastifyInstance, url: string) => app.inject({ method: 'GET', url, headers: ADMIN })
const send = (app: FastifyInstance, method: 'POST' | 'PUT', url: string, body: unknown) => app.inject({
  method, url, headers: { ...ADMIN, 'content-type': typeof body === 'string' ? 'text/xml' : 'application/json' }, payload: typeof body === 'string' ? body : JSON.stringify(body)
})
const json = (r: LightMyRequestResponse) => JSON.parse(r.body)

async function setup (t: Test): Promise<FastifyInstance> {
  const root = tempDir(t, 'harvest')
  const app = await build(t, { harvestRoots: [root], dataDir: tempDir(t) })
  await createWorkspace(app, 'vx')
  writeGeoPackage(path.join(root, 'city.gpkg'), [PLACES, ROADS])
  const shp = path.join(root, 'shp')
  const point = (x: number, y: number) => ({ type: 'point' as const, fields: [{ name: 'id', type: 'N' as const, length: 5 }], features: [{ geometry: { type: 'Point', coordinates: [x, y] }, values: [1] }] })
  writeShapefile(shp, 'noprj', point(500000, 0))
  writeShapefile(shp, 'local', { ...point(1000, 2000), prj: LOCAL_PRJ })
  for (const [name, params] of [['city', `<entry key="dbtype">geopkg</entry><entry key="database">${pathToFileURL(path.join(root, 'city.gpkg')).href}</entry>`], ['files', `<entry key="url">file:${shp}</entry>`]]) {
    const r = await send(app, 'POST', DS, `<dataStore><name>${name}</name><connectionParameters>${params}</connectionParameters></dataStore>`)
    if (r.statusCode !== 201) throw new Error(`${name}: ${r.statusCode} ${r.body}`)
  }
  return app
}

t.test('GET: nativeCRS is WKT (class="projected" for a projected CRS), the native bounding box\'s CRS a code with the same class', async (t) => {
  const app = await setup(t)
  const FT = `${DS}/city/featuretypes`
  t.equal((await send(app, 'POST', FT, { featureType: { name: 'places' } })).statusCode, 201)
  t.equal((await send(app, 'POST', FT, { featureType: { name: 'roads' } })).statusCode, 201)
  const places = json(await get(app, `${FT}/places.json`)).featureType
  t.equal(typeof places.nativeCRS, 'string', 'a geographic CRS: a plain string')
  t.match(places.nativeCRS, /^GEOGCS\["WGS 84", \n {2}DATUM\["WGS_1984", \n {4}SPHEROID\["WGS 84", 6378137, 298\.257223563, AUTHORITY\["EPSG","7030"\]\], \n/)
  t.ok(places.nativeCRS.endsWith(', \n  AUTHORITY["EPSG","4326"]]'), places.nativeCRS)
  t.equal(places.nativeBoundingBox.crs, 'EPSG:4326')
  const roads = json(await get(app, `${FT}/roads.json`)).featureType
  t.same(Object.keys(roads.nativeCRS), ['@class', '$'])
  t.equal(roads.nativeCRS['@class'], 'projected')
  t.match(roads.nativeCRS.$, /^PROJCS\["WGS 84 \/ Pseudo-Mercator", \n {2}GEOGCS\["WGS 84", \n/)
  t.match(roads.nativeCRS.$, /\n {2}PROJECTION\["Mercator_1SP"\], \n/)
  t.notMatch(roads.nativeCRS.$, 'EXTENSION', 'GDAL\'s proj4 extension is not part of GeoTools\' WKT')
  t.same(roads.nativeBoundingBox.crs, { '@class': 'projected', $: 'EPSG:3857' })
  const xml = (await get(app, `${FT}/roads.xml`)).body
  t.match(xml, '\n  <nativeCRS class="projected">PROJCS[&quot;WGS 84 / Pseudo-Mercator&quot;, \n  GEOGCS[&quot;WGS 84&quot;, \n')
  t.match(xml, '<crs class="projected">EPSG:3857</crs>')
  t.match((await get(app, `${FT}/places.xml`)).body, '\n  <nativeCRS>GEOGCS[&quot;WGS 84&quot;, \n')
})

t.test('GET\'s own representation sent back (JSON and XML) is accepted; another CRS than the data\'s, or text that is not a CRS: 400 naming nativeCRS, nothing stored', async (t) => {
  const app = await setup(t)
  const FT = `${DS}/city/featuretypes`
  t.equal((await send(app, 'POST', FT, { featureType: { name: 'roads', nativeCRS: 'EPSG:3857' } })).statusCode, 201, 'the data\'s CRS: accepted')
  const got = json(await get(app, `${FT}/roads.json`))
  got.featureType.title = 'Roads again'
  const back = await send(app, 'PUT', `${FT}/roads`, got)
  t.equal(back.statusCode, 200, back.body)
  const xml = (await get(app, `${FT}/roads.xml`)).body.replace('<title>Roads again</title>', '<title>Roads in XML</title>')
  const xmlBack = await send(app, 'PUT', `${FT}/roads`, xml)
  t.equal(xmlBack.statusCode, 200, xmlBack.body)
  const now = json(await get(app, `${FT}/roads.json`)).featureType
  t.equal(now.title, 'Roads in XML')
  t.same(now.nativeCRS, got.featureType.nativeCRS, 'unchanged')

  const other = await send(app, 'PUT', `${FT}/roads`, { featureType: { nativeCRS: json(await get(app, `${FT}/roads.json`)).featureType.nativeCRS.$.replace('3857"]]', '32633"]]') } })
  t.equal(other.statusCode, 400)
  t.match(other.body, 'nativeCRS EPSG:32633 is not the CRS the data of "roads" declares (EPSG:3857)')
  const post = await send(app, 'POST', FT, { featureType: { name: 'places', nativeCRS: 'EPSG:3857' } })
  t.equal(post.statusCode, 400)
  t.match(post.body, 'nativeCRS EPSG:3857 is not the CRS the data of "places" declares (EPSG:4326)')
  t.equal((await get(app, `${FT}/places.json`)).statusCode, 404, 'nothing stored')
  for (const bad of ['PROJCS["x",GEOGCS["y"', 'hello', 'VERT_CS["depth",VERT_DATUM["x",2005]]']) {
    const r = await send(app, 'PUT', `${FT}/roads`, { featureType: { nativeCRS: bad } })
    t.equal(r.statusCode, 400, bad)
    t.match(r.body, 'nativeCRS is neither EPSG:<code> nor a WKT coordinate reference system', bad)
  }
  t.same(json(await get(app, `${FT}/roads.json`)).featureType.nativeCRS, got.featureType.nativeCRS, 'unchanged')
})

t.test('data without a CRS takes the body\'s nativeCRS (reprojection then works); a .prj the registry lacks is shown as its own WKT', async (t) => {
  const app = await setup(t)
  const FT = `${DS}/files/featuretypes`
  const res = await send(app, 'POST', FT, { featureType: { name: 'noprj', nativeCRS: 'EPSG:32633', srs: 'EPSG:4326' } })
  t.equal(res.statusCode, 201, res.body)
  const ft = json(await get(app, `${FT}/noprj.json`)).featureType
  t.equal(ft.nativeCRS['@class'], 'projected')
  t.match(ft.nativeCRS.$, /^PROJCS\["WGS 84 \/ UTM zone 33N"/)
  t.equal(ft.projectionPolicy, 'REPROJECT_TO_DECLARED')
  t.ok(Math.abs(ft.latLonBoundingBox.minx - 15) < 1e-6, 'lat/lon bounds through the declared native CRS')
  t.equal((await send(app, 'PUT', `${FT}/noprj`, { featureType: { nativeCRS: 'EPSG:32634' } })).statusCode, 200, 'a body\'s CRS may change again')
  t.match(json(await get(app, `${FT}/noprj.json`)).featureType.nativeCRS.$, /^PROJCS\["WGS 84 \/ UTM zone 34N"/)

  const none = await send(app, 'POST', FT, { featureType: { name: 'local' } })
  t.equal(none.statusCode, 400)
  t.match(none.body, 'declares no SRID: give srs')
  t.equal((await send(app, 'POST', FT, { featureType: { name: 'local', srs: 'EPSG:4326', projectionPolicy: 'FORCE_DECLARED' } })).statusCode, 201)
  const local = json(await get(app, `${FT}/local.json`)).featureType
  t.equal(local.nativeCRS['@class'], 'projected', 'the .prj\'s text, in GeoTools\' layout')
  t.match(local.nativeCRS.$, /^PROJCS\["Local_Survey_Grid", \n {2}GEOGCS\["GCS_WGS_1984", \n {4}DATUM\["D_WGS_1984", \n {6}SPHEROID\["WGS_1984", 6378137\.0, 298\.257223563\]\], \n/)
  t.ok(local.nativeCRS.$.endsWith('\n  PARAMETER["Latitude_Of_Origin", 46.0], \n  UNIT["Meter", 1.0]]'), 'the .prj\'s last elements')
  t.equal(local.nativeBoundingBox.crs, 'EPSG:4326', 'forced to the declared CRS')
  t.equal((await send(app, 'PUT', `${FT}/local`, { featureType: { nativeCRS: local.nativeCRS } })).statusCode, 200, 'its own WKT sent back')
  const other = await send(app, 'PUT', `${FT}/local`, { featureType: { nativeCRS: 'EPSG:4326' } })
  t.equal(other.statusCode, 400)
  t.match(other.body, 'is not the CRS the data of "local" declares (the CRS of its .prj)')
})
