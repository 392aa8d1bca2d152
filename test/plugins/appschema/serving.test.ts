// App-schema stores serve their mapped features over WFS: GeoServer's tutorial mapping (GeoSciML
// MappedFeature chained to a denormalised GeologicUnit) over property files and over PostGIS
// tables holding the same rows; every GetFeature answer is validated with xmllint against the
// target schema of the upload and the offline schema cache (no network).
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { BASE, ADMIN, build } from '../../helper.js'
import { pgDatabase } from '../../fixtures/pg.js'
import { FIXTURES, REST, fixtureZip, installCache, putZip } from './helpers.js'
import { GSML, members, postgisSources, setup, validate, wfs } from './serving-helpers.js'

const EXPECTED_MF1 = '<gsml:MappedFeature gml:id="mf1"><gml:name>GUNTHORPE FORMATION</gml:name>' +
  '<gsml:observationMethod><gsml:CGI_TermValue><gsml:value codeSpace="http://www.ietf.org/rfc/rfc1738">urn:ogc:def:nil:OGC::missing</gsml:value></gsml:CGI_TermValue></gsml:observationMethod>' +
  '<gsml:specification><gsml:GeologicUnit gml:id="gu.25699"><gml:name codeSpace="urn:ietf:rfc:2141">Gunthorpe Formation</gml:name>' +
  '<gml:name codeSpace="urn:x-bgs:lexicon">-Py</gml:name><gml:name codeSpace="urn:x-bgs:lexicon">Yaughan Volcanic Group</gml:name>' +
  '<gsml:purpose>instance</gsml:purpose><gsml:rank><gsml:CGI_TermValue><gsml:value>FORMATION</gsml:value></gsml:CGI_TermValue></gsml:rank></gsml:GeologicUnit></gsml:specification>' +
  '<gsml:shape><gml:Polygon srsName="urn:x-ogc:def:crs:EPSG:4326" srsDimension="2"><gml:exterior><gml:LinearRing><gml:posList>52.5 -1.2 52.6 -1.2 52.6 -1.1 52.5 -1.1 52.5 -1.2</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></gsml:shape>' +
  '</gsml:MappedFeature>'

t.test('GetFeature of the tutorial MappedFeature over property files: chained, denormalised GeologicUnits, valid against the target schema', async (t) => {
  const app = await setup(t)
  const caps = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetCapabilities' })
  t.equal(caps.statusCode, 200)
  t.match(caps.body, '<wfs:Name>gsml:MappedFeature</wfs:Name>')
  t.match(caps.body, '<wfs:Name>gsml:GeologicUnit</wfs:Name>')

  const res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature' })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.headers['content-type'], 'text/xml; subtype=gml/3.1.1')
  t.match(res.body, ' numberOfFeatures="4" ')
  t.match(res.body, ` xmlns:gsml="${GSML}"`)
  t.ok(res.body.includes(EXPECTED_MF1), `mf1 as mapped:\n${res.body.slice(0, 3000)}`)
  // mf2 and mf3 share gu.25678: written once, then referenced (gml:id is unique in a document).
  t.match(res.body, '<gsml:MappedFeature gml:id="mf3"><gml:name>CLIFTON FORMATION</gml:name>')
  t.match(res.body, '<gsml:specification xlink:href="#gu.25678"/>')
  t.equal(res.body.split('gml:id="gu.25678"').length - 1, 1)
  validate(t, res.body, 'GetFeature 1.1.0')

  const page = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', maxFeatures: 2, startIndex: 1 })
  t.match(page.body, ' numberOfFeatures="2" ')
  t.same([...page.body.matchAll(/<gsml:MappedFeature gml:id="([^"]+)"/g)].map((m) => m[1]), ['mf2', 'mf3'])
  validate(t, page.body, 'a page')

  const hits = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', resultType: 'hits' })
  t.match(hits.body, /numberOfFeatures="4"[^>]*\/>\n$/)

  const units = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:GeologicUnit' })
  t.equal(units.statusCode, 200)
  t.match(units.body, 'numberMatched="3" numberReturned="3"')
  t.same([...units.body.matchAll(/<wfs:member><gsml:GeologicUnit gml:id="([^"]+)"/g)].map((m) => m[1]), ['gu.25678', 'gu.25682', 'gu.25699'], 'six rows, three units')
  t.match(units.body, '<gsml:GeologicUnit gml:id="gu.25682"><gml:name codeSpace="urn:ietf:rfc:2141">Mercia Mudstone Group</gml:name><gsml:purpose>typicalNorm</gsml:purpose></gsml:GeologicUnit>')

  const schema = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'DescribeFeatureType', typeName: 'gsml:MappedFeature' })
  t.equal(schema.statusCode, 200)
  t.equal(schema.body, fs.readFileSync(path.join(FIXTURES, 'tutorial', 'schemas', 'gsml.xsd'), 'utf8'))

  const two = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'DescribeFeatureType', typeNames: 'gsml:MappedFeature,gsml:GeologicUnit' })
  t.equal(two.statusCode, 400)
  t.match(two.body, 'describe an app-schema type alone')
  const all = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'DescribeFeatureType' })
  t.equal(all.statusCode, 200)
  t.notMatch(all.body, 'MappedFeature', 'the schema of every type is that of the simple ones')
})

/** The ids of the features of a collection, in order (nested ones included). */
const ids = (body: string) => [...body.matchAll(/<gsml:(?:MappedFeature|GeologicUnit) gml:id="([^"]+)"/g)].map((m) => m[1])

/** Filters on mapped XPaths, each with the ids it must select; the same on every source. */
const FILTERS: Array<[string, Record<string, string>, string[]]> = [
  ['ECQL on gml:name', { typeName: 'gsml:MappedFeature', cql_filter: "gml:name = 'CLIFTON FORMATION'" }, ['mf3', 'gu.25678']],
  ['ECQL LIKE', { typeName: 'gsml:MappedFeature', cql_filter: "gml:name LIKE 'MERCIA%'" }, ['mf2', 'gu.25678', 'mf4', 'gu.25682']],
  ['ECQL BBOX on the mapped geometry', { typeName: 'gsml:MappedFeature', cql_filter: 'BBOX(gsml:shape, -1.35, 52.45, -1.25, 52.65)' }, ['mf2', 'gu.25678', 'mf4', 'gu.25682']],
  ['a resource id', { typeName: 'gsml:MappedFeature', featureId: 'mf4' }, ['mf4', 'gu.25682']],
  ['a name of one row of a denormalised unit selects the whole unit', { typeName: 'gsml:GeologicUnit', cql_filter: "gml:name = '-Py'" }, ['gu.25699']],
  ['OGC XML filter', {
    typeName: 'gsml:GeologicUnit',
    filter: '<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc"><ogc:PropertyIsEqualTo><ogc:PropertyName>gml:name</ogc:PropertyName><ogc:Literal>Mercia Mudstone Group</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter>'
  }, ['gu.25682']]
]

t.test('filters on mapped XPaths select whole features; an XPath that is not filterable is named', async (t) => {
  const app = await setup(t)
  for (const [label, q, want] of FILTERS) {
    const res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', ...q })
    t.equal(res.statusCode, 200, label)
    t.same(ids(res.body), want, label)
    t.match(res.body, ` numberOfFeatures="${want.filter((id) => id.startsWith(q.typeName === 'gsml:MappedFeature' ? 'mf' : 'gu')).length}" `, label)
    validate(t, res.body, label)
  }
  const unit = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:GeologicUnit', cql_filter: "gml:name = '-Py'" })
  t.match(unit.body, '<gml:name codeSpace="urn:ietf:rfc:2141">Gunthorpe Formation</gml:name><gml:name codeSpace="urn:x-bgs:lexicon">-Py</gml:name><gml:name codeSpace="urn:x-bgs:lexicon">Yaughan Volcanic Group</gml:name>')
  const res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:MappedFeature', cql_filter: "gsml:purpose = 'instance'" })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'unknown attribute &quot;gsml:purpose&quot;; the index has gml:name, gsml:shape')
})


t.test('the same mapping over PostGIS tables holding the same rows returns the same features', async (t) => {
  const props = await setup(t)
  const params = await postgisSources(t)
  const app = await setup(t, { 'mappedfeature.appschema': (s) => s.replace('<Parameter><name>directory</name><value>file:./sources</value></Parameter>', params) })
  for (const [version, typeName] of [['1.1.0', 'gsml:MappedFeature'], ['2.0.0', 'gsml:GeologicUnit'], ['2.0.0', 'gsml:MappedFeature']]) {
    const q = { service: 'WFS', version, request: 'GetFeature', typeName }
    const a = await wfs(props, q)
    const b = await wfs(app, q)
    t.equal(b.statusCode, 200, b.body)
    t.equal(members(b.body), members(a.body), `${version} ${typeName}`)
  }
  for (const [label, q, want] of FILTERS) {
    const a = await wfs(props, { service: 'WFS', version: '1.1.0', request: 'GetFeature', ...q })
    const b = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', ...q })
    t.same(ids(b.body), want, label)
    t.equal(members(b.body), members(a.body), `${label}: the same answer`)
  }
  const page = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', maxFeatures: 2, startIndex: 2 })
  t.same([...page.body.matchAll(/<gsml:MappedFeature gml:id="([^"]+)"/g)].map((m) => m[1]), ['mf3', 'mf4'])
  validate(t, page.body, 'PostGIS page')
})

t.test('the layer read rules apply to mapped types: a type the caller may not read is unknown and unlisted', async (t) => {
  const app = await setup(t)
  const r = await app.inject({ method: 'POST', url: `${BASE}/rest/security/acl/layers.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: '{"gsml.GeologicUnit.r":"ROLE_NOBODY"}' })
  t.equal(r.statusCode, 201)
  const caps = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetCapabilities' })
  t.match(caps.body, '<wfs:Name>gsml:MappedFeature</wfs:Name>')
  t.notMatch(caps.body, 'gsml:GeologicUnit')
  const res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:GeologicUnit' })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'Feature type gsml:GeologicUnit unknown')
})

t.test('creating a store connects to its sources and names the one that cannot be read', async (t) => {
  const app = await build(t)
  installCache(app.config.dataDir)
  await app.inject({ method: 'POST', url: `${REST}/namespaces`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { namespace: { prefix: 'gsml', uri: GSML } } })
  let res = await putZip(app, 'gsml', 'tutorial', await fixtureZip('tutorial', { 'sources/mappedfeature.properties': (s) => s.replace('|POLYGON((-1.3 52.5,', '|POLYGON((-1.3 x,') }), '?configure=all')
  t.equal(res.statusCode, 400)
  t.match(res.body, /^Invalid app-schema mapping \(1 problem\):\n- mappedfeature\.appschema: FeatureTypeMapping \(gsml:MappedFeature\): data store "datastore" cannot be read: sourceType mappedfeature: line 3: SHAPE: /)
  const url = await pgDatabase(t, { postgis: true })
  const u = new URL(url)
  const params = `<Parameter><name>dbtype</name><value>postgis</value></Parameter><Parameter><name>host</name><value>${u.hostname}</value></Parameter>` +
    `<Parameter><name>port</name><value>${u.port || '5432'}</value></Parameter><Parameter><name>database</name><value>${u.pathname.slice(1)}</value></Parameter>` +
    `<Parameter><name>user</name><value>${decodeURIComponent(u.username) || 'postgres'}</value></Parameter>`
  res = await putZip(app, 'gsml', 'tutorial', await fixtureZip('tutorial', { 'mappedfeature.appschema': (s) => s.replace('<Parameter><name>directory</name><value>file:./sources</value></Parameter>', params) }), '?configure=all')
  t.equal(res.statusCode, 400)
  t.match(res.body, 'data store "datastore" cannot be read: sourceType mappedfeature: mappedfeature is not a table or view of the source')
  const list = await app.inject({ method: 'GET', url: `${REST}/workspaces/gsml/datastores.json`, headers: ADMIN })
  t.equal(list.body, '{"dataStores":""}', 'nothing was created')
})
