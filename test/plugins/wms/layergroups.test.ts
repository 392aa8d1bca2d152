// Layer groups in the WMS: GetMap of a group draws its layers in order with the group's styles;
// a layer the caller may not read is left out of the picture; GetCapabilities lists groups per mode
// (SINGLE, OPAQUE_CONTAINER, NAMED, CONTAINER); a layer deleted with its store leaves its groups.
import t, { type Test } from 'tap'
import { build, ADMIN, BASE, basic } from '../../helper.js'
import { createMosaic, rgbTiff } from '../../fixtures/seed/mosaic.js'
import path from 'node:path'
import { arr, at, parseDoc, pixels, wmsUrl, xmllint } from './helpers.js'

const SCHEMAS = '/usr/share/python3-mapproxy/test/schemas/wms'

const REST = `${BASE}/rest`
const JSON_H = { ...ADMIN, 'content-type': 'application/json' }
// 40x40 pixels over lon -20..20, lat -10..30: one pixel per degree.
const MAP = { SERVICE: 'WMS', VERSION: '1.1.1', REQUEST: 'GetMap', STYLES: '', FORMAT: 'image/png', TRANSPARENT: 'true', SRS: 'EPSG:4326', BBOX: '-20,-10,20,30', WIDTH: 40, HEIGHT: 40 }
const RED = [200, 0, 0, 255]
const BLUE = [0, 0, 200, 255]
const GRAY_OF_RED_BAND = `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld"><NamedLayer><Name>g</Name><UserStyle><Name>band1</Name>
<FeatureTypeStyle><Rule><RasterSymbolizer><ChannelSelection><GrayChannel><SourceChannelName>1</SourceChannelName></GrayChannel></ChannelSelection></RasterSymbolizer></Rule></FeatureTypeStyle>
</UserStyle></NamedLayer></StyledLayerDescriptor>`

/** topp:red over the whole map, topp:blue over lon 0..20, lat -10..10 only. */
async function twoLayers (t: Test) {
  const app = await build(t)
  await createMosaic(app, 'topp', 'red', { 'red.tif': rgbTiff(40, 40, [-20, -10, 20, 30], (_x, _y, b) => b === 0 ? 200 : 0) })
  await createMosaic(app, 'topp', 'blue', { 'blue.tif': rgbTiff(20, 20, [0, -10, 20, 10], (_x, _y, b) => b === 2 ? 200 : 0) })
  const res = await app.inject({ method: 'POST', url: `${REST}/styles?name=band1`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: GRAY_OF_RED_BAND })
  t.equal(res.statusCode, 201, res.body)
  return app
}

async function group (app: Awaited<ReturnType<typeof build>>, name: string, members: Array<[string, string] | string>, extra: Record<string, unknown> = {}, ws?: string) {
  const published = members.map((m) => typeof m === 'string' ? { '@type': 'layer', name: m } : { '@type': m[0], name: m[1] })
  const res = await app.inject({ method: 'POST', url: ws ? `${REST}/workspaces/${ws}/layergroups` : `${REST}/layergroups`, headers: JSON_H, payload: { layerGroup: { name, publishables: { published }, ...extra } } })
  if (res.statusCode !== 201) throw new Error(`${name}: ${res.statusCode} ${res.body}`)
}

t.test('GetMap of a group draws its layers in order, with the group\'s styles', async (t) => {
  const app = await twoLayers(t)
  await group(app, 'pair', ['topp:red', 'topp:blue'])
  await group(app, 'reversed', ['topp:blue', 'topp:red'])
  await group(app, 'styled', ['topp:red', 'topp:blue'], { styles: { style: ['', 'band1'] } })
  let res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'pair' }) })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'image/png', res.headers['content-type'] === 'image/png' ? '' : res.body)
  let p = await pixels(res.rawPayload)
  t.same(at(p, 2, 2), RED, 'outside the blue layer: red')
  t.same(at(p, 30, 30), BLUE, 'the blue layer over the red one')
  // The same picture as naming the two layers.
  const both = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'topp:red,topp:blue' }) })
  t.same(both.rawPayload, res.rawPayload, 'the same bytes as LAYERS=topp:red,topp:blue')
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'reversed' }) })
  p = await pixels(res.rawPayload)
  t.same(at(p, 30, 30), RED, 'red drawn last covers blue')
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'styled' }) })
  p = await pixels(res.rawPayload)
  t.same(at(p, 2, 2), RED, 'the first layer in its default style')
  t.same(at(p, 30, 30), [0, 0, 0, 255], 'the second in the group\'s style: the gray of its red band (0)')
  // GetFeatureInfo of a group: the values of each of its layers under the point.
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'pair', REQUEST: 'GetFeatureInfo', QUERY_LAYERS: 'pair', X: 30, Y: 30, INFO_FORMAT: 'application/json' }) })
  t.equal(res.statusCode, 200)
  const features = JSON.parse(res.body).features
  t.same(features.map((f: any) => Object.values(f.properties)), [[200, 0, 0], [0, 0, 200]], 'red, then blue')
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'topp:red', REQUEST: 'GetFeatureInfo', QUERY_LAYERS: 'pair', X: 30, Y: 30 }) })
  t.match(res.body, 'code="LayerNotQueryable"', 'a group not in LAYERS')
  // A group is one tile layer (issue 34): a tiled map of it comes from the tile cache; a style
  // named for it is refused; a missing group is LayerNotDefined.
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'pair', TILED: 'true', WIDTH: 256, HEIGHT: 256, BBOX: '-180,-90,0,90' }) })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['geowebcache-miss-reason'], undefined, 'a group is cached')
  t.equal(res.headers['geowebcache-cache-result'], 'MISS')
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'pair', TILED: 'true', WIDTH: 256, HEIGHT: 256, BBOX: '-180,-90,0,90' }) })
  t.equal(res.headers['geowebcache-cache-result'], 'HIT', 'then served from the cache')
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'pair', STYLES: 'band1' }) })
  t.match(res.body, 'code="StyleNotDefined"')
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'nogroup' }) })
  t.match(res.body, 'code="LayerNotDefined"')
  // A disabled group is not served.
  res = await app.inject({ method: 'PUT', url: `${REST}/layergroups/pair`, headers: JSON_H, payload: { layerGroup: { enabled: false } } })
  t.equal(res.statusCode, 200)
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'pair' }) })
  t.match(res.body, 'code="LayerNotDefined"')
  // A style deleted since: the member is drawn, and shown, in its default style again.
  res = await app.inject({ method: 'DELETE', url: `${REST}/styles/band1?purge=true`, headers: ADMIN })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'styled' }) })
  t.equal(res.headers['content-type'], 'image/png', res.body)
  t.same(at(await pixels(res.rawPayload), 30, 30), BLUE)
  res = await app.inject({ url: `${REST}/layergroups/styled.json`, headers: ADMIN })
  t.same(JSON.parse(res.body).layerGroup.styles, { style: ['', ''] })
})

t.test('a layer the caller may not read is not drawn in a group', async (t) => {
  const app = await twoLayers(t)
  await group(app, 'pair', ['topp:red', 'topp:blue'])
  await group(app, 'onlyblue', ['topp:blue'])
  let res = await app.inject({ method: 'POST', url: `${REST}/security/acl/layers.json`, headers: JSON_H, payload: '{"topp.blue.r":"ROLE_READER"}' })
  t.equal(res.statusCode, 201)
  for (const who of ['reader', 'plain']) {
    res = await app.inject({ method: 'POST', url: `${REST}/security/usergroup/users`, headers: JSON_H, payload: { user: { userName: who, password: `${who}-password` } } })
    t.equal(res.statusCode, 201)
  }
  await app.inject({ method: 'POST', url: `${REST}/security/roles/role/ROLE_READER`, headers: ADMIN })
  await app.inject({ method: 'POST', url: `${REST}/security/roles/role/ROLE_READER/user/reader`, headers: ADMIN })
  const reader = { authorization: basic('reader', 'reader-password') }
  const plain = { authorization: basic('plain', 'plain-password') }
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'pair' }), headers: reader })
  t.same(at(await pixels(res.rawPayload), 30, 30), BLUE, 'the reader sees the blue layer')
  for (const [who, headers] of [['plain', plain], ['anonymous', {}]] as const) {
    res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'pair' }), headers })
    t.equal(res.statusCode, 200, who)
    t.equal(res.headers['content-type'], 'image/png', who)
    t.same(at(await pixels(res.rawPayload), 30, 30), RED, `${who}: the blue layer is left out`)
    // A group of hidden layers only is as hidden as they are.
    res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'onlyblue' }), headers })
    t.match(res.body, 'code="LayerNotDefined"', who)
    res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities' }), headers })
    t.notOk(res.body.includes('<Name>onlyblue</Name>'), `${who}: the hidden group is not listed`)
    t.ok(res.body.includes('<Name>pair</Name>'), `${who}: the group is listed`)
  }
  res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities' }), headers: reader })
  t.ok(res.body.includes('<Name>onlyblue</Name>'), 'the reader sees the group of the blue layer')
})

t.test('GetCapabilities lists groups as GeoServer does per mode', async (t) => {
  const app = await twoLayers(t)
  await createMosaic(app, 'topp', 'green', { 'green.tif': rgbTiff(10, 10, [-20, -10, -10, 0], (_x, _y, b) => b === 1 ? 200 : 0) })
  await createMosaic(app, 'topp', 'gray', { 'gray.tif': rgbTiff(10, 10, [-20, -10, -10, 0], () => 100) })
  await group(app, 'single', ['topp:red', 'topp:blue'], { title: 'Single group', abstractTxt: 'Both layers', keywords: { string: ['base'] } })
  await group(app, 'opaque', ['topp:green'], { mode: 'OPAQUE_CONTAINER' })
  await group(app, 'named', ['topp:red', ['layerGroup', 'opaque']], { mode: 'NAMED' })
  await group(app, 'box', ['topp:gray'], { mode: 'CONTAINER', title: 'A container' })
  await group(app, 'quiet', ['topp:red'], { advertised: false })
  for (const version of ['1.1.1', '1.3.0']) {
    const res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: version }) })
    t.equal(res.statusCode, 200)
    const doc = await parseDoc(res.body)
    const root = (doc.WMS_Capabilities ?? doc.WMT_MS_Capabilities).Capability.Layer
    const top = arr<any>(root.Layer)
    const name = (l: any) => l.Name ?? `(${l.Title})`
    // blue stays on its own (only in a SINGLE group); red is nested under NAMED, green under
    // OPAQUE_CONTAINER, gray under the CONTAINER: none of them on their own.
    // Layers first, then the groups by name (global ones, then each workspace's).
    t.same(top.map(name), ['topp:blue', '(A container)', 'named', 'single'], `${version}: the top-level layers`)
    const single = top[3]
    t.equal(single.$.queryable, '1', 'GetFeatureInfo queries a group\'s layers')
    t.equal(single.Title, 'Single group')
    t.equal(single.Abstract, 'Both layers')
    t.same(arr(single.KeywordList.Keyword), ['base'])
    t.equal(single.Layer, undefined, `${version}: a SINGLE group lists no children`)
    const named = top[2]
    t.same(arr<any>(named.Layer).map(name), ['topp:red', 'opaque'], `${version}: a NAMED group nests its layers and groups`)
    t.equal(arr<any>(named.Layer)[1].Layer, undefined, `${version}: an OPAQUE_CONTAINER group hides its children`)
    t.same(arr<any>(top[1].Layer).map(name), ['topp:gray'], `${version}: a CONTAINER group nests its layers, without a name`)
    t.notOk(res.body.includes('<Name>quiet</Name>'), 'a group not advertised is not listed')
    // Nested and unnamed layers keep the document valid (the schema's element order, the DTD).
    xmllint(t, res.body, `capabilities ${version} with groups`, version === '1.3.0'
      ? ['--schema', path.join(SCHEMAS, '1.3.0/capabilities_1_3_0.xsd')]
      : ['--dtdvalid', path.join(SCHEMAS, '1.1.1/WMS_MS_Capabilities.dtd')])
  }
  // A CONTAINER group cannot be asked for by name; a NAMED one draws its layers.
  let res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'box' }) })
  t.match(res.body, 'code="LayerNotDefined"')
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'named' }) })
  const p = await pixels(res.rawPayload)
  t.same(at(p, 5, 35), [0, 200, 0, 255], 'the nested group\'s green layer over the red one')
  t.same(at(p, 30, 30), RED)
})

t.test('a layer deleted with its store leaves its groups; a group left empty goes', async (t) => {
  const app = await twoLayers(t)
  await group(app, 'pair', ['topp:red', 'topp:blue'], { styles: { style: ['', 'band1'] } })
  await group(app, 'onlyblue', ['topp:blue'], {}, 'topp')
  await group(app, 'outer', [['layerGroup', 'topp:onlyblue']])
  let res = await app.inject({ method: 'DELETE', url: `${REST}/workspaces/topp/coveragestores/blue?recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ url: `${REST}/layergroups/pair.json`, headers: ADMIN })
  const doc = JSON.parse(res.body)
  t.same(doc.layerGroup.publishables.published.map((p: any) => p.name), ['topp:red'])
  t.same(doc.layerGroup.styles.style, [''], 'the style of the removed entry goes with it')
  res = await app.inject({ url: `${REST}/workspaces/topp/layergroups/onlyblue.json`, headers: ADMIN })
  t.equal(res.statusCode, 404, 'a group left empty is removed')
  res = await app.inject({ url: `${REST}/layergroups/outer.json`, headers: ADMIN })
  t.equal(res.statusCode, 404, 'and a group holding only that one too')
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'pair' }) })
  t.same(at(await pixels(res.rawPayload), 30, 30), RED)
})

t.test('a workspace\'s service ({base}/<ws>/wms) serves its own groups by their local names', async (t) => {
  const app = await twoLayers(t)
  await group(app, 'local', ['topp:blue', 'topp:red'], {}, 'topp')
  await group(app, 'global', ['topp:red'])
  let res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities' }, '/topp/wms') })
  t.ok(res.body.includes('<Name>local</Name>'), 'listed by its local name')
  t.notOk(res.body.includes('<Name>global</Name>'), 'a global group is not one of the workspace\'s')
  res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities' }) })
  t.ok(res.body.includes('<Name>topp:local</Name>'), 'qualified in the global service')
  t.ok(res.body.includes('<Name>global</Name>'))
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'local' }, '/topp/wms') })
  t.equal(res.headers['content-type'], 'image/png', res.body)
  t.same(at(await pixels(res.rawPayload), 30, 30), RED, 'red drawn over blue')
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'topp:local' }) })
  t.equal(res.headers['content-type'], 'image/png', res.body)
  res = await app.inject({ url: wmsUrl({ ...MAP, LAYERS: 'global' }, '/topp/wms') })
  t.match(res.body, 'code="LayerNotDefined"')
})
