// Geometries simplified to a map's pixel where the database does not (GeoPackage and shapefile
// sources: in the render thread as their geometries become pixels, render/vector/pixel-geometry.ts
// simplifyPixels; PostGIS runs ST_RemoveRepeatedPoints(ST_Simplify(g, tolerance, true)) itself): the
// same rules as PostGIS' lwgeom_simplify with preserveCollapsed, so every source draws alike.
// Douglas-Peucker on x,y (z and m ride along): a line keeps at least its two ends, a polygon's
// outer ring at least four points (a triangle, closed), so a feature smaller than the tolerance stays
// visible instead of vanishing; a hole or a polygon of a multi-polygon that collapses is dropped, as
// PostGIS drops them. Then repeated consecutive points are removed (ST_RemoveRepeatedPoints).
import { InvalidFeatureQuery } from '../errors.js'
import type { ReadQuery } from './source.js'

type Position = ArrayLike<number>

/**
 * Which points Douglas-Peucker keeps at `tolerance` (points further than it from the simplified
 * line): a mask, the ends always kept; while fewer than `minPoints` are kept the farthest point of
 * a segment is kept whatever its distance (PostGIS' ptarray_simplify_in_place).
 */
export function douglasPeucker (pts: ArrayLike<ArrayLike<number>>, tolerance: number, minPoints = 2): Uint8Array {
  const n = pts.length
  const keep = new Uint8Array(n)
  if (n === 0) return keep
  keep[0] = 1
  keep[n - 1] = 1
  let kept = n > 1 ? 2 : 1
  const stack: Array<[number, number]> = [[0, n - 1]]
  const t2 = tolerance * tolerance
  while (stack.length > 0) {
    const [a, b] = stack.pop()!
    let far = -1
    let best = -1
    const ax = pts[a][0]; const ay = pts[a][1]
    const dx = pts[b][0] - ax
    const dy = pts[b][1] - ay
    const len = dx * dx + dy * dy
    for (let i = a + 1; i < b; i++) {
      const px = pts[i][0] - ax
      const py = pts[i][1] - ay
      const t = len === 0 ? 0 : Math.max(0, Math.min(1, (px * dx + py * dy) / len))
      const d = (px - t * dx) ** 2 + (py - t * dy) ** 2
      if (d > best) { best = d; far = i }
    }
    if (far >= 0 && (best > t2 || kept < minPoints)) { keep[far] = 1; kept++; stack.push([a, far], [far, b]) }
  }
  return keep
}

/** The points kept, without repeated consecutive ones. */
function simplifyPoints<P extends Position> (pts: P[], tolerance: number, minPoints: number): P[] {
  const keep = douglasPeucker(pts, tolerance, minPoints)
  const out: P[] = []
  for (let i = 0; i < pts.length; i++) {
    if (!keep[i]) continue
    const last = out[out.length - 1]
    if (!last || last[0] !== pts[i][0] || last[1] !== pts[i][1]) out.push(pts[i])
  }
  return out
}

/** A line simplified; undefined when it collapsed to one point. */
export function simplifyLine<P extends Position> (pts: P[], tolerance: number): P[] | undefined {
  const out = simplifyPoints(pts, tolerance, 2)
  return out.length >= 2 ? out : undefined
}

/** A polygon's closed rings simplified: the outer ring keeps a closed triangle, a collapsed hole is dropped. */
export function simplifyPolygon<P extends Position> (rings: P[][], tolerance: number): P[][] | undefined {
  const out: P[][] = []
  for (let i = 0; i < rings.length; i++) {
    const r = simplifyPoints(rings[i], tolerance, i === 0 ? 4 : 0)
    if (r.length >= 4) out.push(r)
    else if (i === 0) return undefined // the outer ring collapsed: the polygon is gone
  }
  return out
}

/** A read's simplification tolerance, checked (every source refuses the same bad ones); undefined or 0: none. */
export function toleranceOf (q: Pick<ReadQuery, 'simplify'>): number | undefined {
  if (q.simplify !== undefined && !(Number.isFinite(q.simplify) && q.simplify >= 0)) throw InvalidFeatureQuery(`simplification tolerance must be a number of at least 0: ${q.simplify}`)
  return q.simplify || undefined
}
