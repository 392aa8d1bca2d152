// A vector layer drawn in a render worker: the features' WKB geometries decoded (wkx), taken from
// the data's CRS to the map's (crs.ts), to pixels, and written as one SVG document with the
// style's symbolizers (render/vector/vector-style.ts), which sharp rasterizes with librsvg into
// straight RGBA for map.ts to composite. Labels are placed after every geometry of the layer is
// drawn, on the part of each geometry inside the image (GeoServer's label point of the visible
// part), each skipped when its box meets one already placed or is not wholly inside the image.
// Memory stays bounded for any number of features: the SVG is cut into documents of BATCH_CHARS
// drawn one over another, and a layer of many features comes a batch at a time (`more`).
import sharp from 'sharp'
import type { MessagePort } from 'node:worker_threads'
import wkx from 'wkx'
import { matches, recordView, type FeatureView } from '../../filters/evaluate.js'
import type { Geo } from '../../wfs/geometry.js'
import { over } from '../composite.js'
import { pointTransform } from '../crs.js'
import { asNumber, asText, evaluate } from './expression.js'
import { placeLabels, type LabelRequest } from './labels.js'
import { labelPoint, simplifyPixels, visiblePart, type PixelGeometry, type Xy } from './pixel-geometry.js'
import { alongLine, fillAttrs, offsetLine, pathOf, strokeAttrs, svgGraphics } from './svg-graphics.js'
import { resolved } from './symbolizer-values.js'
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
  /** Pixels the geometries are simplified to as they become pixels (SIMPLIFY_PIXELS; none when absent). */
  simplify?: number
  /** The features, or the first batch of them when `more` streams the rest. */
  features: VectorFeature[]
  /** The rest of the features of a layer of many, asked a batch at a time (vector-plan.ts's feed). */
  more?: MessagePort
}

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
    let out = s.stroke.width > 0 ? `<path d="${lines.map(({ l, closed }) => pathOf(l, closed)).join('')}" fill="none"${strokeAttrs(s.stroke, s.graphicFill && graphics.fill(s.graphicFill))}/>` : ''
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

/**
 * SVG text per document of a layer of many features: past it the document is drawn and the next
 * elements go into a new one, composited over it, so librsvg's tree and the SVG text stay bounded
 * however many features a map has (2 MB: about 35,000 point symbols). A layer that fits is one
 * document, as it always was.
 */
export const BATCH_CHARS = 2_000_000

/**
 * The drawing of one layer: SVG elements of features by FeatureTypeStyle (`elements`, labels
 * gathered meanwhile), documents of elements (`document`), and the labels placed (`labels`).
 * `idPrefix` keeps its ids apart from another's it is nested with.
 */
function layerWriter (job: VectorJob, idPrefix: string) {
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
  const wkbOf = (f: VectorFeature) => Buffer.from(f.geometry.buffer, f.geometry.byteOffset, f.geometry.byteLength)
  // Decoded once per feature, as the first FeatureTypeStyle reaches it, and kept while its batch is
  // (a layer's features come at most BATCH_FEATURES at a time): a million features' pixel geometries
  // would outweigh their WKB several times over. Simplified to the job's tolerance here, in the
  // render thread, for the sources that do not simplify in their database.
  const decoded = new WeakMap<VectorFeature, PixelGeometry | null>()
  const pixels = (f: VectorFeature): PixelGeometry | undefined => {
    let g = decoded.get(f)
    if (g === undefined) {
      try {
        const out: PixelGeometry = { points: [], lines: [], polygons: [] }
        toPixels(wkx.Geometry.parse(wkbOf(f)), project, out)
        g = job.simplify !== undefined && job.simplify > 0 ? simplifyPixels(out, job.simplify) : out
      } catch { g = null } // a geometry that cannot be read is left out, as GeoServer skips it
      decoded.set(f, g)
    }
    return g ?? undefined
  }
  const labels: LabelRequest[] = []
  // A rule's spatial operators meet the feature's geometry in the data's CRS (its literal was taken
  // there when the map was planned), decoded from the WKB once, when a rule first asks for it.
  const geos = new WeakMap<VectorFeature, Geo>()
  const view = (f: VectorFeature): FeatureView => ({
    ...recordView(f.properties),
    geometry: () => {
      let geo = geos.get(f)
      if (!geo) { geo = wkx.Geometry.parse(wkbOf(f)).toGeoJSON() as Geo; geos.set(f, geo) }
      return geo
    }
  })
  const applies = (r: VectorRule, g: PixelGeometry, v: FeatureView) => (!r.geometry || r.geometry === kindOf(g)) && (!r.filter || matches(r.filter, v, { twoValued: true }))
  const styles = job.style.featureTypeStyles.map((fts) => {
    const rules = fts.rules.filter((r) => inScale(r, job.scale))
    return { rules, normal: rules.filter((r) => !r.else), otherwise: rules.filter((r) => r.else) }
  })
  return {
    /** FeatureTypeStyles, each drawn over every feature before the next. */
    styles: styles.length,
    /** The SVG elements FeatureTypeStyle `k` draws of `features`, in order; their labels kept for `labels`. */
    * elements (k: number, features: VectorFeature[]): Generator<string> {
      const { rules, normal, otherwise } = styles[k]
      if (rules.length === 0) return
      for (const f of features) {
        const g = pixels(f)
        if (!g) continue
        const props = f.properties
        const out: string[] = []
        let seen: PixelGeometry | undefined
        const draw = (r: VectorRule) => {
          for (const s of r.symbolizers) {
            if (s.kind === 'text') {
              const text = asText(evaluate(s.label, props))?.trim() ?? ''
              // Labelled on the part of it the map shows, as GeoServer labels (labels.ts).
              if (text !== '') labels.push({ key: s, s: resolved(s, props), g: seen ??= visiblePart(g, [0, 0, width, height]), text, priority: s.priority ? asNumber(evaluate(s.priority, props)) ?? 1000 : 1000 })
            } else out.push(drawn(resolved(s, props), g, graphics))
          }
        }
        let any = false
        const v = view(f)
        for (const r of normal) if (applies(r, g, v)) { any = true; draw(r) }
        if (!any) for (const r of otherwise) if (!r.geometry || r.geometry === kindOf(g)) draw(r)
        yield * out
      }
    },
    document: (body: string[]) => `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${graphics.defs()}${body.join('')}</svg>`,
    labels: () => placeLabels(labels, width, height)
  }
}

/**
 * The SVG documents of a vector layer's features (not its feed's), drawn in order one over
 * another: features in FeatureTypeStyle and feature order, a new document when one holds
 * `batchChars` of elements, the labels in the last; none when nothing is drawn (a metatile of sea).
 */
export function * vectorSvgs (job: VectorJob, idPrefix = '', batchChars = Infinity): Generator<string> {
  const w = layerWriter(job, idPrefix)
  let body: string[] = []
  let chars = 0
  for (let k = 0; k < w.styles; k++) {
    for (const e of w.elements(k, job.features)) {
      if (e === '') continue
      body.push(e)
      chars += e.length
      if (chars >= batchChars) { yield w.document(body); body = []; chars = 0 }
    }
  }
  body.push(...w.labels())
  if (body.length > 0) yield w.document(body)
}

/** The SVG document of a vector layer, whole (legends, tests); `idPrefix` keeps its ids apart from another's it is nested with. */
export function vectorSvg (job: VectorJob, idPrefix = ''): string {
  return [...vectorSvgs(job, idPrefix)][0] ?? layerWriter(job, idPrefix).document([])
}

async function rasterized (svg: string): Promise<Uint8Array> {
  const raw = await sharp(Buffer.from(svg), { unlimited: true, limitInputPixels: false }).ensureAlpha().raw().toBuffer()
  return new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength)
}

/** The job's features, then its feed's batches as the plan reads them (vector-plan.ts's feed); the feed closed at the end. */
async function * batches (job: VectorJob): AsyncGenerator<VectorFeature[]> {
  yield job.features
  const port = job.more
  if (!port) return
  try {
    for (;;) {
      // A feed closed from the other end answers nothing more: an error, not a wait without end.
      const answer = new Promise<{ features?: VectorFeature[], done?: boolean, error?: string }>((resolve, reject) => {
        const closed = () => reject(new Error(`reading the features of ${job.layer}: their feed closed`))
        port.once('close', closed)
        port.once('message', (m) => { port.off('close', closed); resolve(m) })
      })
      port.postMessage('next')
      const b = await answer
      if (b.error !== undefined) throw new Error(`reading the features of ${job.layer}: ${b.error}`)
      if (b.features && b.features.length > 0) yield b.features
      if (b.done) return
    }
  } finally { port.close() }
}

/**
 * The layer drawn: straight RGBA, width x height; undefined when it draws nothing there (no
 * rasterising of an empty document: the caller's image stays as it is). Its SVG in documents of at
 * most `batchChars`, each drawn over the one before; a streamed layer (`more`) drawn a batch of
 * features at a time, each FeatureTypeStyle into an image of its own (the next style's features
 * come after all of the previous one's), the images then laid one over another and the labels over
 * them.
 */
export async function drawVector (job: VectorJob, batchChars = BATCH_CHARS): Promise<Uint8Array | undefined> {
  let out: Uint8Array | undefined
  const onto = (img: Uint8Array) => { if (out) over(out, 0, img); else out = img }
  if (!job.more) {
    for (const svg of vectorSvgs(job, '', batchChars)) onto(await rasterized(svg))
    return out
  }
  const w = layerWriter(job, '')
  const layers = Array.from({ length: w.styles }, () => ({ img: undefined as Uint8Array | undefined, body: [] as string[], chars: 0 }))
  const flush = async (l: typeof layers[number]) => {
    if (l.body.length === 0) return
    const img = await rasterized(w.document(l.body))
    if (l.img) over(l.img, 0, img); else l.img = img
    l.body = []
    l.chars = 0
  }
  for await (const features of batches(job)) {
    for (let k = 0; k < w.styles; k++) {
      const l = layers[k]
      for (const e of w.elements(k, features)) {
        if (e === '') continue
        l.body.push(e)
        l.chars += e.length
        if (l.chars >= batchChars) await flush(l)
      }
    }
  }
  for (const l of layers) { await flush(l); if (l.img) onto(l.img) }
  const labels = w.labels()
  if (labels.length > 0) onto(await rasterized(w.document(labels)))
  return out
}
