// The SVG pieces a vector layer is written with (draw-vector.ts): paths, fill and stroke
// attributes, well-known and shape:// marks, and Graphics (a mark or an ExternalGraphic's image)
// defined once per document and placed with <use>: at points, repeated along lines (GraphicStroke)
// and tiled in a <pattern> (GraphicFill). Lines offset sideways for PerpendicularOffset here too.
import type { Xy } from './pixel-geometry.js'
import type { Graphic, MarkName, Paint, Stroke } from './vector-style.js'

/** Pixel coordinates further than this from the map are clamped: cairo's fixed-point range. */
const FAR = 100_000
export const clamp = (v: number) => v < -FAR ? -FAR : v > FAR ? FAR : v
export const f2 = (v: number) => (Math.round(v * 100) / 100).toString()
/** Text escaped for SVG content and attribute values. */
export const esc = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)

export const pathOf = (line: Xy[], close: boolean) => 'M' + line.map(([x, y]) => `${f2(clamp(x))} ${f2(clamp(y))}`).join('L') + (close ? 'Z' : '')

export function fillAttrs (p: Paint | undefined): string {
  return p ? `fill="${p.color}"${p.opacity < 1 ? ` fill-opacity="${p.opacity}"` : ''}` : 'fill="none"'
}
/** A stroke's attributes; `paint`: a pattern (url(#...)) painted instead of its colour. */
export function strokeAttrs (s: Stroke | undefined, paint?: string): string {
  if (!s || s.width <= 0) return ''
  let a = ` stroke="${paint ?? s.color}" stroke-width="${s.width}"`
  if (s.opacity < 1) a += ` stroke-opacity="${s.opacity}"`
  if (s.dasharray) a += ` stroke-dasharray="${s.dasharray.join(' ')}"`
  if (s.dasharray && s.dashoffset) a += ` stroke-dashoffset="${s.dashoffset}"`
  a += ` stroke-linecap="${s.linecap ?? 'butt'}" stroke-linejoin="${s.linejoin ?? 'miter'}"`
  return a
}

/** The outline of a well-known mark of `size` pixels centred on 0,0 (y down). */
export function markPath (mark: MarkName, size: number): string {
  const h = size / 2
  const poly = (pts: Xy[]) => pathOf(pts.map(([x, y]) => [x * size, y * size]), true)
  switch (mark) {
    case 'circle': return `M${f2(-h)} 0A${f2(h)} ${f2(h)} 0 1 0 ${f2(h)} 0A${f2(h)} ${f2(h)} 0 1 0 ${f2(-h)} 0Z`
    case 'square': return poly([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    case 'triangle': return poly([[0, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    case 'star': {
      const pts: Xy[] = []
      for (let i = 0; i < 10; i++) {
        const r = i % 2 === 0 ? 0.5 : 0.191
        const a = -Math.PI / 2 + i * Math.PI / 5
        pts.push([r * Math.cos(a), r * Math.sin(a)])
      }
      return poly(pts)
    }
    case 'cross': case 'x': {
      const t = 0.1 // half the arm's width
      const plus: Xy[] = [[-t, -0.5], [t, -0.5], [t, -t], [0.5, -t], [0.5, t], [t, t], [t, 0.5], [-t, 0.5], [-t, t], [-0.5, t], [-0.5, -t], [-t, -t]]
      if (mark === 'cross') return poly(plus)
      const c = Math.SQRT1_2
      return poly(plus.map(([x, y]) => [(x - y) * c, (x + y) * c]))
    }
    // GeoTools' ShapeMarkFactory: lines across the whole symbol, so repeated symbols join up.
    case 'shape://horline': return `M${f2(-h)} 0H${f2(h)}`
    case 'shape://vertline': return `M0 ${f2(-h)}V${f2(h)}`
    case 'shape://slash': return `M${f2(-h)} ${f2(h)}L${f2(h)} ${f2(-h)}`
    case 'shape://backslash': return `M${f2(-h)} ${f2(-h)}L${f2(h)} ${f2(h)}`
    case 'shape://plus': return `M${f2(-h)} 0H${f2(h)}M0 ${f2(-h)}V${f2(h)}`
    case 'shape://times': return `M${f2(-h)} ${f2(h)}L${f2(h)} ${f2(-h)}M${f2(-h)} ${f2(-h)}L${f2(h)} ${f2(h)}`
    case 'shape://dot': { const r = size / 10; return `M${f2(-r)} 0A${f2(r)} ${f2(r)} 0 1 0 ${f2(r)} 0A${f2(r)} ${f2(r)} 0 1 0 ${f2(-r)} 0Z` }
  }
}

/**
 * The Graphics of one SVG document: each defined once in <defs> (a data: URI is written once however
 * many features use it), ids prefixed with `prefix` so documents can be nested (legend.ts).
 * `origin` is where the map's world origin falls in pixels: fill patterns are anchored to it, so
 * hatching continues across neighbouring maps and metatiles.
 */
export function svgGraphics (prefix: string, origin: Xy) {
  const defs: string[] = []
  // Keyed by what a definition draws (not its rotation or displacement, applied where it is
  // placed): a point symbolizer with expression values is a new object per feature (symbolizer-
  // values.ts), and features that evaluate alike share one definition.
  const ids = new Map<string, { id: string, w: number, h: number }>()
  const patterns = new Map<Graphic, string>()
  const keyOf = (g: Graphic) => JSON.stringify([g.mark, g.image?.href, g.image?.ownSize, g.size, g.opacity, g.fill, g.stroke])

  /** The graphic centred on 0,0, its size w x h (an image keeps its aspect ratio). */
  const define = (g: Graphic) => {
    const key = keyOf(g)
    let d = ids.get(key)
    if (d) return d
    const id = `${prefix}g${ids.size}`
    const img = g.image
    const op = g.opacity < 1 ? ` opacity="${g.opacity}"` : ''
    if (img?.data && img.width && img.height) {
      const h = img.ownSize ? img.height : g.size
      const w = img.ownSize ? img.width : g.size * img.width / img.height
      defs.push(`<g id="${id}"${op}><image x="${f2(-w / 2)}" y="${f2(-h / 2)}" width="${f2(w)}" height="${f2(h)}" preserveAspectRatio="none" xlink:href="${img.data}"/></g>`)
      d = { id, w, h }
    } else {
      // shape:// marks are lines, never filled; but a dot, filled with its fill or else its stroke colour.
      const paint = g.mark === 'shape://dot' ? g.fill ?? g.stroke : g.mark.startsWith('shape://') ? undefined : g.fill
      defs.push(`<path id="${id}" d="${markPath(g.mark, g.size)}" ${fillAttrs(paint)}${strokeAttrs(g.stroke)}${op}/>`)
      d = { id, w: g.size, h: g.size }
    }
    ids.set(key, d)
    return d
  }

  /** A <use> of the graphic at x,y turned by `angle` degrees clockwise more than its own Rotation. */
  const place = (g: Graphic, x: number, y: number, angle = 0): string => {
    const { id } = define(g)
    const r = g.rotation + angle
    const [dx, dy] = g.displacement ?? [0, 0]
    return `<use xlink:href="#${id}" transform="translate(${f2(x + dx)} ${f2(y + dy)})${r ? ` rotate(${f2(r)})` : ''}"/>`
  }

  return {
    place,
    /**
     * The url() of a pattern tiling the graphic edge to edge (tiles of its size, as GeoTools'
     * GraphicFill), `margin` (top, right, bottom, left) pixels of space around each.
     */
    fill (g: Graphic, margin: [number, number, number, number] = [0, 0, 0, 0]): string {
      let id = patterns.get(g)
      if (!id) {
        const { w: gw, h: gh } = define(g)
        const [top, right, bottom, left] = margin
        const w = gw + left + right
        const h = gh + top + bottom
        id = `${prefix}p${patterns.size}`
        if (w >= 0.5 && h >= 0.5) {
          // The tile's neighbours too: what overflows a tile (a stroke, a diagonal's end) shows in the next one.
          const uses: string[] = []
          for (const dx of [-w, 0, w]) for (const dy of [-h, 0, h]) uses.push(place(g, left + gw / 2 + dx, top + gh / 2 + dy))
          const at = (o: number, s: number) => f2(((o % s) + s) % s)
          defs.push(`<pattern id="${id}" patternUnits="userSpaceOnUse" x="${at(origin[0], w)}" y="${at(origin[1], h)}" width="${f2(w)}" height="${f2(h)}">${uses.join('')}</pattern>`)
        }
        patterns.set(g, id)
      }
      return `url(#${id})`
    },
    defs: () => defs.length === 0 ? '' : `<defs>${defs.join('')}</defs>`
  }
}

/** Points along a line every `step` pixels from step/2 on, with the line's direction there in degrees (clockwise, y down). */
export function alongLine (line: Xy[], step: number, max: number): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = []
  if (!(step >= 1)) return out
  let next = step / 2
  let walked = 0
  for (let i = 1; i < line.length && out.length < max; i++) {
    const [x0, y0] = line[i - 1]; const [x1, y1] = line[i]
    const len = Math.hypot(x1 - x0, y1 - y0)
    if (len === 0) continue
    const angle = Math.atan2(y1 - y0, x1 - x0) * 180 / Math.PI
    while (next <= walked + len && out.length < max) {
      const t = (next - walked) / len
      out.push([x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, angle])
      next += step
    }
    walked += len
  }
  return out
}

/**
 * A line offset `d` pixels to the left of its direction (SE 1.1 PerpendicularOffset; right when
 * negative), each vertex moved along the mean of its segments' normals (mitred, bevelled past a
 * limit of 4 times the offset). `closed`: a ring, its first and last vertex joined.
 */
export function offsetLine (line: Xy[], d: number, closed: boolean): Xy[] {
  const p = line.filter((q, i) => i === 0 || q[0] !== line[i - 1][0] || q[1] !== line[i - 1][1])
  if (closed && p.length > 1 && p[0][0] === p[p.length - 1][0] && p[0][1] === p[p.length - 1][1]) p.pop()
  const n = p.length
  if (n < 2 || d === 0) return line
  // The left of direction (dx, dy) with y down is (dy, -dx).
  const normal = (a: Xy, b: Xy): Xy => { const l = Math.hypot(b[0] - a[0], b[1] - a[1]); return [(b[1] - a[1]) / l, -(b[0] - a[0]) / l] }
  const segs = closed ? n : n - 1
  const normals: Xy[] = []
  for (let i = 0; i < segs; i++) normals.push(normal(p[i], p[(i + 1) % n]))
  const out: Xy[] = []
  for (let i = 0; i < n; i++) {
    const before = closed ? normals[(i - 1 + segs) % segs] : normals[i - 1]
    const after = normals[i]
    const a = before ?? after!; const b = after ?? before!
    const cos = a[0] * b[0] + a[1] * b[1]
    if (1 + cos < 2 / 16) { // sharper than the mitre limit: bevel
      out.push([p[i][0] + d * a[0], p[i][1] + d * a[1]], [p[i][0] + d * b[0], p[i][1] + d * b[1]])
    } else {
      const k = d / (1 + cos)
      out.push([p[i][0] + k * (a[0] + b[0]), p[i][1] + k * (a[1] + b[1])])
    }
  }
  if (closed) out.push(out[0])
  return out
}
