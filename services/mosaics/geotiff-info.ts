// What the index needs to know about a GeoTIFF granule: size, bands, data type, CRS, extent,
// nodata and value ranges. A file whose strips or tiles point past its end (truncated) or that
// geotiff.js cannot parse is refused with a reason, so one bad granule never spoils an upload.
import fs from 'node:fs'
import { fromFile, type GeoTIFFImage } from 'geotiff'
import { isSupportedCrs, normalizeCrs } from '../render/crs.js'

export interface GranuleInfo {
  width: number
  height: number
  bands: number
  dataType: string
  crs: string
  bbox: [number, number, number, number]
  nodata: number | null
  ranges: Array<{ min: number, max: number }>
  overviews: number
}

export class GranuleError extends Error {}

const DATA_TYPES: Record<string, string> = {
  '8:1': 'Byte', '8:2': 'Int8', '16:1': 'UInt16', '16:2': 'Int16', '32:1': 'UInt32', '32:2': 'Int32', '32:3': 'Float32', '64:3': 'Float64'
}

function crsOf (image: GeoTIFFImage): string {
  const keys = image.getGeoKeys() ?? {}
  const projected = keys.ProjectedCSTypeGeoKey as number | undefined
  const geographic = keys.GeographicTypeGeoKey as number | undefined
  const model = keys.GTModelTypeGeoKey as number | undefined
  let code: number | undefined
  if (model === 1 || (model === undefined && projected)) code = projected
  else if (model === 2 || geographic) code = geographic
  if (!code || code === 32767) throw new GranuleError('no EPSG code in its GeoTIFF keys (user-defined CRSs are not supported)')
  return normalizeCrs(`EPSG:${code}`)
}

async function value (image: GeoTIFFImage, tag: string): Promise<any> {
  const fd = image.getFileDirectory()
  return fd.hasTag(tag as any) ? await fd.loadValue(tag as any) : undefined
}

async function checkExtents (image: GeoTIFFImage, fileSize: number): Promise<void> {
  const load = (tag: string) => value(image, tag)
  const offsets = (await load('TileOffsets')) ?? (await load('StripOffsets'))
  const counts = (await load('TileByteCounts')) ?? (await load('StripByteCounts'))
  if (!offsets || !counts) throw new GranuleError('no strip or tile offsets')
  for (let i = 0; i < offsets.length; i++) {
    if (Number(offsets[i]) + Number(counts[i]) > fileSize) throw new GranuleError('truncated: image data runs past the end of the file')
  }
  // A header that claims more pixels than its strips or tiles hold (65000x65000 over 64 bytes of
  // data) would be indexed with a huge footprint and fail every render of it.
  const width = image.getWidth()
  const height = image.getHeight()
  const spp = image.getSamplesPerPixel()
  const planes = image.planarConfiguration === 2 ? spp : 1
  const expected = Math.ceil(width / image.getTileWidth()) * Math.ceil(height / image.getTileHeight()) * planes
  if (offsets.length !== expected || counts.length !== expected) {
    throw new GranuleError(`damaged: ${offsets.length} strips or tiles where a ${width}x${height} image needs ${expected}`)
  }
  if (Number((await load('Compression')) ?? 1) === 1) {
    let bits = 0
    for (let s = 0; s < spp; s++) bits += image.getBitsPerSample(s)
    let stored = 0
    for (let i = 0; i < counts.length; i++) stored += Number(counts[i])
    if (stored < Math.floor((width * bits) / 8) * height) throw new GranuleError(`damaged: ${stored} bytes of uncompressed data for a ${width}x${height} image`)
  }
}

function typeRange (dataType: string): { min: number, max: number } | undefined {
  switch (dataType) {
    case 'Byte': return { min: 0, max: 255 }
    case 'Int8': return { min: -128, max: 127 }
    default: return undefined
  }
}

/** Whether a file operation failed because the file (or a folder on its path) is gone. */
export function isGone (err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException)?.code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/** Where a world file places a TIFF without GeoTIFF keys (world-file.ts readWorldFile). */
export type WorldFileReader = (file: string, width: number, height: number) => Promise<{ bbox: [number, number, number, number], crs?: string } | undefined>

/** A GeoTIFF's metadata; the CRS is undefined only for a TIFF placed by a world file without a .prj. */
export type TiffInfo = Omit<GranuleInfo, 'crs'> & { crs?: string }

/** Whether a TIFF carries its own georeferencing (GeoKeys, a tie point or a transformation). */
function georeferenced (image: GeoTIFFImage): boolean {
  const fd = image.getFileDirectory()
  return image.getGeoKeys() !== null || fd.hasTag('ModelTiepoint' as any) || fd.hasTag('ModelTransformation' as any)
}

/**
 * Reads a granule's metadata, checks it is whole, and measures band ranges on its smallest
 * overview. A file that vanishes while it is read rejects with the file system's error (ENOENT),
 * not as an unreadable GeoTIFF: the harvest reports it as gone.
 */
export async function readGranuleInfo (file: string): Promise<GranuleInfo>
export async function readGranuleInfo (file: string, worldFile: WorldFileReader): Promise<TiffInfo>
export async function readGranuleInfo (file: string, worldFile?: WorldFileReader): Promise<TiffInfo> {
  const st = await fs.promises.stat(file)
  let tiff
  try {
    tiff = await fromFile(file)
  } catch (err) {
    if (isGone(err)) throw err
    throw new GranuleError(`not a readable GeoTIFF (${(err as Error).message.split('\n')[0].slice(0, 120)})`)
  }
  try {
    const count = await tiff.getImageCount()
    const image = await tiff.getImage(0)
    const width = image.getWidth()
    const height = image.getHeight()
    const bands = image.getSamplesPerPixel()
    const dataType = DATA_TYPES[`${image.getBitsPerSample(0)}:${image.getSampleFormat(0)}`]
    if (!dataType) throw new GranuleError(`unsupported sample type (${image.getBitsPerSample(0)} bits, format ${image.getSampleFormat(0)})`)
    // A plain TIFF placed by a .tfw (and .prj), as GeoTools' GeoTiffReader falls back to them.
    const placed = worldFile && !georeferenced(image) ? await worldFile(file, width, height) : undefined
    let crs: string | undefined
    let bbox: number[]
    if (placed) ({ crs, bbox } = placed)
    else {
      crs = crsOf(image)
      if (!isSupportedCrs(crs)) throw new GranuleError(`unsupported CRS ${crs}`)
      const transform = await value(image, 'ModelTransformation')
      if (transform && (Number(transform[1]) !== 0 || Number(transform[4]) !== 0)) throw new GranuleError('rotated rasters are not supported')
      try { bbox = image.getBoundingBox() } catch { throw new GranuleError('no georeferencing (ModelTiepoint/ModelPixelScale)') }
    }
    if (!bbox.every(Number.isFinite) || bbox[2] <= bbox[0] || bbox[3] <= bbox[1]) throw new GranuleError('empty or invalid extent')
    const images: GeoTIFFImage[] = []
    for (let i = 0; i < count; i++) images.push(i === 0 ? image : await tiff.getImage(i))
    for (const im of images) await checkExtents(im, st.size)
    const nodata = image.getGDALNoData()
    const overviews = images.filter((im) => im.getWidth() < width && im.getSamplesPerPixel() === bands).length
    let ranges: Array<{ min: number, max: number }>
    const fixed = typeRange(dataType)
    if (fixed) ranges = Array.from({ length: bands }, () => ({ ...fixed }))
    else ranges = await measureRanges(images, nodata)
    return { width, height, bands, dataType, crs, bbox: bbox as [number, number, number, number], nodata, ranges, overviews }
  } catch (err) {
    if (err instanceof GranuleError || isGone(err)) throw err
    throw new GranuleError(`not a readable GeoTIFF (${(err as Error).message.split('\n')[0].slice(0, 120)})`)
  } finally {
    await tiff.close()
  }
}

/** Largest level whose statistics are measured exactly (more pixels: the largest overview within it). */
const STATS_PIXELS = 4 * 2 ** 20
const STATS_ROWS = 256

/**
 * The range of each band's valid samples (nodata and NaN left out), measured once at harvest on
 * full resolution, or on the largest overview within STATS_PIXELS for bigger granules (the smallest
 * level when none is), in windows
 * of STATS_ROWS rows so memory stays bounded and the event loop gets a turn between windows.
 */
async function measureRanges (images: GeoTIFFImage[], nodata: number | null): Promise<Array<{ min: number, max: number }>> {
  const bands = images[0].getSamplesPerPixel()
  const levels = images.filter((im) => im.getSamplesPerPixel() === bands && im.getBitsPerSample(0) === images[0].getBitsPerSample(0))
    .sort((a, b) => b.getWidth() - a.getWidth())
  const level = levels.find((im) => im.getWidth() * im.getHeight() <= STATS_PIXELS) ?? levels[levels.length - 1]
  const out = Array.from({ length: bands }, () => ({ min: Infinity, max: -Infinity }))
  const width = level.getWidth()
  const height = level.getHeight()
  for (let y = 0; y < height; y += STATS_ROWS) {
    const window = [0, y, width, Math.min(height, y + STATS_ROWS)]
    const data = await level.readRasters({ interleave: false, window }) as unknown as ArrayLike<number>[]
    for (let b = 0; b < bands; b++) {
      const arr = data[b]
      const r = out[b]
      for (let i = 0; i < arr.length; i++) {
        const v = arr[i]
        if (Number.isNaN(v) || v === nodata) continue
        if (v < r.min) r.min = v
        if (v > r.max) r.max = v
      }
    }
  }
  return out.map((r) => (r.min === Infinity ? { min: 0, max: 0 } : r))
}
