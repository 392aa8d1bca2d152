// The vector style of an SLD (geostyler-sld-parser's symbolizers, our rules), its ogc:Filter read
// into the filter tree and evaluated on attributes, as the render workers apply them.
import t from 'tap'
import { vectorStyleOf } from '../../../services/styles/vector-sld.js'
import { matches as matchesView, recordView } from '../../../services/filters/evaluate.js'
import type { Filter } from '../../../services/filters/tree.js'

// An SLD rule's filter on an attribute record, as draw-vector.ts applies it (GeoTools' two-valued logic).
const matches = (f: Filter, props: Record<string, unknown>) => matchesView(f, recordView(props), { twoValued: true })

const sld = (body: string, extra = '') => `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld" xmlns:ogc="http://www.opengis.net/ogc">
<NamedLayer><Name>a</Name><UserStyle><Name>s</Name>${body}</UserStyle></NamedLayer>${extra}</StyledLayerDescriptor>`
const line = '<LineSymbolizer><Stroke><CssParameter name="stroke">#336699</CssParameter><CssParameter name="stroke-width">3</CssParameter><CssParameter name="stroke-dasharray">5 2</CssParameter><CssParameter name="stroke-linecap">round</CssParameter></Stroke></LineSymbolizer>'

t.test('rules keep their FeatureTypeStyle, ElseFilter, scales, names and titles; symbolizers as drawn', async (t) => {
  const style = await vectorStyleOf(sld(`
    <FeatureTypeStyle>
      <Rule><Name>like</Name><Title>Names with A</Title>
        <ogc:Filter><ogc:PropertyIsLike wildCard="*" singleChar="." escape="!"><ogc:PropertyName>name</ogc:PropertyName><ogc:Literal>A*x.!*</ogc:Literal></ogc:PropertyIsLike></ogc:Filter>
        <MinScaleDenominator>1000</MinScaleDenominator><MaxScaleDenominator>50000</MaxScaleDenominator>${line}</Rule>
      <Rule><ElseFilter/><PointSymbolizer><Graphic><Mark><WellKnownName>star</WellKnownName><Fill><CssParameter name="fill">#ff0000</CssParameter></Fill></Mark><Size>10</Size><Rotation>45</Rotation></Graphic></PointSymbolizer></Rule>
    </FeatureTypeStyle>
    <FeatureTypeStyle><Rule><TextSymbolizer><Label>n: <ogc:PropertyName>name</ogc:PropertyName></Label>
      <Font><CssParameter name="font-family">Serif</CssParameter><CssParameter name="font-size">11</CssParameter><CssParameter name="font-style">italic</CssParameter></Font>
      <LabelPlacement><PointPlacement><AnchorPoint><AnchorPointX>0.5</AnchorPointX><AnchorPointY>0</AnchorPointY></AnchorPoint><Displacement><DisplacementX>1</DisplacementX><DisplacementY>4</DisplacementY></Displacement></PointPlacement></LabelPlacement>
      <Halo><Radius>1.5</Radius></Halo></TextSymbolizer></Rule></FeatureTypeStyle>`))
  t.equal(style.featureTypeStyles.length, 2)
  const [like, other] = style.featureTypeStyles[0].rules
  t.equal(like.name, 'like')
  t.equal(like.title, 'Names with A')
  t.equal(like.minScale, 1000)
  t.equal(like.maxScale, 50000)
  t.same(like.symbolizers, [{ kind: 'line', stroke: { color: '#336699', width: 3, opacity: 1, dasharray: [5, 2], linecap: 'round' } }])
  t.same(like.filter, { k: 'like', e: { k: 'property', name: 'name' }, pattern: 'A%x_*', ci: false })
  t.ok(matches(like.filter!, { name: 'Abcxy*' }))
  t.notOk(matches(like.filter!, { name: 'Abcxy?' }), 'the escaped * is a literal star')
  t.equal(other.else, true)
  t.equal(other.filter, undefined)
  t.same(other.symbolizers[0], { kind: 'point', mark: 'star', size: 10, rotation: 45, opacity: 1, fill: { color: '#FF0000', opacity: 1 } })
  const label = style.featureTypeStyles[1].rules[0].symbolizers[0]
  t.same(label, {
    kind: 'text',
    label: { cat: [{ lit: 'n:' }, { prop: 'name' }] }, // text around properties is trimmed, as GeoTools does outside CDATA
    font: { family: 'Serif', size: 11, style: 'italic', weight: 'normal' },
    fill: { color: '#000000', opacity: 1 },
    anchor: [0.5, 0],
    displacement: [1, 4],
    rotation: 0,
    group: false,
    labelAllGroup: false,
    maxDisplacement: 0,
    spaceAround: 0,
    partials: false,
    conflictResolution: true,
    autoWrap: 0,
    repeat: 0,
    halo: { radius: 1.5, fill: { color: '#FFFFFF', opacity: 1 } }
  })
})

t.test('filters: comparisons as numbers or text, And/Or/Not, Between, Null; a null attribute matches no comparison', async (t) => {
  const style = await vectorStyleOf(sld(`<FeatureTypeStyle><Rule><ogc:Filter><ogc:Or>
    <ogc:And><ogc:PropertyIsGreaterThanOrEqualTo><ogc:PropertyName>pop</ogc:PropertyName><ogc:Literal>10</ogc:Literal></ogc:PropertyIsGreaterThanOrEqualTo>
      <ogc:Not><ogc:PropertyIsEqualTo><ogc:PropertyName>kind</ogc:PropertyName><ogc:Literal>x</ogc:Literal></ogc:PropertyIsEqualTo></ogc:Not></ogc:And>
    <ogc:PropertyIsBetween><ogc:PropertyName>pop</ogc:PropertyName><ogc:LowerBoundary><ogc:Literal>-5</ogc:Literal></ogc:LowerBoundary><ogc:UpperBoundary><ogc:Literal>-1</ogc:Literal></ogc:UpperBoundary></ogc:PropertyIsBetween>
    <ogc:PropertyIsNull><ogc:PropertyName>name</ogc:PropertyName></ogc:PropertyIsNull>
  </ogc:Or></ogc:Filter>${line}</Rule></FeatureTypeStyle>`))
  const f = style.featureTypeStyles[0].rules[0].filter!
  t.ok(matches(f, { pop: 10, kind: 'a', name: 'n' }), '10 >= 10 as numbers')
  t.ok(matches(f, { pop: '100', kind: 'a', name: 'n' }), 'a numeric string compares as a number (100 >= 10)')
  t.notOk(matches(f, { pop: 10, kind: 'x', name: 'n' }))
  t.ok(matches(f, { pop: -3, kind: 'x', name: 'n' }), 'between -5 and -1')
  t.ok(matches(f, { pop: null, kind: 'x', name: null }), 'name is null')
  t.notOk(matches(f, { pop: null, kind: 'a', name: 'n' }), 'a null pop matches no comparison')
})

t.test('what cannot be drawn is refused naming it', async (t) => {
  await t.rejects(vectorStyleOf(sld(`<FeatureTypeStyle><Rule><PointSymbolizer><Graphic><Mark><WellKnownName>shape://oarrow</WellKnownName></Mark></Graphic></PointSymbolizer></Rule></FeatureTypeStyle>`)), /shape:\/\/oarrow/)
  await t.rejects(vectorStyleOf(sld(`<FeatureTypeStyle><Rule><LineSymbolizer><Stroke><GraphicFill><Graphic><Mark/><Size><ogc:PropertyName>s</ogc:PropertyName></Size></Graphic></GraphicFill></Stroke></LineSymbolizer></Rule></FeatureTypeStyle>`)), /Stroke GraphicFill Graphic's size must be literal/)
  await t.rejects(vectorStyleOf(sld(`<FeatureTypeStyle><Rule><PointSymbolizer><Graphic><ExternalGraphic><OnlineResource xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="https://example.com/a.png"/><Format>image/png</Format></ExternalGraphic></Graphic></PointSymbolizer></Rule></FeatureTypeStyle>`)), /"https:\/\/example.com\/a.png" is not fetched/)
  await t.rejects(vectorStyleOf(sld(`<FeatureTypeStyle><Rule><ogc:Filter><ogc:PropertyIsGreaterThan><ogc:PropertyName>a</ogc:PropertyName></ogc:PropertyIsGreaterThan></ogc:Filter>${line}</Rule></FeatureTypeStyle>`)), /rule 1: Invalid filter: PropertyIsGreaterThan needs two operands, found 1/)
  await t.rejects(vectorStyleOf(sld(`<FeatureTypeStyle><Rule><LineSymbolizer><Stroke><CssParameter name="stroke-width">wide</CssParameter></Stroke></LineSymbolizer></Rule></FeatureTypeStyle>`)), /stroke-width/)
})

t.test('graphics: ExternalGraphic, GraphicFill of a shape:// mark, GraphicStroke, PerpendicularOffset and stroke-dashoffset', async (t) => {
  const style = await vectorStyleOf(sld(`<FeatureTypeStyle>
    <Rule><PointSymbolizer><Graphic><ExternalGraphic><OnlineResource xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="icons/a.svg"/><Format>image/svg+xml</Format></ExternalGraphic><Opacity>0.5</Opacity><Rotation>30</Rotation></Graphic></PointSymbolizer></Rule>
    <Rule><PolygonSymbolizer><Fill><GraphicFill><Graphic><Mark><WellKnownName>shape://slash</WellKnownName><Stroke><CssParameter name="stroke">#0000ff</CssParameter></Stroke></Mark><Size>8</Size></Graphic></GraphicFill></Fill></PolygonSymbolizer></Rule>
    <Rule><LineSymbolizer><Stroke><GraphicStroke><Graphic><Mark><WellKnownName>circle</WellKnownName></Mark><Size>6</Size></Graphic></GraphicStroke><CssParameter name="stroke-dasharray">4 2</CssParameter><CssParameter name="stroke-dashoffset">3</CssParameter></Stroke><PerpendicularOffset>-2.5</PerpendicularOffset></LineSymbolizer></Rule>
  </FeatureTypeStyle>`))
  const [point, polygon, line] = style.featureTypeStyles[0].rules.map((r) => r.symbolizers[0])
  t.same(point, { kind: 'point', mark: 'square', image: { href: 'icons/a.svg', ownSize: true }, size: 16, rotation: 30, opacity: 0.5, fill: { color: '#808080', opacity: 1 } }, 'an image without Size keeps its own; the square is its fallback')
  t.same(polygon, { kind: 'polygon', graphicFill: { mark: 'shape://slash', size: 8, rotation: 0, opacity: 1, stroke: { color: '#0000FF', width: 1, opacity: 1 } } }, 'a hatch: strokes only, no fill colour')
  t.same(line, {
    kind: 'line',
    stroke: { color: '#000000', width: 0, opacity: 1, dasharray: [4, 2], dashoffset: 3 },
    offset: -2.5,
    graphicStroke: { mark: 'circle', size: 6, rotation: 0, opacity: 1, fill: { color: '#808080', opacity: 1 }, stroke: { color: '#000000', width: 1, opacity: 1 } }
  }, 'a GraphicStroke without a stroke colour draws no line of its own')
})

t.test('SLD_BODY: the UserLayer or NamedLayer of the layer asked for', async (t) => {
  const doc = sld('<FeatureTypeStyle><Rule>' + line + '</Rule></FeatureTypeStyle>',
    `<UserLayer><Name>ws:b</Name><UserStyle><FeatureTypeStyle><Rule><PolygonSymbolizer><Fill><CssParameter name="fill">#00ff00</CssParameter></Fill></PolygonSymbolizer></Rule></FeatureTypeStyle></UserStyle></UserLayer>`)
  t.equal((await vectorStyleOf(doc, 'a')).featureTypeStyles[0].rules[0].symbolizers[0].kind, 'line')
  t.same((await vectorStyleOf(doc, 'ws:b')).featureTypeStyles[0].rules[0].symbolizers[0], { kind: 'polygon', fill: { color: '#00FF00', opacity: 1 } })
})
