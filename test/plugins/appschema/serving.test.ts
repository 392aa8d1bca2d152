// App-schema stores serve their mapped features over WFS: GeoServer's tutorial mapping (GeoSciML
// MappedFeature chained to a denormalised GeologicUnit) over property files and over PostGIS
// tables holding the same rows; every GetFeature answer is validated with xmllint against the
// target schema of the upload and the offline schema cache (no network).
import t from 'tap'
import type { Test } from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN, BASE } from '../../helper.js'
import { pgDatabase } from '../../fixtures/pg.js'
import { FIXTURES, REST, fixtureZip, installCache, putZip } from './helpers.js'
import { GSML, TABLES, members, overGeoPackage, postgisParameters, postgisSources, sameFeatures, setup, sourcesIn, validate, wfs } from './serving-helpers.js'

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
  t.match(res.body, 'unknown attribute &quot;gsml:purpose&quot;; the index has gml:name, gsml:observationMethod/gsml:CGI_TermValue/gsml:value, ' +
    'gsml:observationMethod/gsml:CGI_TermValue/gsml:value/@codeSpace, gsml:specification/gsml:GeologicUnit/gml:name, ')
})

/** Filters on XPaths that are not a plain column (chained, computed, client properties): evaluated after the read. */
const POST_FILTERS: Array<[string, Record<string, string>, string[]]> = [
  ['a chained XPath', { typeName: 'gsml:MappedFeature', cql_filter: "gsml:specification/gsml:GeologicUnit/gml:name = 'Clifton Formation'" }, ['mf2', 'gu.25678', 'mf3']],
  ['a chained XPath matching one of the names of a denormalised unit', { typeName: 'gsml:MappedFeature', cql_filter: "gsml:specification/gsml:GeologicUnit/gml:name = '-Py'" }, ['mf1', 'gu.25699']],
  ['a chained computed value (if_then_else, strToUpperCase)', { typeName: 'gsml:MappedFeature', cql_filter: "gsml:specification/gsml:GeologicUnit/gsml:rank/gsml:CGI_TermValue/gsml:value = 'FORMATION'" }, ['mf1', 'gu.25699', 'mf2', 'gu.25678', 'mf3']],
  ['a computed value (Recode)', { typeName: 'gsml:GeologicUnit', cql_filter: "gsml:purpose = 'typicalNorm'" }, ['gu.25682']],
  ['a ClientProperty', { typeName: 'gsml:GeologicUnit', cql_filter: "gml:name/@codeSpace = 'urn:x-bgs:lexicon'" }, ['gu.25678', 'gu.25699']],
  ['a literal mapping (strConcat) matching every feature', { typeName: 'gsml:MappedFeature', cql_filter: "gsml:observationMethod/gsml:CGI_TermValue/gsml:value LIKE 'urn:ogc:def:nil:%'" }, ['mf1', 'gu.25699', 'mf2', 'gu.25678', 'mf3', 'mf4', 'gu.25682']],
  ['AND of a column part (SQL) and a chained part (after the read)', { typeName: 'gsml:MappedFeature', cql_filter: "gml:name LIKE 'MERCIA%' AND gsml:specification/gsml:GeologicUnit/gsml:purpose = 'typicalNorm'" }, ['mf4', 'gu.25682']],
  ['OR of a column and a chained part', { typeName: 'gsml:MappedFeature', cql_filter: "gml:name = 'GUNTHORPE FORMATION' OR gsml:specification/gsml:GeologicUnit/gml:name = 'Mercia Mudstone Group'" }, ['mf1', 'gu.25699', 'mf4', 'gu.25682']],
  ['NOT of a chained part', { typeName: 'gsml:MappedFeature', cql_filter: "NOT gsml:specification/gsml:GeologicUnit/gsml:purpose = 'instance'" }, ['mf4', 'gu.25682']],
  ['OGC XML PropertyName of a chained XPath', {
    typeName: 'gsml:MappedFeature',
    filter: '<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc"><ogc:PropertyIsEqualTo><ogc:PropertyName>gsml:specification/gsml:GeologicUnit/gml:name</ogc:PropertyName><ogc:Literal>Yaughan Volcanic Group</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter>'
  }, ['mf1', 'gu.25699']]
]

/** A filter OR-ed with a part only the built feature answers (and that selects nothing): all of it evaluated after the read. */
const afterRead = (typeName: string, cql: string) => `(${cql}) OR ${typeName === 'gsml:MappedFeature' ? 'gsml:observationMethod/gsml:CGI_TermValue/gsml:value' : 'gsml:purpose'} = 'nothing'`

async function checkPostFilters (t: Test, app: FastifyInstance, label0: string): Promise<void> {
  for (const [label, q, want] of POST_FILTERS) {
    const res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', ...q })
    t.equal(res.statusCode, 200, `${label0} ${label}: ${res.body.slice(0, 300)}`)
    t.same(ids(res.body), want, `${label0} ${label}`)
    t.match(res.body, ` numberOfFeatures="${want.filter((id) => id.startsWith(q.typeName === 'gsml:MappedFeature' ? 'mf' : 'gu')).length}" `, `${label0} ${label}`)
    validate(t, res.body, `${label0} ${label}`)
  }
  // The SQL path's filters evaluated after the read answer the same.
  for (const [label, q, want] of FILTERS) {
    if (!q.cql_filter) continue
    const res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', ...q, cql_filter: afterRead(q.typeName, q.cql_filter) })
    t.same(ids(res.body), want, `${label0} ${label}, evaluated after the read`)
  }
  // Paging and hits count the features that match after the read.
  const chained = "gsml:specification/gsml:GeologicUnit/gsml:rank/gsml:CGI_TermValue/gsml:value = 'FORMATION'"
  const page = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:MappedFeature', cql_filter: chained, count: 1, startIndex: 1 })
  t.match(page.body, 'numberMatched="3" numberReturned="1"', `${label0} page`)
  t.same(ids(page.body), ['mf2', 'gu.25678'], `${label0} page`)
  const last = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:MappedFeature', cql_filter: chained, count: 5, startIndex: 2 })
  t.match(last.body, 'numberMatched="3" numberReturned="1"', `${label0} last page`)
  t.same(ids(last.body), ['mf3', 'gu.25678'], `${label0} last page: the unit written whole again in a new document`)
  const hits = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', cql_filter: chained, resultType: 'hits' })
  t.match(hits.body, /numberOfFeatures="3"[^>]*\/>\n$/, `${label0} hits`)
}

t.test('filters on chained XPaths, computed values and client properties are evaluated on the built features', async (t) => {
  const app = await setup(t)
  await checkPostFilters(t, app, 'property files:')
  const res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:MappedFeature', cql_filter: "gsml:specification/gsml:GeologicUnit/gsml:colour = 'red'" })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'unknown attribute &quot;gsml:specification/gsml:GeologicUnit/gsml:colour&quot;')
})


t.test('the same mapping over PostGIS tables holding the same rows returns the same features', async (t) => {
  const props = await setup(t)
  const params = await postgisSources(t)
  const app = await setup(t, sourcesIn(params))
  await sameFeatures(t, props, app, FILTERS, ids)
  const page = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', maxFeatures: 2, startIndex: 2 })
  t.same([...page.body.matchAll(/<gsml:MappedFeature gml:id="([^"]+)"/g)].map((m) => m[1]), ['mf3', 'mf4'])
  validate(t, page.body, 'PostGIS page')
  for (const [typeName, q] of [['gsml:GeologicUnit', { count: 1, startIndex: 1 }], ['gsml:GeologicUnit', { count: 5, startIndex: 1, cql_filter: "gml:name LIKE '%Formation'" }],
    ['gsml:MappedFeature', { count: 2, startIndex: 1, cql_filter: "gml:name LIKE 'MERCIA%'" }], ['gsml:GeologicUnit', { resultType: 'hits', cql_filter: "gml:name LIKE '%Formation'" }]] as const) {
    const query = { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: typeName, ...q }
    const a = await wfs(props, query)
    const b = await wfs(app, query)
    t.equal(members(b.body), members(a.body), `a page or count of ${typeName} ${JSON.stringify(q)}: the same answer`)
  }
  await checkPostFilters(t, app, 'PostGIS:')
})

t.test('PostGIS pages start at their first feature and counts are counted in SQL: the rows before a page are never read', async (t) => {
  // Views whose first feature cannot be read (its name divides by zero when PostgreSQL computes it):
  // a page after it and a count never compute a name of the rows before the page.
  const params = await postgisSources(t, TABLES.replace('CREATE TABLE mappedfeature', 'CREATE TABLE mf_rows').replace('INSERT INTO mappedfeature', 'INSERT INTO mf_rows')
    .replace('CREATE TABLE geologicunit', 'CREATE TABLE gu_rows').replace('INSERT INTO geologicunit', 'INSERT INTO gu_rows') + `;
    CREATE VIEW mappedfeature AS SELECT id, CASE WHEN id = 'mf1' THEN (1 / (length(id) - 3))::text ELSE name END AS name, geologic_unit_id, shape FROM mf_rows;
    CREATE VIEW geologicunit AS SELECT row_id, id, CASE WHEN id = 'gu.25678' THEN (1 / (length(id) - 8))::text ELSE name END AS name, name_codespace, kind, rank FROM gu_rows`)
  const app = await setup(t, sourcesIn(params))
  const units = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:GeologicUnit', startIndex: 1 })
  t.equal(units.statusCode, 200, units.body.slice(0, 500))
  t.match(units.body, ' numberOfFeatures="2" ')
  t.same(ids(units.body), ['gu.25682', 'gu.25699'])
  t.match(units.body, '<gml:name codeSpace="urn:ietf:rfc:2141">Gunthorpe Formation</gml:name><gml:name codeSpace="urn:x-bgs:lexicon">-Py</gml:name><gml:name codeSpace="urn:x-bgs:lexicon">Yaughan Volcanic Group</gml:name>', 'the rows of the last unit grouped')
  validate(t, units.body, 'a page of units after the first')
  const features = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:MappedFeature', startIndex: 3 })
  t.match(features.body, 'numberMatched="4" numberReturned="1"')
  t.same(ids(features.body), ['mf4', 'gu.25682'])
  const hits = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:GeologicUnit', resultType: 'hits' })
  t.match(hits.body, /numberOfFeatures="3"[^>]*\/>\n$/)
})

t.test('the same mapping over a GeoPackage of the upload returns the same features', async (t) => {
  const props = await setup(t)
  const app = await overGeoPackage(t)
  await sameFeatures(t, props, app, [...FILTERS, ...POST_FILTERS], ids, { prefix: 'GeoPackage: ', validateAs: 'GeoPackage' })
  for (const q of [{ count: 1, startIndex: 1 }, { count: 2, startIndex: 1, cql_filter: "gml:name LIKE '%Formation'" }, { resultType: 'hits' }] as Array<Record<string, string | number>>) {
    const query = { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:GeologicUnit', ...q }
    t.equal(members((await wfs(app, query)).body), members((await wfs(props, query)).body), `GeoPackage page ${JSON.stringify(q)}`)
  }
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
  res = await putZip(app, 'gsml', 'tutorial', await fixtureZip('tutorial', sourcesIn(postgisParameters(await pgDatabase(t, { postgis: true })))), '?configure=all')
  t.equal(res.statusCode, 400)
  t.match(res.body, 'data store "datastore" cannot be read: sourceType mappedfeature: mappedfeature is not a table or view of the source')
  const list = await app.inject({ method: 'GET', url: `${REST}/workspaces/gsml/datastores.json`, headers: ADMIN })
  t.equal(list.body, '{"dataStores":""}', 'nothing was created')
})
