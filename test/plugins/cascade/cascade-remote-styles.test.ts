// A cascaded WMS layer's remote style and format settings (GeoServer's WMSLayerInfo preferredFormat,
// forcedRemoteStyle, selectedRemoteStyles, selectedRemoteFormats) against a real remote (the built
// server as a child process) whose layer has a second style: accepted in XML and JSON, returned on
// GET, applied on the forwarded GetMap (pixels equal the remote's map with that style and format),
// and a style or format the remote does not offer refused by name.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { JSON_TYPE, rgba, startStyledRemote } from '../../fixtures/cascade.js'

t.test('remote styles and formats of a cascaded WMS layer: stored, returned, forwarded, checked', async (t) => {
  const remote = await startStyledRemote(t)
  const app = await build(t, { cascadeHosts: ['127.0.0.1'] })
  await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSON_TYPE, payload: JSON.stringify({ workspace: { name: 'local' } }) })
  let res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/local/wmsstores`, headers: JSON_TYPE, payload: JSON.stringify({ wmsStore: { name: 'remote', capabilitiesURL: remote.wms } }) })
  t.equal(res.statusCode, 201, res.body)
  const LAYERS = `${BASE}/rest/workspaces/local/wmsstores/remote/wmslayers`

  // A style or format the remote does not offer: 400 naming it.
  res = await app.inject({ method: 'POST', url: LAYERS, headers: JSON_TYPE, payload: JSON.stringify({ wmsLayer: { name: 'world', nativeName: 'remote:world', forcedRemoteStyle: 'nope' } }) })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'forcedRemoteStyle: the remote offers no style "nope" for layer "remote:world" (it offers "raster", "gray")')
  res = await app.inject({ method: 'POST', url: LAYERS, headers: JSON_TYPE, payload: JSON.stringify({ wmsLayer: { name: 'world', nativeName: 'remote:world', selectedRemoteFormats: { string: ['image/x-nothing'] } } }) })
  t.equal(res.statusCode, 400)
  t.match(res.body, /^selectedRemoteFormats: the remote draws no format "image\/x-nothing" \(it draws [^)]*image\/png/)

  // In XML as GeoServer writes it.
  res = await app.inject({
    method: 'POST', url: LAYERS, headers: { ...ADMIN, 'content-type': 'application/xml' },
    payload: '<wmsLayer><name>world</name><nativeName>remote:world</nativeName><forcedRemoteStyle>gray</forcedRemoteStyle><preferredFormat>image/png</preferredFormat>' +
      '<selectedRemoteFormats><string>image/png</string><string>image/jpeg</string></selectedRemoteFormats><selectedRemoteStyles><string>raster</string><string>gray</string></selectedRemoteStyles></wmsLayer>'
  })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'GET', url: `${LAYERS}/world.json`, headers: ADMIN })
  t.match(res.json().wmsLayer, { forcedRemoteStyle: 'gray', preferredFormat: 'image/png', selectedRemoteFormats: { string: ['image/png', 'image/jpeg'] }, selectedRemoteStyles: { string: ['raster', 'gray'] } })
  res = await app.inject({ method: 'GET', url: `${LAYERS}/world.xml`, headers: ADMIN })
  t.match(res.body.replace(/>\s+</g, '><'), /<forcedRemoteStyle>gray<\/forcedRemoteStyle><preferredFormat>image\/png<\/preferredFormat>[\s\S]*<selectedRemoteFormats><string>image\/png<\/string><string>image\/jpeg<\/string><\/selectedRemoteFormats><selectedRemoteStyles><string>raster<\/string><string>gray<\/string><\/selectedRemoteStyles>/)

  // The WMS capabilities offer the selected remote styles, the forced one first.
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?SERVICE=WMS&REQUEST=GetCapabilities&VERSION=1.1.1` })
  const layerCaps = /<Name>local:world<\/Name>[\s\S]*?<\/Layer>/.exec(res.body)?.[0] ?? ''
  t.same([...layerCaps.matchAll(/<Style>\s*<Name>([^<]*)<\/Name>/g)].map((m) => m[1]), ['gray', 'raster'])

  const map = { SERVICE: 'WMS', VERSION: '1.1.1', REQUEST: 'GetMap', SRS: 'EPSG:4326', BBOX: '-25,-15,25,35', WIDTH: '100', HEIGHT: '100', FORMAT: 'image/png', TRANSPARENT: 'true' }
  const theirs = async (q: Record<string, string>) => await rgba(Buffer.from(await (await fetch(`${remote.wms}?${new URLSearchParams({ ...map, LAYERS: 'remote:world', ...q })}`)).arrayBuffer()))
  const ours = async (q: Record<string, string>) => {
    const r = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...map, LAYERS: 'local:world', ...q })}` })
    t.equal(r.headers['content-type'], q.FORMAT ?? 'image/png', r.body)
    return await rgba(r.rawPayload)
  }
  const gray = await theirs({ STYLES: 'gray' })
  const plain = await theirs({ STYLES: '' })
  t.notOk(gray.data.equals(plain.data), 'the remote\'s two styles draw differently')
  t.ok((await ours({ STYLES: '' })).data.equals(gray.data), 'no STYLES: the forced remote style')
  t.ok((await ours({ STYLES: 'raster' })).data.equals((await theirs({ STYLES: 'raster' })).data), 'STYLES=raster forwarded')
  // The remote's JPEG of the map (pixels its PNG does not have), for the preferredFormat below.
  const jpeg = await theirs({ STYLES: 'gray', FORMAT: 'image/jpeg' })
  t.notOk(jpeg.data.equals(gray.data))
  t.ok((await ours({ STYLES: 'gray', FORMAT: 'image/png' })).data.equals(gray.data), 'a PNG map is asked in PNG')

  // A STYLES value the layer does not offer: StyleNotDefined naming it (400 with W3CSTATUS, as GeoServer).
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...map, LAYERS: 'local:world', STYLES: 'bogus', W3CSTATUS: 'true' })}` })
  t.equal(res.statusCode, 400)
  t.match(res.body, /<ServiceException code="StyleNotDefined">\s*No such style bogus for layer local:world; allowed: raster, gray/)

  // PUT in JSON: preferredFormat JPEG; the selection narrowed to gray; a PNG map is then drawn from the remote's JPEG.
  res = await app.inject({ method: 'PUT', url: `${LAYERS}/world`, headers: JSON_TYPE, payload: JSON.stringify({ wmsLayer: { preferredFormat: 'image/jpeg', selectedRemoteStyles: { string: ['gray'] }, selectedRemoteFormats: { string: [] } } }) })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ method: 'GET', url: `${LAYERS}/world.json`, headers: ADMIN })
  t.match(res.json().wmsLayer, { forcedRemoteStyle: 'gray', preferredFormat: 'image/jpeg', selectedRemoteStyles: { string: ['gray'] } })
  t.notOk('selectedRemoteFormats' in res.json().wmsLayer, 'an empty selection is removed')
  const fromJpeg = await ours({ STYLES: '' })
  t.ok(fromJpeg.data.equals(jpeg.data), 'the remote was asked for JPEG (preferredFormat): our PNG has its pixels')
  res = await app.inject({ method: 'GET', url: `${BASE}/wms?${new URLSearchParams({ ...map, LAYERS: 'local:world', STYLES: 'raster' })}` })
  t.match(res.body, /<ServiceException code="StyleNotDefined">\s*No such style raster for layer local:world; allowed: gray/)
  res = await app.inject({ method: 'PUT', url: `${LAYERS}/world`, headers: JSON_TYPE, payload: JSON.stringify({ wmsLayer: { forcedRemoteStyle: 'raster' } }) })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'forcedRemoteStyle "raster" is not one of selectedRemoteStyles')
})
