// GetLegendGraphic's picture of a vector style, drawn in a render worker: one row per rule (every
// FeatureTypeStyle in order), its symbolizers applied to a sample geometry in a WIDTH x HEIGHT
// swatch (a point in the middle, a diagonal line, a square inset by one pixel, a label "Abc"),
// and the rule's title (else its name) beside it, as GeoServer's default legend lays them out.
import sharp from 'sharp'
import { encodeMap, type MapFormat } from '../map.js'
import { vectorSvg } from './draw-vector.js'
import { FALLBACK_FAMILY } from './font-faces.js'
import { esc } from './svg-graphics.js'
import { textWidth as measure } from './text-metrics.js'
import type { VectorRule, VectorStyle } from './vector-style.js'
import wkx from 'wkx'

export interface LegendPayload {
  style: VectorStyle
  /** Swatch size in pixels (WIDTH, HEIGHT; 20 by default). */
  width: number
  height: number
  format: MapFormat
  transparent: boolean
  /** RULE: only the rule of that name. */
  rule?: string
}

const ROW_GAP = 2
const FONT_SIZE = 12
/** The titles' font: measured with the file librsvg draws it with. */
const TITLE_FONT = { family: FALLBACK_FAMILY, size: FONT_SIZE, style: 'normal', weight: 'normal' } as const

/** The sample geometry a rule's swatch is drawn on: the kind its symbolizers draw. */
function sampleOf (rule: VectorRule, w: number, h: number): Uint8Array {
  const kinds = new Set(rule.symbolizers.map((s) => s.kind))
  let g: wkx.Geometry
  if (kinds.has('polygon') || rule.geometry === 'polygon') {
    g = new wkx.Polygon([new wkx.Point(1, 1), new wkx.Point(w - 1, 1), new wkx.Point(w - 1, h - 1), new wkx.Point(1, h - 1), new wkx.Point(1, 1)])
  } else if (kinds.has('line') || rule.geometry === 'line') {
    g = new wkx.LineString([new wkx.Point(1, 1), new wkx.Point(w - 1, h - 1)])
  } else g = new wkx.Point(w / 2, h / 2)
  const b = g.toWkb()
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
}

export function legendRules (style: VectorStyle, rule?: string): VectorRule[] {
  const all = style.featureTypeStyles.flatMap((f) => f.rules)
  return rule === undefined ? all : all.filter((r) => r.name === rule)
}

export async function drawLegend (p: LegendPayload): Promise<Uint8Array> {
  const rules = legendRules(p.style, p.rule)
  const { width: w, height: h } = p
  const labels = rules.map((r) => r.title ?? r.name ?? '')
  const textWidth = Math.max(0, ...labels.map((l) => Math.ceil(measure(l, TITLE_FONT))))
  const total = { width: w + (textWidth > 0 ? 4 + textWidth : 0), height: Math.max(1, rules.length * (h + ROW_GAP) - ROW_GAP) }
  const parts: string[] = []
  rules.forEach((r, i) => {
    const top = i * (h + ROW_GAP)
    // The swatch: the rule alone (no filter, no scale range), its labels drawn as "Abc".
    const rule: VectorRule = { ...r, filter: undefined, else: undefined, minScale: undefined, maxScale: undefined, geometry: undefined,
      symbolizers: r.symbolizers.map((s) => s.kind === 'text' ? { ...s, label: { lit: 'Abc' }, priority: undefined, line: undefined, group: false, anchor: [0.5, 0.5], displacement: [0, 0] } : s) }
    const svg = vectorSvg({
      kind: 'vector', layer: '', crs: 'EPSG:3857', dataCrs: 'EPSG:3857', bbox: [0, 0, w, h], width: w, height: h, scale: 1,
      style: { featureTypeStyles: [{ rules: [rule] }] },
      features: [{ geometry: sampleOf(r, w, h), properties: {} }]
    }, `r${i}`)
    // Sample coordinates have y up as map units; the swatch is symmetric enough for that not to matter.
    parts.push(`<g transform="translate(0 ${top})">${svg.replace(/^<svg[^>]*>/, '').replace(/<\/svg>$/, '')}</g>`)
    if (labels[i]) parts.push(`<text x="${w + 4}" y="${top + h / 2 + FONT_SIZE * 0.35}" font-family="${FALLBACK_FAMILY}, sans-serif" font-size="${FONT_SIZE}" fill="#000000">${esc(labels[i])}</text>`)
  })
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${total.width}" height="${total.height}">${parts.join('')}</svg>`
  const raw = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer()
  const data = await encodeMap(new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength), total.width, total.height, p.format, p.transparent, [255, 255, 255])
  const out = new Uint8Array(data.byteLength)
  out.set(data)
  return out
}
