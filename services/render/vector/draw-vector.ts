// A vector layer drawn in a render worker: the features' WKB geometries decoded (wkx), taken from
// the data's CRS to the map's (crs.ts), to pixels, and written as one SVG document with the
// style's symbolizers (render/vector/vector-style.ts), which sharp rasterizes with librsvg into
// straight RGBA for map.ts to composite. Labels are placed after every geometry of the layer is
// drawn, each skipped when its box meets one already placed or is not wholly inside the image.
import sharp from 'sharp'
import wkx from 'wkx'
import polylabel from 'polylabel'
import { matches, recordView } from '../../filters/evaluate.js'
import { pointTransform } from '../crs.js'
import { alongLine, fillAttrs, f2, offsetLine, pathOf, strokeAttrs, svgGraphics, type Xy } from './svg-graphics.js'
import { inScale, type Symbolizer, type TextSymbolizer, type VectorRule, type VectorStyle } from './vector-style.js'

export interface VectorFeature {
  /** WKB of the feature's default geometry. */
  geometry: Uint8Array
  properties: Record<string, unknown>
}

/** One vector layer of a map: what a worker needs to draw it. */
export interface VectorJob {
  kind: 'vector'
  layer: string
  /** The map's CRS, bbox (its axis order as RenderRequest's) and size. */
  crs: string
  bbox: [number, number, number, number]
  width: number
  height: number
  proj4Defs?: Record<string, string>
  /** The CRS the geometries are in. */
  dataCrs: string
  /** The OGC scale denominator of the map (0.28 mm pixels). */
  scale: number
  style: VectorStyle
  features: VectorFeature[]
}

interface PixelGeometry { points: Xy[], lines: Xy[][], polygons: Xy[][][] }


function toPixels (g: wkx.Geometry, project: (x: number, y: number) => Xy | undefined, out: PixelGeometry): void {
  const ring = (pts: wkx.Point[]): Xy[] => {
    const r: Xy[] = []
    for (const p of pts) { const q = project(p.x, p.y); if (q) r.push(q) }
    return r
  }
  if (g instanceof wkx.Point) { const q = Number.isFinite(g.x) ? project(g.x, g.y) : undefined; if (q) out.points.push(q) } else if (g instanceof wkx.MultiPoint) { for (const p of g.points) toPixels(p, project, out) } else if (g instanceof wkx.LineString) { const r = ring(g.points); if (r.length > 1) out.lines.push(r) } else if (g instanceof wkx.MultiLineString) { for (const l of g.lineStrings) toPixels(l, project, out) } else if (g instanceof wkx.Polygon) {
    const rings = [ring(g.exteriorRing), ...g.interiorRings.map(ring)].filter((r) => r.length > 2)
    if (rings.length > 0) out.polygons.push(rings)
  } else if (g instanceof wkx.MultiPolygon) { for (const p of g.polygons) toPixels(p, project, out) } else if (g instanceof wkx.GeometryCollection) { for (const c of g.geometries) toPixels(c, project, out) }
}


const esc = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The label text of a feature: the template's {{property}} placeholders filled in. */
export function labelText (template: string, props: Record<string, unknown>): string {
  return template.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (_, name: string) => {
    const v = props[name] ?? Object.entries(props).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1]
    return v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : String(v)
  }).trim()
}

function polygonArea (ring: Xy[]): number {
  let a = 0
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) a += (ring[j][0] + ring[i][0]) * (ring[j][1] - ring[i][1])
  return Math.abs(a / 2)
}

/** Where a feature's label goes: the point, polylabel's pole of the largest polygon, the middle of the longest line. */
function labelPoint (g: PixelGeometry): Xy | undefined {
  if (g.polygons.length > 0) {
    let best = g.polygons[0]; let area = -1
    for (const p of g.polygons) { const a = polygonArea(p[0]); if (a > area) { area = a; best = p } }
    const q = polylabel(best, 1)
    return [q[0], q[1]]
  }
  if (g.lines.length > 0) {
    const length = (l: Xy[]) => { let s = 0; for (let i = 1; i < l.length; i++) s += Math.hypot(l[i][0] - l[i - 1][0], l[i][1] - l[i - 1][1]); return s }
    let best = g.lines[0]; let len = -1
    for (const l of g.lines) { const s = length(l); if (s > len) { len = s; best = l } }
    let half = len / 2
    for (let i = 1; i < best.length; i++) {
      const d = Math.hypot(best[i][0] - best[i - 1][0], best[i][1] - best[i - 1][1])
      if (d >= half && d > 0) { const t = half / d; return [best[i - 1][0] + (best[i][0] - best[i - 1][0]) * t, best[i - 1][1] + (best[i][1] - best[i - 1][1]) * t] }
      half -= d
    }
    return best[0]
  }
  return g.points[0]
}

interface Box { x0: number, y0: number, x1: number, y1: number }
const meets = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1

/** Most graphics one line repeats (GraphicStroke): a bound on the SVG a long line at a small step makes. */
const MAX_ALONG = 10_000

/** The SVG elements of one symbolizer on one geometry. */
function drawn (s: Exclude<Symbolizer, TextSymbolizer>, g: PixelGeometry, graphics: ReturnType<typeof svgGraphics>): string {
  if (s.kind === 'polygon') {
    if (g.polygons.length === 0) return ''
    const d = g.polygons.map((p) => p.map((r) => pathOf(r, true)).join('')).join('')
    if (!s.graphicFill) return `<path d="${d}" fill-rule="evenodd" ${fillAttrs(s.fill)}${strokeAttrs(s.stroke)}/>`
    // A colour under the graphic fill when the SLD gives both, the outline over it.
    return (s.fill ? `<path d="${d}" fill-rule="evenodd" ${fillAttrs(s.fill)}/>` : '') +
      `<path d="${d}" fill-rule="evenodd" fill="${graphics.fill(s.graphicFill, s.graphicMargin)}"${strokeAttrs(s.stroke)}/>`
  }
  if (s.kind === 'line') {
    const off = (l: Xy[], closed: boolean) => s.offset ? offsetLine(l, s.offset, closed) : l
    const lines = [...g.lines.map((l) => ({ l: off(l, false), closed: false })), ...g.polygons.flatMap((p) => p.map((r) => ({ l: off(r, true), closed: true })))]
    if (lines.length === 0) return ''
    let out = s.stroke.width > 0 ? `<path d="${lines.map(({ l, closed }) => pathOf(l, closed)).join('')}" fill="none"${strokeAttrs(s.stroke)}/>` : ''
    if (s.graphicStroke) {
      const gs = s.graphicStroke
      const step = gs.image?.data && gs.image.width && gs.image.height ? (gs.image.ownSize ? gs.image.width : gs.size * gs.image.width / gs.image.height) : gs.size
      let left = MAX_ALONG
      for (const { l, closed } of lines) {
        const at = alongLine(closed ? [...l, l[0]] : l, step, left)
        left -= at.length
        out += at.map(([x, y, angle]) => graphics.place(gs, x, y, angle)).join('')
      }
    }
    return out
  }
  // A point symbolizer marks the points; a line or polygon at its label point, as GeoServer's centroid.
  const at = g.points.length > 0 ? g.points : [labelPoint(g)].filter((p): p is Xy => p !== undefined)
  return at.map(([x, y]) => graphics.place(s, x, y)).join('')
}

function kindOf (g: PixelGeometry): 'point' | 'line' | 'polygon' {
  return g.polygons.length > 0 ? 'polygon' : g.lines.length > 0 ? 'line' : 'point'
}

/** The SVG document of a vector layer; `idPrefix` keeps its ids apart from another's it is nested with. */
export function vectorSvg (job: VectorJob, idPrefix = ''): string {
  const { width, height, bbox } = job
  const [x0, y0, x1, y1] = bbox
  const sx = width / (x1 - x0)
  const sy = height / (y1 - y0)
  const graphics = svgGraphics(idPrefix, [-x0 * sx, y1 * sy])
  const transform = pointTransform(job.dataCrs, job.crs, job.proj4Defs)
  const project = (x: number, y: number): Xy | undefined => {
    const [px, py] = transform(x, y)
    if (!Number.isFinite(px) || !Number.isFinite(py)) return undefined
    return [(px - x0) * sx, (y1 - py) * sy]
  }
  const geoms: Array<PixelGeometry | undefined> = job.features.map((f) => {
    try {
      const out: PixelGeometry = { points: [], lines: [], polygons: [] }
      toPixels(wkx.Geometry.parse(Buffer.from(f.geometry.buffer, f.geometry.byteOffset, f.geometry.byteLength)), project, out)
      return out
    } catch { return undefined } // a geometry that cannot be read is left out, as GeoServer skips it
  })
  const body: string[] = []
  const labels: Array<{ s: TextSymbolizer, at: Xy, text: string }> = []
  const applies = (r: VectorRule, g: PixelGeometry, props: Record<string, unknown>) => (!r.geometry || r.geometry === kindOf(g)) && (!r.filter || matches(r.filter, recordView(props), { twoValued: true }))
  for (const fts of job.style.featureTypeStyles) {
    const rules = fts.rules.filter((r) => inScale(r, job.scale))
    const normal = rules.filter((r) => !r.else)
    const otherwise = rules.filter((r) => r.else)
    if (rules.length === 0) continue
    for (let i = 0; i < job.features.length; i++) {
      const g = geoms[i]
      if (!g) continue
      const props = job.features[i].properties
      const draw = (r: VectorRule) => {
        for (const s of r.symbolizers) {
          if (s.kind === 'text') {
            const text = labelText(s.label, props)
            const at = text === '' ? undefined : labelPoint(g)
            if (at) labels.push({ s, at, text })
          } else body.push(drawn(s, g, graphics))
        }
      }
      let any = false
      for (const r of normal) if (applies(r, g, props)) { any = true; draw(r) }
      if (!any) for (const r of otherwise) if (!r.geometry || r.geometry === kindOf(g)) draw(r)
    }
  }
  const placed: Box[] = []
  for (const { s, at, text } of labels) {
    const size = s.font.size
    const w = text.length * size * (s.font.weight === 'bold' ? 0.66 : 0.6)
    const h = size
    const left = at[0] + s.displacement[0] - s.anchor[0] * w
    const bottom = at[1] - s.displacement[1] + s.anchor[1] * h
    const pad = s.halo?.radius ?? 0
    const box = { x0: left - pad, y0: bottom - h - pad, x1: left + w + pad, y1: bottom + pad }
    // GeoServer's partials=false: a label not wholly inside the image is not drawn, so a metatile
    // never draws half a label its neighbour cannot complete (nor draws one its neighbour draws too).
    if (box.x0 < 0 || box.y0 < 0 || box.x1 > width || box.y1 > height) continue
    if (placed.some((b) => meets(b, box))) continue
    placed.push(box)
    const baseline = bottom - h * 0.2
    const font = `font-family="${esc(s.font.family)}, DejaVu Sans, sans-serif" font-size="${size}" font-style="${s.font.style}" font-weight="${s.font.weight}"`
    const rot = s.rotation ? ` transform="rotate(${f2(-s.rotation)} ${f2(at[0])} ${f2(at[1])})"` : ''
    const halo = s.halo && s.halo.radius > 0
      ? ` stroke="${s.halo.fill.color}" stroke-width="${f2(s.halo.radius * 2)}" stroke-linejoin="round"${s.halo.fill.opacity < 1 ? ` stroke-opacity="${s.halo.fill.opacity}"` : ''} paint-order="stroke"`
      : ''
    body.push(`<text x="${f2(left)}" y="${f2(baseline)}" ${font} ${fillAttrs(s.fill)}${halo}${rot}>${esc(text)}</text>`)
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${graphics.defs()}${body.join('')}</svg>`
}

/** The layer drawn: straight RGBA, width x height. */
export async function drawVector (job: VectorJob): Promise<Uint8Array> {
  const svg = vectorSvg(job)
  const raw = await sharp(Buffer.from(svg), { unlimited: true, limitInputPixels: false }).ensureAlpha().raw().toBuffer()
  return new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength)
}
