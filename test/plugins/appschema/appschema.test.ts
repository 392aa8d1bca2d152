import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { addStore, withAppDb } from '../../fixtures/catalog-rows.js'
import {
  REST, createWorkspace, expected, filesOf, fixtureText, fixtureZip, get, installCache, putText, putZip, stationsMapping, zipNames
} from './helpers.js'

const URL_RE = /<entry key="url">(file:[^<]+)<\/entry>/

async function storedUrl (app: Awaited<ReturnType<typeof build>>, ws: string, store: string): Promise<string> {
  const res = await get(app, `/workspaces/${ws}/datastores/${store}.xml`)
  const m = URL_RE.exec(res.body)
  if (!m) throw new Error(`no url in ${res.body}`)
  return m[1]
}

t.test('PUT of a GeoSciML ZIP with configure=all stores the files and configures exactly the three feature types of the main file', async (t) => {
  const app = await build(t)
  const dataDir = app.config.dataDir
  await createWorkspace(app, 'gsml')
  installCache(dataDir)
  const res = await putZip(app, 'gsml', 'geosciml', await fixtureZip('geosciml'), '?configure=all')
  t.equal(res.statusCode, 200)
  t.equal(res.body, '')

  const url = await storedUrl(app, 'gsml', 'geosciml')
  const m = new RegExp(`^file:${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/appschema/gsml/geosciml/([0-9a-z]+-[0-9a-f]{8})/geosciml\\.appschema$`).exec(url)
  t.ok(m, `url ${url} points at the stored main file`)
  const storeDir = path.join(dataDir, 'appschema', 'gsml', 'geosciml', m![1])
  t.same(filesOf(storeDir), [
    'cgi_termvalue.xml', 'geosciml.appschema', 'schemas/cgiUtilities.xsd', 'schemas/geologicUnit.xsd', 'schemas/geosciml.xsd',
    'schemas/mappedFeature.xsd', 'sources/geologicevent.properties', 'sources/geologicunit.properties', 'sources/mappedfeature.properties',
    'sources/termvalue.properties'
  ])
  t.equal(fs.readFileSync(path.join(storeDir, 'geosciml.appschema'), 'utf8'), fixtureText('geosciml/geosciml.appschema'))

  let r = await get(app, '/workspaces/gsml/datastores/geosciml.xml')
  t.equal(r.statusCode, 200)
  t.equal(r.headers['content-type'], 'application/xml')
  t.equal(r.body, expected('datastore.xml', { URL: url }))
  r = await get(app, '/workspaces/gsml/datastores/geosciml.json')
  t.equal(r.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(r.body, expected('datastore.json', { URL: url }))

  r = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes.xml')
  t.equal(r.body, expected('featuretypes.xml'))
  r = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes.json')
  t.equal(r.body, expected('featuretypes.json'))

  r = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes/MappedFeature.xml')
  t.equal(r.statusCode, 200)
  t.equal(r.body, expected('mappedfeature.xml'))
  r = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes/MappedFeature.json')
  t.equal(r.body, expected('mappedfeature.json'))
  r = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes/GeologicUnit.json')
  const gu = JSON.parse(r.body).featureType
  t.equal(gu.srs, undefined, 'no geometry in the source: no SRS, no bounds')
  t.same(gu.attributes.attribute.map((a: { name: string }) => a.name), ['name', 'boundedBy', 'purpose', 'geologicHistory', 'observationMethod'])

  const layers = await app.layers.list('gsml')
  t.same(layers.map((l) => [l.name, l.type, l.store, l.bbox ?? null]), [
    ['GeologicEvent', 'VECTOR', 'geosciml', null],
    ['GeologicUnit', 'VECTOR', 'geosciml', null],
    ['MappedFeature', 'VECTOR', 'geosciml', [-1.5, 52, -0.5, 52.75]]
  ])

  r = await get(app, '/workspaces/gsml/datastores.xml')
  t.equal(r.body, [
    '<dataStores>',
    '  <dataStore>',
    '    <name>geosciml</name>',
    '    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/rest/workspaces/gsml/datastores/geosciml.xml" type="application/atom+xml"/>',
    '  </dataStore>',
    '</dataStores>'
  ].join('\n'))
  r = await get(app, '/workspaces/gsml/datastores.json')
  t.equal(r.body, '{"dataStores":{"dataStore":[{"name":"geosciml","href":"http://localhost:80/geoserver/rest/workspaces/gsml/datastores/geosciml.json"}]}}')

  r = await get(app, '/workspaces/gsml/datastores/geosciml/file.appschema')
  t.equal(r.statusCode, 200)
  t.equal(r.headers['content-type'], 'application/zip')
  t.equal(r.headers['content-disposition'], 'attachment; filename=geosciml.zip')
  t.same(await zipNames(r.rawPayload), filesOf(storeDir))
})

t.test('configure absent configures the first feature type only; configure=all then adds the others', async (t) => {
  const app = await build(t)
  await createWorkspace(app, 'gsml')
  installCache(app.config.dataDir)
  const zip = await fixtureZip('geosciml')
  let res = await putZip(app, 'gsml', 'geosciml', zip)
  t.equal(res.statusCode, 200)
  res = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes.json')
  t.same(JSON.parse(res.body).featureTypes.featureType.map((f: { name: string }) => f.name), ['GeologicUnit'])
  res = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes.xml?list=available')
  t.equal(res.body, '<list>\n  <featureTypeName>MappedFeature</featureTypeName>\n  <featureTypeName>GeologicEvent</featureTypeName>\n</list>')
  res = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes.json?list=available_with_geom')
  t.equal(res.body, '{"list":{"string":["MappedFeature"]}}')
  res = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes.json?list=all')
  t.equal(res.body, '{"list":{"string":["GeologicUnit","MappedFeature","GeologicEvent"]}}')
  res = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes.json?list=some')
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'Invalid list value "some": expected configured, available, available_with_geom or all')
  res = await putZip(app, 'gsml', 'geosciml', zip, '?configure=all')
  t.equal(res.statusCode, 200)
  res = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes.json')
  t.same(JSON.parse(res.body).featureTypes.featureType.map((f: { name: string }) => f.name), ['GeologicUnit', 'MappedFeature', 'GeologicEvent'])
  res = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes.json?list=available')
  t.equal(res.body, '{"list":""}')
  t.equal(fs.readdirSync(path.join(app.config.dataDir, 'appschema', 'gsml', 'geosciml')).length, 1, 'the previous version of the files is gone')
})

t.test('configure=none creates a store without feature types, and swaps an existing mapping in place', async (t) => {
  const app = await build(t)
  await createWorkspace(app, 'gsml')
  installCache(app.config.dataDir)
  let res = await putZip(app, 'gsml', 'geosciml', await fixtureZip('geosciml'), '?configure=none')
  t.equal(res.statusCode, 200)
  res = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes.xml')
  t.equal(res.body, '<featureTypes/>')
  res = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes.json')
  t.equal(res.body, '{"featureTypes":""}')

  res = await putZip(app, 'gsml', 'geosciml', await fixtureZip('geosciml'), '?configure=all')
  const before = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes/MappedFeature.json')
  const edited = await fixtureZip('geosciml', { 'geosciml.appschema': (s) => s.replace("<OCQL>'instance'</OCQL>", "<OCQL>'typicalNorm'</OCQL>") })
  res = await putZip(app, 'gsml', 'geosciml', edited, '?configure=none')
  t.equal(res.statusCode, 200)
  const url = await storedUrl(app, 'gsml', 'geosciml')
  t.match(fs.readFileSync(new URL(url.replace(/^file:/, 'file://')), 'utf8'), "'typicalNorm'")
  const after = await get(app, '/workspaces/gsml/datastores/geosciml/featuretypes/MappedFeature.json')
  t.equal(after.body, before.body, 'configured feature types are untouched')
})

t.test('a single mapping file creates the store with 201 and updates it with 200', async (t) => {
  const app = await build(t)
  await createWorkspace(app, 'st')
  installCache(app.config.dataDir)
  // The source is connected when the store is created: one that does not answer is named.
  let res = await putText(app, 'st', 'stations', fixtureText('single/stations.xml').replace('<value>db.example.org</value>', '<value>127.0.0.1</value>').replace('<value>5432</value>', '<value>1</value>'), '?configure=all')
  t.equal(res.statusCode, 400)
  t.match(res.body, /^Invalid app-schema mapping \(1 problem\):\n- stations\.appschema: FeatureTypeMapping \(st:Station\): data store "db" cannot be read: sourceType stations: connect ECONNREFUSED 127\.0\.0\.1:1$/)
  t.equal((await get(app, '/workspaces/st/datastores/stations.xml')).statusCode, 404, 'no store was created')
  const text = await stationsMapping(t)
  res = await putText(app, 'st', 'stations', text, '?configure=all')
  t.equal(res.statusCode, 201)
  t.equal(res.body, '')
  const url = await storedUrl(app, 'st', 'stations')
  t.match(url, /\/appschema\/st\/stations\/[0-9a-z]+-[0-9a-f]{8}\/stations\.appschema$/)
  t.equal(fs.readFileSync(new URL(url.replace(/^file:/, 'file://')), 'utf8'), text)
  res = await get(app, '/workspaces/st/datastores/stations/featuretypes/Station.json')
  const ft = JSON.parse(res.body).featureType
  t.same([ft.name, ft.srs, ft.latLonBoundingBox], ['Station', undefined, undefined], 'a database source is connected, its SRS and bounds not recorded yet')
  t.same(ft.attributes.attribute.map((a: { name: string, binding?: string }) => [a.name, a.binding ?? null]), [
    ['name', null], ['boundedBy', 'java.lang.String'], ['code', 'java.lang.String'], ['elevation', 'java.lang.Double'], ['location', 'org.locationtech.jts.geom.Geometry']
  ])

  res = await putText(app, 'st', 'stations', text.replace('<OCQL>CODE</OCQL>', '<OCQL>STATION_CODE</OCQL>'), '', 'application/xml')
  t.equal(res.statusCode, 200)
  const url2 = await storedUrl(app, 'st', 'stations')
  t.not(url2, url)
  t.match(fs.readFileSync(new URL(url2.replace(/^file:/, 'file://')), 'utf8'), 'STATION_CODE')
  t.notOk(fs.existsSync(new URL(url.replace(/^file:/, 'file://'))), 'the old mapping file is removed')

  res = await putText(app, 'st', 'named', text, '?filename=main.appschema')
  t.equal(res.statusCode, 201)
  t.match(await storedUrl(app, 'st', 'named'), /\/main\.appschema$/)
})

t.test('a single-file mapping with a property-file source gets its SRS and bounds from the data', async (t) => {
  const app = await build(t)
  await createWorkspace(app, 'st')
  let res = await putZip(app, 'st', 'props', await fixtureZip('property'), '?configure=all')
  t.equal(res.statusCode, 200)
  res = await get(app, '/workspaces/st/datastores/props/featuretypes/Stations.xml')
  t.equal(res.body, expected('stations.xml'))
})

t.test('a mapping with a different set of feature types is refused and the old mapping stays', async (t) => {
  const app = await build(t)
  await createWorkspace(app, 'gsml')
  installCache(app.config.dataDir)
  await putZip(app, 'gsml', 'geosciml', await fixtureZip('geosciml'), '?configure=all')
  const url = await storedUrl(app, 'gsml', 'geosciml')
  const fewer = await fixtureZip('geosciml', {
    'geosciml.appschema': (s) => s.replace(/<FeatureTypeMapping>\s*<sourceDataStore>datastore<\/sourceDataStore>\s*<sourceType>geologicevent[\s\S]*?<\/FeatureTypeMapping>/, '')
  })
  const res = await putZip(app, 'gsml', 'geosciml', fewer, '?configure=none')
  t.equal(res.statusCode, 409)
  t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(res.body, 'The new mapping exposes the feature types [GeologicUnit, MappedFeature] but data store geosciml exposes [GeologicUnit, MappedFeature, GeologicEvent]; a mapping with a different set of feature types cannot replace it: delete the store (DELETE /rest/workspaces/gsml/datastores/geosciml?recurse=true) and create it anew with another PUT')
  t.equal(await storedUrl(app, 'gsml', 'geosciml'), url)
  t.ok(fs.existsSync(new URL(url.replace(/^file:/, 'file://'))))
})

t.test('stores, feature types and stored files survive a restart', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir, keepOpen: true })
  await createWorkspace(first, 'gsml')
  installCache(dataDir)
  await putZip(first, 'gsml', 'geosciml', await fixtureZip('geosciml'), '?configure=all')
  const urls = ['/workspaces/gsml/datastores/geosciml.xml', '/workspaces/gsml/datastores/geosciml/featuretypes.json',
    '/workspaces/gsml/datastores/geosciml/featuretypes/MappedFeature.xml', '/workspaces/gsml/datastores.json']
  const before = await Promise.all(urls.map(async (u) => (await get(first, u)).body))
  const zipBefore = await zipNames((await get(first, '/workspaces/gsml/datastores/geosciml/file.appschema')).rawPayload)
  await first.close()

  const second = await build(t, { dataDir })
  const after = await Promise.all(urls.map(async (u) => (await get(second, u)).body))
  t.same(after, before)
  t.same(await zipNames((await get(second, '/workspaces/gsml/datastores/geosciml/file.appschema')).rawPayload), zipBefore)
})

t.test('a restart removes mapping directories that no store points at', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir, keepOpen: true })
  await createWorkspace(first, 'st')
  await putZip(first, 'st', 'props', await fixtureZip('property'), '?configure=all')
  await first.close()
  const orphan = path.join(dataDir, 'appschema', 'st', 'props', 'crashed-00000000')
  fs.mkdirSync(orphan)
  fs.writeFileSync(path.join(orphan, 'stations.appschema'), 'half')
  const second = await build(t, { dataDir })
  t.notOk(fs.existsSync(orphan))
  t.equal((await get(second, '/workspaces/st/datastores/props/file.appschema')).statusCode, 200)
})

t.test('DELETE refuses a store with feature types unless recurse=true, and the store can then be created anew', async (t) => {
  const app = await build(t)
  await createWorkspace(app, 'st')
  await putZip(app, 'st', 'props', await fixtureZip('property'), '?configure=all')
  let res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/st/datastores/props`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  t.equal(res.body, 'datastore not empty')
  res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/st/datastores/props?recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  res = await get(app, '/workspaces/st/datastores/props.xml')
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'No such datastore: st,props')
  t.same(await app.layers.list('st'), [])
  t.notOk(fs.existsSync(path.join(app.config.dataDir, 'appschema', 'st', 'props')))
  res = await putZip(app, 'st', 'props', await fixtureZip('property', {
    'stations.appschema': (s) => s.replace('<mappingName>Stations</mappingName>', '<mappingName>WeatherStations</mappingName>')
  }), '?configure=all')
  t.equal(res.statusCode, 200)
  res = await get(app, '/workspaces/st/datastores/props/featuretypes.json')
  t.equal(JSON.parse(res.body).featureTypes.featureType[0].name, 'WeatherStations')

  res = await putZip(app, 'st', 'empty', await fixtureZip('property'), '?configure=none')
  res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/st/datastores/empty`, headers: ADMIN })
  t.equal(res.statusCode, 200, 'a store without feature types needs no recurse')
})

t.test('a feature type name already used in the workspace gets a numeric suffix', async (t) => {
  const app = await build(t)
  await createWorkspace(app, 'st')
  await putZip(app, 'st', 'a', await fixtureZip('property'), '?configure=all')
  await putZip(app, 'st', 'b', await fixtureZip('property'), '?configure=all')
  const res = await get(app, '/workspaces/st/datastores/b/featuretypes/Stations1.json')
  t.equal(res.statusCode, 200)
  t.equal(JSON.parse(res.body).featureType.nativeName, 'Stations')
})

t.test('deleting the workspace with recurse removes the store files', async (t) => {
  const app = await build(t)
  await createWorkspace(app, 'st')
  await putZip(app, 'st', 'props', await fixtureZip('property'), '?configure=all')
  const res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/st?recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.notOk(fs.existsSync(path.join(app.config.dataDir, 'appschema', 'st')))
})

t.test('unknown workspaces, stores and feature types are 404 with GeoServer messages', async (t) => {
  const app = await build(t)
  await createWorkspace(app, 'st')
  let res = await get(app, '/workspaces/nope/datastores.xml')
  t.equal(res.statusCode, 404)
  t.equal(res.body, "No such workspace: 'nope' found")
  res = await get(app, '/workspaces/st/datastores.xml')
  t.equal(res.body, '<dataStores/>')
  res = await get(app, '/workspaces/st/datastores.json')
  t.equal(res.body, '{"dataStores":""}')
  res = await get(app, '/workspaces/st/datastores/nope.json')
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'No such datastore: st,nope')
  res = await get(app, '/workspaces/st/datastores/nope.xml?quietOnNotFound=true')
  t.equal(res.statusCode, 404)
  t.equal(res.body, '')
  res = await get(app, '/workspaces/st/datastores/nope/file.appschema')
  t.equal(res.statusCode, 404)
  await putZip(app, 'st', 'props', await fixtureZip('property'), '?configure=all')
  res = await get(app, '/workspaces/st/datastores/props/featuretypes/Nope.xml')
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'No such feature type: st,props,Nope')
  res = await app.inject({ method: 'POST', url: `${REST}/workspaces/st/datastores/props/file.appschema`, headers: ADMIN })
  t.equal(res.statusCode, 405)
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/st/datastores/props/file.shp`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: Buffer.from('PK') })
  t.equal(res.statusCode, 400)
  // A shapefile upload is a Shapefile store's (issue 33); it does not turn an app-schema store into one.
  t.match(res.body, /^Invalid data store: data store "props" is a .+ store: a \.shp upload cannot change its type$/)
  res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/st/datastores/props/file.csv`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: Buffer.from('PK') })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'Unsupported format: csv')
})

t.test('the routes need an administrator', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces/st/datastores.xml` })
  t.equal(res.statusCode, 401)
  t.match(res.headers['www-authenticate'], /^Basic realm="GeoServer Realm"/)
  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/st/datastores/x/file.appschema`, headers: { 'content-type': 'text/xml' }, payload: '<a/>' })
  t.equal(res.statusCode, 401)
})

t.test('two uploads to one new store run one after the other: one creates it (201), the other updates it (200)', async (t) => {
  const app = await build(t)
  await createWorkspace(app, 'st')
  installCache(app.config.dataDir)
  const text = await stationsMapping(t)
  const statuses = (await Promise.all([putText(app, 'st', 'stations', text, '?configure=all'), putText(app, 'st', 'stations', text, '?configure=all')]))
    .map((r) => r.statusCode).sort()
  t.same(statuses, [200, 201])
  t.equal(fs.readdirSync(path.join(app.config.dataDir, 'appschema', 'st', 'stations')).length, 1, 'one version of the files')
  const res = await get(app, '/workspaces/st/datastores/stations/featuretypes.json')
  t.same(JSON.parse(res.body).featureTypes.featureType.map((f: { name: string }) => f.name), ['Station'])
})

t.test('a store of another kind with the same name is not replaced by a mapping upload', async (t) => {
  const app = await build(t)
  await createWorkspace(app, 'st')
  await withAppDb(app, async (o) => await addStore(o, { workspace: 'st', name: 'dem', kind: 'coverage', type: 'ImageMosaic', config: '{}', createdAt: '2024-01-01' }))
  const res = await putZip(app, 'st', 'dem', await fixtureZip('property'), '?configure=all')
  t.equal(res.statusCode, 409)
  t.equal(res.body, "Store 'dem' in workspace 'st' exists and is not an Application Schema DataAccess store")
  t.equal((await get(app, '/workspaces/st/datastores/dem.xml')).statusCode, 404, 'a coverage store is not a data store')
  t.same(await app.layers.list('st'), [])
})
