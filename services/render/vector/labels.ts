// Labels of a vector layer placed after its geometries are drawn, GeoServer's way:
// - Priority first (higher first, GeoServer's default 1000), then feature order;
// - group: one label per symbolizer and distinct text, on the longest line (lines joined end to end
//   first, GeoServer's network), the largest polygon or the first point of all the features
//   carrying it (labelAllGroup: every joined line of the group);
// - the geometry labelled is the part of it inside the image (draw-vector.ts; GeoServer: the
//   visible part of a line or a polygon), so a country larger than a metatile is labelled in it;
// - PointPlacement at the point, polylabel's pole of the largest polygon or the middle of the
//   longest line; maxDisplacement tries positions around it (8 directions, rings of half the font
//   size; inside the polygon for a polygon);
// - LinePlacement: centred on the middle of the longest line, upright, rotated to the line there,
//   PerpendicularOffset above it; followLine sets it glyph by glyph along the line (librsvg draws no
//   <textPath>), dropped when the line is shorter than the text or when two neighbouring glyphs
//   turn by more than maxAngleDelta; maxDisplacement tries positions along the line;
// - a label whose footprint (its box, or a box per glyph along a line, with the halo) meets one
//   already placed is skipped; spaceAround grows the footprint for that test (the distance kept to
//   labels placed before), a negative spaceAround places the label whatever it overlaps;
// - partials=false (the default): a footprint not wholly inside the image is not drawn, so no label
//   is cut at a metatile's edge nor drawn twice by neighbours; partials=true draws it cut;
// - conflictResolution=false: drawn whatever it overlaps, and blocking no label placed after it;
// - autoWrap: words wrapped into lines of at most that many pixels (a longer word alone on its
//   line), aligned by the anchor; not along a followed line (GeoServer's rule too);
// - repeat: along a line, a label centred every `repeat` pixels (the first half a step in), each
//   with its own maxDisplacement search; goodnessOfFit: a polygon's label only where that share of
//   its box (sampled on a 5 x 3 grid) lies inside the polygon; underlineText, strikethroughText.
import { along, insidePolygon, joinLines, labelPoint, largestPolygon, lineLength, longestLine, type PixelGeometry, type Xy } from './pixel-geometry.js'
import { familiesOf } from './font-faces.js'
import { esc, f2, fillAttrs } from './svg-graphics.js'
import { glyphAdvances, textWidth } from './text-metrics.js'
import type { TextSymbolizer } from './vector-style.js'

export interface LabelRequest {
  /** The style's symbolizer: labels group per symbolizer and text. */
  key: object
  /** The symbolizer with its values for the feature. */
  s: TextSymbolizer
  g: PixelGeometry
  text: string
  priority: number
}

interface Box { x0: number, y0: number, x1: number, y1: number }
interface Candidate { boxes: Box[], svg: string }

const meets = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
const grow = (b: Box, d: number): Box => ({ x0: b.x0 - d, y0: b.y0 - d, x1: b.x1 + d, y1: b.y1 + d })
const deg = (a: number) => a * 180 / Math.PI

// The families as font-faces.ts asks fontconfig for them: the file measured is the file drawn.
const fontAttrs = (s: TextSymbolizer) => `font-family="${esc(familiesOf(s.font.family).join(', '))}" font-size="${f2(s.font.size)}" font-style="${s.font.style}" font-weight="${s.font.weight}"${s.decoration ? ` text-decoration="${s.decoration}"` : ''}`
/** The distance between the baselines of wrapped lines. */
const lineHeight = (s: TextSymbolizer) => s.font.size * 1.2

/** The label's lines: words wrapped at autoWrap pixels; a word longer than that stays whole on its line. */
function wrapped (s: TextSymbolizer, text: string): string[] {
  if (s.autoWrap <= 0) return [text]
  const out: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word
    if (line && textWidth(next, s.font) > s.autoWrap) { out.push(line); line = word } else line = next
  }
  out.push(line)
  return out
}
function haloAttrs (s: TextSymbolizer): string {
  if (!s.halo || s.halo.radius <= 0) return ''
  return ` stroke="${s.halo.fill.color}" stroke-width="${f2(s.halo.radius * 2)}" stroke-linejoin="round"${s.halo.fill.opacity < 1 ? ` stroke-opacity="${s.halo.fill.opacity}"` : ''} paint-order="stroke"`
}
/** Box of a square of side `side` centred on c. */
const square = (c: Xy, side: number): Box => ({ x0: c[0] - side / 2, y0: c[1] - side / 2, x1: c[0] + side / 2, y1: c[1] + side / 2 })

/** A label at a point (PointPlacement): its box rotated with it, as drawn. */
function pointCandidate (s: TextSymbolizer, text: string, at: Xy): Candidate {
  const size = s.font.size
  const lines = wrapped(s, text)
  const widths = lines.map((l) => textWidth(l, s.font))
  const w = Math.max(...widths)
  const h = size + (lines.length - 1) * lineHeight(s)
  const left = at[0] + s.displacement[0] - s.anchor[0] * w
  const bottom = at[1] - s.displacement[1] + s.anchor[1] * h
  const pad = s.halo?.radius ?? 0
  let box: Box = { x0: left - pad, y0: bottom - h - pad, x1: left + w + pad, y1: bottom + pad }
  if (s.rotation) {
    const a = -s.rotation * Math.PI / 180; const c = Math.cos(a); const sn = Math.sin(a)
    const corners: Xy[] = [[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]].map(([x, y]) => [at[0] + (x - at[0]) * c - (y - at[1]) * sn, at[1] + (x - at[0]) * sn + (y - at[1]) * c])
    box = { x0: Math.min(...corners.map((p) => p[0])), y0: Math.min(...corners.map((p) => p[1])), x1: Math.max(...corners.map((p) => p[0])), y1: Math.max(...corners.map((p) => p[1])) }
  }
  const rot = s.rotation ? ` transform="rotate(${f2(-s.rotation)} ${f2(at[0])} ${f2(at[1])})"` : ''
  if (lines.length === 1) return { boxes: [box], svg: `<text x="${f2(left)}" y="${f2(bottom - size * 0.2)}" ${fontAttrs(s)} ${fillAttrs(s.fill)}${haloAttrs(s)}${rot}>${esc(text)}</text>` }
  // Each line aligned as the anchor says (left, centred, right), the first baseline as one line's.
  const spans = lines.map((l, i) => `<tspan x="${f2(left + s.anchor[0] * (w - widths[i]))}" y="${f2(bottom - h + size * 0.8 + i * lineHeight(s))}">${esc(l)}</tspan>`)
  return { boxes: [box], svg: `<text ${fontAttrs(s)} ${fillAttrs(s.fill)}${haloAttrs(s)}${rot}>${spans.join('')}</text>` }
}

/** Text centred on the line at distance d, straight and upright, rotated to the line there. */
function straightCandidate (s: TextSymbolizer, text: string, line: Xy[], d: number): Candidate {
  const size = s.font.size
  const w = textWidth(text, s.font)
  const { at, angle: raw } = along(line, d)
  const angle = raw > Math.PI / 2 ? raw - Math.PI : raw < -Math.PI / 2 ? raw + Math.PI : raw
  const cos = Math.cos(angle); const sin = Math.sin(angle)
  const offset = s.line?.offset ?? 0
  const place = (x: number, y: number): Xy => [at[0] + x * cos - y * sin, at[1] + x * sin + y * cos]
  const pad = s.halo?.radius ?? 0
  const lines = wrapped(s, text)
  // Wrapped lines stacked about the line's offset, each centred on it.
  const shift = (i: number) => (i - (lines.length - 1) / 2) * lineHeight(s)
  const boxes = lines.flatMap((l, i) => {
    const lw = lines.length === 1 ? w : textWidth(l, s.font)
    const n = Math.max(1, Math.ceil(lw / size))
    return Array.from({ length: n }, (_, k) => square(place(-lw / 2 + (k + 0.5) * lw / n, -offset + shift(i)), Math.max(lw / n, size) + 2 * pad))
  })
  const transform = `transform="translate(${f2(at[0])} ${f2(at[1])}) rotate(${f2(deg(angle))})"`
  const svg = lines.length === 1
    ? `<text x="0" y="${f2(size * 0.35 - offset)}" text-anchor="middle" ${fontAttrs(s)} ${fillAttrs(s.fill)}${haloAttrs(s)} ${transform}>${esc(text)}</text>`
    : `<text text-anchor="middle" ${fontAttrs(s)} ${fillAttrs(s.fill)}${haloAttrs(s)} ${transform}>${lines.map((l, i) => `<tspan x="0" y="${f2(size * 0.35 - offset + shift(i))}">${esc(l)}</tspan>`).join('')}</text>`
  return { boxes, svg }
}

/** Text set glyph by glyph along the line, centred at distance d; undefined where it cannot follow. */
function followCandidate (s: TextSymbolizer, text: string, line: Xy[], length: number, d: number): Candidate | undefined {
  // Each glyph drawn on its own, kerned with the next: the label is as long as their advances.
  const advances = glyphAdvances(text, s.font)
  const w = advances.reduce((a, b) => a + b, 0)
  if (d - w / 2 < 0 || d + w / 2 > length) return undefined
  // Upright: read left to right, so a line drawn right to left is followed backwards.
  const a = along(line, d - w / 2).at; const b = along(line, d + w / 2).at
  const path = b[0] < a[0] ? [...line].reverse() : line
  const start = (b[0] < a[0] ? length - d : d) - w / 2
  const size = s.font.size
  const offset = s.line?.offset ?? 0
  const pad = s.halo?.radius ?? 0
  const maxTurn = (s.line?.maxAngleDelta ?? 22.5) * Math.PI / 180
  const boxes: Box[] = []
  const halos: string[] = []
  const glyphs: string[] = []
  let advance = 0
  let previous: number | undefined
  let i = 0
  for (const c of text) {
    const gw = advances[i++]
    const { at, angle } = along(path, start + advance + gw / 2)
    advance += gw
    if (previous !== undefined) {
      let turn = Math.abs(angle - previous)
      if (turn > Math.PI) turn = 2 * Math.PI - turn
      if (turn > maxTurn) return undefined
    }
    previous = angle
    // The glyph's centre line sits `offset` above the line (left of the direction of reading).
    const centre: Xy = [at[0] + Math.sin(angle) * offset, at[1] - Math.cos(angle) * offset]
    boxes.push(square(centre, Math.max(gw, size) + 2 * pad))
    if (c.trim() === '') continue
    const place = `x="0" y="${f2(size * 0.35)}" text-anchor="middle" transform="translate(${f2(centre[0])} ${f2(centre[1])}) rotate(${f2(deg(angle))})"`
    if (haloAttrs(s)) halos.push(`<text ${place} ${fontAttrs(s)} ${fillAttrs(s.halo!.fill)}${haloAttrs(s)}>${esc(c)}</text>`)
    glyphs.push(`<text ${place} ${fontAttrs(s)} ${fillAttrs(s.fill)}>${esc(c)}</text>`)
  }
  return { boxes, svg: `<g>${halos.join('')}${glyphs.join('')}</g>` }
}

/** Positions tried: the centre first, then up to maxDisplacement away in steps of half the font size. */
function steps (s: TextSymbolizer): number[] {
  const step = Math.max(2, s.font.size / 2)
  const out = [0]
  for (let r = step; r <= s.maxDisplacement; r += step) out.push(r)
  return out
}

/** The share of a box's sample points (5 x 3) inside a polygon. */
function insideShare (b: Box, polygon: Xy[][]): number {
  let n = 0
  for (let i = 0; i < 5; i++) for (let j = 0; j < 3; j++) if (insidePolygon([b.x0 + (b.x1 - b.x0) * (i + 0.5) / 5, b.y0 + (b.y1 - b.y0) * (j + 0.5) / 3], polygon)) n++
  return n / 15
}

/** Where along a line its labels are centred: the middle, or every `repeat` pixels. */
function centres (s: TextSymbolizer, line: Xy[]): number[] {
  const length = lineLength(line)
  if (!(s.repeat > 0) || length <= s.repeat) return [length / 2]
  const out: number[] = []
  for (let d = s.repeat / 2; d < length; d += s.repeat) out.push(d)
  return out
}

function * candidates (r: LabelRequest, line: Xy[] | undefined, centre?: number): Generator<Candidate> {
  const { s, text, g } = r
  if (s.line && line) {
    const length = lineLength(line)
    const mid = centre ?? length / 2
    for (const off of steps(s)) {
      for (const d of off === 0 ? [mid] : [mid + off, mid - off]) {
        if (d < 0 || d > length) continue
        const c = s.line.followLine ? followCandidate(s, text, line, length, d) : straightCandidate(s, text, line, d)
        if (c) yield c
      }
    }
    return
  }
  const at = g.points.length > 0 ? g.points[0] : labelPoint(g)
  if (!at) return
  const polygon = g.points.length === 0 ? largestPolygon(g.polygons) : undefined
  const fit = (c: Candidate) => s.goodnessOfFit === undefined || !polygon || insideShare(c.boxes[0], polygon) >= s.goodnessOfFit
  for (const off of steps(s)) {
    if (off === 0) { const c = pointCandidate(s, text, at); if (fit(c)) yield c; continue }
    for (let k = 0; k < 8; k++) {
      const p: Xy = [at[0] + off * Math.cos(k * Math.PI / 4), at[1] + off * Math.sin(k * Math.PI / 4)]
      if (polygon && !insidePolygon(p, polygon)) continue
      const c = pointCandidate(s, text, p)
      if (fit(c)) yield c
    }
  }
}

/** The requests of grouped symbolizers merged: one per symbolizer and text. */
function grouped (requests: LabelRequest[]): LabelRequest[] {
  const out: LabelRequest[] = []
  const groups = new Map<object, Map<string, LabelRequest>>()
  for (const r of requests) {
    if (!r.s.group) { out.push(r); continue }
    let byText = groups.get(r.key)
    if (!byText) { byText = new Map(); groups.set(r.key, byText) }
    const first = byText.get(r.text)
    if (!first) {
      const copy = { ...r, g: { points: [...r.g.points], lines: [...r.g.lines], polygons: [...r.g.polygons] } }
      byText.set(r.text, copy)
      out.push(copy)
      continue
    }
    first.g.points.push(...r.g.points); first.g.lines.push(...r.g.lines); first.g.polygons.push(...r.g.polygons)
    first.priority = Math.max(first.priority, r.priority)
  }
  for (const byText of groups.values()) for (const r of byText.values()) if (r.g.lines.length > 1) r.g.lines = joinLines(r.g.lines)
  return out
}

/** The SVG of the labels placed, in the order they were placed. */
export function placeLabels (requests: LabelRequest[], width: number, height: number): string[] {
  const order = grouped(requests).map((r, i) => ({ r, i })).sort((a, b) => b.r.priority - a.r.priority || a.i - b.i).map((x) => x.r)
  const placed: Box[] = []
  const out: string[] = []
  const fits = (c: Candidate, s: TextSymbolizer) =>
    (s.partials || c.boxes.every((b) => b.x0 >= 0 && b.y0 >= 0 && b.x1 <= width && b.y1 <= height)) &&
    (s.partials ? c.boxes.some((b) => b.x1 > 0 && b.y1 > 0 && b.x0 < width && b.y0 < height) : true) &&
    (!s.conflictResolution || s.spaceAround < 0 || !c.boxes.some((b) => { const g = grow(b, s.spaceAround); return placed.some((p) => meets(p, g)) }))
  for (const r of order) {
    const lines = r.s.line && r.g.polygons.length === 0 && r.g.lines.length > 0
      ? (r.s.group && r.s.labelAllGroup ? r.g.lines : [longestLine(r.g.lines)!])
      : [undefined]
    for (const line of lines) {
      for (const centre of line ? centres(r.s, line) : [undefined]) {
        for (const c of candidates(r, line, centre)) {
          if (!fits(c, r.s)) continue
          if (r.s.conflictResolution) placed.push(...c.boxes)
          out.push(c.svg)
          break
        }
      }
    }
  }
  return out
}
