// Encoding the tiles of a metatile image. PNG tiles go through mapwarden's own encoder
// (png-encode.ts: one filter per tile, run-length deflate), at under half libpng's time with no
// more bytes on map imagery; libpng through sharp remains for paletted PNG and for the bench's
// ceiling at sharp's defaults. Opaque tiles are written as RGB (a quarter fewer bytes to filter and
// deflate); fully transparent tiles are one constant PNG, and a PNG tile of one colour (the sea or
// the inside of a country at a vector layer's deeper zooms) is encoded once per colour and reused.
import os from 'node:os'
import sharp from 'sharp'
import { encodePng } from './png-encode.js'

/** The image formats a tile can be encoded in (the tile cache's formats, services/tilecache/formats.ts, are these). */
export type EncodeFormat = 'image/png' | 'image/png8' | 'image/jpeg' | 'image/webp' | 'image/vnd.jpeg-png'
/** JPEG and WebP quality unless the payload names one (MAPWARDEN_JPEG_QUALITY). */
export const DEFAULT_QUALITY = 80
/** libpng's settings through sharp, instead of mapwarden's encoder (the bench's ceiling). */
export interface PngOptions { compressionLevel: number, adaptiveFiltering: boolean }

const emptyCache = new Map<number, Promise<Buffer>>()
function emptyPng (size: number): Promise<Buffer> {
  let p = emptyCache.get(size)
  if (!p) {
    p = sharp({ create: { width: size, height: size, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png({ compressionLevel: 9 }).toBuffer()
    emptyCache.set(size, p)
  }
  return p
}

/** The PNG of a tile of one colour (`pixel`: RGBA as a little-endian word), by size and colour;
 *  a few hundred of them at most (a layer's fills, their blends), forgotten past that. */
const solidCache = new Map<string, Promise<Buffer>>()
const SOLID_CACHE_SIZE = 256
function solidPng (size: number, pixel: number, opaque: boolean): Promise<Buffer> {
  const key = `${size}:${pixel}`
  let p = solidCache.get(key)
  if (!p) {
    const img = new Int32Array(size * size).fill(pixel)
    p = encodePng(new Uint8Array(img.buffer), size, 0, 0, size, size, !opaque)
    if (solidCache.size >= SOLID_CACHE_SIZE) solidCache.clear()
    solidCache.set(key, p)
  }
  return p
}
const LITTLE_ENDIAN = os.endianness() === 'LE'

/**
 * Cuts a metatile image (cols x rows tiles, row 0 = top) and encodes its tiles, top-left first,
 * row by row. libvips cuts each tile out of the one metatile buffer (no copies in JavaScript; a pipeline per
 * tile is cheaper than sharp's clone()) and drops the alpha band of opaque tiles.
 */
export async function cutAndEncode (rgba: Uint8Array, cols: number, rows: number, size: number, format: EncodeFormat, quality = DEFAULT_QUALITY, png?: PngOptions): Promise<Buffer[]> {
  const width = cols * size
  const raw = { raw: { width, height: rows * size, channels: 4 as const } }
  // All tiles in flight at once: sharp encodes on libuv's pool, overlapping the next render.
  const jobs: Array<Promise<Buffer>> = []
  // The pixels as words where the host allows it: a tile of one colour is found in the same pass.
  const words = LITTLE_ENDIAN && rgba.byteOffset % 4 === 0 ? new Int32Array(rgba.buffer, rgba.byteOffset, rgba.length >> 2) : undefined
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let opaque = true
      let empty = true
      let solid = words !== undefined
      const first = words ? words[r * size * width + c * size] : 0
      for (let y = 0; y < size && (opaque || empty || solid); y++) {
        if (words) {
          const from = (r * size + y) * width + c * size
          const to = from + size
          for (let i = from; i < to; i++) {
            const w = words[i]
            if (w !== first) solid = false
            const a = w >>> 24
            if (a !== 255) opaque = false
            if (a !== 0) empty = false
          }
          continue
        }
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
      if (solid && !png && (format === 'image/png' || (format === 'image/vnd.jpeg-png' && !opaque))) { jobs.push(solidPng(size, first, opaque)); continue }
      // image/vnd.jpeg-png: JPEG where the tile is opaque (smaller), PNG where it is not (as GeoServer).
      const as = format === 'image/vnd.jpeg-png' ? (opaque ? 'image/jpeg' : 'image/png') : format
      if (as === 'image/png' && !png) { jobs.push(encodePng(rgba, width, c * size, r * size, size, size, !opaque)); continue }
      let img = sharp(rgba, raw).extract({ left: c * size, top: r * size, width: size, height: size })
      if (as === 'image/png') img = opaque ? img.removeAlpha().png(png) : img.png(png)
      // Paletted: libimagequant, 256 colours with alpha, low effort (seeding speed), no dithering
      // (its noise defeats deflate: 20 KB against 2 KB undithered on a smooth test tile).
      else if (as === 'image/png8') img = img.png({ palette: true, colours: 256, effort: 1, dither: 0, compressionLevel: 2 })
      // JPEG has no alpha: an opaque tile drops its band (the same bytes as flattening, a fifth
      // less time), others are laid on white.
      else if (as === 'image/jpeg') img = (opaque ? img.removeAlpha() : img.flatten({ background: '#ffffff' })).jpeg({ quality })
      else img = img.webp({ quality, effort: 2 })
      jobs.push(img.toBuffer())
    }
  }
  return Promise.all(jobs)
}

/** Bench only: encodes `count` copies of one tile, as a 1x1 metatile (the sharp encode ceiling). */
export async function encodeLoop (p: { rgba: Uint8Array, size: number, count: number, format: EncodeFormat, png?: PngOptions, quality?: number }) {
  let bytes = 0
  for (let i = 0; i < p.count; i++) bytes += (await cutAndEncode(p.rgba, 1, 1, p.size, p.format, p.quality, p.png))[0].length
  return bytes
}
