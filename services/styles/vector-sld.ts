// The vector symbolizers of an SLD compiled into the VectorStyle the render workers draw
// (render/vector/vector-style.ts). geostyler-sld-parser reads the symbolizers (marks, strokes,
// fills, fonts, halos, displacements); the rule structure is read here from our own parse
// (sld.ts), because geostyler 9 loses what GeoServer's SLDs depend on: ElseFilter (the rule
// becomes one without a filter, drawn for every feature), PropertyIsLike's wildCard/singleChar/
// escape (its `*=` means "contains"), FeatureTypeStyle boundaries, the rule's Name next to its
// Title, and an AnchorPoint at (0.5, 0.5) is not told from none. Rules are matched to
// geostyler's by their order in the document (geostyler reads every NamedLayer > UserStyle >
// FeatureTypeStyle > Rule in order; UserLayer is renamed NamedLayer for it).
import { SldStyleParser } from 'geostyler-sld-parser'
import type { XmlValue } from '../files/xml.js'
import { children, text } from '../files/xml-nodes.js'
import { InvalidStyle } from '../errors.js'
import { parseOgcFilter } from '../filters/ogc-filter.js'
import { SHAPE_MARKS, type Graphic, type MarkName, type Stroke, type Symbolizer, type VectorRule, type VectorStyle } from '../render/vector/vector-style.js'
import { checkGraphicHref } from './style-graphics.js'
import { parseSld } from './sld.js'

type GsSymbolizer = Record<string, unknown> & { kind: string }
interface GsRule { symbolizers?: GsSymbolizer[] }

const MARKS: MarkName[] = ['circle', 'square', 'triangle', 'star', 'cross', 'x', ...SHAPE_MARKS]

function colour (v: unknown, what: string, dflt?: string): string | undefined {
  if (v === undefined || v === null) return dflt
  if (typeof v !== 'string') throw InvalidStyle(` ${what} must be a literal colour #RRGGBB (expressions are not drawn yet)`)
  const m = /^\s*#?([0-9a-f]{6}|[0-9a-f]{3})\s*$/i.exec(v)
  if (!m) throw InvalidStyle(` ${what} must be a colour #RRGGBB, found ${JSON.stringify(v)}`)
  const h = m[1].length === 3 ? m[1].split('').map((c) => c + c).join('') : m[1]
  return `#${h.toUpperCase()}`
}

function number (v: unknown, what: string, dflt: number, min = -Infinity, max = Infinity): number {
  if (v === undefined || v === null) return dflt
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN
  if (!Number.isFinite(n) || n < min || n > max) throw InvalidStyle(` ${what} must be a literal number${Number.isFinite(min) ? ` from ${min}` : ''}${Number.isFinite(max) ? ` to ${max}` : ''}, found ${JSON.stringify(v)}`)
  return n
}

function dashes (v: unknown, what: string): number[] | undefined {
  if (v === undefined || v === null) return undefined
  if (!Array.isArray(v) || v.some((d) => typeof d !== 'number' || !Number.isFinite(d) || d < 0)) throw InvalidStyle(` ${what} must be non-negative numbers, found ${JSON.stringify(v)}`)
  return v.length === 0 || v.every((d) => d === 0) ? undefined : v as number[]
}

function oneOf<T extends string> (v: unknown, allowed: readonly T[], what: string): T | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string' || !allowed.includes(v.toLowerCase() as T)) throw InvalidStyle(` ${what} must be one of ${allowed.join(', ')}, found ${JSON.stringify(v)}`)
  return v.toLowerCase() as T
}

function stroke (color: unknown, width: unknown, opacity: unknown, dash: unknown, cap: unknown, join: unknown, what: string): Stroke {
  const s: Stroke = {
    color: colour(color, `${what} stroke`, '#000000')!,
    width: number(width, `${what} stroke-width`, 1, 0, 1000),
    opacity: number(opacity, `${what} stroke-opacity`, 1, 0, 1)
  }
  const d = dashes(dash, `${what} stroke-dasharray`)
  if (d) s.dasharray = d
  const c = oneOf(cap, ['butt', 'round', 'square'] as const, `${what} stroke-linecap`)
  if (c) s.linecap = c
  const j = oneOf(join, ['miter', 'round', 'bevel', 'mitre'] as const, `${what} stroke-linejoin`)
  if (j) s.linejoin = j === 'mitre' ? 'miter' : j
  return s
}

/** Text of the SLD's AnchorPoint of a TextSymbolizer node, default GeoServer's (0, 0.5). */
function anchorOf (ts: XmlValue | undefined): [number, number] {
  const pp = children(children(ts, 'LabelPlacement')[0], 'PointPlacement')[0]
  const ap = children(pp, 'AnchorPoint')[0]
  const read = (n: string, d: number) => { const t = text(children(ap, n)[0])?.trim(); return t === undefined || t === '' ? d : number(t, `AnchorPoint ${n}`, d) }
  return ap === undefined ? [0, 0.5] : [read('AnchorPointX', 0), read('AnchorPointY', 0.5)]
}

/** A Graphic from geostyler's Mark or Icon (ExternalGraphic) symbolizer; `what` names it in errors. */
function graphicOf (s: GsSymbolizer, what: string): Graphic {
  const common: Pick<Graphic, 'rotation' | 'opacity' | 'displacement'> = { rotation: number(s.rotate, `${what} Rotation`, 0), opacity: number(s.opacity, `${what} Opacity`, 1, 0, 1) }
  // geostyler's offset is the Displacement in screen direction (y down), as on a TextSymbolizer.
  if (Array.isArray(s.offset)) {
    const [dx, dy] = [number(s.offset[0], `${what} DisplacementX`, 0), number(s.offset[1], `${what} DisplacementY`, 0)]
    if (dx !== 0 || dy !== 0) common.displacement = [dx, dy]
  }
  if (s.kind === 'Icon') {
    checkGraphicHref(s.image)
    const href = String(s.image).trim()
    const ownSize = s.size === undefined || s.size === null
    // The mark drawn when the image cannot be read: GeoServer's default square.
    return { mark: 'square', image: ownSize ? { href, ownSize } : { href }, size: number(s.size, `${what} Size`, 16, 0, 1000), ...common, fill: { color: '#808080', opacity: 1 } }
  }
  if (s.kind !== 'Mark') throw InvalidStyle(` a ${what} must be a Mark or an ExternalGraphic`)
  const name = typeof s.wellKnownName === 'string' ? s.wellKnownName.toLowerCase() : 'square'
  if (!MARKS.includes(name as MarkName)) throw InvalidStyle(` the mark ${JSON.stringify(s.wellKnownName)} is not drawn; well-known names: ${MARKS.join(', ')}`)
  const fillColour = colour(s.color, `${what} Mark fill`)
  const hasStroke = s.strokeColor !== undefined || s.strokeWidth !== undefined
  const shape = name.startsWith('shape://')
  return {
    mark: name as MarkName,
    // GeoServer's default mark size is 16 pixels (SLD's 6 is the spec's, GeoTools draws 16).
    size: number(s.radius, `${what} Mark size`, 8, 0, 1000) * 2,
    ...common,
    // SLD's defaults for a mark: grey fill, black outline of one pixel; shape:// marks are lines, stroked only.
    ...(shape && fillColour === undefined ? {} : { fill: { color: fillColour ?? '#808080', opacity: number(s.fillOpacity, `${what} Mark fill-opacity`, 1, 0, 1) } }),
    ...(hasStroke || shape || fillColour === undefined ? { stroke: stroke(s.strokeColor, s.strokeWidth, s.strokeOpacity, undefined, undefined, undefined, `${what} Mark`) } : {})
  }
}

/** GeoServer's graphic-margin VendorOption of a PolygonSymbolizer node: CSS-like top, right, bottom, left. */
function graphicMargin (node: XmlValue | undefined): [number, number, number, number] | undefined {
  const option = children(node, 'VendorOption').find((o) => typeof o === 'object' && !Array.isArray(o) && (o.$ as unknown as Record<string, string> | undefined)?.name === 'graphic-margin')
  const t = text(option)?.trim()
  if (option === undefined || t === undefined || t === '') return undefined
  const v = t.split(/[\s,]+/).map((n) => number(n, 'VendorOption graphic-margin', 0, 0, 1000))
  if (v.length > 4) throw InvalidStyle(` VendorOption graphic-margin takes 1 to 4 numbers, found ${JSON.stringify(t)}`)
  const [top, right = top, bottom = top, left = right] = v
  return [top, right, bottom, left]
}

function symbolizer (s: GsSymbolizer, textNode: () => XmlValue | undefined, polygonNode: () => XmlValue | undefined): Symbolizer | undefined {
  switch (s.kind) {
    case 'Mark': case 'Icon':
      return { kind: 'point', ...graphicOf(s, 'PointSymbolizer') }
    case 'Line': {
      if (s.graphicFill !== undefined) throw InvalidStyle(' a LineSymbolizer\'s Stroke GraphicFill is not drawn yet (GraphicStroke is)')
      const out: Symbolizer = { kind: 'line', stroke: stroke(s.color, s.width, s.opacity, s.dasharray, s.cap, s.join, 'LineSymbolizer') }
      if (s.dashOffset !== undefined) out.stroke.dashoffset = number(s.dashOffset, 'LineSymbolizer stroke-dashoffset', 0)
      if (s.perpendicularOffset !== undefined) out.offset = number(s.perpendicularOffset, 'LineSymbolizer PerpendicularOffset', 0, -1000, 1000)
      if (s.graphicStroke !== undefined) {
        out.graphicStroke = graphicOf(s.graphicStroke as GsSymbolizer, 'GraphicStroke')
        // A Stroke of a GraphicStroke draws no line of its own unless it gives a colour.
        if (s.color === undefined) out.stroke.width = 0
      }
      return out
    }
    case 'Fill': {
      const out: Symbolizer = { kind: 'polygon' }
      const fill = colour(s.color, 'PolygonSymbolizer fill')
      if (fill !== undefined) out.fill = { color: fill, opacity: number(s.fillOpacity ?? s.opacity, 'PolygonSymbolizer fill-opacity', 1, 0, 1) }
      if (s.outlineColor !== undefined || s.outlineWidth !== undefined) {
        out.stroke = stroke(s.outlineColor, s.outlineWidth, s.outlineOpacity, s.outlineDasharray, s.outlineCap, s.outlineJoin, 'PolygonSymbolizer')
      }
      const margin = graphicMargin(polygonNode())
      if (s.graphicFill !== undefined) out.graphicFill = graphicOf(s.graphicFill as GsSymbolizer, 'GraphicFill')
      if (s.graphicFill !== undefined && margin !== undefined) out.graphicMargin = margin
      return out
    }
    case 'Text': {
      const label = s.label
      if (typeof label !== 'string') throw InvalidStyle(' a TextSymbolizer Label must be property names and text (functions are not drawn yet)')
      const node = textNode()
      const fontFamily = Array.isArray(s.font) && typeof s.font[0] === 'string' ? s.font[0] : 'DejaVu Sans'
      const offset = Array.isArray(s.offset) ? s.offset as unknown[] : [0, 0]
      const out: Symbolizer = {
        kind: 'text',
        label,
        font: {
          family: fontFamily,
          size: number(s.size, 'Font font-size', 10, 1, 500),
          style: oneOf(s.fontStyle, ['normal', 'italic', 'oblique'] as const, 'Font font-style') ?? 'normal',
          weight: oneOf(s.fontWeight, ['normal', 'bold'] as const, 'Font font-weight') ?? 'normal'
        },
        fill: { color: colour(s.color, 'TextSymbolizer fill', '#000000')!, opacity: number(s.opacity, 'TextSymbolizer fill-opacity', 1, 0, 1) },
        anchor: anchorOf(node),
        // geostyler's offset is in screen direction (y down); SLD's Displacement has y up.
        displacement: [number(offset[0], 'DisplacementX', 0), -number(offset[1], 'DisplacementY', 0)],
        rotation: number(s.rotate, 'PointPlacement Rotation', 0)
      }
      if (s.haloWidth !== undefined || s.haloColor !== undefined) {
        out.halo = { radius: number(s.haloWidth, 'Halo Radius', 1, 0, 100), fill: { color: colour(s.haloColor, 'Halo fill', '#FFFFFF')!, opacity: number(s.haloOpacity, 'Halo fill-opacity', 1, 0, 1) } }
      }
      return out
    }
    default:
      return undefined // RasterSymbolizer: drawn by the raster renderer
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
 * or else its first. Throws MW_STYLES_INVALID naming what cannot be drawn.
 */
export async function vectorStyleOf (sld: string, layer?: string): Promise<VectorStyle> {
  // geostyler reads NamedLayer only: a UserLayer (SLD_BODY's inline layers) is read as one.
  const renamed = sld.replace(/(<\/?)((?:[\w.-]+:)?)UserLayer\b/g, '$1$2NamedLayer')
  const parsed = await parseSld(renamed)
  // Our reading of the filters first, so a filter that cannot be read is named as ours names it.
  for (const l of children(parsed.root, 'NamedLayer')) {
    for (const us of children(l, 'UserStyle')) for (const fts of children(us, 'FeatureTypeStyle')) for (const rule of children(fts, 'Rule')) for (const f of children(rule, 'Filter')) parseOgcFilter(f)
  }
  const read = await new SldStyleParser().readStyle(renamed)
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
          const gs = gsRules[index++]
          if (l !== wanted || us !== chosen) continue
          const textNodes = children(rule, 'TextSymbolizer')
          const polygonNodes = children(rule, 'PolygonSymbolizer')
          let pn = 0
          let t = 0
          const symbolizers = (gs?.symbolizers ?? []).map((s) => symbolizer(s, () => textNodes[t++], () => polygonNodes[pn++])).filter((s): s is Symbolizer => s !== undefined)
          const r: VectorRule = { symbolizers }
          const name = nameOf(rule); if (name) r.name = name
          const title = text(children(rule, 'Title')[0])?.trim(); if (title) r.title = title
          const filter = children(rule, 'Filter')[0]
          if (filter !== undefined) r.filter = parseOgcFilter(filter)
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
