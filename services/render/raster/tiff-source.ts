// GeoTIFF granules as the renderer reads them: files kept open per worker thread (with GDAL's
// external .ovr overviews), their internal masks, and the decoded tiles that hold sampled pixels.
import fs from 'node:fs'
import type { GeoTIFF, GeoTIFFImage } from 'geotiff'
import { decoderFor, geotiff } from './decoders.js'

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

export async function openTiff (path: string): Promise<OpenTiff> {
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


/** Closes the files this thread holds open. */
export async function closeTiffs (): Promise<void> {
  const all = [...cache.values()]
  cache.clear()
  for (const p of all) await p.then(closeTiff).catch(() => {})
}

export function isMask (im: GeoTIFFImage): boolean {
  let sub = 0
  try { sub = Number(im.getFileDirectory().getValue('NewSubfileType') ?? 0) } catch { sub = 0 }
  return (sub & 4) !== 0
}

/** GDAL's internal mask of a level (GDAL_TIFF_INTERNAL_MASK): a 1-bit transparency mask of its size. */
export function maskOf (images: GeoTIFFImage[], level: GeoTIFFImage): GeoTIFFImage | undefined {
  return images.find((im) => isMask(im) && im.getWidth() === level.getWidth() && im.getHeight() === level.getHeight() &&
    im.getBitsPerSample(0) === 1 && im.getSamplesPerPixel() === 1)
}

export type Samples = ArrayLike<number>

/**
 * Decoded tiles (or strips) of one image, by tile index, as typed arrays: one array of all samples
 * for chunky images (PlanarConfiguration 1), one per sample for planar ones. Only the tiles that
 * hold a sampled pixel are ever fetched and decoded.
 */
export async function loadTiles (image: GeoTIFFImage, keys: Iterable<number>, nb: number): Promise<Map<number, Samples[]>> {
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
export async function loadMask (mask: GeoTIFFImage, xs: ArrayLike<number>, ys: ArrayLike<number>): Promise<(x: number, y: number) => boolean> {
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
