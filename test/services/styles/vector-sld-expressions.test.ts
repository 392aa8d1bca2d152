// Expressions in an SLD's symbolizers and labels, LinePlacement and the labelling vendor options
// read into the VectorStyle; an unknown function or option is refused naming it.
import t from 'tap'
import sharp from 'sharp'
import wkx from 'wkx'
import { vectorSvg } from '../../../services/render/vector/draw-vector.js'
import { embedGraphics } from '../../../services/styles/style-graphics.js'
import { vectorStyleOf } from '../../../services/styles/vector-sld.js'
import type { Symbolizer } from '../../../services/render/vector/vector-style.js'

const sld = (symbolizers: string) => `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld" xmlns:ogc="http://www.opengis.net/ogc">
<NamedLayer><Name>a</Name><UserStyle><FeatureTypeStyle><Rule>${symbolizers}</Rule></FeatureTypeStyle></UserStyle></NamedLayer></StyledLayerDescriptor>`
const first = async (body: string): Promise<Symbolizer[]> => (await vectorStyleOf(sld(body))).featureTypeStyles[0].rules[0].symbolizers
const recode = '<ogc:Function name="Recode"><ogc:PropertyName>kind</ogc:PropertyName><ogc:Literal>a</ogc:Literal><ogc:Literal>#FF0000</ogc:Literal></ogc:Function>'

t.test('parameters given by expressions are kept as expressions, literals stay the defaults', async (t) => {
  const [point, line, polygon] = await first(`
    <PointSymbolizer><Graphic><Mark><WellKnownName>circle</WellKnownName><Fill><CssParameter name="fill">${recode}</CssParameter></Fill></Mark>
      <Size><ogc:PropertyName>s</ogc:PropertyName></Size><Rotation><ogc:Mul><ogc:PropertyName>r</ogc:PropertyName><ogc:Literal>2</ogc:Literal></ogc:Mul></Rotation></Graphic></PointSymbolizer>
    <LineSymbolizer><Stroke><CssParameter name="stroke">#0000ff</CssParameter><CssParameter name="stroke-width"><ogc:Function name="Categorize"><ogc:PropertyName>lanes</ogc:PropertyName><ogc:Literal>1</ogc:Literal><ogc:Literal>3</ogc:Literal><ogc:Literal>4</ogc:Literal></ogc:Function></CssParameter></Stroke></LineSymbolizer>
    <PolygonSymbolizer><Fill><CssParameter name="fill"><ogc:Function name="Interpolate"><ogc:PropertyName>v</ogc:PropertyName><ogc:Literal>0</ogc:Literal><ogc:Literal>#000000</ogc:Literal><ogc:Literal>10</ogc:Literal><ogc:Literal>#FFFFFF</ogc:Literal><ogc:Literal>color</ogc:Literal></ogc:Function></CssParameter><CssParameter name="fill-opacity">0.5</CssParameter></Fill></PolygonSymbolizer>`)
  t.match(point, { kind: 'point', mark: 'circle', size: 16, dynamic: { fill: { fn: 'recode' }, size: { prop: 's' }, rotation: { op: '*', args: [{ prop: 'r' }, { lit: '2' }] } } })
  t.match(line, { kind: 'line', stroke: { color: '#0000FF', width: 1 }, dynamic: { 'stroke-width': { fn: 'categorize' } } })
  t.match(polygon, { kind: 'polygon', fill: { color: '#808080', opacity: 0.5 }, dynamic: { fill: { fn: 'interpolate', args: [{ prop: 'v' }] } } })
})

t.test('graphics with expressions: an ExternalGraphic sized per feature, a GraphicStroke and a GraphicFill beside expression-valued strokes and fills', async (t) => {
  const png = await sharp({ create: { width: 4, height: 2, channels: 4, background: '#FF0000' } }).png().toBuffer()
  const href = `data:image/png;base64,${png.toString('base64')}`
  const body = `
    <PointSymbolizer><Graphic><ExternalGraphic><OnlineResource xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="${href}"/><Format>image/png</Format></ExternalGraphic>
      <Size><ogc:PropertyName>s</ogc:PropertyName></Size></Graphic></PointSymbolizer>
    <LineSymbolizer><Stroke><GraphicStroke><Graphic><Mark><WellKnownName>circle</WellKnownName></Mark><Size>6</Size></Graphic></GraphicStroke>
      <CssParameter name="stroke">${recode}</CssParameter></Stroke></LineSymbolizer>
    <PolygonSymbolizer><Fill><GraphicFill><Graphic><Mark><WellKnownName>shape://slash</WellKnownName><Stroke><CssParameter name="stroke">#0000FF</CssParameter></Stroke></Mark><Size>8</Size></Graphic></GraphicFill>
      <CssParameter name="fill">${recode}</CssParameter></Fill><VendorOption name="graphic-margin">2</VendorOption></PolygonSymbolizer>`
  const [point, line, polygon] = await first(body)
  t.match(point, { kind: 'point', image: { href }, size: 16, dynamic: { size: { prop: 's' } } }, 'a Size expression: the image is scaled, not drawn at its own size')
  t.notOk(point.kind === 'point' && point.image?.ownSize, 'not its own size')
  t.match(line, { kind: 'line', stroke: { width: 1 }, graphicStroke: { mark: 'circle', size: 6 }, dynamic: { stroke: { fn: 'recode' } } }, 'an expression colour keeps the line under the GraphicStroke')
  t.match(polygon, { kind: 'polygon', graphicFill: { mark: 'shape://slash', size: 8 }, graphicMargin: [2, 2, 2, 2], dynamic: { fill: { fn: 'recode' } } })

  const style = await embedGraphics(await vectorStyleOf(sld(body.split('<LineSymbolizer>')[0])), undefined)
  const svg = vectorSvg({
    kind: 'vector', layer: 'a', crs: 'EPSG:4326', dataCrs: 'EPSG:4326', bbox: [0, 0, 100, 100], width: 100, height: 100, scale: 1, style,
    features: [[10, 8], [20, 20], [30, 8]].map(([x, size]) => ({ geometry: wkx.Geometry.parse(`POINT(${x} 50)`).toWkb(), properties: { s: size } }))
  })
  const images = [...svg.matchAll(/<image [^>]*width="([\d.]+)" height="([\d.]+)"/g)].map((m) => [Number(m[1]), Number(m[2])])
  t.same(images, [[16, 8], [40, 20]], 'one definition per size the expression gives, the aspect ratio kept')
  t.equal([...svg.matchAll(/<use /g)].length, 3, 'every feature placed')
  await t.rejects(first('<PolygonSymbolizer><Fill><GraphicFill><Graphic><Mark><WellKnownName>circle</WellKnownName></Mark><Size><ogc:PropertyName>s</ogc:PropertyName></Size></Graphic></GraphicFill></Fill></PolygonSymbolizer>'),
    { code: 'MW_STYLES_INVALID', message: /GraphicFill Graphic's size must be literal/ }, 'an expression in a GraphicFill is refused, not dropped')
  await t.rejects(first(`<LineSymbolizer><Stroke><GraphicStroke><Graphic><Mark><WellKnownName>circle</WellKnownName><Fill><CssParameter name="fill">${recode}</CssParameter></Fill></Mark></Graphic></GraphicStroke></Stroke></LineSymbolizer>`),
    { code: 'MW_STYLES_INVALID', message: /GraphicStroke Graphic's fill must be literal/ }, 'and in a GraphicStroke')
})

t.test('a Label of text, properties, functions and CDATA; Priority; LinePlacement and vendor options', async (t) => {
  const [text] = await first(`<TextSymbolizer><Label>
      <ogc:Function name="strToUpperCase"><ogc:PropertyName>name</ogc:PropertyName></ogc:Function><![CDATA[ - ]]><ogc:Function name="strConcat"><ogc:PropertyName>ref</ogc:PropertyName><ogc:Literal>!</ogc:Literal></ogc:Function>
    </Label>
    <Font><CssParameter name="font-size"><ogc:Function name="Interpolate"><ogc:PropertyName>pop</ogc:PropertyName><ogc:Literal>0</ogc:Literal><ogc:Literal>8</ogc:Literal><ogc:Literal>1000</ogc:Literal><ogc:Literal>20</ogc:Literal></ogc:Function></CssParameter></Font>
    <LabelPlacement><LinePlacement><PerpendicularOffset>4</PerpendicularOffset></LinePlacement></LabelPlacement>
    <Priority><ogc:PropertyName>pop</ogc:PropertyName></Priority>
    <VendorOption name="followLine">true</VendorOption><VendorOption name="maxAngleDelta">30</VendorOption><VendorOption name="group">yes</VendorOption>
    <VendorOption name="labelAllGroup">true</VendorOption><VendorOption name="maxDisplacement">40</VendorOption><VendorOption name="spaceAround">-1</VendorOption><VendorOption name="partials">true</VendorOption>
  </TextSymbolizer>`)
  t.match(text, {
    kind: 'text',
    label: { cat: [{ fn: 'strtouppercase', args: [{ prop: 'name' }] }, { lit: ' - ' }, { fn: 'strconcat', args: [{ prop: 'ref' }, { lit: '!' }] }] },
    priority: { prop: 'pop' },
    line: { offset: 4, followLine: true, maxAngleDelta: 30 },
    group: true,
    labelAllGroup: true,
    maxDisplacement: 40,
    spaceAround: -1,
    partials: true,
    dynamic: { 'font-size': { fn: 'interpolate' } }
  })
  const [plain] = await first('<TextSymbolizer><Label>Fixed</Label><Priority>5</Priority><LabelPlacement><LinePlacement/></LabelPlacement></TextSymbolizer>')
  t.match(plain, { label: { lit: 'Fixed' }, priority: { lit: '5' }, line: { offset: 0, followLine: false, maxAngleDelta: 22.5 } })
})

t.test('unknown functions, wrong arities, unapplied vendor options and bad values are refused naming them', async (t) => {
  await t.rejects(first(`<TextSymbolizer><Label><ogc:Function name="strSubstringStart"><ogc:PropertyName>a</ogc:PropertyName><ogc:Literal>1</ogc:Literal></ogc:Function></Label></TextSymbolizer>`), /function "strSubstringStart" in TextSymbolizer Label is not known/)
  await t.rejects(first(`<LineSymbolizer><Stroke><CssParameter name="stroke"><ogc:Function name="nope"/></CssParameter></Stroke></LineSymbolizer>`), /function "nope" in LineSymbolizer stroke is not known/)
  await t.rejects(first(`<TextSymbolizer><Label><ogc:Function name="strConcat"><ogc:PropertyName>a</ogc:PropertyName></ogc:Function></Label></TextSymbolizer>`), /strConcat .* takes 2 arguments, found 1/)
  await t.rejects(first('<TextSymbolizer><Label>x</Label><VendorOption name="polygonAlign">mbr</VendorOption></TextSymbolizer>'), /vendor option "polygonAlign" is not applied/)
  await t.rejects(first('<TextSymbolizer><Label>x</Label><VendorOption name="partials">maybe</VendorOption></TextSymbolizer>'), /partials must be true or false/)
  await t.rejects(first('<TextSymbolizer><Label>x</Label><VendorOption name="followLine">true</VendorOption></TextSymbolizer>'), /apply to a LinePlacement/)
  await t.rejects(first('<TextSymbolizer><Label>x</Label><LabelPlacement><PointPlacement><Displacement><DisplacementX><ogc:PropertyName>d</ogc:PropertyName></DisplacementX></Displacement></PointPlacement></LabelPlacement></TextSymbolizer>'), /DisplacementX must be a literal/)
  await t.rejects(first('<TextSymbolizer><Label>x</Label><Font><CssParameter name="font-family"><ogc:PropertyName>f</ogc:PropertyName></CssParameter></Font></TextSymbolizer>'), /Font font-family must be a literal/)
  await t.rejects(first('<TextSymbolizer><Label>x</Label><Halo><Fill><CssParameter name="fill"><ogc:Function name="Recode"><ogc:PropertyName>k</ogc:PropertyName><ogc:Literal>a</ogc:Literal><ogc:Literal>#FF0000</ogc:Literal></ogc:Function></CssParameter></Fill></Halo></TextSymbolizer>'), /Halo fill must be a literal/)
})
