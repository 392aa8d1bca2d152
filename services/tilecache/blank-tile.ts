// The transparent tile a cached-only layer may answer for a missing tile: encoded once per format
// and size by sharp (libvips' threads, not the event loop), then kept. JPEG has no alpha: white.
// An empty vector tile is a tile with no layers: no bytes.
import sharp from 'sharp'
import { MVT_FORMAT, type TileFormat } from './formats.js'

const made = new Map<string, Promise<Buffer>>()

export function blankTile (format: TileFormat, width: number, height: number): Promise<Buffer> {
  if (format === MVT_FORMAT) return Promise.resolve(Buffer.alloc(0))
  const key = `${format}/${width}x${height}`
  let p = made.get(key)
  if (!p) {
    const img = sharp({ create: { width, height, channels: 4, background: { r: 255, g: 255, b: 255, alpha: format === 'image/jpeg' ? 1 : 0 } } })
    p = (format === 'image/jpeg' ? img.flatten({ background: '#ffffff' }).jpeg() : format === 'image/webp' ? img.webp({ lossless: true }) : img.png()).toBuffer()
    p.catch(() => made.delete(key))
    made.set(key, p)
  }
  return p
}
