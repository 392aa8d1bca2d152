// web/vector-layers.json, the admin page's list of vector layers: geometry type, feature count and
// lon/lat bounds of each vector layer the user may read, under the same layer rules and catalog mode
// as web/layers.json (a layer the user may not read is absent); a store that cannot be read keeps its
// line with a null count. Over real GeoPackage and shapefile stores.
import t from 'tap'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { build, ADMIN, BASE, basic, tempDir } from '../../helper.js'
import { createWorkspace } from '../appschema/helpers.js'
import { writeGeoPackage, writeShapefile, ESRI_UTM33N_PRJ } from '../../fixtures/vector/files.js'

const REST = `${BASE}/rest`
const S = `${REST}/security`
const JSON_HEADERS = { ...ADMIN, 'content-type': 'application/json' }

t.test('web/vector-layers.json lists readable vector layers with geometry type, feature count and bounds', async (t) => {
  const root = tempDir(t, 'harvest')
  const app = await build(t, { harvestRoots: [root], dataDir: tempDir(t) })
  await createWorkspace(app, 'vx')
  writeGeoPackage(path.join(root, 'city.gpkg'), [{
    name: 'places', columns: ['name TEXT'], geometryColumn: 'geom', geometryType: 'POINT', rtree: true,
    rows: [['A', -10, -5], ['B', 20, 15], ['C', 5, 40]].map(([n, x, y]) => ({ values: [n], geometry: { type: 'Point', coordinates: [x, y] } }))
  }])
  writeShapefile(path.join(root, 'shp'), 'wells', {
    type: 'point', prj: ESRI_UTM33N_PRJ, fields: [{ name: 'id', type: 'N', length: 5 }],
    features: [{ geometry: { type: 'Point', coordinates: [500000, 0] }, values: [1] }, { geometry: { type: 'Point', coordinates: [611000, 110000] }, values: [2] }]
  })
  const post = async (url: string, body: object) => {
    const r = await app.inject({ method: 'POST', url, headers: JSON_HEADERS, payload: body })
    if (r.statusCode !== 201) throw new Error(`${url}: ${r.statusCode} ${r.body}`)
  }
  await post(`${REST}/workspaces/vx/datastores`, { dataStore: { name: 'city', connectionParameters: { dbtype: 'geopkg', database: pathToFileURL(path.join(root, 'city.gpkg')).href } } })
  await post(`${REST}/workspaces/vx/datastores`, { dataStore: { name: 'wells', connectionParameters: { url: pathToFileURL(path.join(root, 'shp', 'wells.shp')).href } } })
  await post(`${REST}/workspaces/vx/datastores/city/featuretypes`, { featureType: { name: 'places', title: 'Places' } })
  await post(`${REST}/workspaces/vx/datastores/wells/featuretypes`, { featureType: { name: 'wells', srs: 'EPSG:4326' } })

  const list = async (headers: Record<string, string>) => {
    const r = await app.inject({ url: `${BASE}/web/vector-layers.json`, headers })
    t.equal(r.statusCode, 200, r.body)
    t.match(r.headers['content-type'], /^application\/json/)
    return r.json().layers as Array<Record<string, unknown>>
  }
  const layers = await list(ADMIN)
  t.same(layers.map((l) => l.name), ['vx:places', 'vx:wells'])
  t.same(layers[0], { name: 'vx:places', title: 'Places', geometryType: 'POINT', featureCount: 3, bounds: [-10, -5, 20, 40], srs: 'EPSG:4326' })
  const wells = layers[1] as { geometryType: string, featureCount: number, bounds: number[], srs: string }
  t.same([wells.geometryType, wells.featureCount, wells.srs], ['POINT', 2, 'EPSG:4326'])
  t.ok(Math.abs(wells.bounds[0] - 15) < 1e-6, 'lon/lat bounds of the UTM data')

  // The vector-tile preview's colours: the layer's style (the built-in point style here) as plain colours.
  const legend = await app.inject({ url: `${BASE}/web/legend.json?layer=vx:places`, headers: ADMIN })
  t.equal(legend.statusCode, 200, legend.body)
  t.same(legend.json().legend, { layer: 'vx:places', style: 'point', type: null, colours: [{ geometry: 'point', fill: '#ff0000', size: 6 }], entries: [] })

  // The layer rules of web/layers.json: restricted to ROLE_READER, a plain user no longer sees vx:places.
  const user = await app.inject({ method: 'POST', url: `${S}/usergroup/users`, headers: JSON_HEADERS, payload: { user: { userName: 'plain', password: 'plain-password', enabled: true } } })
  t.equal(user.statusCode, 201)
  const plain = { authorization: basic('plain', 'plain-password') }
  t.same((await list(plain)).map((l) => l.name), ['vx:places', 'vx:wells'], 'default rules: everyone reads')
  t.equal((await app.inject({ method: 'POST', url: `${S}/acl/layers.json`, headers: JSON_HEADERS, payload: '{"vx.places.r":"ROLE_READER"}' })).statusCode, 201)
  t.same((await list(plain)).map((l) => l.name), ['vx:wells'], 'HIDE: a layer the user may not read is absent')
  const hidden = await app.inject({ url: `${BASE}/web/legend.json?layer=vx:places`, headers: plain })
  t.equal(hidden.statusCode, 404, 'nor its colours')
  t.notMatch(hidden.body, 'colours')
  t.equal((await app.inject({ method: 'PUT', url: `${S}/acl/catalog.json`, headers: JSON_HEADERS, payload: '{"mode":"CHALLENGE"}' })).statusCode, 200)
  t.same((await list(plain)).map((l) => l.name), ['vx:wells'], 'CHALLENGE: still absent')
  t.equal((await app.inject({ url: `${BASE}/web/vector-layers.json` })).statusCode, 401, 'behind the login')

  // A store that cannot be read: its layers keep their line, the count null.
  t.equal((await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/datastores/city`, headers: JSON_HEADERS, payload: { dataStore: { enabled: false } } })).statusCode, 200)
  const after = await list(ADMIN)
  t.same(after.map((l) => [l.name, l.featureCount]), [['vx:places', null], ['vx:wells', 2]], 'a disabled store\'s layer keeps its line, with no count')
})
