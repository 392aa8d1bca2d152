// Renders one metatile (by default 4x4 tiles) with the mosaic renderer, cuts it into tiles, encodes
// them and writes them to the blob store paths it is given (temp file and rename), so granules are
// read once per metatile and, run in a render worker, the tiles' bytes never reach the event loop
// (where they fed the garbage collector's pauses). Everything it needs travels in the payload; back
// go the sizes written, or the code of a failed write (ENOSPC), which a thrown error would lose on
// its way between threads.
import sharp from 'sharp'
import { readFile } from 'node:fs/promises'
import { createRenderScratch, renderFailure, renderMosaic, type RenderScratch } from './raster/render-mosaic.js'
import type { RenderJob } from './raster/mosaic-types.js'
import { writeTiles, type TileWrite } from './tile-files.js'
import { cutAndEncode, type EncodeFormat } from './tile-encode.js'
import { createFaults, killProcessAt, type FaultPoint, type FaultRule } from '../faults.js'
import { drawVector, type VectorJob } from './vector/draw-vector.js'
import { over } from './composite.js'
import { drawImage, isImageJob, type ImageJob } from './image-job.js'
import { encodeVectorTiles, type VectorTilesPlan } from './vector/vector-tiles.js'

/** What the render pool gives each render thread (render-pool.ts workerData). */
export interface RenderThreadData { nice?: number, faultKillAt?: FaultRule[] }

/** A render thread's fault points: the crash harness's rules kill the process. */
export function threadFaults (data: RenderThreadData | undefined): FaultPoint {
  return createFaults(data?.faultKillAt, killProcessAt)
}

export interface MetatilePayload {
  /** The RenderJob from app.mosaics.prepareRender for the metatile's box and size. */
  job: RenderJob
  cols: number
  rows: number
  tileSize: number
  format: EncodeFormat
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

/** This thread's render scratch not in use: one per metatile in hand at most (render-mosaic.ts). */
const idle: RenderScratch[] = []

export async function renderMetatile (p: MetatilePayload, fault: FaultPoint): Promise<MetatileResult> {
  const scratch = idle.pop() ?? createRenderScratch()
  try {
    let img
    try { img = await renderMosaic(p.job, scratch) } catch (err) {
      const failure = renderFailure(err)
      if (failure) return { writes: [], ...failure }
      throw err
    }
    if (img.width !== p.cols * p.tileSize || img.height !== p.rows * p.tileSize) {
      throw new Error(`renderer returned ${img.width}x${img.height}, expected ${p.cols * p.tileSize}x${p.rows * p.tileSize}`)
    }
    return writeTiles(await cutAndEncode(img.rgba, p.cols, p.rows, p.tileSize, p.format, p.quality), p.target, fault)
  } finally { idle.push(scratch) }
}

/** A metatile of a vector layer or a layer group's vector members: the jobs (vector/draw-vector.ts,
 *  or a raster render plan for a group's raster member) for the metatile's box and size, drawn in
 *  order over a transparent image, then cut and written as any metatile. */
export interface VectorMetatilePayload extends Omit<MetatilePayload, 'job'> { jobs: Array<RenderJob | VectorJob | ImageJob> }

export async function renderVectorMetatile (p: VectorMetatilePayload, fault: FaultPoint): Promise<MetatileResult> {
  const width = p.cols * p.tileSize
  const height = p.rows * p.tileSize
  const rgba = new Uint8Array(width * height * 4)
  // A vector layer drawn first is copied (nothing under it to blend with; librsvg leaves no colour
  // under a transparent pixel). Images and rasters are blended even first: a remote's image may
  // carry colour under alpha 0, which blending leaves out, so a cascaded tile equals the remote's.
  let blank = true
  const onto = (img: Uint8Array, copy = false) => { if (blank && copy) rgba.set(img); else over(rgba, 0, img); blank = false }
  for (const job of p.jobs) {
    if (job.width !== width || job.height !== height) throw new Error(`a ${job.width}x${job.height} job for a ${width}x${height} metatile`)
    if ((job as VectorJob).kind === 'vector') { const img = await drawVector(job as VectorJob); if (img) onto(img, true); continue }
    if (isImageJob(job as ImageJob)) { onto(await drawImage(job as ImageJob)); continue }
    if ((job as RenderJob).granules.length === 0) continue
    const scratch = idle.pop() ?? createRenderScratch()
    try {
      let img
      try { img = await renderMosaic(job as RenderJob, scratch) } catch (err) {
        const failure = renderFailure(err)
        if (failure) return { writes: [], ...failure }
        throw err
      }
      onto(img.rgba)
    } finally { idle.push(scratch) }
  }
  return writeTiles(await cutAndEncode(rgba, p.cols, p.rows, p.tileSize, p.format, p.quality), p.target, fault)
}

/** The vector tiles (MVT) of a request: one per target path, each encoded alone (vector/vector-tiles.ts). */
export interface VectorTilesPayload extends VectorTilesPlan { target: MetatilePayload['target'] }

export function renderVectorTiles (p: VectorTilesPayload, fault: FaultPoint): MetatileResult {
  return writeTiles(encodeVectorTiles(p), p.target, fault)
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

/** A pyramid metatile, drawn from the tiles of the level below and written like any. */
export async function pyramidMetatile (p: PyramidPayload, fault: FaultPoint): Promise<MetatileResult> {
  const rgba = await childrenImage(p.children, p.cols, p.rows, p.tileSize)
  return writeTiles(await cutAndEncode(rgba, p.cols, p.rows, p.tileSize, p.format, p.quality), p.target, fault)
}
