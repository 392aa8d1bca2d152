// mapwarden's PNG encoder against two decoders: sharp (libvips) and GDAL's PNG driver (libpng,
// Debian's gdal-bin), which check the chunks' CRCs and the zlib stream. Every pixel must come back;
// the filter the encoder chose is read from the inflated rows.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import { execFileSync } from 'node:child_process'
import sharp from 'sharp'
import { encodePng } from '../../../services/render/png-encode.js'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-png-'))
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))

/** An RGBA image `w` x `h` whose pixel (x, y) is `f(x, y)`. */
function image (w: number, h: number, f: (x: number, y: number) => [number, number, number, number]): Uint8Array {
  const rgba = new Uint8Array(w * h * 4)
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) rgba.set(f(x, y), (y * w + x) * 4)
  return rgba
}

/** The rectangle's expected samples, RGB or RGBA, row by row. */
function expected (rgba: Uint8Array, imageWidth: number, left: number, top: number, w: number, h: number, alpha: boolean): Buffer {
  const out: number[] = []
  for (let y = top; y < top + h; y++) for (let x = left; x < left + w; x++) for (let c = 0; c < (alpha ? 4 : 3); c++) out.push(rgba[(y * imageWidth + x) * 4 + c])
  return Buffer.from(out)
}

/** The filter type of each row, from the IDAT stream. */
function filters (png: Buffer, w: number, h: number, alpha: boolean): number[] {
  const at = png.indexOf('IDAT')
  const rows = zlib.inflateSync(png.subarray(at + 4, at + 4 + png.readUInt32BE(at - 4)))
  const line = w * (alpha ? 4 : 3) + 1
  return Array.from({ length: h }, (_, y) => rows[y * line])
}

/** Pixels as GDAL reads the file (band-interleaved raw), back to pixel-interleaved. */
function gdalPixels (t: Test, png: Buffer, w: number, h: number, bands: number): Buffer {
  const file = path.join(dir, 'tile.png')
  const raw = path.join(dir, 'tile.raw')
  fs.writeFileSync(file, png)
  execFileSync('gdal_translate', ['-q', '-of', 'ENVI', '-co', 'INTERLEAVE=BIP', file, raw], { stdio: 'pipe' })
  const data = fs.readFileSync(raw)
  t.equal(data.length, w * h * bands, 'GDAL read every sample')
  return data
}

const cases: Array<{ name: string, w: number, h: number, f: (x: number, y: number) => [number, number, number, number], filter: number }> = [
  // Uniform noise filters to uniform noise whatever the filter: any is right.
  { name: 'noise', w: 64, h: 48, f: (x, y) => { const v = Math.imul(x * 7919 + y * 104729, 2654435761) >>> 0; return [v & 255, (v >> 8) & 255, (v >> 16) & 255, 255] }, filter: -2 },
  { name: 'flat colour with a few dots (no filter needed)', w: 64, h: 48, f: (x, y) => ((x * y) % 97 === 5 ? [255, 0, 0, 255] : [0, 0, 0, 255]), filter: 0 },
  { name: 'vertical stripes of noise (the row above predicts)', w: 64, h: 48, f: (x) => { const v = Math.imul(x + 1, 2654435761) >>> 0; return [v & 255, (v >> 8) & 255, (v >> 16) & 255, 255] }, filter: 2 },
  { name: 'horizontal bands of noise (the pixel left predicts)', w: 64, h: 48, f: (_x, y) => { const v = Math.imul(y + 1, 2654435761) >>> 0; return [v & 255, (v >> 8) & 255, (v >> 16) & 255, 255] }, filter: 1 },
  { name: 'a plane (x + y ramps, Paeth or Average)', w: 64, h: 48, f: (x, y) => [(3 * x + 2 * y) & 255, (x * 5 + y) & 255, (7 * y) & 255, 255], filter: -1 }
]

t.test('RGB and RGBA tiles decode to the exact pixels in sharp and GDAL, with the filter that suits the image', async (t) => {
  for (const c of cases) {
    const rgba = image(c.w, c.h, c.f)
    for (const alpha of [false, true]) {
      const src = alpha ? rgba.map((v, i) => (i % 4 === 3 ? (i * 37) & 255 : v)) : rgba
      const png = await encodePng(src, c.w, 0, 0, c.w, c.h, alpha)
      const want = expected(src, c.w, 0, 0, c.w, c.h, alpha)
      const got = await sharp(png).raw().toBuffer({ resolveWithObject: true })
      t.same([got.info.width, got.info.height, got.info.channels], [c.w, c.h, alpha ? 4 : 3], `${c.name}, ${alpha ? 'RGBA' : 'RGB'}: size and bands`)
      t.ok(got.data.equals(want), `${c.name}, ${alpha ? 'RGBA' : 'RGB'}: sharp reads every pixel back`)
      t.ok(gdalPixels(t, png, c.w, c.h, alpha ? 4 : 3).equals(want), `${c.name}, ${alpha ? 'RGBA' : 'RGB'}: GDAL reads every pixel back`)
      const used = new Set(filters(png, c.w, c.h, alpha))
      t.equal(used.size, 1, 'one filter for the tile')
      if (c.filter >= 0 && !alpha) t.same([...used], [c.filter], `${c.name}: filter ${c.filter}`)
      if (c.filter === -1 && !alpha) t.ok(used.has(3) || used.has(4), `${c.name}: a filter that uses both neighbours (${[...used]})`)
    }
  }
})

t.test('a tile cut out of a larger image at an offset, and the smallest and odd sizes', async (t) => {
  const W = 40
  const rgba = image(W, 30, (x, y) => [x * 6, y * 8, (x * y) & 255, 255])
  for (const [left, top, w, h] of [[13, 7, 17, 11], [0, 0, 1, 1], [39, 29, 1, 1], [5, 0, 1, 30], [0, 3, 40, 1]]) {
    const png = await encodePng(rgba, W, left, top, w, h, false)
    const got = await sharp(png).raw().toBuffer()
    t.ok(got.equals(expected(rgba, W, left, top, w, h, false)), `${w}x${h} at ${left},${top}: exact`)
  }
})

t.test('flat areas shrink to little (the run-length deflate keeps runs)', async (t) => {
  const rgba = image(256, 256, (x, y) => [x < 128 ? 200 : 30, y < 100 ? 50 : 180, 90, 255])
  const png = await encodePng(rgba, 256, 0, 0, 256, 256, false)
  t.ok(png.length < 1500, `a two-colour 256x256 tile: ${png.length} bytes`)
  t.ok((await sharp(png).raw().toBuffer()).equals(expected(rgba, 256, 0, 0, 256, 256, false)), 'exact')
})

t.test('every filter, on whole pixels and sample by sample, decodes to the exact pixels', async (t) => {
  // Noise with alpha: every byte lane of the pixel words carries (and borrows) on its own.
  const W = 37
  const H = 23
  const noise = image(W, H, (x, y) => { const v = Math.imul(x * 7919 + y * 104729 + 1, 2654435761) >>> 0; return [v & 255, (v >>> 8) & 255, (v >>> 16) & 255, (v >>> 24) | 1] })
  // The same image at an odd byte offset, which cannot be read as 32-bit words.
  const shifted = new Uint8Array(noise.length + 1).subarray(1)
  shifted.set(noise)
  for (const [label, rgba] of [['words', noise], ['samples', shifted]] as const) {
    for (let filter = 0; filter < 5; filter++) {
      for (const alpha of [false, true]) {
        const png = await encodePng(rgba, W, 3, 2, 29, 19, alpha, filter)
        t.same([...new Set(filters(png, 29, 19, alpha))], [filter], `${label}, filter ${filter}, ${alpha ? 'RGBA' : 'RGB'}: written with that filter`)
        const got = await sharp(png).raw().toBuffer()
        t.ok(got.equals(expected(noise, W, 3, 2, 29, 19, alpha)), `${label}, filter ${filter}, ${alpha ? 'RGBA' : 'RGB'}: exact`)
      }
    }
  }
})
