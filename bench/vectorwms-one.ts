// One labelled Natural Earth 1:10m countries GetMap (vectorwms.ts's map) timed alone, a few times,
// with nothing else running in the process: for profiling and for before/after figures of one
// request. `node --cpu-prof` profiles the server's thread only: the pool terminates its render
// threads on close, before they write theirs (an inspector session in the worker does it).
// `node dist/bench/vectorwms-one.js [repeats]`; MW_BENCH_PG as the other benches. Prints the wall
// time and the CPU time of this process (all its threads; PostgreSQL's aside) of each request.
import { startMapwarden } from './harness.js'
import { pointsDatabase } from './points-db.js'
import { countryTables } from '../test/fixtures/vector/countries.js'
import { publishBenchLayers } from './vectorwms.js'

const MAP = 'SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&STYLES=&SRS=EPSG:4326&BBOX=-180,-135,180,135&WIDTH=1024&HEIGHT=768&FORMAT=image/png&TRANSPARENT=true'
const repeats = Number(process.argv[2] ?? 7)

const db = await pointsDatabase(1)
try {
  await countryTables(db.url.href, '10m')
  const mw = await startMapwarden({ workerThreads: 1 })
  try {
    await publishBenchLayers(mw, db, ['countries'])
    const url = `${mw.url}/geoserver/wms?${MAP}&LAYERS=vb:countries`
    const times: number[] = []
    const cpu: number[] = []
    let bytes = 0
    for (let i = 0; i <= repeats; i++) {
      const t0 = performance.now()
      const c0 = process.cpuUsage()
      const r = await fetch(url)
      const body = Buffer.from(await r.arrayBuffer())
      if (!r.ok || r.headers.get('content-type') !== 'image/png') throw new Error(`${r.status} ${body.toString('latin1').slice(0, 300)}`)
      const c = process.cpuUsage(c0)
      if (i > 0) { times.push(performance.now() - t0); cpu.push((c.user + c.system) / 1000) } // the first starts the render thread
      bytes = body.length
      if (process.env.MW_BENCH_SAVE && i === repeats) (await import('node:fs')).writeFileSync(process.env.MW_BENCH_SAVE, body)
    }
    const median = (v: number[]) => Math.round([...v].sort((a, b) => a - b)[Math.floor(v.length / 2)])
    // CPU: this process's, every thread (server, render thread, libuv's pool), PostgreSQL's aside.
    console.log(`times ms: ${times.map((t) => Math.round(t)).join(' ')}; median ${median(times)} ms; CPU median ${median(cpu)} ms; ${bytes} bytes`)
  } finally { await mw.close() }
} finally { await db.drop() }
