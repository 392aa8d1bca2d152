// Bench only: a Piscina entry file that encodes given tiles in turn, as a render thread encodes a
// 1x1 metatile (services/render/tile-encode.ts cutAndEncode: the same alpha tests, the same sharp
// or mapwarden encoder settings), set up like a render thread: its nice value first (workerData.nice,
// as the seed's render threads: MAPWARDEN_RENDER_NICE), one libvips thread, no cache.
import '../workers/thread-priority.js' // first: before sharp starts libvips' threads, which inherit it
import sharp from 'sharp'
import { workerData } from 'node:worker_threads'
import { cutAndEncode, type EncodeFormat, type PngOptions } from '../services/render/tile-encode.js'

sharp.concurrency(1)
sharp.cache(false)

// The tiles: one SharedArrayBuffer of 256x256 RGBA tiles end to end (shared, not copied).
const all = new Uint8Array((workerData as { tiles: SharedArrayBuffer, nice: number }).tiles)
const TILE = 256 * 256 * 4
const count = all.length / TILE

export interface EncodeTilesTask { from: number, count: number, format: EncodeFormat, quality?: number, png?: PngOptions }

/** Encodes `count` tiles from tile `from`, cycling; returns the bytes made. */
export default async function encodeTiles (t: EncodeTilesTask): Promise<number> {
  let bytes = 0
  for (let i = 0; i < t.count; i++) {
    const k = (t.from + i) % count
    bytes += (await cutAndEncode(all.subarray(k * TILE, (k + 1) * TILE), 1, 1, 256, t.format, t.quality, t.png))[0].length
  }
  return bytes
}
