// Load (issue 9, "Load"): the BUILT server as a child process on 127.0.0.1 (bench/load-server.ts:
// plugins/server.ts plus a /bench/stats route with its own event-loop delay and RSS), driven by
// autocannon from this process:
//   1. 200 connections for MW_BENCH_LOAD_SECONDS (default 60) on list endpoints while a seed task
//      runs: errors (non-2xx and socket errors), p99 latency, the server's event-loop delay p99
//      (target < 50 ms);
//   1b. 50 clients panning over uncached tiles while a seed runs: errors (503s count), tile p99,
//      the seed's throughput meanwhile;
//   2. 10,000 seed POSTs in a burst: how many are accepted before the pending-task cap
//      (MAPWARDEN_MAX_PENDING_TASKS) and how many get 429; RSS before and after;
//   3. with MW_BENCH_SOAK=1 only: a soak (MW_BENCH_SOAK_SECONDS, default 600) mixing reads, writes
//      and seeding; RSS growth from the end of a warm-up to the end (target < 10 %).
// The seeded layer is the shared bench mosaic when /tmp/bench-data exists, else the small
// generated demo mosaic (scripts/demo.ts).
import autocannon from 'autocannon'
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { pipeline } from 'node:stream/promises'
import yazl from 'yazl'
import { demoZip } from '../scripts/demo.js'
import { GRID_SETS, gridSubset } from '../services/tilecache/grid-sets.js'
import { rectAt, tileRange } from '../services/tilecache/tile-range.js'
import { SERVER_NODE_FLAGS } from './node-flags.js'
import { BENCH_DATA as DATA } from './data.js'

type Figure = { name: string, value: number, unit: string, note?: string }
const HERE = path.dirname(fileURLToPath(import.meta.url))
const SECONDS = Number(process.env.MW_BENCH_LOAD_SECONDS ?? 60)
const SOAK_SECONDS = Number(process.env.MW_BENCH_SOAK_SECONDS ?? 600)
const PASSWORD = 'load-bench-password'
const AUTH = 'Basic ' + Buffer.from(`admin:${PASSWORD}`).toString('base64')
const MB = 1024 * 1024

async function freePort (): Promise<number> {
  const srv = net.createServer()
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  const { port } = srv.address() as net.AddressInfo
  await new Promise<void>((resolve) => srv.close(() => resolve()))
  return port
}

export interface Server { base: string, root: string, child: ChildProcess, dataDir: string, stop: () => Promise<void> }

/** `shared`: a data directory of several nodes (one database), left in place by stop(). */
export async function startServer (extraEnv: Record<string, string> = {}, shared?: string): Promise<Server> {
  const dataDir = shared ?? fs.mkdtempSync(path.join(os.tmpdir(), 'mw-load-'))
  const port = await freePort()
  // --expose-gc: /bench/stats?gc=1 collects before it reads memory, so "after" figures are what is retained.
  const child = spawn(process.execPath, ['--expose-gc', ...SERVER_NODE_FLAGS, path.join(HERE, 'load-server.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      // As the server runs (bench/index.ts sets it for every area): two malloc arenas.
      ...(process.env.MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX } : {}),
      MAPWARDEN_PORT: String(port),
      MAPWARDEN_HOST: '127.0.0.1',
      MAPWARDEN_DATA_DIR: dataDir,
      MAPWARDEN_ADMIN_PASSWORD: PASSWORD,
      MAPWARDEN_LOG_LEVEL: 'error',
      ...extraEnv
    },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  await new Promise<void>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d) => { out += d; if (out.includes('listening')) resolve() })
    child.once('exit', (code) => reject(new Error(`load server exited with ${code} before listening`)))
  })
  child.stdout!.resume()
  const root = `http://127.0.0.1:${port}`
  return {
    base: `${root}/geoserver`,
    root,
    child,
    dataDir,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await new Promise((resolve) => child.once('exit', resolve))
      }
      if (!shared) fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

export async function call (s: Server, method: string, p: string, body?: string | Buffer, type?: string) {
  const res = await fetch(s.base + p, {
    method,
    headers: { authorization: AUTH, ...(type ? { 'content-type': type } : {}) },
    body: body === undefined ? undefined : (typeof body === 'string' ? body : new Blob([body as unknown as ArrayBuffer]))
  })
  return { status: res.status, text: await res.text() }
}

export interface Stats {
  loopP50Ms: number, loopP99Ms: number, loopMaxMs: number, rss: number, peakRss: number, heapUsed: number
  /** Since the last reset: metatiles rendered (each full set of a metatile's tiles written), metatiles with a tile written, tile writes. */
  metatilesRendered: number, metatilesWritten: number, tileWrites: number
}
export async function stats (s: Server, reset = false, gc = false): Promise<Stats> {
  const q = [reset ? 'reset=1' : '', gc ? 'gc=1' : ''].filter(Boolean).join('&')
  const res = await fetch(`${s.root}/bench/stats${q ? '?' + q : ''}`)
  return await res.json() as Stats
}

/** The layer to seed: the bench mosaic (4 x 4096^2 RGB granules) or the small demo mosaic. */
export async function createLayer (s: Server): Promise<{ layer: string, source: string }> {
  if (fs.existsSync(path.join(DATA, 'granules'))) {
    const r = await call(s, 'POST', '/rest/workspaces', '<workspace><name>bench</name></workspace>', 'text/xml')
    if (r.status !== 201) throw new Error(`workspace: ${r.status} ${r.text}`)
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-load-zip-'))
    const file = path.join(dir, 'mosaic.zip')
    try {
      const zip = new yazl.ZipFile()
      for (const name of fs.readdirSync(path.join(DATA, 'granules')).filter((n) => n.endsWith('.tif'))) {
        zip.addFile(path.join(DATA, 'granules', name), name, { compress: false })
      }
      zip.end()
      await pipeline(zip.outputStream, fs.createWriteStream(file))
      const up = await call(s, 'PUT', '/rest/workspaces/bench/coveragestores/mosaic/file.imagemosaic?configure=first', fs.readFileSync(file), 'application/zip')
      if (up.status !== 200 && up.status !== 201) throw new Error(`mosaic upload: ${up.status} ${up.text}`)
    } finally { fs.rmSync(dir, { recursive: true, force: true }) }
    return { layer: 'bench:mosaic', source: `bench mosaic ${DATA}` }
  }
  const r = await call(s, 'POST', '/rest/workspaces', '<workspace><name>demo</name></workspace>', 'text/xml')
  if (r.status !== 201) throw new Error(`workspace: ${r.status} ${r.text}`)
  const up = await call(s, 'PUT', '/rest/workspaces/demo/coveragestores/watertemp/file.imagemosaic', await demoZip(), 'application/zip')
  if (up.status !== 200 && up.status !== 201) throw new Error(`mosaic upload: ${up.status} ${up.text}`)
  return { layer: 'demo:watertemp', source: 'generated demo mosaic (4 granules 320x200)' }
}

const seedBody = (layer: string, zoomStop: number, type = 'seed', threadCount = 2) => JSON.stringify({
  seedRequest: { name: layer, gridSetId: 'EPSG:900913', zoomStart: 0, zoomStop, format: 'image/png', type, threadCount }
})

async function tasks (s: Server): Promise<number[][]> {
  const r = await call(s, 'GET', '/gwc/rest/seed.json')
  return (JSON.parse(r.text) as { 'long-array-array': number[][] })['long-array-array']
}

async function killAll (s: Server) {
  await call(s, 'POST', '/gwc/rest/seed', 'kill_all=all', 'application/x-www-form-urlencoded')
}

function listRequests (layer: string) {
  const [ws, name] = layer.split(':')
  const store = ws === 'bench' ? 'mosaic' : 'watertemp'
  return [
    '/rest/workspaces.json', '/rest/styles.json', '/rest/layers.json', '/gwc/rest/seed.json',
    `/rest/workspaces/${ws}/coveragestores/${store}/coverages.json`,
    `/rest/workspaces/${ws}/coveragestores/${store}/coverages/${name}/index/granules.json?limit=10`,
    '/rest/security/acl/layers.json', '/gwc/rest/diskquota.json'
  ].map((p) => ({ method: 'GET' as const, path: `/geoserver${p}` }))
}

export const statuses = (r: { statusCodeStats: Record<string, { count: number }> }) =>
  Object.entries(r.statusCodeStats).map(([c, v]) => `${c}: ${v.count}`).join(', ')
/** What an errors figure counts: autocannon's `errors` holds its timeouts already. */
const errorKinds = (r: { non2xx: number, errors: number, timeouts: number }) =>
  `non-2xx ${r.non2xx}, socket errors ${r.errors - r.timeouts}, timeouts ${r.timeouts}`

/** Baseline: the same 200 connections on the same lists with nothing else running. */
async function listsIdle (s: Server, layer: string): Promise<Figure[]> {
  for (const r of listRequests(layer)) await fetch(`${s.root}${r.path}`, { headers: { authorization: AUTH } })
  const seconds = Math.min(15, SECONDS)
  await stats(s, true)
  const r = await autocannon({ url: s.root, connections: 200, duration: seconds, headers: { authorization: AUTH }, requests: listRequests(layer) })
  const after = await stats(s)
  return [
    { name: 'baseline lists, no seeding: requests', value: r.requests.total, unit: 'req', note: `200 connections, ${seconds} s, ${r.requests.average} req/s; statuses ${statuses(r)}; machine load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs` },
    { name: 'baseline lists, no seeding: errors', value: r.errors + r.non2xx, unit: 'req', note: errorKinds(r) },
    { name: 'baseline lists, no seeding: latency p99', value: r.latency.p99, unit: 'ms' },
    { name: 'baseline lists, no seeding: event-loop delay p99', value: after.loopP99Ms, unit: 'ms', note: `max ${after.loopMaxMs} ms` }
  ]
}

/** Phase 1: 200 connections on list endpoints while a seed task runs. */
async function listsWhileSeeding (s: Server, layer: string): Promise<Figure[]> {
  const zoomStop = layer.startsWith('bench') ? 10 : 12
  const started = await call(s, 'POST', `/gwc/rest/seed/${layer}.json`, seedBody(layer, zoomStop), 'application/json')
  if (started.status !== 200) throw new Error(`seed: ${started.status} ${started.text}`)
  const before = await stats(s, true)
  const r = await autocannon({
    url: s.root, connections: 200, duration: SECONDS, headers: { authorization: AUTH }, requests: listRequests(layer)
  })
  const after = await stats(s)
  const running = await tasks(s)
  const seeding = running.length > 0
  const errors = r.errors + r.non2xx
  await killAll(s)
  return [
    { name: 'lists while seeding: requests', value: r.requests.total, unit: 'req', note: `200 connections, ${SECONDS} s, ${r.requests.average} req/s average; machine load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs` },
    { name: 'lists while seeding: errors', value: errors, unit: 'req', note: `${errorKinds(r)}; statuses ${statuses(r)}; target 0` },
    { name: 'lists while seeding: latency p50', value: r.latency.p50, unit: 'ms' },
    { name: 'lists while seeding: latency p99', value: r.latency.p99, unit: 'ms', note: `max ${r.latency.max} ms` },
    { name: 'lists while seeding: event-loop delay p99', value: after.loopP99Ms, unit: 'ms', note: `server's own monitorEventLoopDelay; max ${after.loopMaxMs} ms; target < 50 ms` },
    { name: 'lists while seeding: seed task still running at the end', value: seeding ? 1 : 0, unit: '', note: seeding ? `${running.length} task(s) alive; killed after the run` : 'seed finished before the end of the run' },
    { name: 'lists while seeding: RSS', value: Math.round(after.peakRss / MB), unit: 'MiB', note: `peak; ${Math.round(before.rss / MB)} MiB before` }
  ]
}

/** The layer's EPSG:900913 grid subset, from its coverage's lon/lat bounds. */
export async function layerSubset (s: Server, layer: string) {
  const [ws, name] = layer.split(':')
  const store = ws === 'bench' ? 'mosaic' : 'watertemp'
  const cov = JSON.parse((await call(s, 'GET', `/rest/workspaces/${ws}/coveragestores/${store}/coverages/${name}.json`)).text).coverage.latLonBoundingBox
  return gridSubset(GRID_SETS['EPSG:900913'], [cov.minx, cov.miny, cov.maxx, cov.maxy])
}

/**
 * Phase 1b (hostile round two, 1): 50 clients panning a map over uncached tiles (each request a
 * tile of a metatile nobody asked for yet, zooms 6-14 of the layer) while a seed task runs:
 * errors (a 503 counts; target 0), tile p99, and the seed's throughput meanwhile.
 */
async function panningWhileSeeding (s: Server, layer: string): Promise<Figure[]> {
  const subset = await layerSubset(s, layer)
  const tiles: string[] = []
  for (let z = 6; z <= 14 && tiles.length < 200_000; z++) {
    const r = rectAt(tileRange(subset, z, z), z)
    if (!r) continue
    const rows = 2 ** z
    // One tile per metatile (4 x 4), so every request is a render nobody else asked for.
    for (let x = r[0] - (r[0] % 4); x <= r[2]; x += 4) for (let y = r[1] - (r[1] % 4); y <= r[3]; y += 4) {
      if (x >= r[0] && y >= r[1]) tiles.push(`/geoserver/gwc/service/xyz/${layer}/EPSG:900913/${z}/${x}/${rows - 1 - y}.png`)
    }
  }
  const started = await call(s, 'POST', `/gwc/rest/seed/${layer}.json`, seedBody(layer, 12, 'seed', 1), 'application/json')
  if (started.status !== 200) throw new Error(`seed: ${started.status} ${started.text}`)
  const done = async () => (await tasks(s)).reduce((n, row) => n + Math.max(0, row[0]), 0)
  const seconds = Math.min(20, SECONDS)
  const before = await done()
  let next = 0
  const r = await autocannon({
    url: s.root, connections: 50, duration: seconds,
    requests: [{ method: 'GET', setupRequest: (req: any) => ({ ...req, path: tiles[next++ % tiles.length] }) }]
  })
  const seeded = await done() - before
  await killAll(s)
  return [
    { name: 'panning while seeding: tiles served', value: r.requests.total, unit: 'req', note: `50 connections, ${seconds} s, each an uncached metatile (${tiles.length} distinct); ${r.requests.average} req/s; statuses ${statuses(r)}` },
    { name: 'panning while seeding: errors', value: r.errors + r.non2xx, unit: 'req', note: `${errorKinds(r)} (a timeout: no answer in 10 s); a 503 (render queue full) counts; target 0` },
    { name: 'panning while seeding: tile latency p99', value: r.latency.p99, unit: 'ms', note: `p50 ${r.latency.p50} ms, max ${r.latency.max} ms` },
    { name: 'panning while seeding: seed throughput meanwhile', value: Math.round(seeded / seconds), unit: 'tiles/s', note: 'interactive renders go first; the seed takes what they leave' }
  ]
}

/** Phase 2: 10,000 seed POSTs in a burst against the pending-task cap. */
async function seedBurst (s: Server, layer: string): Promise<Figure[]> {
  await killAll(s)
  const before = await stats(s, true, true)
  const codes: Record<string, number> = {}
  // zoomStop 20 keeps each accepted task busy (or pending) long enough for the queue to fill.
  const r = await autocannon({
    url: `${s.root}/geoserver/gwc/rest/seed/${layer}.json`,
    method: 'POST',
    headers: { authorization: AUTH, 'content-type': 'application/json' },
    body: seedBody(layer, 20, 'seed', 1),
    connections: 100,
    amount: 10_000,
    timeout: 30
  })
  for (const [code, v] of Object.entries(r.statusCodeStats as Record<string, { count: number }>)) codes[code] = v.count
  const queued = (await tasks(s)).length
  const peak = await stats(s)
  await killAll(s)
  // Give the killed tasks a moment to unwind, then read the settled RSS.
  await new Promise((resolve) => setTimeout(resolve, 3000))
  const settled = await stats(s, false, true)
  const other = Object.entries(codes).filter(([c]) => c !== '200' && c !== '429').map(([c, n]) => `${c}: ${n}`).join(', ')
  return [
    { name: 'seed burst: requests', value: r.requests.total, unit: 'req', note: `10,000 POSTs, 100 connections, ${r.requests.average} req/s` },
    { name: 'seed burst: accepted (200)', value: codes['200'] ?? 0, unit: 'req', note: `${queued} tasks listed at the end (pending cap MAPWARDEN_MAX_PENDING_TASKS, default 1000)` },
    { name: 'seed burst: refused (429)', value: codes['429'] ?? 0, unit: 'req', note: other ? `other statuses: ${other}` : 'no other status' },
    { name: 'seed burst: errors (not 200/429)', value: r.errors + Object.entries(codes).filter(([c]) => c !== '200' && c !== '429').reduce((n, [, v]) => n + v, 0), unit: 'req' },
    { name: 'seed burst: latency p99', value: r.latency.p99, unit: 'ms' },
    { name: 'seed burst: event-loop delay p99', value: peak.loopP99Ms, unit: 'ms', note: `max ${peak.loopMaxMs} ms` },
    { name: 'seed burst: RSS before', value: Math.round(before.rss / MB), unit: 'MiB' },
    { name: 'seed burst: RSS peak', value: Math.round(peak.peakRss / MB), unit: 'MiB' },
    { name: 'seed burst: RSS after kill_all', value: Math.round(settled.rss / MB), unit: 'MiB', note: `${Math.round(100 * (settled.rss - before.rss) / before.rss)} % vs before (after a GC)` },
    { name: 'seed burst: heap used before / after', value: Math.round(settled.heapUsed / MB), unit: 'MiB', note: `${Math.round(before.heapUsed / MB)} MiB before; the killed tasks' records are kept for an hour` }
  ]
}

/** Phase 3 (MW_BENCH_SOAK=1): reads, writes and seeding mixed for SOAK_SECONDS. */
async function soak (s: Server, layer: string): Promise<Figure[]> {
  const sld = fs.readFileSync(path.join(HERE, '..', '..', 'test', 'fixtures', 'styles', 'dem.sld'), 'utf8')
  const end = Date.now() + SOAK_SECONDS * 1000
  const warmup = Date.now() + Math.min(60, SOAK_SECONDS / 10) * 1000
  let baseline: Stats | undefined
  let writes = 0
  let seeds = 0
  let failures = 0
  const readers = autocannon({ url: s.root, connections: 20, duration: SOAK_SECONDS, headers: { authorization: AUTH }, requests: listRequests(layer) })
  const writer = (async () => {
    for (let i = 0; Date.now() < end; i++) {
      const ws = `soak${i % 50}`
      const steps = [
        await call(s, 'POST', '/rest/workspaces', `<workspace><name>${ws}</name></workspace>`, 'text/xml'),
        await call(s, 'POST', `/rest/workspaces/${ws}/styles?name=s${i % 7}`, sld, 'application/vnd.ogc.sld+xml'),
        await call(s, 'PUT', `/rest/workspaces/${ws}/styles/s${i % 7}`, sld.replace('<Name>', `<Name>v${i}`), 'application/vnd.ogc.sld+xml'),
        await call(s, 'PUT', '/gwc/rest/diskquota.json', JSON.stringify({ gwcQuotaConfiguration: { enabled: true, globalQuota: { value: String(1 + i % 5), units: 'GiB' } } }), 'application/json'),
        await call(s, 'DELETE', `/rest/workspaces/${ws}?recurse=true`)
      ]
      writes += steps.length
      failures += steps.filter((r) => r.status >= 500).length
      if (i % 20 === 0) {
        const r = await call(s, 'POST', `/gwc/rest/seed/${layer}.json`, seedBody(layer, 6, i % 40 === 0 ? 'seed' : 'truncate', 1), 'application/json')
        seeds++
        if (r.status >= 500) failures++
      }
      if (!baseline && Date.now() > warmup) baseline = await stats(s, false, true)
    }
  })()
  const [r] = await Promise.all([readers, writer])
  await killAll(s)
  const last = await stats(s, false, true)
  const base = baseline ?? last
  const growth = 100 * (last.rss - base.rss) / base.rss
  return [
    { name: 'soak: duration', value: SOAK_SECONDS, unit: 's', note: `${r.requests.total} reads, ${writes} writes, ${seeds} seed/truncate requests` },
    { name: 'soak: read errors', value: r.errors + r.non2xx, unit: 'req' },
    { name: 'soak: 5xx on writes', value: failures, unit: 'req' },
    { name: 'soak: read latency p99', value: r.latency.p99, unit: 'ms' },
    { name: 'soak: RSS after warm-up', value: Math.round(base.rss / MB), unit: 'MiB' },
    { name: 'soak: RSS at the end', value: Math.round(last.rss / MB), unit: 'MiB' },
    { name: 'soak: RSS growth', value: Math.round(growth * 10) / 10, unit: '%', note: 'target < 10 %' }
  ]
}

export async function run (): Promise<Figure[]> {
  const figures: Figure[] = []
  const s = await startServer()
  try {
    const t0 = Date.now()
    const { layer, source } = await createLayer(s)
    figures.push({ name: 'setup: layer', value: Math.round((Date.now() - t0) / 100) / 10, unit: 's', note: `${layer} from the ${source}` })
    const idle = await stats(s)
    figures.push({ name: 'server RSS at start (after the mosaic upload)', value: Math.round(idle.rss / MB), unit: 'MiB' })
    figures.push(...await listsIdle(s, layer))
    figures.push(...await listsWhileSeeding(s, layer))
    figures.push(...await panningWhileSeeding(s, layer))
    figures.push(...await seedBurst(s, layer))
    if (process.env.MW_BENCH_SOAK === '1') figures.push(...await soak(s, layer))
    else figures.push({ name: 'soak', value: 0, unit: '', note: 'skipped; MW_BENCH_SOAK=1 runs it (10 minutes)' })
  } finally {
    await s.stop()
  }
  return figures
}
