// Memory of one vector map of many features (issue 34: "memory bounded for a map of a million
// features"): MW_BENCH_VECTORMEM_ROWS points (default 1,000,000; points-db.ts's `pts` in a
// throwaway database of MW_BENCH_PG) drawn in one WMS GetMap 1024x768 PNG of the whole world with
// GeoServer's default point style; the process's peak RSS (server, render threads and client are
// this process) over its RSS before, sampled every 20 ms, and the request's time. No baseline: the
// figure to hold is the peak, which must not grow with the rows (compare a run at 200,000).
import http from 'node:http'
import { startMapwarden, type Figure } from './harness.js'
import { pointsDatabase } from './points-db.js'
import { publishBenchLayers } from './vectorwms.js'

const ROWS = Number(process.env.MW_BENCH_VECTORMEM_ROWS ?? 1_000_000)
const MAP = 'SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&STYLES=&SRS=EPSG:4326&BBOX=-180,-135,180,135&WIDTH=1024&HEIGHT=768&FORMAT=image/png&TRANSPARENT=true&LAYERS=vb:pts'
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d

/** A PNG GET without fetch's 300 s wait for the headers: a slow map is measured, not abandoned. */
function get (url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      const parts: Buffer[] = []
      res.on('data', (c: Buffer) => parts.push(c))
      res.on('error', reject)
      res.on('end', () => {
        const body = Buffer.concat(parts)
        if (res.statusCode !== 200 || res.headers['content-type'] !== 'image/png') reject(new Error(`${res.statusCode} ${body.toString('latin1').slice(0, 300)}`))
        else resolve(body)
      })
    }).on('error', reject)
  })
}

export async function run (): Promise<Figure[]> {
  const db = await pointsDatabase(ROWS)
  try {
    const mw = await startMapwarden({ workerThreads: 1, wmsMaxFeatures: ROWS + 1 })
    try {
      await publishBenchLayers(mw, db, ['pts'])
      // A small map first: the render thread started and the store's connection open before measuring.
      const small = await fetch(`${mw.url}/geoserver/wms?${MAP.replace('BBOX=-180,-135,180,135', 'BBOX=0,0,0.01,0.01')}`)
      if (!small.ok) throw new Error(`warm-up GetMap: ${small.status} ${await small.text()}`)
      await small.arrayBuffer()
      global.gc?.()
      const before = process.memoryUsage().rss
      let peak = before
      const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 20)
      const t0 = performance.now()
      let bytes: number
      try {
        const body = await get(`${mw.url}/geoserver/wms?${MAP}`)
        bytes = body.length
        if (process.env.MW_BENCH_SAVE) (await import('node:fs')).writeFileSync(process.env.MW_BENCH_SAVE, body)
      } finally { clearInterval(timer) }
      const seconds = (performance.now() - t0) / 1000
      peak = Math.max(peak, process.memoryUsage().rss)
      return [
        { name: `GetMap 1024x768 PNG of ${ROWS} points, peak RSS over before`, value: round((peak - before) / 2 ** 20, 1), unit: 'MB', note: `peak ${round(peak / 2 ** 20, 1)} MB, before ${round(before / 2 ** 20, 1)} MB; ${bytes} bytes` },
        { name: `GetMap 1024x768 PNG of ${ROWS} points, time`, value: round(seconds), unit: 's' }
      ]
    } finally { await mw.close() }
  } finally { await db.drop() }
}
