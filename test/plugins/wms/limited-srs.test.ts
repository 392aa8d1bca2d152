// GeoServer's limited SRS list (WMSInfo srs, bboxForEachCRS) through HTTP: PUT in the WMS settings,
// read back; WMS 1.3.0 and 1.1.1 capabilities list only those codes (GeoServer's comment, CRS:84 last
// in 1.3.0) and, with bboxForEachCRS, a BoundingBox in each for every layer (axis order per version);
// GetMap in a code outside the list is still served, as GeoServer does; an unknown code is a 400 that
// changes nothing; an empty list lists every code again.
import t from 'tap'
import path from 'node:path'
import { build, ADMIN, BASE } from '../../helper.js'
import { wmsUrl, worldMosaic, xmllint } from './helpers.js'

const SCHEMAS = '/usr/share/python3-mapproxy/test/schemas/wms'

const SETTINGS = `${BASE}/rest/services/wms/settings`
const XML = { ...ADMIN, 'content-type': 'application/xml' }

const caps = async (app: any, version: string) => (await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: version }) })).body as string
/** The root layer's lines between its Abstract and its geographic box. */
function rootList (doc: string): string[] {
  const lines = doc.slice(doc.indexOf('<Abstract>The layers of this service.</Abstract>')).split('\n').slice(1).map((l) => l.trim())
  return lines.slice(0, lines.findIndex((l) => /BoundingBox/.test(l)))
}
/** The BoundingBox of a CRS inside the named layer. */
function layerBox (doc: string, layer: string, tag: string, crs: string): number[] | undefined {
  const part = doc.slice(doc.indexOf(`<Name>${layer}</Name>`))
  const m = new RegExp(`<BoundingBox ${tag}="${crs}" minx="([^"]+)" miny="([^"]+)" maxx="([^"]+)" maxy="([^"]+)"/>`).exec(part.slice(0, part.indexOf('</Layer>')))
  return m ? m.slice(1).map(Number) : undefined
}

t.test('a limited SRS list with bboxForEachCRS: read back, the capabilities list only it, a box in each; GetMap outside it still served', async (t) => {
  const app = await build(t)
  const layer = await worldMosaic(app)
  let res = await app.inject({ method: 'PUT', url: `${SETTINGS}.xml`, headers: XML, payload: '<wms><srs><string>EPSG:4326</string><string>3035</string><string>EPSG:27700</string></srs><bboxForEachCRS>true</bboxForEachCRS></wms>' })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ url: `${SETTINGS}.xml`, headers: ADMIN })
  t.match(res.body, '  <verbose>false</verbose>\n  <srs>\n    <string>EPSG:4326</string>\n    <string>3035</string>\n    <string>EPSG:27700</string>\n  </srs>\n  <bboxForEachCRS>true</bboxForEachCRS>\n  <watermark>')
  res = await app.inject({ url: `${SETTINGS}.json`, headers: ADMIN })
  t.match(res.json().wms, { srs: { string: ['EPSG:4326', '3035', 'EPSG:27700'] }, bboxForEachCRS: true })

  const c13 = await caps(app, '1.3.0')
  t.same(rootList(c13), ['<!--Limited list of EPSG projections:-->', '<CRS>EPSG:4326</CRS>', '<CRS>EPSG:3035</CRS>', '<CRS>EPSG:27700</CRS>', '<CRS>CRS:84</CRS>'], '1.3.0: the list, CRS:84 last')
  t.notMatch(c13, 'All supported EPSG projections')
  t.notMatch(c13, '<CRS>EPSG:2154</CRS>')
  const c11 = await caps(app, '1.1.1')
  t.same(rootList(c11), ['<!--Limited list of EPSG projections:-->', '<SRS>EPSG:4326</SRS>', '<SRS>EPSG:3035</SRS>', '<SRS>EPSG:27700</SRS>'], '1.1.1: the list alone')

  // A BoundingBox in each listed CRS (besides those every layer has): 1.3.0 in EPSG axis order
  // (EPSG:3035 northing first, EPSG:27700 easting first), 1.1.1 easting first.
  for (const crs of ['EPSG:3035', 'EPSG:27700']) {
    const b13 = layerBox(c13, layer, 'CRS', crs)
    const b11 = layerBox(c11, layer, 'SRS', crs)
    t.ok(b13 && b11, `${crs}: a box in both versions`)
    if (!b13 || !b11) continue
    t.ok(b11[0] < b11[2] && b11[1] < b11[3], `${crs}: ${b11.join(',')} is a box`)
    t.same(b13, crs === 'EPSG:3035' ? [b11[1], b11[0], b11[3], b11[2]] : b11, `${crs}: 1.3.0 axis order`)
  }
  // EPSG:3035 of lon -20..20, lat -10..30 (LAEA centred on 10E 52N): eastings from about 1.2e6, northings below 2e6.
  const laea = layerBox(c11, layer, 'SRS', 'EPSG:3035')!
  t.ok(laea[0] > 5e5 && laea[0] < 2.5e6 && laea[3] < 2.5e6, `EPSG:3035 box ${laea.join(',')}`)
  t.ok(layerBox(c13, layer, 'CRS', 'EPSG:4326'), 'the service-wide boxes stay')
  xmllint(t, c13, 'limited capabilities 1.3.0', ['--schema', path.join(SCHEMAS, '1.3.0/capabilities_1_3_0.xsd')])
  xmllint(t, c11, 'limited capabilities 1.1.1', ['--dtdvalid', path.join(SCHEMAS, '1.1.1/WMS_MS_Capabilities.dtd')])

  // GetMap in a code the list leaves out is served (GeoServer limits the capabilities only).
  const map = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.3.0', LAYERS: layer, STYLES: '', CRS: 'EPSG:32632', BBOX: '0,0,1000000,3000000', WIDTH: 64, HEIGHT: 64, FORMAT: 'image/png' }) })
  t.equal(map.statusCode, 200, map.body.slice(0, 300))
  t.equal(map.headers['content-type'], 'image/png')

  // bboxForEachCRS false: the list stays, the extra boxes go.
  res = await app.inject({ method: 'PUT', url: `${SETTINGS}.xml`, headers: XML, payload: '<wms><bboxForEachCRS>false</bboxForEachCRS></wms>' })
  t.equal(res.statusCode, 200, res.body)
  const plain = await caps(app, '1.3.0')
  t.match(plain, '<CRS>EPSG:27700</CRS>')
  t.equal(layerBox(plain, layer, 'CRS', 'EPSG:27700'), undefined, 'no box in a listed CRS without bboxForEachCRS')
  t.equal(layerBox(plain, layer, 'CRS', 'EPSG:3035'), undefined)

  // An unknown code is refused by name and nothing changes.
  res = await app.inject({ method: 'PUT', url: `${SETTINGS}.xml`, headers: XML, payload: '<wms><srs><string>4326</string><string>EPSG:99999999</string></srs></wms>' })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'wms srs: "EPSG:99999999" is not an EPSG code the server knows (4326 or EPSG:4326)')
  t.same(app.serviceSettings.get('wms').srs, ['EPSG:4326', '3035', 'EPSG:27700'])

  // A workspace's own WMS settings limit its virtual service only.
  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/services/wms/workspaces/topp/settings.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ wms: { srs: { string: ['3857'] } } }) })
  t.equal(res.statusCode, 200, res.body)
  const local = (await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.1.1' }, '/topp/wms') })).body
  t.same(rootList(local), ['<!--Limited list of EPSG projections:-->', '<SRS>EPSG:3857</SRS>'], 'topp\'s own list')
  t.same(rootList(await caps(app, '1.1.1')).slice(1), ['<SRS>EPSG:4326</SRS>', '<SRS>EPSG:3035</SRS>', '<SRS>EPSG:27700</SRS>'], 'the global list stays')

  // An empty list: every code again.
  res = await app.inject({ method: 'PUT', url: `${SETTINGS}.xml`, headers: XML, payload: '<wms><srs/></wms>' })
  t.equal(res.statusCode, 200, res.body)
  const all = await caps(app, '1.3.0')
  t.match(all, '<!--All supported EPSG projections:-->')
  t.match(all, '<CRS>EPSG:2154</CRS>')
  t.match((await app.inject({ url: `${SETTINGS}.xml`, headers: ADMIN })).body, '\n  <srs/>\n')
})
