// GeoPackage and Shapefile data stores through GeoServer's REST API, over real files the tests
// write: `dbtype=geopkg` with `database` as a file: URL or a path, a shapefile `url` naming one .shp
// or a folder, the locations checked against the data directory and the harvest roots (400 naming
// the location), files that are not what they claim refused; their feature types listed, created
// (attributes, CRS from gpkg_spatial_ref_sys or the .prj, bounds from the data), changed with
// recalculate and deleted with recurse, as PostGIS stores' are, each publishing a VECTOR layer.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { createWorkspace } from '../appschema/helpers.js'
import { writeGeoPackage, writeShapefile, ESRI_UTM33N_PRJ, ESRI_WGS84_PRJ, type GpkgTable } from '../../fixtures/vector/files.js'

const REST = `${BASE}/rest`
const DS = `${REST}/workspaces/vx/datastores`

const PLACES: GpkgTable = {
  name: 'places',
  columns: ['name TEXT(20) NOT NULL', 'pop INTEGER', 'area DOUBLE', 'founded DATE'],
  geometryColumn: 'geom',
  geometryType: 'POINT',
  rtree: true,
  rows: [
    { values: ['Alpha', 100, 1.5, '1900-01-01'], geometry: { type: 'Point', coordinates: [-10, -5] } },
    { values: ['Beta', 200, 2.5, null], geometry: { type: 'Point', coordinates: [20, 15] } },
    { values: ['Gamma', null, null, null], geometry: { type: 'Point', coordinates: [5, 40] } }
  ]
}
const ROADS: GpkgTable = {
  name: 'roads', columns: ['kind TEXT'], geometryColumn: 'shape', geometryType: 'LINESTRING', srsId: 3857,
  rows: [{ values: ['main'], geometry: { type: 'LineString', coordinates: [[0, 0], [1113194.9079327357, 1118889.9748579594]] } }]
}
const NOTES: GpkgTable = { name: 'notes', columns: ['text TEXT'], rows: [{ values: ['hello'] }] }

const square = (x: number, y: number) => ({ type: 'Polygon', coordinates: [[[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1], [x, y]]] })

interface Setup { app: FastifyInstance, root: string, dataDir: string }

async function setup (t: Test): Promise<Setup> {
  const root = tempDir(t, 'harvest')
  const dataDir = tempDir(t)
  const app = await build(t, { harvestRoots: [root], dataDir })
  await createWorkspace(app, 'vx')
  writeGeoPackage(path.join(root, 'city.gpkg'), [PLACES, ROADS, NOTES])
  const shp = path.join(root, 'shp')
  writeShapefile(shp, 'parcels', {
    type: 'polygon',
    fields: [{ name: 'kind', type: 'C', length: 12 }, { name: 'value', type: 'N', length: 12, decimals: 2 }, { name: 'count', type: 'N', length: 9 },
      { name: 'big', type: 'N', length: 15 }, { name: 'ok', type: 'L', length: 1 }, { name: 'when', type: 'D', length: 8 }],
    features: [{ geometry: square(1, 2), values: ['field', 12.5, 3, 1e12, true, '20200101'] }, { geometry: square(3, 4), values: ['wood', null, null, null, null, null] }],
    prj: ESRI_WGS84_PRJ
  })
  writeShapefile(shp, 'wells', {
    type: 'point',
    fields: [{ name: 'id', type: 'N', length: 5 }],
    features: [{ geometry: { type: 'Point', coordinates: [500000, 0] }, values: [1] }, { geometry: { type: 'Point', coordinates: [611000, 110000] }, values: [2] }],
    prj: ESRI_UTM33N_PRJ
  })
  writeShapefile(shp, 'noprj', { type: 'point', fields: [{ name: 'id', type: 'N', length: 5 }], features: [{ geometry: { type: 'Point', coordinates: [1, 1] }, values: [1] }] })
  return { app, root, dataDir }
}

const get = (app: FastifyInstance, url: string) => app.inject({ method: 'GET', url, headers: ADMIN })
const send = (app: FastifyInstance, method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => app.inject({
  method, url,
  ...(body === undefined
    ? { headers: ADMIN }
    : { headers: { ...ADMIN, 'content-type': typeof body === 'string' ? 'text/xml' : 'application/json' }, payload: typeof body === 'string' ? body : JSON.stringify(body) })
})
const json = (r: LightMyRequestResponse) => JSON.parse(r.body)
/** The EPSG code of a nativeCRS as GET shows it (GeoServer's WKT, a string or {"@class": "projected", "$"}). */
const epsgOf = (c: string | { $: string }) => { const m = /AUTHORITY\["EPSG","([0-9]+)"\]\]$/.exec(typeof c === 'string' ? c : c.$); return m ? `EPSG:${m[1]}` : c }
const entries = (p: Record<string, string>) => Object.entries(p).map(([k, v]) => `<entry key="${k}">${v}</entry>`).join('')
const storeXml = (name: string, p: Record<string, string>, type = '') => `<dataStore><name>${name}</name>${type ? `<type>${type}</type>` : ''}<connectionParameters>${entries(p)}</connectionParameters></dataStore>`

async function gpkgStore (s: Setup, name = 'city', database = pathToFileURL(path.join(s.root, 'city.gpkg')).href) {
  const r = await send(s.app, 'POST', DS, storeXml(name, { dbtype: 'geopkg', database }))
  if (r.statusCode !== 201) throw new Error(`store: ${r.statusCode} ${r.body}`)
}

t.test('a GeoPackage store: 201, GET shows type GeoPackage and the parameters as sent; its types listed as PostGIS tables are', async (t) => {
  const s = await setup(t)
  const url = pathToFileURL(path.join(s.root, 'city.gpkg')).href
  const res = await send(s.app, 'POST', DS, storeXml('city', { dbtype: 'geopkg', database: url }))
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.headers.location, `http://localhost:80${DS}/city`)
  const store = json(await get(s.app, `${DS}/city.json`)).dataStore
  t.equal(store.type, 'GeoPackage')
  t.equal(store.enabled, true)
  t.same(store.connectionParameters.entry, [{ '@key': 'dbtype', $: 'geopkg' }, { '@key': 'database', $: url }, { '@key': 'namespace', $: 'http://mapwarden.org/ns/vx' }])
  t.same(json(await get(s.app, `${DS}.json`)).dataStores.dataStore.map((d: { name: string }) => d.name), ['city'])
  const FT = `${DS}/city/featuretypes`
  t.same(json(await get(s.app, `${FT}.json?list=all`)), { list: { string: ['notes', 'places', 'roads'] } })
  t.same(json(await get(s.app, `${FT}.json?list=available_with_geom`)), { list: { string: ['places', 'roads'] } })
  t.equal((await send(s.app, 'POST', FT, '<featureType><name>places</name></featureType>')).statusCode, 201)
  t.same(json(await get(s.app, `${FT}.json?list=available`)), { list: { string: ['notes', 'roads'] } })
  t.same(json(await get(s.app, `${FT}.json`)), { featureTypes: { featureType: [{ name: 'places', href: `http://localhost:80${FT}/places.json` }] } })
})

t.test('GeoPackage feature types: attributes with GeoTools\' bindings, CRS from gpkg_spatial_ref_sys, bounds from the R-tree; layer, recalculate, delete', async (t) => {
  const s = await setup(t)
  await gpkgStore(s)
  const FT = `${DS}/city/featuretypes`
  const res = await send(s.app, 'POST', FT, { featureType: { name: 'towns', nativeName: 'places', title: 'Towns' } })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.body, 'towns')
  const ft = json(await get(s.app, `${FT}/towns.json`)).featureType
  t.equal(ft.nativeName, 'places')
  t.equal(epsgOf(ft.nativeCRS), 'EPSG:4326')
  t.equal(ft.srs, 'EPSG:4326')
  t.equal(ft.projectionPolicy, 'FORCE_DECLARED')
  t.same(ft.nativeBoundingBox, { minx: -10, maxx: 20, miny: -5, maxy: 40, crs: 'EPSG:4326' })
  t.same(ft.latLonBoundingBox, { minx: -10, maxx: 20, miny: -5, maxy: 40, crs: 'EPSG:4326' })
  t.same(ft.keywords, { string: ['features', 'places'] })
  t.same(ft.store, { '@class': 'dataStore', name: 'vx:city', href: `http://localhost:80${DS}/city.json` })
  t.same(ft.attributes.attribute, [
    { name: 'geom', minOccurs: 0, maxOccurs: 1, nillable: true, binding: 'org.locationtech.jts.geom.Point' },
    { name: 'name', minOccurs: 1, maxOccurs: 1, nillable: false, binding: 'java.lang.String', length: 20 },
    { name: 'pop', minOccurs: 0, maxOccurs: 1, nillable: true, binding: 'java.lang.Integer' },
    { name: 'area', minOccurs: 0, maxOccurs: 1, nillable: true, binding: 'java.lang.Double' },
    { name: 'founded', minOccurs: 0, maxOccurs: 1, nillable: true, binding: 'java.sql.Date' }
  ])
  const xml = await get(s.app, `${FT}/towns.xml`)
  t.match(xml.body, '<nativeCRS>GEOGCS[&quot;WGS 84&quot;, \n  DATUM[')
  t.match(xml.body, '<store class="dataStore">\n    <name>vx:city</name>')
  const layer = json(await get(s.app, `${REST}/layers/vx:towns.json`)).layer
  t.equal(layer.type, 'VECTOR')
  t.equal(layer.defaultStyle.name, 'point')

  // Another CRS: the lat/lon bounds transformed; a line's layer gets the line style.
  t.equal((await send(s.app, 'POST', FT, { featureType: { name: 'roads', srs: 'EPSG:4326' } })).statusCode, 201)
  const roads = json(await get(s.app, `${FT}/roads.json`)).featureType
  t.equal(epsgOf(roads.nativeCRS), 'EPSG:3857')
  t.equal(roads.projectionPolicy, 'REPROJECT_TO_DECLARED')
  t.equal(roads.nativeBoundingBox.maxx, 1113194.9079327357)
  t.ok(Math.abs(roads.latLonBoundingBox.maxx - 10) < 1e-6, String(roads.latLonBoundingBox.maxx))
  t.same(roads.attributes.attribute.map((a: { name: string, binding: string }) => [a.name, a.binding]), [['shape', 'org.locationtech.jts.geom.LineString'], ['kind', 'java.lang.String']])
  t.equal(json(await get(s.app, `${REST}/layers/vx:roads.json`)).layer.defaultStyle.name, 'line')

  // PUT with recalculate: the bounds follow the file.
  t.equal((await send(s.app, 'PUT', `${FT}/towns`, { featureType: { nativeBoundingBox: { minx: 0, maxx: 1, miny: 0, maxy: 1 }, latLonBoundingBox: { minx: 0, maxx: 1, miny: 0, maxy: 1 } } })).statusCode, 200)
  t.equal(json(await get(s.app, `${FT}/towns.json`)).featureType.nativeBoundingBox.maxx, 1)
  t.equal((await send(s.app, 'PUT', `${FT}/towns?recalculate=nativebbox,latlonbbox`, { featureType: { title: 'Towns again' } })).statusCode, 200)
  const again = json(await get(s.app, `${FT}/towns.json`)).featureType
  t.same([again.title, again.nativeBoundingBox.maxx, again.latLonBoundingBox.maxy], ['Towns again', 20, 40])

  // Refusals that store nothing; DELETE with recurse.
  const none = await send(s.app, 'POST', FT, { featureType: { name: 'nothing' } })
  t.equal(none.statusCode, 400)
  t.match(none.body, /No feature type 'nothing' in GeoPackage "file:.*city\.gpkg" of data store 'city'/)
  const notes = await send(s.app, 'POST', FT, { featureType: { name: 'notes' } })
  t.equal(notes.statusCode, 400)
  t.match(notes.body, /has no geometry column/)
  t.equal((await send(s.app, 'DELETE', `${FT}/towns`)).statusCode, 403)
  t.equal((await send(s.app, 'DELETE', `${FT}/towns?recurse=true`)).statusCode, 200)
  t.equal((await get(s.app, `${REST}/layers/vx:towns.json`)).statusCode, 404)
  t.equal((await send(s.app, 'DELETE', `${DS}/city`)).statusCode, 403, 'a store with feature types goes only with recurse')
  t.equal((await send(s.app, 'DELETE', `${DS}/city?recurse=true`)).statusCode, 200)
  t.equal((await get(s.app, `${REST}/layers/vx:roads.json`)).statusCode, 404)
  t.ok(fs.existsSync(path.join(s.root, 'city.gpkg')), 'an external file is never deleted with its store')
})

t.test('GeoPackage locations: a path, GeoServer\'s file:data/ form under the data directory; outside the roots, missing, not SQLite, not a GeoPackage: 400 naming it', async (t) => {
  const s = await setup(t)
  writeGeoPackage(path.join(s.dataDir, 'data', 'inside.gpkg'), [PLACES])
  t.equal((await send(s.app, 'POST', DS, storeXml('rel', { dbtype: 'geopkg', database: 'file:data/inside.gpkg' }))).statusCode, 201)
  t.same(json(await get(s.app, `${DS}/rel/featuretypes.json?list=all`)), { list: { string: ['places'] } })
  t.equal((await send(s.app, 'POST', DS, storeXml('abs', { dbtype: 'geopkg', database: path.join(s.root, 'city.gpkg') }))).statusCode, 201)
  const outside = tempDir(t, 'elsewhere')
  writeGeoPackage(path.join(outside, 'x.gpkg'), [PLACES])
  fs.writeFileSync(path.join(s.root, 'text.gpkg'), 'not a database at all, just text that is long enough')
  const { Database } = await import('../../../services/storage/sqlite/sqlite-driver.js')
  const plain = new Database(path.join(s.root, 'plain.gpkg'))
  plain.exec('CREATE TABLE t (a INTEGER)')
  plain.close()
  fs.symlinkSync(path.join(outside, 'x.gpkg'), path.join(s.root, 'link.gpkg'))
  const cases: Array<[string, string, RegExp]> = [
    ['outside', pathToFileURL(path.join(outside, 'x.gpkg')).href, /Data store file "file:.*x\.gpkg" is outside the data directory and the harvest roots/],
    ['dotdot', `${s.root}/../${path.basename(outside)}/x.gpkg`, /is outside the data directory and the harvest roots/],
    ['link', path.join(s.root, 'link.gpkg'), /link\.gpkg" \(through a symbolic link\) is outside/],
    ['missing', path.join(s.root, 'missing.gpkg'), /missing\.gpkg": no such file or directory/],
    ['text', path.join(s.root, 'text.gpkg'), /text\.gpkg" is not a GeoPackage: not an SQLite database/],
    ['plain', path.join(s.root, 'plain.gpkg'), /plain\.gpkg" is not a GeoPackage: it has no gpkg_contents/],
    ['http', 'http://example.org/x.gpkg', /http: URLs are not supported/],
    ['empty', '', /"database" is required/]
  ]
  for (const [name, database, message] of cases) {
    const r = await send(s.app, 'POST', DS, storeXml(name, { dbtype: 'geopkg', database }))
    t.equal(r.statusCode, 400, `${name}: ${r.body}`)
    t.match(r.body, message, name)
    t.equal((await get(s.app, `${DS}/${name}.json`)).statusCode, 404, `${name}: nothing stored`)
  }
})

t.test('Shapefile stores: one .shp (type = its base name) and a folder (every .shp a type); .prj CRSs, DBF bindings, header bounds', async (t) => {
  const s = await setup(t)
  const shp = path.join(s.root, 'shp')
  const one = await send(s.app, 'POST', DS, { dataStore: { name: 'parcels', connectionParameters: { url: pathToFileURL(path.join(shp, 'parcels.shp')).href, charset: 'UTF-8' } } })
  t.equal(one.statusCode, 201, one.body)
  const store = json(await get(s.app, `${DS}/parcels.json`)).dataStore
  t.equal(store.type, 'Shapefile')
  t.same(json(await get(s.app, `${DS}/parcels/featuretypes.json?list=all`)), { list: { string: ['parcels'] } })
  t.equal((await send(s.app, 'POST', `${DS}/parcels/featuretypes`, '<featureType><name>parcels</name></featureType>')).statusCode, 201)
  const ft = json(await get(s.app, `${DS}/parcels/featuretypes/parcels.json`)).featureType
  t.equal(epsgOf(ft.nativeCRS), 'EPSG:4326', 'the .prj (ESRI\'s GCS_WGS_1984)')
  t.same(ft.nativeBoundingBox, { minx: 1, maxx: 4, miny: 2, maxy: 5, crs: 'EPSG:4326' })
  t.same(ft.attributes.attribute.map((a: { name: string, binding: string, length?: number }) => [a.name, a.binding, a.length]), [
    ['the_geom', 'org.locationtech.jts.geom.MultiPolygon', undefined], ['kind', 'java.lang.String', 12], ['value', 'java.lang.Double', undefined],
    ['count', 'java.lang.Integer', undefined], ['big', 'java.lang.Long', undefined], ['ok', 'java.lang.Boolean', undefined], ['when', 'java.util.Date', undefined]
  ])
  t.equal(json(await get(s.app, `${REST}/layers/vx:parcels.json`)).layer.defaultStyle.name, 'polygon')

  const dir = await send(s.app, 'POST', DS, storeXml('folder', { url: `file:${shp}` }))
  t.equal(dir.statusCode, 201, dir.body)
  t.equal(json(await get(s.app, `${DS}/folder.json`)).dataStore.type, 'Directory of spatial files (shapefiles)')
  t.same(json(await get(s.app, `${DS}/folder/featuretypes.json?list=available_with_geom`)), { list: { string: ['noprj', 'parcels', 'wells'] } })
  t.equal((await send(s.app, 'POST', `${DS}/folder/featuretypes`, { featureType: { name: 'wells', srs: 'EPSG:4326' } })).statusCode, 201)
  const wells = json(await get(s.app, `${DS}/folder/featuretypes/wells.json`)).featureType
  t.equal(epsgOf(wells.nativeCRS), 'EPSG:32633', 'WGS_1984_UTM_Zone_33N')
  t.equal(wells.projectionPolicy, 'REPROJECT_TO_DECLARED')
  t.same([wells.nativeBoundingBox.minx, wells.nativeBoundingBox.maxy], [500000, 110000])
  t.ok(Math.abs(wells.latLonBoundingBox.minx - 15) < 1e-6 && Math.abs(wells.latLonBoundingBox.miny) < 1e-6, JSON.stringify(wells.latLonBoundingBox))
  t.equal(json(await get(s.app, `${REST}/layers/vx:wells.json`)).layer.defaultStyle.name, 'point')

  // No .prj: no native CRS, so a declared srs with FORCE_DECLARED.
  const bare = await send(s.app, 'POST', `${DS}/folder/featuretypes`, { featureType: { name: 'noprj' } })
  t.equal(bare.statusCode, 400)
  t.match(bare.body, /declares no SRID: give srs/)
  t.equal((await send(s.app, 'POST', `${DS}/folder/featuretypes`, { featureType: { name: 'noprj', srs: 'EPSG:4326', projectionPolicy: 'FORCE_DECLARED' } })).statusCode, 201)
  const noprj = json(await get(s.app, `${DS}/folder/featuretypes/noprj.json`)).featureType
  t.same([noprj.nativeCRS, noprj.srs, noprj.latLonBoundingBox.minx], [undefined, 'EPSG:4326', 1])

  // A broken .prj added later: the type is refused naming the file.
  fs.writeFileSync(path.join(shp, 'broken.prj'), 'this is not WKT')
  writeShapefile(shp, 'broken', { type: 'point', fields: [{ name: 'id', type: 'N', length: 5 }], features: [{ geometry: { type: 'Point', coordinates: [1, 1] }, values: [1] }] })
  fs.writeFileSync(path.join(shp, 'broken.prj'), 'this is not WKT')
  const broken = await send(s.app, 'POST', `${DS}/folder/featuretypes`, { featureType: { name: 'broken' } })
  t.equal(broken.statusCode, 400)
  t.match(broken.body, /"broken\.prj" is not a WKT coordinate reference system/)
  const missing = await send(s.app, 'POST', `${DS}/folder/featuretypes`, { featureType: { name: 'nothing' } })
  t.equal(missing.statusCode, 400)
  t.match(missing.body, /No feature type 'nothing' in "file:.*shp" \(a shapefile's type is its file name\) of data store 'folder'/)
})

t.test('Shapefile refusals: no .dbf, no .shx, not a shapefile, a bad charset, outside the roots; PUT keeps the kind', async (t) => {
  const s = await setup(t)
  const shp = path.join(s.root, 'shp')
  const lone = path.join(s.root, 'lone')
  writeShapefile(lone, 'nodbf', { type: 'point', fields: [{ name: 'id', type: 'N', length: 5 }], features: [{ geometry: { type: 'Point', coordinates: [1, 1] }, values: [1] }] })
  fs.rmSync(path.join(lone, 'nodbf.dbf'))
  writeShapefile(lone, 'noshx', { type: 'point', fields: [{ name: 'id', type: 'N', length: 5 }], features: [{ geometry: { type: 'Point', coordinates: [1, 1] }, values: [1] }] })
  fs.rmSync(path.join(lone, 'noshx.shx'))
  fs.writeFileSync(path.join(lone, 'fake.shp'), Buffer.alloc(200))
  fs.writeFileSync(path.join(lone, 'fake.dbf'), Buffer.alloc(40))
  fs.writeFileSync(path.join(lone, 'fake.shx'), Buffer.alloc(100))
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['nodbf', { url: path.join(lone, 'nodbf.shp') }, /shapefile "nodbf\.shp" has no \.dbf beside it/],
    ['noshx', { url: path.join(lone, 'noshx.shp') }, /shapefile "noshx\.shp" has no \.shx beside it/],
    ['fake', { url: path.join(lone, 'fake.shp') }, /"fake\.shp" is not a shapefile/],
    ['charset', { url: path.join(shp, 'parcels.shp'), charset: 'KLINGON-1' }, /"charset" is not a character set this server knows/],
    ['outside', { url: '/etc/passwd' }, /Data store file "\/etc\/passwd" is outside the data directory and the harvest roots/],
    ['notshp', { url: path.join(shp, 'parcels.dbf') }, /must name a \.shp file or a folder/]
  ]
  for (const [name, params, message] of cases) {
    const r = await send(s.app, 'POST', DS, { dataStore: { name, type: 'Shapefile', connectionParameters: { entry: Object.entries(params).map(([k, v]) => ({ '@key': k, $: v })) } } })
    t.equal(r.statusCode, 400, `${name}: ${r.body}`)
    t.match(r.body, message, name)
    t.equal((await get(s.app, `${DS}/${name}.json`)).statusCode, 404, `${name}: nothing stored`)
  }
  t.equal((await send(s.app, 'POST', DS, storeXml('one', { url: path.join(shp, 'parcels.shp') }, 'Shapefile'))).statusCode, 201)
  // PUT: another .shp is fine; a folder would change the type (403); a bad location changes nothing.
  t.equal((await send(s.app, 'PUT', `${DS}/one`, storeXml('one', { url: path.join(shp, 'wells.shp'), charset: 'UTF-8' }))).statusCode, 200)
  const p = json(await get(s.app, `${DS}/one.json`)).dataStore.connectionParameters.entry
  t.same(p.find((e: { '@key': string }) => e['@key'] === 'url').$, path.join(shp, 'wells.shp'))
  t.same(json(await get(s.app, `${DS}/one/featuretypes.json?list=all`)), { list: { string: ['wells'] } }, 'the source follows the change')
  t.equal((await send(s.app, 'PUT', `${DS}/one`, storeXml('one', { url: shp }))).statusCode, 403)
  t.equal((await send(s.app, 'PUT', `${DS}/one`, storeXml('one', { url: '/etc/passwd' }))).statusCode, 400)
  t.equal((await send(s.app, 'PUT', `${DS}/one`, storeXml('one', {}, 'GeoPackage'))).statusCode, 403)
  t.equal(json(await get(s.app, `${DS}/one.json`)).dataStore.connectionParameters.entry.find((e: { '@key': string }) => e['@key'] === 'url').$, path.join(shp, 'wells.shp'))
  // A disabled file store is not read.
  t.equal((await send(s.app, 'PUT', `${DS}/one`, '<dataStore><enabled>false</enabled></dataStore>')).statusCode, 200)
  t.equal((await get(s.app, `${DS}/one/featuretypes.json?list=all`)).statusCode, 409)
})
