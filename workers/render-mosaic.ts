// Renders a mosaic RenderJob to RGBA, in a Piscina worker or inline: a pure function of its
// payload (no app imports). For each granule it works out which of the target's pixels fall on it,
// reads only that window from the coarsest overview that still has at least the resolution the
// target needs, samples it (nearest neighbour), skips nodata, and draws later granules over
// earlier ones. EPSG:4326 <-> EPSG:3857 is separable, so columns and rows are mapped once each;
// other CRSs go through proj4 per pixel. The band values then go through applyRasterStyle.
// Plain 8-bit TIFFs (unsigned, chunky, grey or RGB, uncompressed/LZW/DEFLATE) are read through
// libvips (sharp) in strips of the window a render needs, several times faster than geotiff.js;
// everything else (other sample types, planar files, JPEG, overview levels) goes through geotiff.js.
// World-file images (PNG, JPEG, GIF) are decoded by libvips, window by window.
// Band values of all-8-bit mosaics are kept as bytes, so styling is a table lookup.
import fs from 'node:fs'
import { inflateSync } from 'node:zlib'
import sharp from 'sharp'
import threads from 'node:worker_threads'
import type { GeoTIFF, GeoTIFFImage } from 'geotiff'
import { applyRasterStyle } from './raster-style.js'
import type { BandData } from './render-types.js'
import type { GranuleRef, RenderJob, RenderResult } from './mosaic-types.js'
import { WORLD_IMAGE } from '../services/mosaics/granule-files.js'
import { axisTransform, isSeparable, pointTransform } from './crs.js'

// geotiff.js loads the 'web-worker' package, which, evaluated in a worker thread whose workerData is
// undefined (Piscina's default), takes itself for a web worker and throws. Give it an empty
// workerData before geotiff is first loaded, hence the dynamic import.
if (!threads.isMainThread && (threads.workerData === undefined || threads.workerData === null)) {
  (threads as { workerData: unknown }).workerData = {}
}
let geotiffModule: Promise<typeof import('geotiff')> | undefined
const geotiff = () => (geotiffModule ??= import('geotiff'))

interface OpenTiff {
  tiff: GeoTIFF
  /** Full resolution first, then internal overviews and masks, then those of an external x.tif.ovr. */
  images: GeoTIFFImage[]
  key: string
  ovr?: GeoTIFF
}

// A few open files per worker thread: metatiles of one seed hit the same granules again and again.
const CACHE_SIZE = 16
const cache = new Map<string, Promise<OpenTiff>>()

async function openTiff (path: string): Promise<OpenTiff> {
  const st = await fs.promises.stat(path)
  const ovrStat = await fs.promises.stat(`${path}.ovr`).catch(() => undefined)
  const key = `${path}:${st.size}:${st.mtimeMs}:${ovrStat ? `${ovrStat.size}:${ovrStat.mtimeMs}` : ''}`
  const hit = cache.get(path)
  if (hit) {
    const open = await hit.catch(() => undefined)
    if (open && open.key === key) {
      cache.delete(path)
      cache.set(path, hit) // most recently used last
      return open
    }
    cache.delete(path)
    if (open) await closeTiff(open)
  }
  const p = (async () => {
    const { fromFile } = await geotiff()
    const tiff = await fromFile(path)
    const images = await allImages(tiff)
    // GDAL's external overviews (gdaladdo -ro): a TIFF of reduced levels beside the granule.
    const ovr = ovrStat ? await fromFile(`${path}.ovr`).catch(() => undefined) : undefined
    if (ovr) images.push(...await allImages(ovr))
    return { tiff, images, key, ovr }
  })()
  cache.set(path, p)
  while (cache.size > CACHE_SIZE) {
    const [oldest, old] = cache.entries().next().value as [string, Promise<OpenTiff>]
    cache.delete(oldest)
    old.then(closeTiff).catch(() => {})
  }
  try { return await p } catch (err) { cache.delete(path); throw err }
}

async function allImages (tiff: GeoTIFF): Promise<GeoTIFFImage[]> {
  const count = await tiff.getImageCount()
  const images: GeoTIFFImage[] = []
  for (let i = 0; i < count; i++) images.push(await tiff.getImage(i))
  return images
}

async function closeTiff (o: OpenTiff): Promise<void> {
  await Promise.resolve(o.tiff.close()).catch(() => {})
  if (o.ovr) await Promise.resolve(o.ovr.close()).catch(() => {})
}

/** Closes the files this thread holds open (tests, shutdown). */
export async function closeRenderCache (): Promise<void> {
  const all = [...cache.values()]
  cache.clear()
  synthetics.clear()
  synthBytes.clear()
  vipsChecked.clear()
  for (const p of all) await p.then(closeTiff).catch(() => {})
}

function isMask (im: GeoTIFFImage): boolean {
  let sub = 0
  try { sub = Number(im.getFileDirectory().getValue('NewSubfileType') ?? 0) } catch { sub = 0 }
  return (sub & 4) !== 0
}

/** GDAL's internal mask of a level (GDAL_TIFF_INTERNAL_MASK): a 1-bit transparency mask of its size. */
function maskOf (images: GeoTIFFImage[], level: GeoTIFFImage): GeoTIFFImage | undefined {
  return images.find((im) => isMask(im) && im.getWidth() === level.getWidth() && im.getHeight() === level.getHeight() &&
    im.getBitsPerSample(0) === 1 && im.getSamplesPerPixel() === 1)
}

/** Images usable as overviews of the first one: same band count, smaller, not masks. */
function pyramid (images: GeoTIFFImage[]): GeoTIFFImage[] {
  const full = images[0]
  const out = [full]
  for (const im of images.slice(1)) {
    if (isMask(im)) continue
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

type Decoder = { decode (buffer: ArrayBufferLike): Promise<ArrayBufferLike> }
type Samples = ArrayLike<number>

// geotiff.js does not export its decoder-parameter function; these are the same parameters.
async function decoderParameters (image: GeoTIFFImage): Promise<Record<string, unknown>> {
  const fd = image.getFileDirectory()
  const load = (tag: string) => fd.loadValue(tag as any)
  const tiled = !fd.hasTag('StripOffsets')
  const params: Record<string, unknown> = {
    tileWidth: tiled ? await load('TileWidth') : await load('ImageWidth'),
    tileHeight: tiled ? await load('TileLength') : ((await load('RowsPerStrip')) || (await load('ImageLength'))),
    planarConfiguration: await load('PlanarConfiguration'),
    bitsPerSample: await load('BitsPerSample'),
    predictor: (await load('Predictor')) || 1
  }
  if (fd.hasTag('JPEGTables')) params.JPEGTables = await load('JPEGTables')
  return params
}

/**
 * DEFLATE through node's native zlib (several times faster than the JavaScript inflate), with the
 * horizontal-differencing predictor for little-endian integer samples; anything else goes to
 * geotiff.js's own decoders.
 */
function nativeDeflate (image: GeoTIFFImage, params: Record<string, unknown>): Decoder | undefined {
  const predictor = Number(params.predictor ?? 1)
  const bits = image.getBitsPerSample(0)
  const format = image.getSampleFormat(0)
  if (predictor !== 1 && predictor !== 2) return undefined
  if (predictor === 2 && (format === 3 || (bits > 8 && !image.littleEndian) || ![8, 16, 32].includes(bits))) return undefined
  const width = Number(params.tileWidth)
  const spp = image.planarConfiguration === 2 ? 1 : image.getSamplesPerPixel()
  return {
    async decode (buffer: ArrayBufferLike) {
      const inflated = inflateSync(new Uint8Array(buffer))
      const out = new Uint8Array(inflated.length)
      out.set(inflated)
      if (predictor === 2) {
        const values = bits === 8 ? out : bits === 16 ? new Uint16Array(out.buffer, 0, out.length >> 1) : new Uint32Array(out.buffer, 0, out.length >> 2)
        const row = width * spp
        for (let start = 0; start + row <= values.length; start += row) {
          for (let i = start + spp; i < start + row; i++) values[i] += values[i - spp]
        }
      }
      return out.buffer
    }
  }
}

/**
 * JPEG (compression 7) through libvips' libjpeg-turbo, as GDAL decodes it: the shared JPEGTables
 * spliced before each tile's abbreviated stream, chroma upsampled smoothly and YCbCr converted to
 * RGB by the codec (geotiff.js's decoder replicates chroma, which differs from GDAL by tens of levels
 * at edges, and leaves YCbCr as it is).
 */
function libjpeg (params: Record<string, unknown>): Decoder {
  const tables = params.JPEGTables ? Buffer.from(params.JPEGTables as ArrayLike<number>) : undefined
  return {
    async decode (buffer: ArrayBufferLike) {
      let stream = Buffer.from(buffer)
      // tables: SOI ... EOI; tile: SOI ... EOI. Joined: the tables without their EOI, the tile without its SOI.
      if (tables && tables.length > 4) stream = Buffer.concat([tables.subarray(0, tables.length - 2), stream.subarray(2)])
      const { data } = await sharp(stream, { limitInputPixels: false }).raw().toBuffer({ resolveWithObject: true })
      return data.buffer.slice(data.byteOffset, data.byteOffset + data.length)
    }
  }
}

const decoders = new WeakMap<GeoTIFFImage, Promise<Decoder>>()
function decoderFor (image: GeoTIFFImage): Promise<Decoder> {
  let d = decoders.get(image)
  if (!d) {
    const compression = Number(image.getFileDirectory().getValue('Compression') ?? 1)
    d = decoderParameters(image).then(async (params) => {
      const native = compression === 8 || compression === 32946 ? nativeDeflate(image, params)
        : compression === 7 && image.getBitsPerSample(0) === 8 && image.planarConfiguration !== 2 ? libjpeg(params) : undefined
      return native ?? (await (await geotiff()).getDecoder(compression, params as any) as unknown as Decoder)
    })
    decoders.set(image, d)
  }
  return d
}

/**
 * Decoded tiles (or strips) of one image, by tile index, as typed arrays: one array of all samples
 * for chunky images (PlanarConfiguration 1), one per sample for planar ones. Only the tiles that
 * hold a sampled pixel are ever fetched and decoded.
 */
async function loadTiles (image: GeoTIFFImage, keys: Iterable<number>, nb: number): Promise<Map<number, Samples[]>> {
  const decoder = await decoderFor(image)
  const perRow = Math.ceil(image.getWidth() / image.getTileWidth())
  const bytes = image.getBitsPerSample(0) / 8
  // Decoded tiles keep the file's byte order; typed arrays read the machine's (little-endian).
  const native = (data: ArrayBufferLike): ArrayBuffer => {
    if (image.littleEndian || bytes <= 1 || !Number.isInteger(bytes)) return data as ArrayBuffer
    const src = new Uint8Array(data)
    const dst = new Uint8Array(src.length)
    for (let i = 0; i + bytes <= src.length; i += bytes) for (let k = 0; k < bytes; k++) dst[i + k] = src[i + bytes - 1 - k]
    return dst.buffer
  }
  const out = new Map<number, Samples[]>()
  await Promise.all([...keys].map(async (key) => {
    const tx = key % perRow
    const ty = Math.floor(key / perRow)
    if (image.planarConfiguration === 2) {
      const arrays = await Promise.all(Array.from({ length: nb }, async (_, b) => {
        const tile = await image.getTileOrStrip(tx, ty, b, decoder as any)
        return image.getArrayForSample(b, native(tile.data)) as Samples
      }))
      out.set(key, arrays)
    } else {
      const tile = await image.getTileOrStrip(tx, ty, 0, decoder as any)
      out.set(key, [image.getArrayForSample(0, native(tile.data)) as Samples])
    }
  }))
  return out
}

/**
 * Whether a pixel of a level is masked out by GDAL's 1-bit internal mask: the mask tiles covering
 * the given columns and rows are decoded once (geotiff.js unpacks the bits to one byte per pixel;
 * 0 = no data).
 */
async function loadMask (mask: GeoTIFFImage, xs: ArrayLike<number>, ys: ArrayLike<number>): Promise<(x: number, y: number) => boolean> {
  const tw = mask.getTileWidth()
  const th = mask.getTileHeight()
  const perRow = Math.ceil(mask.getWidth() / tw)
  const txs = new Set(Array.from(xs, (x) => Math.floor(x / tw)))
  const tys = new Set(Array.from(ys, (y) => Math.floor(y / th)))
  const decoder = await decoderFor(mask)
  const tiles = new Map<number, Uint8Array>()
  await Promise.all([...tys].flatMap((ty) => [...txs].map(async (tx) => {
    const tile = await mask.getTileOrStrip(tx, ty, 0, decoder as any)
    tiles.set(ty * perRow + tx, new Uint8Array(tile.data))
  })))
  return (x, y) => {
    const tx = Math.floor(x / tw)
    const ty = Math.floor(y / th)
    const bits = tiles.get(ty * perRow + tx)
    return bits !== undefined && bits[(y - ty * th) * tw + x - tx * tw] === 0
  }
}

// Granules without overviews coarse enough for low zoom levels would be decoded whole for every
// metatile. Instead a level is decimated once per worker thread (every SYNTH_FACTOR-th pixel, which
// is what nearest-neighbour sampling picks at that resolution anyway) and kept in memory, within a
// byte budget (24 MiB per thread), so a seed's low zoom levels decode each granule once.
const SYNTH_FACTOR = 4
const SYNTH_BUDGET = 24 * 2 ** 20
/** Smaller levels decode fast enough to be sampled exactly every time. */
export const SYNTH_MIN_PIXELS = 2048 * 2048
interface Synthetic {
  width: number
  height: number
  spp: number
  data: Samples & { byteLength: number }
  /** The last sample of each pixel is an alpha channel: 0 marks nodata. */
  alpha?: boolean
}
const synthetics = new Map<string, Promise<Synthetic>>()
const synthBytes = new Map<string, number>()

async function buildSynthetic (image: GeoTIFFImage): Promise<Synthetic> {
  const iw = image.getWidth()
  const ih = image.getHeight()
  const tw = image.getTileWidth()
  const th = image.getTileHeight()
  const perRow = Math.ceil(iw / tw)
  const spp = image.getSamplesPerPixel()
  const planar = image.planarConfiguration === 2
  const sw = Math.ceil(iw / SYNTH_FACTOR)
  const sh = Math.ceil(ih / SYNTH_FACTOR)
  let data: any
  for (let ty = 0; ty * th < ih; ty++) {
    const firstRow = Math.ceil((ty * th) / SYNTH_FACTOR) * SYNTH_FACTOR
    if (firstRow >= Math.min(ih, (ty + 1) * th)) continue
    const tiles = await loadTiles(image, Array.from({ length: perRow }, (_, tx) => ty * perRow + tx), spp)
    for (let y = firstRow; y < Math.min(ih, (ty + 1) * th); y += SYNTH_FACTOR) {
      const ly = y - ty * th
      const sy = y / SYNTH_FACTOR
      for (let sx = 0; sx < sw; sx++) {
        const x = sx * SYNTH_FACTOR
        const tx = Math.floor(x / tw)
        const tile = tiles.get(ty * perRow + tx)!
        const p = ly * tw + (x - tx * tw)
        if (!data) data = new (tile[0] as any).constructor(sw * sh * spp)
        const o = (sy * sw + sx) * spp
        if (planar) for (let b = 0; b < spp; b++) data[o + b] = tile[b][p]
        else for (let b = 0; b < spp; b++) data[o + b] = tile[0][p * spp + b]
      }
    }
  }
  return { width: sw, height: sh, spp, data }
}

async function synthetic (key: string, image: GeoTIFFImage): Promise<Synthetic> {
  const hit = synthetics.get(key)
  if (hit) { synthetics.delete(key); synthetics.set(key, hit); return hit }
  const p = buildSynthetic(image)
  synthetics.set(key, p)
  try {
    const syn = await p
    synthBytes.set(key, syn.data.byteLength)
    let total = 0
    for (const b of synthBytes.values()) total += b
    for (const old of synthetics.keys()) {
      if (total <= SYNTH_BUDGET || old === key) continue
      total -= synthBytes.get(old) ?? 0
      synthetics.delete(old)
      synthBytes.delete(old)
    }
    return syn
  } catch (err) {
    synthetics.delete(key)
    throw err
  }
}

/** Source pixels per target pixel along x and y (mean spacing of the sample positions). */
function sourceSpacing (m: Mapping, g: GranuleRef, cr: [number, number], rr: [number, number]): [number, number] {
  const coveredCols = m.separable ? countInside(m.cols, g.width) : Math.sqrt(countInside2(m, g))
  const coveredRows = m.separable ? countInside(m.rows, g.height) : coveredCols
  const spacing = (span: number, n: number) => (n > 1 ? span / (n - 1) : Infinity)
  return [spacing(cr[1] - cr[0], coveredCols), spacing(rr[1] - rr[0], coveredRows)]
}

/**
 * A world-file image (PNG, JPEG, GIF): libvips decodes the window the target needs, shrunk
 * (nearest neighbour) to about the target's resolution so memory follows the target's size, not the
 * image's; palettes come out as RGB and an alpha channel marks nodata.
 */
async function drawImage (job: RenderJob, g: GranuleRef, m: Mapping, cr: [number, number], rr: [number, number], out: BandData): Promise<void> {
  const x0 = Math.floor(cr[0])
  const y0 = Math.floor(rr[0])
  const ww = Math.min(g.width - 1, Math.floor(cr[1])) - x0 + 1
  const wh = Math.min(g.height - 1, Math.floor(rr[1])) - y0 + 1
  const k = Math.max(1, Math.floor(Math.min(...sourceSpacing(m, g, cr, rr))))
  const dw = Math.max(1, Math.ceil(ww / k))
  const dh = Math.max(1, Math.ceil(wh / k))
  let image = sharp(g.path, { limitInputPixels: false }).extract({ left: x0, top: y0, width: ww, height: wh })
  if (dw !== ww || dh !== wh) image = image.resize(dw, dh, { kernel: 'nearest', fit: 'fill' })
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true })
  const alpha = info.channels === 2 || info.channels === 4
  drawSynthetic(job, g, m, { width: dw, height: dh, spp: info.channels, data, alpha }, ww / dw, wh / dh, out, [x0, y0])
}

async function drawGranule (job: RenderJob, g: GranuleRef, out: BandData): Promise<void> {
  const m = mapPixels(job, g)
  const cr = range(m.cols, g.width)
  const rr = range(m.rows, g.height)
  if (!cr || !rr) return
  if (WORLD_IMAGE.test(g.path)) return await drawImage(job, g, m, cr, rr, out)
  // Pick the coarsest overview that is not coarser than the target needs along either axis
  // (overview sizes are rounded up, so the two ratios of a level differ).
  const [needX, needY] = sourceSpacing(m, g, cr, rr)
  const need = Math.min(needX, needY)
  const { images, key } = await openTiff(g.path)
  const levels = pyramid(images)
  let image = levels[0]
  for (const im of levels) {
    if (g.width / im.getWidth() <= needX * 1.0001 && g.height / im.getHeight() <= needY * 1.0001) image = im
  }
  const mask = maskOf(images, image)
  if (!mask && (g.width / image.getWidth()) * SYNTH_FACTOR <= need && image.getWidth() * image.getHeight() >= SYNTH_MIN_PIXELS) {
    const syn = await synthetic(`${key}#${images.indexOf(image)}`, image)
    drawSynthetic(job, g, m, syn, g.width / image.getWidth() * SYNTH_FACTOR, g.height / image.getHeight() * SYNTH_FACTOR, out)
    return
  }
  if (!mask && m.separable && image === levels[0] && vipsReadable(g.path, image)) {
    if (await drawWindow(job, g, m, image, out)) return
  }
  const iw = image.getWidth()
  const ih = image.getHeight()
  const fx = g.width / iw
  const fy = g.height / ih
  const tw = image.getTileWidth()
  const th = image.getTileHeight()
  const perRow = Math.ceil(iw / tw)
  const spp = image.getSamplesPerPixel()
  const nb = Math.min(out.bands.length, spp)
  const planar = image.planarConfiguration === 2
  const nodata = g.nodata
  const nodataIsNaN = nodata !== null && Number.isNaN(nodata)
  const { width: w, height: h } = job
  const bands = out.bands
  const valid = out.valid

  // Image pixel of each target column/row (or pixel), -1 outside the granule.
  const toPixel = (v: number, limit: number, f: number, size: number) => (v >= 0 && v < limit ? Math.min(size - 1, Math.floor(v / f)) : -1)
  const put = (o: number, tile: Samples[], lx: number, ly: number) => {
    const p = ly * tw + lx
    if (planar) {
      const first = tile[0][p]
      if (nodata !== null && (nodataIsNaN ? Number.isNaN(first) : first === nodata)) return
      for (let b = 0; b < nb; b++) bands[b][o] = tile[b][p]
    } else {
      const arr = tile[0]
      const base = p * spp
      const first = arr[base]
      if (nodata !== null && (nodataIsNaN ? Number.isNaN(first) : first === nodata)) return
      for (let b = 0; b < nb; b++) bands[b][o] = arr[base + b]
    }
    valid[o] = 1
  }

  if (m.separable) {
    const px = new Int32Array(w)
    for (let i = 0; i < w; i++) px[i] = toPixel(m.cols[i], g.width, fx, iw)
    const txs = new Set<number>()
    for (let i = 0; i < w; i++) if (px[i] >= 0) txs.add(Math.floor(px[i] / tw))
    const pys: number[] = []
    for (let j = 0; j < h; j++) pys.push(toPixel(m.rows[j], g.height, fy, ih))
    const masked = mask ? await loadMask(mask, px.filter((x) => x >= 0), pys.filter((y) => y >= 0)) : undefined
    let currentTy = -1
    let tiles = new Map<number, Samples[]>()
    for (let j = 0; j < h; j++) {
      const py = pys[j]
      if (py < 0) continue
      const ty = Math.floor(py / th)
      if (ty !== currentTy) { // rows of a north-up granule come in order: one band of tiles at a time
        tiles = await loadTiles(image, [...txs].map((tx) => ty * perRow + tx), nb)
        currentTy = ty
      }
      const ly = py - ty * th
      const rowOffset = j * w
      for (let i = 0; i < w; i++) {
        const x = px[i]
        if (x < 0 || masked?.(x, py)) continue
        const tx = Math.floor(x / tw)
        put(rowOffset + i, tiles.get(ty * perRow + tx)!, x - tx * tw, ly)
      }
    }
    return
  }
  const n = w * h
  const pix = new Int32Array(n * 2)
  const keys = new Set<number>()
  for (let o = 0; o < n; o++) {
    const x = toPixel(m.cols[o], g.width, fx, iw)
    const y = toPixel(m.rows[o], g.height, fy, ih)
    if (x < 0 || y < 0 || !(m.rows[o] >= 0 && m.rows[o] < g.height) || !(m.cols[o] >= 0)) { pix[o * 2] = -1; continue }
    pix[o * 2] = x
    pix[o * 2 + 1] = y
    keys.add(Math.floor(y / th) * perRow + Math.floor(x / tw))
  }
  const tiles = await loadTiles(image, keys, nb)
  const masked = mask ? await loadMask(mask, pix.filter((_, k) => k % 2 === 0 && pix[k] >= 0), pix.filter((_, k) => k % 2 === 1 && pix[k - 1] >= 0)) : undefined
  for (let o = 0; o < n; o++) {
    const x = pix[o * 2]
    if (x < 0) continue
    const y = pix[o * 2 + 1]
    if (masked?.(x, y)) continue
    const tx = Math.floor(x / tw)
    const ty = Math.floor(y / th)
    put(o, tiles.get(ty * perRow + tx)!, x - tx * tw, y - ty * th)
  }
}

const vipsChecked = new Map<string, boolean>()
let vipsOn = true
/** Tests only: read every file through geotiff.js (the reference the libvips path must match). */
export function useLibvips (on: boolean): void { vipsOn = on }
/** Whether libvips reads this image's samples unchanged (no colour conversion, lossless codec). */
function vipsReadable (path: string, image: GeoTIFFImage): boolean {
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

/** Source rows read per libvips call (bounds the window held in memory). */
const STRIP_ROWS = 512

/**
 * Separable nearest-neighbour sampling of a plain 8-bit TIFF through libvips: for each strip of
 * source rows the target rows fall on, the window of columns they need is decoded in one call.
 * Returns false (nothing drawn) when libvips does not give the file's samples as they are.
 */
async function drawWindow (job: RenderJob, g: GranuleRef, m: Mapping, image: GeoTIFFImage, out: BandData): Promise<boolean> {
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
  let strip = -1
  let win: Buffer | undefined
  for (let j = 0; j < h; j++) {
    const v = m.rows[j]
    if (!(v >= 0 && v < g.height)) continue
    const py = Math.min(ih - 1, Math.floor(v / fy))
    const s = Math.floor(py / STRIP_ROWS)
    if (s !== strip) {
      strip = s
      const top = s * STRIP_ROWS
      const { data, info } = await sharp(g.path, { limitInputPixels: false })
        .extract({ left: x0, top, width: ww, height: Math.min(STRIP_ROWS, ih - top) })
        .raw().toBuffer({ resolveWithObject: true })
      if (info.channels !== spp) { vipsChecked.set(g.path, false); return false }
      vipsChecked.set(g.path, true)
      win = data
    }
    const rowBase = (py - strip * STRIP_ROWS) * ww * spp
    const o0 = j * w
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
 * Nearest-neighbour sampling from an in-memory level: a decimated one (see synthetic()), or a
 * decoded window of a world-file image whose upper-left full-resolution pixel is `origin`. One
 * level pixel spans fx x fy full-resolution pixels.
 */
function drawSynthetic (job: RenderJob, g: GranuleRef, m: Mapping, syn: Synthetic, fx: number, fy: number, out: BandData,
  origin: [number, number] = [0, 0]): void {
  const { width: w, height: h } = job
  const nb = Math.min(out.bands.length, syn.spp - (syn.alpha ? 1 : 0))
  const nodata = g.nodata
  const nodataIsNaN = nodata !== null && Number.isNaN(nodata)
  const [ox, oy] = origin
  const toPixel = (v: number, limit: number, f: number, size: number, o: number) =>
    (v >= 0 && v < limit ? Math.max(0, Math.min(size - 1, Math.floor((v - o) / f))) : -1)
  const put = (o: number, x: number, y: number) => {
    const base = (y * syn.width + x) * syn.spp
    const first = syn.data[base]
    if (nodata !== null && (nodataIsNaN ? Number.isNaN(first) : first === nodata)) return
    if (syn.alpha && syn.data[base + syn.spp - 1] === 0) return
    for (let b = 0; b < nb; b++) out.bands[b][o] = syn.data[base + b]
    out.valid[o] = 1
  }
  if (m.separable) {
    const px = new Int32Array(w)
    for (let i = 0; i < w; i++) px[i] = toPixel(m.cols[i], g.width, fx, syn.width, ox)
    for (let j = 0; j < h; j++) {
      const y = toPixel(m.rows[j], g.height, fy, syn.height, oy)
      if (y < 0) continue
      for (let i = 0; i < w; i++) if (px[i] >= 0) put(j * w + i, px[i], y)
    }
    return
  }
  for (let o = 0; o < w * h; o++) {
    const x = toPixel(m.cols[o], g.width, fx, syn.width, ox)
    const y = toPixel(m.rows[o], g.height, fy, syn.height, oy)
    if (x >= 0 && y >= 0) put(o, x, y)
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

/** Code of the error a render throws when a granule's data cannot be decoded (it names the granule). */
export const GRANULE_DAMAGED = 'MW_GRANULE_DAMAGED'

/** Runs fn on a granule; a failure other than the file having gone becomes GRANULE_DAMAGED. */
async function reading<T> (g: GranuleRef, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err
    const reason = String((err as Error)?.message ?? err).split('\n')[0].slice(0, 200)
    throw Object.assign(new Error(reason), { code: GRANULE_DAMAGED, granule: g.path })
  }
}

/** Band values of the job's area before styling. */
export async function renderBands (job: RenderJob): Promise<BandData> {
  const n = job.width * job.height
  const bandCount = Math.max(1, job.bands)
  // Bytes when every granule holds unsigned 8-bit samples (the values fit exactly), else floats.
  let bytes = job.granules.length > 0
  for (const g of job.granules) {
    if (!bytes) break
    if (WORLD_IMAGE.test(g.path)) continue // decoded as 8-bit samples
    const { images } = await reading(g, () => openTiff(g.path))
    for (let b = 0; b < images[0].getSamplesPerPixel(); b++) {
      if (images[0].getBitsPerSample(b) !== 8 || images[0].getSampleFormat(b) !== 1) { bytes = false; break }
    }
  }
  const out: BandData = {
    width: job.width,
    height: job.height,
    bands: Array.from({ length: bandCount }, () => bytes ? new Uint8Array(n) : new Float32Array(n)),
    valid: new Uint8Array(n),
    ranges: job.ranges.length ? job.ranges : Array.from({ length: bandCount }, () => ({ min: 0, max: 255 }))
  }
  for (const g of job.granules) await reading(g, () => drawGranule(job, g, out))
  return out
}

export async function renderMosaic (job: RenderJob): Promise<RenderResult> {
  const bands = await renderBands(job)
  return { width: job.width, height: job.height, rgba: applyRasterStyle(bands, job.style) }
}

export default renderMosaic
