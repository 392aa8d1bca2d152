// WMS GetCapabilities 1.3.0 and 1.1.1 through HTTP: every readable mosaic layer with its title,
// boxes per CRS (1.3.0's EPSG:4326 latitude first), styles, TIME and ELEVATION dimensions; the
// per-workspace service; version negotiation; documents well-formed (xmllint) and in the element
// order of the OGC schema (capabilities_1_3_0.xsd) and DTD (WMS_MS_Capabilities.dtd).
import t, { type Test } from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { arr, parseDoc, timeMosaic, wmsUrl, worldMosaic, xmllint } from './helpers.js'

const SLD = `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld">
  <NamedLayer><Name>temp</Name><UserStyle><Name>ramp</Name>
    <FeatureTypeStyle><Rule><RasterSymbolizer><ColorMap>
      <ColorMapEntry color="#0000ff" quantity="0"/><ColorMapEntry color="#ff0000" quantity="40"/>
    </ColorMap></RasterSymbolizer></Rule></FeatureTypeStyle>
  </UserStyle></NamedLayer>
</StyledLayerDescriptor>`

// The schema's sequences (capabilities_1_3_0.xsd: Layer, Service; DTD WMT_MS_Capabilities 1.1.1: Layer).
const LAYER_130 = ['Name', 'Title', 'Abstract', 'KeywordList', 'CRS', 'EX_GeographicBoundingBox', 'BoundingBox', 'Dimension', 'Attribution', 'AuthorityURL', 'Identifier', 'MetadataURL', 'DataURL', 'FeatureListURL', 'Style', 'MinScaleDenominator', 'MaxScaleDenominator', 'Layer']
const LAYER_111 = ['Name', 'Title', 'Abstract', 'KeywordList', 'SRS', 'LatLonBoundingBox', 'BoundingBox', 'Dimension', 'Extent', 'Attribution', 'AuthorityURL', 'Identifier', 'MetadataURL', 'DataURL', 'FeatureListURL', 'Style', 'ScaleHint', 'Layer']
const SERVICE_130 = ['Name', 'Title', 'Abstract', 'KeywordList', 'OnlineResource', 'ContactInformation', 'Fees', 'AccessConstraints', 'LayerLimit', 'MaxWidth', 'MaxHeight']

/** The child element names of the first `<tag ...>` after `from` in document order, at one level. */
function childOrder (xml: string, order: string[], t: Test, label: string) {
  // Every Layer element: its direct children must follow the schema's sequence.
  const tags = [...xml.matchAll(/<(\/?)([A-Za-z_]+)[^>]*?(\/?)>/g)].map((m) => ({ close: m[1] === '/', name: m[2], empty: m[3] === '/' }))
  const stack: Array<{ name: string, children: string[] }> = []
  let checked = 0
  for (const tag of tags) {
    if (tag.close) {
      const done = stack.pop()!
      if (done.name === 'Layer') {
        const idx = done.children.map((c) => order.indexOf(c))
        t.ok(idx.every((v) => v >= 0), `${label}: Layer children are schema elements: ${done.children.join(',')}`)
        t.same(idx, [...idx].sort((a, b) => a - b), `${label}: Layer children in schema order`)
        checked++
      }
      continue
    }
    if (stack.length) stack[stack.length - 1].children.push(tag.name)
    if (!tag.empty) stack.push({ name: tag.name, children: [] })
  }
  t.ok(checked >= 2, `${label}: ${checked} layers checked`)
}


t.test('GetCapabilities 1.3.0 lists the layers with boxes, styles and dimensions', async (t) => {
  const app = await build(t)
  await worldMosaic(app)
  const temp = await timeMosaic(app)
  let res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/ws/styles?name=ramp`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: SLD })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/layers/${temp}`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { layer: { styles: { style: [{ name: 'ramp' }] } } } })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/ws/coveragestores/temp/coverages/temp.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { coverage: { title: 'Water temperature', abstract: 'Surface temperature by day and depth' } } })
  t.equal(res.statusCode, 200, res.body)

  res = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }) })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/xml; charset=utf-8')
  xmllint(t, res.body, 'xmllint: well-formed')
  childOrder(res.body, LAYER_130, t, '1.3.0')
  const doc = (await parseDoc(res.body)).WMS_Capabilities
  t.equal(doc.$.version, '1.3.0')
  t.equal(doc.$.xmlns, 'http://www.opengis.net/wms')
  t.same(Object.keys(doc.Service).filter((k) => k !== '$').map((k) => SERVICE_130.indexOf(k)).every((v, i, a) => v >= 0 && (i === 0 || v > a[i - 1])), true, 'Service in schema order')
  t.equal(doc.Service.MaxWidth, '4096')
  t.same(arr(doc.Capability.Request.GetMap.Format), ['image/png', 'image/png8', 'image/jpeg', 'image/webp'])
  t.same(arr(doc.Capability.Exception.Format), ['XML', 'INIMAGE', 'BLANK'])
  t.match(doc.Capability.Request.GetMap.DCPType.HTTP.Get.OnlineResource.$['xlink:href'], `http://localhost:80${BASE}/wms?`)
  const layers = arr(doc.Capability.Layer.Layer)
  t.same(layers.map((l: any) => l.Name), ['topp:world', 'ws:temp'])
  const world = layers[0]
  t.equal(world.$.queryable, '1')
  t.same(world.EX_GeographicBoundingBox, { westBoundLongitude: '-20', eastBoundLongitude: '20', southBoundLatitude: '-10', northBoundLatitude: '30' })
  const box = (l: any, crs: string) => arr(l.BoundingBox).find((b: any) => b.$.CRS === crs)?.$
  t.same(box(world, 'EPSG:4326'), { CRS: 'EPSG:4326', minx: '-10', miny: '-20', maxx: '30', maxy: '20' }, 'EPSG:4326 latitude first in 1.3.0')
  t.equal(Math.round(Number(box(world, 'EPSG:3857').minx)), -2226390)
  t.equal(Math.round(Number(box(world, 'EPSG:900913').maxy)), 3503550)
  t.same(arr(doc.Capability.Layer.CRS).slice(0, 2), ['CRS:84', 'EPSG:4326'])
  t.equal(world.Style.Name, 'raster')

  const tl = layers[1]
  t.equal(tl.Title, 'Water temperature')
  t.equal(tl.Abstract, 'Surface temperature by day and depth')
  t.same(arr(tl.KeywordList.Keyword), ['WCS', 'ImageMosaic', 'temp'])
  t.same(arr(tl.Style).map((s: any) => s.Name), ['raster', 'ws:ramp'], 'default style first, then the layer\'s styles')
  const dims = Object.fromEntries(arr(tl.Dimension).map((d: any) => [d.$.name, d]))
  t.equal(dims.time.$.units, 'ISO8601')
  t.equal(dims.time.$.default, '2024-02-01T00:00:00.000Z', 'the latest time is the default')
  t.same(dims.time._.split(','), ['2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z'])
  t.same({ ...dims.elevation.$ }, { name: 'elevation', units: 'EPSG:5030', unitSymbol: 'm', default: '0' })
  t.same(dims.elevation._.split(','), ['0', '100'])
})

t.test('GetCapabilities 1.1.1: SRS, LatLonBoundingBox, Dimension and Extent, the 1.1.1 media types', async (t) => {
  const app = await build(t)
  await worldMosaic(app)
  await timeMosaic(app)
  const res = await app.inject({ method: 'GET', url: wmsUrl({ service: 'wms', request: 'getcapabilities', version: '1.1.1' }) })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/vnd.ogc.wms_xml; charset=utf-8')
  t.match(res.body, '<!DOCTYPE WMT_MS_Capabilities SYSTEM "http://schemas.opengis.net/wms/1.1.1/WMS_MS_Capabilities.dtd">')
  xmllint(t, res.body, 'xmllint: well-formed')
  childOrder(res.body, LAYER_111, t, '1.1.1')
  const doc = (await parseDoc(res.body)).WMT_MS_Capabilities
  t.equal(doc.$.version, '1.1.1')
  t.equal(doc.Service.Name, 'OGC:WMS')
  t.same(arr(doc.Capability.Exception.Format), ['application/vnd.ogc.se_xml', 'application/vnd.ogc.se_inimage', 'application/vnd.ogc.se_blank'])
  const [world, temp] = arr(doc.Capability.Layer.Layer) as any[]
  t.same(world.LatLonBoundingBox.$, { minx: '-20', miny: '-10', maxx: '20', maxy: '30' })
  t.same(arr(world.BoundingBox).find((b: any) => b.$.SRS === 'EPSG:4326').$, { SRS: 'EPSG:4326', minx: '-20', miny: '-10', maxx: '20', maxy: '30' }, 'longitude first in 1.1.1')
  t.same(arr(temp.Dimension).map((d: any) => d.$.name), ['time', 'elevation'])
  const extents = Object.fromEntries(arr(temp.Extent).map((e: any) => [e.$.name, e]))
  t.equal(extents.time.$.default, '2024-02-01T00:00:00.000Z')
  t.equal(extents.elevation._, '0,100')
})

t.test('version negotiation, KVP names in any case, POST form, the per-workspace service', async (t) => {
  const app = await build(t)
  await worldMosaic(app)
  await timeMosaic(app)
  let res = await app.inject({ method: 'GET', url: `${BASE}/wms?request=GetCapabilities&service=WMS` })
  t.match(res.body, '<WMS_Capabilities version="1.3.0"', 'no version: the highest')
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?REQUEST=GetCapabilities&SERVICE=WMS&VERSION=1.0.0` })
  t.match(res.body, '<WMT_MS_Capabilities version="1.1.1"', 'a lower version: our lowest')
  res = await app.inject({ method: 'GET', url: `${BASE}/ows?Request=GetCapabilities&Service=WMS&Version=1.3.0` })
  t.equal(res.statusCode, 200)
  t.match(res.body, `xlink:href="http://localhost:80${BASE}/ows?"`)
  res = await app.inject({ method: 'POST', url: `${BASE}/wms`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'service=WMS&request=GetCapabilities&version=1.1.1' })
  t.equal(res.statusCode, 200)
  t.match(res.body, '<WMT_MS_Capabilities version="1.1.1"')

  res = await app.inject({ method: 'GET', url: `${BASE}/ws/wms?service=WMS&request=GetCapabilities` })
  t.equal(res.statusCode, 200)
  const doc = (await parseDoc(res.body)).WMS_Capabilities
  t.same(arr(doc.Capability.Layer.Layer).map((l: any) => l.Name), ['temp'], 'only the workspace\'s layers, by their local names')
  t.match(res.body, `xlink:href="http://localhost:80${BASE}/ws/wms?"`)
  res = await app.inject({ method: 'GET', url: `${BASE}/nowhere/wms?service=WMS&request=GetCapabilities` })
  t.equal(res.statusCode, 404)
  t.match(res.body, '<ServiceExceptionReport')
  res = await app.inject({ method: 'GET', url: `${BASE}/ows?request=GetCapabilities` })
  t.equal(res.statusCode, 200, 'an exception report, with 200 as GeoServer')
  t.match(res.body, 'SERVICE=WMS is needed')
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?service=WFS&request=GetCapabilities` })
  t.equal(res.statusCode, 200)
  t.match(res.body, 'code="InvalidParameterValue"')
})
