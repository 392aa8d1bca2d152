// WMS failures as clients read them: ServiceExceptionReport with the OGC code in the version
// asked for (1.1.1: application/vnd.ogc.se_xml; 1.3.0: text/xml in the ogc namespace), the status
// of the failure's kind; EXCEPTIONS=INIMAGE and BLANK answer an image; GetFeatureInfo formats and
// its own errors; the layer rules in the three catalog modes.
import t from 'tap'
import sharp from 'sharp'
import { build, ADMIN, BASE, basic } from '../../helper.js'
import { at, parseDoc, pixels, timeMosaic, wmsUrl, worldMosaic } from './helpers.js'

const MAP = { SERVICE: 'WMS', REQUEST: 'GetMap', STYLES: '', FORMAT: 'image/png', WIDTH: 64, HEIGHT: 32 }

t.test('each bad request answers its OGC exception code', async (t) => {
  const app = await build(t)
  const world = await worldMosaic(app)
  await timeMosaic(app)
  const v13 = { ...MAP, VERSION: '1.3.0', LAYERS: world, CRS: 'EPSG:4326', BBOX: '-10,-20,30,20' }
  const v11 = { ...MAP, VERSION: '1.1.1', LAYERS: world, SRS: 'EPSG:4326', BBOX: '-20,-10,20,30' }
  const cases: Array<[string, Record<string, string | number>, string, string]> = [
    ['unknown layer', { ...v13, LAYERS: 'topp:nope' }, 'LayerNotDefined', 'Could not find layer topp:nope'],
    ['unknown style', { ...v13, STYLES: 'nostyle' }, 'StyleNotDefined', 'No such style nostyle for layer topp:world'],
    ['unknown CRS in 1.3.0', { ...v13, CRS: 'EPSG:99999' }, 'InvalidCRS', 'EPSG:99999'],
    ['unknown SRS in 1.1.1', { ...v11, SRS: 'EPSG:99999' }, 'InvalidSRS', 'EPSG:99999'],
    ['unknown format', { ...v13, FORMAT: 'image/tiff' }, 'InvalidFormat', 'image/tiff'],
    ['no BBOX', { ...v13, BBOX: '' }, 'MissingParameterValue', 'BBOX parameter is mandatory'],
    ['no LAYERS', { ...v13, LAYERS: '' }, 'MissingParameterValue', 'LAYERS parameter is mandatory'],
    ['no FORMAT', { ...v13, FORMAT: '' }, 'MissingParameterValue', 'FORMAT parameter is mandatory'],
    ['bad BBOX', { ...v13, BBOX: '1,2,3' }, 'InvalidParameterValue', 'four comma-separated numbers'],
    ['inverted BBOX', { ...v13, BBOX: '30,-20,-10,20' }, 'InvalidParameterValue', 'the minimum must be below the maximum'],
    ['bad WIDTH', { ...v13, WIDTH: 'wide' }, 'InvalidParameterValue', 'a positive integer is expected'],
    ['bad TIME', { ...v13, LAYERS: 'ws:temp', TIME: 'yesterday' }, 'InvalidDimensionValue', 'Invalid TIME value'],
    ['bad ELEVATION', { ...v13, LAYERS: 'ws:temp', ELEVATION: 'deep' }, 'InvalidDimensionValue', 'Invalid ELEVATION value'],
    ['bad CQL_FILTER', { ...v13, LAYERS: 'ws:temp', CQL_FILTER: 'elevation ==== 1' }, 'InvalidParameterValue', 'Invalid cql syntax'],
    ['bad BGCOLOR', { ...v13, BGCOLOR: 'red' }, 'InvalidParameterValue', 'BGCOLOR'],
    ['bad TRANSPARENT', { ...v13, TRANSPARENT: 'maybe' }, 'InvalidParameterValue', 'TRANSPARENT'],
    ['styles count', { ...v13, STYLES: 'raster,raster' }, 'InvalidParameterValue', '2 styles for 1 layers'],
    ['unknown request', { SERVICE: 'WMS', VERSION: '1.3.0', REQUEST: 'GetLegendGraphics' }, 'OperationNotSupported', 'GetLegendGraphics'],
    ['no request', { SERVICE: 'WMS', VERSION: '1.3.0' }, 'MissingParameterValue', 'REQUEST parameter is mandatory']
  ]
  for (const [label, q, code, message] of cases) {
    const res = await app.inject({ method: 'GET', url: wmsUrl(q) })
    t.equal(res.statusCode, 400, label)
    const version = q.VERSION === '1.1.1' ? '1.1.1' : '1.3.0'
    t.equal(res.headers['content-type'], version === '1.1.1' ? 'application/vnd.ogc.se_xml; charset=utf-8' : 'text/xml; charset=utf-8', `${label}: media type`)
    const doc = (await parseDoc(res.body)).ServiceExceptionReport
    t.equal(doc.$.version, version, `${label}: report version`)
    if (version === '1.3.0') t.equal(doc.$.xmlns, 'http://www.opengis.net/ogc')
    t.equal(doc.ServiceException.$.code, code, `${label}: code`)
    t.match(doc.ServiceException._, message, `${label}: message`)
  }
})

t.test('EXCEPTIONS=INIMAGE draws the message into the map, BLANK answers an empty one', async (t) => {
  const app = await build(t)
  await worldMosaic(app)
  const q = { ...MAP, VERSION: '1.3.0', LAYERS: 'topp:nope', CRS: 'EPSG:4326', BBOX: '-10,-20,30,20', WIDTH: 300, HEIGHT: 60 }
  let res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, EXCEPTIONS: 'INIMAGE' }) })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'image/png')
  let p = await pixels(res.rawPayload)
  t.same([p.width, p.height], [300, 60])
  let dark = 0
  for (let i = 0; i < p.data.length; i += 4) if (p.data[i] < 128) dark++
  t.ok(dark > 50, `the message is written (${dark} dark pixels)`)
  t.same(at(p, 299, 59), [255, 255, 255, 255], 'on the background colour')
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, VERSION: '1.1.1', SRS: 'EPSG:4326', EXCEPTIONS: 'application/vnd.ogc.se_blank', TRANSPARENT: 'true' }) })
  t.equal(res.statusCode, 200)
  p = await pixels(res.rawPayload)
  t.ok(p.data.every((v, i) => i % 4 !== 3 || v === 0), 'BLANK + TRANSPARENT: every pixel transparent')
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, EXCEPTIONS: 'BLANK', FORMAT: 'image/jpeg', BGCOLOR: '0x336699' }) })
  t.equal(res.headers['content-type'], 'image/jpeg')
  t.equal((await sharp(res.rawPayload).metadata()).format, 'jpeg')
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, EXCEPTIONS: 'INIMAGE', WIDTH: 'x' }) })
  t.equal(res.statusCode, 400, 'no size to draw in: the XML report')
  t.match(res.body, 'code="InvalidParameterValue"')
})

t.test('GetFeatureInfo: text, JSON and GML with the coverage\'s band names; its own errors', async (t) => {
  const app = await build(t)
  const world = await worldMosaic(app)
  const temp = await timeMosaic(app)
  const q = { SERVICE: 'WMS', REQUEST: 'GetFeatureInfo', VERSION: '1.1.1', LAYERS: `${world},${temp}`, QUERY_LAYERS: `${world},${temp}`, STYLES: '', SRS: 'EPSG:4326', BBOX: '0,0,10,10', WIDTH: 10, HEIGHT: 10, X: 2, Y: 7 }
  // Pixel (2, 7) of the map is lon 2.5, lat 2.5: world pixel column (2.5+20)*2 = 45, row (30-2.5)*2 = 55.
  const rgb = [(45 * 5) % 256, (55 * 7) % 256, ((45 + 55) * 3) % 256]
  let res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, INFO_FORMAT: 'text/plain' }) })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/plain; charset=utf-8')
  t.equal(res.body, [`Results for FeatureType '${world}':`, '--------------------------------------------', `RED_BAND = ${rgb[0]}`, `GREEN_BAND = ${rgb[1]}`, `BLUE_BAND = ${rgb[2]}`,
    '--------------------------------------------', `Results for FeatureType '${temp}':`, '--------------------------------------------', 'GRAY_INDEX = 30', '--------------------------------------------', ''].join('\n'))
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, INFO_FORMAT: 'application/json' }) })
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  const json = JSON.parse(res.body)
  t.equal(json.type, 'FeatureCollection')
  t.same(json.features.map((f: any) => f.properties), [{ RED_BAND: rgb[0], GREEN_BAND: rgb[1], BLUE_BAND: rgb[2] }, { GRAY_INDEX: 30 }])
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, INFO_FORMAT: 'application/vnd.ogc.gml' }) })
  t.equal(res.headers['content-type'], 'application/vnd.ogc.gml')
  const gml = (await parseDoc(res.body))['wfs:FeatureCollection']
  const members = Array.isArray(gml['gml:featureMember']) ? gml['gml:featureMember'] : [gml['gml:featureMember']]
  t.same(members[0]['topp:world'], { 'topp:RED_BAND': String(rgb[0]), 'topp:GREEN_BAND': String(rgb[1]), 'topp:BLUE_BAND': String(rgb[2]) })
  t.same(members[1]['ws:temp'], { 'ws:GRAY_INDEX': '30' })
  // 1.3.0: I/J; outside the granules: no feature.
  res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, VERSION: '1.3.0', SRS: '', CRS: 'EPSG:4326', BBOX: '20,20,30,30', X: '', Y: '', I: 5, J: 5, QUERY_LAYERS: temp, INFO_FORMAT: 'application/json' }) })
  t.equal(res.statusCode, 200, res.body)
  t.same(JSON.parse(res.body).features, [], 'no data under the point')

  const bad: Array<[Record<string, string | number>, string, string]> = [
    [{ X: 10 }, 'InvalidPoint', 'X 10 is outside the map of 10 pixels'],
    [{ Y: '' }, 'MissingParameterValue', 'Y parameter is mandatory'],
    [{ QUERY_LAYERS: '' }, 'MissingParameterValue', 'QUERY_LAYERS'],
    [{ LAYERS: world, QUERY_LAYERS: temp }, 'LayerNotQueryable', `Layer ${temp} is not among the LAYERS`],
    [{ INFO_FORMAT: 'text/csv' }, 'InvalidFormat', 'INFO_FORMAT']
  ]
  for (const [over, code, message] of bad) {
    res = await app.inject({ method: 'GET', url: wmsUrl({ ...q, ...over }) })
    t.equal(res.statusCode, 400, code)
    t.match(res.body, `code="${code}"`)
    t.match(res.body, message)
  }
})

t.test('layer rules in HIDE, MIXED and CHALLENGE: listed, challenged (401) or LayerNotDefined', async (t) => {
  const app = await build(t)
  await worldMosaic(app, 'topp', 'secret')
  await worldMosaic(app, 'topp', 'open')
  const json = { ...ADMIN, 'content-type': 'application/json' }
  let res = await app.inject({ method: 'POST', url: `${BASE}/rest/security/acl/layers.json`, headers: json, payload: '{"topp.secret.r":"ROLE_READER"}' })
  t.equal(res.statusCode, 201)
  for (const [who, role] of [['reader', 'ROLE_READER'], ['plain', undefined]] as const) {
    res = await app.inject({ method: 'POST', url: `${BASE}/rest/security/usergroup/users`, headers: json, payload: { user: { userName: who, password: `${who}-password` } } })
    t.equal(res.statusCode, 201)
    if (role) {
      await app.inject({ method: 'POST', url: `${BASE}/rest/security/roles/role/${role}`, headers: ADMIN })
      await app.inject({ method: 'POST', url: `${BASE}/rest/security/roles/role/${role}/user/${who}`, headers: ADMIN })
    }
  }
  const headers = { anon: {}, reader: { authorization: basic('reader', 'reader-password') }, plain: { authorization: basic('plain', 'plain-password') } }
  // [listed in capabilities, GetMap status, GetFeatureInfo status]
  const expect: Record<string, Record<keyof typeof headers, [boolean, number, number]>> = {
    HIDE: { anon: [false, 400, 400], reader: [true, 200, 200], plain: [false, 400, 400] },
    MIXED: { anon: [false, 401, 401], reader: [true, 200, 200], plain: [false, 403, 403] },
    CHALLENGE: { anon: [true, 401, 401], reader: [true, 200, 200], plain: [true, 403, 403] }
  }
  const map = { ...MAP, VERSION: '1.3.0', CRS: 'EPSG:4326', BBOX: '-10,-20,30,20' }
  for (const mode of ['HIDE', 'MIXED', 'CHALLENGE']) {
    res = await app.inject({ method: 'PUT', url: `${BASE}/rest/security/acl/catalog.json`, headers: json, payload: JSON.stringify({ mode }) })
    t.equal(res.statusCode, 200)
    for (const who of Object.keys(headers) as Array<keyof typeof headers>) {
      const [listed, getMap, info] = expect[mode][who]
      const label = `${mode} ${who}`
      res = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities' }), headers: headers[who] })
      t.equal(res.body.includes('<Name>topp:secret</Name>'), listed, `${label}: listed`)
      t.ok(res.body.includes('<Name>topp:open</Name>'), `${label}: the open layer is listed`)
      res = await app.inject({ method: 'GET', url: wmsUrl({ ...map, LAYERS: 'topp:secret' }), headers: headers[who] })
      t.equal(res.statusCode, getMap, `${label}: GetMap`)
      if (getMap === 400) t.match(res.body, 'code="LayerNotDefined"', `${label}: hidden looks like missing`)
      if (getMap === 401) t.equal(res.headers['www-authenticate'], 'Basic realm="GeoServer Realm"')
      res = await app.inject({ method: 'GET', url: wmsUrl({ ...map, LAYERS: 'topp:open,topp:secret' }), headers: headers[who] })
      t.equal(res.statusCode, getMap, `${label}: GetMap of an open and the secret layer`)
      res = await app.inject({ method: 'GET', url: wmsUrl({ ...map, REQUEST: 'GetFeatureInfo', LAYERS: 'topp:secret', QUERY_LAYERS: 'topp:secret', I: 1, J: 1 }), headers: headers[who] })
      t.equal(res.statusCode, info, `${label}: GetFeatureInfo`)
      res = await app.inject({ method: 'GET', url: wmsUrl({ ...map, LAYERS: 'topp:secret', TILED: 'true', EXCEPTIONS: 'INIMAGE' }), headers: headers[who] })
      t.equal(res.statusCode, getMap === 400 ? 200 : getMap, `${label}: INIMAGE never hides a challenge`)
    }
  }
})
