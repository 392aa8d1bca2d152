// Expressions in an SLD's symbolizers and labels, LinePlacement and the labelling vendor options
// read into the VectorStyle; an unknown function or option is refused naming it.
import t from 'tap'
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
  await t.rejects(first('<TextSymbolizer><Label>x</Label><VendorOption name="autoWrap">60</VendorOption></TextSymbolizer>'), /vendor option "autoWrap" is not applied/)
  await t.rejects(first('<TextSymbolizer><Label>x</Label><VendorOption name="partials">maybe</VendorOption></TextSymbolizer>'), /partials must be true or false/)
  await t.rejects(first('<TextSymbolizer><Label>x</Label><VendorOption name="followLine">true</VendorOption></TextSymbolizer>'), /apply to a LinePlacement/)
  await t.rejects(first('<TextSymbolizer><Label>x</Label><LabelPlacement><PointPlacement><Displacement><DisplacementX><ogc:PropertyName>d</ogc:PropertyName></DisplacementX></Displacement></PointPlacement></LabelPlacement></TextSymbolizer>'), /DisplacementX must be a literal/)
})
