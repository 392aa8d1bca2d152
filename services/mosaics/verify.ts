// verify=true on uploads and harvests: every granule's data is decoded before it is indexed, so a
// file whose headers are sound but whose compressed data is damaged is skipped with the reason
// instead of failing renders later. GeoTIFFs are read level by level in windows of rows (bounded
// memory, the event loop gets a turn between windows); world-file images are decoded by libvips.
import sharp from 'sharp'
import { fromFile } from 'geotiff'
import { WORLD_IMAGE } from '../render/raster/granule-files.js'
import { GranuleError } from './geotiff-info.js'

const ROWS = 256

export async function verifyGranule (file: string): Promise<void> {
  try {
    if (WORLD_IMAGE.test(file)) {
      await sharp(file, { limitInputPixels: false, failOn: 'truncated' }).stats()
      return
    }
    const tiff = await fromFile(file)
    try {
      const count = await tiff.getImageCount()
      for (let i = 0; i < count; i++) {
        const image = await tiff.getImage(i)
        const width = image.getWidth()
        const height = image.getHeight()
        for (let y = 0; y < height; y += ROWS) await image.readRasters({ window: [0, y, width, Math.min(height, y + ROWS)] })
      }
    } finally {
      await tiff.close()
    }
  } catch (err) {
    if (err instanceof GranuleError) throw err
    throw new GranuleError(`damaged: its data cannot be decoded (${String((err as Error)?.message ?? err).split('\n')[0].slice(0, 120)})`)
  }
}
