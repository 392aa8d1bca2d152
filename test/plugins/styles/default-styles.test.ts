// GeoServer's built-in styles as default styles: a new raster layer gets `raster` (CatalogBuilder's
// buildLayer), which draws the default raster rendering; a layer document holding a built-in style
// can be sent back as it was read.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { wmsUrl, worldMosaic } from '../wms/helpers.js'

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
