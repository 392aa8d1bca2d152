// Expressions and labelling options of vector styles end to end: a style saved through REST (an
// unknown function refused naming it) drawn on WMS GetMap and on cached tiles: Recode, Categorize
// and Interpolate in fills, widths and label colours, labels along lines (straight and following
// them), Priority, spaceAround and partials, on the decoded PNG's pixels (group, maxDisplacement and
// the SVG itself: test/services/render/vector/labels.test.ts).
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { build, ADMIN } from '../../helper.js'
import { postgisStore } from '../../fixtures/postgis-store.js'
import { differing, getMap, JSON_TYPE, REST, sld, SLD_TYPE, styleLayer, tileBox, tilePixels } from '../../fixtures/vector-tiles.js'
import { at, pixels, wmsUrl, type Pixels } from './helpers.js'
import { createFontFaces } from '../../../services/render/vector/font-faces.js'
import { createTextMetrics, textWidth } from '../../../services/render/vector/text-metrics.js'

// Maps of lon/lat -5..35 at 400x400: lon x is pixel (x+5)*10, lat y is row (35-y)*10.
const TABLES = `
  CREATE TABLE zones (id integer PRIMARY KEY, kind text, v double precision, geom geometry(Polygon, 4326));
  INSERT INTO zones VALUES (1, 'a', 0, ST_MakeEnvelope(0, 0, 10, 10, 4326)), (2, 'b', 10, ST_MakeEnvelope(20, 0, 30, 10, 4326));
  CREATE TABLE streets (id integer PRIMARY KEY, name text, geom geometry(LineString, 4326));
  INSERT INTO streets VALUES (1, 'Diagonal Avenue', ST_SetSRID(ST_MakeLine(ST_MakePoint(0, 15), ST_MakePoint(15, 30)), 4326)),
    (2, 'Long Bending Road', ST_SetSRID(ST_MakeLine(ARRAY[ST_MakePoint(0, 12), ST_MakePoint(15, 12), ST_MakePoint(30, 14)]), 4326));
  CREATE TABLE towns (id integer PRIMARY KEY, name text, rank integer, geom geometry(Point, 4326));
  INSERT INTO towns VALUES (1, 'Low', 1, ST_SetSRID(ST_MakePoint(10, 20), 4326)), (2, 'High', 9, ST_SetSRID(ST_MakePoint(10.3, 20), 4326)),
    (3, 'Edge', 1, ST_SetSRID(ST_MakePoint(34.5, 30), 4326));
`

async function setup (t: Test): Promise<FastifyInstance> {
  const app = await build(t)
  await postgisStore(t, app, TABLES, { store: 'db' })
  for (const name of ['zones', 'streets', 'towns']) {
    const r = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/datastores/db/featuretypes`, headers: JSON_TYPE, payload: { featureType: { name } } })
    if (r.statusCode !== 201) throw new Error(`feature type ${name}: ${r.statusCode} ${r.body}`)
  }
  return app
}

const BOX = [-5, -5, 35, 35]
const near = (px: number[], rgb: number[], tol = 60) => px[3] > 200 && rgb.every((v, i) => Math.abs(px[i] - v) <= tol)
/** The pixels of a colour, as [x, y]. */
function where (p: Pixels, rgb: number[]): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (let y = 0; y < p.height; y++) for (let x = 0; x < p.width; x++) if (near(at(p, x, y), rgb)) out.push([x, y])
  return out
}
/** Distance from a pixel to a polyline in pixels. */
function distance ([x, y]: [number, number], line: Array<[number, number]>): number {
  let best = Infinity
  for (let i = 1; i < line.length; i++) {
    const [ax, ay] = line[i - 1]; const [bx, by] = line[i]
    const t = Math.max(0, Math.min(1, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)))
    best = Math.min(best, Math.hypot(x - (ax + t * (bx - ax)), y - (ay + t * (by - ay))))
  }
  return best
}
const RED = [255, 0, 0]; const BLUE = [0, 0, 255]

t.test('expressions in fills, widths and label colours: saved, drawn on GetMap and on tiles; unknown functions refused', async (t) => {
  const app = await setup(t)
  const rule = `<PolygonSymbolizer><Fill><CssParameter name="fill"><ogc:Function name="Recode"><ogc:PropertyName>kind</ogc:PropertyName>
      <ogc:Literal>a</ogc:Literal><ogc:Literal>#FF0000</ogc:Literal><ogc:Literal>b</ogc:Literal><ogc:Literal>#0000FF</ogc:Literal></ogc:Function></CssParameter></Fill>
    <Stroke><CssParameter name="stroke">#000000</CssParameter><CssParameter name="stroke-width"><ogc:Function name="Categorize"><ogc:PropertyName>v</ogc:PropertyName>
      <ogc:Literal>1</ogc:Literal><ogc:Literal>5</ogc:Literal><ogc:Literal>8</ogc:Literal></ogc:Function></CssParameter></Stroke></PolygonSymbolizer>`
  await styleLayer(t, app, 'vx:zones', 'zoned', rule)
  const p = await getMap(app, 'vx:zones', BOX, 400)
  t.same(at(p, 100, 300), [255, 0, 0, 255], 'kind a: red (Recode)')
  t.same(at(p, 300, 300), [0, 0, 255, 255], 'kind b: blue')
  t.same(at(p, 253, 300), [0, 0, 0, 255], 'v 10: an outline of 8 pixels (Categorize) reaches 3 pixels inside')
  t.same(at(p, 53, 300), [255, 0, 0, 255], 'v 0: an outline of 1 pixel')
  // Tile 4/16/7 of EPSG:4326 is lon 0..11.25, lat 0..11.25: zone a.
  const tile = await tilePixels(app, 'vx:zones', 4, 16, 7)
  t.equal(differing(await getMap(app, 'vx:zones', tileBox(4, 16, 7)), tile), 0, 'the tile is the GetMap of its area')
  t.same(at(tile, 100, 150), [255, 0, 0, 255], 'red on the tile too')

  const unknown = sld('bad', '<PolygonSymbolizer><Fill><CssParameter name="fill"><ogc:Function name="colorBrewer"><ogc:PropertyName>v</ogc:PropertyName></ogc:Function></CssParameter></Fill></PolygonSymbolizer>')
  const saved = await app.inject({ method: 'POST', url: `${REST}/workspaces/vx/styles?name=bad`, headers: SLD_TYPE, payload: unknown })
  t.equal(saved.statusCode, 400)
  t.match(saved.body, /function "colorBrewer" in PolygonSymbolizer fill is not known/)
  t.equal((await app.inject({ url: `${REST}/workspaces/vx/styles/bad.json`, headers: ADMIN })).statusCode, 404, 'nothing saved')
  const put = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/styles/zoned`, headers: SLD_TYPE, payload: unknown })
  t.equal(put.statusCode, 400, 'nor replaced')
  t.same(at(await getMap(app, 'vx:zones', BOX, 400), 100, 300), [255, 0, 0, 255], 'the style drawn as before')
  const body = await app.inject({ url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetMap', layers: 'vx:zones', styles: '', srs: 'EPSG:4326', bbox: BOX.join(','), width: 100, height: 100, format: 'image/png', sld_body: unknown.replace('<Name>bad</Name>', '<Name>vx:zones</Name>') }), headers: ADMIN })
  t.match(body.body, /colorBrewer/, 'an SLD_BODY with it: a ServiceException naming it')
})

t.test('labels on lines: straight along the line at its middle, or following it; not drawn horizontal', async (t) => {
  const app = await setup(t)
  const label = (options: string) => `<TextSymbolizer><Label><ogc:PropertyName>name</ogc:PropertyName></Label>
    <Font><CssParameter name="font-family">DejaVu Sans</CssParameter><CssParameter name="font-size">14</CssParameter></Font>
    <LabelPlacement><LinePlacement/></LabelPlacement><Fill><CssParameter name="fill">#FF0000</CssParameter></Fill>${options}</TextSymbolizer>`
  await styleLayer(t, app, 'vx:streets', 'along', label(''))
  const straight = where(await getMap(app, 'vx:streets', BOX, 400), RED)
  const diagonal: Array<[number, number]> = [[50, 200], [200, 50]]
  const onDiagonal = straight.filter((q) => distance(q, diagonal) < 12)
  t.ok(onDiagonal.length > 80, `the diagonal street's label in red along it: ${onDiagonal.length} pixels`)
  t.ok(onDiagonal.some(([x]) => x < 90) && onDiagonal.some(([x]) => x > 160), 'spread along the 45 degree line, not level at its middle')
  t.equal(straight.filter((q) => distance(q, diagonal) >= 12 && q[1] < 215).length, 0, 'no red beside the diagonal')

  const bending: Array<[number, number]> = [[50, 230], [200, 230], [350, 210]]
  const res = await app.inject({ method: 'PUT', url: `${REST}/workspaces/vx/styles/along`, headers: SLD_TYPE, payload: sld('along', label('<VendorOption name="followLine">true</VendorOption>')) })
  t.equal(res.statusCode, 200)
  const follow = where(await getMap(app, 'vx:streets', BOX, 400), RED).filter(([, y]) => y > 190)
  t.ok(follow.length > 80, `the bending road's label: ${follow.length} red pixels`)
  t.equal(follow.filter((q) => distance(q, bending) > 11).length, 0, 'every glyph on the line, before and after the bend')
  t.ok(follow.some(([x]) => x < 190) && follow.some(([x]) => x > 215), 'on both sides of the bend')
  const rising = follow.filter(([x]) => x > 240)
  t.ok(rising.length > 0 && rising.every(([x, y]) => y < 238 - (x - 200) * 0.1), 'after the bend the glyphs rise with the line')
})

t.test('labels on points: Priority, spaceAround and partials; sized with the font they are drawn with', async (t) => {
  const app = await setup(t)
  const draw = async (t: Test, rule: string) => {
    const r = await app.inject({ method: 'GET', url: wmsUrl({ service: 'WMS', version: '1.1.1', request: 'GetMap', layers: 'vx:towns', styles: '', srs: 'EPSG:4326', bbox: BOX.join(','), width: 400, height: 400, format: 'image/png', transparent: 'true', sld_body: sld('vx:towns', rule) }), headers: ADMIN })
    t.equal(r.statusCode, 200)
    return await pixels(r.rawPayload)
  }

  await t.test('Priority, spaceAround and partials on points', async (t) => {
    const label = (options: string) => `<TextSymbolizer><Label><ogc:PropertyName>name</ogc:PropertyName></Label><Font><CssParameter name="font-size">14</CssParameter></Font>
      <LabelPlacement><PointPlacement><AnchorPoint><AnchorPointX>0.5</AnchorPointX><AnchorPointY>0.5</AnchorPointY></AnchorPoint></PointPlacement></LabelPlacement>
      <Fill><CssParameter name="fill"><ogc:Function name="Recode"><ogc:PropertyName>name</ogc:PropertyName><ogc:Literal>Low</ogc:Literal><ogc:Literal>#FF0000</ogc:Literal>
        <ogc:Literal>High</ogc:Literal><ogc:Literal>#0000FF</ogc:Literal></ogc:Function></CssParameter></Fill>${options}</TextSymbolizer>`
    let p = await draw(t, label(''))
    t.ok(where(p, RED).length > 20 && where(p, BLUE).length === 0, 'feature order: Low is placed, High overlaps it and is skipped')
    p = await draw(t, label('<Priority><ogc:PropertyName>rank</ogc:PropertyName></Priority>'))
    t.ok(where(p, BLUE).length > 20 && where(p, RED).filter(([x]) => x < 300).length === 0, 'Priority: High (9) first, Low skipped')
    const edge = (q: Pixels) => { let n = 0; for (let y = 40; y < 60; y++) for (let x = 370; x < 400; x++) if (at(q, x, y)[3] > 100) n++; return n }
    t.equal(edge(p), 0, 'Edge at lon 34.5 would be cut by the image edge: not drawn')
    p = await draw(t, label('<VendorOption name="partials">true</VendorOption>'))
    t.ok(edge(p) > 10, 'partials=true: drawn cut')
    p = await draw(t, label('<VendorOption name="spaceAround">-1</VendorOption>'))
    // High is drawn over Low 3 pixels to its right: Low shows only where High leaves gaps.
    t.ok(where(p, BLUE).length > 20 && where(p, RED).length > 0, `a negative spaceAround: both overlapping labels drawn (${where(p, RED).length} red pixels show)`)
  })

  // Families other than DejaVu Sans, installed by scripts/install-wms-tools.sh: a label is as wide as
  // the font librsvg draws it with (its ink within the side bearings of its first and last glyphs),
  // so it sits where its anchor puts it. Measured with DejaVu Sans' table (the measure before),
  // these labels were 14 to 50 pixels too wide or narrow: anchored 7 to 50 pixels off.
  await t.test('fonts: a label in another family is as wide as drawn, and anchored where the anchor says', async (t) => {
    const TEXT = 'Wavy Avenue To Vättern'
    const table = createTextMetrics({ faces: createFontFaces({ command: '/nonexistent/fc-match' }) })
    const label = (town: string, family: string, style: string, weight: string, anchorX: number) => `<ogc:Filter><ogc:PropertyIsEqualTo><ogc:PropertyName>name</ogc:PropertyName><ogc:Literal>${town}</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Filter>
      <TextSymbolizer><Label>${TEXT}</Label><Font><CssParameter name="font-family">${family}</CssParameter><CssParameter name="font-size">20</CssParameter>
        <CssParameter name="font-style">${style}</CssParameter><CssParameter name="font-weight">${weight}</CssParameter></Font>
      <LabelPlacement><PointPlacement><AnchorPoint><AnchorPointX>${anchorX}</AnchorPointX><AnchorPointY>0.5</AnchorPointY></AnchorPoint></PointPlacement></LabelPlacement>
      <Fill><CssParameter name="fill">#000000</CssParameter></Fill></TextSymbolizer>`
    /** The columns the ink of the map's one label spans, [first, last + 1). */
    const span = (p: Pixels): [number, number] => {
      let x0 = Infinity; let x1 = -Infinity
      for (let y = 0; y < p.height; y++) for (let x = 0; x < p.width; x++) if (at(p, x, y)[3] > 8) { x0 = Math.min(x0, x); x1 = Math.max(x1, x + 1) }
      return [x0, x1]
    }
    // Low (lon 10) is column 150, Edge (lon 34.5) column 395.
    // Arial is drawn with Liberation Sans, its metric twin (fontconfig's alias): measured so too.
    for (const [family, style, weight] of [['Liberation Serif', 'normal', 'normal'], ['Liberation Sans', 'italic', 'bold'], ['Liberation Mono', 'normal', 'normal'], ['Arial', 'normal', 'normal']] as const) {
      const font = { family, size: 20, style, weight }
      const w = textWidth(TEXT, font)
      const before = table.textWidth(TEXT, font)
      t.ok(Math.abs(w - before) > 10, `${family} ${style} ${weight}: ${w.toFixed(1)} pixels, DejaVu Sans' table says ${before.toFixed(1)}`)
      const [x0, x1] = span(await draw(t, label('Low', family, style, weight, 0.5)))
      t.ok(Math.abs(x1 - x0 - w) <= 3, `${family}: ink ${x1 - x0} pixels wide, measured ${w.toFixed(1)}`)
      t.ok(Math.abs((x0 + x1) / 2 - 150) <= 2, `${family}: centred on Low: ink ${x0}..${x1}`)
      const [, right] = span(await draw(t, label('Edge', family, style, weight, 1)))
      t.ok(Math.abs(right - 395) <= 2, `${family}: anchor x 1 ends the text at Edge: ink ends at ${right}`)
    }
    t.equal(textWidth(TEXT, { family: 'Arial', size: 20, style: 'normal', weight: 'normal' }), textWidth(TEXT, { family: 'Liberation Sans', size: 20, style: 'normal', weight: 'normal' }))
  })
})
