// Smaller things seen in hostile round two (10): If-Modified-Since compared at the second; 404s in
// the request's own coordinates on every tile path; a bad WMTS style is a tile request's error.
import t from 'tap'
import { build, BASE } from '../helper.js'
import { createMosaic, pattern, rgbTiff } from '../fixtures/seed/mosaic.js'

const G = `${BASE}/gwc/service`

t.test('If-Modified-Since equal to Last-Modified answers 304; an older date 200', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'w.tif': rgbTiff(40, 40, [-20, -10, 20, 30], pattern) })
  const url = `${G}/xyz/${layer}/EPSG:4326/2/4/1.png`
  const first = await app.inject({ method: 'GET', url })
  t.equal(first.statusCode, 200)
  const lastModified = String(first.headers['last-modified'])
  const same = await app.inject({ method: 'GET', url, headers: { 'if-modified-since': lastModified } })
  t.equal(same.statusCode, 304)
  t.equal(same.headers['cache-control'], first.headers['cache-control'])
  const older = await app.inject({ method: 'GET', url, headers: { 'if-modified-since': new Date(Date.parse(lastModified) - 1000).toUTCString() } })
  t.equal(older.statusCode, 200)
  const garbage = await app.inject({ method: 'GET', url, headers: { 'if-modified-since': 'yesterday' } })
  t.equal(garbage.statusCode, 200, 'an unreadable date is ignored')
  const etagWins = await app.inject({ method: 'GET', url, headers: { 'if-modified-since': lastModified, 'if-none-match': '"other"' } })
  t.equal(etagWins.statusCode, 200, 'If-None-Match wins over If-Modified-Since (RFC 9110)')
})

t.test('tiles outside the coverage are named as the request named them', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'w.tif': rgbTiff(40, 40, [-20, -10, 20, 30], pattern) })
  for (const [url, name] of [
    [`${G}/xyz/${layer}/EPSG:4326/3/8/0.png`, 'XYZ 3/8/0'],
    [`${G}/tms/1.0.0/${encodeURIComponent(`${layer}@EPSG:4326@png`)}/3/8/7.png`, 'TMS 3/8/7'],
    [`${G}/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=${layer}&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:3&TILEROW=0&TILECOL=8&FORMAT=image/png`, 'WMTS TileMatrix EPSG:4326:3 TileRow 0 TileCol 8'],
    [`${G}/wmts/rest/${layer}/raster/EPSG:4326/EPSG:4326:3/0/8?format=image/png`, 'WMTS TileMatrix EPSG:4326:3 TileRow 0 TileCol 8']
  ]) {
    const res = await app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 404)
    t.equal(res.body, `Tile ${name} is outside the coverage of layer ${layer} in grid set EPSG:4326`)
  }
  const style = await app.inject({ method: 'GET', url: `${G}/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=${layer}&STYLE=nosuch&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:2&TILEROW=1&TILECOL=4&FORMAT=image/png` })
  t.equal(style.statusCode, 400)
  t.match(style.body, /^Invalid tile request: parameter STYLES=nosuch: not a style of layer topp:world; allowed: /)
})
