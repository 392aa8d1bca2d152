// A TextSymbolizer of an SLD as the render workers draw it (render/vector/vector-style.ts): the
// Label and Priority as expressions read from the document (geostyler-sld-parser drops functions
// and the text between properties), the font, fill and halo geostyler read, PointPlacement's
// anchor, displacement and rotation, LinePlacement and GeoServer's vendor options for labels.
import type { XmlElement } from '../files/xml.js'
import { InvalidStyle } from '../errors.js'
import type { TextSymbolizer } from '../render/vector/vector-style.js'
import { at, contentExpr, dynamicOf, labelExpr, parameter, vendorOptions } from './sld-expression.js'
import { colour, flag, number, oneOf } from './sld-values.js'

/** The vendor options applied to labels; any other is refused, never ignored. */
const OPTIONS = ['followLine', 'maxAngleDelta', 'group', 'labelAllGroup', 'maxDisplacement', 'spaceAround', 'partials',
  'conflictResolution', 'autoWrap', 'repeat', 'goodnessOfFit', 'underlineText', 'strikethroughText', 'forceLeftToRight']

/** A parameter that must be a literal: its text, undefined when absent or blank. */
function literal (el: XmlElement | undefined, what: string): string | undefined {
  if (el === undefined) return undefined
  if (contentExpr(el, what) !== undefined) throw InvalidStyle(` ${what} must be a literal, expressions are not evaluated there`)
  return el.children.map((c) => c.text).join('').trim() || undefined
}

export function textSymbolizer (s: Record<string, unknown>, el: XmlElement | undefined): TextSymbolizer {
  const where = 'TextSymbolizer'
  const fontEl = at(el, 'Font')
  const point = at(el, 'LabelPlacement', 'PointPlacement')
  const linePlacement = at(el, 'LabelPlacement', 'LinePlacement')
  const dynamic = dynamicOf([
    ['fill', parameter(at(el, 'Fill'), 'fill')],
    ['fill-opacity', parameter(at(el, 'Fill'), 'fill-opacity')],
    ['font-size', parameter(fontEl, 'font-size')],
    ['rotation', at(point, 'Rotation')],
    ['halo-radius', at(el, 'Halo', 'Radius')]
  ], where)
  const lit = (field: keyof NonNullable<typeof dynamic>, v: unknown) => dynamic?.[field] ? undefined : v
  // Values drawn as literals only: an expression there is refused by name, never dropped.
  literal(parameter(fontEl, 'font-family'), 'Font font-family')
  literal(parameter(fontEl, 'font-style'), 'Font font-style')
  literal(parameter(fontEl, 'font-weight'), 'Font font-weight')
  literal(parameter(at(el, 'Halo', 'Fill'), 'fill'), 'Halo fill')
  literal(parameter(at(el, 'Halo', 'Fill'), 'fill-opacity'), 'Halo fill-opacity')
  const options = vendorOptions(el)
  for (const name of options.keys()) if (!OPTIONS.includes(name)) throw InvalidStyle(` the TextSymbolizer vendor option ${JSON.stringify(name)} is not applied by mapwarden; applied: ${OPTIONS.join(', ')}`)
  const anchorEl = at(point, 'AnchorPoint')
  const anchorOf = (n: string, d: number) => number(literal(at(anchorEl, n), `AnchorPoint ${n}`), `AnchorPoint ${n}`, d)
  const dispEl = at(point, 'Displacement')
  const priorityEl = at(el, 'Priority')
  const priority = contentExpr(priorityEl, `${where} Priority`) ?? (priorityEl === undefined ? undefined : { lit: String(number(literal(priorityEl, 'Priority'), 'Priority', 1000)) })
  const family = Array.isArray(s.font) && typeof s.font[0] === 'string' ? s.font[0] : 'DejaVu Sans'
  const out: TextSymbolizer = {
    kind: 'text',
    label: labelExpr(at(el, 'Label'), `${where} Label`),
    font: {
      family,
      size: number(lit('font-size', s.size), 'Font font-size', 10, 1, 500),
      style: oneOf(s.fontStyle, ['normal', 'italic', 'oblique'] as const, 'Font font-style') ?? 'normal',
      weight: oneOf(s.fontWeight, ['normal', 'bold'] as const, 'Font font-weight') ?? 'normal'
    },
    fill: { color: colour(lit('fill', s.color), 'TextSymbolizer fill', '#000000')!, opacity: number(lit('fill-opacity', s.opacity), 'TextSymbolizer fill-opacity', 1, 0, 1) },
    // GeoServer's default anchor (0, 0.5); SLD's Displacement has y up.
    anchor: anchorEl === undefined ? [0, 0.5] : [anchorOf('AnchorPointX', 0), anchorOf('AnchorPointY', 0.5)],
    displacement: [number(literal(at(dispEl, 'DisplacementX'), 'DisplacementX'), 'DisplacementX', 0), number(literal(at(dispEl, 'DisplacementY'), 'DisplacementY'), 'DisplacementY', 0)],
    rotation: number(dynamic?.rotation ? undefined : literal(at(point, 'Rotation'), 'PointPlacement Rotation'), 'PointPlacement Rotation', 0),
    group: flag(options.get('group'), 'group'),
    labelAllGroup: flag(options.get('labelAllGroup'), 'labelAllGroup'),
    maxDisplacement: number(options.get('maxDisplacement'), 'vendor option maxDisplacement', 0, 0, 10000),
    spaceAround: number(options.get('spaceAround'), 'vendor option spaceAround', 0, -10000, 10000),
    partials: flag(options.get('partials'), 'partials'),
    conflictResolution: options.has('conflictResolution') ? flag(options.get('conflictResolution'), 'conflictResolution') : true,
    autoWrap: number(options.get('autoWrap'), 'vendor option autoWrap', 0, 0, 10000),
    repeat: number(options.get('repeat'), 'vendor option repeat', 0, 0, 100000)
  }
  if (options.has('goodnessOfFit')) out.goodnessOfFit = number(options.get('goodnessOfFit'), 'vendor option goodnessOfFit', 0.5, 0, 1)
  const decoration = [flag(options.get('underlineText'), 'underlineText') && 'underline', flag(options.get('strikethroughText'), 'strikethroughText') && 'line-through'].filter(Boolean).join(' ')
  if (decoration) out.decoration = decoration
  // Labels are always set left to right (upright along lines): only the default is applied.
  if (options.has('forceLeftToRight') && !flag(options.get('forceLeftToRight'), 'forceLeftToRight')) throw InvalidStyle(' the vendor option forceLeftToRight false is not applied by mapwarden: labels are always set left to right')
  if (out.repeat > 0 && linePlacement === undefined) throw InvalidStyle(' the vendor option repeat applies to a LinePlacement; this TextSymbolizer has none')
  if (priority) out.priority = priority
  if (linePlacement !== undefined) {
    out.line = {
      offset: number(literal(at(linePlacement, 'PerpendicularOffset'), 'PerpendicularOffset'), 'LinePlacement PerpendicularOffset', 0),
      followLine: flag(options.get('followLine'), 'followLine'),
      maxAngleDelta: number(options.get('maxAngleDelta'), 'vendor option maxAngleDelta', 22.5, 0, 180)
    }
  } else if (options.has('followLine') || options.has('maxAngleDelta')) {
    throw InvalidStyle(' the vendor options followLine and maxAngleDelta apply to a LinePlacement; this TextSymbolizer has none')
  }
  if (s.haloWidth !== undefined || s.haloColor !== undefined || at(el, 'Halo') !== undefined) {
    out.halo = { radius: number(lit('halo-radius', s.haloWidth), 'Halo Radius', 1, 0, 100), fill: { color: colour(s.haloColor, 'Halo fill', '#FFFFFF')!, opacity: number(s.haloOpacity, 'Halo fill-opacity', 1, 0, 1) } }
  }
  if (dynamic) out.dynamic = dynamic
  return out
}
