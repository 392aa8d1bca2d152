// Geometries in pixels (y down) as the vector renderer draws and labels them, and the measures the
// labeller needs: areas, lengths, the point and angle at a distance along a line, point in polygon,
// and where a feature's label goes.
import polylabel from 'polylabel'
import { simplifyLine, simplifyPolygon } from '../../vector/simplify.js'

export type Xy = [number, number]
export interface PixelGeometry { points: Xy[], lines: Xy[][], polygons: Xy[][][] }
/** A rectangle: x0, y0, x1, y1. */
export type Box = [number, number, number, number]

/** Liang-Barsky: the part of a segment inside the box, or undefined. */
function clipSegment (a: Xy, b: Xy, box: Box): [Xy, Xy] | undefined {
  let t0 = 0
  let t1 = 1
  const dx = b[0] - a[0]
  const dy = b[1] - a[1]
  for (const [p, q] of [[-dx, a[0] - box[0]], [dx, box[2] - a[0]], [-dy, a[1] - box[1]], [dy, box[3] - a[1]]]) {
    if (p === 0) { if (q < 0) return undefined; continue }
    const r = q / p
    if (p < 0) { if (r > t1) return undefined; if (r > t0) t0 = r } else { if (r < t0) return undefined; if (r < t1) t1 = r }
  }
  return [[a[0] + t0 * dx, a[1] + t0 * dy], [a[0] + t1 * dx, a[1] + t1 * dy]]
}

/** A line cut to the box: the runs of it inside, each a line. */
export function clipLine (line: Xy[], box: Box): Xy[][] {
  const out: Xy[][] = []
  let run: Xy[] = []
  for (let i = 1; i < line.length; i++) {
    const s = clipSegment(line[i - 1], line[i], box)
    if (!s) { if (run.length > 1) out.push(run); run = []; continue }
    const last = run[run.length - 1]
    if (!last || last[0] !== s[0][0] || last[1] !== s[0][1]) { if (run.length > 1) out.push(run); run = [s[0]] }
    run.push(s[1])
    // The segment left the box: the run ends there.
    if (s[1][0] !== line[i][0] || s[1][1] !== line[i][1]) { out.push(run); run = [] }
  }
  if (run.length > 1) out.push(run)
  return out
}

/** Sutherland-Hodgman: a ring cut to the box (edges along the box where it left it). */
export function clipRing (ring: Xy[], box: Box): Xy[] {
  const [x0, y0, x1, y1] = box
  let pts = ring
  const edges: Array<[(p: Xy) => boolean, (a: Xy, b: Xy) => Xy]> = [
    [(p) => p[0] >= x0, (a, b) => [x0, a[1] + (b[1] - a[1]) * (x0 - a[0]) / (b[0] - a[0])]],
    [(p) => p[0] <= x1, (a, b) => [x1, a[1] + (b[1] - a[1]) * (x1 - a[0]) / (b[0] - a[0])]],
    [(p) => p[1] >= y0, (a, b) => [a[0] + (b[0] - a[0]) * (y0 - a[1]) / (b[1] - a[1]), y0]],
    [(p) => p[1] <= y1, (a, b) => [a[0] + (b[0] - a[0]) * (y1 - a[1]) / (b[1] - a[1]), y1]]
  ]
  for (const [inside, cross] of edges) {
    const out: Xy[] = []
    for (let i = 0; i < pts.length; i++) {
      const cur = pts[i]
      const prev = pts[(i + pts.length - 1) % pts.length]
      if (inside(cur)) { if (!inside(prev)) out.push(cross(prev, cur)); out.push(cur) } else if (inside(prev)) out.push(cross(prev, cur))
    }
    pts = out
    if (pts.length === 0) break
  }
  return pts
}

/**
 * The part of a geometry inside the box, as GeoServer labels it (the middle of a line's visible
 * part, the label point of a polygon's): lines cut into their runs inside, rings cut to the box
 * (a polygon whose outer ring is left with under three points goes); points as they are (one
 * outside has a label outside). Itself when it lies inside the box.
 */
export function visiblePart (g: PixelGeometry, box: Box): PixelGeometry {
  const inside = (p: Xy) => p[0] >= box[0] && p[0] <= box[2] && p[1] >= box[1] && p[1] <= box[3]
  if (g.lines.every((l) => l.every(inside)) && g.polygons.every((p) => p[0].every(inside))) return g
  const polygons: Xy[][][] = []
  for (const p of g.polygons) {
    const outer = clipRing(p[0], box)
    if (outer.length > 2) polygons.push([outer, ...p.slice(1).map((r) => clipRing(r, box)).filter((r) => r.length > 2)])
  }
  return { points: g.points, lines: g.lines.flatMap((l) => clipLine(l, box)), polygons }
}

/** The geometry simplified to `tolerance` pixels as PostGIS simplifies with preserveCollapsed
 *  (vector/simplify.ts): in the render thread, for the sources whose database does not. */
export function simplifyPixels (g: PixelGeometry, tolerance: number): PixelGeometry {
  return {
    points: g.points,
    lines: g.lines.map((l) => simplifyLine(l, tolerance)).filter((l): l is Xy[] => l !== undefined),
    polygons: g.polygons.map((p) => simplifyPolygon(p, tolerance)).filter((p): p is Xy[][] => p !== undefined)
  }
}

export function polygonArea (ring: Xy[]): number {
  let a = 0
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) a += (ring[j][0] + ring[i][0]) * (ring[j][1] - ring[i][1])
  return Math.abs(a / 2)
}

export function lineLength (l: Xy[]): number {
  let s = 0
  for (let i = 1; i < l.length; i++) s += Math.hypot(l[i][0] - l[i - 1][0], l[i][1] - l[i - 1][1])
  return s
}

/** The point at distance d along a line (clamped to its ends) and the direction there, radians. */
export function along (l: Xy[], d: number): { at: Xy, angle: number, segment: number } {
  let rest = Math.max(0, d)
  for (let i = 1; i < l.length; i++) {
    const dx = l[i][0] - l[i - 1][0]; const dy = l[i][1] - l[i - 1][1]
    const len = Math.hypot(dx, dy)
    if (len === 0) continue
    if (rest <= len || i === l.length - 1) {
      const t = Math.min(1, rest / len)
      return { at: [l[i - 1][0] + dx * t, l[i - 1][1] + dy * t], angle: Math.atan2(dy, dx), segment: i }
    }
    rest -= len
  }
  return { at: l[0], angle: 0, segment: 1 }
}

export function insidePolygon (p: Xy, rings: Xy[][]): boolean {
  let inside = false
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i]; const [xj, yj] = ring[j]
      if ((yi > p[1]) !== (yj > p[1]) && p[0] < (xj - xi) * (p[1] - yi) / (yj - yi) + xi) inside = !inside
    }
  }
  return inside
}

export function largestPolygon (polygons: Xy[][][]): Xy[][] | undefined {
  let best: Xy[][] | undefined; let area = -1
  for (const p of polygons) { const a = polygonArea(p[0]); if (a > area) { area = a; best = p } }
  return best
}

export function longestLine (lines: Xy[][]): Xy[] | undefined {
  let best: Xy[] | undefined; let len = -1
  for (const l of lines) { const s = lineLength(l); if (s > len) { len = s; best = l } }
  return best
}

/** Where a feature's label goes: the point, polylabel's pole of the largest polygon, the middle of the longest line. */
export function labelPoint (g: PixelGeometry): Xy | undefined {
  const polygon = largestPolygon(g.polygons)
  if (polygon) { const q = polylabel(polygon, 1); return [q[0], q[1]] }
  const line = longestLine(g.lines)
  if (line) return along(line, lineLength(line) / 2).at
  return g.points[0]
}

/**
 * Lines joined end to end where one ends where another starts or ends (within half a pixel), as
 * GeoServer networks the lines of a label group; at a junction of several, one continues.
 */
export function joinLines (lines: Xy[][]): Xy[][] {
  const key = (p: Xy) => `${Math.round(p[0] * 2)},${Math.round(p[1] * 2)}`
  const pool = lines.map((l) => [...l])
  const alive = pool.map(() => true)
  const ends = new Map<string, number[]>()
  const register = (i: number) => {
    for (const p of [pool[i][0], pool[i][pool[i].length - 1]]) { const k = key(p); const at = ends.get(k); if (at) at.push(i); else ends.set(k, [i]) }
  }
  pool.forEach((_, i) => register(i))
  for (let i = 0; i < pool.length; i++) {
    if (!alive[i]) continue
    for (let grew = true; grew;) {
      grew = false
      for (const atEnd of [true, false]) {
        const line = pool[i]
        const p = atEnd ? line[line.length - 1] : line[0]
        const j = ends.get(key(p))?.find((j) => j !== i && alive[j])
        if (j === undefined) continue
        let other = pool[j]
        if (atEnd) {
          if (key(other[0]) !== key(p)) other = [...other].reverse()
          pool[i] = [...line, ...other.slice(1)]
        } else {
          if (key(other[other.length - 1]) !== key(p)) other = [...other].reverse()
          pool[i] = [...other, ...line.slice(1)]
        }
        alive[j] = false
        register(i)
        grew = true
      }
    }
  }
  return pool.filter((_, i) => alive[i])
}
