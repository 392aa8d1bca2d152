// The WFS follows its service settings ({base}/rest/services/wfs/settings and a workspace's own):
// the capabilities' title, abstract, keywords, fees, access constraints and online resource; a
// disabled WFS answers GeoServer's "Service WFS is disabled" report on every WFS path while REST
// and WMS go on; maxFeatures caps GetFeature and hits together with MAPWARDEN_WFS_MAX_FEATURES.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { ADMIN, BASE } from '../../helper.js'
import { wfsGet, wfsPost, wfsSetup } from './helpers.js'

const REST = `${BASE}/rest`
const JSON_BODY = { ...ADMIN, 'content-type': 'application/json' }
const CAPS = { service: 'WFS', request: 'GetCapabilities' }
const GF = { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'vx:places' }

async function put (app: FastifyInstance, path: string, wfs: Record<string, unknown>): Promise<void> {
  const res = await app.inject({ method: 'PUT', url: `${REST}/services/wfs/${path}`, headers: JSON_BODY, payload: JSON.stringify({ wfs }) })
  if (res.statusCode !== 200) throw new Error(`PUT ${path}: ${res.statusCode} ${res.body}`)
}

const { app } = await wfsSetup(t, ['places'])

t.test('capabilities say what the settings say, a workspace\'s own on its virtual service', async (t) => {
  const defaults = await wfsGet(app, { ...CAPS, version: '2.0.0' })
  t.ok(defaults.body.includes('<ows:Title>mapwarden Web Feature Service</ows:Title><ows:Abstract>The vector layers of this server as features: GML 3.2, GML 3.1.1, GML 2, GeoJSON and CSV.</ows:Abstract>' +
    '<ows:Keywords><ows:Keyword>WFS</ows:Keyword><ows:Keyword>GEOSERVER</ows:Keyword></ows:Keywords>'), 'the default settings')
  t.ok(defaults.body.includes('<ows:Fees>NONE</ows:Fees><ows:AccessConstraints>NONE</ows:AccessConstraints>'))
  await put(app, 'settings', {
    title: 'Roads & <Places>', abstrct: 'All the features.', keywords: { string: ['features', 'vector'] },
    fees: 'free', accessConstraints: 'none at all', onlineResource: 'http://maps.example.org/about'
  })
  t.teardown(() => put(app, 'settings', { title: 'mapwarden Web Feature Service', abstrct: '', keywords: { string: ['WFS', 'GEOSERVER'] }, fees: 'NONE', accessConstraints: 'NONE', onlineResource: '' }))
  let res = await wfsGet(app, { ...CAPS, version: '2.0.0' })
  t.equal(res.statusCode, 200)
  t.ok(res.body.includes('<ows:ServiceIdentification><ows:Title>Roads &amp; &lt;Places&gt;</ows:Title><ows:Abstract>All the features.</ows:Abstract>' +
    '<ows:Keywords><ows:Keyword>features</ows:Keyword><ows:Keyword>vector</ows:Keyword></ows:Keywords><ows:ServiceType>WFS</ows:ServiceType>'), res.body.slice(0, 1500))
  t.ok(res.body.includes('<ows:Fees>free</ows:Fees><ows:AccessConstraints>none at all</ows:AccessConstraints></ows:ServiceIdentification>'))
  t.ok(res.body.includes('<ows:ProviderSite xlink:href="http://maps.example.org/about"/>'))
  res = await wfsGet(app, { ...CAPS, version: '1.1.0' })
  t.ok(res.body.includes('<ows:Title>Roads &amp; &lt;Places&gt;</ows:Title><ows:Abstract>All the features.</ows:Abstract><ows:Keywords><ows:Keyword>features</ows:Keyword>'))
  t.ok(res.body.includes('<ows:Fees>free</ows:Fees>'))
  res = await wfsGet(app, { ...CAPS, version: '1.0.0' })
  t.ok(res.body.includes('<Service><Name>WFS</Name><Title>Roads &amp; &lt;Places&gt;</Title><Abstract>All the features.</Abstract><Keywords>features, vector</Keywords>' +
    '<OnlineResource>http://maps.example.org/about</OnlineResource><Fees>free</Fees><AccessConstraints>none at all</AccessConstraints></Service>'), res.body.slice(0, 1500))

  // The workspace's virtual service: the global title with its name, then its own settings.
  res = await wfsGet(app, { ...CAPS, version: '2.0.0' }, {}, '/vx/wfs')
  t.ok(res.body.includes('<ows:Title>Roads &amp; &lt;Places&gt;: workspace vx</ows:Title>'))
  await put(app, 'workspaces/vx/settings', { title: 'VX', abstrct: 'Only vx.', keywords: { string: ['vx'] } })
  t.teardown(async () => { await app.inject({ method: 'DELETE', url: `${REST}/services/wfs/workspaces/vx/settings`, headers: ADMIN }) })
  res = await wfsGet(app, { ...CAPS, version: '2.0.0' }, {}, '/vx/wfs')
  t.ok(res.body.includes('<ows:Title>VX</ows:Title><ows:Abstract>Only vx.</ows:Abstract><ows:Keywords><ows:Keyword>vx</ows:Keyword></ows:Keywords>'), res.body.slice(0, 1500))
  t.ok(res.body.includes('<ows:ProviderSite xlink:href="http://maps.example.org/about"/>'), 'a first PUT starts from the global settings')
  res = await wfsGet(app, { ...CAPS, version: '2.0.0' })
  t.ok(res.body.includes('<ows:Title>Roads &amp; &lt;Places&gt;</ows:Title>'), 'the global service keeps the global settings')
})

t.test('a disabled WFS answers its report on every path; REST and WMS keep working', async (t) => {
  await put(app, 'settings', { enabled: false })
  t.teardown(() => put(app, 'settings', { enabled: true }))
  const report20 = /<ows:ExceptionReport [^>]*version="2\.0\.0"[^>]*>\n<ows:Exception exceptionCode="ServiceUnavailable">\n<ows:ExceptionText>Service WFS is disabled<\/ows:ExceptionText>/
  const report11 = /<ows:ExceptionReport [^>]*xmlns:ows="http:\/\/www\.opengis\.net\/ows" version="1\.0\.0"[^>]*>\n<ows:Exception exceptionCode="ServiceUnavailable">\n<ows:ExceptionText>Service WFS is disabled<\/ows:ExceptionText>/
  const report10 = /<ServiceExceptionReport version="1\.2\.0"[^>]*>\n {2}<ServiceException code="ServiceUnavailable">\n {4}Service WFS is disabled\n/
  for (const path of ['/wfs', '/vx/wfs', '/ows', '/vx/ows']) {
    let res = await wfsGet(app, { ...CAPS, version: '2.0.0' }, {}, path)
    t.equal(res.statusCode, 400, `${path} 2.0.0`)
    t.equal(res.headers['content-type'], 'application/xml')
    t.match(res.body, report20, `${path} 2.0.0`)
    res = await wfsGet(app, { ...GF, version: '1.1.0', typeName: 'vx:places' }, {}, path)
    t.equal(res.statusCode, 200, `${path} 1.1.0`)
    t.match(res.body, report11, `${path} 1.1.0`)
    res = await wfsGet(app, { ...GF, version: '1.0.0', typeName: 'vx:places' }, {}, path)
    t.equal(res.statusCode, 200, `${path} 1.0.0`)
    t.match(res.body, report10, `${path} 1.0.0`)
    res = await wfsPost(app, '<wfs:GetFeature xmlns:wfs="http://www.opengis.net/wfs/2.0" service="WFS" version="2.0.0"><wfs:Query typeNames="vx:places"/></wfs:GetFeature>', path)
    t.equal(res.statusCode, 400, `${path} POST XML`)
    t.match(res.body, report20, `${path} POST XML`)
  }
  let res = await app.inject({ url: `${REST}/services/wfs/settings.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(JSON.parse(res.body).wfs.enabled, false)
  res = await app.inject({ url: `${BASE}/wms?service=WMS&version=1.3.0&request=GetCapabilities` })
  t.equal(res.statusCode, 200)
  t.match(res.body, /<WMS_Capabilities /)
  res = await app.inject({ url: `${BASE}/ows?service=WMS&version=1.3.0&request=GetCapabilities` })
  t.equal(res.statusCode, 200, '/ows still serves the WMS')
  t.match(res.body, /<WMS_Capabilities /)

  // The workspace's own settings decide for its virtual service, both ways.
  await put(app, 'workspaces/vx/settings', { enabled: true })
  t.teardown(async () => { await app.inject({ method: 'DELETE', url: `${REST}/services/wfs/workspaces/vx/settings`, headers: ADMIN }) })
  res = await wfsGet(app, { ...GF, outputFormat: 'application/json' }, {}, '/vx/wfs')
  t.equal(res.statusCode, 200)
  t.equal(JSON.parse(res.body).numberReturned, 4)
  await put(app, 'settings', { enabled: true })
  await put(app, 'workspaces/vx/settings', { enabled: false })
  t.equal((await wfsGet(app, { ...CAPS, version: '2.0.0' })).statusCode, 200, 'the global WFS is enabled')
  res = await wfsGet(app, { ...CAPS, version: '2.0.0' }, {}, '/vx/wfs')
  t.equal(res.statusCode, 400)
  t.match(res.body, report20)
})

t.test('maxFeatures caps GetFeature and hits with MAPWARDEN_WFS_MAX_FEATURES, the smaller wins', async (t) => {
  await put(app, 'settings', { maxFeatures: 3 })
  t.teardown(() => put(app, 'settings', { maxFeatures: 1000000, hitsIgnoreMaxFeatures: false }))
  let res = await wfsGet(app, GF)
  t.match(res.body, /<wfs:FeatureCollection [^>]*numberMatched="4" numberReturned="3" /)
  res = await wfsGet(app, { ...GF, count: 2 })
  t.match(res.body, /numberMatched="4" numberReturned="2" /, 'a smaller count wins')
  res = await wfsGet(app, { ...GF, resultType: 'hits' })
  t.match(res.body, /<wfs:FeatureCollection [^>]*numberMatched="3" numberReturned="0" /)
  res = await wfsGet(app, { ...GF, version: '1.1.0', typeName: 'vx:places', resultType: 'hits' })
  t.match(res.body, /<wfs:FeatureCollection [^>]*numberOfFeatures="3" /)
  res = await wfsGet(app, { ...CAPS, version: '2.0.0' })
  t.ok(res.body.includes('<ows:Constraint name="CountDefault"><ows:NoValues/><ows:DefaultValue>3</ows:DefaultValue></ows:Constraint>'))
  await put(app, 'settings', { hitsIgnoreMaxFeatures: true })
  res = await wfsGet(app, { ...GF, resultType: 'hits' })
  t.match(res.body, /numberMatched="4" numberReturned="0" /, 'hitsIgnoreMaxFeatures: hits count all')
  res = await wfsGet(app, { ...GF, outputFormat: 'application/json' })
  t.equal(JSON.parse(res.body).numberReturned, 3, 'results stay capped')
  await put(app, 'workspaces/vx/settings', { maxFeatures: 1 })
  t.teardown(async () => { await app.inject({ method: 'DELETE', url: `${REST}/services/wfs/workspaces/vx/settings`, headers: ADMIN }) })
  res = await wfsGet(app, GF, {}, '/vx/wfs')
  t.match(res.body, /numberMatched="4" numberReturned="1" /, 'the workspace\'s own maxFeatures on its virtual service')
  res = await wfsGet(app, GF)
  t.match(res.body, /numberMatched="4" numberReturned="3" /)
})

t.test('maxFeatures 0 is no limit; the server maximum wins when smaller', async (t) => {
  const { app: capped } = await wfsSetup(t, ['places'], { wfsMaxFeatures: 2 })
  await put(capped, 'settings', { maxFeatures: 0 })
  let res = await wfsGet(capped, GF)
  t.match(res.body, /numberMatched="4" numberReturned="2" /)
  res = await wfsGet(capped, { ...GF, resultType: 'hits' })
  t.match(res.body, /numberMatched="2" numberReturned="0" /)
  await put(capped, 'settings', { maxFeatures: 3 })
  res = await wfsGet(capped, GF)
  t.match(res.body, /numberMatched="4" numberReturned="2" /)
  await put(app, 'settings', { maxFeatures: 0 })
  t.teardown(() => put(app, 'settings', { maxFeatures: 1000000 }))
  res = await wfsGet(app, GF)
  t.match(res.body, /numberMatched="4" numberReturned="4" /)
})
