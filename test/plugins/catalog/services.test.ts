// {base}/rest/services/{wms,wmts,wfs}/settings and the workspace-local form: GeoServer's shapes,
// partial PUTs persisted over a restart, what the capabilities say, a disabled service's answers on
// every path of it while REST keeps working, and refusals that name the field and change nothing.
import t from 'tap'
import path from 'node:path'
import { build, ADMIN, BASE, TEST_BACKEND, tempDir } from '../../helper.js'
import { pgDatabase } from '../../fixtures/pg.js'
import { until } from '../../fixtures/cluster.js'
import { wmsUrl, worldMosaic, xmllint } from '../wms/helpers.js'

const REST = `${BASE}/rest`
const XML = { ...ADMIN, 'content-type': 'application/xml' }
const JSON_BODY = { ...ADMIN, 'content-type': 'application/json' }
const SCHEMAS = '/usr/share/python3-mapproxy/test/schemas/wms'

const WMS_DEFAULT_XML = [
  '<wms>',
  '  <enabled>true</enabled>',
  '  <name>WMS</name>',
  '  <title>mapwarden Web Map Service</title>',
  '  <abstrct>Maps of the image mosaics published by mapwarden, rendered by the same renderer as its tiles.</abstrct>',
  '  <accessConstraints>NONE</accessConstraints>',
  '  <fees>NONE</fees>',
  '  <versions>',
  '    <org.geotools.util.Version>',
  '      <version>1.1.1</version>',
  '    </org.geotools.util.Version>',
  '    <org.geotools.util.Version>',
  '      <version>1.3.0</version>',
  '    </org.geotools.util.Version>',
  '  </versions>',
  '  <keywords>',
  '    <string>WMS</string>',
  '    <string>GEOSERVER</string>',
  '  </keywords>',
  '  <citeCompliant>false</citeCompliant>',
  '  <schemaBaseURL>http://schemas.opengis.net</schemaBaseURL>',
  '  <verbose>false</verbose>',
  '  <srs/>',
  '  <bboxForEachCRS>false</bboxForEachCRS>',
  '  <watermark>',
  '    <enabled>false</enabled>',
  '    <position>BOT_RIGHT</position>',
  '    <transparency>100</transparency>',
  '  </watermark>',
  '  <interpolation>Nearest</interpolation>',
  '  <maxBuffer>0</maxBuffer>',
  '  <maxRequestMemory>0</maxRequestMemory>',
  '  <maxRenderingTime>0</maxRenderingTime>',
  '  <maxRenderingErrors>0</maxRenderingErrors>',
  '</wms>'
].join('\n')

t.test('GET service settings: the defaults in XML and JSON; admin only; POST and DELETE 405', async (t) => {
  const app = await build(t)
  let res = await app.inject({ url: `${REST}/services/wms/settings.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, WMS_DEFAULT_XML)
  res = await app.inject({ url: `${REST}/services/wms/settings`, headers: { ...ADMIN, accept: 'application/json' } })
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(res.body, '{"wms":{"enabled":true,"name":"WMS","title":"mapwarden Web Map Service",' +
    '"abstrct":"Maps of the image mosaics published by mapwarden, rendered by the same renderer as its tiles.","accessConstraints":"NONE","fees":"NONE",' +
    '"versions":{"org.geotools.util.Version":[{"version":"1.1.1"},{"version":"1.3.0"}]},"keywords":{"string":["WMS","GEOSERVER"]},"citeCompliant":false,' +
    '"schemaBaseURL":"http://schemas.opengis.net","verbose":false,"srs":"","bboxForEachCRS":false,"watermark":{"enabled":false,"position":"BOT_RIGHT","transparency":100},"interpolation":"Nearest",' +
    '"maxBuffer":0,"maxRequestMemory":0,"maxRenderingTime":0,"maxRenderingErrors":0}}')
  res = await app.inject({ url: `${REST}/services/wmts/settings.json`, headers: ADMIN })
  t.equal(res.body, '{"wmts":{"enabled":true,"name":"WMTS","title":"mapwarden Web Map Tile Service","versions":{"org.geotools.util.Version":[{"version":"1.0.0"}]},' +
    '"keywords":"","citeCompliant":false,"schemaBaseURL":"http://schemas.opengis.net","verbose":false}}')
  res = await app.inject({ url: `${REST}/services/wmts/settings.xml`, headers: ADMIN })
  t.match(res.body, /^<wmts>\n {2}<enabled>true<\/enabled>\n/)
  t.match(res.body, '\n  <keywords/>\n')
  res = await app.inject({ url: `${REST}/services/wfs/settings.json`, headers: ADMIN })
  t.equal(res.body, '{"wfs":{"enabled":true,"name":"WFS","title":"mapwarden Web Feature Service",' +
    '"abstrct":"The vector layers of this server as features: GML 3.2, GML 3.1.1, GML 2, GeoJSON and CSV.","accessConstraints":"NONE","fees":"NONE",' +
    '"versions":{"org.geotools.util.Version":[{"version":"1.0.0"},{"version":"1.1.0"},{"version":"2.0.0"}]},"keywords":{"string":["WFS","GEOSERVER"]},' +
    '"citeCompliant":false,"schemaBaseURL":"http://schemas.opengis.net","verbose":false,"serviceLevel":"COMPLETE","maxFeatures":1000000,"featureBounding":false,' +
    '"canonicalSchemaLocation":false,"encodeFeatureMember":false,"hitsIgnoreMaxFeatures":false}}')

  for (const method of ['POST', 'DELETE'] as const) {
    res = await app.inject({ method, url: `${REST}/services/wms/settings`, headers: ADMIN })
    t.equal(res.statusCode, 405, method)
    t.equal(res.body, `Request method ${method} not supported`)
  }
  res = await app.inject({ url: `${REST}/services/wcs/settings`, headers: ADMIN })
  t.equal(res.statusCode, 404, 'no WCS')
  res = await app.inject({ url: `${REST}/services/wms/settings.json` })
  t.equal(res.statusCode, 401)
  res = await app.inject({ method: 'PUT', url: `${REST}/services/wms/settings.json`, headers: { 'content-type': 'application/json' }, payload: '{"wms":{"enabled":false}}' })
  t.equal(res.statusCode, 401)
  t.equal(app.serviceSettings.get('wms').enabled, true)
})

t.test('PUT wms and wmts settings: partial, read back, in the capabilities bytes, kept over a restart', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, keepOpen: true })
  await worldMosaic(app)
  let res = await app.inject({
    method: 'PUT',
    url: `${REST}/services/wms/settings.xml`,
    headers: XML,
    payload: '<wms><title>Sea &amp; Sky maps</title><abstrct>Sea surface temperature</abstrct><keywords><string>ocean</string><string>SST</string></keywords>' +
      '<fees>10 EUR</fees><accessConstraints>internal use</accessConstraints><onlineResource>https://maps.example.org/about</onlineResource>' +
      '<maintainer>ops@example.org</maintainer></wms>'
  })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.body, '')
  res = await app.inject({ method: 'PUT', url: `${REST}/services/wmts/settings.json`, headers: JSON_BODY, payload: '{"wmts":{"title":"Tiles <fast>","abstrct":"Cached tiles","keywords":{"string":"tiles"},"fees":"NONE","onlineResource":"https://maps.example.org/tiles"}}' })
  t.equal(res.statusCode, 200, res.body)

  const caps13 = async (a = app) => (await a.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }) })).body
  const service13 = [
    '  <Service>',
    '    <Name>WMS</Name>',
    '    <Title>Sea &amp; Sky maps</Title>',
    '    <Abstract>Sea surface temperature</Abstract>',
    '    <KeywordList>',
    '      <Keyword>ocean</Keyword>',
    '      <Keyword>SST</Keyword>',
    '    </KeywordList>',
    '    <OnlineResource xlink:type="simple" xlink:href="https://maps.example.org/about"/>',
    '    <Fees>10 EUR</Fees>',
    '    <AccessConstraints>internal use</AccessConstraints>',
    '    <MaxWidth>4096</MaxWidth>'
  ].join('\n')
  let body = await caps13()
  t.match(body, service13)
  t.match(body, '    <Layer>\n      <Title>Sea &amp; Sky maps</Title>', 'the root layer takes the title')
  t.match(body, '<Get><OnlineResource xlink:type="simple" xlink:href="http://localhost:80/geoserver/wms?"/></Get>', 'operations keep the service URL')
  xmllint(t, body, 'capabilities 1.3.0 with every service field', ['--schema', path.join(SCHEMAS, '1.3.0/capabilities_1_3_0.xsd')])
  res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.1.1' }) })
  t.match(res.body, '<Title>Sea &amp; Sky maps</Title>')
  t.match(res.body, '<OnlineResource xmlns:xlink="http://www.w3.org/1999/xlink" xlink:type="simple" xlink:href="https://maps.example.org/about"/>\n    <Fees>10 EUR</Fees>')
  xmllint(t, res.body, 'capabilities 1.1.1 with every service field', ['--dtdvalid', path.join(SCHEMAS, '1.1.1/WMS_MS_Capabilities.dtd')])
  res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }, '/topp/wms') })
  t.match(res.body, '<Title>Sea &amp; Sky maps: workspace topp</Title>', 'a workspace without its own settings: the global ones, named')

  const wmtsService = [
    '  <ows:ServiceIdentification>',
    '    <ows:Title>Tiles &lt;fast&gt;</ows:Title>',
    '    <ows:Abstract>Cached tiles</ows:Abstract>',
    '    <ows:Keywords>',
    '      <ows:Keyword>tiles</ows:Keyword>',
    '    </ows:Keywords>',
    '    <ows:ServiceType>OGC WMTS</ows:ServiceType>',
    '    <ows:ServiceTypeVersion>1.0.0</ows:ServiceTypeVersion>',
    '    <ows:Fees>NONE</ows:Fees>',
    '  </ows:ServiceIdentification>',
    '  <ows:ServiceProvider>',
    '    <ows:ProviderName>Tiles &lt;fast&gt;</ows:ProviderName>',
    '    <ows:ProviderSite xlink:href="https://maps.example.org/tiles"/>',
    '    <ows:ServiceContact/>',
    '  </ows:ServiceProvider>',
    '  <ows:OperationsMetadata>'
  ].join('\n')
  for (const url of [`${BASE}/gwc/service/wmts?service=WMTS&request=GetCapabilities`, `${BASE}/tilecache/service/wmts/1.0.0/WMTSCapabilities.xml`]) {
    res = await app.inject({ url })
    t.equal(res.statusCode, 200, url)
    t.match(res.body, wmtsService, url)
    xmllint(t, res.body, `WMTS capabilities ${url}`)
  }

  const wmsJson = (await app.inject({ url: `${REST}/services/wms/settings.json`, headers: ADMIN })).body
  t.match(wmsJson, '"title":"Sea & Sky maps","maintainer":"ops@example.org","abstrct":"Sea surface temperature","accessConstraints":"internal use","fees":"10 EUR",')
  t.match(wmsJson, '"keywords":{"string":["ocean","SST"]},"citeCompliant":false,"onlineResource":"https://maps.example.org/about",')

  // GET-modify-PUT: the document as read is accepted back whole, in both forms.
  const doc = JSON.parse(wmsJson)
  doc.wms.fees = 'NONE'
  res = await app.inject({ method: 'PUT', url: `${REST}/services/wms/settings.json`, headers: JSON_BODY, payload: JSON.stringify(doc) })
  t.equal(res.statusCode, 200, res.body)
  const asXml = (await app.inject({ url: `${REST}/services/wms/settings.xml`, headers: ADMIN })).body
  res = await app.inject({ method: 'PUT', url: `${REST}/services/wms/settings.xml`, headers: XML, payload: asXml.replace('<id>', '<id>') })
  t.equal(res.statusCode, 200, res.body)
  const after = (await app.inject({ url: `${REST}/services/wms/settings.json`, headers: ADMIN })).body
  t.equal(after, wmsJson.replace('"fees":"10 EUR"', '"fees":"NONE"'))
  // "" clears a text field; GeoServer's own wms.xml of a data directory, with its id, reads.
  res = await app.inject({ method: 'PUT', url: `${REST}/services/wms/settings.json`, headers: JSON_BODY, payload: '{"wms":{"id":"wms","abstrct":"","accessConstraints":""}}' })
  t.equal(res.statusCode, 200, res.body)
  body = await caps13()
  t.notMatch(body, '<Abstract>Sea')
  t.notMatch(body, '<AccessConstraints>')
  const cleared = (await app.inject({ url: `${REST}/services/wms/settings.json`, headers: ADMIN })).body

  await app.close()
  const again = await build(t, { dataDir })
  t.equal((await again.inject({ url: `${REST}/services/wms/settings.json`, headers: ADMIN })).body, cleared, 'kept over a restart')
  t.match(await caps13(again), '<Title>Sea &amp; Sky maps</Title>')
  res = await again.inject({ url: `${BASE}/gwc/service/wmts?service=WMTS&request=GetCapabilities` })
  t.match(res.body, wmtsService)
})

t.test('enabled=false: every WMS path answers "Service WMS is disabled", WMTS paths 400 "Service is disabled"; REST keeps working', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, keepOpen: true })
  const layer = await worldMosaic(app)
  const map = { SERVICE: 'WMS', VERSION: '1.3.0', REQUEST: 'GetMap', LAYERS: layer, STYLES: '', CRS: 'EPSG:4326', BBOX: '-10,-20,30,20', WIDTH: 256, HEIGHT: 256, FORMAT: 'image/png' }
  const info = { ...map, REQUEST: 'GetFeatureInfo', QUERY_LAYERS: layer, I: 10, J: 10, INFO_FORMAT: 'text/plain' }
  const tiled = { SERVICE: 'WMS', VERSION: '1.1.1', REQUEST: 'GetMap', LAYERS: layer, STYLES: '', SRS: 'EPSG:4326', BBOX: '-180,-90,0,90', WIDTH: 256, HEIGHT: 256, FORMAT: 'image/png' }
  let res = await app.inject({ url: wmsUrl(map) })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'image/png', 'enabled: maps are drawn')

  res = await app.inject({ method: 'PUT', url: `${REST}/services/wms/settings`, headers: XML, payload: '<wms><enabled>false</enabled></wms>' })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'PUT', url: `${REST}/services/wmts/settings`, headers: JSON_BODY, payload: '{"wmts":{"enabled":"false"}}' })
  t.equal(res.statusCode, 200)

  const report13 = '<ServiceException code="ServiceUnavailable">\n      Service WMS is disabled\n</ServiceException>'
  const wmsCalls: Array<[string, string]> = [
    ['GetCapabilities 1.3.0', wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' })],
    ['GetMap', wmsUrl(map)],
    ['GetFeatureInfo', wmsUrl(info)],
    ['a workspace\'s GetMap', wmsUrl({ ...map, LAYERS: 'world' }, '/topp/wms')],
    ['OWS', wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }, '/ows')],
    ['tiled WMS', wmsUrl({ ...tiled, VERSION: '1.3.0', CRS: 'EPSG:4326', BBOX: '-90,-180,90,0' }, '/gwc/service/wms')]
  ]
  for (const [what, url] of wmsCalls) {
    res = await app.inject({ url })
    t.equal(res.statusCode, 200, `${what}: GeoServer's exception report`)
    t.equal(res.headers['content-type'], 'text/xml; charset=utf-8', what)
    t.match(res.body, report13, what)
  }
  res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.1.1' }) })
  t.equal(res.headers['content-type'], 'application/vnd.ogc.se_xml; charset=utf-8')
  t.match(res.body, '<ServiceException code="ServiceUnavailable">\n      Service WMS is disabled\n</ServiceException>')
  res = await app.inject({ url: wmsUrl({ ...map, W3CSTATUS: 'true' }) })
  t.equal(res.statusCode, 400, 'W3CSTATUS=true: the HTTP status')
  res = await app.inject({ method: 'POST', url: `${BASE}/wms`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ SERVICE: 'WMS', REQUEST: 'GetCapabilities' }).toString() })
  t.match(res.body, 'Service WMS is disabled', 'POST form')

  const wmtsCalls = [
    `${BASE}/gwc/service/wmts?service=WMTS&request=GetCapabilities`,
    `${BASE}/gwc/service/wmts?service=WMTS&request=GetTile&layer=${layer}&tilematrixset=EPSG:4326&tilematrix=EPSG:4326:0&tilerow=0&tilecol=0&format=image/png`,
    `${BASE}/tilecache/service/wmts/1.0.0/WMTSCapabilities.xml`,
    `${BASE}/gwc/service/wmts/rest/${layer}/raster/EPSG:4326/EPSG:4326:0/0/0?format=image/png`
  ]
  for (const url of wmtsCalls) {
    res = await app.inject({ url })
    t.equal(res.statusCode, 400, url)
    t.equal(res.headers['content-type'], 'text/plain; charset=utf-8', url)
    t.equal(res.body, 'Service is disabled', url)
  }
  res = await app.inject({ url: `${BASE}/gwc/service/tms/1.0.0/${layer}@EPSG:4326@png/0/0/0.png` })
  t.equal(res.statusCode, 200, 'TMS is not WMTS')

  // REST keeps working, and the state survives a restart.
  res = await app.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.match((await app.inject({ url: `${REST}/services/wms/settings.json`, headers: ADMIN })).body, '{"wms":{"enabled":false,')
  await app.close()
  const again = await build(t, { dataDir })
  res = await again.inject({ url: wmsUrl(map) })
  t.match(res.body, report13, 'still disabled after a restart')
  res = await again.inject({ url: wmtsCalls[0] })
  t.equal(res.statusCode, 400)

  // Enabled again: both answer.
  res = await again.inject({ method: 'PUT', url: `${REST}/services/wms/settings.json`, headers: JSON_BODY, payload: '{"wms":{"enabled":true}}' })
  t.equal(res.statusCode, 200)
  res = await again.inject({ method: 'PUT', url: `${REST}/services/wmts/settings.json`, headers: JSON_BODY, payload: '{"wmts":{"enabled":true}}' })
  res = await again.inject({ url: wmsUrl(map) })
  t.equal(res.headers['content-type'], 'image/png')
  res = await again.inject({ url: wmtsCalls[0] })
  t.equal(res.statusCode, 200)
})

t.test('bad service settings are refused by name and change nothing', async (t) => {
  const app = await build(t)
  const before = {
    wms: (await app.inject({ url: `${REST}/services/wms/settings.json`, headers: ADMIN })).body,
    wfs: (await app.inject({ url: `${REST}/services/wfs/settings.json`, headers: ADMIN })).body
  }
  const cases: Array<[string, string, string]> = [
    ['wms', '{"wms":{"title":"x","colour":"red"}}', 'Unknown field "colour" in wms'],
    ['wms', '{"wms":{"title":"x"},"extra":1}', 'Expected root element wms, found wms, extra'],
    ['wms', '{"wmts":{"title":"x"}}', 'Expected root element wms, found wmts'],
    ['wms', '{"wms":{"enabled":"maybe"}}', 'wms enabled must be true or false, got "maybe"'],
    ['wms', '{"wms":{"maxRenderingTime":60}}', 'wms maxRenderingTime 60 is not supported: the renderer has no per-request time limit; 0 means no limit'],
    ['wms', '{"wms":{"maxRequestMemory":"lots"}}', 'wms maxRequestMemory must be an integer from 0 to 2147483647, got "lots"'],
    ['wms', '{"wms":{"maxRenderingErrors":-1}}', 'wms maxRenderingErrors must be an integer from 0 to 2147483647, got "-1"'],
    ['wms', '{"wms":{"interpolation":"Bicubic"}}', 'wms interpolation "Bicubic" is not supported: the renderer resamples by nearest neighbour'],
    ['wms', '{"wms":{"interpolation":"Lanczos"}}', 'wms interpolation must be Nearest, Bilinear or Bicubic, got "Lanczos"'],
    ['wms', '{"wms":{"watermark":{"enabled":true}}}', 'wms watermark enabled true is not supported: mapwarden draws no watermark'],
    ['wms', '{"wms":{"watermark":{"position":"MIDDLE"}}}', 'wms watermark position must be one of TOP_LEFT, TOP_CENTER, TOP_RIGHT, MID_LEFT, MID_CENTER, MID_RIGHT, BOT_LEFT, BOT_CENTER, BOT_RIGHT, got "MIDDLE"'],
    ['wms', '{"wms":{"watermark":{"url":"x"}}}', 'Unknown field "url" in watermark'],
    ['wms', '{"wms":{"citeCompliant":true}}', 'wms citeCompliant true is not supported: mapwarden has no CITE-strict mode'],
    ['wms', '{"wms":{"verbose":true}}', 'wms verbose true is not supported: the service documents are always written indented'],
    ['wms', '{"wms":{"schemaBaseURL":"http://example.org/schemas"}}', 'wms schemaBaseURL "http://example.org/schemas" is not supported: the documents mapwarden writes refer to the schemas at http://schemas.opengis.net'],
    ['wms', '{"wms":{"versions":{"org.geotools.util.Version":[{"version":"1.3.0"}]}}}', 'wms versions are read-only: WMS 1.1.1 and 1.3.0 are served, got "1.3.0"'],
    ['wms', '{"wms":{"onlineResource":"javascript:alert(1)"}}', 'wms onlineResource must be an http or https URL, got "javascript:alert(1)"'],
    ['wms', '{"wms":{"keywords":{"string":["a",""]}}}', 'wms keywords must be a list of non-empty strings, got ""'],
    ['wms', '{"wms":{"keywords":{"word":["a"]}}}', 'Unknown field "word" in wms keywords'],
    ['wms', '{"wms":{"name":"My WMS"}}', 'wms name must be a name without spaces, got "My WMS"'],
    ['wms', '{"wms":{"serviceLevel":"BASIC"}}', 'Unknown field "serviceLevel" in wms'],
    ['wmts', '{"wmts":{"interpolation":"Nearest"}}', 'Unknown field "interpolation" in wmts'],
    ['wfs', '{"wfs":{"maxFeatures":"lots"}}', 'wfs maxFeatures must be an integer from 0 to 2147483647, got "lots"'],
    ['wfs', '{"wfs":{"serviceLevel":"FULL"}}', 'wfs serviceLevel must be one of BASIC, TRANSACTIONAL, COMPLETE, got "FULL"'],
    ['wfs', '{"wfs":{"featureBounding":true}}', 'wfs featureBounding true is not supported: the WFS writes no gml:boundedBy per feature'],
    ['wfs', '{"wfs":{"canonicalSchemaLocation":true}}', 'wfs canonicalSchemaLocation true is not supported: the WFS points to the schemas of its own DescribeFeatureType'],
    ['wfs', '{"wfs":{"encodeFeatureMember":"true"}}', 'wfs encodeFeatureMember true is not supported: WFS 1.1.0 GML 3 answers are written with gml:featureMembers'],
    ['wfs', '{"wfs":{"@class":"java.lang.Runtime"}}', 'Unknown field "@class" in wfs']
  ]
  for (const [service, payload, message] of cases) {
    const res = await app.inject({ method: 'PUT', url: `${REST}/services/${service}/settings.json`, headers: JSON_BODY, payload })
    t.equal(res.statusCode, 400, payload)
    t.equal(res.headers['content-type'], 'text/plain; charset=utf-8', payload)
    t.equal(res.body, message, payload)
  }
  const res = await app.inject({ method: 'PUT', url: `${REST}/services/wms/settings.xml`, headers: XML, payload: '<wms><maxRenderingTime>60</maxRenderingTime><title>x</title></wms>' })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'wms maxRenderingTime 60 is not supported: the renderer has no per-request time limit; 0 means no limit')
  t.equal((await app.inject({ url: `${REST}/services/wms/settings.json`, headers: ADMIN })).body, before.wms, 'unchanged')
  t.equal((await app.inject({ url: `${REST}/services/wfs/settings.json`, headers: ADMIN })).body, before.wfs, 'unchanged')
  t.equal(app.serviceSettings.get('wms').title, 'mapwarden Web Map Service')
})

t.test('WFS settings: stored, read back, and read by the one getter the WFS uses', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, keepOpen: true })
  let res = await app.inject({ method: 'PUT', url: `${REST}/services/wfs/settings.xml`, headers: XML, payload: '<wfs><maxFeatures>500</maxFeatures><serviceLevel>BASIC</serviceLevel><hitsIgnoreMaxFeatures>true</hitsIgnoreMaxFeatures><title>Features</title></wfs>' })
  t.equal(res.statusCode, 200, res.body)
  const s = app.serviceSettings.get('wfs')
  t.equal(s.maxFeatures, 500)
  t.equal(s.serviceLevel, 'BASIC')
  t.equal(s.hitsIgnoreMaxFeatures, true)
  t.equal(s.title, 'Features')
  await app.close()
  const again = await build(t, { dataDir })
  res = await again.inject({ url: `${REST}/services/wfs/settings.xml`, headers: ADMIN })
  t.match(res.body, '<title>Features</title>')
  t.match(res.body, '  <serviceLevel>BASIC</serviceLevel>\n  <maxFeatures>500</maxFeatures>\n')
  t.match(res.body, '<hitsIgnoreMaxFeatures>true</hitsIgnoreMaxFeatures>')
  t.equal(again.serviceSettings.get('wfs').maxFeatures, 500)
})

t.test('a workspace\'s own settings: created by PUT from the global ones, its virtual service only, DELETE and workspace removal drop them', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, keepOpen: true })
  const layer = await worldMosaic(app)
  const own = `${REST}/services/wms/workspaces/topp/settings`
  let res = await app.inject({ url: `${own}.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'No WMS settings for workspace topp')
  res = await app.inject({ method: 'PUT', url: `${REST}/services/wms/workspaces/nope/settings`, headers: XML, payload: '<wms><title>x</title></wms>' })
  t.equal(res.statusCode, 404)
  t.equal(res.body, "No such workspace: 'nope' found")

  res = await app.inject({ method: 'PUT', url: own, headers: XML, payload: '<wms><workspace><name>topp</name></workspace><title>Topp maps</title><enabled>false</enabled></wms>' })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ url: `${own}.xml`, headers: ADMIN })
  t.match(res.body, /^<wms>\n {2}<workspace>\n {4}<name>topp<\/name>\n {2}<\/workspace>\n {2}<enabled>false<\/enabled>\n {2}<name>WMS<\/name>\n {2}<title>Topp maps<\/title>\n {2}<abstrct>Maps of/)
  t.equal((await app.inject({ url: `${REST}/services/wms/settings.json`, headers: ADMIN })).json().wms.title, 'mapwarden Web Map Service', 'the global ones unchanged')

  const map = { SERVICE: 'WMS', VERSION: '1.3.0', REQUEST: 'GetMap', LAYERS: 'world', STYLES: '', CRS: 'EPSG:4326', BBOX: '-10,-20,30,20', WIDTH: 64, HEIGHT: 64, FORMAT: 'image/png' }
  res = await app.inject({ url: wmsUrl(map, '/topp/wms') })
  t.match(res.body, 'Service WMS is disabled', "the workspace's service is disabled")
  res = await app.inject({ url: wmsUrl({ ...map, LAYERS: layer }) })
  t.equal(res.headers['content-type'], 'image/png', 'the global one is not')

  res = await app.inject({ method: 'PUT', url: `${own}.json`, headers: JSON_BODY, payload: '{"wms":{"enabled":true}}' })
  t.equal(res.statusCode, 200)
  res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }, '/topp/wms') })
  t.match(res.body, '<Title>Topp maps</Title>', "its own title, as set")
  res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }) })
  t.match(res.body, '<Title>mapwarden Web Map Service</Title>')

  await app.close()
  const again = await build(t, { dataDir, keepOpen: true })
  res = await again.inject({ url: `${own}.json`, headers: ADMIN })
  t.equal(res.statusCode, 200, 'kept over a restart')
  t.equal(res.json().wms.title, 'Topp maps')
  t.equal(res.json().wms.workspace.name, 'topp')
  res = await again.inject({ method: 'POST', url: own, headers: ADMIN })
  t.equal(res.statusCode, 405)
  res = await again.inject({ method: 'DELETE', url: own, headers: ADMIN })
  t.equal(res.statusCode, 200)
  res = await again.inject({ method: 'DELETE', url: own, headers: ADMIN })
  t.equal(res.statusCode, 404)
  res = await again.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }, '/topp/wms') })
  t.match(res.body, '<Title>mapwarden Web Map Service: workspace topp</Title>', 'the global settings again')

  // A removed workspace's settings go with it: a new workspace of the same name starts without.
  res = await again.inject({ method: 'PUT', url: `${REST}/services/wfs/workspaces/topp/settings`, headers: XML, payload: '<wfs><title>T</title><maxFeatures>10</maxFeatures></wfs>' })
  t.equal(res.statusCode, 200)
  t.equal(again.serviceSettings.get('wfs', 'topp').maxFeatures, 10, "the WFS of the workspace reads its own")
  t.equal(again.serviceSettings.get('wfs').maxFeatures, 1000000)
  res = await again.inject({ method: 'PUT', url: `${REST}/services/wmts/workspaces/topp/settings`, headers: XML, payload: '<wmts><title>T</title></wmts>' })
  t.equal(res.statusCode, 404, 'no per-workspace WMTS')
  res = await again.inject({ method: 'DELETE', url: `${REST}/workspaces/topp?recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200, res.body)
  res = await again.inject({ method: 'POST', url: `${REST}/workspaces`, headers: XML, payload: '<workspace><name>topp</name></workspace>' })
  t.equal(res.statusCode, 201)
  res = await again.inject({ url: `${REST}/services/wfs/workspaces/topp/settings.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'No WFS settings for workspace topp')
  await again.close()
  const third = await build(t, { dataDir })
  res = await third.inject({ url: `${REST}/services/wfs/workspaces/topp/settings.json`, headers: ADMIN })
  t.equal(res.statusCode, 404, 'gone from the store too')
})

t.test('two instances on one database: a change on one is what the other serves', { skip: TEST_BACKEND !== 'pg' ? 'PostgreSQL only (several instances share it)' : false }, async (t) => {
  const databaseUrl = await pgDatabase(t, { migrated: true })
  const dataDir = tempDir(t)
  const a = await build(t, { dataDir, databaseUrl })
  const b = await build(t, { dataDir, databaseUrl })
  let res = await a.inject({ method: 'POST', url: `${REST}/workspaces`, headers: XML, payload: '<workspace><name>topp</name></workspace>' })
  t.equal(res.statusCode, 201)
  res = await a.inject({ method: 'PUT', url: `${REST}/services/wms/settings.json`, headers: JSON_BODY, payload: '{"wms":{"title":"Shared title","enabled":false}}' })
  t.equal(res.statusCode, 200)
  await until('b serves the title and the disabled WMS', async () => b.serviceSettings.get('wms').title === 'Shared title', 60)
  res = await b.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }) })
  t.match(res.body, 'Service WMS is disabled')
  t.match((await b.inject({ url: `${REST}/services/wms/settings.json`, headers: ADMIN })).body, '"enabled":false,"name":"WMS","title":"Shared title"')
  // Both change at once: one after the other, nothing lost.
  await Promise.all([
    a.inject({ method: 'PUT', url: `${REST}/services/wms/settings.json`, headers: JSON_BODY, payload: '{"wms":{"fees":"by a"}}' }),
    b.inject({ method: 'PUT', url: `${REST}/services/wms/settings.json`, headers: JSON_BODY, payload: '{"wms":{"accessConstraints":"by b"}}' })
  ])
  for (const app of [a, b]) {
    await until('both changes kept on each node', async () => app.serviceSettings.get('wms').fees === 'by a' && app.serviceSettings.get('wms').accessConstraints === 'by b', 60)
  }
  // A workspace's own settings, and their removal with the workspace, reach the other node.
  res = await a.inject({ method: 'PUT', url: `${REST}/services/wfs/workspaces/topp/settings`, headers: JSON_BODY, payload: '{"wfs":{"maxFeatures":5}}' })
  t.equal(res.statusCode, 200)
  await until('b has topp\'s WFS settings', async () => b.serviceSettings.local('wfs', 'topp')?.maxFeatures === 5, 60)
  res = await a.inject({ method: 'DELETE', url: `${REST}/workspaces/topp`, headers: ADMIN })
  t.equal(res.statusCode, 200, res.body)
  await until('b dropped them', async () => b.serviceSettings.local('wfs', 'topp') === undefined, 60)
  t.pass('every change reached the other node')
})

t.test('WMS maxRequestMemory: a GetMap whose image needs more KiB is refused with GeoServer\'s message; 0 lifts it', async (t) => {
  const app = await build(t)
  const layer = await worldMosaic(app)
  const map = (w: number, h: number) => wmsUrl({ SERVICE: 'WMS', VERSION: '1.3.0', REQUEST: 'GetMap', LAYERS: layer, STYLES: '', CRS: 'EPSG:4326', BBOX: '-10,-20,30,20', WIDTH: w, HEIGHT: h, FORMAT: 'image/png' })
  let res = await app.inject({ method: 'PUT', url: `${REST}/services/wms/settings.xml`, headers: XML, payload: '<wms><maxRequestMemory>100</maxRequestMemory></wms>' })
  t.equal(res.statusCode, 200, res.body)
  t.match((await app.inject({ url: `${REST}/services/wms/settings.json`, headers: ADMIN })).body, '"maxRequestMemory":100,')
  res = await app.inject({ url: map(256, 256) })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/xml; charset=utf-8')
  t.match(res.body, '<ServiceException>\n      Rendering request would use 256KB, whilst the maximum memory allowed is 100KB\n</ServiceException>')
  res = await app.inject({ url: map(160, 160) })
  t.equal(res.headers['content-type'], 'image/png', '100 KiB: drawn')
  res = await app.inject({ method: 'PUT', url: `${REST}/services/wms/settings.json`, headers: JSON_BODY, payload: '{"wms":{"maxRequestMemory":0}}' })
  t.equal(res.statusCode, 200)
  res = await app.inject({ url: map(256, 256) })
  t.equal(res.headers['content-type'], 'image/png', '0: no limit')
})
