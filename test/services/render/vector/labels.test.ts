// The labels of a vector layer as the worker writes them into its SVG (vectorSvg): expressions in
// labels and parameters, LinePlacement straight and following the line (glyph by glyph, with
// maxAngleDelta), group and labelAllGroup, Priority, spaceAround, maxDisplacement and partials.
import t from 'tap'
import wkx from 'wkx'
import { vectorSvg, type VectorJob } from '../../../../services/render/vector/draw-vector.js'
import { vectorStyleOf } from '../../../../services/styles/vector-sld.js'

const sld = (symbolizers: string) => `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld" xmlns:ogc="http://www.opengis.net/ogc">
<NamedLayer><Name>a</Name><UserStyle><FeatureTypeStyle><Rule>${symbolizers}</Rule></FeatureTypeStyle></UserStyle></NamedLayer></StyledLayerDescriptor>`
const NAME = '<Label><ogc:PropertyName>name</ogc:PropertyName></Label><Font><CssParameter name="font-size">10</CssParameter></Font>'
const CENTRE = '<LabelPlacement><PointPlacement><AnchorPoint><AnchorPointX>0.5</AnchorPointX><AnchorPointY>0.5</AnchorPointY></AnchorPoint></PointPlacement></LabelPlacement>'

/** A 200x200 map of 0..200 x 0..200 in EPSG:4326 units: x is the pixel column, y 200 - row. */
async function svgOf (symbolizers: string, features: Array<[string, Record<string, unknown>]>, size = 200): Promise<string> {
  const job: VectorJob = {
    kind: 'vector', layer: 'a', crs: 'EPSG:4326', dataCrs: 'EPSG:4326', bbox: [0, 0, size, size], width: size, height: size, scale: 1,
    style: await vectorStyleOf(sld(symbolizers)),
    features: features.map(([wkt, properties]) => ({ geometry: wkx.Geometry.parse(wkt).toWkb(), properties }))
  }
  return vectorSvg(job)
}
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])
/** The <defs> element a mark placed at `translate` uses (svg-graphics.ts defines each Graphic once). */
function markAt (svg: string, translate: string): string {
  const id = new RegExp(`<use xlink:href="#([^"]+)" transform="translate\\(${translate}\\)`).exec(svg)?.[1]
  return id === undefined ? '' : new RegExp(`<path id="${id}"[^>]*>`).exec(svg)?.[0] ?? ''
}
const rotations = (svg: string) => [...svg.matchAll(/rotate\((-?[\d.]+)\)/g)].map((m) => Number(m[1]))

t.test('expressions: the label of mixed content and functions, a colour and a size per feature', async (t) => {
  const svg = await svgOf(`<TextSymbolizer><Label><ogc:Function name="strToUpperCase"><ogc:PropertyName>name</ogc:PropertyName></ogc:Function> <![CDATA[ (]]><ogc:Function name="strConcat"><ogc:PropertyName>pop</ogc:PropertyName><ogc:Literal>k</ogc:Literal></ogc:Function>)</Label>${CENTRE}
    <Fill><CssParameter name="fill"><ogc:Function name="Recode"><ogc:PropertyName>kind</ogc:PropertyName><ogc:Literal>city</ogc:Literal><ogc:Literal>#FF0000</ogc:Literal></ogc:Function></CssParameter></Fill></TextSymbolizer>
    <PointSymbolizer><Graphic><Mark><WellKnownName>circle</WellKnownName><Fill><CssParameter name="fill"><ogc:Function name="Categorize"><ogc:PropertyName>pop</ogc:PropertyName><ogc:Literal>#0000FF</ogc:Literal><ogc:Literal>100</ogc:Literal><ogc:Literal>#00FF00</ogc:Literal></ogc:Function></CssParameter></Fill></Mark>
      <Size><ogc:Function name="Interpolate"><ogc:PropertyName>pop</ogc:PropertyName><ogc:Literal>0</ogc:Literal><ogc:Literal>4</ogc:Literal><ogc:Literal>1000</ogc:Literal><ogc:Literal>24</ogc:Literal></ogc:Function></Size></Graphic></PointSymbolizer>`,
  [['POINT(50 150)', { name: 'oslo', pop: 500, kind: 'city' }], ['POINT(50 50)', { name: 'ås', pop: 50, kind: 'village' }]])
  t.same(texts(svg), ['OSLO (500k)', 'ÅS (50k)'], 'text trimmed around expressions, CDATA kept')
  t.match(svg, /<text[^>]*fill="#FF0000"[^>]*>OSLO/, 'Recode gives the city its colour')
  t.match(svg, /<text[^>]*fill="#000000"[^>]*>ÅS/, 'no key: the default black')
  t.match(markAt(svg, '50 50'), /d="M-7 0A7 7[^"]*" fill="#00FF00"/, 'size 14 (interpolated at 500), green from 100 up')
  t.match(markAt(svg, '50 150'), /d="M-2.5 0A2.5 2.5[^"]*" fill="#0000FF"/, 'size 5 at 50, blue below 100')
})

const LINE = (options: string, offset = '') => `<TextSymbolizer>${NAME}<LabelPlacement><LinePlacement>${offset}</LinePlacement></LabelPlacement>${options}</TextSymbolizer>`

t.test('LinePlacement: straight and rotated at the middle, or glyph by glyph along the line', async (t) => {
  const diagonal: [string, Record<string, unknown>] = ['LINESTRING(20 20, 180 180)', { name: 'Diagonal' }]
  const straight = await svgOf(LINE(''), [diagonal])
  t.same(texts(straight), ['Diagonal'])
  t.match(straight, /text-anchor="middle"[^>]*transform="translate\(100 100\) rotate\(-45\)"/, 'centred on the middle, along the line, upright')
  // Drawn right to left, the text still reads left to right.
  const backwards = await svgOf(LINE(''), [['LINESTRING(180 180, 20 20)', { name: 'Diagonal' }]])
  t.match(backwards, /rotate\(-45\)/)

  const bent = await svgOf(LINE('<VendorOption name="followLine">true</VendorOption>'), [['LINESTRING(10 100, 100 100, 190 130)', { name: 'Bending road' }]])
  t.same(texts(bent), 'Bending road'.replace(' ', '').split(''), 'one text per glyph (spaces only move the next)')
  const angles = rotations(bent)
  t.ok(angles.some((a) => a === 0) && angles.some((a) => Math.abs(a + 18.43) < 0.01), `glyphs before the bend level, after it along the rising segment: ${angles.join(', ')}`)
  t.match(bent, /<g><text/, 'the glyphs grouped, their halos (none here) under them')
  const sharp = await svgOf(LINE('<VendorOption name="followLine">true</VendorOption>'), [['LINESTRING(10 100, 100 100, 190 160)', { name: 'Bending road' }]])
  t.same(texts(sharp), [], 'a turn of 33.7 degrees exceeds the default maxAngleDelta of 22.5: no label')
  const allowed = await svgOf(LINE('<VendorOption name="followLine">true</VendorOption><VendorOption name="maxAngleDelta">40</VendorOption>'), [['LINESTRING(10 100, 100 100, 190 160)', { name: 'Bending road' }]])
  t.equal(texts(allowed).length, 11, 'maxAngleDelta 40 allows it')
  const short = await svgOf(LINE('<VendorOption name="followLine">true</VendorOption>'), [['LINESTRING(90 100, 110 100)', { name: 'Bending road' }]])
  t.same(texts(short), [], 'a line shorter than its label is not labelled when following it')
  const offset = await svgOf(LINE('', '<PerpendicularOffset>6</PerpendicularOffset>'), [['LINESTRING(20 100, 180 100)', { name: 'Level' }]])
  t.match(offset, /<text x="0" y="-2.5" text-anchor="middle"/, 'PerpendicularOffset 6 lifts the text above the line')
})

t.test('group, labelAllGroup, Priority, spaceAround, maxDisplacement, partials', async (t) => {
  const segments: Array<[string, Record<string, unknown>]> = [['LINESTRING(10 150, 40 150)', { name: 'Ring' }], ['LINESTRING(50 100, 190 100)', { name: 'Ring' }], ['LINESTRING(10 30, 60 30)', { name: 'Ring' }]]
  t.equal(texts(await svgOf(LINE(''), segments)).length, 3, 'without group: each segment its label')
  const grouped = await svgOf(LINE('<VendorOption name="group">yes</VendorOption>'), segments)
  t.equal(texts(grouped).length, 1, 'group: one label for the name')
  t.match(grouped, /translate\(120 100\)/, 'on the middle of the longest line')
  t.equal(texts(await svgOf(LINE('<VendorOption name="group">true</VendorOption><VendorOption name="labelAllGroup">true</VendorOption>'), segments)).length, 3, 'labelAllGroup: every line of the group')
  // Two segments meeting at (60, 50), the second drawn backwards: joined, labelled at the middle of both.
  const touching: Array<[string, Record<string, unknown>]> = [['LINESTRING(10 50, 60 50)', { name: 'Joined' }], ['LINESTRING(190 50, 60 50)', { name: 'Joined' }]]
  t.match(await svgOf(LINE(''), touching), /translate\(125 150\)/, 'without group: the longer segment\'s middle')
  const joined = await svgOf(LINE('<VendorOption name="group">true</VendorOption>'), touching)
  t.equal(texts(joined).length, 1)
  t.match(joined, /translate\(100 150\)/, 'group: the middle of the two joined')

  const close: Array<[string, Record<string, unknown>]> = [['POINT(100 100)', { name: 'Low', rank: 1 }], ['POINT(104 100)', { name: 'High', rank: 9 }]]
  t.same(texts(await svgOf(`<TextSymbolizer>${NAME}${CENTRE}</TextSymbolizer>`, close)), ['Low'], 'in feature order the first label wins')
  t.same(texts(await svgOf(`<TextSymbolizer>${NAME}${CENTRE}<Priority><ogc:PropertyName>rank</ogc:PropertyName></Priority></TextSymbolizer>`, close)), ['High'], 'the higher Priority is placed first')
  t.same(texts(await svgOf(`<TextSymbolizer>${NAME}${CENTRE}<VendorOption name="spaceAround">-1</VendorOption></TextSymbolizer>`, close)), ['Low', 'High'], 'a negative spaceAround lets labels overlap')
  t.same(texts(await svgOf(`<TextSymbolizer>${NAME}${CENTRE}<VendorOption name="maxDisplacement">30</VendorOption></TextSymbolizer>`, close)), ['Low', 'High'], 'maxDisplacement moves the second label beside the first')

  const apart: Array<[string, Record<string, unknown>]> = [['POINT(100 100)', { name: 'One' }], ['POINT(100 85)', { name: 'Two' }]]
  t.same(texts(await svgOf(`<TextSymbolizer>${NAME}${CENTRE}</TextSymbolizer>`, apart)), ['One', 'Two'], 'labels 15 pixels apart both fit')
  t.same(texts(await svgOf(`<TextSymbolizer>${NAME}${CENTRE}<VendorOption name="spaceAround">10</VendorOption></TextSymbolizer>`, apart)), ['One'], 'spaceAround 10 keeps the second away')

  const edge: Array<[string, Record<string, unknown>]> = [['POINT(198 100)', { name: 'Edge' }]]
  t.same(texts(await svgOf(`<TextSymbolizer>${NAME}${CENTRE}</TextSymbolizer>`, edge)), [], 'partials=false: a label crossing the image edge is not drawn')
  t.same(texts(await svgOf(`<TextSymbolizer>${NAME}${CENTRE}<VendorOption name="partials">true</VendorOption></TextSymbolizer>`, edge)), ['Edge'], 'partials=true draws it cut')
})

t.test('labels are sized with the font they are drawn with: two that fit side by side in Liberation Serif are both placed', async (t) => {
  // "Wavy Avenue" is 110.8 px wide in Liberation Serif at 20 px (138.1 by DejaVu Sans' table): from
  // x 20 it ends before the second label starts at x 145.
  const left = (family: string) => `<TextSymbolizer><Label><ogc:PropertyName>name</ogc:PropertyName></Label><Font><CssParameter name="font-family">${family}</CssParameter><CssParameter name="font-size">20</CssParameter></Font>
    <LabelPlacement><PointPlacement><AnchorPoint><AnchorPointX>0</AnchorPointX><AnchorPointY>0.5</AnchorPointY></AnchorPoint></PointPlacement></LabelPlacement></TextSymbolizer>`
  const row: Array<[string, Record<string, unknown>]> = [['POINT(20 100)', { name: 'Wavy Avenue' }], ['POINT(145 100)', { name: 'Wavy Avenue' }]]
  t.same(texts(await svgOf(left('Liberation Serif'), row, 300)), ['Wavy Avenue', 'Wavy Avenue'])
  t.same(texts(await svgOf(left('DejaVu Sans'), row, 300)), ['Wavy Avenue'], 'in DejaVu Sans, wider, they would overlap: the second is skipped')
  // Along a line, glyph by glyph: the glyphs' advances in Liberation Serif, kerned, not DejaVu Sans'.
  const follow = await svgOf(`<TextSymbolizer><Label><ogc:PropertyName>name</ogc:PropertyName></Label><Font><CssParameter name="font-family">Liberation Serif</CssParameter><CssParameter name="font-size">20</CssParameter></Font>
    <LabelPlacement><LinePlacement/></LabelPlacement><VendorOption name="followLine">true</VendorOption></TextSymbolizer>`, [['LINESTRING(20 100, 280 100)', { name: 'Wavy Avenue' }]], 300)
  const xs = [...follow.matchAll(/translate\(([\d.]+) 200\)/g)].map((m) => Number(m[1]))
  t.equal(xs.length, 10, 'ten glyphs (the space only moves the next)')
  // The W's centre half its advance (17.28) after the start, the last e's half its advance (8.88) before the end.
  t.ok(Math.abs(xs[0] - (150 - 110.76 / 2 + 17.28 / 2)) < 0.02 && Math.abs(xs[9] - (150 + 110.76 / 2 - 8.88 / 2)) < 0.02, `centred on the line's middle, 110.8 px long: ${xs[0]} .. ${xs[9]}`)
})

t.test('conflictResolution, autoWrap, repeat, goodnessOfFit, underlineText and strikethroughText are applied', async (t) => {
  const point = (opts: string) => `<TextSymbolizer>${NAME}${CENTRE}${opts}</TextSymbolizer>`
  // Two labels on one spot: the second is dropped, unless it (or the first) takes no part in conflicts.
  const same: Array<[string, Record<string, unknown>]> = [['POINT(100 100)', { name: 'first' }], ['POINT(100 100)', { name: 'second' }]]
  t.same(texts(await svgOf(point(''), same)), ['first'])
  t.same(texts(await svgOf(point('<VendorOption name="conflictResolution">false</VendorOption>'), same)), ['first', 'second'])

  // autoWrap: words on lines of at most 40 px, each a tspan, centred as the anchor (0.5) says.
  const wrapped = await svgOf(point('<VendorOption name="autoWrap">40</VendorOption>'), [['POINT(100 100)', { name: 'Saint Helena Ascension and Tristan' }]])
  const spans = [...wrapped.matchAll(/<tspan x="([\d.]+)" y="([\d.]+)">([^<]*)<\/tspan>/g)]
  t.ok(spans.length >= 3, `${spans.length} lines: ${spans.map((m) => m[3]).join(' | ')}`)
  t.equal(spans.map((m) => m[3]).join(' '), 'Saint Helena Ascension and Tristan', 'every word, in order')
  const ys = spans.map((m) => Number(m[2]))
  t.ok(ys.every((y, i) => i === 0 || Math.abs(y - ys[i - 1] - 12) < 0.01), 'baselines 1.2 font sizes apart')
  // (the middle baseline sits 0.3 font sizes below the middle of the block: 0.8 from the top of a line)
  t.ok(Math.abs((ys[0] + ys[ys.length - 1]) / 2 - 3 - 100) < 0.01, 'the block centred on the point')

  // repeat: a label every 60 px along a 180 px line (at 30, 90 and 150), not one in the middle.
  const long: Array<[string, Record<string, unknown>]> = [['LINESTRING(10 100, 190 100)', { name: 'Ring' }]]
  t.same(texts(await svgOf(LINE(''), long)), ['Ring'])
  const repeated = await svgOf(LINE('<VendorOption name="repeat">60</VendorOption>'), long)
  t.same([...repeated.matchAll(/translate\(([\d.]+) 100\)/g)].map((m) => Number(m[1])), [40, 100, 160])

  // goodnessOfFit: the label of a thin polygon, wider than it, is dropped at 0.9 and kept without.
  const thin: Array<[string, Record<string, unknown>]> = [['POLYGON((90 50, 110 50, 110 150, 90 150, 90 50))', { name: 'A long name here' }]]
  t.same(texts(await svgOf(point(''), thin)), ['A long name here'])
  t.same(texts(await svgOf(point('<VendorOption name="goodnessOfFit">0.9</VendorOption>'), thin)), [])

  const decorated = await svgOf(point('<VendorOption name="underlineText">true</VendorOption><VendorOption name="strikethroughText">true</VendorOption>'), [['POINT(100 100)', { name: 'x' }]])
  t.match(decorated, 'text-decoration="underline line-through"')
})

t.test('vendor options mapwarden cannot apply are refused by name', async (t) => {
  await t.rejects(vectorStyleOf(sld(`<TextSymbolizer>${NAME}<VendorOption name="forceLeftToRight">false</VendorOption></TextSymbolizer>`)), /forceLeftToRight false/)
  await t.rejects(vectorStyleOf(sld(`<TextSymbolizer>${NAME}<VendorOption name="repeat">50</VendorOption></TextSymbolizer>`)), /repeat applies to a LinePlacement/)
  await t.rejects(vectorStyleOf(sld(`<TextSymbolizer>${NAME}<VendorOption name="polygonAlign">mbr</VendorOption></TextSymbolizer>`)), /"polygonAlign" is not applied/)
  t.ok(await vectorStyleOf(sld(`<TextSymbolizer>${NAME}<VendorOption name="forceLeftToRight">true</VendorOption></TextSymbolizer>`)))
})
