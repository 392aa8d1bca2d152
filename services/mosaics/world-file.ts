// World-file images as granules: a PNG, JPEG or GIF placed by a world file beside it (x.pgw,
// x.pngw, x.jgw, x.jpgw, x.gfw, x.gifw or x.wld: six lines A, D, B, E, C, F, where C, F is the
// centre of the upper-left pixel) and an optional x.prj naming its CRS (without one, the mosaic's,
// or EPSG:4326 when the mosaic has none). A TIFF without GeoTIFF keys is placed by its .tfw the
// same way (geotiff-info.ts asks readWorldFile).
// Paletted PNGs are read as RGB; an alpha channel marks nodata. GDAL and GeoServer's
// WorldImageReader read the same files the same way.
import fs from 'node:fs'
import path from 'node:path'
import sharp, { type Metadata } from 'sharp'
import { WORLD_IMAGE } from '../render/raster/granule-files.js'
import { GranuleError, type GranuleInfo } from './geotiff-info.js'

/** Sidecar names that may place `file`, most specific first. */
function worldFileNames (file: string): string[] {
  const ext = path.extname(file)
  const stem = file.slice(0, -ext.length)
  const e = ext.slice(1).toLowerCase()
  const short = `${e[0]}${e[e.length - 1]}w`
  return [short, `${e}w`, 'wld'].flatMap((x) => [`${stem}.${x}`, `${stem}.${x.toUpperCase()}`])
}

/** Whether `name` (in a folder whose entries are `siblings`) is a world-file image with its world file there. */
export function hasWorldFile (name: string, siblings: Set<string>): boolean {
  return WORLD_IMAGE.test(name) && worldFileNames(name).some((w) => siblings.has(w))
}

/** The images GeoTools' WorldImage format reads: the world-file images and a TIFF placed by a .tfw. */
export const WORLD_IMAGE_FORMAT = /\.(png|jpe?g|gif|tiff?)$/i

/** Whether `name` is an image of GeoServer's WorldImage format with its world file among `siblings`. */
export function isPlacedImage (name: string, siblings: Set<string>): boolean {
  return WORLD_IMAGE_FORMAT.test(name) && worldFileNames(name).some((w) => siblings.has(w))
}

/** The sidecar files of a world-file image granule (for purging with it). */
export function worldFileSidecars (file: string): string[] {
  return [...worldFileNames(file), file.slice(0, -path.extname(file).length) + '.prj']
}

function parseWorldFile (text: string): { a: number, e: number, c: number, f: number } {
  const v = text.trim().split(/\s+/).map(Number)
  if (v.length !== 6 || !v.every(Number.isFinite)) throw new GranuleError('its world file does not hold six numbers')
  const [a, d, b, e, c, f] = v
  if (d !== 0 || b !== 0) throw new GranuleError('rotated rasters are not supported (world file terms D and B are not 0)')
  if (!(a > 0) || !(e < 0)) throw new GranuleError('its world file gives a pixel size that is not positive in x and negative in y')
  return { a, e, c, f }
}

/**
 * The EPSG code a .prj names: the outermost AUTHORITY["EPSG", n] of its WKT, else the ESRI names
 * of the CRSs world files come with most (WGS 84, Web Mercator, WGS 84 UTM zones).
 */
export function crsFromPrj (wkt: string): string {
  const text = wkt.trim()
  const authorities = [...text.matchAll(/AUTHORITY\s*\[\s*"EPSG"\s*,\s*"?(\d+)"?\s*\]/gi)]
  if (authorities.length) return `EPSG:${authorities[authorities.length - 1][1]}`
  const name = /^(?:PROJCS|GEOGCS)\s*\[\s*"([^"]*)"/i.exec(text)?.[1] ?? ''
  const flat = name.toLowerCase().replace(/[\s_]+/g, ' ')
  if (/^geogcs/i.test(text) && /(gcs )?wgs 1984|wgs 84/.test(flat)) return 'EPSG:4326'
  if (/web mercator|pseudo.mercator|popular visuali[sz]ation/.test(flat)) return 'EPSG:3857'
  const utm = /wgs (?:19)?84 \/? ?utm zone (\d{1,2}) ?([ns])/.exec(flat)
  if (utm) return `EPSG:${utm[2] === 'n' ? 326 : 327}${utm[1].padStart(2, '0')}`
  throw new GranuleError(`its .prj names a CRS without an EPSG code mapwarden knows (${JSON.stringify(name.slice(0, 80))})`)
}

export type WorldImageInfo = Omit<GranuleInfo, 'crs'> & { crs?: string }

async function readIfPresent (file: string): Promise<string | undefined> {
  try {
    const st = await fs.promises.stat(file)
    if (!st.isFile()) return undefined
    if (st.size > 64 * 1024) throw new GranuleError(`${path.basename(file)} is larger than 64 KiB`)
    return await fs.promises.readFile(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

/**
 * Size, bands, CRS (as the .prj names it, undefined without one: the caller gives the mosaic's and
 * checks that it is supported) and extent of a world-file image. Only the headers are read.
 */
export async function readWorldImageInfo (file: string): Promise<WorldImageInfo> {
  let meta: Metadata
  try {
    meta = await sharp(file, { limitInputPixels: false }).metadata()
  } catch (err) {
    throw new GranuleError(`not a readable image (${(err as Error).message.split('\n')[0].slice(0, 120)})`)
  }
  const { width, height } = meta
  if (!width || !height) throw new GranuleError('not a readable image (no size)')
  const channels = meta.channels ?? 3
  const bands = channels - (meta.hasAlpha ? 1 : 0)
  const placed = await readWorldFile(file, width, height)
  if (!placed) throw new GranuleError('no world file beside it')
  return { width, height, bands, dataType: 'Byte', ...placed, nodata: null, ranges: Array.from({ length: bands }, () => ({ min: 0, max: 255 })), overviews: 0 }
}

/**
 * Where the world file beside `file` places an image of `width` x `height` pixels, and the CRS its
 * .prj names (undefined without one); undefined when it has no world file. GeoTools' GeoTiffReader
 * reads a TIFF without GeoTIFF keys this way too (.tfw, .prj).
 */
export async function readWorldFile (file: string, width: number, height: number): Promise<{ bbox: [number, number, number, number], crs?: string } | undefined> {
  let world: string | undefined
  for (const w of worldFileNames(file)) if ((world = await readIfPresent(w)) !== undefined) break
  if (world === undefined) return undefined
  const { a, e, c, f } = parseWorldFile(world)
  const prj = await readIfPresent(file.slice(0, -path.extname(file).length) + '.prj')
  const crs = prj === undefined ? undefined : crsFromPrj(prj)
  const minx = c - a / 2
  const maxy = f - e / 2
  return { bbox: [minx, maxy + e * height, minx + a * width, maxy], crs }
}
