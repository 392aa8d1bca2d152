// Where the target's pixels fall on a granule: the granule's full-resolution pixel column and row of
// each target pixel's centre. EPSG:4326 <-> EPSG:3857 is separable, so columns and rows are mapped
// once each; other CRSs go through proj4 per pixel.
import type { GranuleRef, RenderJob } from './mosaic-types.js'
import { axisTransform, isSeparable, pointTransform } from '../crs.js'

export interface Mapping {
  /** Source full-res pixel column per target column (separable) or per pixel (general); NaN outside. */
  cols: Float64Array
  rows: Float64Array
  separable: boolean
}

export function mapPixels (job: RenderJob, g: GranuleRef): Mapping {
  const { width: w, height: h } = job
  const [tx0, ty0, tx1, ty1] = job.bbox
  const [gx0, gy0, gx1, gy1] = g.bbox
  const rx = (gx1 - gx0) / g.width
  const ry = (gy1 - gy0) / g.height
  const dx = (tx1 - tx0) / w
  const dy = (ty1 - ty0) / h
  if (isSeparable(job.crs, g.crs)) {
    const t = axisTransform(job.crs, g.crs)
    const cols = new Float64Array(w)
    const rows = new Float64Array(h)
    for (let i = 0; i < w; i++) cols[i] = (t.x(tx0 + (i + 0.5) * dx) - gx0) / rx
    for (let j = 0; j < h; j++) rows[j] = (gy1 - t.y(ty1 - (j + 0.5) * dy)) / ry
    return { cols, rows, separable: true }
  }
  const f = pointTransform(job.crs, g.crs, job.proj4Defs)
  const cols = new Float64Array(w * h)
  const rows = new Float64Array(w * h)
  for (let j = 0; j < h; j++) {
    const y = ty1 - (j + 0.5) * dy
    for (let i = 0; i < w; i++) {
      const [sx, sy] = f(tx0 + (i + 0.5) * dx, y)
      cols[j * w + i] = (sx - gx0) / rx
      rows[j * w + i] = (gy1 - sy) / ry
    }
  }
  return { cols, rows, separable: false }
}

export function range (a: Float64Array, limit: number): [number, number] | undefined {
  let lo = Infinity; let hi = -Infinity
  for (let i = 0; i < a.length; i++) {
    const v = a[i]
    if (v >= 0 && v < limit) { if (v < lo) lo = v; if (v > hi) hi = v }
  }
  return lo === Infinity ? undefined : [lo, hi]
}

/** Source pixels per target pixel along x and y (mean spacing of the sample positions). */
export function sourceSpacing (m: Mapping, g: GranuleRef, cr: [number, number], rr: [number, number]): [number, number] {
  const coveredCols = m.separable ? countInside(m.cols, g.width) : Math.sqrt(countInside2(m, g))
  const coveredRows = m.separable ? countInside(m.rows, g.height) : coveredCols
  const spacing = (span: number, n: number) => (n > 1 ? span / (n - 1) : Infinity)
  return [spacing(cr[1] - cr[0], coveredCols), spacing(rr[1] - rr[0], coveredRows)]
}

function countInside (a: Float64Array, limit: number): number {
  let n = 0
  for (let i = 0; i < a.length; i++) if (a[i] >= 0 && a[i] < limit) n++
  return n
}

function countInside2 (m: Mapping, g: GranuleRef): number {
  let n = 0
  for (let i = 0; i < m.cols.length; i++) {
    if (m.cols[i] >= 0 && m.cols[i] < g.width && m.rows[i] >= 0 && m.rows[i] < g.height) n++
  }
  return n
}
