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
  const tiles = await cutAndEncode(img.rgba, p.cols, p.rows, p.tileSize, p.format, p.png, p.quality)
  if (tiles.length !== p.target.paths.length) throw new Error(`${tiles.length} tiles rendered for ${p.target.paths.length} paths`)
  const writes: TileWrite[] = []
  try {
    tiles.forEach((data, i) => { writes.push(writeTileFile(p.target.tmpDir, p.target.paths[i], data, fault)) })
    return { writes }
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    return { writes, failed: { code: e.code, message: e.message } }
  }
}

/** Bench only: encodes `count` copies of one tile, as a 1x1 metatile (the sharp encode ceiling). */
export async function encodeLoop (p: { rgba: Uint8Array, size: number, count: number, format: EncodeFormat, png?: PngOptions, quality?: number }) {
  let bytes = 0
  for (let i = 0; i < p.count; i++) bytes += (await cutAndEncode(p.rgba, 1, 1, p.size, p.format, p.png, p.quality))[0].length
  return bytes
}

// The WMS's tasks run on the same pool (this is its entry file).
export { renderMap, pixelValues, exceptionImage } from './render-map.js'
