// Graphics on vector layers, through HTTP: a style package's PNG and SVG images as point symbols
// (size, rotation, opacity), graphic fills of a shape:// hatch, a circle mark and an SVG image, a line's
// PerpendicularOffset, dash offset and GraphicStroke, on WMS GetMap, a cached tile and
// GetLegendGraphic; a remote or out-of-folder image refused with 400 and nothing stored, an SVG
// image's own references to the network or files not followed. The
// layers are GeoPackage tables, so the test runs alike on both catalog backends.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { createWorkspace } from '../appschema/helpers.js'
import { writeGeoPackage } from '../../fixtures/vector/files.js'
import { manifest, zip } from '../styles/helpers.js'
import { differing, getMap as mapOf, tileBox, tilePixels } from '../../fixtures/vector-tiles.js'
import { canary } from '../../manifest.js'
import { at, pixels, wmsUrl, type Pixels } from './helpers.js'

const REST = `${BASE}/rest`
const ZIP = { ...ADMIN, 'content-type': 'application/zip' }
const SLD_TYPE = { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }
const JSON_TYPE = { ...ADMIN, 'content-type': 'application/json' }

const square = (x0: number, y0: number, x1: number, y1: number) => ({ type: 'Polygon', coordinates: [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]] })
const line = (y: number) => ({ type: 'LineString', coordinates: [[0, y], [30, y]] })

async function setup (t: Test): Promise<FastifyInstance> {
  const app = await build(t)
  await createWorkspace(app, 'vx')
  const file = path.join(tempDir(t, 'gpkg'), 'data.gpkg')
  writeGeoPackage(file, [
    { name: 'shapes', columns: ['kind TEXT'], geometryColumn: 'geom', geometryType: 'POLYGON', rows: [{ values: ['hatch'], geometry: square(0, 0, 10, 10) }, { values: ['image'], geometry: square(20, 0, 30, 10) }, { values: ['dots'], geometry: square(0, 12, 10, 17) }] },
    { name: 'roads', columns: ['kind TEXT'], geometryColumn: 'geom', geometryType: 'LINESTRING', rows: [{ values: ['offset'], geometry: line(20) }, { values: ['dash'], geometry: line(15) }, { values: ['ticks'], geometry: line(25) }, { values: ['pattern'], geometry: line(5) }] },
    { name: 'towns', columns: ['kind TEXT'], geometryColumn: 'geom', geometryType: 'POINT', rows: [{ values: ['png'], geometry: { type: 'Point', coordinates: [5, 30] } }, { values: ['svg'], geometry: { type: 'Point', coordinates: [25, 30] } }] }
  ])
  const up = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/datastores/gp/file.gpkg?configure=all`, headers: { ...ADMIN, 'content-type': 'application/geopackage+sqlite3' }, payload: fs.readFileSync(file) })
  if (up.statusCode !== 201) throw new Error(`GeoPackage: ${up.statusCode} ${up.body}`)
  return app
}

const doc = (rules: string) => `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld" xmlns:ogc="http://www.opengis.net/ogc" xmlns:xlink="http://www.w3.org/1999/xlink">
<NamedLayer><Name>x</Name><UserStyle><Name>x</Name><FeatureTypeStyle>${rules}</FeatureTypeStyle></UserStyle></NamedLayer></StyledLayerDescriptor>`
const kind = (k: string) => `<ogc:Filter><ogc:PropertyIsEqualTo><ogc:PropertyName>kind</ogc:PropertyName><ogc:Literal>${k}</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter>`
const external = (href: string, format: string, extra = '') => `<Graphic><ExternalGraphic><OnlineResource xlink:type="simple" xlink:href="${href}"/><Format>${format}</Format></ExternalGraphic>${extra}</Graphic>`

const ICONS = doc(`
  <Rule><Name>png</Name><Title>PNG</Title>${kind('png')}<PointSymbolizer>${external('wide.png', 'image/png', '<Size>10</Size><Rotation>90</Rotation>')}</PointSymbolizer></Rule>
  <Rule><Name>svg</Name><Title>SVG</Title>${kind('svg')}<PointSymbolizer>${external('blue.svg', 'image/svg+xml', '<Opacity>0.5</Opacity><Size>16</Size>')}</PointSymbolizer></Rule>`)
const FILLS = doc(`
  <Rule><Name>hatch</Name>${kind('hatch')}<PolygonSymbolizer><Fill><GraphicFill><Graphic><Mark><WellKnownName>shape://horline</WellKnownName>
    <Stroke><CssParameter name="stroke">#00FF00</CssParameter><CssParameter name="stroke-width">2</CssParameter></Stroke></Mark><Size>10</Size></Graphic></GraphicFill></Fill></PolygonSymbolizer></Rule>
  <Rule><Name>dots</Name>${kind('dots')}<PolygonSymbolizer><Fill><GraphicFill><Graphic><Mark><WellKnownName>circle</WellKnownName>
    <Fill><CssParameter name="fill">#FF0000</CssParameter></Fill></Mark><Size>10</Size></Graphic></GraphicFill></Fill></PolygonSymbolizer></Rule>
  <Rule><Name>image</Name>${kind('image')}<PolygonSymbolizer><Fill><GraphicFill>${external('half.svg', 'image/svg+xml')}</GraphicFill></Fill></PolygonSymbolizer></Rule>`)
const stroke = (c: string, more = '') => `<Stroke><CssParameter name="stroke">${c}</CssParameter><CssParameter name="stroke-width">2</CssParameter>${more}</Stroke>`
const LINES = doc(`
  <Rule>${kind('offset')}<LineSymbolizer>${stroke('#000000')}<PerpendicularOffset>10</PerpendicularOffset></LineSymbolizer></Rule>
  <Rule>${kind('dash')}<LineSymbolizer>${stroke('#0000FF', '<CssParameter name="stroke-dasharray">10 10</CssParameter><CssParameter name="stroke-dashoffset">5</CssParameter>')}</LineSymbolizer></Rule>
  <Rule>${kind('ticks')}<LineSymbolizer><Stroke><GraphicStroke><Graphic><Mark><WellKnownName>shape://vertline</WellKnownName>${stroke('#FF0000')}</Mark><Size>10</Size></Graphic></GraphicStroke></Stroke></LineSymbolizer></Rule>
  <Rule>${kind('pattern')}<LineSymbolizer><Stroke><GraphicFill><Graphic><Mark><WellKnownName>circle</WellKnownName><Fill><CssParameter name="fill">#FF0000</CssParameter></Fill></Mark><Size>10</Size></Graphic></GraphicFill>
    <CssParameter name="stroke">#000000</CssParameter><CssParameter name="stroke-width">10</CssParameter></Stroke></LineSymbolizer></Rule>`)

/** A 20x10 PNG: red, wider than high, so its rotation shows. */
const widePng = () => sharp({ create: { width: 20, height: 10, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } } }).png().toBuffer()
const BLUE_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="#0000FF"/></svg>'
/** A 10x10 tile: its left half blue, its right half empty. */
const HALF_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="5" height="10" fill="#0000FF"/></svg>'

async function styled (t: Test, app: FastifyInstance): Promise<void> {
  const post = async (name: string, payload: Buffer | string, headers: Record<string, string>) => {
    const res = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/styles?name=${name}`, headers, payload })
    t.equal(res.statusCode, 201, `style ${name}: ${res.body}`)
  }
  await post('icons', await zip([['icons.sld', ICONS], ['wide.png', await widePng()], ['blue.svg', BLUE_SVG]]), ZIP)
  await post('fills', await zip([['fills.sld', FILLS], ['half.svg', HALF_SVG]]), ZIP)
  await post('lines', LINES, SLD_TYPE)
  for (const [layer, style] of [['towns', 'icons'], ['shapes', 'fills'], ['roads', 'lines']]) {
    const res = await app.inject({ method: 'PUT', url: `${REST}/layers/vx:${layer}`, headers: JSON_TYPE, payload: { layer: { defaultStyle: { name: `vx:${style}` } } } })
    t.equal(res.statusCode, 200, res.body)
  }
}

// A 400x400 map of lon -5..35, lat -5..35: lon x is pixel (x+5)*10, lat y is row (35-y)*10.
async function getMap (app: FastifyInstance, layers: string, extra: Record<string, string> = {}): Promise<Pixels> {
  const res = await app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetMap', srs: 'EPSG:4326', bbox: '-5,-5,35,35', width: 400, height: 400, format: 'image/png', transparent: 'true', styles: '', layers, ...extra }), headers: ADMIN })
  if (res.statusCode !== 200 || res.headers['content-type'] !== 'image/png') throw new Error(`GetMap ${res.statusCode}: ${res.body.slice(0, 400)}`)
  return await pixels(res.rawPayload)
}
const near = (px: number[], rgba: number[], tol = 12) => rgba.every((v, i) => Math.abs(px[i] - v) <= tol)

t.test('ExternalGraphic PNG and SVG of a style package: drawn at their size, rotation and opacity, on GetMap and a cached tile', async (t) => {
  const app = await setup(t)
  await styled(t, app)
  const p = await getMap(app, 'vx:towns')
  // The PNG (20x10, Size 10: 20 wide) turned 90 degrees: 10 wide and 20 high around pixel (100, 50).
  t.same(at(p, 100, 50), [255, 0, 0, 255], 'the PNG at its point')
  t.same(at(p, 100, 58), [255, 0, 0, 255], 'turned: it reaches 8 pixels below')
  t.equal(at(p, 108, 50)[3], 0, 'turned: not 8 pixels beside')
  t.equal(at(p, 100, 62)[3], 0, 'its height is 20')
  // The SVG at Size 16 and Opacity 0.5 around (300, 50).
  const svg = at(p, 300, 50)
  t.ok(near(svg, [0, 0, 255, 128], 3), `the SVG, half transparent: ${svg}`)
  t.ok(near(at(p, 306, 44), [0, 0, 255, 128], 3), 'it is 16 pixels wide')
  t.equal(at(p, 310, 50)[3], 0, 'not wider')

  // The cached tile draws the same: XYZ 2/4/1 of EPSG:4326 is lon 0..45, lat 0..45 in 256 pixels.
  const tile = await tilePixels(app, 'vx:towns', 2, 4, 1)
  t.same(at(tile, Math.round(5 * 256 / 45), Math.round(15 * 256 / 45)), [255, 0, 0, 255], 'the PNG on the tile')
  t.ok(near(at(tile, Math.round(25 * 256 / 45), Math.round(15 * 256 / 45)), [0, 0, 255, 128], 3), 'the SVG on the tile')
})

t.test('GraphicFill: a shape:// hatch and an SVG image tile the polygons, anchored to the map\'s origin', async (t) => {
  const app = await setup(t)
  await styled(t, app)
  const p = await getMap(app, 'vx:shapes')
  // Polygon 1 is pixels 50..150 x 250..350; tiles of 10 pixels from the world origin, a horizontal line of 2 pixels in each middle.
  for (const y of [255, 265, 345]) t.same(at(p, 100, y), [0, 255, 0, 255], `hatch line at row ${y}`)
  for (const y of [252, 259, 260, 341]) t.equal(at(p, 100, y)[3], 0, `between the lines at row ${y}`)
  t.equal(at(p, 160, 255)[3], 0, 'nothing outside the polygon')
  // Polygon 2 (pixels 250..350): 10 pixel tiles, left half blue.
  for (const x of [250, 254, 262, 344]) t.same(at(p, x, 300), [0, 0, 255, 255], `image tile's blue half at column ${x}`)
  for (const x of [255, 259, 266, 349]) t.equal(at(p, x, 300)[3], 0, `its empty half at column ${x}`)

  // Polygon 3 (pixels 50..150 x 180..230): red circles of 10 pixels, one a tile, centred at x 55, 65... and rows 185, 195...
  for (const [x, y] of [[55, 185], [65, 195], [145, 225]]) t.same(at(p, x, y), [255, 0, 0, 255], `a circle centred at ${x},${y}`)
  for (const [x, y] of [[50, 190], [60, 200], [140, 220]]) t.equal(at(p, x, y)[3], 0, `the corners between circles at ${x},${y}`)

  // A cached tile (cut from its metatile) equals the WMS map of its box: the pattern is anchored to the CRS origin in both.
  const tile = await tilePixels(app, 'vx:shapes', 2, 4, 1)
  t.equal(differing(await mapOf(app, 'vx:shapes', tileBox(2, 4, 1)), tile, 0, 0, 8), 0, 'the tile\'s hatching is the map\'s')

  // The legend: the hatch in a 20x20 swatch (tiles from its corner).
  const res = await app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetLegendGraphic', format: 'image/png', transparent: 'true', layer: 'vx:shapes', rule: 'hatch' }), headers: ADMIN })
  t.equal(res.statusCode, 200, 'the legend')
  const l = await pixels(res.rawPayload)
  t.same(at(l, 10, 5), [0, 255, 0, 255], 'the legend shows the hatch')
  t.equal(at(l, 10, 9)[3], 0, 'and its gaps')
})

t.test('LineSymbolizer: PerpendicularOffset, stroke-dashoffset, a GraphicStroke of marks along the line and a Stroke painted with a GraphicFill', async (t) => {
  const app = await setup(t)
  await styled(t, app)
  const p = await getMap(app, 'vx:roads')
  // The line at lat 20 (row 150), drawn west to east, offset 10 pixels to its left: north, row 140.
  t.same(at(p, 200, 140), [0, 0, 0, 255], 'the offset line')
  t.equal(at(p, 200, 150)[3], 0, 'not on the geometry')
  // Lat 15 (row 200) from x 50: dashes of 10 and gaps of 10 starting 5 into the pattern.
  t.same(at(p, 52, 200), [0, 0, 255, 255], 'the first half dash')
  t.equal(at(p, 57, 200)[3], 0, 'then a gap where an unshifted dash would be')
  t.same(at(p, 67, 200), [0, 0, 255, 255], 'then a dash')
  // Lat 25 (row 100): a vertical tick of 10 pixels every 10 pixels, the first 5 pixels in.
  t.same(at(p, 55, 97), [255, 0, 0, 255], 'a tick across the line')
  t.equal(at(p, 60, 97)[3], 0, 'between ticks')
  t.equal(at(p, 200, 100)[3], 0, 'between ticks on the line itself: no plain stroke under them')
  // Lat 5 (row 300), 10 pixels wide (rows 295..305), painted with red circles of 10 pixels tiled
  // from the world origin (centres at x 55, 65... and rows 295, 305) instead of its black.
  for (const [x, y] of [[55, 297], [65, 303], [205, 296]]) t.same(at(p, x, y), [255, 0, 0, 255], `the pattern's circle in the stroke at ${x},${y}`)
  for (const [x, y] of [[60, 300], [200, 300]]) t.equal(at(p, x, y)[3], 0, `the pattern's gap between circles at ${x},${y}`)
  t.equal(at(p, 55, 290)[3], 0, 'no pattern outside the stroke\'s width')
  let black = 0
  for (let x = 40; x < 360; x++) for (let y = 290; y < 310; y++) { const px = at(p, x, y); if (px[3] > 0 && px[0] < 100) black++ }
  t.equal(black, 0, 'the stroke\'s colour is not drawn under the pattern')
})

t.test('GetLegendGraphic draws the package\'s images', async (t) => {
  const app = await setup(t)
  await styled(t, app)
  const res = await app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetLegendGraphic', format: 'image/png', transparent: 'true', layer: 'vx:towns' }), headers: ADMIN })
  t.equal(res.statusCode, 200, 'the legend')
  const l = await pixels(res.rawPayload)
  t.same(at(l, 10, 10), [255, 0, 0, 255], 'the PNG in the first swatch')
  t.ok(near(at(l, 10, 32), [0, 0, 255, 128], 3), `the SVG in the second: ${at(l, 10, 32)}`)
})

t.test('a remote or out-of-folder ExternalGraphic is refused with 400 naming it, nothing stored', async (t) => {
  const app = await setup(t)
  await styled(t, app)
  const before = manifest(app.config.dataDir)
  const cases: Array<[string, string]> = [
    ['http://example.com/x.png', 'is not fetched'], ['https://example.com/x.png', 'is not fetched'], ['file:///etc/passwd', 'is not fetched'],
    ['../../secret.png', 'is outside the style\'s folder'], ['/etc/passwd', 'is outside the style\'s folder'], ['a/%2e%2e/%2e%2e/x.png', 'is outside the style\'s folder']
  ]
  for (const [href, why] of cases) {
    const sld = doc(`<Rule><PointSymbolizer>${external(href, 'image/png')}</PointSymbolizer></Rule>`)
    let res = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/styles?name=bad`, headers: SLD_TYPE, payload: sld })
    t.equal(res.statusCode, 400, `${href}: POST of an SLD`)
    t.match(res.body, `the ExternalGraphic ${JSON.stringify(href)} ${why}`)
    res = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/styles?name=bad`, headers: ZIP, payload: await zip([['bad.sld', sld], ['x.png', await widePng()]]) })
    t.equal(res.statusCode, 400, `${href}: POST of a package`)
    t.match(res.body, JSON.stringify(href))
    res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/styles/icons`, headers: SLD_TYPE, payload: sld })
    t.equal(res.statusCode, 400, `${href}: PUT over a style`)
  }
  t.equal((await app.inject({ method: 'GET', url: `${REST}/workspaces/vx/styles/bad.json`, headers: ADMIN })).statusCode, 404, 'no style was created')
  t.same(manifest(app.config.dataDir), before, 'no file changed')
  const p = await getMap(app, 'vx:towns')
  t.same(at(p, 100, 58), [255, 0, 0, 255], 'the style refused over is drawn as before')

  // SLD_BODY has no folder: only data: URIs.
  const res = await app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetMap', srs: 'EPSG:4326', bbox: '-5,-5,35,35', width: 40, height: 40, format: 'image/png', layers: 'vx:towns', sld_body: doc(`<Rule><PointSymbolizer>${external('wide.png', 'image/png')}</PointSymbolizer></Rule>`).replace('<Name>x</Name>', '<Name>vx:towns</Name>') }), headers: ADMIN })
  t.equal(res.statusCode, 200, 'an exception report')
  t.match(res.body, 'SLD_BODY')
  t.match(res.body, 'names a file')
})

t.test('SLD_BODY: a data: URI image is drawn, at its own size and Displacement', async (t) => {
  const app = await setup(t)
  const uri = `data:image/png;base64,${(await widePng()).toString('base64')}`
  const displaced = '<Displacement><DisplacementX>10</DisplacementX><DisplacementY>5</DisplacementY></Displacement>'
  const body = doc(`<Rule><PointSymbolizer>${external(uri, 'image/png', displaced)}</PointSymbolizer></Rule>`).replace('<Name>x</Name>', '<Name>vx:towns</Name>')
  const p = await getMap(app, 'vx:towns', { sld_body: body })
  // Centred 10 pixels right of and 5 up from (100, 50): pixels 100..120 x 40..50.
  t.same(at(p, 101, 41), [255, 0, 0, 255], 'the image, 20 pixels wide from its displaced centre')
  t.same(at(p, 119, 49), [255, 0, 0, 255])
  t.equal(at(p, 98, 45)[3], 0, 'not left of it')
  t.equal(at(p, 110, 51)[3], 0, '10 pixels high, not below')
})

t.test('an SVG image of a package that refers to a remote image or file: drawn without fetching it', async (t) => {
  const app = await setup(t)
  const c = await canary()
  t.teardown(c.close)
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20"><rect width="20" height="20" fill="#0000FF"/>
    <image width="20" height="20" xlink:href="${c.url}/pixel.png"/><image width="20" height="20" xlink:href="file:///etc/passwd"/><image width="20" height="20" xlink:href="../../catalog.db"/></svg>`
  const sld = doc(`<Rule><PointSymbolizer>${external('remote.svg', 'image/svg+xml', '<Size>16</Size>')}</PointSymbolizer></Rule>`)
  let res = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/styles?name=remote`, headers: ZIP, payload: await zip([['remote.sld', sld], ['remote.svg', svg]]) })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'PUT', url: `${REST}/layers/vx:towns`, headers: JSON_TYPE, payload: { layer: { defaultStyle: { name: 'vx:remote' } } } })
  t.equal(res.statusCode, 200, res.body)
  const p = await getMap(app, 'vx:towns')
  t.same(at(p, 100, 50), [0, 0, 255, 255], 'the SVG is drawn')
  t.equal(c.hits(), 0, `the canary was not reached: ${c.paths().join(', ')}`)
})

t.test('GeoServer\'s graphic-margin VendorOption spaces a GraphicFill\'s graphics; a bad one is refused naming it', async (t) => {
  const app = await setup(t)
  const body = (margin: string) => doc(`<Rule><PolygonSymbolizer><Fill><GraphicFill><Graphic><Mark><WellKnownName>circle</WellKnownName>
    <Fill><CssParameter name="fill">#FF0000</CssParameter></Fill></Mark><Size>10</Size></Graphic></GraphicFill></Fill>
    <VendorOption name="graphic-margin">${margin}</VendorOption></PolygonSymbolizer></Rule>`).replace('<Name>x</Name>', '<Name>vx:shapes</Name>')
  const p = await getMap(app, 'vx:shapes', { sld_body: body('5') })
  // Tiles of 10 + 5 + 5 pixels from the world origin (pixel 50, 350): circles centred at x 60, 80... and rows 260, 280...
  for (const [x, y] of [[60, 260], [80, 280], [140, 340]]) t.same(at(p, x, y), [255, 0, 0, 255], `a circle at ${x},${y}`)
  for (const [x, y] of [[70, 260], [60, 270], [70, 270]]) t.equal(at(p, x, y)[3], 0, `the margin at ${x},${y}`)
  const res = await app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetMap', srs: 'EPSG:4326', bbox: '-5,-5,35,35', width: 40, height: 40, format: 'image/png', layers: 'vx:shapes', sld_body: body('1 2 3 4 5') }), headers: ADMIN })
  t.match(res.body, 'SLD_BODY')
  t.match(res.body, 'graphic-margin takes 1 to 4 numbers')
})
