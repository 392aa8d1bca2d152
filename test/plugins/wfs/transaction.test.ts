// WFS-T on PostGIS layers: Transaction with Insert, Update and Delete in WFS 2.0.0, 1.1.0 and 1.0.0,
// answered as GeoServer answers (TransactionResponse with its summary and inserted ids,
// WFS_TransactionResponse with InsertResult and SUCCESS); GML 2/3/3.2 geometries in another CRS
// taken to the data's; all or nothing when an action fails in the database; bad input refused with
// the OGC code and nothing changed; the layer rules' `w`; the tiles over the edit dropped.
import t from 'tap'
import { ADMIN, BASE } from '../../helper.js'
import { wfsGet, wfsPost, wfsSetup } from './helpers.js'

const { app } = await wfsSetup(t, ['places', 'roads', 'parcels'])
const W20 = 'xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:vx="http://mapwarden.org/ns/vx"'
const W11 = 'xmlns:wfs="http://www.opengis.net/wfs" xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="http://www.opengis.net/gml" xmlns:vx="http://mapwarden.org/ns/vx"'
const tx = (xml: string, headers: Record<string, string> = ADMIN) => wfsPost(app, xml, '/wfs', headers)

interface Feat { id: string, properties: Record<string, unknown>, geometry: { type: string, coordinates: any } }
const features = async (type: string, params: Record<string, string> = {}): Promise<Feat[]> =>
  JSON.parse((await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: `vx:${type}`, outputFormat: 'application/json', sortBy: type === 'places' ? 'name' : 'kind', ...params }, ADMIN)).body).features
const code = (body: string) => /(?:exceptionCode|code)="([^"]+)"/.exec(body)?.[1]

t.test('WFS 2.0.0: Insert (GML 3.2, lat/lon srsName), Update and Delete in one transaction; GeoServer\'s TransactionResponse', async (t) => {
  const r = await tx(`<wfs:Transaction service="WFS" version="2.0.0" ${W20}>
    <wfs:Insert>
      <vx:places><vx:name>Epsilon</vx:name><vx:pop>50</vx:pop><vx:capital>true</vx:capital><vx:founded>2020-05-01</vx:founded>
        <vx:geom><gml:Point srsName="urn:ogc:def:crs:EPSG::4326"><gml:pos>10 100</gml:pos></gml:Point></vx:geom></vx:places>
      <vx:places><vx:name>Zeta &amp; co</vx:name><vx:geom><gml:Point srsName="http://www.opengis.net/def/crs/EPSG/0/3857"><gml:pos>111319.49079327357 0</gml:pos></gml:Point></vx:geom></vx:places>
    </wfs:Insert>
    <wfs:Update typeName="vx:places"><wfs:Property><wfs:ValueReference>pop</wfs:ValueReference><wfs:Value>201</wfs:Value></wfs:Property>
      <wfs:Property><wfs:ValueReference>area</wfs:ValueReference></wfs:Property>
      <fes:Filter><fes:PropertyIsEqualTo><fes:ValueReference>name</fes:ValueReference><fes:Literal>Beta</fes:Literal></fes:PropertyIsEqualTo></fes:Filter></wfs:Update>
    <wfs:Delete typeName="vx:places"><fes:Filter><fes:ResourceId rid="places.3"/></fes:Filter></wfs:Delete>
  </wfs:Transaction>`)
  t.equal(r.statusCode, 200, r.body)
  t.equal(r.headers['content-type'], 'text/xml')
  t.equal(r.body, '<?xml version="1.0" encoding="UTF-8"?><wfs:TransactionResponse xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:fes="http://www.opengis.net/fes/2.0" ' +
    'xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:ows="http://www.opengis.net/ows/1.1" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="2.0.0" xsi:schemaLocation="http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd">' +
    '<wfs:TransactionSummary><wfs:totalInserted>2</wfs:totalInserted><wfs:totalUpdated>1</wfs:totalUpdated><wfs:totalReplaced>0</wfs:totalReplaced><wfs:totalDeleted>1</wfs:totalDeleted></wfs:TransactionSummary>' +
    '<wfs:InsertResults><wfs:Feature><fes:ResourceId rid="places.5"/></wfs:Feature><wfs:Feature><fes:ResourceId rid="places.6"/></wfs:Feature></wfs:InsertResults></wfs:TransactionResponse>')
  const f = await features('places')
  t.same(f.map((x) => x.properties.name), ['Alpha', 'Beta', 'Del "ta" & <co>', 'Epsilon', 'Zeta & co'], 'Gamma deleted, two inserted')
  const eps = f.find((x) => x.properties.name === 'Epsilon')!
  t.equal(eps.id, 'places.5')
  t.same(eps.geometry.coordinates, [100, 10], 'lat/lon order read as such')
  t.same([eps.properties.pop, eps.properties.capital, eps.properties.founded], [50, true, '2020-05-01Z'])
  const zeta = f.find((x) => x.properties.name === 'Zeta & co')!
  t.ok(Math.abs(zeta.geometry.coordinates[0] - 1) < 1e-9 && Math.abs(zeta.geometry.coordinates[1]) < 1e-9, 'EPSG:3857 taken to EPSG:4326')
  const beta = f.find((x) => x.properties.name === 'Beta')!
  t.same([beta.properties.pop, beta.properties.area], [201, null], 'a Property without Value sets null')
})

t.test('WFS 1.1.0: Insert into a table whose key has no default (max + 1), GML 3.1.1 posList reprojected; TransactionSummary and ogc:FeatureId', async (t) => {
  const r = await tx(`<wfs:Transaction service="WFS" version="1.1.0" releaseAction="ALL" ${W11}><wfs:Insert srsName="EPSG:4326">
    <vx:roads><vx:kind>new</vx:kind><vx:geom><gml:LineString><gml:posList>0 0 10 0</gml:posList></gml:LineString></vx:geom></vx:roads></wfs:Insert></wfs:Transaction>`)
  t.equal(r.statusCode, 200, r.body)
  t.equal(r.body, '<?xml version="1.0" encoding="UTF-8"?><wfs:TransactionResponse xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:wfs="http://www.opengis.net/wfs" ' +
    'xmlns:gml="http://www.opengis.net/gml" xmlns:ogc="http://www.opengis.net/ogc" xmlns:ows="http://www.opengis.net/ows" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
    'version="1.1.0" xsi:schemaLocation="http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.1.0/wfs.xsd">' +
    '<wfs:TransactionSummary><wfs:totalInserted>1</wfs:totalInserted><wfs:totalUpdated>0</wfs:totalUpdated><wfs:totalDeleted>0</wfs:totalDeleted></wfs:TransactionSummary>' +
    '<wfs:TransactionResults/><wfs:InsertResults><wfs:Feature><ogc:FeatureId fid="roads.3"/></wfs:Feature></wfs:InsertResults></wfs:TransactionResponse>')
  const road = (await features('roads', { srsName: 'EPSG:3857' })).find((x) => x.properties.kind === 'new')!
  t.equal(road.id, 'roads.3')
  t.ok(Math.abs(road.geometry.coordinates[1][0] - 1113194.9079327357) < 1e-6, 'stored in EPSG:3857')
})

t.test('WFS 1.0.0: GML 2 polygon into a MultiPolygon column (made multi), Delete by ogc:FeatureId; WFS_TransactionResponse', async (t) => {
  const r = await tx(`<wfs:Transaction service="WFS" version="1.0.0" ${W11}><wfs:Insert><vx:parcels><vx:value>7.25</vx:value><vx:geom>
    <gml:Polygon srsName="http://www.opengis.net/gml/srs/epsg.xml#4326"><gml:outerBoundaryIs><gml:LinearRing><gml:coordinates>5,5 6,5 6,6 5,6 5,5</gml:coordinates></gml:LinearRing></gml:outerBoundaryIs></gml:Polygon>
    </vx:geom></vx:parcels></wfs:Insert></wfs:Transaction>`)
  t.equal(r.statusCode, 200, r.body)
  t.equal(r.body, '<?xml version="1.0" encoding="UTF-8"?>\n<wfs:WFS_TransactionResponse version="1.0.0" xmlns:wfs="http://www.opengis.net/wfs" xmlns:ogc="http://www.opengis.net/ogc" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.0.0/WFS-transaction.xsd">' +
    '<wfs:InsertResult><ogc:FeatureId fid="parcels.2"/></wfs:InsertResult><wfs:TransactionResult><wfs:Status><wfs:SUCCESS/></wfs:Status></wfs:TransactionResult></wfs:WFS_TransactionResponse>')
  const p = await features('parcels', { sortBy: 'value' })
  t.same(p.map((x) => [x.id, x.geometry.type]), [['parcels.2', 'MultiPolygon'], ['parcels.1', 'MultiPolygon']])
  const d = await tx(`<wfs:Transaction service="WFS" version="1.0.0" ${W11}><wfs:Delete typeName="vx:parcels"><ogc:Filter><ogc:FeatureId fid="parcels.2"/></ogc:Filter></wfs:Delete></wfs:Transaction>`)
  t.match(d.body, '<wfs:InsertResult><ogc:FeatureId fid="none"/></wfs:InsertResult><wfs:TransactionResult><wfs:Status><wfs:SUCCESS/></wfs:Status>')
  t.equal((await features('parcels', { sortBy: 'value' })).length, 1)
})

t.test('GML 3.2 MultiSurface with a hole (surfaceMember, interior) and GML 3.1.1 MultiPolygon with polygonMember update a geometry', async (t) => {
  const ring = (x: number) => `${x} ${x} ${x + 4} ${x} ${x + 4} ${x + 4} ${x} ${x + 4} ${x} ${x}`
  const r = await tx(`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Update typeName="vx:parcels"><wfs:Property><wfs:ValueReference>geom</wfs:ValueReference><wfs:Value>
    <gml:MultiSurface srsName="EPSG:4326"><gml:surfaceMember><gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>${ring(0)}</gml:posList></gml:LinearRing></gml:exterior>
    <gml:interior><gml:LinearRing><gml:posList>1 1 2 1 2 2 1 2 1 1</gml:posList></gml:LinearRing></gml:interior></gml:Polygon></gml:surfaceMember>
    <gml:surfaceMember><gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>${ring(10)}</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></gml:surfaceMember></gml:MultiSurface>
    </wfs:Value></wfs:Property><fes:Filter><fes:ResourceId rid="parcels.1"/></fes:Filter></wfs:Update></wfs:Transaction>`)
  t.equal(r.statusCode, 200, r.body)
  t.match(r.body, '<wfs:totalUpdated>1</wfs:totalUpdated>')
  let g = (await features('parcels', { sortBy: 'value' }))[0].geometry
  t.same(g.coordinates.map((p: number[][][]) => p.length), [2, 1], 'two polygons, the first with its hole')
  t.same(g.coordinates[1][0][2], [14, 14])
  const m = await tx(`<wfs:Transaction service="WFS" version="1.1.0" ${W11}><wfs:Update typeName="vx:parcels"><wfs:Property><wfs:Name>geom</wfs:Name><wfs:Value>
    <gml:MultiPolygon srsName="EPSG:4326"><gml:polygonMember><gml:Polygon><gml:exterior><gml:LinearRing><gml:posList>${ring(1)}</gml:posList></gml:LinearRing></gml:exterior></gml:Polygon></gml:polygonMember></gml:MultiPolygon>
    </wfs:Value></wfs:Property><ogc:Filter><ogc:FeatureId fid="parcels.1"/></ogc:Filter></wfs:Update></wfs:Transaction>`)
  t.match(m.body, '<wfs:totalUpdated>1</wfs:totalUpdated>')
  g = (await features('parcels', { sortBy: 'value' }))[0].geometry
  t.same(g.coordinates, [[[[1, 1], [5, 1], [5, 5], [1, 5], [1, 1]]]])
})

t.test('a workspace\'s service (/vx/ows, an XML body) takes bare type names; a feature\'s gml:name and gml:boundedBy are GML\'s, not properties', async (t) => {
  const r = await wfsPost(app, `<wfs:Transaction service="WFS" version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:gml="http://www.opengis.net/gml/3.2">
    <wfs:Insert><places xmlns="http://mapwarden.org/ns/vx" gml:id="x1"><gml:name>ignored</gml:name><gml:boundedBy><gml:Envelope><gml:lowerCorner>0 0</gml:lowerCorner><gml:upperCorner>1 1</gml:upperCorner></gml:Envelope></gml:boundedBy>
      <name>Theta</name><pop>9</pop></places></wfs:Insert></wfs:Transaction>`, '/vx/ows', ADMIN)
  t.equal(r.statusCode, 200, r.body)
  t.match(r.body, /<fes:ResourceId rid="places\.\d+"\/>/)
  const d = await wfsPost(app, `<wfs:Transaction service="WFS" version="1.1.0" xmlns:wfs="http://www.opengis.net/wfs" xmlns:ogc="http://www.opengis.net/ogc">
    <wfs:Delete typeName="places"><ogc:Filter><ogc:PropertyIsEqualTo><ogc:PropertyName>name</ogc:PropertyName><ogc:Literal>Theta</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter></wfs:Delete></wfs:Transaction>`, '/vx/wfs', ADMIN)
  t.match(d.body, '<wfs:totalDeleted>1</wfs:totalDeleted>')
  t.notOk((await features('places')).some((f) => f.properties.name === 'Theta'))
})

t.test('all or nothing: the database refusing the 2nd action undoes the 1st', async (t) => {
  const before = await features('places')
  const r = await tx(`<wfs:Transaction service="WFS" version="2.0.0" ${W20}>
    <wfs:Insert><vx:places><vx:name>Eta</vx:name></vx:places></wfs:Insert>
    <wfs:Update typeName="vx:places"><wfs:Property><wfs:ValueReference>name</wfs:ValueReference></wfs:Property>
      <fes:Filter><fes:ResourceId rid="places.1"/></fes:Filter></wfs:Update>
  </wfs:Transaction>`)
  t.equal(r.statusCode, 400, r.body)
  t.equal(code(r.body), 'InvalidParameterValue')
  t.match(r.body, /not-null|null value/)
  t.same(await features('places'), before, 'nothing changed')
})

t.test('bad input: the OGC code naming it, never a 500, nothing changed', async (t) => {
  const before = await features('places')
  const cases: Array<[string, string, RegExp]> = [
    [`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Insert>`, 'OperationParsingFailed', /Malformed/],
    [`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Insert><vx:nope><vx:name>x</vx:name></vx:nope></wfs:Insert></wfs:Transaction>`, 'InvalidParameterValue', /vx:nope unknown/],
    [`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Insert><vx:places><vx:height>3</vx:height></vx:places></wfs:Insert></wfs:Transaction>`, 'InvalidParameterValue', /vx:places has name, pop/],
    [`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Insert><vx:places><vx:name>x</vx:name><vx:pop>many</vx:pop></vx:places></wfs:Insert></wfs:Transaction>`, 'InvalidParameterValue', /takes a whole number/],
    [`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Insert><vx:places><vx:name>x</vx:name><vx:geom><gml:LineString><gml:posList>0 0 1 1</gml:posList></gml:LineString></vx:geom></vx:places></wfs:Insert></wfs:Transaction>`, 'InvalidParameterValue', /holds POINT geometries/],
    [`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Insert><vx:places><vx:name>x</vx:name><vx:geom><gml:Point><gml:pos>1 a</gml:pos></gml:Point></vx:geom></vx:places></wfs:Insert></wfs:Transaction>`, 'InvalidParameterValue', /other than numbers/],
    [`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Update typeName="vx:places"><wfs:Property><wfs:ValueReference>nope</wfs:ValueReference><wfs:Value>1</wfs:Value></wfs:Property></wfs:Update></wfs:Transaction>`, 'InvalidParameterValue', /nope/],
    [`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Delete typeName="vx:places"/></wfs:Transaction>`, 'MissingParameterValue', /Filter/],
    [`<wfs:Transaction service="WFS" version="2.0.0" releaseAction="NONE" ${W20}/>`, 'InvalidParameterValue', /ALL or SOME/],
    [`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Delete typeName="vx:places"><fes:Filter><fes:PropertyIsEqualTo><fes:ValueReference>pop</fes:ValueReference><fes:Literal>x</fes:Literal></fes:PropertyIsEqualTo></fes:Filter></wfs:Delete></wfs:Transaction>`, 'InvalidParameterValue', /number/]
  ]
  for (const [xml, c, text] of cases) {
    const r = await tx(xml)
    t.ok(r.statusCode === 400, `${c}: ${r.statusCode} ${r.body}`)
    t.equal(code(r.body), c, r.body)
    t.match(r.body, text)
  }
  t.same(await features('places'), before)
})

t.test('the layer rules\' w: a caller without it is refused (403, anonymous 401) and nothing changes; with it, the edit is made', async (t) => {
  const json = { ...ADMIN, 'content-type': 'application/json' }
  t.equal((await app.inject({ method: 'POST', url: `${BASE}/rest/security/acl/layers.json`, headers: json, payload: '{"vx.places.w":"ROLE_EDITOR"}' })).statusCode, 201)
  for (const user of ['editor', 'reader']) {
    t.equal((await app.inject({ method: 'POST', url: `${BASE}/rest/security/usergroup/users`, headers: json, payload: { user: { userName: user, password: `${user}-password` } } })).statusCode, 201)
  }
  await app.inject({ method: 'POST', url: `${BASE}/rest/security/roles/role/ROLE_EDITOR`, headers: ADMIN })
  await app.inject({ method: 'POST', url: `${BASE}/rest/security/roles/role/ROLE_EDITOR/user/editor`, headers: ADMIN })
  const as = (u: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${u}-password`).toString('base64')}` })
  const insert = (type: string) => `<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Insert><vx:${type}><vx:${type === 'places' ? 'name' : 'kind'}>ruled</vx:${type === 'places' ? 'name' : 'kind'}></vx:${type}></wfs:Insert></wfs:Transaction>`
  const before = (await features('places')).length
  const reader = await tx(insert('places'), as('reader'))
  t.equal(reader.statusCode, 403, reader.body)
  t.match(reader.body, /<ows:Exception exceptionCode="NoApplicableCode">/)
  const anon = await tx(insert('places'), {})
  t.equal(anon.statusCode, 401)
  t.match(anon.body, /<ows:Exception exceptionCode="NoApplicableCode">/, 'the OGC exception, not a bare 401')
  t.equal((await features('places')).length, before, 'nothing changed')
  const editor = await tx(insert('places'), as('editor'))
  t.equal(editor.statusCode, 200, editor.body)
  t.match(editor.body, '<wfs:totalInserted>1</wfs:totalInserted>')
  t.equal((await features('places')).length, before + 1)
  const other = await tx(insert('roads'), as('editor'))
  t.equal(other.statusCode, 403, 'the rule names places only')
  t.match(other.body, /<ows:Exception exceptionCode="NoApplicableCode">/)
  // A layer the caller may not read stays unknown, as on GetFeature.
  t.equal((await app.inject({ method: 'POST', url: `${BASE}/rest/security/acl/layers.json`, headers: json, payload: '{"vx.parcels.r":"ROLE_NOBODY"}' })).statusCode, 201)
  const hidden = await tx(`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Delete typeName="vx:parcels"><fes:Filter><fes:ResourceId rid="parcels.1"/></fes:Filter></wfs:Delete></wfs:Transaction>`, as('editor'))
  t.equal(hidden.statusCode, 400)
  t.match(hidden.body, 'Feature type vx:parcels unknown')
})

t.test('the cached tiles over the edit are dropped; the others stay', async (t) => {
  const tile = (x: number) => app.inject({ method: 'GET', url: `${BASE}/gwc/service/tms/1.0.0/vx:places@EPSG:4326@png/0/${x}/0.png`, headers: ADMIN })
  await tile(0); await tile(1)
  t.equal((await tile(0)).headers['geowebcache-cache-result'], 'HIT')
  t.equal((await tile(1)).headers['geowebcache-cache-result'], 'HIT')
  const r = await tx(`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Insert><vx:places><vx:name>East</vx:name>
    <vx:geom><gml:Point srsName="EPSG:4326"><gml:pos>120 30</gml:pos></gml:Point></vx:geom></vx:places></wfs:Insert></wfs:Transaction>`)
  t.equal(r.statusCode, 200, r.body)
  t.equal((await tile(1)).headers['geowebcache-cache-result'], 'MISS', 'the eastern tile holding the new place is drawn again')
  t.equal((await tile(0)).headers['geowebcache-cache-result'], 'HIT', 'the western one is kept')
})

t.test('capabilities offer Transaction; serviceLevel BASIC takes it away', async (t) => {
  const c11 = await wfsGet(app, { service: 'WFS', version: '1.1.0', request: 'GetCapabilities' })
  t.match(c11.body, '<wfs:Operations><wfs:Operation>Query</wfs:Operation><wfs:Operation>Insert</wfs:Operation><wfs:Operation>Update</wfs:Operation><wfs:Operation>Delete</wfs:Operation><wfs:Operation>Lock</wfs:Operation></wfs:Operations>')
  t.match(c11.body, '<ows:Operation name="Transaction">')
  const c10 = await wfsGet(app, { service: 'WFS', version: '1.0.0', request: 'GetCapabilities' })
  t.match(c10.body, '<Transaction><DCPType><HTTP><Post onlineResource="http://localhost:80/geoserver/wfs"/></HTTP></DCPType></Transaction>')
  t.match(c10.body, '<Operations><Query/><Insert/><Update/><Delete/><Lock/></Operations>')
  const put = await app.inject({ method: 'PUT', url: `${BASE}/rest/services/wfs/settings.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { wfs: { serviceLevel: 'BASIC' } } })
  t.equal(put.statusCode, 200, put.body)
  t.teardown(() => app.inject({ method: 'PUT', url: `${BASE}/rest/services/wfs/settings.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { wfs: { serviceLevel: 'COMPLETE' } } }))
  const c20 = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetCapabilities' })
  t.match(c20.body, '<ows:Constraint name="ImplementsTransactionalWFS"><ows:NoValues/><ows:DefaultValue>FALSE</ows:DefaultValue></ows:Constraint>')
  t.notMatch(c20.body, 'name="Transaction"')
  const r = await tx(`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Delete typeName="vx:places"><fes:Filter><fes:ResourceId rid="places.1"/></fes:Filter></wfs:Delete></wfs:Transaction>`)
  t.equal(code(r.body), 'OperationNotSupported')
  t.match(r.body, /serviceLevel is BASIC/)
})
