// Where a seed's time goes (issue 37), run alone: `node --cpu-prof --cpu-prof-dir=DIR
// dist/bench/seed-profile.js` then `node dist/bench/profile-split.js DIR`. Seeds EPSG:900913
// z0-MW_PROFILE_ZOOM (default 9) of the bench mosaic as PNG, then as JPEG q85, on one instance of
// two render threads, and prints each seed's process CPU per tile (every thread: the event loop,
// the render threads, libuv's pool where sharp encodes and files are written) and the event
// loop's busy time per tile, against the encode ceiling's CPU per tile on the same tiles
// (encode-ceiling.ts). CPU per tile does not move with the load of other processes, as tiles/s does.
import fs from 'node:fs'
import { performance } from 'node:perf_hooks'
import { startMapwarden } from './harness.js'
import { createMosaic } from './tilecache.js'
import { AUTH } from './harness.js'
import { encodeCeiling, sampleTiles } from './encode-ceiling.js'
import { BENCH_DATA } from './data.js'

const ZOOM = Number(process.env.MW_PROFILE_ZOOM ?? 9)
const GS = 'EPSG:900913'

const mw = await startMapwarden({ harvestRoots: [BENCH_DATA], workerThreads: 2, jpegQuality: 85 })
const layer = await createMosaic(mw.app)
const out: Record<string, unknown> = { load: fs.readFileSync('/proc/loadavg', 'utf8').trim() }
let pngTiles: Uint8Array[] = []
const FORMATS = (process.env.MW_PROFILE_FORMATS ?? 'image/png,image/jpeg').split(',') as Array<'image/png' | 'image/jpeg'>
for (const [i, format] of FORMATS.entries()) {
  let tiles = 0
  let bytes = 0
  mw.app.tileCache.store.onTileWritten((e) => { if (e.gridSet === GS && e.format === format) { tiles++; bytes += e.bytes } })
  const elu0 = performance.eventLoopUtilization()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const res = await mw.app.inject({
    method: 'POST',
    url: `/geoserver/tilecache/rest/seed/${layer}.json`,
    headers: { authorization: AUTH, 'content-type': 'application/json' },
    payload: JSON.stringify({ seedRequest: { gridSetId: GS, zoomStart: 0, zoomStop: ZOOM, type: 'seed', format, threadCount: 4 } })
  })
  if (res.statusCode !== 200) throw new Error(res.body)
  await mw.app.tileCache.breeder.idle()
  const secs = (performance.now() - t0) / 1000
  const cpu = process.cpuUsage(cpu0)
  const elu = performance.eventLoopUtilization(elu0)
  // The ceiling's tiles: the seed's own, decoded (the first seed's; PNG keeps their alpha).
  if (i === 0) pngTiles = await sampleTiles(mw.app.tileCache.store.root, format === 'image/png' ? '.png' : '.jpeg')
  const c = await encodeCeiling(pngTiles, format, format === 'image/jpeg' ? { quality: 85 } : {})
  out[`${i}:${format}`] = {
    tiles,
    avgBytes: Math.round(bytes / Math.max(1, tiles)),
    tps: +(tiles / secs).toFixed(1),
    cpuMsPerTile: +((cpu.user + cpu.system) / 1000 / tiles).toFixed(3),
    sysMsPerTile: +(cpu.system / 1000 / tiles).toFixed(3),
    loopBusyMsPerTile: +(elu.active / tiles).toFixed(3),
    ceiling: { tps: +c.tps.toFixed(1), avgBytes: Math.round(c.avg), cpuMsPerTile: +c.cpuMsPerTile.toFixed(3), tiles: c.tiles, sample: pngTiles.length },
    wallRatio: +((tiles / secs) / c.tps).toFixed(3),
    cpuRatio: +(c.cpuMsPerTile / ((cpu.user + cpu.system) / 1000 / tiles)).toFixed(3)
  }
  console.log(format, i === 0 ? '(first seed of the instance)' : '', JSON.stringify(out[`${i}:${format}`]))
}
out.loadAfter = fs.readFileSync('/proc/loadavg', 'utf8').trim()
console.log(JSON.stringify(out, null, 1))
await mw.close()
