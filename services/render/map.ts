// The WMS's images (services/wms): a GetMap image, the pixel values under a GetFeatureInfo point,
// and the INIMAGE/BLANK exception images, drawn with the mosaic renderer (render-mosaic.ts). The
// render pool runs them through workers/render-map.ts.
//
// Bounded memory: a map is rendered in horizontal strips of at most STRIP_PIXELS pixels, layer by
// layer, and composited into the one RGBA buffer of the answer; the renderer's per-pixel arrays
// (band values, source coordinates) never exceed one strip, whatever WIDTH x HEIGHT is.
import sharp from 'sharp'
import { renderBands, renderFailure, renderMosaic, type RenderFailure } from './raster/render-mosaic.js'
import type { RenderJob } from './raster/mosaic-types.js'
import { drawVector, type VectorJob } from './vector/draw-vector.js'
import { drawImage, isImageJob, type ImageJob } from './image-job.js'
import { over } from './composite.js'

/** Pixels of one strip: 1024 x 1024 (4 MiB of RGBA, 16 MiB of source coordinates when reprojecting). */
export const STRIP_PIXELS = 1024 * 1024

export type MapFormat = 'image/png' | 'image/png8' | 'image/jpeg' | 'image/webp'

export interface MapPayload {
  /** One job per layer, drawing order, each for the whole map's bbox and size: a raster layer's
   *  render plan, or a vector layer's features and style (vector/draw-vector.ts). */
  jobs: Array<RenderJob | VectorJob | ImageJob>
  width: number
  height: number
  format: MapFormat
  transparent: boolean
  /** Background colour [r, g, b] (BGCOLOR; white by default). */
  bgcolor: [number, number, number]
  /** Rows per strip; default: as many as fit in STRIP_PIXELS. Tests set it to prove the seams. */
  stripRows?: number
}

/** The encoded image (in an ArrayBuffer of its own, which a worker moves to the event loop's thread), or why nothing was drawn. */
export type MapResult = Uint8Array | RenderFailure

export function isVectorJob (job: RenderJob | VectorJob | ImageJob): job is VectorJob {
  return (job as VectorJob).kind === 'vector'
}

/** The job restricted to rows [r0, r1) of its image: same columns, the bbox cut at those rows. */
export function stripOf (job: RenderJob, r0: number, r1: number): RenderJob {
  const [x0, y0, x1, y1] = job.bbox
  const dy = (y1 - y0) / job.height
  return { ...job, bbox: [x0, y1 - r1 * dy, x1, y1 - r0 * dy], height: r1 - r0 }
}

async function catching<T> (fn: () => Promise<T>): Promise<T | RenderFailure> {
  try { return await fn() } catch (err) {
    const failure = renderFailure(err)
    if (failure) return failure
    throw err
  }
}

export async function encodeMap (rgba: Uint8Array, width: number, height: number, format: MapFormat, transparent: boolean,
  bgcolor: [number, number, number]): Promise<Buffer> {
  let img = sharp(rgba, { raw: { width, height, channels: 4 } })
  const background = { r: bgcolor[0], g: bgcolor[1], b: bgcolor[2] }
  if (format === 'image/jpeg' || !transparent) img = img.flatten({ background })
  if (format === 'image/jpeg') return img.jpeg({ quality: 80 }).toBuffer()
  if (format === 'image/webp') return img.webp({ quality: 80, effort: 2 }).toBuffer()
  if (format === 'image/png8') return img.png({ palette: true, colours: 256, effort: 3 }).toBuffer()
  return img.png({ compressionLevel: 2, adaptiveFiltering: true }).toBuffer()
}

export async function drawMap (p: MapPayload): Promise<MapResult> {
  const { width, height } = p
  const out = await catching(async () => {
    const rgba = new Uint8Array(width * height * 4)
    const rows = Math.max(1, Math.min(height, p.stripRows ?? Math.floor(STRIP_PIXELS / width)))
    // A whole-map layer drawn first is the map as it is (nothing under it to blend with): copied,
    // not composited pixel by pixel (12 ms of a 1024x768 vector map).
    let blank = true
    const whole = (layer: Uint8Array) => { if (blank) rgba.set(layer); else over(rgba, 0, layer); blank = false }
    // Layer by layer, in order: a raster layer in strips, a vector layer as one SVG drawn whole.
    for (const job of p.jobs) {
      if (isVectorJob(job)) { const img = await drawVector(job); if (img) whole(img); continue }
      if (isImageJob(job)) { whole(await drawImage(job)); continue }
      if (job.granules.length === 0) continue
      for (let r0 = 0; r0 < height; r0 += rows) {
        const strip = await renderMosaic(stripOf(job, r0, Math.min(height, r0 + rows)))
        over(rgba, r0 * width * 4, strip.rgba)
      }
      blank = false
    }
    return rgba
  })
  if (!(out instanceof Uint8Array)) return out
  const data = await encodeMap(out, width, height, p.format, p.transparent, p.bgcolor)
  return transferable(data)
}

/**
 * The encoded bytes in an ArrayBuffer of their own, which can be moved to the event loop's thread:
 * on Node 24 sharp's output Buffers are backed by external memory, which postMessage cannot
 * transfer (DataCloneError); one copy of an encoded map is cheap.
 */
function transferable (data: Buffer): Uint8Array {
  const out = new Uint8Array(data.byteLength)
  out.set(data)
  return out
}

export interface PixelResult {
  /** Band values at the point, one per band of the coverage; absent where no granule has data. */
  values?: number[]
  granuleGone?: boolean
  damaged?: { path: string, reason: string }
}

/** The band values of the one-pixel job (the footprint of the GetFeatureInfo pixel). */
export async function pixelValues (job: RenderJob): Promise<PixelResult> {
  if (job.width !== 1 || job.height !== 1) throw new Error('pixelValues needs a 1x1 job')
  const out = await catching(() => renderBands(job))
  if (!('bands' in out)) return out as PixelResult
  if (out.valid[0] === 0) return {}
  return { values: out.bands.map((b) => Number(b[0])) }
}

const escapeSvg = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)

export interface ExceptionImagePayload {
  width: number
  height: number
  format: MapFormat
  transparent: boolean
  bgcolor: [number, number, number]
  /** INIMAGE: the message written in the image; BLANK: none. */
  message?: string
}

/** EXCEPTIONS=INIMAGE (the message drawn in the map) or BLANK (an empty map). */
export async function drawExceptionImage (p: ExceptionImagePayload): Promise<Uint8Array> {
  const bg = p.transparent && p.format !== 'image/jpeg' ? { r: 0, g: 0, b: 0, alpha: 0 } : { r: p.bgcolor[0], g: p.bgcolor[1], b: p.bgcolor[2], alpha: 1 }
  let img = sharp({ create: { width: p.width, height: p.height, channels: 4, background: bg } })
  if (p.message) {
    const lines = p.message.match(/.{1,60}(\s|$)|\S+/g)?.slice(0, 20) ?? []
    const text = lines.map((l, i) => `<text x="4" y="${14 + i * 14}">${escapeSvg(l.trim())}</text>`).join('')
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${p.width}" height="${p.height}"><g font-family="sans-serif" font-size="12" fill="#000000">${text}</g></svg>`
    img = sharp(await img.png().toBuffer()).composite([{ input: Buffer.from(svg), top: 0, left: 0 }])
  }
  const raw = await img.ensureAlpha().raw().toBuffer()
  const data = await encodeMap(new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength), p.width, p.height, p.format, p.transparent, p.bgcolor)
  return transferable(data)
}
