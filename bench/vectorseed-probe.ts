// Where a vector metatile's time goes (issue 34; run alone: `node dist/bench/vectorseed-probe.js`):
// the countries of vectorseed.ts (filled, outlined, labelled) in a throwaway PostGIS database, and
// every 4x4 metatile of EPSG:900913 levels 0..MW_PROBE_ZOOM (default 4) planned and drawn in this one
// thread, one after another, each stage timed: the plan (the PostGIS read, its rows to features),
// the SVG (WKB decoded, reprojected, simplified, written as SVG, labels placed), its rasterisation
// (sharp/librsvg on libuv's pool), and the tiles cut and encoded (nothing written). Prints each
// stage's wall time and CPU time (this process's, every thread: the stages run one at a time; and
// for the plan the database's, utime + stime of the backends serving the throwaway database from
// /proc), the rows and SVG characters per metatile. CPU time is the figure to compare on a loaded
// machine. MW_PROBE_PROFILE=file writes the CPU profile of the loop (an inspector session: the
// JavaScript side of each stage).
import fs from 'node:fs'
import pg from 'pg'
import sharp from 'sharp'
import { Session } from 'node:inspector/promises'
import { pointsDatabase } from './points-db.js'
import { countrySlds, countryTables } from '../test/fixtures/vector/countries.js'
import { createPostgisSource } from '../services/vector/postgis-source.js'
import { vectorStyleOf } from '../services/styles/vector-sld.js'
import { planVector } from '../services/render/vector/vector-plan.js'
import { vectorSvgs, type VectorJob } from '../services/render/vector/draw-vector.js'
import { over } from '../services/render/composite.js'
import { cutAndEncode } from '../services/render/tile-encode.js'
import { gridSet, rectBounds, tilesHigh, tilesWide } from '../services/tilecache/grid-sets.js'

const ZOOM = Number(process.env.MW_PROBE_ZOOM ?? 4)
const META = 4
const SIZE = 256
const ms = (t: number) => Math.round(t * 10) / 10
const TICK_MS = 1000 / 100 // USER_HZ
/** CPU milliseconds of this process so far. */
const cpuNow = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000 }

const db = await pointsDatabase(0)
const source = createPostgisSource({
  host: db.url.hostname, port: Number(db.url.port || 5432), database: db.name, schema: 'public', user: decodeURIComponent(db.url.username) || 'postgres',
  timeout: 300, ssl: 'off', maxConnections: 4, minConnections: 1, fetchSize: 1000, looseBbox: false, exposePrimaryKeys: false
})
try {
  await countryTables(db.url.href, '10m')
  const style = await vectorStyleOf(countrySlds({ labels: true }).countries)
  const schema = { attributes: [{ name: 'name', type: 'string' as const }], crs: 'EPSG:4326' }
  const deps = { layerData: async () => ({ source, type: 'countries', dataCrs: 'EPSG:4326', schema }), maxFeatures: 1_000_000 }
  const gs = gridSet('EPSG:900913')!
  const stages = { plan: 0, svg: 0, raster: 0, encode: 0 }
  const cpu = { plan: 0, svg: 0, raster: 0, encode: 0 }
  // The database's CPU: the backends of the throwaway database (the source's pool), from /proc.
  const admin = new pg.Client({ connectionString: db.url.href })
  await admin.connect()
  const dbCpu = async () => {
    const r = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()')
    let ticks = 0
    for (const { pid } of r.rows) {
      try { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); ticks += Number(f[11]) + Number(f[12]) } catch { /* gone */ }
    }
    return ticks * TICK_MS
  }
  let dbTotal = 0
  let rows = 0; let chars = 0; let metatiles = 0; let tiles = 0; let blank = 0
  const session = new Session()
  const profile = process.env.MW_PROBE_PROFILE
  if (profile) { session.connect(); await session.post('Profiler.enable'); await session.post('Profiler.start') }
  const cpu0 = cpuNow()
  const t0 = performance.now()
  for (let z = 0; z <= ZOOM; z++) {
    const w = tilesWide(gs, z); const h = tilesHigh(gs, z)
    for (let my = 0; my < h; my += META) {
      for (let mx = 0; mx < w; mx += META) {
        const rect: [number, number, number, number] = [mx, my, Math.min(mx + META, w) - 1, Math.min(my + META, h) - 1]
        const cols = rect[2] - rect[0] + 1; const rws = rect[3] - rect[1] + 1
        const db0 = await dbCpu()
        let t = performance.now()
        let c = cpuNow()
        const job: VectorJob = await planVector(deps, { layer: 'vb:countries', crs: gs.srs, bbox: rectBounds(gs, z, rect), width: cols * SIZE, height: rws * SIZE }, style)
        if (job.more) throw new Error('more than one batch of features')
        rows += job.features.length
        stages.plan += performance.now() - t
        cpu.plan += cpuNow() - c
        dbTotal += await dbCpu() - db0
        t = performance.now(); c = cpuNow()
        const svgs = [...vectorSvgs(job)]
        if (svgs.length === 0) blank++
        for (const s of svgs) chars += s.length
        stages.svg += performance.now() - t
        cpu.svg += cpuNow() - c
        t = performance.now(); c = cpuNow()
        let rgba: Uint8Array | undefined
        for (const s of svgs) {
          const raw = await sharp(Buffer.from(s), { unlimited: true, limitInputPixels: false }).ensureAlpha().raw().toBuffer()
          const img = new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength)
          if (rgba) over(rgba, 0, img); else rgba = img
        }
        stages.raster += performance.now() - t
        cpu.raster += cpuNow() - c
        t = performance.now(); c = cpuNow()
        tiles += (await cutAndEncode(rgba ?? new Uint8Array(cols * rws * SIZE * SIZE * 4), cols, rws, SIZE, 'image/png')).length
        stages.encode += performance.now() - t
        cpu.encode += cpuNow() - c
        metatiles++
      }
    }
  }
  const wall = performance.now() - t0
  const cpuAll = cpuNow() - cpu0
  await admin.end()
  if (profile) { const { profile: p } = await session.post('Profiler.stop'); fs.writeFileSync(profile, JSON.stringify(p)); session.disconnect() }
  const total = cpuAll + dbTotal
  console.log(`z0-${ZOOM}: ${metatiles} metatiles, ${tiles} tiles in ${ms(wall)} ms wall; CPU ${ms(total)} ms (${ms(total / metatiles)} ms a metatile): this process ${ms(cpuAll)}, the database ${ms(dbTotal)}`)
  console.log('  stage      wall ms    CPU ms  CPU share')
  for (const k of Object.keys(stages) as Array<keyof typeof stages>) {
    const c = cpu[k] + (k === 'plan' ? dbTotal : 0)
    console.log(`  ${k.padEnd(7)} ${String(ms(stages[k])).padStart(9)} ${String(ms(c)).padStart(9)}  ${String(Math.round(c / total * 1000) / 10).padStart(5)} %${k === 'plan' ? ` (database ${ms(dbTotal)})` : ''}`)
  }
  console.log(`  rows read ${rows} (${ms(rows / metatiles)} a metatile), SVG ${Math.round(chars / 1024)} KiB (${Math.round(chars / metatiles / 1024)} KiB a metatile); ${blank} metatiles draw nothing`)
} finally {
  await source.close()
  await db.drop()
}
