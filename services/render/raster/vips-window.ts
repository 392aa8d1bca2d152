// The fast path for plain 8-bit TIFFs (unsigned, chunky, grey or RGB, uncompressed/LZW/DEFLATE):
// libvips (sharp) decodes the window a render needs, several times faster than geotiff.js.
import sharp from 'sharp'
import type { GeoTIFFImage } from 'geotiff'
import type { BandData } from '../render-types.js'
import type { GranuleRef, RenderJob } from './mosaic-types.js'
import type { Mapping } from './pixel-map.js'

const vipsChecked = new Map<string, boolean>()
let vipsOn = true
/** Tests only: read every file through geotiff.js (the reference the libvips path must match). */
export function useLibvips (on: boolean): void { vipsOn = on }
/** Whether libvips reads this image's samples unchanged (no colour conversion, lossless codec). */
export function vipsReadable (path: string, image: GeoTIFFImage): boolean {
  if (!vipsOn || vipsChecked.get(path) === false) return false
  const fd = image.getFileDirectory()
  const value = (tag: string, dflt: number) => { try { return Number(fd.getValue(tag as any) ?? dflt) } catch { return dflt } }
  const spp = image.getSamplesPerPixel()
  for (let b = 0; b < spp; b++) if (image.getBitsPerSample(b) !== 8 || image.getSampleFormat(b) !== 1) return false
  const photometric = value('PhotometricInterpretation', -1)
  const compression = value('Compression', 1)
  return image.planarConfiguration !== 2 && (photometric === 1 || (photometric === 2 && spp >= 3)) &&
    [1, 5, 8, 32946].includes(compression)
}

/** Bytes of decoded window read per libvips call (bounds the window held in memory). */
const WINDOW_BYTES = 4 * 2 ** 20
/** Source rows per libvips call when decimating (decimateWithVips). */
const STRIP_ROWS = 512

/**
 * Separable nearest-neighbour sampling of a plain 8-bit TIFF through libvips: the window of source
 * columns and rows the target needs is decoded in one call (several when it is large).
 * Returns false (nothing drawn) when libvips does not give the file's samples as they are.
 */
export async function drawWindow (job: RenderJob, g: GranuleRef, m: Mapping, image: GeoTIFFImage, out: BandData): Promise<boolean> {
  const { width: w, height: h } = job
  const iw = image.getWidth()
  const ih = image.getHeight()
  const fx = g.width / iw
  const fy = g.height / ih
  const spp = image.getSamplesPerPixel()
  const nb = Math.min(out.bands.length, spp)
  const bands = out.bands
  const valid = out.valid
  const nodata = g.nodata
  const checkNodata = nodata !== null && !Number.isNaN(nodata)
  const px = new Int32Array(w)
  let x0 = Infinity
  let x1 = -1
  for (let i = 0; i < w; i++) {
    const v = m.cols[i]
    const x = v >= 0 && v < g.width ? Math.min(iw - 1, Math.floor(v / fx)) : -1
    px[i] = x
    if (x >= 0) { if (x < x0) x0 = x; if (x > x1) x1 = x }
  }
  if (x1 < 0) return true
  const ww = x1 - x0 + 1
  for (let i = 0; i < w; i++) if (px[i] >= 0) px[i] = (px[i] - x0) * spp
  // The source rows the target needs, read in windows of up to `rows` rows from the first of them:
  // usually one call per render, so no source tile is decoded twice.
  const pys = new Int32Array(h)
  let y0 = Infinity
  let y1 = -1
  for (let j = 0; j < h; j++) {
    const v = m.rows[j]
    const py = v >= 0 && v < g.height ? Math.min(ih - 1, Math.floor(v / fy)) : -1
    pys[j] = py
    if (py >= 0) { if (py < y0) y0 = py; if (py > y1) y1 = py }
  }
  if (y1 < 0) return true
  // The target columns this granule covers, when they are one run: a target row that samples the
  // same source row as the row above (an enlarged level) is then a copy of that run.
  let i0 = -1
  let i1 = -1
  for (let i = 0; i < w; i++) if (px[i] >= 0) { if (i0 < 0) i0 = i; i1 = i }
  let run = !checkNodata
  for (let i = i0; run && i <= i1; i++) if (px[i] < 0) run = false
  const rows = Math.max(1, Math.floor(WINDOW_BYTES / (ww * spp)))
  let top = -1
  let win: Buffer | undefined
  for (let j = 0; j < h; j++) {
    const py = pys[j]
    if (py < 0) continue
    const at = y0 + Math.floor((py - y0) / rows) * rows
    if (at !== top) {
      top = at
      const { data, info } = await sharp(g.path, { limitInputPixels: false })
        .extract({ left: x0, top, width: ww, height: Math.min(rows, y1 - top + 1) })
        .raw().toBuffer({ resolveWithObject: true })
      if (info.channels !== spp) { vipsChecked.set(g.path, false); return false }
      vipsChecked.set(g.path, true)
      win = data
    }
    const o0 = j * w
    if (run && j > 0 && pys[j - 1] === py) {
      for (let b = 0; b < nb; b++) bands[b].copyWithin(o0 + i0, o0 - w + i0, o0 - w + i1 + 1)
      valid.fill(1, o0 + i0, o0 + i1 + 1)
      continue
    }
    const rowBase = (py - top) * ww * spp
    const src = win!
    if (nb === 3 && !checkNodata) {
      const b0 = bands[0]; const b1 = bands[1]; const b2 = bands[2]
      for (let i = 0; i < w; i++) {
        const x = px[i]
        if (x < 0) continue
        const k = rowBase + x
        const o = o0 + i
        b0[o] = src[k]; b1[o] = src[k + 1]; b2[o] = src[k + 2]; valid[o] = 1
      }
      continue
    }
    for (let i = 0; i < w; i++) {
      const x = px[i]
      if (x < 0) continue
      const k = rowBase + x
      if (checkNodata && src[k] === nodata) continue
      const o = o0 + i
      for (let b = 0; b < nb; b++) bands[b][o] = src[k + b]
      valid[o] = 1
    }
  }
  return true
}

/**
 * Every `factor`-th pixel of every `factor`-th row of a plain 8-bit TIFF's first image (pixel
 * (x * factor, y * factor) of the source at (x, y)), decoded by libvips in strips of full rows;
 * undefined when libvips does not give the file's samples as they are.
 */
export async function decimateWithVips (path: string, image: GeoTIFFImage, factor: number): Promise<{ width: number, height: number, spp: number, data: Uint8Array } | undefined> {
  const iw = image.getWidth()
  const ih = image.getHeight()
  const spp = image.getSamplesPerPixel()
  const sw = Math.ceil(iw / factor)
  const sh = Math.ceil(ih / factor)
  const data = new Uint8Array(sw * sh * spp)
  const rows = Math.ceil(STRIP_ROWS / factor) * factor
  for (let top = 0; top < ih; top += rows) {
    const { data: strip, info } = await sharp(path, { limitInputPixels: false })
      .extract({ left: 0, top, width: iw, height: Math.min(rows, ih - top) })
      .raw().toBuffer({ resolveWithObject: true })
    if (info.channels !== spp) { vipsChecked.set(path, false); return undefined }
    for (let y = top; y < top + info.height; y += factor) {
      const from = (y - top) * iw * spp
      let o = (y / factor) * sw * spp
      for (let x = 0; x < iw; x += factor) {
        const k = from + x * spp
        for (let b = 0; b < spp; b++) data[o++] = strip[k + b]
      }
    }
  }
  return { width: sw, height: sh, spp, data }
}

/** Forgets which files libvips was found to read unchanged. */
export function clearVipsChecks (): void { vipsChecked.clear() }
