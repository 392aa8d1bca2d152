// PUT url.shp and url.gpkg with an http URL (GeoServer's url upload method): the ZIP of a shapefile
// or the GeoPackage itself fetched from an allowed host (a loopback test server, reached through the
// test-only MAPWARDEN_REMOTE_UPLOAD_ALLOW_PRIVATE) and uploaded as file.shp / file.gpkg are: the store
// created with its files under the data directory and its feature types published. A file: location
// keeps reading in place (uploads.test.ts); the refusals are test/hostile/remote-uploads.test.ts.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { createWorkspace, zipItems } from '../appschema/helpers.js'
import { writeGeoPackage, writeShapefile, ESRI_WGS84_PRJ } from '../../fixtures/vector/files.js'
import { remoteServer } from '../../remote-server.js'

const DS = `${BASE}/rest/workspaces/vx/datastores`
const TEXT = { 'content-type': 'text/plain' }

t.test('url.shp and url.gpkg fetch an allowed host\'s file and upload it as file.* does', async (t) => {
  const files = tempDir(t, 'files')
  writeShapefile(files, 'parcels', {
    type: 'polygon',
    fields: [{ name: 'kind', type: 'C', length: 12 }],
    features: [{ geometry: { type: 'Polygon', coordinates: [[[1, 2], [2, 2], [2, 3], [1, 3], [1, 2]]] }, values: ['field'] }],
    prj: ESRI_WGS84_PRJ
  })
  writeGeoPackage(path.join(files, 'city.gpkg'), [
    { name: 'places', columns: ['name TEXT'], geometryColumn: 'geom', geometryType: 'POINT', rtree: true, rows: [{ values: ['A'], geometry: { type: 'Point', coordinates: [3, 4] } }] }
  ])
  const shpZip = await zipItems(['shp', 'shx', 'dbf', 'prj'].map((e) => ({ name: `parcels.${e}`, data: fs.readFileSync(path.join(files, `parcels.${e}`)) })))
  const server = await remoteServer(t, { '/parcels.zip': shpZip, '/city.gpkg': fs.readFileSync(path.join(files, 'city.gpkg')), '/text': Buffer.from('hello') })
  const app = await build(t, { remoteUploadHosts: ['127.0.0.1'], remoteUploadAllowPrivate: true })
  await createWorkspace(app, 'vx')
  const dataDir = app.config.dataDir

  let res = await app.inject({ method: 'PUT', url: `${DS}/parcels/url.shp`, headers: { ...ADMIN, ...TEXT, accept: 'application/json' }, payload: `${server.url}/parcels.zip` })
  t.equal(res.statusCode, 201, res.body)
  t.same(fs.readdirSync(path.join(dataDir, 'data', 'vx', 'parcels')).sort(), ['parcels.dbf', 'parcels.prj', 'parcels.shp', 'parcels.shx'], 'the fetched files, kept under the data directory')
  res = await app.inject({ url: `${DS}/parcels/featuretypes.json`, headers: ADMIN })
  t.same(res.json().featureTypes.featureType.map((f: { name: string }) => f.name), ['parcels'])
  res = await app.inject({ url: `${BASE}/wfs?service=WFS&version=2.0.0&request=GetFeature&typeNames=vx:parcels&outputFormat=application/json` })
  t.equal(res.json().features[0].properties.kind, 'field', 'served by WFS')

  res = await app.inject({ method: 'PUT', url: `${DS}/city/url.gpkg?configure=all`, headers: { ...ADMIN, ...TEXT }, payload: `${server.url}/city.gpkg` })
  t.equal(res.statusCode, 201, res.body)
  t.ok(fs.existsSync(path.join(dataDir, 'data', 'vx', 'city', 'city.gpkg')))
  res = await app.inject({ url: `${DS}/city/featuretypes.json`, headers: ADMIN })
  t.same(res.json().featureTypes.featureType.map((f: { name: string }) => f.name), ['places'])

  for (const [upload, re] of [['url.shp', /is not a ZIP \(a shapefile comes as a ZIP/], ['url.gpkg', /is not a ZIP or a GeoPackage/]] as const) {
    res = await app.inject({ method: 'PUT', url: `${DS}/bad/${upload}`, headers: { ...ADMIN, ...TEXT }, payload: `${server.url}/text` })
    t.equal(res.statusCode, 400, upload)
    t.match(res.body, re)
  }
  t.equal((await app.inject({ url: `${DS}/bad.json`, headers: ADMIN })).statusCode, 404)
  t.same(fs.readdirSync(path.join(dataDir, 'tmp')).filter((n) => !['uploads', 'tiles'].includes(n)), [], 'no staging file left')
})
