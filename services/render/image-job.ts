// A layer whose picture comes whole from elsewhere (a cascaded WMS layer: the remote's GetMap for
// the request's box and size, fetched on the event loop's thread by services/cascade): the encoded
// image travels to the worker, which decodes it to RGBA and composes it like any layer. A picture in
// another CRS than the map's (a cascaded WMTS layer's mosaic of remote tiles in the remote's CRS)
// carries `warp`: the worker reprojects it, each map pixel's centre taken to the source CRS
// (raster/pixel-map.ts, as a mosaic's granules are) and sampled bilinearly.
import sharp from 'sharp'
import { mapPixels } from './raster/pixel-map.js'
import type { GranuleRef, RenderJob } from './raster/mosaic-types.js'

/** Where an ImageJob's picture lies when it is not the map's box: its CRS and extent (pixel corners). */
export interface ImageWarp {
  /** The map's CRS and box (the picture is drawn into width x height of it). */
  crs: string
  bbox: [number, number, number, number]
  sourceCrs: string
  sourceBbox: [number, number, number, number]
  proj4Defs?: Record<string, string>
}

export interface ImageJob {
  kind: 'image'
  /** <workspace>:<layer>, for messages. */
  layer: string
  width: number
  height: number
  /** The encoded image (PNG, JPEG...), drawn at width x height. */
  data: Uint8Array
  /** The image is of another box or CRS: reprojected into the map's. */
  warp?: ImageWarp
}

export function isImageJob (job: object): job is ImageJob { return (job as { kind?: unknown }).kind === 'image' }

/** The image as straight-alpha RGBA of the job's size (a picture of another size is scaled to it). */
export async function drawImage (job: ImageJob): Promise<Uint8Array> {
  if (job.data.length === 0) return new Uint8Array(job.width * job.height * 4) // nothing there: transparent
  if (job.warp) return await warpImage(job, job.warp)
  let img = sharp(job.data).ensureAlpha()
  const meta = await sharp(job.data).metadata()
  if (meta.width !== job.width || meta.height !== job.height) img = img.resize(job.width, job.height, { fit: 'fill' })
  const raw = await img.raw().toBuffer()
  return new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength)
}

/**
 * The picture reprojected into the map: every map pixel's centre taken to the source CRS and sampled
 * bilinearly in the source image (premultiplied, so a transparent neighbour does not darken; outside
 * it, transparent). Straight-alpha RGBA of the job's size.
 */
async function warpImage (job: ImageJob, w: ImageWarp): Promise<Uint8Array> {
  const { data: src, info } = await sharp(job.data).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
  const sw = info.width
  const sh = info.height
  const target = { crs: w.crs, bbox: w.bbox, width: job.width, height: job.height, proj4Defs: w.proj4Defs } as RenderJob
  const m = mapPixels(target, { crs: w.sourceCrs, bbox: w.sourceBbox, width: sw, height: sh } as GranuleRef)
  const out = new Uint8Array(job.width * job.height * 4)
  const px = (x: number, y: number, c: number) => (x < 0 || y < 0 || x >= sw || y >= sh) ? 0 : src[(y * sw + x) * 4 + c]
  for (let j = 0; j < job.height; j++) {
    for (let i = 0; i < job.width; i++) {
      const k = j * job.width + i
      const col = m.separable ? m.cols[i] : m.cols[k]
      const row = m.separable ? m.rows[j] : m.rows[k]
      if (!Number.isFinite(col) || !Number.isFinite(row)) continue
      const fx = col - 0.5
      const fy = row - 0.5
      const x0 = Math.floor(fx)
      const y0 = Math.floor(fy)
      const wx = fx - x0
      const wy = fy - y0
      const w00 = (1 - wx) * (1 - wy); const w10 = wx * (1 - wy); const w01 = (1 - wx) * wy; const w11 = wx * wy
      const a00 = px(x0, y0, 3) * w00; const a10 = px(x0 + 1, y0, 3) * w10; const a01 = px(x0, y0 + 1, 3) * w01; const a11 = px(x0 + 1, y0 + 1, 3) * w11
      const a = a00 + a10 + a01 + a11
      if (a <= 0) continue
      const o = k * 4
      for (let c = 0; c < 3; c++) out[o + c] = Math.round((px(x0, y0, c) * a00 + px(x0 + 1, y0, c) * a10 + px(x0, y0 + 1, c) * a01 + px(x0 + 1, y0 + 1, c) * a11) / a)
      out[o + 3] = Math.round(a)
    }
  }
  return out
}
