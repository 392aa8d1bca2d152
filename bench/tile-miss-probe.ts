// A probe of the uncached vector tile's fixed cost (issue 35): the points table of wfs.ts published,
// then MW_PROBE_TILES uncached XYZ .pbf tiles (z 6-10, one at a time) against the bare ST_AsMVT
// query of the same tiles, alternated; per miss, counts the SQL statements sent (pg.Client's
// query), the fs calls made (open, stat, fstat, write, rename, close, mkdir...) and the libuv pool's
// hops (async fs callbacks). MW_PROBE_PROFILE=file: the CPU profile of the loop alone
// (an inspector session; server and client share the process). Each pair also asks a bare Fastify
// route running the same query (its own pg.Pool) with the same client: the HTTP floor, printed
// beside. MW_PROBE_BACKEND=pg: mapwarden's own stores in a throwaway PostgreSQL database (the
// cluster's backend) instead of SQLite, so its catalog statements per miss show.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import Fastify from 'fastify'
import { Session } from 'node:inspector/promises'
import { AUTH, startMapwarden } from './harness.js'
import { pointsDatabase } from './points-db.js'

const N = Number(process.env.MW_PROBE_TILES ?? 300)
const counts: Record<string, number> = {}
const bump = (k: string) => { counts[k] = (counts[k] ?? 0) + 1 }
/** fs calls are counted from the 21st miss on, the whole round (a tile is written after its answer,
 *  while the bare sides run: they make none); SQL statements only while ours runs. */
let counting = false
let countingSql = false
const origQuery = pg.Client.prototype.query
;(pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown }).query = function (this: pg.Client, ...a: unknown[]) {
  if (countingSql) { const q = a[0]; bump(`sql ${(typeof q === 'string' ? q : (q as { text: string }).text).replace(/\s+/g, ' ').slice(0, 40)}`) }
  return (origQuery as (...a: unknown[]) => unknown).apply(this, a)
}
for (const name of ['open', 'openSync', 'stat', 'statSync', 'fstat', 'fstatSync', 'read', 'write', 'writeSync', 'futimes', 'close', 'closeSync', 'rename', 'renameSync', 'mkdir', 'mkdirSync', 'access', 'rm', 'rmSync', 'unlink'] as const) {
  const f = (fs as unknown as Record<string, (...a: unknown[]) => unknown>)[name]
  ;(fs as unknown as Record<string, unknown>)[name] = function (...a: unknown[]) { if (counting) bump(`fs.${name}`); return f.apply(fs, a) }
}
for (const name of ['stat', 'open', 'readFile', 'writeFile', 'rename', 'access', 'mkdir', 'rm'] as const) {
  const f = (fs.promises as unknown as Record<string, (...a: unknown[]) => unknown>)[name]
  ;(fs.promises as unknown as Record<string, unknown>)[name] = function (...a: unknown[]) { if (counting) bump(`fs.promises.${name}`); return f.apply(fs.promises, a) }
}

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]
const pts = await pointsDatabase(100_000)
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-probe-'))
const catalogDb = process.env.MW_PROBE_BACKEND === 'pg' ? await pointsDatabase(0) : undefined
const mw = await startMapwarden({ dataDir: path.join(work, 'data'), workerThreads: 2, ...(catalogDb ? { databaseUrl: catalogDb.url.href } : {}) })
try {
  const inject = async (url: string, payload: object) => {
    const r = await mw.app.inject({ method: 'POST', url: `/geoserver/rest${url}`, headers: { authorization: AUTH, 'content-type': 'application/json' }, payload })
    if (r.statusCode !== 201) throw new Error(`POST ${url}: ${r.statusCode} ${r.body}`)
  }
  const u = pts.url
  await inject('/workspaces', { workspace: { name: 'vb' } })
  await inject('/workspaces/vb/datastores', { dataStore: { name: 'pg', connectionParameters: { entry: [
    { '@key': 'host', $: u.hostname }, { '@key': 'port', $: u.port || '5432' }, { '@key': 'database', $: pts.name },
    { '@key': 'user', $: decodeURIComponent(u.username) || 'postgres' }, { '@key': 'dbtype', $: 'postgis' }] } } })
  await inject('/workspaces/vb/datastores/pg/featuretypes', { featureType: { name: 'pts', nativeName: 'pts' } })
  const client = new pg.Client({ connectionString: u.href })
  await client.connect()
  const sql = `SELECT ST_AsMVT(t, 'pts', 4096, 'geom') AS mvt FROM (SELECT label, cls, ST_AsMVTGeom(ST_Transform(geom, 3857), ST_TileEnvelope($1, $2, $3), 4096, 256, true) AS geom
    FROM pts WHERE geom && ST_Transform(ST_TileEnvelope($1, $2, $3, margin => 256.0 / 4096), 4326)) t WHERE t.geom IS NOT NULL`
  const tiles: Array<[number, number, number]> = []
  for (let i = 0; tiles.length < N + 20; i++) { const z = 6 + (i % 5); const n = 2 ** z; tiles.push([z, (i * 37 + 5) % n, n / 4 + (i * 23) % (n / 2)]) }
  const seen = new Set<string>()
  const uniq = tiles.filter((t) => { const k = t.join('/'); if (seen.has(k)) return false; seen.add(k); return true })
  const ours: number[] = []; const bare: number[] = []; const floor: number[] = []
  const pool = new pg.Pool({ connectionString: u.href, max: 2 })
  const bareRoute = Fastify({ logger: false })
  bareRoute.get<{ Params: { z: string, x: string, y: string } }>('/:z/:x/:y', async (req, reply) => {
    const r = await pool.query<{ mvt: Buffer }>(sql, [Number(req.params.z), Number(req.params.x), Number(req.params.y)])
    return await reply.type('application/vnd.mapbox-vector-tile').send(r.rows[0].mvt)
  })
  const floorUrl = await bareRoute.listen({ port: 0, host: '127.0.0.1' })
  const session = new Session()
  const profile = process.env.MW_PROBE_PROFILE
  if (profile) { session.connect(); await session.post('Profiler.enable'); await session.post('Profiler.start') }
  const cpu0 = process.cpuUsage()
  for (const [i, [z, x, y]] of uniq.entries()) {
    if (i === 20) counting = true
    countingSql = counting
    let t = performance.now()
    const res = await fetch(`${mw.url}/geoserver/gwc/service/xyz/vb:pts/EPSG:900913/${z}/${x}/${y}.pbf`)
    await res.arrayBuffer()
    if (res.headers.get('geowebcache-cache-result') === 'HIT') throw new Error('hit')
    if (i >= 20) ours.push(performance.now() - t)
    countingSql = false
    t = performance.now()
    await client.query(sql, [z, x, y])
    if (i >= 20) bare.push(performance.now() - t)
    t = performance.now()
    await (await fetch(`${floorUrl}/${z}/${x}/${y}`)).arrayBuffer()
    if (i >= 20) floor.push(performance.now() - t)
  }
  const cpu = process.cpuUsage(cpu0)
  if (profile) { const r = await session.post('Profiler.stop'); fs.writeFileSync(profile, JSON.stringify(r.profile)); session.disconnect() }
  const n = ours.length
  console.log(`tiles ${n}: ours p50 ${median(ours).toFixed(2)} ms, bare p50 ${median(bare).toFixed(2)} ms, ratio ${(median(ours) / median(bare)).toFixed(2)}; process CPU per round ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} ms`)
  console.log(`  bare Fastify route p50 ${median(floor).toFixed(2)} ms: ${(median(floor) / median(bare)).toFixed(2)}x the bare query; ours ${(median(ours) / median(floor)).toFixed(2)}x the route`)
  for (const [k, v] of Object.entries(counts).sort()) console.log(`  ${(v / n).toFixed(2)} per miss  ${k}`)
  await client.end()
  await bareRoute.close()
  await pool.end()
} finally {
  await mw.close()
  fs.rmSync(work, { recursive: true, force: true })
  await pts.drop()
  await catalogDb?.drop()
}
