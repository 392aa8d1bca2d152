// What a WFS query asks of an app-schema type beyond its filter, as GeoServer's app-schema reads it:
// propertyName (the named properties and those the target schema requires), sortBy on XPaths mapped
// to a source column, srsName (the mapped geometry reprojected), the BBOX parameter, the
// GetFeatureById stored query and GetPropertyValue; targetAttributeNode; and the mapped types as map
// layers (WMS GetMap draws those whose mapping maps a geometry). The same answers over property files
// and over PostGIS tables (and a GeoPackage) holding the same rows; GML answers validate with xmllint.
import t from 'tap'
import type { Test } from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { ADMIN, BASE } from '../../helper.js'
import { FIXTURES } from './helpers.js'
import { members, overGeoPackage, postgisSources, setup, sourcesIn, validate, wfs } from './serving-helpers.js'
import { at, pixels } from '../wms/helpers.js'

const ids = (body: string) => [...body.matchAll(/<gsml:(?:MappedFeature|GeologicUnit) gml:id="([^"]+)"/g)].map((m) => m[1])
const featureIds = (body: string, el: string) => [...body.matchAll(new RegExp(`<gsml:${el} gml:id="([^"]+)"`, 'g'))].map((m) => m[1])
/** The tutorial over PostGIS tables holding its rows. */
const overPostgis = async (t: Test): Promise<FastifyInstance> => {
  const params = await postgisSources(t)
  return await setup(t, sourcesIn(params))
}

t.test('propertyName keeps the properties named and those the target schema requires', async (t) => {
  const app = await setup(t)
  // gsml:purpose is mandatory (minOccurs 1), gsml:rank is not: asking for gml:name drops the rank only.
  let res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:GeologicUnit', propertyName: 'gml:name' })
  t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
  t.match(res.body, '<gsml:GeologicUnit gml:id="gu.25678"><gml:name codeSpace="urn:ietf:rfc:2141">Clifton Formation</gml:name><gml:name codeSpace="urn:x-bgs:lexicon">-Tr2</gml:name><gsml:purpose>instance</gsml:purpose></gsml:GeologicUnit>')
  t.notMatch(res.body, 'gsml:rank')
  validate(t, res.body, 'propertyName gml:name')
  // MappedFeature's own properties are all mandatory: asking for the shape drops gml:name alone.
  res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', propertyName: 'gsml:shape' })
  t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
  t.notMatch(res.body, '<gml:name>GUNTHORPE FORMATION</gml:name>')
  t.match(res.body, /<gsml:MappedFeature gml:id="mf1"><gsml:observationMethod>.*<\/gsml:observationMethod><gsml:specification><gsml:GeologicUnit gml:id="gu.25699">.*<gsml:rank>.*<\/gsml:specification><gsml:shape><gml:Polygon/)
  validate(t, res.body, 'propertyName gsml:shape')
  // A chained feature asked for below its property keeps what was asked of it (and what it requires).
  res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', propertyName: 'gsml:specification/gsml:GeologicUnit/gml:name' })
  t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
  t.match(res.body, '<gsml:specification><gsml:GeologicUnit gml:id="gu.25682"><gml:name codeSpace="urn:ietf:rfc:2141">Mercia Mudstone Group</gml:name><gsml:purpose>typicalNorm</gsml:purpose></gsml:GeologicUnit></gsml:specification>')
  t.notMatch(res.body, 'gsml:rank')
  validate(t, res.body, 'propertyName into the chained feature')
  res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:MappedFeature', propertyName: 'gsml:colour' })
  t.equal(res.statusCode, 400)
  t.match(res.body, /locator="propertyName">\s*<ows:ExceptionText>Invalid propertyName &quot;gsml:colour&quot;: gsml:MappedFeature maps gml:name, gsml:observationMethod\/gsml:CGI_TermValue\/gsml:value, gsml:specification, gsml:shape/)
})

t.test('sortBy orders by the source column of a mapped XPath; an XPath that is no column is refused by name', async (t) => {
  const app = await setup(t)
  let res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:MappedFeature', sortBy: 'gml:name DESC' })
  t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
  t.same(featureIds(res.body, 'MappedFeature'), ['mf2', 'mf4', 'mf1', 'mf3'], 'names descending, ties by id')
  res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', sortBy: 'gml:name', maxFeatures: 2, startIndex: 1 })
  t.same(featureIds(res.body, 'MappedFeature'), ['mf1', 'mf2'], 'a page of the sorted features')
  validate(t, res.body, 'sorted page')
  // A denormalised unit sorts by the first of its rows in that order, and stays one feature.
  res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:GeologicUnit', sortBy: 'gml:name' })
  t.same(featureIds(res.body, 'GeologicUnit'), ['gu.25699', 'gu.25678', 'gu.25682'])
  t.match(res.body, ' numberOfFeatures="3" ')
  validate(t, res.body, 'sorted denormalised units')
  res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:GeologicUnit', sortBy: 'gsml:purpose' })
  t.equal(res.statusCode, 400)
  t.match(res.body, /locator="sortBy">\s*<ows:ExceptionText>Invalid sortBy &quot;gsml:purpose&quot;: not mapped to a source column; gsml:GeologicUnit sorts by gml:name</)
  res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:MappedFeature', sortBy: 'gsml:shape' })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'Invalid sortBy &quot;gsml:shape&quot;: not mapped to a source column; gsml:MappedFeature sorts by gml:name')
  // A chained feature's XPath: no column of the mapping's own source either.
  res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:MappedFeature', sortBy: 'gsml:specification/gsml:GeologicUnit/gml:name' })
  t.equal(res.statusCode, 400)
  t.match(res.body, /locator="sortBy">\s*<ows:ExceptionText>Invalid sortBy &quot;gsml:specification\/gsml:GeologicUnit\/gml:name&quot;: not mapped to a source column; gsml:MappedFeature sorts by gml:name</)
})

t.test('sortBy combines with SQL pages, filters evaluated after the read and propertyName: property files, PostGIS and a GeoPackage alike', async (t) => {
  const sources: Array<[string, FastifyInstance]> = [['property files', await setup(t)], ['PostGIS', await overPostgis(t)], ['GeoPackage', await overGeoPackage(t)]]
  const rankFormation = "gsml:rank/gsml:CGI_TermValue/gsml:value = 'FORMATION'"
  // [label, query, the features' ids in order, numberMatched, text the answer must not hold]
  const cases: Array<[string, Record<string, string | number>, string[], number, string?]> = [
    // A unit sorts at the first of its rows in the order asked (ascending: -Py, -Tr2, Mercia...).
    ['a page of denormalised units, ascending', { typeNames: 'gsml:GeologicUnit', sortBy: 'gml:name', count: 1, startIndex: 1 }, ['gu.25678'], 3],
    // Descending: Yaughan (gu.25699), Mercia (gu.25682), Clifton (gu.25678).
    ['a page of denormalised units, descending', { typeNames: 'gsml:GeologicUnit', sortBy: 'gml:name DESC', count: 2, startIndex: 1 }, ['gu.25682', 'gu.25678'], 3],
    ['a page of denormalised units with a filter in SQL', { typeNames: 'gsml:GeologicUnit', sortBy: 'gml:name DESC', cql_filter: "gml:name LIKE '%Formation'", count: 1, startIndex: 1 }, ['gu.25678'], 2],
    ['a page of one-row features', { typeNames: 'gsml:MappedFeature', sortBy: 'gml:name DESC', count: 2, startIndex: 1 }, ['mf4', 'mf1'], 4],
    ['a page of features with a filter after the read (on the chained units)', { typeNames: 'gsml:MappedFeature', sortBy: 'gml:name DESC', cql_filter: `gsml:specification/gsml:GeologicUnit/${rankFormation}`, count: 2, startIndex: 1 }, ['mf1', 'mf3'], 3],
    ['the same, propertyName leaving out the property sorted by', { typeNames: 'gsml:MappedFeature', sortBy: 'gml:name DESC', propertyName: 'gsml:shape', cql_filter: `gsml:specification/gsml:GeologicUnit/${rankFormation}`, count: 2, startIndex: 1 }, ['mf1', 'mf3'], 3, '<gml:name>'],
    ['propertyName leaving out the property a filter after the read tests', { typeNames: 'gsml:GeologicUnit', sortBy: 'gml:name DESC', propertyName: 'gml:name', cql_filter: rankFormation }, ['gu.25699', 'gu.25678'], 2, 'gsml:rank']
  ]
  for (const [label, q, want, matched, absent] of cases) {
    const answers: string[] = []
    for (const [source, app] of sources) {
      const res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', ...q })
      t.equal(res.statusCode, 200, `${source}: ${label}: ${res.statusCode === 200 ? 'ok' : res.body}`)
      t.same(featureIds(res.body, String(q.typeNames).slice(5)), want, `${source}: ${label}`)
      t.match(res.body, `numberMatched="${matched}" numberReturned="${want.length}"`, `${source}: ${label}`)
      if (absent) t.notMatch(res.body, absent, `${source}: ${label}: not written`)
      answers.push(members(res.body))
    }
    t.equal(answers[1], answers[0], `PostGIS: ${label}: the same answer`)
    t.equal(answers[2], answers[0], `GeoPackage: ${label}: the same answer`)
  }
  const res = await wfs(sources[1][1], { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:GeologicUnit', sortBy: 'gml:name DESC', maxFeatures: 2, startIndex: 1 })
  validate(t, res.body, 'PostGIS: a sorted page of units')
})

// Web Mercator metres of a longitude / latitude.
const mx = (lon: number) => lon * 6378137 * Math.PI / 180
const my = (lat: number) => 6378137 * Math.log(Math.tan(Math.PI / 4 + lat * Math.PI / 360))
const firstPos = (body: string) => /<gml:posList>([^<]+)<\/gml:posList>/.exec(body)![1].split(' ').slice(0, 2).map(Number)

t.test('srsName reprojects the mapped geometry; the BBOX parameter selects by it, in its CRS and axis order', async (t) => {
  const app = await setup(t)
  let res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', featureId: 'mf1', srsName: 'EPSG:3857' })
  t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
  t.match(res.body, '<gml:Polygon srsName="EPSG:3857" srsDimension="2">')
  const [x, y] = firstPos(res.body)
  t.ok(Math.abs(x - mx(-1.2)) < 0.01 && Math.abs(y - my(52.5)) < 0.01, `(-1.2, 52.5) in metres: ${x} ${y}`)
  validate(t, res.body, 'srsName EPSG:3857')
  res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', featureId: 'mf1', srsName: 'urn:ogc:def:crs:EPSG::4326' })
  t.match(res.body, '<gml:Polygon srsName="urn:ogc:def:crs:EPSG::4326" srsDimension="2"><gml:exterior><gml:LinearRing><gml:posList>52.5 -1.2 52.6 -1.2')
  // BBOX without a CRS: the type's (EPSG:4326, latitude first in 1.1.0); with one: that CRS's order.
  for (const bbox of ['52.45,-1.35,52.65,-1.25', '-1.35,52.45,-1.25,52.65,EPSG:4326', `${mx(-1.35)},${my(52.45)},${mx(-1.25)},${my(52.65)},EPSG:3857`]) {
    res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', bbox })
    t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
    t.same(featureIds(res.body, 'MappedFeature'), ['mf2', 'mf4'], `bbox ${bbox}`)
    t.match(res.body, ' numberOfFeatures="2" ')
  }
  validate(t, res.body, 'BBOX parameter')
  res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:GeologicUnit', bbox: '52,-2,53,-1' })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'gsml:GeologicUnit maps no geometry')
})

t.test('GetFeatureById answers the feature itself; GetPropertyValue the values at a mapped XPath', async (t) => {
  const app = await setup(t)
  // A mapped feature's gml:id names no type (mf4, gu.25678): the request names it.
  let res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', storedQuery_id: 'urn:ogc:def:query:OGC-WFS::GetFeatureById', typeNames: 'gsml:MappedFeature', id: 'mf4' })
  t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
  t.match(res.body, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<gsml:MappedFeature xmlns:xsi="http:\/\/www.w3.org\/2001\/XMLSchema-instance" xmlns:xlink="http:\/\/www.w3.org\/1999\/xlink" xmlns:gsml="urn:cgi:xmlns:CGI:GeoSciML:2.0" xmlns:gml="http:\/\/www.opengis.net\/gml" gml:id="mf4"><gml:name>MERCIA MUDSTONE GROUP<\/gml:name>/)
  t.match(res.body, '<gsml:GeologicUnit gml:id="gu.25682">')
  validate(t, res.body, 'GetFeatureById')
  res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', storedQuery_id: 'urn:ogc:def:query:OGC-WFS::GetFeatureById', typeNames: 'gsml:MappedFeature', id: 'mf9' })
  t.equal(res.statusCode, 404)
  t.match(res.body, 'Could not find feature with id mf9')

  res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetPropertyValue', typeNames: 'gsml:MappedFeature', valueReference: 'gml:name' })
  t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
  t.match(res.body, 'numberMatched="4" numberReturned="4"')
  t.same([...res.body.matchAll(/<wfs:member>([^<]*)<\/wfs:member>/g)].map((m) => m[1]), ['GUNTHORPE FORMATION', 'MERCIA MUDSTONE GROUP', 'CLIFTON FORMATION', 'MERCIA MUDSTONE GROUP'])
  res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetPropertyValue', typeNames: 'gsml:MappedFeature', valueReference: 'gsml:specification', count: 3 })
  t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
  // A unit met again is a reference to its first appearance in the document.
  t.same(res.body.split('\n').filter((l) => l.startsWith('<wfs:member')).map((l) => /gml:id="([^"]+)"|xlink:href="([^"]+)"/.exec(l)!.slice(1).find((v) => v)),
    ['gu.25699', 'gu.25678', '#gu.25678'])
  res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetPropertyValue', typeNames: 'gsml:MappedFeature', valueReference: 'gsml:shape', featureId: 'mf2' })
  t.match(res.body, '<wfs:member><gml:Polygon srsName="urn:x-ogc:def:crs:EPSG:4326" srsDimension="2"><gml:exterior><gml:LinearRing><gml:posList>52.5 -1.3 ')
  res = await wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetPropertyValue', typeNames: 'gsml:MappedFeature', valueReference: 'gsml:specification/gsml:GeologicUnit/gml:name' })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'reaches into the chained feature of gsml:specification: ask for gsml:specification itself')
})

t.test('targetAttributeNode names the type a property is encoded with', async (t) => {
  // A property of no fixed type (xs:anyType) in an edited copy of the target schema, mapped with
  // targetAttributeNode gml:CodeType: written with xsi:type, valid against the schema.
  const schema = (s: string) => s.replace('<xs:element name="rank" type="gsml:CGI_TermValuePropertyType" minOccurs="0"/>',
    '<xs:element name="rank" type="gsml:CGI_TermValuePropertyType" minOccurs="0"/><xs:element name="rankValue" type="xs:anyType" minOccurs="0"/>')
  const app = await setup(t, {
    'schemas/gsml.xsd': schema,
    'mappedfeature.appschema': (s) => s.replace('<targetAttribute>FEATURE_LINK</targetAttribute>',
      '<targetAttribute>gsml:rankValue</targetAttribute><targetAttributeNode>gml:CodeType</targetAttributeNode><sourceExpression><OCQL>RANK</OCQL></sourceExpression>' +
      '<ClientProperty><name>codeSpace</name><value>\'urn:x-bgs:rank\'</value></ClientProperty></AttributeMapping><AttributeMapping><targetAttribute>FEATURE_LINK</targetAttribute>')
  })
  const res = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:GeologicUnit' })
  t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
  t.match(res.body, '<gsml:rank><gsml:CGI_TermValue><gsml:value>FORMATION</gsml:value></gsml:CGI_TermValue></gsml:rank><gsml:rankValue codeSpace="urn:x-bgs:rank" xsi:type="gml:CodeType">formation</gsml:rankValue></gsml:GeologicUnit>')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-appschema-xsd-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  fs.writeFileSync(path.join(dir, 'gsml.xsd'), schema(fs.readFileSync(path.join(FIXTURES, 'tutorial', 'schemas', 'gsml.xsd'), 'utf8')))
  validate(t, res.body, 'targetAttributeNode', path.join(dir, 'gsml.xsd'))
})

t.test('over PostGIS: the same answers, and the tables\' CRS and bounds in the capabilities', async (t) => {
  const props = await setup(t)
  const app = await overPostgis(t)
  const queries: Array<Record<string, string | number>> = [
    { version: '1.1.0', request: 'GetFeature', typeName: 'gsml:GeologicUnit', propertyName: 'gml:name' },
    { version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', propertyName: 'gsml:specification/gsml:GeologicUnit/gml:name' },
    { version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:MappedFeature', sortBy: 'gml:name DESC' },
    { version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', sortBy: 'gml:name', maxFeatures: 2, startIndex: 1 },
    { version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', srsName: 'EPSG:3857' },
    { version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature', bbox: '52.45,-1.35,52.65,-1.25' },
    { version: '2.0.0', request: 'GetFeature', storedQuery_id: 'urn:ogc:def:query:OGC-WFS::GetFeatureById', typeNames: 'gsml:MappedFeature', id: 'mf4' },
    { version: '2.0.0', request: 'GetPropertyValue', typeNames: 'gsml:MappedFeature', valueReference: 'gsml:specification' }
  ]
  for (const q of queries) {
    const a = await wfs(props, { service: 'WFS', ...q })
    const b = await wfs(app, { service: 'WFS', ...q })
    t.equal(b.statusCode, 200, b.statusCode === 200 ? 'ok' : b.body)
    t.equal(members(b.body), members(a.body), JSON.stringify(q))
    t.ok(ids(b.body).length > 0 || b.body.includes('<wfs:member'), `${JSON.stringify(q)}: features`)
    if (q.version === '1.1.0') validate(t, b.body, `PostGIS ${JSON.stringify(q)}`)
  }
  // The upload read the tables' SRID and extent, as it reads a property file's.
  const caps = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetCapabilities' })
  t.match(caps.body, /<wfs:Name>gsml:MappedFeature<\/wfs:Name>[\s\S]*?<wfs:DefaultSRS>urn:x-ogc:def:crs:EPSG:4326<\/wfs:DefaultSRS>[\s\S]*?<ows:LowerCorner>-1.3 52.5<\/ows:LowerCorner><ows:UpperCorner>-1.1 52.6<\/ows:UpperCorner>/)
  const ft = await app.inject({ url: `${BASE}/rest/workspaces/gsml/datastores/tutorial/featuretypes/MappedFeature.json`, headers: ADMIN })
  t.equal(ft.statusCode, 200, ft.body)
  t.match(ft.json().featureType, { srs: 'EPSG:4326', latLonBoundingBox: { minx: -1.3, maxx: -1.1, miny: 52.5, maxy: 52.6 } })
})

/** A GetMap of the tutorial's area: 400x300 pixels of lon -1.4..-1.0, lat 52.4..52.7 (a pixel is 0.001 degree). */
const getMap = async (app: FastifyInstance, layers: string, extra: Record<string, string> = {}) => app.inject({
  url: `${BASE}/wms?${new URLSearchParams({ service: 'WMS', version: '1.1.1', request: 'GetMap', layers, styles: '', srs: 'EPSG:4326', bbox: '-1.4,52.4,-1.0,52.7', width: '400', height: '300', format: 'image/png', transparent: 'true', ...extra })}`,
  headers: ADMIN
})
const px = (lon: number, lat: number) => [Math.round((lon + 1.4) * 1000), Math.round((52.7 - lat) * 1000)] as const
const RED_BY_NAME = `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld" xmlns:ogc="http://www.opengis.net/ogc">
<NamedLayer><Name>gsml:MappedFeature</Name><UserStyle><Name>s</Name><FeatureTypeStyle>
<Rule><ogc:Filter><ogc:PropertyIsEqualTo><ogc:PropertyName>gml:name</ogc:PropertyName><ogc:Literal>CLIFTON FORMATION</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter>
<PolygonSymbolizer><Fill><CssParameter name="fill">#ff0000</CssParameter></Fill></PolygonSymbolizer></Rule>
<Rule><ElseFilter/><PolygonSymbolizer><Fill><CssParameter name="fill">#0000ff</CssParameter></Fill></PolygonSymbolizer></Rule>
</FeatureTypeStyle></UserStyle></NamedLayer></StyledLayerDescriptor>`

for (const source of ['property files', 'PostGIS']) {
  t.test(`WMS draws a mapped type that maps a geometry, where its features are (${source}); one without is no map layer`, async (t) => {
    const app = source === 'PostGIS' ? await overPostgis(t) : await setup(t)
    const caps = await app.inject({ url: `${BASE}/wms?service=WMS&version=1.3.0&request=GetCapabilities` })
    t.match(caps.body, '<Name>gsml:MappedFeature</Name>')
    t.notMatch(caps.body, '<Name>gsml:GeologicUnit</Name>')
    // The default style: the polygons drawn, the area outside them left transparent.
    let res = await getMap(app, 'gsml:MappedFeature')
    t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
    t.equal(res.headers['content-type'], 'image/png')
    let img = await pixels(res.rawPayload)
    t.ok(at(img, ...px(-1.15, 52.55))[3] > 0, 'mf1 and mf3 drawn')
    t.ok(at(img, ...px(-1.25, 52.55))[3] > 0, 'mf2 and mf4 drawn')
    t.equal(at(img, ...px(-1.35, 52.45))[3], 0, 'nothing south-west of them')
    t.equal(at(img, ...px(-1.05, 52.65))[3], 0, 'nothing north-east of them')
    // A style's rule on a mapped XPath: mf3 (CLIFTON FORMATION, drawn over mf1) red, the others blue.
    res = await getMap(app, 'gsml:MappedFeature', { sld_body: RED_BY_NAME })
    t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
    img = await pixels(res.rawPayload)
    t.same(at(img, ...px(-1.15, 52.55)), [255, 0, 0, 255], 'mf3 red, by its gml:name')
    t.same(at(img, ...px(-1.25, 52.55)), [0, 0, 255, 255], 'mf2/mf4 blue')
    t.same(at(img, ...px(-1.35, 52.45)), [0, 0, 0, 0], 'outside transparent')
    // GetFeatureInfo reads the same features: those under the pixel, with their mapped properties.
    const [i, j] = px(-1.25, 52.55)
    res = await getMap(app, 'gsml:MappedFeature', { request: 'GetFeatureInfo', query_layers: 'gsml:MappedFeature', info_format: 'application/json', x: String(i), y: String(j), feature_count: '10' })
    t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
    t.same(res.json().features.map((f: { id: string, properties: Record<string, unknown> }) => [f.id, f.properties.name]).sort(), [['MappedFeature.mf2', 'MERCIA MUDSTONE GROUP'], ['MappedFeature.mf4', 'MERCIA MUDSTONE GROUP']])
    // A type whose mapping maps no geometry is no map layer.
    res = await getMap(app, 'gsml:GeologicUnit')
    t.equal(res.statusCode, 404)
    t.match(res.headers['content-type'], 'application/vnd.ogc.se_xml')
    t.match(res.body, 'LayerNotDefined')
  })
}

t.test('the admin page lists app-schema feature types with their target element and source', async (t) => {
  const app = await setup(t)
  const vector = await app.inject({ url: `${BASE}/web/vector-layers.json`, headers: ADMIN })
  t.same(vector.json(), { layers: [] }, 'not among the vector stores\' layers')
  const res = await app.inject({ url: `${BASE}/web/app-schema.json`, headers: ADMIN })
  t.equal(res.statusCode, 200, res.statusCode === 200 ? 'ok' : res.body)
  t.same(res.json(), {
    stores: [{
      workspace: 'gsml',
      store: 'tutorial',
      enabled: true,
      featureTypes: [
        { name: 'gsml:MappedFeature', targetElement: 'gsml:MappedFeature', sourceDataStore: 'datastore', sourceType: 'mappedfeature', dbtype: 'properties', geometry: 'gsml:shape', srs: 'EPSG:4326', bbox: [-1.3, 52.5, -1.1, 52.6] },
        { name: 'gsml:GeologicUnit', targetElement: 'gsml:GeologicUnit', sourceDataStore: 'datastore', sourceType: 'geologicunit', dbtype: 'properties', geometry: null, srs: null, bbox: null }
      ]
    }]
  })
})
