// Tile cache figures (not a test): seeding throughput against the encode ceilings of
// encode-ceiling.ts (the seed's own tiles encoded again on two threads at the render threads' nice
// value for >= 6 s; wall ratio, and CPU per tile, which other processes' load does not move) and against gdal2tiles with two processes, on the shared benchmark mosaic
// (../shared/bench/make-mosaic.sh -> /tmp/bench-data); peak RSS and the longest event-loop
// stall while seeding; cached-tile GET requests/s against @fastify/static serving the same file.
// The issue's reference run: zoom 0..10 (MW_BENCH_TILECACHE_ZOOM) in EPSG:900913 and EPSG:4326
// (MW_BENCH_TILECACHE_4326=0 or MW_BENCH_TILECACHE_900913=0 leaves one out). gdal2tiles is by far
// the slowest part (minutes per grid set on this machine); MW_BENCH_GDAL2TILES=0 skips it while
// iterating. MapProxy 1.15 over MapServer 8 (mapproxy.ts) seeds the same EPSG:900913 levels right
// after; MW_BENCH_MAPPROXY=0 skips it. When a baseline program is missing the bench runs
// scripts/install-bench-tools.sh (root only) before giving up on it.
import type { FastifyInstance } from 'fastify'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { pipeline } from 'node:stream/promises'
import yazl from 'yazl'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { AUTH, againstStatic, haveBenchTool, startMapwarden } from './harness.js'
import { CEILING_SECS, encodeCeiling, sampleTiles, type Ceiling } from './encode-ceiling.js'
import { GRID_SETS, tilesHigh } from '../services/tilecache/grid-sets.js'
import { mapProxySeed } from './mapproxy.js'
import { BENCH_LONLAT } from './mapserver.js'
import type { TileEvent } from '../services/tilecache/blob-store.js'
import { BENCH_DATA as DATA, NO_BENCH_DATA } from './data.js'

type Figure = { name: string, value: number, unit: string, note?: string }
const ZOOM = Number(process.env.MW_BENCH_TILECACHE_ZOOM ?? 10)
const GRIDS = ['EPSG:900913', 'EPSG:4326'].filter((g) => process.env[`MW_BENCH_TILECACHE_${g.slice(5)}`] !== '0')
const GDAL2TILES = process.env.MW_BENCH_GDAL2TILES !== '0'
const MAPPROXY = process.env.MW_BENCH_MAPPROXY !== '0'
const AUTH_HEADERS = { authorization: AUTH }
const ceilingNote = (c: Ceiling, n: number) => `${c.tiles} encodes of ${n} sampled tiles in ${c.secs.toFixed(1)} s (>= ${CEILING_SECS} s), ${round(c.cpuMsPerTile)} ms CPU per tile, avg ${Math.round(c.avg)} bytes`

/** The four bench granules as a stored (uncompressed) ZIP, and a function that removes it. */
export async function benchMosaicZip (): Promise<{ file: string, dispose: () => void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-zip-'))
  const file = path.join(dir, 'mosaic.zip')
  const zip = new yazl.ZipFile()
  for (const name of fs.readdirSync(path.join(DATA, 'granules')).filter((n) => n.endsWith('.tif'))) {
    zip.addFile(path.join(DATA, 'granules', name), name, { compress: false })
  }
  zip.end()
  await pipeline(zip.outputStream, fs.createWriteStream(file))
  return { file, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

/** The four bench granules as one mosaic layer `bench:mosaic`. */
export async function createMosaic (app: FastifyInstance): Promise<string> {
  await app.workspaces.create({ name: 'bench' })
  const zip = await benchMosaicZip()
  try {
    await app.mosaics.upload('bench', 'mosaic', zip.file, { configure: 'first' })
  } finally { zip.dispose() }
  return 'bench:mosaic'
}

async function seed (app: FastifyInstance, layer: string, gridSetId: string, format = 'image/png') {
  let tiles = 0
  let bytes = 0
  let first: TileEvent | undefined
  app.tileCache.store.onTileWritten((e) => { if (e.gridSet === gridSetId) { tiles++; bytes += e.bytes; first ??= e } })
  const loop = monitorEventLoopDelay({ resolution: 10 })
  let rss = process.memoryUsage.rss()
  const sampler = setInterval(() => { rss = Math.max(rss, process.memoryUsage.rss()) }, 50)
  loop.enable()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const res = await app.inject({
    method: 'POST',
    url: `/geoserver/tilecache/rest/seed/${layer}.json`,
    headers: { ...AUTH_HEADERS, 'content-type': 'application/json' },
    payload: JSON.stringify({ seedRequest: { gridSetId, zoomStart: 0, zoomStop: ZOOM, type: 'seed', format, threadCount: 4 } })
  })
  if (res.statusCode !== 200) throw new Error(`seed: ${res.statusCode} ${res.body}`)
  await app.tileCache.breeder.idle()
  const secs = (performance.now() - t0) / 1000
  const cpu = process.cpuUsage(cpu0)
  loop.disable()
  clearInterval(sampler)
  const failed = app.tileCache.breeder.list().length
  // CPU of every thread of the process (event loop, render threads, libuv's pool) per tile.
  const cpuMsPerTile = (cpu.user + cpu.system) / 1000 / Math.max(1, tiles)
  return { tiles, bytes, secs, cpuMsPerTile, rss, maxLoopMs: loop.max / 1e6, p99LoopMs: loop.percentile(99) / 1e6, first: first!, failed }
}

/** The seed's own tiles of a grid set and format (the folder of its first tile), decoded: what the ceilings encode. */
function seededTiles (app: FastifyInstance, first: TileEvent): Promise<Uint8Array[]> {
  return sampleTiles(path.dirname(path.dirname(path.dirname(app.tileCache.store.tilePath(first)))), path.extname(app.tileCache.store.tilePath(first)))
}

const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

const haveGdal2tiles = () => haveBenchTool(() => spawnSync('which', ['gdal2tiles.py']).status === 0)

function gdal2tiles (profile: 'mercator' | 'geodetic') {
  if (!haveGdal2tiles()) return undefined
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'g2t-'))
  const t0 = performance.now()
  // --tmscompatible: GWC's EPSG:4326 levels (2 tiles at zoom 0); without it gdal2tiles' geodetic
  // zoom n is GWC's n-1 (a quarter of the tiles, at twice the resolution).
  const args = ['--xyz', '-z', `0-${ZOOM}`, '--processes=2', '-p', profile, ...(profile === 'geodetic' ? ['--tmscompatible'] : []), '-n', '-w', 'none', '-q']
  const r = spawnSync('gdal2tiles.py', [...args, path.join(DATA, 'mosaic.vrt'), out], { stdio: 'ignore' })
  const secs = (performance.now() - t0) / 1000
  let tiles = 0
  let bytes = 0
  const walk = (d: string) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else if (e.name.endsWith('.png')) { tiles++; bytes += fs.statSync(p).size } } }
  walk(out)
  fs.rmSync(out, { recursive: true, force: true })
  return r.status === 0 ? { tiles, bytes, secs } : undefined
}


type SeedRun = { tiles: number, bytes: number, secs: number }

function gdal2tilesFigures (gs: string, r: SeedRun): Figure[] {
  const profile = gs === 'EPSG:900913' ? 'mercator' : 'geodetic'
  const g = gdal2tiles(profile)
  if (!g) return [{ name: `gdal2tiles ${profile}`, value: 0, unit: '', note: 'gdal2tiles.py not installed or failed' }]
  return [
    { name: `gdal2tiles ${profile} z0-${ZOOM} (2 processes)`, value: round(g.tiles / g.secs), unit: 'tiles/s', note: `${g.tiles} tiles, avg ${Math.round(g.bytes / g.tiles)} bytes` },
    { name: `tilecache seed ${gs} / gdal2tiles`, value: round((r.tiles / r.secs) / (g.tiles / g.secs)), unit: 'ratio', note: 'target >= 5' },
    { name: `tilecache ${gs} avg tile size / gdal2tiles`, value: round((r.bytes / r.tiles) / (g.bytes / g.tiles)), unit: 'ratio', note: 'target <= 1.0' }]
}

/** MapProxy + MapServer seeding the same extent and levels; a failure or a hang fails these figures only. */
async function mapProxyFigures (gs: string, r: SeedRun): Promise<Figure[]> {
  const name = `MapProxy 1.15 + MapServer 8 seed ${gs} z0-${ZOOM} (concurrency 2)`
  let mp
  try {
    mp = await mapProxySeed(path.join(DATA, 'mosaic.vrt'), BENCH_LONLAT, ZOOM)
  } catch (err) {
    return [{ name, value: 0, unit: '', note: `failed: ${(err as Error).message.replace(/\s+/g, ' ').slice(0, 300)}` }]
  }
  if (!mp) return [{ name, value: 0, unit: '', note: 'python3-mapproxy or cgi-mapserver not installed' }]
  return [
    { name, value: round(mp.tiles / mp.secs), unit: 'tiles/s', note: `${mp.tiles} tiles of the levels' ranges in ${mp.secs.toFixed(1)} s (${mp.written} stored: whole metatiles), avg ${Math.round(mp.bytes / Math.max(1, mp.tiles))} bytes` },
    { name: `tilecache seed ${gs} / MapProxy + MapServer`, value: round((r.tiles / r.secs) / (mp.tiles / mp.secs)), unit: 'ratio', note: `target >= 3; ${r.tiles} tiles for mapwarden, ${mp.tiles} for MapProxy` }]
}

export async function run (): Promise<Figure[]> {
  if (!fs.existsSync(path.join(DATA, 'mosaic.vrt'))) {
    return [{ name: 'tilecache: skipped', value: 0, unit: '', note: NO_BENCH_DATA }]
  }
  const figures: Figure[] = []
  const { app, url, close } = await startMapwarden({ harvestRoots: [DATA], workerThreads: 2 })
  try {
    const layer = await createMosaic(app)
    // The same stall measure with nothing to do, on this (shared) machine, as its baseline.
    const idle = monitorEventLoopDelay({ resolution: 10 })
    idle.enable()
    await new Promise((resolve) => setTimeout(resolve, 3000))
    idle.disable()
    figures.push({ name: 'event-loop stall while idle (baseline)', value: round(idle.max / 1e6), unit: 'ms', note: 'scheduler noise from other processes on the machine' })
    const seeded: Record<string, Awaited<ReturnType<typeof seed>>> = {}
    const samples: Record<string, Uint8Array[]> = {}
    for (const gs of GRIDS) {
      seeded[gs] = await seed(app, layer, gs)
      const r = seeded[gs]
      if (r.failed) throw new Error(`seed ${gs}: ${r.failed} task(s) left`)
      figures.push(
        { name: `tilecache seed ${gs} z0-${ZOOM} PNG`, value: round(r.tiles / r.secs), unit: 'tiles/s', note: `${r.tiles} tiles in ${r.secs.toFixed(1)} s` },
        { name: `tilecache seed ${gs} avg tile size`, value: Math.round(r.bytes / Math.max(1, r.tiles)), unit: 'bytes' },
        { name: `tilecache seed ${gs} peak RSS`, value: Math.round(r.rss / 2 ** 20), unit: 'MB', note: `whole process, worker threads included; MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? 'unset'}, MALLOC_MMAP_THRESHOLD_=${process.env.MALLOC_MMAP_THRESHOLD_ ?? 'unset'}, node ${process.execArgv.join(' ') || 'without flags'}; target < 400` },
        { name: `tilecache seed ${gs} longest event-loop stall`, value: round(r.maxLoopMs), unit: 'ms', note: 'monitorEventLoopDelay while seeding; target <= 50' },
        { name: `tilecache seed ${gs} event-loop delay p99`, value: round(r.p99LoopMs), unit: 'ms', note: 'same histogram' })
      // The ceilings right after the seed they are compared with (the machine's load drifts): the
      // seed's own tiles (a sample of every level, decoded), encoded again for CEILING_SECS each.
      const sample = await seededTiles(app, r.first)
      samples[gs] = sample
      const sharpPng = await encodeCeiling(sample, 'image/png', { png: { compressionLevel: 6, adaptiveFiltering: false } })
      const ownPng = await encodeCeiling(sample, 'image/png')
      figures.push(
        { name: `sharp PNG encode ceiling (defaults), 2 threads, the seed's tiles`, value: round(sharpPng.tps), unit: 'tiles/s', note: ceilingNote(sharpPng, sample.length) },
        { name: `mapwarden PNG encode ceiling, 2 threads, the seed's tiles`, value: round(ownPng.tps), unit: 'tiles/s', note: ceilingNote(ownPng, sample.length) },
        { name: `tilecache seed ${gs} / encode ceiling`, value: round(r.tiles / r.secs / sharpPng.tps), unit: 'ratio', note: 'target >= 0.9' },
        { name: `tilecache seed ${gs} / mapwarden's encode ceiling`, value: round(r.tiles / r.secs / ownPng.tps), unit: 'ratio', note: `target >= 0.7; load ${loadavg()}` },
        { name: `tilecache seed ${gs} CPU per tile`, value: round(r.cpuMsPerTile), unit: 'ms', note: 'process.cpuUsage over the seed (all threads) / tiles' },
        { name: `tilecache seed ${gs}: mapwarden's encode CPU / the seed's CPU per tile`, value: round(ownPng.cpuMsPerTile / r.cpuMsPerTile), unit: 'ratio', note: 'the throughput ratio on an idle machine; the load of other processes does not move it' })
      // gdal2tiles on the same data and zooms, right after (the machine's load drifts).
      if (GDAL2TILES) figures.push(...gdal2tilesFigures(gs, r))
      // MapProxy over MapServer, likewise (EPSG:900913 only: MapProxy's GLOBAL_WEBMERCATOR grid).
      if (MAPPROXY && gs === 'EPSG:900913') figures.push(...await mapProxyFigures(gs, r))
    }
    // The same seed built as a pyramid (MAPWARDEN_SEED_PYRAMID=true), on a second instance: what
    // drawing the upper levels from the level below saves or costs against rendering them.
    const pyr = await startMapwarden({ harvestRoots: [DATA], workerThreads: 2, seedPyramid: true })
    try {
      const pyramid = await seed(pyr.app, await createMosaic(pyr.app), GRIDS[0])
      const direct = seeded[GRIDS[0]]
      figures.push(
        { name: `tilecache seed ${GRIDS[0]} z0-${ZOOM} as a pyramid`, value: round(pyramid.tiles / pyramid.secs), unit: 'tiles/s', note: `${pyramid.tiles} tiles in ${pyramid.secs.toFixed(1)} s` },
        { name: `tilecache seed ${GRIDS[0]} pyramid / direct`, value: round((pyramid.tiles / pyramid.secs) / (direct.tiles / direct.secs)), unit: 'ratio', note: 'above 1: building levels from the level below is faster' })
    } finally { await pyr.close() }
    // JPEG at quality 85 and WebP, each against its own encode ceiling right after it (one instance
    // set to MAPWARDEN_JPEG_QUALITY=85, a cache of its own).
    const q85 = await startMapwarden({ harvestRoots: [DATA], workerThreads: 2, jpegQuality: 85 })
    try {
      const l = await createMosaic(q85.app)
      // The first grid set's PNG tiles (lossless: their alpha kept) are the pixels these seeds encode.
      const sample = samples[GRIDS[0]]
      for (const format of ['image/jpeg', 'image/webp'] as const) {
        const before = await encodeCeiling(sample, format, { quality: 85 })
        const f = await seed(q85.app, l, GRIDS[0], format)
        const after = await encodeCeiling(sample, format, { quality: 85 })
        const tps = (before.tps + after.tps) / 2
        const cpu = (before.cpuMsPerTile + after.cpuMsPerTile) / 2
        const label = format === 'image/jpeg' ? 'JPEG q85' : 'WebP q85'
        figures.push(
          { name: `tilecache seed ${GRIDS[0]} z0-${ZOOM} ${label}`, value: round(f.tiles / f.secs), unit: 'tiles/s', note: `${f.tiles} tiles in ${f.secs.toFixed(1)} s, avg ${Math.round(f.bytes / Math.max(1, f.tiles))} bytes, ${round(f.cpuMsPerTile)} ms CPU per tile${format === 'image/jpeg' ? ' (the instance\'s first seed: its render threads start cold)' : ''}` },
          { name: `sharp ${label} encode ceiling, 2 threads, the seed's tiles`, value: round(tps), unit: 'tiles/s', note: `mean of before the seed (${round(before.tps)}) and after (${round(after.tps)}); ${ceilingNote(after, sample.length)}` },
          { name: `tilecache seed ${label} / encode ceiling`, value: round((f.tiles / f.secs) / tps), unit: 'ratio', note: `${format === 'image/jpeg' ? 'target >= 0.6' : 'target >= 0.7'}; load ${loadavg()}` },
          { name: `tilecache seed ${label}: encode CPU / the seed's CPU per tile`, value: round(cpu / f.cpuMsPerTile), unit: 'ratio', note: 'the throughput ratio on an idle machine; the load of other processes does not move it' })
      }
    } finally { await q85.close() }
    const m = seeded[GRIDS[0]]
    // Cached GET: the same stored file through the XYZ route and through @fastify/static.
    const e = m.first
    const gs = GRID_SETS[GRIDS[0] as keyof typeof GRID_SETS]
    const tileUrl = `${url}/geoserver/tilecache/service/xyz/${layer}/${GRIDS[0]}/${e.z}/${e.x}/${tilesHigh(gs, e.z) - 1 - e.y}.png`
    const { ours, theirs } = await againstStatic(tileUrl, app.tileCache.store.tilePath(e))
    figures.push(
      { name: 'cached tile GET (XYZ)', value: round(ours), unit: 'req/s' },
      { name: '@fastify/static GET of the same file', value: round(theirs), unit: 'req/s' },
      { name: 'cached tile GET / @fastify/static', value: round(ours / theirs), unit: 'ratio', note: 'target >= 0.8' })
  } finally {
    await close()
  }
  return figures
}

const round = (n: number) => Math.round(n * 100) / 100

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((f) => { for (const x of f) console.log(`${x.name}: ${x.value} ${x.unit}${x.note ? ` (${x.note})` : ''}`) })
}
