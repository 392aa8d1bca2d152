// WFS refusals as GeoServer writes them: the exception report of each version (ows 1.1 for 2.0.0
// with 400/404, ows 1.0 for 1.1.0 and ServiceExceptionReport for 1.0.0 with 200), the OGC code and
// locator naming the problem, never a 500 for bad input; Transaction and locks OperationNotSupported;
// and the layer rules: a layer the caller may not read is absent from capabilities and unknown to
// GetFeature and DescribeFeatureType (HIDE), or challenged (MIXED).
import t from 'tap'
import { ADMIN, BASE } from '../../helper.js'
import { wfsGet, wfsPost, wfsSetup } from './helpers.js'

const { app } = await wfsSetup(t, ['places', 'roads'])
const GF = { service: 'WFS', version: '2.0.0', request: 'GetFeature' }

const report = (body: string) => {
  const m = /exceptionCode="([^"]+)"(?: locator="([^"]*)")?>\n<ows:ExceptionText>([^<]*)</.exec(body)
  return m ? { code: m[1], locator: m[2], text: m[3] } : undefined
}

t.test('each version\'s report: 2.0.0 ows 1.1 with 400, 1.1.0 ows 1.0 and 1.0.0 ServiceExceptionReport with 200', async (t) => {
  const r20 = await wfsGet(app, { ...GF, typeNames: 'vx:nope' })
  t.equal(r20.statusCode, 400)
  t.equal(r20.headers['content-type'], 'application/xml')
  t.equal(r20.body, '<?xml version="1.0" encoding="UTF-8"?><ows:ExceptionReport xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:ows="http://www.opengis.net/ows/1.1" version="2.0.0" xsi:schemaLocation="http://www.opengis.net/ows/1.1 http://schemas.opengis.net/ows/1.1.0/owsAll.xsd">\n' +
    '<ows:Exception exceptionCode="InvalidParameterValue" locator="typeName">\n<ows:ExceptionText>Feature type vx:nope unknown</ows:ExceptionText>\n</ows:Exception>\n</ows:ExceptionReport>\n')
  const r11 = await wfsGet(app, { ...GF, version: '1.1.0', typeName: 'vx:nope' })
  t.equal(r11.statusCode, 200)
  t.match(r11.body, /<ows:ExceptionReport [^>]*xmlns:ows="http:\/\/www.opengis.net\/ows" version="1.0.0"/)
  t.same(report(r11.body), { code: 'InvalidParameterValue', locator: 'typeName', text: 'Feature type vx:nope unknown' })
  const r10 = await wfsGet(app, { ...GF, version: '1.0.0', typeName: 'vx:nope' })
  t.equal(r10.statusCode, 200)
  t.equal(r10.body, '<?xml version="1.0" ?>\n<ServiceExceptionReport version="1.2.0" xmlns="http://www.opengis.net/ogc" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.opengis.net/ogc http://schemas.opengis.net/wfs/1.0.0/OGC-exception.xsd">\n' +
    '  <ServiceException code="InvalidParameterValue" locator="typeName">\n    Feature type vx:nope unknown\n  </ServiceException>\n</ServiceExceptionReport>')
})

t.test('bad input: the code and locator that name it', async (t) => {
  const cases: Array<[Record<string, string>, string, string | undefined, RegExp]> = [
    [{ ...GF }, 'MissingParameterValue', 'typeNames', /typeNames parameter is mandatory/],
    [{ service: 'WFS', version: '2.0.0' }, 'MissingParameterValue', 'request', /request parameter is mandatory/],
    [{ ...GF, request: 'Transaction' }, 'OperationNotSupported', 'Transaction', /a wfs:Transaction document sent by POST/],
    [{ ...GF, request: 'GetGmlObject' }, 'OperationNotSupported', 'GetGmlObject', /no GetGmlObject/],
    [{ ...GF, request: 'LockFeature' }, 'MissingParameterValue', 'typeNames', /typeNames parameter is mandatory/],
    [{ ...GF, request: 'LockFeature', typeNames: 'vx:places', expiry: '0' }, 'InvalidParameterValue', 'expiry', /whole number of seconds, at least 1/],
    [{ ...GF, request: 'LockFeature', typeNames: 'vx:places', lockAction: 'MOST' }, 'InvalidParameterValue', 'lockAction', /ALL or SOME/],
    [{ ...GF, request: 'Fly' }, 'OperationNotSupported', 'Fly', /supported: GetCapabilities/],
    [{ ...GF, version: '3.0.0', typeNames: 'vx:places' }, 'InvalidParameterValue', 'version', /supported: 2.0.0, 1.1.0, 1.0.0/],
    [{ ...GF, service: 'WMS', typeNames: 'vx:places' }, 'InvalidParameterValue', 'service', /serves WFS/],
    [{ ...GF, typeNames: 'vx:places', outputFormat: 'image/png' }, 'InvalidParameterValue', 'outputFormat', /supported: application\/gml\+xml; version=3.2/],
    [{ ...GF, typeNames: 'vx:places', count: '-1' }, 'InvalidParameterValue', 'count', /whole number/],
    [{ ...GF, typeNames: 'vx:places', startIndex: 'x' }, 'InvalidParameterValue', 'startIndex', /whole number/],
    [{ ...GF, typeNames: 'vx:places', resultType: 'all' }, 'InvalidParameterValue', 'resultType', /results or hits/],
    [{ ...GF, typeNames: 'vx:places', bbox: '1,2,3' }, 'InvalidParameterValue', 'bbox', /four numbers/],
    [{ ...GF, typeNames: 'vx:places', bbox: '5,5,1,1,EPSG:4326' }, 'InvalidParameterValue', 'bbox', /minimum/],
    [{ ...GF, typeNames: 'vx:places', bbox: '1,2,3,4,EPSG:999999' }, 'InvalidParameterValue', 'bbox', /coordinate reference system/],
    [{ ...GF, typeNames: 'vx:places', srsName: 'EPSG:0' }, 'InvalidParameterValue', 'srsName', /coordinate reference system/],
    [{ ...GF, typeNames: 'vx:places', propertyName: 'nope' }, 'InvalidParameterValue', 'propertyName', /vx:places has name, pop/],
    [{ ...GF, typeNames: 'vx:places', sortBy: 'name SIDEWAYS' }, 'InvalidParameterValue', 'sortBy', /ASC or DESC/],
    [{ ...GF, typeNames: 'vx:places', cql_filter: 'pop >>> 1' }, 'InvalidParameterValue', 'cql_filter', /Invalid cql syntax/],
    [{ ...GF, typeNames: 'vx:places', cql_filter: 'nope = 1' }, 'InvalidParameterValue', 'cql_filter', /unknown attribute &quot;nope&quot;/],
    [{ ...GF, typeNames: 'vx:places', cql_filter: 'pop = \'many\'' }, 'InvalidParameterValue', 'cql_filter', /is not a number/],
    [{ ...GF, typeNames: 'vx:places', filter: '<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0"><fes:Intersects><fes:ValueReference>geom</fes:ValueReference><fes:Function name="buffer"/></fes:Intersects></fes:Filter>' }, 'OperationNotSupported', 'Function', /Unsupported filter operator Function/],
    [{ ...GF, typeNames: 'vx:places', filter: '<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0"><fes:PropertyIsEqualTo><fes:ValueReference>nope</fes:ValueReference><fes:Literal>1</fes:Literal></fes:PropertyIsEqualTo></fes:Filter>' }, 'InvalidParameterValue', 'filter', /unknown property &quot;nope&quot;; the type has name, pop/],
    [{ ...GF, typeNames: 'vx:places', filter: '<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0"><fes:PropertyIsEqualTo><fes:ValueReference>founded</fes:ValueReference><fes:Literal>not a date</fes:Literal></fes:PropertyIsEqualTo></fes:Filter>' }, 'InvalidParameterValue', 'filter', /date/],
    [{ ...GF, typeNames: 'vx:places', filter: '<fes:Filter><fes:And>' }, 'OperationParsingFailed', undefined, /Malformed XML/],
    [{ ...GF, STOREDQUERY_ID: 'urn:other' }, 'InvalidParameterValue', 'STOREDQUERY_ID', /GetFeatureById/],
    [{ service: 'WFS', version: '1.1.0', request: 'GetPropertyValue', typeNames: 'vx:places', valueReference: 'name' }, 'InvalidParameterValue', 'version', /2.0.0 operation/],
    [{ service: 'WFS', version: '2.0.0', request: 'GetPropertyValue', typeNames: 'vx:places' }, 'MissingParameterValue', 'valueReference', /mandatory/],
    [{ service: 'WFS', version: '2.0.0', request: 'DescribeFeatureType', typeName: 'vx:places,vx:gone' }, 'InvalidParameterValue', 'typeName', /vx:gone unknown/]
  ]
  for (const [params, code, locator, text] of cases) {
    const r = await wfsGet(app, params)
    const what = JSON.stringify(params)
    t.equal(r.statusCode, params.version === '1.1.0' ? 200 : 400, what)
    const rep = report(r.body)
    t.ok(rep, `${what}: a report: ${r.body}`)
    t.equal(rep?.code, code, what)
    t.equal(rep?.locator, locator, what)
    t.match(rep?.text, text, what)
  }
})

t.test('POST: a Transaction of an anonymous caller is challenged and changes nothing; a DOCTYPE is refused', async (t) => {
  const tx = await wfsPost(app, '<wfs:Transaction service="WFS" version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:fes="http://www.opengis.net/fes/2.0"><wfs:Delete typeName="vx:places"><fes:Filter><fes:ResourceId rid="places.1"/></fes:Filter></wfs:Delete></wfs:Transaction>')
  t.equal(tx.statusCode, 401)
  t.equal(report(tx.body)?.code, 'NoApplicableCode')
  const tx11 = await wfsPost(app, '<wfs:Transaction service="WFS" version="1.1.0" xmlns:wfs="http://www.opengis.net/wfs"><wfs:Replace/></wfs:Transaction>')
  t.equal(tx11.statusCode, 200)
  t.match(tx11.body, /version="1.0.0"/)
  t.match(tx11.body, /exceptionCode="OperationNotSupported" locator="Replace"/)
  const n = JSON.parse((await wfsGet(app, { ...GF, typeNames: 'vx:places', outputFormat: 'json' })).body).numberMatched
  t.equal(n, 4)
  const doctype = await wfsPost(app, '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><wfs:GetFeature service="WFS" version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0"><wfs:Query typeNames="vx:places"/></wfs:GetFeature>')
  t.equal(doctype.statusCode, 400)
  t.notMatch(doctype.body, /root:/)
})

t.test('POST: the report follows the root element\'s version, not the XML declaration\'s or a comment\'s', async (t) => {
  const r20 = await wfsPost(app, '<?xml version="1.0" encoding="UTF-8"?>\n<wfs:GetFeature service="WFS" version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0"><wfs:Query typeNames="vx:nope"/></wfs:GetFeature>')
  t.equal(r20.statusCode, 400, r20.body)
  t.match(r20.body, /<ows:ExceptionReport [^>]*xmlns:ows="http:\/\/www.opengis.net\/ows\/1.1" version="2.0.0"/)
  t.same(report(r20.body), { code: 'InvalidParameterValue', locator: 'typeName', text: 'Feature type vx:nope unknown' })
  const r11 = await wfsPost(app, "<?xml version='1.0'?><!-- version=\"2.0.0\" --><?pi version=\"2.0.0\"?><wfs:GetFeature\n  xmlns:wfs='http://www.opengis.net/wfs' service='WFS' version='1.1.0'><wfs:Query typeName='vx:nope'/></wfs:GetFeature>")
  t.equal(r11.statusCode, 200, r11.body)
  t.match(r11.body, /<ows:ExceptionReport [^>]*xmlns:ows="http:\/\/www.opengis.net\/ows" version="1.0.0"/)
})

t.test('layer rules: hidden from capabilities and unknown (HIDE), challenged (MIXED), readable by its role', async (t) => {
  const json = { ...ADMIN, 'content-type': 'application/json' }
  let res = await app.inject({ method: 'POST', url: `${BASE}/rest/security/acl/layers.json`, headers: json, payload: '{"vx.places.r":"ROLE_READER"}' })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'POST', url: `${BASE}/rest/security/usergroup/users`, headers: json, payload: { user: { userName: 'reader', password: 'reader-password' } } })
  t.equal(res.statusCode, 201)
  await app.inject({ method: 'POST', url: `${BASE}/rest/security/roles/role/ROLE_READER`, headers: ADMIN })
  await app.inject({ method: 'POST', url: `${BASE}/rest/security/roles/role/ROLE_READER/user/reader`, headers: ADMIN })
  const reader = { authorization: `Basic ${Buffer.from('reader:reader-password').toString('base64')}` }
  const names = async (headers: Record<string, string>) => [...(await wfsGet(app, { service: 'WFS', request: 'GetCapabilities' }, headers)).body.matchAll(/<wfs:Name>([^<]+)</g)].map((m) => m[1])
  t.same(await names({}), ['vx:roads'], 'anonymous: places hidden')
  t.same(await names(reader), ['vx:places', 'vx:roads'])
  const anon = await wfsGet(app, { ...GF, typeNames: 'vx:places' })
  t.equal(anon.statusCode, 400)
  t.same(report(anon.body), { code: 'InvalidParameterValue', locator: 'typeName', text: 'Feature type vx:places unknown' }, 'as unknown as a missing type')
  t.equal((await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'DescribeFeatureType', typeName: 'vx:places' })).statusCode, 400)
  t.equal((await wfsGet(app, { ...GF, resourceId: 'places.1' })).statusCode, 400)
  const stored = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'ListStoredQueries' })
  t.notMatch(stored.body, /vx:places/)
  const ok = await wfsGet(app, { ...GF, typeNames: 'vx:places', outputFormat: 'json' }, reader)
  t.equal(JSON.parse(ok.body).numberMatched, 4)
  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/security/acl/catalog.json`, headers: json, payload: JSON.stringify({ mode: 'MIXED' }) })
  t.equal(res.statusCode, 200)
  const challenged = await wfsGet(app, { ...GF, typeNames: 'vx:places' })
  t.equal(challenged.statusCode, 401)
  t.equal(challenged.headers['www-authenticate'], 'Basic realm="GeoServer Realm"')
  t.match(challenged.body, /<ows:ExceptionReport/)
  t.same(await names({}), ['vx:roads'], 'MIXED: still not listed')
  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/security/acl/catalog.json`, headers: json, payload: JSON.stringify({ mode: 'HIDE' }) })
  t.equal(res.statusCode, 200)
})

t.test('MAPWARDEN_WFS_MAX_FEATURES caps every answer; numberMatched still counts all', async (t) => {
  const { app: capped } = await wfsSetup(t, ['places'], { wfsMaxFeatures: 2 })
  for (const params of [{}, { count: '3' }] as Array<Record<string, string>>) {
    const r = await wfsGet(capped, { ...GF, typeNames: 'vx:places', outputFormat: 'json', ...params })
    const body = JSON.parse(r.body)
    t.equal(body.numberReturned, 2)
    t.equal(body.numberMatched, 4)
    t.equal(body.features.length, 2)
  }
  const caps = await wfsGet(capped, { service: 'WFS', request: 'GetCapabilities' })
  t.match(caps.body, /<ows:Constraint name="CountDefault"><ows:NoValues\/><ows:DefaultValue>2<\/ows:DefaultValue>/)
})
