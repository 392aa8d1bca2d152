// The encode ceilings of the tile-cache bench (issue 37): the same tiles the seed made, decoded
// back to pixels, encoded again by two threads set up as render threads, for at least
// MW_BENCH_CEILING_SECS seconds (default 6) so the machine's load swings average out. One fixed
// tile, as before, made the ceiling depend on that tile's content (an opaque interior tile costs
// more to encode than the seed's mix of edge, white and transparent tiles) and a 1-2 s loop
// depend on the moment. Each ceiling reports both throughput (tiles/s, wall) and the process's CPU
// per tile (process.cpuUsage: every thread of the process, so the load of other processes on the
// machine does not enter it). The ceiling's threads, and every other thread of the process but the
// event loop's (libuv's pool, where sharp encodes), run at the render threads' nice value
// (MAPWARDEN_RENDER_NICE, default 10), as a seed's do: at nice 0 against a seed at nice 10 the
// ratio measured how much CPU other processes took, not mapwarden (issue 37's swing).
import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { Piscina } from 'piscina'
import type { EncodeFormat, PngOptions } from '../services/render/tile-encode.js'
import { backgroundThreadPriority } from '../services/render/render-pool.js'

export const CEILING_SECS = Number(process.env.MW_BENCH_CEILING_SECS ?? 6)
/** The render threads' nice value of the instances the bench starts (config's default: harness.ts gives them no env). */
export const RENDER_NICE = 10

/** Up to `max` seeded tiles of a directory tree (every k-th file, sorted, so all zoom levels show), as 256x256 RGBA. */
export async function sampleTiles (dir: string, ext: string, max = 400): Promise<Uint8Array[]> {
  const files: string[] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p); else if (e.name.endsWith(ext)) files.push(p)
    }
  }
  walk(dir)
  const step = Math.max(1, Math.floor(files.length / max))
  const out: Uint8Array[] = []
  for (let i = 0; i < files.length && out.length < max; i += step) {
    const { data, info } = await sharp(files[i]).ensureAlpha().raw().toBuffer({ resolveWithObject: true })
    if (info.width === 256 && info.height === 256) out.push(new Uint8Array(data))
  }
  if (!out.length) throw new Error(`no ${ext} tiles under ${dir}`)
  return out
}

export interface Ceiling { tps: number, cpuMsPerTile: number, avg: number, tiles: number, secs: number }

/** Encodes the sample on two threads in rounds until CEILING_SECS have passed. */
export async function encodeCeiling (tiles: Uint8Array[], format: EncodeFormat, opts: { quality?: number, png?: PngOptions } = {}, secs = CEILING_SECS): Promise<Ceiling> {
  const shared = new SharedArrayBuffer(tiles.length * 256 * 256 * 4)
  tiles.forEach((t, i) => new Uint8Array(shared).set(t, i * 256 * 256 * 4))
  const pool = new Piscina({ filename: new URL('./encode-ceiling-worker.js', import.meta.url).href, minThreads: 2, maxThreads: 2, execArgv: [], workerData: { tiles: shared, nice: RENDER_NICE } })
  try {
    // One warm-up round per thread (thread start, sharp's load), not counted.
    await Promise.all([0, 1].map((k) => pool.run({ from: k, count: 4, format, ...opts })))
    backgroundThreadPriority(RENDER_NICE)() // libuv's pool and helpers, as createRenderPool does
    let done = 0
    let bytes = 0
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    const per = 50
    let next = 0
    const thread = async () => {
      while (performance.now() - t0 < secs * 1000) {
        const from = next; next += per
        const b = await pool.run({ from, count: per, format, ...opts }) as number // (not `bytes += await`: the two loops would overwrite each other's sum)
        bytes += b
        done += per
      }
    }
    await Promise.all([thread(), thread()])
    const wall = (performance.now() - t0) / 1000
    const cpu = process.cpuUsage(cpu0)
    return { tps: done / wall, cpuMsPerTile: (cpu.user + cpu.system) / 1000 / done, avg: bytes / done, tiles: done, secs: wall }
  } finally { await pool.destroy() }
}
