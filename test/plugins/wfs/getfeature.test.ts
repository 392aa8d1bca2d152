// WFS GetFeature through HTTP against a real PostGIS database: GeoJSON as GeoServer writes it, GML
// 3.2 / 3.1.1 / 2 with each version's CRS names and axis order, CSV, the three filter languages
// (CQL_FILTER, FES 2.0 and Filter 1.1 XML), BBOX in each CRS form, resource ids, paging with sortBy
// and next/previous links, resultType=hits, srsName reprojection, propertyName, POST XML,
// GetPropertyValue, the GetFeatureById stored query, the /ows and per-workspace endpoints, and a
// result read in many cursor batches (the store's fetch size is 2).
import t from 'tap'
import pg from 'pg'
import { BASE } from '../../helper.js'
import { lonToX, latToY, transformBbox } from '../../../services/render/crs.js'
import { wfsGet, wfsPost, wfsSetup } from './helpers.js'

const { app, url: dbUrl } = await wfsSetup(t)

const W20 = { service: 'WFS', version: '2.0.0', request: 'GetFeature' }
const W11 = { service: 'WFS', version: '1.1.0', request: 'GetFeature' }
const W10 = { service: 'WFS', version: '1.0.0', request: 'GetFeature' }
const json = async (params: Record<string, string | number>) => {
  const r = await wfsGet(app, { ...W20, outputFormat: 'application/json', ...params })
  if (r.statusCode !== 200) throw new Error(`${r.statusCode} ${r.body}`)
  return JSON.parse(r.body)
}
const ids = async (params: Record<string, string | number>) => (await json(params)).features.map((f: { id: string }) => f.id)
const gmlIds = (body: string) => [...body.matchAll(/gml:id="(places\.\d+)"/g)].map((m) => m[1])

t.test('GeoJSON: the FeatureCollection GeoServer writes (ids <type>.<key>, geometry_name, totals, crs)', async (t) => {
  const r = await wfsGet(app, { ...W20, typeNames: 'vx:places', outputFormat: 'application/json' })
  t.equal(r.statusCode, 200)
  t.equal(r.headers['content-type'], 'application/json;charset=UTF-8')
  const body = JSON.parse(r.body)
  t.match(body.timeStamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
  delete body.timeStamp
  t.same(body, {
    type: 'FeatureCollection',
    features: [
      { type: 'Feature', id: 'places.1', geometry: { type: 'Point', coordinates: [-10, -5] }, geometry_name: 'geom', properties: { name: 'Alpha', pop: 100, area: 1.5, founded: '1900-01-01Z', capital: true } },
      { type: 'Feature', id: 'places.2', geometry: { type: 'Point', coordinates: [20, 15] }, geometry_name: 'geom', properties: { name: 'Beta', pop: 200, area: 2.5, founded: '1950-06-30Z', capital: false } },
      { type: 'Feature', id: 'places.3', geometry: { type: 'Point', coordinates: [5, 40] }, geometry_name: 'geom', properties: { name: 'Gamma', pop: null, area: null, founded: null, capital: null } },
      { type: 'Feature', id: 'places.4', geometry: { type: 'Point', coordinates: [0.5, 0.25] }, geometry_name: 'geom', properties: { name: 'Del "ta" & <co>', pop: 300, area: 0.25, founded: '2000-02-29Z', capital: false } }
    ],
    totalFeatures: 4,
    numberMatched: 4,
    numberReturned: 4,
    crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::4326' } }
  })
  // Every name GeoServer takes for GeoJSON.
  for (const f of ['json', 'application/geo+json']) t.equal((await json({ typeNames: 'vx:places', outputFormat: f })).numberReturned, 4, f)
  // Lines and multipolygons, a bigint key, a numeric value as a number.
  const parcels = await json({ typeNames: 'vx:parcels' })
  t.same(parcels.features[0], { type: 'Feature', id: 'parcels.1', geometry: { type: 'MultiPolygon', coordinates: [[[[1, 2], [1, 4], [3, 4], [3, 2], [1, 2]]]] }, geometry_name: 'geom', properties: { value: 12.5 } })
})

t.test('GML 3.2 (2.0.0\'s default): members, gml:id, urn CRS with latitude first, numberMatched/numberReturned', async (t) => {
  const r = await wfsGet(app, { ...W20, typeNames: 'vx:places', count: 2 })
  t.equal(r.statusCode, 200)
  t.equal(r.headers['content-type'], 'application/gml+xml; version=3.2')
  t.match(r.body, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<wfs:FeatureCollection [^>]*xmlns:wfs="http:\/\/www.opengis.net\/wfs\/2.0" xmlns:gml="http:\/\/www.opengis.net\/gml\/3.2" xmlns:vx="http:\/\/mapwarden.org\/ns\/vx" numberMatched="4" numberReturned="2" timeStamp="[^"]+Z"/)
  t.ok(r.body.includes('<wfs:member><vx:places gml:id="places.1"><vx:name>Alpha</vx:name><vx:pop>100</vx:pop><vx:area>1.5</vx:area><vx:founded>1900-01-01</vx:founded><vx:capital>true</vx:capital>' +
    '<vx:geom><gml:Point gml:id="places.1.geom" srsName="urn:ogc:def:crs:EPSG::4326" srsDimension="2"><gml:pos>-5 -10</gml:pos></gml:Point></vx:geom></vx:places></wfs:member>'), r.body)
  t.match(r.body, / next="http:\/\/localhost:80\/geoserver\/wfs\?[^"]*startIndex=2"/)
  t.notMatch(r.body, / previous=/)
  t.ok(r.body.trimEnd().endsWith('</wfs:FeatureCollection>'))
  // Text is escaped; null attributes are left out.
  const all = await wfsGet(app, { ...W20, typeNames: 'vx:places' })
  t.ok(all.body.includes('<vx:name>Del &quot;ta&quot; &amp; &lt;co&gt;</vx:name>'))
  t.ok(all.body.includes('<vx:places gml:id="places.3"><vx:name>Gamma</vx:name><vx:geom>'))
  // MultiPolygon as GeoServer's GML3 writes it: MultiSurface of Polygons.
  const parcels = await wfsGet(app, { ...W20, typeNames: 'vx:parcels' })
  t.ok(parcels.body.includes('<gml:MultiSurface gml:id="parcels.1.geom" srsName="urn:ogc:def:crs:EPSG::4326" srsDimension="2"><gml:surfaceMember><gml:Polygon gml:id="parcels.1.geom.1"><gml:exterior><gml:LinearRing><gml:posList>2 1 4 1 4 3 2 3 2 1</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></gml:surfaceMember></gml:MultiSurface>'), parcels.body)
})

t.test('GML 3.1.1 (1.1.0\'s default) and GML 2 (1.0.0\'s): their CRS names and axis orders', async (t) => {
  const r11 = await wfsGet(app, { ...W11, typeName: 'vx:places', maxFeatures: 1 })
  t.equal(r11.statusCode, 200)
  t.equal(r11.headers['content-type'], 'text/xml; subtype=gml/3.1.1')
  t.match(r11.body, /<wfs:FeatureCollection [^>]*xmlns:wfs="http:\/\/www.opengis.net\/wfs" xmlns:gml="http:\/\/www.opengis.net\/gml" [^>]*numberOfFeatures="1"/)
  t.ok(r11.body.includes('<gml:featureMembers>\n<vx:places gml:id="places.1"><vx:name>Alpha</vx:name>'))
  t.ok(r11.body.includes('<gml:Point srsName="urn:x-ogc:def:crs:EPSG:4326" srsDimension="2"><gml:pos>-5 -10</gml:pos></gml:Point>'), r11.body)
  const r10 = await wfsGet(app, { ...W10, typeName: 'vx:places', maxFeatures: 1 })
  t.equal(r10.headers['content-type'], 'text/xml; subtype=gml/2.1.2')
  t.ok(r10.body.includes('<gml:featureMember><vx:places fid="places.1"><vx:name>Alpha</vx:name>'))
  t.ok(r10.body.includes('<gml:Point srsName="http://www.opengis.net/gml/srs/epsg.xml#4326"><gml:coordinates xmlns:gml="http://www.opengis.net/gml" decimal="." cs="," ts=" ">-10,-5</gml:coordinates></gml:Point>'), r10.body)
  // Any version takes any format by name.
  const gml2 = await wfsGet(app, { ...W20, typeNames: 'vx:roads', outputFormat: 'GML2' })
  t.ok(gml2.body.includes('<gml:LineString srsName="http://www.opengis.net/gml/srs/epsg.xml#3857"><gml:coordinates xmlns:gml="http://www.opengis.net/gml" decimal="." cs="," ts=" ">0,0 1113194.9079327357,1118889.9748579594</gml:coordinates></gml:LineString>'), gml2.body)
  const gml3 = await wfsGet(app, { ...W10, typeName: 'vx:places', outputFormat: 'text/xml; subtype=gml/3.1.1', maxFeatures: 1 })
  t.equal(gml3.headers['content-type'], 'text/xml; subtype=gml/3.1.1')
})

t.test('CSV: FID, the attributes, the geometry as WKT, quoted where needed', async (t) => {
  const r = await wfsGet(app, { ...W20, typeNames: 'vx:places', outputFormat: 'csv' })
  t.equal(r.statusCode, 200)
  t.equal(r.headers['content-type'], 'text/csv;charset=UTF-8')
  t.equal(r.headers['content-disposition'], 'attachment; filename=places.csv')
  t.equal(r.body, [
    'FID,name,pop,area,founded,capital,geom',
    'places.1,Alpha,100,1.5,1900-01-01,true,POINT (-10 -5)',
    'places.2,Beta,200,2.5,1950-06-30,false,POINT (20 15)',
    'places.3,Gamma,,,,,POINT (5 40)',
    'places.4,"Del ""ta"" & <co>",300,0.25,2000-02-29,false,POINT (0.5 0.25)',
    ''
  ].join('\r\n'))
})

t.test('filters: CQL_FILTER, FES 2.0 and Filter 1.1 XML select the same features', async (t) => {
  t.same(await ids({ typeNames: 'vx:places', cql_filter: 'pop > 150 AND name LIKE \'%e%\'' }), ['places.2', 'places.4'])
  t.same(await ids({ typeNames: 'vx:places', cql_filter: 'pop IS NULL' }), ['places.3'])
  t.same(await ids({ typeNames: 'vx:places', cql_filter: 'BBOX(geom, -11, -6, 1, 1)' }), ['places.1', 'places.4'])
  const fes = '<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0"><fes:And><fes:PropertyIsGreaterThanOrEqualTo><fes:ValueReference>pop</fes:ValueReference><fes:Literal>200</fes:Literal></fes:PropertyIsGreaterThanOrEqualTo>' +
    '<fes:Not><fes:PropertyIsEqualTo matchCase="false"><fes:ValueReference>vx:name</fes:ValueReference><fes:Literal>BETA</fes:Literal></fes:PropertyIsEqualTo></fes:Not></fes:And></fes:Filter>'
  t.same(await ids({ typeNames: 'vx:places', filter: fes }), ['places.4'])
  const ogc = '<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc"><ogc:Or><ogc:PropertyIsLike wildCard="*" singleChar="?" escapeChar="\\"><ogc:PropertyName>name</ogc:PropertyName><ogc:Literal>?lph*</ogc:Literal></ogc:PropertyIsLike>' +
    '<ogc:PropertyIsBetween><ogc:PropertyName>area</ogc:PropertyName><ogc:LowerBoundary><ogc:Literal>0.1</ogc:Literal></ogc:LowerBoundary><ogc:UpperBoundary><ogc:Literal>0.3</ogc:Literal></ogc:UpperBoundary></ogc:PropertyIsBetween></ogc:Or></ogc:Filter>'
  const r = await wfsGet(app, { ...W11, typeName: 'vx:places', filter: ogc })
  t.equal(r.statusCode, 200, r.body)
  t.same(gmlIds(r.body), ['places.1', 'places.4'])
  // Literal first, property second: the same comparison.
  const reversed = '<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0"><fes:PropertyIsLessThan><fes:Literal>150</fes:Literal><fes:ValueReference>pop</fes:ValueReference></fes:PropertyIsLessThan></fes:Filter>'
  t.same(await ids({ typeNames: 'vx:places', filter: reversed }), ['places.2', 'places.4'])
  // An FES BBOX in each CRS form: urn (latitude first) and EPSG:4326 (longitude first), and in EPSG:3857.
  const env = (srs: string, lower: string, upper: string) => `<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2"><fes:BBOX><fes:ValueReference>geom</fes:ValueReference><gml:Envelope srsName="${srs}"><gml:lowerCorner>${lower}</gml:lowerCorner><gml:upperCorner>${upper}</gml:upperCorner></gml:Envelope></fes:BBOX></fes:Filter>`
  t.same(await ids({ typeNames: 'vx:places', filter: env('urn:ogc:def:crs:EPSG::4326', '-6 -11', '-4 -9') }), ['places.1'])
  t.same(await ids({ typeNames: 'vx:places', filter: env('EPSG:4326', '-11 -6', '-9 -4') }), ['places.1'])
  t.same(await ids({ typeNames: 'vx:places', filter: env('EPSG:3857', `${lonToX(19)} ${latToY(14)}`, `${lonToX(21)} ${latToY(16)}`) }), ['places.2'])
  // A filter on a table in another CRS, with ids: fes:ResourceId.
  const rid = '<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0"><fes:ResourceId rid="roads.2"/></fes:Filter>'
  t.same(await ids({ typeNames: 'vx:roads', filter: rid }), ['roads.2'])
})

t.test('BBOX: EPSG order for the urn and 2.0/1.1 defaults, easting first for EPSG:n and 1.0, other CRSs transformed', async (t) => {
  t.same(await ids({ typeNames: 'vx:places', bbox: '-6,-11,-4,-9' }), ['places.1'], '2.0.0 without a CRS: latitude first')
  t.same(await ids({ typeNames: 'vx:places', bbox: '-6,-11,-4,-9,urn:ogc:def:crs:EPSG::4326' }), ['places.1'])
  t.same(await ids({ typeNames: 'vx:places', bbox: '-11,-6,-9,-4,EPSG:4326' }), ['places.1'])
  t.same(await ids({ typeNames: 'vx:places', bbox: `${lonToX(4)},${latToY(39)},${lonToX(6)},${latToY(41)},EPSG:3857` }), ['places.3'])
  const r10 = await wfsGet(app, { ...W10, typeName: 'vx:places', bbox: '-11,-6,-9,-4' })
  t.match(r10.body, /fid="places.1"/)
  t.notMatch(r10.body, /fid="places.[234]"/)
  // A 3857 table asked with a lon/lat box.
  t.same(await ids({ typeNames: 'vx:roads', bbox: '-21,-1,-15,1,EPSG:4326' }), ['roads.2'])
})

t.test('EPSG:3035 (projected, northing first): the urn forms read northing first in a BBOX and write it in GML; EPSG:3035 easting first', async (t) => {
  // Gamma (5 40) inside a 3035 box around 4..6 E, 39..41 N.
  const [e0, n0, e1, n1] = transformBbox([4, 39, 6, 41], 'EPSG:4326', 'EPSG:3035')
  const env = (srs: string, lower: string, upper: string) => `<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2"><fes:BBOX><fes:ValueReference>geom</fes:ValueReference><gml:Envelope srsName="${srs}"><gml:lowerCorner>${lower}</gml:lowerCorner><gml:upperCorner>${upper}</gml:upperCorner></gml:Envelope></fes:BBOX></fes:Filter>`
  t.same(await ids({ typeNames: 'vx:places', filter: env('urn:ogc:def:crs:EPSG::3035', `${n0} ${e0}`, `${n1} ${e1}`) }), ['places.3'], 'FES 2.0 urn: northing first')
  t.same(await ids({ typeNames: 'vx:places', filter: env('http://www.opengis.net/def/crs/EPSG/0/3035', `${n0} ${e0}`, `${n1} ${e1}`) }), ['places.3'])
  t.same(await ids({ typeNames: 'vx:places', filter: env('EPSG:3035', `${e0} ${n0}`, `${e1} ${n1}`) }), ['places.3'], 'EPSG:n: easting first')
  const filter11 = `<ogc:Filter xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="http://www.opengis.net/gml"><ogc:BBOX><ogc:PropertyName>geom</ogc:PropertyName><gml:Envelope srsName="urn:x-ogc:def:crs:EPSG:3035"><gml:lowerCorner>${n0} ${e0}</gml:lowerCorner><gml:upperCorner>${n1} ${e1}</gml:upperCorner></gml:Envelope></ogc:BBOX></ogc:Filter>`
  t.same(await ids({ version: '1.1.0', typeName: 'vx:places', filter: filter11 }), ['places.3'], 'Filter 1.1 urn:x-ogc: northing first')
  t.same(await ids({ typeNames: 'vx:places', bbox: `${n0},${e0},${n1},${e1},urn:ogc:def:crs:EPSG::3035` }), ['places.3'], 'KVP bbox urn: northing first')
  t.same(await ids({ typeNames: 'vx:places', bbox: `${e0},${n0},${e1},${n1},EPSG:3035` }), ['places.3'])
  const gml = await wfsGet(app, { ...W20, typeNames: 'vx:places', srsName: 'urn:ogc:def:crs:EPSG::3035', resourceId: 'places.3' })
  const pos = /<gml:pos>([-\d.e]+) ([-\d.e]+)<\/gml:pos>/.exec(gml.body)
  t.ok(pos, gml.body)
  const [n, e] = transformBbox([5, 40, 5, 40], 'EPSG:4326', 'EPSG:3035').slice(1, 3)
  t.ok(pos && Math.abs(Number(pos[1]) - n) < 1 && Math.abs(Number(pos[2]) - e) < 1, `written northing first: ${pos?.[0]}`)
})

t.test('resource ids, featureID and the GetFeatureById stored query', async (t) => {
  t.same(await ids({ resourceId: 'places.4,places.2' }), ['places.2', 'places.4'], 'type names from the ids')
  t.same(await ids({ typeNames: 'vx:places', resourceId: 'places.3,places.99,places.x' }), ['places.3'])
  const r = await wfsGet(app, { ...W11, typeName: 'vx:places', featureID: 'places.2' })
  t.same(gmlIds(r.body), ['places.2'])
  const byId = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', STOREDQUERY_ID: 'urn:ogc:def:query:OGC-WFS::GetFeatureById', ID: 'places.2' })
  t.equal(byId.statusCode, 200)
  t.match(byId.body, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<vx:places xmlns:gml="http:\/\/www.opengis.net\/gml\/3.2" xmlns:vx="http:\/\/mapwarden.org\/ns\/vx" gml:id="places.2"><vx:name>Beta<\/vx:name>/)
  const missing = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', STOREDQUERY_ID: 'urn:ogc:def:query:OGC-WFS::GetFeatureById', ID: 'places.99' })
  t.equal(missing.statusCode, 404)
  t.match(missing.body, /exceptionCode="NotFound" locator="ID">\n<ows:ExceptionText>Could not find feature with id places.99</)
  const list = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'ListStoredQueries' })
  t.match(list.body, /<wfs:StoredQuery id="urn:ogc:def:query:OGC-WFS::GetFeatureById"><wfs:Title>Get feature by identifier<\/wfs:Title><wfs:ReturnFeatureType>vx:parcels<\/wfs:ReturnFeatureType><wfs:ReturnFeatureType>vx:places<\/wfs:ReturnFeatureType><wfs:ReturnFeatureType>vx:roads<\/wfs:ReturnFeatureType>/)
  const describe = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'DescribeStoredQueries' })
  t.match(describe.body, /<wfs:Parameter name="ID" type="xs:string"\/>/)
})

t.test('paging: count/maxFeatures and startIndex over sortBy, next and previous links; hits', async (t) => {
  t.same(await ids({ typeNames: 'vx:places', sortBy: 'name DESC', count: 2, startIndex: 1 }), ['places.4', 'places.2'])
  t.same(await ids({ typeNames: 'vx:places', sortBy: 'pop D,name', startIndex: 2 }), ['places.2', 'places.1'], 'NULLs sort first descending, as PostgreSQL orders them')
  const page = await json({ typeNames: 'vx:places', sortBy: 'name', count: 3, startIndex: 3 })
  t.equal(page.numberMatched, 4)
  t.equal(page.numberReturned, 1)
  t.equal(page.totalFeatures, 4)
  const mid = await wfsGet(app, { ...W20, typeNames: 'vx:places', sortBy: 'name', count: 1, startIndex: 2 })
  t.match(mid.body, / next="[^"]*startIndex=3"/)
  t.match(mid.body, / previous="[^"]*startIndex=1"/)
  // Paging across several types.
  t.same(await ids({ typeNames: 'vx:places,vx:roads', count: 3, startIndex: 3 }), ['places.4', 'roads.1', 'roads.2'])
  const hits = await wfsGet(app, { ...W20, typeNames: 'vx:places', resultType: 'hits', cql_filter: 'pop > 100' })
  t.equal(hits.statusCode, 200)
  t.match(hits.body, /<wfs:FeatureCollection [^>]*numberMatched="2" numberReturned="0" [^>]*>\n<\/wfs:FeatureCollection>/)
  const hits11 = await wfsGet(app, { ...W11, typeName: 'vx:places', resultType: 'hits' })
  t.match(hits11.body, /<wfs:FeatureCollection [^>]*numberOfFeatures="4" [^>]*\/>/)
})

t.test('srsName reprojects (GeoJSON easting first, GML in the order of the name), propertyName picks attributes', async (t) => {
  const merc = await json({ typeNames: 'vx:places', srsName: 'EPSG:3857', resourceId: 'places.1' })
  const [x, y] = merc.features[0].geometry.coordinates
  t.ok(Math.abs(x - lonToX(-10)) < 1e-6 && Math.abs(y - latToY(-5)) < 1e-6, `${x} ${y}`)
  t.same(merc.crs, { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::3857' } })
  const roads = await json({ typeNames: 'vx:roads', srsName: 'urn:ogc:def:crs:EPSG::4326', resourceId: 'roads.2' })
  t.same(roads.features[0].geometry.coordinates.map((p: number[]) => p.map((v) => Math.round(v * 1e9) / 1e9)), [[-10, 0], [-20, 0]])
  const gml = await wfsGet(app, { ...W20, typeNames: 'vx:roads', srsName: 'urn:ogc:def:crs:EPSG::4326', resourceId: 'roads.2' })
  t.match(gml.body, /<gml:LineString gml:id="roads.2.geom" srsName="urn:ogc:def:crs:EPSG::4326" srsDimension="2"><gml:posList>0 -10(\.0*\d*)? 0 -20(\.0*\d*)?<\/gml:posList>/)
  // UTM zone 33N: a projected CRS of the EPSG registry.
  const utm = await json({ typeNames: 'vx:places', srsName: 'EPSG:32633', resourceId: 'places.4' })
  t.ok(utm.features[0].geometry.coordinates[0] < 0 && utm.features[0].geometry.coordinates[1] > 27000, String(utm.features[0].geometry.coordinates))
  const named = await json({ typeNames: 'vx:places', propertyName: 'vx:name,pop', resourceId: 'places.1' })
  t.same(named.features[0], { type: 'Feature', id: 'places.1', geometry: null, properties: { name: 'Alpha', pop: 100 } })
  t.equal((await json({ typeNames: 'vx:places', propertyName: '*', resourceId: 'places.1' })).features[0].properties.capital, true, 'propertyName=* (OWSLib sends it): every property')
  const withGeom = await wfsGet(app, { ...W20, typeNames: 'vx:places', propertyName: 'geom', resourceId: 'places.1' })
  t.match(withGeom.body, /<vx:places gml:id="places.1"><vx:geom><gml:Point/)
})

t.test('POST XML: GetFeature 2.0.0 and 1.1.0, GetPropertyValue, DescribeFeatureType, GetCapabilities', async (t) => {
  const body = `<wfs:GetFeature service="WFS" version="2.0.0" count="5" outputFormat="application/json" xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:vx="http://mapwarden.org/ns/vx">
    <wfs:Query typeNames="vx:places"><fes:Filter><fes:And>
      <fes:PropertyIsGreaterThan><fes:ValueReference>pop</fes:ValueReference><fes:Literal>50</fes:Literal></fes:PropertyIsGreaterThan>
      <fes:BBOX><fes:ValueReference>geom</fes:ValueReference><gml:Envelope srsName="urn:ogc:def:crs:EPSG::4326"><gml:lowerCorner>-10 -20</gml:lowerCorner><gml:upperCorner>20 30</gml:upperCorner></gml:Envelope></fes:BBOX>
    </fes:And></fes:Filter>
    <fes:SortBy><fes:SortProperty><fes:ValueReference>pop</fes:ValueReference><fes:SortOrder>DESC</fes:SortOrder></fes:SortProperty></fes:SortBy></wfs:Query>
  </wfs:GetFeature>`
  const r = await wfsPost(app, body)
  t.equal(r.statusCode, 200, r.body)
  t.same(JSON.parse(r.body).features.map((f: { id: string }) => f.id), ['places.4', 'places.2', 'places.1'])
  const v11 = `<wfs:GetFeature service="WFS" version="1.1.0" maxFeatures="1" xmlns:wfs="http://www.opengis.net/wfs" xmlns:ogc="http://www.opengis.net/ogc">
    <wfs:Query typeName="vx:places"><wfs:PropertyName>name</wfs:PropertyName><ogc:Filter><ogc:FeatureId fid="places.3"/></ogc:Filter></wfs:Query></wfs:GetFeature>`
  const r11 = await wfsPost(app, v11)
  t.equal(r11.headers['content-type'], 'text/xml; subtype=gml/3.1.1')
  t.ok(r11.body.includes('<vx:places gml:id="places.3"><vx:name>Gamma</vx:name></vx:places>'), r11.body)
  const pv = await wfsPost(app, '<wfs:GetPropertyValue service="WFS" version="2.0.0" valueReference="name" xmlns:wfs="http://www.opengis.net/wfs/2.0"><wfs:Query typeNames="vx:places"/></wfs:GetPropertyValue>')
  t.equal(pv.statusCode, 200, pv.body)
  t.match(pv.body, /<wfs:ValueCollection [^>]*numberMatched="4" numberReturned="4"[^>]*>\n<wfs:member>Alpha<\/wfs:member>\n<wfs:member>Beta<\/wfs:member>\n<wfs:member>Gamma<\/wfs:member>\n<wfs:member>Del &quot;ta&quot; &amp; &lt;co&gt;<\/wfs:member>\n<\/wfs:ValueCollection>/)
  const kvpPv = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetPropertyValue', typeNames: 'vx:places', valueReference: 'pop', resourceId: 'places.3' })
  t.match(kvpPv.body, /<wfs:member xsi:nil="true"\/>/)
  const dft = await wfsPost(app, '<wfs:DescribeFeatureType service="WFS" version="1.1.0" xmlns:wfs="http://www.opengis.net/wfs"><wfs:TypeName>vx:roads</wfs:TypeName></wfs:DescribeFeatureType>')
  t.match(dft.body, /name="geom" nillable="true" type="gml:CurvePropertyType"/)
  const caps = await wfsPost(app, '<wfs:GetCapabilities service="WFS" xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:ows="http://www.opengis.net/ows/1.1"><ows:AcceptVersions><ows:Version>1.1.0</ows:Version></ows:AcceptVersions></wfs:GetCapabilities>')
  t.match(caps.body, /<wfs:WFS_Capabilities version="1.1.0"/)
})

t.test('/ows with SERVICE=WFS (and XML bodies) is the WFS, the rest of /ows the WMS; {base}/<ws>/wfs serves its workspace', async (t) => {
  const ows = await wfsGet(app, { ...W20, typeNames: 'vx:places', outputFormat: 'json', count: 1 }, {}, '/ows')
  t.equal(ows.statusCode, 200)
  t.equal(JSON.parse(ows.body).features[0].id, 'places.1')
  const owsCaps = await wfsGet(app, { service: 'wfs', request: 'GetCapabilities' }, {}, '/ows')
  t.match(owsCaps.body, /<ows:Get xlink:href="http:\/\/localhost:80\/geoserver\/ows\?"\/>/)
  const wms = await wfsGet(app, { service: 'WMS', request: 'GetCapabilities', version: '1.3.0' }, {}, '/ows')
  t.match(wms.body, /<WMS_Capabilities/)
  // A repeated SERVICE: the last one, as every OGC parameter is read (plugins/infra/ows-kvp.ts).
  const lastWfs = await app.inject({ method: 'GET', url: `${BASE}/ows?service=WMS&request=GetCapabilities&SERVICE=WFS&version=2.0.0` })
  t.match(lastWfs.body, /<wfs:WFS_Capabilities version="2.0.0"/, 'service=WMS then SERVICE=WFS: the WFS')
  const lastWms = await app.inject({ method: 'GET', url: `${BASE}/ows?service=WFS&request=GetCapabilities&service=WMS&version=1.3.0` })
  t.match(lastWms.body, /<WMS_Capabilities/, 'service=WFS then service=WMS: the WMS')
  const posted = await wfsPost(app, '<wfs:GetCapabilities service="WFS" version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0"/>', '/ows')
  t.match(posted.body, /<wfs:WFS_Capabilities version="2.0.0"/)
  const ws = await wfsGet(app, { ...W20, typeNames: 'places', outputFormat: 'json' }, {}, '/vx/wfs')
  t.equal(JSON.parse(ws.body).numberMatched, 4)
  const wsCaps = await wfsGet(app, { service: 'WFS', request: 'GetCapabilities' }, {}, '/vx/ows')
  t.match(wsCaps.body, /<ows:Title>mapwarden Web Feature Service: workspace vx<\/ows:Title>/)
  t.match(wsCaps.body, /<ows:Get xlink:href="http:\/\/localhost:80\/geoserver\/vx\/ows\?"\/>/)
  const bare = await wfsGet(app, { ...W20, typeNames: 'places', outputFormat: 'json', count: 1 })
  t.equal(bare.statusCode, 200, 'a bare name one workspace alone has')
  const noWs = await wfsGet(app, { service: 'WFS', request: 'GetCapabilities' }, {}, '/nows/wfs')
  t.equal(noWs.statusCode, 404)
  t.match(noWs.body, /No such workspace/)
})

t.test('a result read in many batches is written whole, in order, as it streams', async (t) => {
  const c = new pg.Client({ connectionString: dbUrl })
  await c.connect()
  try {
    await c.query(`CREATE TABLE many (id integer PRIMARY KEY, label text, geom geometry(Point, 4326));
      INSERT INTO many SELECT i, 'n' || i, ST_SetSRID(ST_MakePoint(i % 360 - 180, (i % 170) - 85), 4326) FROM generate_series(1, 3001) AS i`)
  } finally { await c.end() }
  const ft = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/vx/datastores/nyc/featuretypes`, headers: { authorization: `Basic ${Buffer.from('admin:test-admin-password').toString('base64')}`, 'content-type': 'text/xml' }, payload: '<featureType><name>many</name></featureType>' })
  t.equal(ft.statusCode, 201, ft.body)
  const r = await wfsGet(app, { ...W20, typeNames: 'vx:many', outputFormat: 'application/json' })
  const body = JSON.parse(r.body)
  t.equal(body.numberReturned, 3001)
  t.equal(body.features.length, 3001)
  t.same(body.features[3000], { type: 'Feature', id: 'many.3001', geometry: { type: 'Point', coordinates: [-59, 26] }, geometry_name: 'geom', properties: { label: 'n3001' } })
  t.ok(body.features.every((f: { id: string }, i: number) => f.id === `many.${i + 1}`), 'in key order')
  const gml = await wfsGet(app, { ...W20, typeNames: 'vx:many' })
  t.equal([...gml.body.matchAll(/<wfs:member>/g)].length, 3001)
})
