// GeoServer's built-in styles as default styles: a new raster layer gets `raster` (CatalogBuilder's
// buildLayer), which draws the default raster rendering; a layer document holding a built-in style
// can be sent back as it was read.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { at, pixels, wmsUrl, worldMosaic } from '../wms/helpers.js'

const REST = `${BASE}/rest`
const HOST = 'http://localhost:80/geoserver/rest'

t.test('a new raster layer has the built-in raster style as its default, drawn as the default rendering', async (t) => {
  const app = await build(t)
  await worldMosaic(app)
  let res = await app.inject({ url: `${REST}/layers/topp:world.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  const doc = res.json()
  t.same(doc.layer.defaultStyle, { name: 'raster', href: `${HOST}/styles/raster.json` })
  res = await app.inject({ url: `${REST}/layers/topp:world.xml`, headers: ADMIN })
  t.match(res.body, '  <defaultStyle>\n    <name>raster</name>\n')

  // GET, then PUT the same document back (what clients do to change one field).
  res = await app.inject({ method: 'PUT', url: `${REST}/layers/topp:world.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: doc })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ method: 'PUT', url: `${REST}/layers/topp:world.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { layer: { defaultStyle: { name: 'polygon' }, styles: { style: [{ name: 'raster' }] } } } })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ url: `${REST}/layers/topp:world.json`, headers: ADMIN })
  t.same(res.json().layer.defaultStyle.name, 'polygon')
  t.same(res.json().layer.styles.style.map((s: { name: string }) => s.name), ['raster'])
  res = await app.inject({ method: 'PUT', url: `${REST}/layers/topp:world.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { layer: { defaultStyle: { name: 'rasterish' } } } })
  t.equal(res.statusCode, 400, 'an unknown style is still refused')
  res = await app.inject({ method: 'PUT', url: `${REST}/layers/topp:world.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { layer: { defaultStyle: { name: 'raster' }, styles: '' } } })
  t.equal(res.statusCode, 200, res.body)

  // The default style and STYLES=raster draw the same picture: the default raster rendering.
  const map = (styles: string) => app.inject({ url: wmsUrl({ SERVICE: 'WMS', VERSION: '1.1.1', REQUEST: 'GetMap', LAYERS: 'topp:world', STYLES: styles, SRS: 'EPSG:4326', BBOX: '-20,-10,20,30', WIDTH: 40, HEIGHT: 40, FORMAT: 'image/png' }) })
  const byDefault = await map('')
  const byName = await map('raster')
  t.equal(byDefault.statusCode, 200)
  t.equal(byDefault.headers['content-type'], 'image/png')
  t.ok(byDefault.rawPayload.equals(byName.rawPayload), 'the same PNG')
  res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetCapabilities', VERSION: '1.3.0' }) })
  t.match(res.body, /<Name>topp:world<\/Name>[\s\S]*?<Style>\s*<Name>raster<\/Name>/)
})

t.test('the built-in styles are listed among the global styles, readable, not deletable and in no workspace', async (t) => {
  const app = await build(t)
  let res = await app.inject({ url: `${REST}/styles.json`, headers: ADMIN })
  t.same(res.json(), { styles: { style: ['generic', 'line', 'point', 'polygon', 'raster'].map((name) => ({ name, href: `${HOST}/styles/${name}.json` })) } })
  res = await app.inject({ url: `${REST}/styles.xml`, headers: ADMIN })
  t.match(res.body, /^<styles>\n  <style>\n    <name>generic<\/name>\n    <atom:link xmlns:atom="http:\/\/www.w3.org\/2005\/Atom" rel="alternate" href="http:\/\/localhost:80\/geoserver\/rest\/styles\/generic.xml" type="application\/atom\+xml"\/>\n  <\/style>\n  <style>\n    <name>line<\/name>/)

  // A style of one's own is sorted in among them.
  res = await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { style: { name: 'mine', filename: 'mine.sld' } } })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ url: `${REST}/styles.json`, headers: ADMIN })
  t.same(res.json().styles.style.map((s: { name: string }) => s.name), ['generic', 'line', 'mine', 'point', 'polygon', 'raster'])
  res = await app.inject({ url: `${REST}/styles/mine.sld`, headers: ADMIN })
  t.equal(res.statusCode, 404, 'an entry of ones own without content has no SLD, as before')

  // The entry and the SLD of each.
  res = await app.inject({ url: `${REST}/styles/point.json`, headers: ADMIN })
  t.same(res.json(), { style: { name: 'point', format: 'sld', languageVersion: { version: '1.0.0' }, filename: 'default_point.sld' } })
  res = await app.inject({ url: `${REST}/styles/raster.xml`, headers: ADMIN })
  t.equal(res.body, '<style>\n  <name>raster</name>\n  <format>sld</format>\n  <languageVersion>\n    <version>1.0.0</version>\n  </languageVersion>\n  <filename>default_raster.sld</filename>\n</style>')
  res = await app.inject({ url: `${REST}/styles/point.sld`, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/vnd.ogc.sld+xml')
  t.match(res.body, /<WellKnownName>square<\/WellKnownName>[\s\S]*<CssParameter name="fill">#FF0000<\/CssParameter>[\s\S]*<Size>6<\/Size>/)
  for (const name of ['line', 'polygon', 'generic', 'raster']) {
    res = await app.inject({ url: `${REST}/styles/${name}.sld`, headers: ADMIN })
    t.match(res.body, `<Name>${name}</Name>`, `${name}.sld`)
  }

  // Each SLD served is one this server takes back as a style of its own (its symbolizers compile);
  // generic's rules choose by dimension(geometry()), which the vector renderer does not compile yet
  // (the built-in generic draws from its own compiled rules).
  for (const name of ['point', 'line', 'polygon', 'raster']) {
    res = await app.inject({ url: `${REST}/styles/${name}.sld`, headers: ADMIN })
    const sent = await app.inject({ method: 'POST', url: `${REST}/styles?name=${name}_copy`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: res.body })
    t.equal(sent.statusCode, 201, `${name}: ${sent.body}`)
  }

  // Not deletable (GeoServer's catalog: "Unable to delete a default style"); still listed.
  res = await app.inject({ method: 'DELETE', url: `${REST}/styles/point`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  t.equal(res.body, 'Unable to delete a default style')
  res = await app.inject({ url: `${REST}/styles/point.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)

  // Not in a workspace's list, nor readable there.
  res = await app.inject({ method: 'POST', url: `${REST}/workspaces`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { workspace: { name: 'w1' } } })
  t.equal(res.statusCode, 201)
  res = await app.inject({ url: `${REST}/workspaces/w1/styles.json`, headers: ADMIN })
  t.same(res.json(), { styles: '' })
  res = await app.inject({ url: `${REST}/workspaces/w1/styles/point.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)
})

t.test('PUT of an SLD to a built-in style stores a row that takes its place: read back, drawn, its tiles redrawn; still not deletable', async (t) => {
  const app = await build(t)
  await worldMosaic(app)
  const SLD_HEADERS = { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }
  const half = `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld"><NamedLayer><Name>raster</Name><UserStyle><Name>raster</Name>
<FeatureTypeStyle><Rule><RasterSymbolizer><Opacity>0.5</Opacity></RasterSymbolizer></Rule></FeatureTypeStyle></UserStyle></NamedLayer></StyledLayerDescriptor>`
  const map = async () => {
    const res = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', VERSION: '1.1.1', REQUEST: 'GetMap', LAYERS: 'topp:world', STYLES: '', SRS: 'EPSG:4326', BBOX: '-20,-10,20,30', WIDTH: 40, HEIGHT: 40, FORMAT: 'image/png', TRANSPARENT: 'true' }) })
    if (res.statusCode !== 200) throw new Error(`GetMap ${res.statusCode}: ${res.body.slice(0, 200)}`)
    return await pixels(res.rawPayload)
  }
  const TILE = `${BASE}/gwc/service/xyz/topp:world/EPSG:900913/1/0/0.png`
  const alphaOfTile = async () => {
    const res = await app.inject({ url: TILE, headers: ADMIN })
    t.equal(res.statusCode, 200)
    return at(await pixels(res.rawPayload), 250, 250)[3]
  }
  t.equal(at(await map(), 20, 20)[3], 255, 'the built-in raster style draws opaque')
  t.equal(await alphaOfTile(), 255, 'a cached tile drawn with the built-in')

  // Style info PUTs GeoServer's catalog refuses for a default style, and a filename the built-in has no file for.
  const ENTRY = { ...ADMIN, 'content-type': 'application/json' }
  let res = await app.inject({ method: 'PUT', url: `${REST}/styles/raster`, headers: ENTRY, payload: { style: { name: 'raster2' } } })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'Cannot rename default styles')
  res = await app.inject({ method: 'PUT', url: `${REST}/styles/raster`, headers: ENTRY, payload: { style: { filename: 'other.sld' } } })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'filename')
  res = await app.inject({ method: 'PUT', url: `${REST}/styles/raster`, headers: ENTRY, payload: { style: { name: 'raster', filename: 'default_raster.sld' } } })
  t.equal(res.statusCode, 200, 'the entry sent back as it is: nothing to change')

  res = await app.inject({ method: 'PUT', url: `${REST}/styles/raster`, headers: SLD_HEADERS, payload: half })
  t.equal(res.statusCode, 200, res.body)
  res = await app.inject({ url: `${REST}/styles/raster.sld`, headers: ADMIN })
  t.equal(res.body, half, 'GET answers the SLD sent')
  res = await app.inject({ url: `${REST}/styles/raster.json`, headers: ADMIN })
  t.same(res.json(), { style: { name: 'raster', format: 'sld', languageVersion: { version: '1.0.0' }, filename: 'default_raster.sld' } })
  res = await app.inject({ url: `${REST}/styles.json`, headers: ADMIN })
  t.same(res.json().styles.style.map((s: { name: string }) => s.name), ['generic', 'line', 'point', 'polygon', 'raster'], 'listed once')
  const a = at(await map(), 20, 20)[3]
  t.ok(a > 120 && a < 135, `the layer using it draws with it (alpha ${a})`)
  const ta = await alphaOfTile()
  t.ok(ta > 120 && ta < 135, `its cached tile is drawn again with it (alpha ${ta})`)

  // A second PUT is a new revision of the row; a workspace move is refused; DELETE stays refused.
  res = await app.inject({ method: 'PUT', url: `${REST}/styles/raster`, headers: SLD_HEADERS, payload: half.replace('0.5', '0.25') })
  t.equal(res.statusCode, 200, res.body)
  const q = at(await map(), 20, 20)[3]
  t.ok(q > 58 && q < 70, `the second revision is drawn (alpha ${q})`)
  res = await app.inject({ method: 'POST', url: `${REST}/workspaces`, headers: ENTRY, payload: { workspace: { name: 'w1' } } })
  res = await app.inject({ method: 'PUT', url: `${REST}/styles/raster`, headers: ENTRY, payload: { style: { workspace: { name: 'w1' } } } })
  t.equal(res.statusCode, 400)
  t.match(res.body, 'Cannot change the workspace of default styles')
  res = await app.inject({ method: 'DELETE', url: `${REST}/styles/raster?purge=true`, headers: ADMIN })
  t.equal(res.statusCode, 403)
  t.equal(res.body, 'Unable to delete a default style')
  res = await app.inject({ url: `${REST}/styles/raster.sld`, headers: ADMIN })
  t.match(res.body, '<Opacity>0.25</Opacity>')

  // A built-in no one replaced still answers its own SLD.
  res = await app.inject({ url: `${REST}/styles/point.sld`, headers: ADMIN })
  t.match(res.body, '<WellKnownName>square</WellKnownName>')
})
