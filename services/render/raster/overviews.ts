// Which resolution level of a granule a render reads: the coarsest overview (internal, or GDAL's
// external .ovr) that still has the resolution the target needs, or a decimated copy of a level
// kept in memory when the file has no overview coarse enough.
import type { GeoTIFFImage } from 'geotiff'
import type { GranuleRef } from './mosaic-types.js'
import { isMask, loadTiles, type Samples } from './tiff-source.js'
import { decimateWithVips } from './vips-window.js'

/** Images usable as overviews of the first one: same band count, smaller, not masks. */
export function pyramid (images: GeoTIFFImage[]): GeoTIFFImage[] {
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

/**
 * The coarsest level that is not coarser than the target needs along either axis (needX, needY:
 * source pixels per target pixel); overview sizes are rounded up, so the two ratios of a level differ.
 */
export function coarsestLevel (levels: GeoTIFFImage[], g: GranuleRef, needX: number, needY: number): GeoTIFFImage {
  let image = levels[0]
  for (const im of levels) {
    if (g.width / im.getWidth() <= needX * 1.0001 && g.height / im.getHeight() <= needY * 1.0001) image = im
  }
  return image
}

// Granules without overviews coarse enough for low zoom levels would be decoded whole for every
// metatile. Instead a level is decimated once per worker thread (every SYNTH_FACTOR-th pixel, which
// is what nearest-neighbour sampling picks at that resolution anyway) and kept in memory, within a
// byte budget (24 MiB per thread), so a seed's low zoom levels decode each granule once.
export const SYNTH_FACTOR = 4
const SYNTH_BUDGET = 24 * 2 ** 20
/** Smaller levels decode fast enough to be sampled exactly every time. */
const SYNTH_MIN_PIXELS = 2048 * 2048
export interface Synthetic {
  width: number
  height: number
  spp: number
  data: Samples & { byteLength: number }
  /** The last sample of each pixel is an alpha channel: 0 marks nodata. */
  alpha?: boolean
}
const synthetics = new Map<string, Promise<Synthetic>>()
const synthBytes = new Map<string, number>()

/** The decimated copy of a level; `vipsPath`: the level is the first image of that file, which
 *  libvips reads unchanged (several times faster than geotiff.js). */
async function buildSynthetic (image: GeoTIFFImage, vipsPath?: string): Promise<Synthetic> {
  const vips = vipsPath ? await decimateWithVips(vipsPath, image, SYNTH_FACTOR) : undefined
  if (vips) return vips
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

export async function synthetic (key: string, image: GeoTIFFImage, vipsPath?: string): Promise<Synthetic> {
  const hit = synthetics.get(key)
  if (hit) { synthetics.delete(key); synthetics.set(key, hit); return hit }
  const p = buildSynthetic(image, vipsPath)
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

/** Whether a level is sampled from its decimated copy: big, and SYNTH_FACTOR times finer than `need` or more. */
export function decimates (g: GranuleRef, image: GeoTIFFImage, need: number): boolean {
  return (g.width / image.getWidth()) * SYNTH_FACTOR <= need && image.getWidth() * image.getHeight() >= SYNTH_MIN_PIXELS
}

/** Drops the decimated levels this thread holds. */
export function clearSynthetics (): void {
  synthetics.clear()
  synthBytes.clear()
}
