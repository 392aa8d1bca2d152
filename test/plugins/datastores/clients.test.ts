// The vector-store calls of real clients replayed byte for byte (method, path, query, headers, body as
// their sources build them), with what each client reads back: the Python geoserver-rest package
// (geo/Geoserver.py: create_featurestore, publish_featurestore, create_shp_datastore,
// create_gpkg_datastore) and geoserver-node-client (src/datastore.js createPostgisStore,
// createGpkgFromStream; src/layer.js publishFeatureType; src/layergroup.js create, whose URL is
// `${url}/workspaces/...` on a base URL ending in a slash). create_layergroup: styles/layergroups.test.ts.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { pgDatabase } from '../../fixtures/pg.js'
import { createWorkspace, zipItems } from '../appschema/helpers.js'
import { writeGeoPackage, writeShapefile, WGS84_WKT } from '../../fixtures/vector/files.js'

const REST = `${BASE}/rest`
const WS = 'my-workspace'

async function setup (t: Test): Promise<{ app: FastifyInstance, db: { host: string, port: string, database: string, user: string } }> {
  const app = await build(t)
  await createWorkspace(app, WS)
  const url = new URL(await pgDatabase(t, { postgis: true }))
  const c = new pg.Client({ connectionString: url.toString() })
  await c.connect()
  try { await c.query('CREATE TABLE places (id serial PRIMARY KEY, name text, geom geometry(Point, 4326)); INSERT INTO places (name, geom) VALUES (\'A\', ST_SetSRID(ST_MakePoint(3, 4), 4326))') } finally { await c.end() }
  return { app, db: { host: url.hostname, port: url.port || '5432', database: url.pathname.slice(1), user: decodeURIComponent(url.username) || 'postgres' } }
}

const getJson = async (app: FastifyInstance, url: string) => {
  const r = await app.inject({ url: `${REST}${url}`, headers: ADMIN })
  return r.statusCode === 200 ? JSON.parse(r.body) : undefined
}

t.test('Python geoserver-rest: create_featurestore (POST, then PUT with overwrite) and publish_featurestore', async (t) => {
  const { app, db } = await setup(t)
  // Its defaults, formatted into its template: description and the metadata table are the text "None".
  const xml = (name: string) => `
                <dataStore>
                <name>${name}</name>
                <description>None</description>
                <connectionParameters>
                <entry key="Expose primary keys">false</entry>
                <entry key="host">${db.host}</entry>
                <entry key="port">${db.port}</entry>
                <entry key="user">${db.user}</entry>
                <entry key="passwd">admin</entry>
                <entry key="dbtype">postgis</entry>
                <entry key="schema">public</entry>
                <entry key="database">${db.database}</entry>
                <entry key="Evictor run periodicity">300</entry>
                <entry key="Max open prepared statements">50</entry>
                <entry key="encode functions">false</entry>
                <entry key="Primary key metadata table">None</entry>
                <entry key="Batch insert size">1</entry>
                <entry key="preparedStatements">false</entry>
                <entry key="Estimated extends">true</entry>
                <entry key="fetch size">1000</entry>
                <entry key="validate connections">true</entry>
                <entry key="Support on the fly geometry simplification">true</entry>
                <entry key="Connection timeout">20</entry>
                <entry key="create database">false</entry>
                <entry key="min connections">1</entry>
                <entry key="max connections">10</entry>
                <entry key="Evictor tests per run">3</entry>
                <entry key="Test while idle">true</entry>
                <entry key="Max connection idle time">300</entry>
                <entry key="Loose bbox">true</entry>
                </connectionParameters>
                </dataStore>
                `
  const headers = { ...ADMIN, 'content-type': 'text/xml' }
  let r = await app.inject({ method: 'POST', url: `${REST}/workspaces/${WS}/datastores`, headers, payload: xml('pgstore') })
  t.ok([200, 201].includes(r.statusCode), `create_featurestore: ${r.statusCode} ${r.body}`)
  r = await app.inject({ method: 'PUT', url: `${REST}/workspaces/${WS}/datastores/pgstore`, headers, payload: xml('pgstore') })
  t.ok([200, 201].includes(r.statusCode), `create_featurestore(overwrite=True): ${r.statusCode} ${r.body}`)
  // publish_featurestore: a trailing slash, Python's True, keywords as <string>.
  r = await app.inject({
    method: 'POST',
    url: `${REST}/workspaces/${WS}/datastores/pgstore/featuretypes/`,
    headers,
    payload: `<featureType>
                    <name>places</name>
                    <title>places</title>
                    <advertised>True</advertised>
                    <abstract>About</abstract>
                    <keywords><string>one</string><string>two</string></keywords>
                    
                </featureType>`
  })
  t.equal(r.statusCode, 201, `publish_featurestore reads only 201: ${r.body}`)
  const ft = (await getJson(app, `/workspaces/${WS}/datastores/pgstore/featuretypes/places.json`))?.featureType
  t.same([ft?.name, ft?.title, ft?.abstract, ft?.keywords], ['places', 'places', 'About', { string: ['one', 'two'] }])
  const wfs = await app.inject({ url: `${BASE}/wfs?service=WFS&version=2.0.0&request=GetFeature&typeNames=${WS}:places&outputFormat=application/json`, headers: ADMIN })
  t.equal(JSON.parse(wfs.body).numberMatched, 1)
  // advertised=false would hide the layer from capabilities, which mapwarden does not do: refused, not stored.
  const hidden = await app.inject({ method: 'PUT', url: `${REST}/workspaces/${WS}/datastores/pgstore/featuretypes/places`, headers, payload: '<featureType><advertised>False</advertised></featureType>' })
  t.equal(hidden.statusCode, 400)
  t.match(hidden.body, /advertised=false is not supported/)
})

t.test('Python geoserver-rest: create_shp_datastore and create_gpkg_datastore (filename=<store>)', async (t) => {
  const app = await build(t)
  await createWorkspace(app, WS)
  const files = tempDir(t, 'files')
  writeShapefile(files, 'rivers', { type: 'point', prj: WGS84_WKT, fields: [{ name: 'id', type: 'N', length: 5 }], features: [{ geometry: { type: 'Point', coordinates: [1, 2] }, values: [1] }] })
  const zip = await zipItems(['shp', 'shx', 'dbf', 'prj'].map((e) => ({ name: `rivers.${e}`, data: fs.readFileSync(path.join(files, `rivers.${e}`)) })))
  for (let i = 0; i < 2; i++) {
    const r = await app.inject({ method: 'PUT', url: `${REST}/workspaces/${WS}/datastores/rivers/file.shp?filename=rivers&update=overwrite`, headers: { ...ADMIN, 'Content-type': 'application/zip', Accept: 'application/xml' }, payload: zip })
    t.ok([200, 201, 202].includes(r.statusCode), `create_shp_datastore (${i + 1}): ${r.statusCode} ${r.body}`)
    t.match(r.headers['content-type'], /xml/)
  }
  t.equal((await getJson(app, `/workspaces/${WS}/datastores/rivers/featuretypes/rivers.json`))?.featureType.name, 'rivers', 'the layer is named after the .shp')
  writeGeoPackage(path.join(files, 'iceland.gpkg'), [{ name: 'towns', columns: ['name TEXT'], geometryColumn: 'geom', geometryType: 'POINT', rows: [{ values: ['Vik'], geometry: { type: 'Point', coordinates: [-19, 63.4] } }] }])
  const r = await app.inject({ method: 'PUT', url: `${REST}/workspaces/${WS}/datastores/iceland/file.gpkg?filename=iceland`, headers: { ...ADMIN, 'Content-type': 'application/x-sqlite3', Accept: 'application/json' }, payload: fs.readFileSync(path.join(files, 'iceland.gpkg')) })
  t.ok([200, 201, 202].includes(r.statusCode), `create_gpkg_datastore: ${r.statusCode} ${r.body}`)
  t.equal(JSON.parse(r.body).dataStore.name, 'iceland')
  t.equal((await getJson(app, `/workspaces/${WS}/datastores/iceland/featuretypes/towns.json`))?.featureType.name, 'towns')
})

t.test('geoserver-node-client: createPostgisStore, publishFeatureType, createGpkgFromStream, layergroups.create', async (t) => {
  const { app, db } = await setup(t)
  const url = `${REST}/` // the client's base URL ends in a slash
  const json = { ...ADMIN, 'content-type': 'application/json' }
  let r = await app.inject({
    method: 'POST',
    url: `${url}workspaces/${WS}/datastores`,
    headers: json,
    payload: JSON.stringify({ dataStore: { name: 'my-postgis-datastore', type: 'PostGIS', enabled: true, workspace: { name: WS }, connectionParameters: { entry: [
      { '@key': 'dbtype', $: 'postgis' }, { '@key': 'schema', $: 'public' }, { '@key': 'database', $: db.database }, { '@key': 'host', $: db.host },
      { '@key': 'port', $: Number(db.port) }, { '@key': 'passwd', $: 'postgres' }, { '@key': 'namespace', $: 'http://www.example.com' },
      { '@key': 'user', $: db.user }, { '@key': 'Expose primary keys', $: true }
    ] } } })
  })
  t.ok(r.statusCode >= 200 && r.statusCode < 300, `createPostgisStore: ${r.statusCode} ${r.body}`)
  t.equal((await getJson(app, `/workspaces/${WS}/datastores/my-postgis-datastore.json`))?.dataStore.name, 'my-postgis-datastore', 'getDataStore')
  r = await app.inject({
    method: 'POST',
    url: `${url}workspaces/${WS}/datastores/my-postgis-datastore/featuretypes`,
    headers: json,
    payload: JSON.stringify({ featureType: { nativeName: 'places', name: 'places', title: 'places', srs: 'EPSG:4326', enabled: true, abstract: 'Sample Abstract' } })
  })
  t.ok(r.statusCode >= 200 && r.statusCode < 300, `publishFeatureType: ${r.statusCode} ${r.body}`)
  t.equal((await getJson(app, `/workspaces/${WS}/datastores/my-postgis-datastore/featuretypes/places.json`))?.featureType.name, 'places', 'getFeatureType')
  // With a nativeBoundingBox, its crs as the client fills it in.
  r = await app.inject({
    method: 'POST',
    url: `${url}workspaces/${WS}/datastores/my-postgis-datastore/featuretypes`,
    headers: json,
    payload: JSON.stringify({ featureType: { nativeName: 'places', name: 'places2', title: 'places2', srs: 'EPSG:4326', enabled: true, abstract: '', nativeBoundingBox: { minx: 0, maxx: 10, miny: 0, maxy: 10, crs: { '@class': 'projected', $: 'EPSG:4326' } } } })
  })
  t.ok(r.statusCode >= 200 && r.statusCode < 300, `publishFeatureType with nativeBoundingBox: ${r.statusCode} ${r.body}`)

  const files = tempDir(t, 'files')
  writeGeoPackage(path.join(files, 'iceland.gpkg'), [{ name: 'towns', columns: ['name TEXT'], geometryColumn: 'geom', geometryType: 'POINT', rows: [{ values: ['Vik'], geometry: { type: 'Point', coordinates: [-19, 63.4] } }] }])
  const gpkg = fs.readFileSync(path.join(files, 'iceland.gpkg'))
  r = await app.inject({ method: 'PUT', url: `${url}workspaces/${WS}/datastores/gpkgstore/file.gpkg?update=overwrite&filename=iceland.gpkg`, headers: { ...ADMIN, 'Content-Type': 'application/x-sqlite3', 'Content-Length': String(gpkg.length) }, payload: gpkg })
  t.ok(r.statusCode >= 200 && r.statusCode < 300, `createGpkgFromStream: ${r.statusCode} ${r.body}`)
  t.equal((await getJson(app, `/workspaces/${WS}/datastores/gpkgstore/featuretypes/towns.json`))?.featureType.name, 'towns')

  // layergroups.create: `${this.url}/workspaces/...` (a double slash), the client's default options spread in.
  const body = (name: string, options: Record<string, unknown> = {}) => JSON.stringify({ layerGroup: {
    name,
    workspace: { name: WS },
    publishables: { published: [{ '@type': 'layer', name: `${WS}:places`, href: `${url}/workspaces/${WS}/layers/places.json` }] },
    styles: { style: [''] },
    mode: 'SINGLE', layerGroupTitle: '', abstractTxt: '', bounds: { minx: -180, maxx: -90, miny: 180, maxy: 90, crs: 'EPSG:4326' },
    ...options
  } })
  r = await app.inject({ method: 'POST', url: `${url}/workspaces/${WS}/layergroups`, headers: json, payload: body('testLayerGroup') })
  t.equal(r.statusCode, 201, `layergroups.create: ${r.body}`)
  t.ok(r.headers.location, 'the client returns the Location header')
  const lg = await app.inject({ url: `${url}/workspaces/${WS}/layergroups/testLayerGroup.json`, headers: ADMIN })
  t.equal(lg.statusCode, 200, 'layergroups.get')
  t.equal(JSON.parse(lg.body).layerGroup.title, undefined, 'an empty layerGroupTitle sets no title')
  t.same(JSON.parse(lg.body).layerGroup.publishables.published.name ?? JSON.parse(lg.body).layerGroup.publishables.published[0].name, `${WS}:places`)
  const bounds = { minx: -20037508.34, maxx: -20048966.1, miny: 20037508.34, maxy: 20048966.1, crs: 'EPSG:3857' }
  r = await app.inject({ method: 'POST', url: `${url}/workspaces/${WS}/layergroups`, headers: json, payload: body('testLayerGroup2', { bounds, layerGroupTitle: 'Second' }) })
  t.equal(r.statusCode, 201, `layergroups.create with bounds: ${r.body}`)
  const lg2 = await app.inject({ url: `${url}/workspaces/${WS}/layergroups/testLayerGroup2.json`, headers: ADMIN })
  t.equal(JSON.parse(lg2.body).layerGroup.title, 'Second', 'layerGroupTitle, the client\'s option, is the title')
  const got = JSON.parse(lg2.body).layerGroup.bounds
  t.same([got.minx, got.maxx, got.miny, got.maxy, got.crs], [-20048966.1, -20037508.34, 20037508.34, 20048966.1, 'EPSG:3857'], 'the box sent, its sides in order')
  const missing = await app.inject({ url: `${url}/workspaces/${WS}/layergroups/non-existent-layer-group.json`, headers: ADMIN })
  t.equal(missing.statusCode, 404)
})
