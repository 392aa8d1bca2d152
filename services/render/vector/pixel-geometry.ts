// Geometries in pixels (y down) as the vector renderer draws and labels them, and the measures the
// labeller needs: areas, lengths, the point and angle at a distance along a line, point in polygon,
// and where a feature's label goes.
import polylabel from 'polylabel'
import { simplifyLine, simplifyPolygon } from '../../vector/simplify.js'

export type Xy = [number, number]
export interface PixelGeometry { points: Xy[], lines: Xy[][], polygons: Xy[][][] }

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
