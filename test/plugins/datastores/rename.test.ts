// PUT .../featuretypes/<ft> with a new name renames the feature type and its layer, as GeoServer
// does: the native name stays, the layer keeps its styles, its access rules and its places in layer
// groups follow the name (GeoServer's SecuredResourceNameChangeListener, groups holding layers by id);
// a name another resource of the workspace has is a 409 that changes nothing.
import t, { type Test } from 'tap'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { createWorkspace } from '../appschema/helpers.js'
import { writeGeoPackage, type GpkgTable } from '../../fixtures/vector/files.js'

const REST = `${BASE}/rest`
const FT = `${REST}/workspaces/vx/datastores/city/featuretypes`
const PLACES: GpkgTable = { name: 'places', columns: ['name TEXT'], geometryColumn: 'geom', geometryType: 'POINT', rows: [{ values: ['a'], geometry: { type: 'Point', coordinates: [1, 2] } }] }
const ROADS: GpkgTable = { name: 'roads', columns: ['kind TEXT'], geometryColumn: 'shape', geometryType: 'LINESTRING', rows: [{ values: ['main'], geometry: { type: 'LineString', coordinates: [[0, 0], [1, 1]] } }] }

const sld = (color: string) => `<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld" xmlns:ogc="http://www.opengis.net/ogc"><NamedLayer><Name>x</Name><UserStyle><FeatureTypeStyle><Rule><PointSymbolizer><Graphic><Mark><WellKnownName>circle</WellKnownName><Fill><CssParameter name="fill">${color}</CssParameter></Fill></Mark><Size>6</Size></Graphic></PointSymbolizer></Rule></FeatureTypeStyle></UserStyle></NamedLayer></StyledLayerDescriptor>`

const get = (app: FastifyInstance, url: string) => app.inject({ method: 'GET', url, headers: ADMIN })
const send = (app: FastifyInstance, method: 'POST' | 'PUT', url: string, body: unknown) => app.inject({
  method, url, headers: { ...ADMIN, 'content-type': typeof body === 'string' ? 'text/xml' : 'application/json' }, payload: typeof body === 'string' ? body : JSON.stringify(body)
})
const json = (r: LightMyRequestResponse) => JSON.parse(r.body)
const ok = (r: LightMyRequestResponse, status: number, what: string) => { if (r.statusCode !== status) throw new Error(`${what}: ${r.statusCode} ${r.body}`) }

async function setup (t: Test): Promise<FastifyInstance> {
  const root = tempDir(t, 'harvest')
  const app = await build(t, { harvestRoots: [root], dataDir: tempDir(t) })
  await createWorkspace(app, 'vx')
  writeGeoPackage(path.join(root, 'city.gpkg'), [PLACES, ROADS])
  const database = pathToFileURL(path.join(root, 'city.gpkg')).href
  ok(await send(app, 'POST', `${REST}/workspaces/vx/datastores`, `<dataStore><name>city</name><connectionParameters><entry key="dbtype">geopkg</entry><entry key="database">${database}</entry></connectionParameters></dataStore>`), 201, 'store')
  ok(await send(app, 'POST', FT, { featureType: { name: 'places', title: 'Places' } }), 201, 'places')
  ok(await send(app, 'POST', FT, { featureType: { name: 'roads' } }), 201, 'roads')
  for (const [name, color] of [['red', '#ff0000'], ['blue', '#0000ff']]) {
    ok(await app.inject({ method: 'POST', url: `${REST}/styles?name=${name}`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: sld(color) }), 201, name)
  }
  // The layer's own styles, a rule of its own and a group holding it: all should follow a rename.
  ok(await send(app, 'PUT', `${REST}/layers/vx:places.json`, { layer: { defaultStyle: { name: 'red' }, styles: { style: [{ name: 'blue' }] } } }), 200, 'styles')
  ok(await send(app, 'POST', `${REST}/security/acl/layers.json`, { 'vx.places.r': 'ROLE_READER', 'vx.places.w': 'ROLE_EDITOR' }), 201, 'rules')
  ok(await send(app, 'POST', `${REST}/layergroups`, { layerGroup: { name: 'g', publishables: { published: [{ '@type': 'layer', name: 'vx:roads' }, { '@type': 'layer', name: 'vx:places' }] }, styles: { style: ['', { name: 'blue' }] } } }), 201, 'group')
  return app
}

t.test('a new name in PUT renames the feature type and its layer; styles, rules and group places follow; the old name is gone', async (t) => {
  const app = await setup(t)
  const res = await send(app, 'PUT', `${FT}/places`, '<featureType><name>towns</name><title>Towns</title></featureType>')
  t.equal(res.statusCode, 200, res.body)
  const ft = json(await get(app, `${FT}/towns.json`)).featureType
  t.same([ft.name, ft.nativeName, ft.title], ['towns', 'places', 'Towns'], 'the native name stays')
  t.equal((await get(app, `${FT}/places.json`)).statusCode, 404)
  t.same(json(await get(app, `${FT}.json`)).featureTypes.featureType.map((f: { name: string }) => f.name), ['roads', 'towns'])
  t.same(json(await get(app, `${FT}.json?list=available`)), { list: '' }, 'the table is still configured')

  const layer = json(await get(app, `${REST}/layers/vx:towns.json`)).layer
  t.equal(layer.type, 'VECTOR')
  t.equal(layer.defaultStyle.name, 'red')
  t.same(layer.styles.style.map((s: { name: string }) => s.name), ['blue'])
  t.equal(layer.resource.name, 'vx:towns')
  t.equal((await get(app, `${REST}/layers/vx:places.json`)).statusCode, 404)

  const rules = json(await get(app, `${REST}/security/acl/layers.json`))
  t.same([rules['vx.towns.r'], rules['vx.towns.w'], rules['vx.places.r'], rules['vx.places.w']], ['ROLE_READER', 'ROLE_EDITOR', undefined, undefined])

  const group = json(await get(app, `${REST}/layergroups/g.json`)).layerGroup
  const published = group.publishables.published.map((p: { name: string }) => p.name)
  t.same(published, ['vx:roads', 'vx:towns'], 'the layer keeps its place in the group')
  t.same(group.styles.style[1].name, 'blue', 'and its style there')

  // Renamed again in JSON, back to the first name: nothing of the first rename stands in the way.
  t.equal((await send(app, 'PUT', `${FT}/towns.json`, { featureType: { name: 'places' } })).statusCode, 200)
  t.equal(json(await get(app, `${REST}/layers/vx:places.json`)).layer.defaultStyle.name, 'red')
  t.equal(json(await get(app, `${REST}/security/acl/layers.json`))['vx.places.r'], 'ROLE_READER')
})

t.test('a name another resource of the workspace has (or the same under case folding): 409, nothing changes; a bad name: 400', async (t) => {
  const app = await setup(t)
  const taken = await send(app, 'PUT', `${FT}/places`, { featureType: { name: 'roads', title: 'Changed' } })
  t.equal(taken.statusCode, 409)
  t.equal(taken.body, "Resource named 'roads' already exists in workspace 'vx'")
  const folded = await send(app, 'PUT', `${FT}/places`, { featureType: { name: 'ROADS' } })
  t.equal(folded.statusCode, 409)
  t.match(folded.body, "Resource named 'roads' already exists")
  const bad = await send(app, 'PUT', `${FT}/places`, { featureType: { name: 'a/b' } })
  t.equal(bad.statusCode, 400, bad.body)
  const native = await send(app, 'PUT', `${FT}/places`, { featureType: { name: 'towns', nativeName: 'roads' } })
  t.equal(native.statusCode, 403, 'the native name cannot change')
  t.equal((await get(app, `${FT}/towns.json`)).statusCode, 404, 'not renamed by a refused PUT')
  const ft = json(await get(app, `${FT}/places.json`)).featureType
  t.equal(ft.title, 'Places', 'nothing changed')
  t.equal(json(await get(app, `${REST}/layers/vx:places.json`)).layer.defaultStyle.name, 'red')
  t.equal(json(await get(app, `${REST}/security/acl/layers.json`))['vx.places.r'], 'ROLE_READER')
})
