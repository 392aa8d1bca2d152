// Renders a mosaic RenderJob to RGBA, in a Piscina worker or inline: a pure function of its
// payload (no app imports). For each granule it works out which of the target's pixels fall on it,
// reads only that window from the coarsest overview that still has at least the resolution the
// target needs, samples it (nearest neighbour), skips nodata, and draws later granules over
// earlier ones. EPSG:4326 <-> EPSG:3857 is separable, so columns and rows are mapped once each;
// other CRSs go through proj4 per pixel. The band values then go through applyRasterStyle.
import fs from 'node:fs'
import { fromFile, type GeoTIFF, type GeoTIFFImage } from 'geotiff'
import { applyRasterStyle } from './raster-style.js'
import type { BandData } from './render-types.js'
import type { GranuleRef, RenderJob, RenderResult } from './mosaic-types.js'
import { axisTransform, isSeparable, pointTransform } from './crs.js'

interface OpenTiff { tiff: GeoTIFF, images: GeoTIFFImage[], key: string }

// A few open files per worker thread: metatiles of one seed hit the same granules again and again.
const CACHE_SIZE = 16
const cache = new Map<string, Promise<OpenTiff>>()

async function openTiff (path: string): Promise<OpenTiff> {
  const st = await fs.promises.stat(path)
  const key = `${path}:${st.size}:${st.mtimeMs}`
  const hit = cache.get(path)
  if (hit) {
    const open = await hit.catch(() => undefined)
    if (open && open.key === key) {
      cache.delete(path)
      cache.set(path, hit) // most recently used last
      return open
    }
    cache.delete(path)
    if (open) await Promise.resolve(open.tiff.close()).catch(() => {})
  }
  const p = (async () => {
    const tiff = await fromFile(path)
    const count = await tiff.getImageCount()
    const images: GeoTIFFImage[] = []
    for (let i = 0; i < count; i++) images.push(await tiff.getImage(i))
    return { tiff, images, key }
  })()
  cache.set(path, p)
  while (cache.size > CACHE_SIZE) {
    const [oldest, old] = cache.entries().next().value as [string, Promise<OpenTiff>]
    cache.delete(oldest)
    old.then(async (o) => { await o.tiff.close() }).catch(() => {})
  }
  try { return await p } catch (err) { cache.delete(path); throw err }
}

/** Closes the files this thread holds open (tests, shutdown). */
export async function closeRenderCache (): Promise<void> {
  const all = [...cache.values()]
  cache.clear()
  for (const p of all) await p.then(async (o) => { await o.tiff.close() }).catch(() => {})
}

/** Images usable as overviews of the first one: same band count, smaller, not masks. */
function pyramid (images: GeoTIFFImage[]): GeoTIFFImage[] {
  const full = images[0]
  const out = [full]
  for (const im of images.slice(1)) {
    let sub = 0
    try { sub = Number(im.getFileDirectory().getValue('NewSubfileType') ?? 0) } catch { sub = 0 }
    if ((sub & 4) !== 0) continue // transparency mask
    if (im.getSamplesPerPixel() !== full.getSamplesPerPixel()) continue
    if (im.getWidth() >= full.getWidth()) continue
    out.push(im)
  }
  return out.sort((a, b) => b.getWidth() - a.getWidth())
}

interface Mapping {
  /** Source full-res pixel column per target column (separable) or per pixel (general); NaN outside. */
  cols: Float64Array
  rows: Float64Array
  separable: boolean
}

function mapPixels (job: RenderJob, g: GranuleRef): Mapping {
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

function range (a: Float64Array, limit: number): [number, number] | undefined {
  let lo = Infinity; let hi = -Infinity
  for (let i = 0; i < a.length; i++) {
    const v = a[i]
    if (v >= 0 && v < limit) { if (v < lo) lo = v; if (v > hi) hi = v }
  }
  return lo === Infinity ? undefined : [lo, hi]
}

async function drawGranule (job: RenderJob, g: GranuleRef, out: BandData): Promise<void> {
  const m = mapPixels(job, g)
  const cr = range(m.cols, g.width)
  const rr = range(m.rows, g.height)
  if (!cr || !rr) return
  const c0 = Math.floor(cr[0]); const c1 = Math.floor(cr[1]) + 1
  const r0 = Math.floor(rr[0]); const r1 = Math.floor(rr[1]) + 1
  // Source pixels per target pixel along each axis: pick the coarsest overview not coarser than that.
  const coveredCols = m.separable ? countInside(m.cols, g.width) : Math.sqrt(countInside2(m, g))
  const coveredRows = m.separable ? countInside(m.rows, g.height) : coveredCols
  const need = Math.min((c1 - c0) / Math.max(1, coveredCols), (r1 - r0) / Math.max(1, coveredRows))
  const { images } = await openTiff(g.path)
  const levels = pyramid(images)
  let image = levels[0]
  for (const im of levels) {
    const f = g.width / im.getWidth()
    if (f <= need * 1.0001) image = im
  }
  const fx = g.width / image.getWidth()
  const fy = g.height / image.getHeight()
  const wx0 = Math.max(0, Math.floor(c0 / fx))
  const wy0 = Math.max(0, Math.floor(r0 / fy))
  const wx1 = Math.min(image.getWidth(), Math.ceil(c1 / fx))
  const wy1 = Math.min(image.getHeight(), Math.ceil(r1 / fy))
  if (wx1 <= wx0 || wy1 <= wy0) return
  const nb = Math.min(out.bands.length, image.getSamplesPerPixel())
  const samples = Array.from({ length: nb }, (_, i) => i)
  const data = await image.readRasters({ window: [wx0, wy0, wx1, wy1], samples, interleave: false }) as unknown as ArrayLike<number>[]
  const ww = wx1 - wx0
  const nodata = g.nodata
  const nodataIsNaN = nodata !== null && Number.isNaN(nodata)
  const { width: w, height: h } = job
  const sample = (o: number, sc: number, sr: number) => {
    if (!(sc >= 0 && sc < g.width && sr >= 0 && sr < g.height)) return
    const px = Math.floor(sc / fx) - wx0
    const py = Math.floor(sr / fy) - wy0
    if (px < 0 || py < 0 || px >= ww || py >= wy1 - wy0) return
    const s = py * ww + px
    const first = data[0][s]
    if (nodata !== null && (nodataIsNaN ? Number.isNaN(first) : first === nodata)) return
    for (let b = 0; b < nb; b++) out.bands[b][o] = data[b][s]
    out.valid[o] = 1
  }
  if (m.separable) {
    for (let j = 0; j < h; j++) {
      const sr = m.rows[j]
      if (!(sr >= 0 && sr < g.height)) continue
      for (let i = 0; i < w; i++) sample(j * w + i, m.cols[i], sr)
    }
  } else {
    for (let o = 0; o < w * h; o++) sample(o, m.cols[o], m.rows[o])
  }
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

/** Band values of the job's area before styling. */
export async function renderBands (job: RenderJob): Promise<BandData> {
  const n = job.width * job.height
  const bandCount = Math.max(1, job.bands)
  const out: BandData = {
    width: job.width,
    height: job.height,
    bands: Array.from({ length: bandCount }, () => new Float32Array(n)),
    valid: new Uint8Array(n),
    ranges: job.ranges.length ? job.ranges : Array.from({ length: bandCount }, () => ({ min: 0, max: 255 }))
  }
  for (const g of job.granules) await drawGranule(job, g, out)
  return out
}

export async function renderMosaic (job: RenderJob): Promise<RenderResult> {
  const bands = await renderBands(job)
  return { width: job.width, height: job.height, rgba: applyRasterStyle(bands, job.style) }
}

export default renderMosaic
