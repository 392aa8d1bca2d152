// Vector WMS (issue 34), every figure against MapServer 8 in the same run, on the same PostGIS
// tables of a throwaway database of MW_BENCH_PG:
// - GetMap 1024x768 PNG of Natural Earth 1:10m countries (world-atlas; test/fixtures/vector/
//   countries.ts) filled, outlined and labelled with their names, the whole world, against
//   MapServer 8 (python3-mapscript in two processes, as wms.ts) drawing the equivalent mapfile: 20
//   clients each asking MW_BENCH_VECTORWMS_ROUNDS (default 3) maps one after the other, throughput
//   as all the maps over the time until the last is answered, and each side's p99. A fixed count,
//   not a fixed window: MapServer draws one such map in 3 s or more, so 20 clients wait 30 s and
//   more for each answer, and a window of autocannon's (10 s timeout, answers after the window
//   not counted) measured its queue filling, not its pace;
// - one GetMap of MW_BENCH_VECTORWMS_ROWS points (default 1,000,000: points-db.ts's `pts`) in one
//   map, mapwarden's peak RSS over its RSS before (server and client in this process) and its time,
//   against MapServer's time for the same map.
// MapServer: scripts/install-bench-tools.sh (root only).
import http from 'node:http'
import os from 'node:os'
import { startMapwarden, AUTH, type Figure } from './harness.js'
import type { FastifyInstance } from 'fastify'
import { pointsDatabase, type PointsDatabase } from './points-db.js'
import { haveMapscript, startMapscript } from './wms.js'
import { countryMapfile, countrySlds, countryTables } from '../test/fixtures/vector/countries.js'

const ROUNDS = Number(process.env.MW_BENCH_VECTORWMS_ROUNDS ?? 3)
const ROWS = Number(process.env.MW_BENCH_VECTORWMS_ROWS ?? 1_000_000)
const CONNECTIONS = 20
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d
// The world in square pixels: 360 / 1024 degrees each way.
const MAP = 'SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&STYLES=&SRS=EPSG:4326&BBOX=-180,-135,180,135&WIDTH=1024&HEIGHT=768&FORMAT=image/png&TRANSPARENT=true'

// A connection per request (MapServer's Python server speaks HTTP/1.0), without a connect or answer
// timeout: under 20 clients it accepts slowly (fetch's 10 s connect timeout failed a loaded run)
// and answers late.
const agent = new http.Agent({ keepAlive: false })

/** The time of one GET answered with a PNG. */
async function timedGet (url: string): Promise<number> {
  const t0 = performance.now()
  const { status, type, body } = await new Promise<{ status: number, type: string, body: Buffer }>((resolve, reject) => {
    http.get(url, { agent }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks) }))
      res.on('error', reject)
    }).on('error', reject)
  })
  if (status !== 200 || type !== 'image/png') throw new Error(`${url.slice(0, 120)}: ${status} ${body.toString('latin1').slice(0, 300)}`)
  return (performance.now() - t0) / 1000
}

/**
 * CONNECTIONS clients, each asking `url` ROUNDS times one after the other: maps per second over
 * the time until the last answer, and the p99 of the answers' times.
 */
async function clients (url: string): Promise<{ rps: number, p99: number }> {
  const times: number[] = []
  const t0 = performance.now()
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    for (let i = 0; i < ROUNDS; i++) times.push(await timedGet(url))
  }))
  const wall = (performance.now() - t0) / 1000
  times.sort((a, b) => a - b)
  return { rps: times.length / wall, p99: Math.round(times[Math.ceil(times.length * 0.99) - 1] * 1000) }
}

/**
 * The bench's PostGIS database published on `mw`: workspace `vb`, store `vb:db`, and the `layers`
 * named (the countries styled filled, outlined and labelled; the points with the default style).
 */
export async function publishBenchLayers (mw: { app: FastifyInstance }, db: PointsDatabase, layers: Array<'countries' | 'pts'>): Promise<void> {
  const inject = async (method: 'POST' | 'PUT', url: string, payload: object | string, type = 'application/json') => {
    const r = await mw.app.inject({ method, url: `/geoserver/rest${url}`, headers: { authorization: AUTH, 'content-type': type }, payload })
    if (r.statusCode !== 201 && r.statusCode !== 200) throw new Error(`${method} ${url}: ${r.statusCode} ${r.body}`)
  }
  await inject('POST', '/workspaces', { workspace: { name: 'vb' } })
  await inject('POST', '/workspaces/vb/datastores', { dataStore: { name: 'db', connectionParameters: { entry: [
    { '@key': 'host', $: db.url.hostname }, { '@key': 'port', $: db.url.port || '5432' }, { '@key': 'database', $: db.name },
    { '@key': 'user', $: decodeURIComponent(db.url.username) || 'postgres' }, { '@key': 'dbtype', $: 'postgis' }
  ] } } })
  for (const name of layers) {
    await inject('POST', '/workspaces/vb/datastores/db/featuretypes', { featureType: { name } })
    if (name === 'countries') {
      await inject('POST', '/workspaces/vb/styles?name=countries', countrySlds({ labels: true }).countries, 'application/vnd.ogc.sld+xml')
      await inject('PUT', '/layers/vb:countries', { layer: { defaultStyle: { name: 'vb:countries' } } })
    }
  }
}

export async function run (): Promise<Figure[]> {
  const figures: Figure[] = []
  const load1 = os.loadavg()[0]
  const db = await pointsDatabase(ROWS)
  try {
    const { countries } = await countryTables(db.url.href, '10m')
    const mw = await startMapwarden({ workerThreads: 2, wmsMaxFeatures: ROWS + 1 })
    try {
      await publishBenchLayers(mw, db, ['countries', 'pts'])
      const ours = `${mw.url}/geoserver/wms?${MAP}&LAYERS=vb:countries`
      await timedGet(ours)
      const alone = await timedGet(ours) // one request alone, the pool idle
      // Warm-up, both render threads started and fonts read: two at once, each answered. (A short
      // loaded run would leave its unanswered requests drawing into the measured window.)
      await Promise.all([timedGet(ours), timedGet(ours)])
      const a = await clients(ours)
      figures.push({ name: `GetMap 1024x768 PNG, ${countries} countries with outlines and labels, ${CONNECTIONS} clients, mapwarden`, value: round(a.rps), unit: 'req/s', note: `${CONNECTIONS * ROUNDS} maps, p99 ${a.p99} ms; one request alone ${round(alone, 3)} s` })

      // One map of ROWS points: the default point style, the whole table at once.
      const pts = `${mw.url}/geoserver/wms?${MAP}&LAYERS=vb:pts`
      global.gc?.()
      const before = process.memoryUsage().rss
      let peak = before
      const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 20)
      let ptsTime: number
      try { ptsTime = await timedGet(pts) } finally { clearInterval(timer) }
      peak = Math.max(peak, process.memoryUsage().rss)
      figures.push({ name: `GetMap of ${ROWS} points, peak RSS over before`, value: round((peak - before) / 2 ** 20, 1), unit: 'MB', note: `peak ${round(peak / 2 ** 20, 1)} MB; ${round(ptsTime)} s` })

      if (haveMapscript()) {
        const ptsLayer = `  LAYER NAME "pts" TYPE POINT STATUS ON CONNECTIONTYPE POSTGIS
    CONNECTION "host=${db.url.hostname} port=${db.url.port || '5432'} dbname=${db.name} user=${decodeURIComponent(db.url.username) || 'postgres'}"
    DATA "geom FROM pts USING UNIQUE id USING SRID=4326" PROJECTION "init=epsg:4326" END
    CLASS STYLE SYMBOL "square" SIZE 6 COLOR 255 0 0 END END
  END
  SYMBOL NAME "square" TYPE VECTOR FILLED TRUE POINTS 0 0 0 1 1 1 1 0 0 0 END END
`
        const ms = await startMapscript((dir) => countryMapfile(db.url.href, dir, { labels: true, extraLayers: ptsLayer }), `${MAP}&LAYERS=countries`)
        try {
          const msAlone = await timedGet(ms.url)
          await Promise.all([timedGet(ms.url), timedGet(ms.url)])
          const b = await clients(ms.url)
          figures.push(
            { name: `GetMap 1024x768 PNG, countries with outlines and labels, ${CONNECTIONS} clients, MapServer 8 (mapscript, 2 processes)`, value: round(b.rps), unit: 'req/s', note: `${CONNECTIONS * ROUNDS} maps, p99 ${b.p99} ms; one request alone ${round(msAlone, 3)} s` },
            { name: 'vector GetMap mapwarden / MapServer', value: round(a.rps / b.rps), unit: 'ratio', note: `p99 ${a.p99} ms against ${b.p99} ms; target >= 1.0 with a lower p99` })
          const msPts = await timedGet(ms.url.replace('LAYERS=countries', 'LAYERS=pts'))
          figures.push({ name: `GetMap of ${ROWS} points, MapServer's time / ours`, value: round(msPts / ptsTime), unit: 'ratio', note: `MapServer ${round(msPts)} s, mapwarden ${round(ptsTime)} s` })
        } finally { ms.stop() }
      } else figures.push({ name: 'MapServer', value: 0, unit: '', note: 'python3-mapscript is not installed' })
    } finally { await mw.close() }
  } finally { agent.destroy(); await db.drop() }
  figures.push({ name: 'load average (1 min) at start / end', value: round(load1), unit: '', note: `end ${round(os.loadavg()[0])}, ${os.cpus().length} cores` })
  return figures
}
