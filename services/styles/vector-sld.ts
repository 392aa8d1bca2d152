// The vector symbolizers of an SLD compiled into the VectorStyle the render workers draw
// (render/vector/vector-style.ts). geostyler-sld-parser reads the symbolizers (marks, strokes,
// fills, fonts, halos, displacements); the rule structure is read here from our own parse
// (sld.ts), because geostyler 9 loses what GeoServer's SLDs depend on: ElseFilter (the rule
// becomes one without a filter, drawn for every feature), PropertyIsLike's wildCard/singleChar/
// escape (its `*=` means "contains"), FeatureTypeStyle boundaries, the rule's Name next to its
// Title, and an AnchorPoint at (0.5, 0.5) is not told from none. Rules are matched to
// geostyler's by their order in the document (geostyler reads every NamedLayer > UserStyle >
// FeatureTypeStyle > Rule in order; UserLayer is renamed NamedLayer for it). The rules' ogc:Filters
// are read by the WFS filter reader (filters/ogc-xml.ts in its SLD form: functions, spatial
// operators) and taken out of the text geostyler reads, which refuses BBOX ("No Filter detected").
import { SldStyleParser } from 'geostyler-sld-parser'
import { parseXmlElements, type XmlElement, type XmlValue } from '../files/xml.js'
import { children, text } from '../files/xml-nodes.js'
import { InvalidStyle, InvalidXmlFilter, isMapwardenError, UnsupportedFilterOperator } from '../errors.js'
import { parseOgcFilter } from '../filters/ogc-xml.js'
import type { Filter } from '../filters/tree.js'
import { SHAPE_MARKS, type Dynamic, type DynamicField, type Graphic, type MarkName, type Symbolizer, type VectorRule, type VectorStyle } from '../render/vector/vector-style.js'
import { parseSld } from './sld.js'
import { at, dynamicOf, element, parameter, vendorOptions } from './sld-expression.js'
import { textSymbolizer } from './sld-text.js'
import { colour, number, stroke } from './sld-values.js'
import { checkGraphicHref } from './style-graphics.js'

type GsSymbolizer = Record<string, unknown> & { kind: string }
interface GsRule { symbolizers?: GsSymbolizer[] }

const MARKS: MarkName[] = ['circle', 'square', 'triangle', 'star', 'cross', 'x', ...SHAPE_MARKS]

/** The SLD element geostyler's symbolizer kinds come from. */
const SOURCE: Record<string, string> = { Mark: 'PointSymbolizer', Icon: 'PointSymbolizer', Line: 'LineSymbolizer', Fill: 'PolygonSymbolizer', Text: 'TextSymbolizer', Raster: 'RasterSymbolizer' }

const strokeParams = (el: XmlElement | undefined): Array<[DynamicField, XmlElement | undefined]> =>
  [['stroke', parameter(el, 'stroke')], ['stroke-width', parameter(el, 'stroke-width')], ['stroke-opacity', parameter(el, 'stroke-opacity')]]

/**
 * A Graphic from geostyler's Mark or Icon (ExternalGraphic) symbolizer; `what` names it in errors.
 * `dynamic`: the parameters a point symbolizer gives by expressions (their literal defaults kept
 * here); the Graphics of GraphicFill and GraphicStroke take literals only.
 */
function graphicOf (s: GsSymbolizer, what: string, dynamic?: Dynamic): Graphic {
  const lit = (f: DynamicField, v: unknown) => dynamic?.[f] ? undefined : v
  const common: Pick<Graphic, 'rotation' | 'opacity' | 'displacement'> = { rotation: number(lit('rotation', s.rotate), `${what} Rotation`, 0), opacity: number(lit('opacity', s.opacity), `${what} Opacity`, 1, 0, 1) }
  // geostyler's offset is the Displacement in screen direction (y down), as on a TextSymbolizer.
  if (Array.isArray(s.offset)) {
    const [dx, dy] = [number(s.offset[0], `${what} DisplacementX`, 0), number(s.offset[1], `${what} DisplacementY`, 0)]
    if (dx !== 0 || dy !== 0) common.displacement = [dx, dy]
  }
  if (s.kind === 'Icon') {
    checkGraphicHref(s.image)
    const href = String(s.image).trim()
    const ownSize = (s.size === undefined || s.size === null) && dynamic?.size === undefined
    // The mark drawn when the image cannot be read: GeoServer's default square.
    return { mark: 'square', image: ownSize ? { href, ownSize } : { href }, size: number(lit('size', s.size), `${what} Size`, 16, 0, 1000), ...common, fill: { color: '#808080', opacity: 1 } }
  }
  if (s.kind !== 'Mark') throw InvalidStyle(` a ${what} must be a Mark or an ExternalGraphic`)
  const name = typeof s.wellKnownName === 'string' ? s.wellKnownName.toLowerCase() : 'square'
  if (!MARKS.includes(name as MarkName)) throw InvalidStyle(` the mark ${JSON.stringify(s.wellKnownName)} is not drawn; well-known names: ${MARKS.join(', ')}`)
  const fillColour = colour(lit('fill', s.color), `${what} Mark fill`)
  const hasStroke = s.strokeColor !== undefined || s.strokeWidth !== undefined || dynamic?.stroke !== undefined || dynamic?.['stroke-width'] !== undefined
  const filled = fillColour !== undefined || dynamic?.fill !== undefined
  const shape = name.startsWith('shape://')
  return {
    mark: name as MarkName,
    // GeoServer's default mark size is 16 pixels (SLD's 6 is the spec's, GeoTools draws 16).
    size: number(lit('size', s.radius), `${what} Mark size`, 8, 0, 1000) * 2,
    ...common,
    // SLD's defaults for a mark: grey fill, black outline of one pixel; shape:// marks are lines, stroked only.
    ...(shape && !filled ? {} : { fill: { color: fillColour ?? '#808080', opacity: number(lit('fill-opacity', s.fillOpacity), `${what} Mark fill-opacity`, 1, 0, 1) } }),
    ...(hasStroke || shape || !filled ? { stroke: stroke(lit('stroke', s.strokeColor), lit('stroke-width', s.strokeWidth), lit('stroke-opacity', s.strokeOpacity), undefined, undefined, undefined, `${what} Mark`) } : {})
  }
}

/** The parameters of a Graphic that may be expressions. */
function graphicParams (graphic: XmlElement | undefined): Array<[DynamicField, XmlElement | undefined]> {
  const mark = at(graphic, 'Mark')
  return [
    ['size', at(graphic, 'Size')], ['rotation', at(graphic, 'Rotation')], ['opacity', at(graphic, 'Opacity')],
    ['fill', parameter(at(mark, 'Fill'), 'fill')], ['fill-opacity', parameter(at(mark, 'Fill'), 'fill-opacity')],
    ...strokeParams(at(mark, 'Stroke'))
  ]
}

/** A GraphicFill's or GraphicStroke's Graphic: literal values only, an expression refused naming it. */
function literalGraphic (s: GsSymbolizer, graphic: XmlElement | undefined, what: string): Graphic {
  const dynamic = dynamicOf(graphicParams(graphic), what)
  if (dynamic) throw InvalidStyle(` the ${what} Graphic's ${Object.keys(dynamic).join(', ')} must be literal values (expressions are drawn on a PointSymbolizer's Graphic only)`)
  return graphicOf(s, what)
}

/** GeoServer's graphic-margin VendorOption of a PolygonSymbolizer: CSS-like top, right, bottom, left. */
function graphicMargin (el: XmlElement | undefined): [number, number, number, number] | undefined {
  const t = vendorOptions(el).get('graphic-margin')
  if (t === undefined || t === '') return undefined
  const v = t.split(/[\s,]+/).map((n) => number(n, 'VendorOption graphic-margin', 0, 0, 1000))
  if (v.length > 4) throw InvalidStyle(` VendorOption graphic-margin takes 1 to 4 numbers, found ${JSON.stringify(t)}`)
  const [top, right = top, bottom = top, left = right] = v
  return [top, right, bottom, left]
}

function symbolizer (s: GsSymbolizer, el: XmlElement | undefined): Symbolizer | undefined {
  switch (s.kind) {
    case 'Mark': case 'Icon': {
      const dynamic = dynamicOf(graphicParams(at(el, 'Graphic')), 'PointSymbolizer')
      const out: Symbolizer = { kind: 'point', ...graphicOf(s, 'PointSymbolizer', dynamic) }
      if (dynamic) out.dynamic = dynamic
      return out
    }
    case 'Line': {
      const dynamic = dynamicOf(strokeParams(at(el, 'Stroke')), 'LineSymbolizer')
      const lit = (f: DynamicField, v: unknown) => dynamic?.[f] ? undefined : v
      const out: Symbolizer = { kind: 'line', stroke: stroke(lit('stroke', s.color), lit('stroke-width', s.width), lit('stroke-opacity', s.opacity), s.dasharray, s.cap, s.join, 'LineSymbolizer') }
      if (s.dashOffset !== undefined) out.stroke.dashoffset = number(s.dashOffset, 'LineSymbolizer stroke-dashoffset', 0)
      if (s.perpendicularOffset !== undefined) out.offset = number(s.perpendicularOffset, 'LineSymbolizer PerpendicularOffset', 0, -1000, 1000)
      if (s.graphicStroke !== undefined) {
        out.graphicStroke = literalGraphic(s.graphicStroke as GsSymbolizer, at(el, 'Stroke', 'GraphicStroke', 'Graphic'), 'GraphicStroke')
        // A Stroke of a GraphicStroke draws no line of its own unless it gives a colour.
        if (s.color === undefined && dynamic?.stroke === undefined) out.stroke.width = 0
      }
      if (s.graphicFill !== undefined) out.graphicFill = literalGraphic(s.graphicFill as GsSymbolizer, at(el, 'Stroke', 'GraphicFill', 'Graphic'), 'Stroke GraphicFill')
      if (dynamic) out.dynamic = dynamic
      return out
    }
    case 'Fill': {
      const dynamic = dynamicOf([['fill', parameter(at(el, 'Fill'), 'fill')], ['fill-opacity', parameter(at(el, 'Fill'), 'fill-opacity')], ...strokeParams(at(el, 'Stroke'))], 'PolygonSymbolizer')
      const lit = (f: DynamicField, v: unknown) => dynamic?.[f] ? undefined : v
      const out: Symbolizer = { kind: 'polygon' }
      const fill = colour(lit('fill', s.color), 'PolygonSymbolizer fill') ?? (dynamic?.fill ? '#808080' : undefined)
      if (fill !== undefined) out.fill = { color: fill, opacity: number(lit('fill-opacity', s.fillOpacity ?? s.opacity), 'PolygonSymbolizer fill-opacity', 1, 0, 1) }
      if (s.outlineColor !== undefined || s.outlineWidth !== undefined || dynamic?.stroke !== undefined || dynamic?.['stroke-width'] !== undefined) {
        out.stroke = stroke(lit('stroke', s.outlineColor), lit('stroke-width', s.outlineWidth), lit('stroke-opacity', s.outlineOpacity), s.outlineDasharray, s.outlineCap, s.outlineJoin, 'PolygonSymbolizer')
      }
      const margin = graphicMargin(el)
      if (s.graphicFill !== undefined) out.graphicFill = literalGraphic(s.graphicFill as GsSymbolizer, at(el, 'Fill', 'GraphicFill', 'Graphic'), 'GraphicFill')
      if (s.graphicFill !== undefined && margin !== undefined) out.graphicMargin = margin
      if (dynamic) out.dynamic = dynamic
      return out
    }
    case 'Text':
      return textSymbolizer(s, el)
    default:
      return undefined // RasterSymbolizer: drawn by the raster renderer
  }
}

/** An element without its text children (the document is read with mixed content), its text as GeoTools reads a Literal's. */
function elementsOnly (el: XmlElement): XmlElement {
  const kids = el.children.filter((c) => c.local !== '#text' && c.local !== '#cdata')
  const cdata = el.children.some((c) => c.local === '#cdata')
  return { ...el, text: cdata ? el.children.map((c) => c.local === '#cdata' ? c.text : c.local === '#text' ? c.text.trim() : '').join('') : el.text.trim(), children: kids.map(elementsOnly) }
}

/** A Rule's ogc:Filter as the filter tree; what cannot be read is named in MW_STYLES_INVALID. */
function ruleFilter (filter: XmlElement, rule: number): Filter {
  const where = `the Filter of rule ${rule}`
  try {
    return parseOgcFilter(elementsOnly(filter), { expression: (el) => element(el, where) })
  } catch (err) {
    if (isMapwardenError(err) && (err.code === InvalidXmlFilter.code || err.code === UnsupportedFilterOperator.code)) throw InvalidStyle(` ${where}: ${err.message}`)
    throw err
  }
}

function scale (rule: XmlValue, name: string): number | undefined {
  const t = text(children(rule, name)[0])?.trim()
  if (t === undefined || t === '') return undefined
  return number(t, name, 0, 0)
}

const nameOf = (node: XmlValue) => text(children(node, 'Name')[0])?.trim() || undefined
const isDefault = (us: XmlValue) => /^(1|true)$/i.test(text(children(us, 'IsDefault')[0])?.trim() ?? '')

/**
 * The VectorStyle of an SLD document: the UserStyle of the layer named `layer` (SLD_BODY's
 * NamedLayer or UserLayer; the first layer when not given or not found), its IsDefault UserStyle
 * or else its first. Throws MW_STYLES_INVALID naming what cannot be drawn; with `every`, in any
 * layer and UserStyle of the document (a style saved is checked whole).
 */
export async function vectorStyleOf (sld: string, layer?: string, { every = false } = {}): Promise<VectorStyle> {
  // geostyler reads NamedLayer only: a UserLayer (SLD_BODY's inline layers) is read as one.
  const renamed = sld.replace(/(<\/?)((?:[\w.-]+:)?)UserLayer\b/g, '$1$2NamedLayer')
  const parsed = await parseSld(renamed)
  // The document once more in order, text kept: filters, expressions and Labels are read from it.
  const ordered = await parseXmlElements(renamed, { mixed: true })
  const below = (el: XmlElement, name: string) => el.children.filter((c) => c.local === name)
  const ruleEls = below(ordered, 'NamedLayer').flatMap((l) => below(l, 'UserStyle')).flatMap((us) => below(us, 'FeatureTypeStyle')).flatMap((fts) => below(fts, 'Rule'))
  // Our reading of the filters first (every rule's), so a filter that cannot be read is named as ours names it.
  const filters = ruleEls.map((r, i) => { const f = below(r, 'Filter')[0]; return f === undefined ? undefined : ruleFilter(f, i + 1) })
  const withoutFilters = renamed.replace(/<((?:[\w.-]+:)?)Filter\b[^>]*?(?:\/>|>[\s\S]*?<\/\1Filter\s*>)/g, '')
  const read = await new SldStyleParser().readStyle(withoutFilters)
  if (!read.output || (read.errors && read.errors.length > 0)) {
    const why = (read.errors ?? []).map((e: unknown) => (e as Error)?.message).filter(Boolean).join('; ')
    throw InvalidStyle(` the SLD cannot be read${why ? `: ${why}` : ''}`)
  }
  const gsRules = read.output.rules as unknown as GsRule[]
  const layers = children(parsed.root, 'NamedLayer')
  const unqualified = layer?.includes(':') ? layer.slice(layer.indexOf(':') + 1) : layer
  const wanted = layers.find((l) => nameOf(l) === layer) ?? layers.find((l) => nameOf(l) === unqualified) ?? layers[0]
  let index = 0
  let out: VectorStyle | undefined
  for (const l of layers) {
    const userStyles = children(l, 'UserStyle')
    const chosen = userStyles.find(isDefault) ?? userStyles[0]
    for (const us of userStyles) {
      const ftss: VectorStyle['featureTypeStyles'] = []
      for (const fts of children(us, 'FeatureTypeStyle')) {
        const rules: VectorRule[] = []
        for (const rule of children(fts, 'Rule')) {
          const ruleEl = ruleEls[index]
          const filter = filters[index]
          const gs = gsRules[index++]
          if (!every && (l !== wanted || us !== chosen)) continue
          const seen = new Map<string, number>()
          const symbolizers = (gs?.symbolizers ?? []).map((s) => {
            const name = SOURCE[s.kind] ?? s.kind
            const n = seen.get(name) ?? 0
            seen.set(name, n + 1)
            return symbolizer(s, ruleEl === undefined ? undefined : below(ruleEl, name)[n])
          }).filter((s): s is Symbolizer => s !== undefined)
          const r: VectorRule = { symbolizers }
          const name = nameOf(rule); if (name) r.name = name
          const title = text(children(rule, 'Title')[0])?.trim(); if (title) r.title = title
          if (filter !== undefined) r.filter = filter
          if (children(rule, 'ElseFilter').length > 0) r.else = true
          const min = scale(rule, 'MinScaleDenominator'); if (min !== undefined) r.minScale = min
          const max = scale(rule, 'MaxScaleDenominator'); if (max !== undefined) r.maxScale = max
          rules.push(r)
        }
        ftss.push({ rules })
      }
      if (l === wanted && us === chosen) out = { featureTypeStyles: ftss }
    }
  }
  if (index !== gsRules.length) throw InvalidStyle(` the SLD's rules could not be matched (${index} read, ${gsRules.length} by geostyler-sld-parser)`)
  return out ?? { featureTypeStyles: [] }
}
