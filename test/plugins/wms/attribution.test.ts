// A layer's attribution (GeoServer's AttributionInfo): kept from a PUT in JSON or XML, returned in
// GeoServer's field order, shown as <Attribution> in WMS capabilities 1.1.1 and 1.3.0 (valid against
// the OGC schemas), refused with a message when a field is wrong, removed with "".
import t from 'tap'
import path from 'node:path'
import { build, tempDir, ADMIN, BASE } from '../../helper.js'
import { wmsUrl, worldMosaic, xmllint } from './helpers.js'

const SCHEMAS = '/usr/share/python3-mapproxy/test/schemas/wms'
const REST = `${BASE}/rest`
const LAYER = `${REST}/layers/topp:world`
const JSON_BODY = { 'content-type': 'application/json' }

t.test('attribution: PUT in JSON and XML, GET in GeoServer\'s shape, WMS capabilities show it', async (t) => {
  const app = await build(t)
  await worldMosaic(app)
  let res = await app.inject({ url: `${LAYER}.json`, headers: ADMIN })
  t.equal(res.json().layer.attribution, undefined, 'none until one is set')

  const attribution = { title: 'Natural Earth & friends', href: 'https://www.naturalearthdata.com/', logoURL: 'https://example.org/logo.png', logoWidth: 20, logoHeight: 10, logoType: 'image/png' }
  res = await app.inject({ method: 'PUT', url: `${LAYER}.json`, headers: { ...ADMIN, ...JSON_BODY }, payload: { layer: { attribution } } })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ url: `${LAYER}.json`, headers: ADMIN })
  t.same(res.json().layer.attribution, attribution)
  t.same(Object.keys(res.json().layer.attribution), ['title', 'href', 'logoURL', 'logoWidth', 'logoHeight', 'logoType'], 'AttributionInfoImpl\'s order')
  t.equal(res.json().layer.defaultStyle?.name, (await app.inject({ url: `${LAYER}.json`, headers: ADMIN })).json().layer.defaultStyle?.name, 'the styles untouched')
  res = await app.inject({ url: `${LAYER}.xml`, headers: ADMIN })
  t.match(res.body, ['  <attribution>', '    <title>Natural Earth &amp; friends</title>', '    <href>https://www.naturalearthdata.com/</href>',
    '    <logoURL>https://example.org/logo.png</logoURL>', '    <logoWidth>20</logoWidth>', '    <logoHeight>10</logoHeight>', '    <logoType>image/png</logoType>', '  </attribution>'].join('\n'))

  for (const version of ['1.1.1', '1.3.0']) {
    res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: version }) })
    const xl = version === '1.1.1' ? ' xmlns:xlink="http://www.w3.org/1999/xlink"' : ''
    t.match(res.body, [
      '        <Attribution>',
      '          <Title>Natural Earth &amp; friends</Title>',
      `          <OnlineResource${xl} xlink:type="simple" xlink:href="https://www.naturalearthdata.com/"/>`,
      '          <LogoURL width="20" height="10">',
      '            <Format>image/png</Format>',
      `            <OnlineResource${xl} xlink:type="simple" xlink:href="https://example.org/logo.png"/>`,
      '          </LogoURL>',
      '        </Attribution>',
      '        <Style>'].join('\n'), `capabilities ${version}: after the bounds, before the styles`)
    if (version === '1.3.0') xmllint(t, res.body, 'capabilities 1.3.0 with an attribution', ['--schema', path.join(SCHEMAS, '1.3.0/capabilities_1_3_0.xsd')])
    else xmllint(t, res.body, 'capabilities 1.1.1 with an attribution', ['--dtdvalid', path.join(SCHEMAS, '1.1.1/WMS_MS_Capabilities.dtd')])
  }

  // XML bodies carry text: the sizes are read as numbers; the PUT replaces the whole attribution.
  res = await app.inject({ method: 'PUT', url: LAYER, headers: { ...ADMIN, 'content-type': 'application/xml' }, payload: '<layer><attribution><title>OSM</title><logoWidth>8</logoWidth></attribution></layer>' })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ url: `${LAYER}.json`, headers: ADMIN })
  t.same(res.json().layer.attribution, { title: 'OSM', logoWidth: 8, logoHeight: 0 })
  res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }) })
  t.match(res.body, '        <Attribution>\n          <Title>OSM</Title>\n        </Attribution>\n')

  // Refusals name the field, and change nothing.
  const refused = async (attr: unknown, message: RegExp) => {
    const r = await app.inject({ method: 'PUT', url: `${LAYER}.json`, headers: { ...ADMIN, ...JSON_BODY }, payload: { layer: { attribution: attr } } })
    t.equal(r.statusCode, 400, JSON.stringify(attr))
    t.match(r.body, message)
  }
  await refused({ href: 'javascript:alert(1)' }, /layer attribution href must be an http\(s\) URL/)
  await refused({ logoURL: 'not a url' }, /layer attribution logoURL must be an absolute http\(s\) URL/)
  await refused({ logoWidth: -3 }, /layer attribution logoWidth must be a whole number of pixels/)
  await refused({ logoType: 'png' }, /logoType must be a media type/)
  await refused({ logo: 'x' }, /"logo".*layer attribution|layer attribution.*"logo"/)
  await refused('OSM', /layer attribution must be an object/)
  res = await app.inject({ url: `${LAYER}.json`, headers: ADMIN })
  t.same(res.json().layer.attribution, { title: 'OSM', logoWidth: 8, logoHeight: 0 }, 'unchanged by the refusals')

  // "" removes it; so does an object with nothing set.
  res = await app.inject({ method: 'PUT', url: `${LAYER}.json`, headers: { ...ADMIN, ...JSON_BODY }, payload: { layer: { attribution: '' } } })
  t.equal(res.statusCode, 200)
  res = await app.inject({ url: `${LAYER}.json`, headers: ADMIN })
  t.equal(res.json().layer.attribution, undefined)
  res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.1.1' }) })
  t.notMatch(res.body, '<Attribution>')
})

t.test('attribution: kept in the catalog across a restart', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir, keepOpen: true })
  await worldMosaic(first)
  const res = await first.inject({ method: 'PUT', url: `${LAYER}.json`, headers: { ...ADMIN, ...JSON_BODY }, payload: { layer: { attribution: { title: 'Kept', href: 'http://example.org/' } } } })
  t.equal(res.statusCode, 200, res.body)
  await first.close()
  const again = await build(t, { dataDir })
  const got = await again.inject({ url: `${LAYER}.json`, headers: ADMIN })
  t.same(got.json().layer.attribution, { title: 'Kept', href: 'http://example.org/', logoWidth: 0, logoHeight: 0 })
})
