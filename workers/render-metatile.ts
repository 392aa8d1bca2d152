// Piscina worker: renders one metatile (by default 4x4 tiles) with the mosaic renderer, cuts it
// into tiles, encodes them and writes them to the blob store paths it is given (temp file and
// rename), so granules are read once per metatile and the tiles' bytes never reach the event loop
// (where they fed the garbage collector's pauses). Everything it needs travels in the payload;
// back go the sizes written, or the code of a failed write (ENOSPC), which a thrown error would
// lose on its way between threads. workerData brings the thread's nice value and the fault points
// (the crash harness).
//
// PNG settings (measured on the bench imagery, a noisy 256x256 RGB tile): adaptive row filtering
// with zlib level 2: 127 KB in 15.5 ms, against 168 KB in 16 ms for sharp's defaults (level 6, no
// filtering) and the same 127 KB in 20 ms at level 6 with filtering; filtering is what shrinks
// noisy imagery, higher zlib levels only cost time. Opaque tiles are written as RGB (a quarter
// fewer bytes to filter and deflate); fully transparent tiles are one constant PNG.
import './thread-priority.js' // first: before sharp starts libvips' threads, which inherit it
import sharp from 'sharp'
import { readFile } from 'node:fs/promises'
import { workerData } from 'node:worker_threads'
import { GRANULE_DAMAGED, renderMosaic } from './render-mosaic.js'
import type { RenderJob } from './mosaic-types.js'
import { writeTileFile, type TileWrite } from '../services/seed/tile-files.js'
import type { TileFormat } from '../services/seed/formats.js'
import { createFaults, killProcessAt, type FaultRule } from '../services/faults.js'

const fault = createFaults((workerData as { faultKillAt?: FaultRule[] } | undefined)?.faultKillAt, killProcessAt)

sharp.concurrency(1) // one libvips thread per worker: the pool is the parallelism
sharp.cache(false)

export type EncodeFormat = TileFormat
/** JPEG and WebP quality unless the payload names one (MAPWARDEN_JPEG_QUALITY). */
export const DEFAULT_QUALITY = 80
export interface PngOptions { compressionLevel: number, adaptiveFiltering: boolean }
export const PNG_OPTIONS: PngOptions = { compressionLevel: 2, adaptiveFiltering: true }

export interface MetatilePayload {
  /** The RenderJob from app.mosaics.prepareRender for the metatile's box and size. */
  job: RenderJob
  cols: number
  rows: number
  tileSize: number
  format: EncodeFormat
  png?: PngOptions
  /** JPEG quality (1-100), also of the JPEG tiles of image/vnd.jpeg-png and of WebP. */
  quality?: number
  /** Where the tiles go: one path per tile in image order (top-left first, row by row). */
  target: { tmpDir: string, paths: string[] }
}
/**
 * The tiles written (a prefix of the paths, all of them unless a write failed) and the failure;
 * `granuleGone`: a granule file of the job no longer exists (its mosaic was replaced or its
 * granules deleted after the job was planned), nothing was written; `damaged`: a granule's data
 * cannot be decoded, nothing was written.
 */
export interface MetatileResult {
  writes: TileWrite[]
  failed?: { code?: string, message: string }
  granuleGone?: boolean
  /** A granule whose data cannot be decoded (nothing was written). */
  damaged?: { path: string, reason: string }
}

const emptyCache = new Map<number, Promise<Buffer>>()
function emptyPng (size: number): Promise<Buffer> {
  let p = emptyCache.get(size)
  if (!p) {
    p = sharp({ create: { width: size, height: size, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png({ compressionLevel: 9 }).toBuffer()
    emptyCache.set(size, p)
  }
  return p
}

/**
 * Cuts a metatile image (cols x rows tiles, row 0 = top) and encodes its tiles, top-left first,
 * row by row. libvips cuts each tile out of the one metatile buffer (no copies in JavaScript; a pipeline per
 * tile is cheaper than sharp's clone()) and drops the alpha band of opaque tiles.
 */
export async function cutAndEncode (rgba: Uint8Array, cols: number, rows: number, size: number, format: EncodeFormat, png: PngOptions = PNG_OPTIONS, quality = DEFAULT_QUALITY): Promise<Buffer[]> {
  const width = cols * size
  const raw = { raw: { width, height: rows * size, channels: 4 as const } }
  // All tiles in flight at once: sharp encodes on libuv's pool, overlapping the next render.
  const jobs: Array<Promise<Buffer>> = []
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let opaque = true
      let empty = true
      for (let y = 0; y < size && (opaque || empty); y++) {
        const from = ((r * size + y) * width + c * size) * 4 + 3
        const to = from + size * 4
        for (let i = from; i < to; i += 4) {
          const a = rgba[i]
          if (a !== 255) opaque = false
          if (a !== 0) empty = false
        }
      }
      // Formats with transparency write a fully transparent tile as one constant PNG.
      if (empty && format !== 'image/jpeg' && format !== 'image/webp') { jobs.push(emptyPng(size)); continue }
      let img = sharp(rgba, raw).extract({ left: c * size, top: r * size, width: size, height: size })
      // image/vnd.jpeg-png: JPEG where the tile is opaque (smaller), PNG where it is not (as GeoServer).
      const as = format === 'image/vnd.jpeg-png' ? (opaque ? 'image/jpeg' : 'image/png') : format
      if (as === 'image/png') img = opaque ? img.removeAlpha().png(png) : img.png(png)
      // Paletted: libimagequant, 256 colours with alpha, low effort (seeding speed), no dithering
      // (its noise defeats deflate: 20 KB against 2 KB undithered on a smooth test tile).
      else if (as === 'image/png8') img = img.png({ palette: true, colours: 256, effort: 1, dither: 0, compressionLevel: png.compressionLevel })
      else if (as === 'image/jpeg') img = img.flatten({ background: '#ffffff' }).jpeg({ quality })
      else img = img.webp({ quality, effort: 2 })
      jobs.push(img.toBuffer())
    }
  }
  return Promise.all(jobs)
}

export async function renderMetatile (p: MetatilePayload): Promise<MetatileResult> {
  let img
  try { img = await renderMosaic(p.job) } catch (err) {
    const e = err as NodeJS.ErrnoException & { granule?: string }
    if (e.code === 'ENOENT') return { writes: [], granuleGone: true }
    if (e.code === GRANULE_DAMAGED) return { writes: [], damaged: { path: e.granule!, reason: e.message } }
    throw err
  }
  if (img.width !== p.cols * p.tileSize || img.height !== p.rows * p.tileSize) {
    throw new Error(`renderer returned ${img.width}x${img.height}, expected ${p.cols * p.tileSize}x${p.rows * p.tileSize}`)
  }
  return writeTiles(await cutAndEncode(img.rgba, p.cols, p.rows, p.tileSize, p.format, p.png, p.quality), p.target)
}

/** Writes encoded tiles to their paths (temp file and rename each); a failed write ends the list. */
function writeTiles (tiles: Buffer[], target: MetatilePayload['target']): MetatileResult {
  if (tiles.length !== target.paths.length) throw new Error(`${tiles.length} tiles rendered for ${target.paths.length} paths`)
  const writes: TileWrite[] = []
  try {
    tiles.forEach((data, i) => { writes.push(writeTileFile(target.tmpDir, target.paths[i], data, fault)) })
    return { writes }
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    return { writes, failed: { code: e.code, message: e.message } }
  }
}

/** A metatile of a pyramid level: its tiles' children (2 cols x 2 rows each, image order; a missing file is transparent). */
export interface PyramidPayload extends Omit<MetatilePayload, 'job'> { children: string[] }

/**
 * The image of a metatile drawn from the tiles of the level below: the children decoded into one
 * image twice the size, then each 2x2 block averaged with its alpha as weight (premultiplied), so
 * transparent edges do not darken and the result is the box filter gdal2tiles' "average" uses.
 */
export async function childrenImage (children: string[], cols: number, rows: number, size: number): Promise<Uint8Array> {
  const w = 2 * cols * size
  const h = 2 * rows * size
  const big = new Uint8Array(w * h * 4)
  await Promise.all(children.map(async (file, i) => {
    let bytes: Buffer
    try { bytes = await readFile(file) } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return // no data there: transparent
      throw err
    }
    const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
    if (info.width !== size || info.height !== size) throw new Error(`${file} is ${info.width}x${info.height}, not ${size}x${size}`)
    const x0 = (i % (2 * cols)) * size
    const y0 = Math.floor(i / (2 * cols)) * size
    for (let y = 0; y < size; y++) big.set(data.subarray(y * size * 4, (y + 1) * size * 4), ((y0 + y) * w + x0) * 4)
  }))
  const W = w / 2
  const H = h / 2
  const out = new Uint8Array(W * H * 4)
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i00 = ((2 * y) * w + 2 * x) * 4
      const i01 = i00 + 4
      const i10 = i00 + w * 4
      const i11 = i10 + 4
      const a = big[i00 + 3] + big[i01 + 3] + big[i10 + 3] + big[i11 + 3]
      if (a === 0) continue
      const o = (y * W + x) * 4
      for (let c = 0; c < 3; c++) {
        out[o + c] = Math.round((big[i00 + c] * big[i00 + 3] + big[i01 + c] * big[i01 + 3] + big[i10 + c] * big[i10 + 3] + big[i11 + c] * big[i11 + 3]) / a)
      }
      out[o + 3] = Math.round(a / 4)
    }
  }
  return out
}

/** Piscina task: a pyramid metatile, drawn from the tiles of the level below and written like any. */
export async function pyramidMetatile (p: PyramidPayload): Promise<MetatileResult> {
  const rgba = await childrenImage(p.children, p.cols, p.rows, p.tileSize)
  return writeTiles(await cutAndEncode(rgba, p.cols, p.rows, p.tileSize, p.format, p.png, p.quality), p.target)
}

/** Bench only: encodes `count` copies of one tile, as a 1x1 metatile (the sharp encode ceiling). */
export async function encodeLoop (p: { rgba: Uint8Array, size: number, count: number, format: EncodeFormat, png?: PngOptions, quality?: number }) {
  let bytes = 0
  for (let i = 0; i < p.count; i++) bytes += (await cutAndEncode(p.rgba, 1, 1, p.size, p.format, p.png, p.quality))[0].length
  return bytes
}

// The WMS's tasks run on the same pool (this is its entry file).
export { renderMap, pixelValues, exceptionImage } from './render-map.js'
