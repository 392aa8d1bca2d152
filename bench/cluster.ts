// Cluster figures (not a test), on the shared benchmark mosaic and throwaway databases of the local
// PostgreSQL server (MW_BENCH_PG, default postgres://postgres@127.0.0.1:5432/postgres). Every node is
// a built server in a process of its own (node --import count-statements.js), all on one data
// directory and one database; the seed is EPSG:900913 z0-MW_BENCH_CLUSTER_ZOOM (default 10) PNG of
// the bench mosaic, posted to the first node, every node rendering:
// - seed throughput on one node with 1, 2 and 4 render threads and on 1, 2 and 4 nodes of one
//   thread each (tiles over the job's recorded time from submission to its end), the per-thread
//   efficiency (tiles/s per thread over one node of one thread), four nodes of one thread over one
//   node of four threads;
// - database round trips per metatile (every statement every node sends, pg-boss's included, by
//   what it is for), the database's transactions and its backends' CPU per metatile (the CPU time
//   /proc gives for the backends serving the throwaway database, sampled every 100 ms: a backend
//   that exits loses its last 100 ms; PostgreSQL's shared background processes are not counted;
//   pg_stat_statements is not installed), and how often a backend was seen waiting for a lock;
// - time from a node's death (SIGKILL) to its chunks running on the other node.
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { AUTH, BENCH_PASSWORD, type Figure } from './harness.js'
import { SERVER_NODE_FLAGS } from './node-flags.js'
import { benchMosaicZip } from './tilecache.js'
import { BENCH_DATA as DATA, NO_BENCH_DATA } from './data.js'

const ADMIN_URL = process.env.MW_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const ZOOM = Number(process.env.MW_BENCH_CLUSTER_ZOOM ?? 10)
const HERE = path.dirname(fileURLToPath(import.meta.url))
const COUNTER = path.join(HERE, 'count-statements.js')
/** Clock ticks per second of /proc/<pid>/stat's times (Linux: 100). */
const TICKS = 100

async function admin (sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL })
  await c.connect()
  try { await c.query(sql) } finally { await c.end() }
}

export async function withDatabase<T> (fn: (url: string, name: string) => Promise<T>): Promise<T> {
  const name = `mw_bench_${crypto.randomBytes(5).toString('hex')}`
  await admin(`CREATE DATABASE ${name}`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  try { return await fn(url.href, name) } finally { await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

const seedBody = (format = 'image/png') => JSON.stringify({ seedRequest: { gridSetId: 'EPSG:900913', zoomStart: 0, zoomStop: ZOOM, type: 'seed', format, threadCount: 2 } })

type Counts = Record<string, number>
const readCounts = (file: string): Counts => { try { return JSON.parse(fs.readFileSync(file, 'utf8')) as Counts } catch { return {} } }
const sumCounts = (all: Counts[]): Counts => {
  const out: Counts = {}
  for (const c of all) for (const [k, v] of Object.entries(c)) out[k] = (out[k] ?? 0) + v
  return out
}
/** utime + stime of a process, in seconds; undefined once it is gone. */
function cpuSeconds (pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12])) / TICKS
  } catch { return undefined }
}

interface SeedRun { nodes: number, threads: number, tilesPerSecond: number, tiles: number, metatiles: number, statements: Counts, dbCpuSeconds: number, transactions: number, lockWaitShare: number, seconds: number }

/** Starts `nodes` built servers of `threads` render threads on one database and data directory, seeds through the first; the figures of one run. */
async function clusterSeed (nodes: number, threads: number): Promise<SeedRun> {
  return await withDatabase(async (databaseUrl, dbName) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-cluster-'))
    const children: ChildProcess[] = []
    const files: string[] = []
    const c = new pg.Client({ connectionString: databaseUrl })
    try {
      let first: string | undefined
      for (let i = 0; i < nodes; i++) {
        const file = path.join(dataDir, `..`, `${path.basename(dataDir)}-statements-${i}.json`)
        files.push(file)
        const s = await startServer(dataDir, { MAPWARDEN_DATABASE_URL: databaseUrl, MAPWARDEN_WORKER_THREADS: String(threads), MW_BENCH_STATEMENTS_FILE: file }, true)
        children.push(s.child)
        first ??= s.url
      }
      await uploadMosaic(first!)
      await c.connect()
      const stats = async () => (await c.query<{ x: string }>('SELECT xact_commit + xact_rollback AS x FROM pg_stat_database WHERE datname = $1', [dbName])).rows[0].x
      // CPU of the database's backends: each pid's time when first and last seen.
      const cpu = new Map<number, { first: number, last: number }>()
      let samples = 0
      let waiting = 0
      const sample = async () => {
        const rows = (await c.query<{ pid: number, wait: string | null }>('SELECT pid, wait_event_type AS wait FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName])).rows
        for (const r of rows) {
          const t = cpuSeconds(r.pid)
          if (t === undefined) continue
          const seen = cpu.get(r.pid)
          if (seen) seen.last = t
          else cpu.set(r.pid, { first: t, last: t })
          samples++
          if (r.wait === 'Lock') waiting++
        }
      }
      await sample()
      await new Promise((resolve) => setTimeout(resolve, 250))
      const before = sumCounts(files.map(readCounts))
      const x0 = Number(await stats())
      const res = await fetch(`${first!}/geoserver/gwc/rest/seed/bench:mosaic.json`, { method: 'POST', headers: { authorization: AUTH, 'content-type': 'application/json' }, body: seedBody() })
      if (res.status !== 200) throw new Error(`seed: ${res.status} ${await res.text()}`)
      for (;;) {
        await sample()
        const j = (await c.query<{ state: string }>('SELECT state FROM seed_jobs')).rows
        if (j.length > 0 && j.every((r) => r.state !== 'pending' && r.state !== 'running')) break
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      await new Promise((resolve) => setTimeout(resolve, 250))
      await sample()
      const after = sumCounts(files.map(readCounts))
      const transactions = Number(await stats()) - x0
      const statements: Counts = {}
      for (const [k, v] of Object.entries(after)) statements[k] = v - (before[k] ?? 0)
      const w = (await c.query<{ metatiles: string, tiles: string, ms: string }>(`SELECT sum(w.metatiles) AS metatiles, sum(w.tiles) AS tiles,
        (SELECT max(finished_at - created_at) FROM seed_jobs) AS ms FROM seed_node_work w`)).rows[0]
      const seconds = Number(w.ms) / 1000
      const dbCpuSeconds = [...cpu.values()].reduce((s, t) => s + t.last - t.first, 0)
      return { nodes, threads, tilesPerSecond: Number(w.tiles) / seconds, tiles: Number(w.tiles), metatiles: Number(w.metatiles), statements, dbCpuSeconds, transactions, lockWaitShare: samples ? waiting / samples : 0, seconds }
    } finally {
      for (const ch of children) ch.kill('SIGKILL')
      await c.end().catch(() => {})
      fs.rmSync(dataDir, { recursive: true, force: true })
      for (const f of files) fs.rmSync(f, { force: true })
    }
  })
}

async function uploadMosaic (url: string): Promise<void> {
  const call = (method: string, u: string, body?: BodyInit, type = 'application/json') =>
    fetch(`${url}/geoserver${u}`, { method, headers: { authorization: AUTH, ...(body ? { 'content-type': type } : {}) }, body })
  await call('POST', '/rest/workspaces', JSON.stringify({ workspace: { name: 'bench' } }))
  const zip = await benchMosaicZip()
  try {
    const up = await call('PUT', '/rest/workspaces/bench/coveragestores/mosaic/file.imagemosaic', fs.readFileSync(zip.file), 'application/zip')
    if (up.status >= 300) throw new Error(`mosaic: ${up.status} ${await up.text()}`)
  } finally { zip.dispose() }
}

/** A built server on `dataDir`; `counted`: its statements counted (count-statements.ts). */
function startServer (dataDir: string, env: Record<string, string>, counted = false): Promise<{ child: ChildProcess, url: string }> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...(counted ? ['--import', COUNTER] : []), path.join(HERE, '../plugins/server.js')], {
    env: { PATH: process.env.PATH ?? '', MAPWARDEN_PORT: '0', MAPWARDEN_HOST: '127.0.0.1', MAPWARDEN_DATA_DIR: dataDir, MAPWARDEN_ADMIN_PASSWORD: BENCH_PASSWORD, MAPWARDEN_LOG_LEVEL: 'info', MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '1048576', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  return new Promise((resolve, reject) => {
    let out = ''
    const onData = (d: Buffer) => {
      out += d.toString()
      const m = /Server listening at (http:\/\/[\d.:]+)/.exec(out)
      if (m) { child.stdout!.off('data', onData); child.stdout!.resume(); child.stderr!.resume(); resolve({ child, url: m[1] }) }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (d: Buffer) => { out += d.toString() })
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out.slice(-2000)}`)))
  })
}

/** Milliseconds from B's SIGKILL until every chunk B held is running on A (or done). */
async function failover (): Promise<number> {
  return await withDatabase(async (databaseUrl) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-failover-'))
    const env = { MAPWARDEN_DATABASE_URL: databaseUrl, MAPWARDEN_WORKER_THREADS: '1' }
    const children: ChildProcess[] = []
    const c = new pg.Client({ connectionString: databaseUrl })
    try {
      const a = await startServer(dataDir, env)
      children.push(a.child)
      const b = await startServer(dataDir, env)
      children.push(b.child)
      await uploadMosaic(a.url)
      const res = await fetch(`${a.url}/geoserver/gwc/rest/seed/bench:mosaic.json`, { method: 'POST', headers: { authorization: AUTH, 'content-type': 'application/json' }, body: seedBody('image/jpeg') })
      if (res.status !== 200) throw new Error(`seed: ${res.status} ${await res.text()}`)
      await c.connect()
      const held = async () => (await c.query<{ node: string, n: string }>('SELECT node, count(*) AS n FROM seed_chunks WHERE node IS NOT NULL GROUP BY node')).rows
      // B's node id: the one whose chunks are not A's once both render.
      let bChunks: Array<{ job: number, seq: number }> = []
      for (let i = 0; i < 600 && bChunks.length === 0; i++) {
        const rows = await held()
        if (rows.length === 2) {
          const ids = (await c.query<{ id: string, pid: number }>('SELECT id, pid FROM cluster_nodes')).rows
          const bId = ids.find((r) => r.pid === b.child.pid)!.id
          bChunks = (await c.query<{ job: number, seq: number }>('SELECT job, seq FROM seed_chunks WHERE node = $1', [bId])).rows
        }
        if (bChunks.length === 0) await new Promise((resolve) => setTimeout(resolve, 20))
      }
      const killed = performance.now()
      b.child.kill('SIGKILL')
      // Running elsewhere: each chunk B held is begun by A (its node changes to A's) or already counted.
      for (;;) {
        const rows = (await c.query<{ node: string | null }>('SELECT node FROM seed_chunks WHERE (job, seq) IN (SELECT * FROM unnest($1::bigint[], $2::int[]))',
          [bChunks.map((x) => x.job), bChunks.map((x) => x.seq)])).rows
        const bId = (await c.query<{ id: string }>('SELECT id FROM cluster_nodes WHERE pid = $1', [b.child.pid])).rows[0]?.id
        if (rows.every((r) => r.node !== null && r.node !== bId)) return performance.now() - killed
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    } finally {
      for (const ch of children) ch.kill('SIGKILL')
      await c.end().catch(() => {})
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits

export async function run (): Promise<Figure[]> {
  if (!fs.existsSync(path.join(DATA, 'granules'))) {
    return [{ name: 'cluster: seeding', value: NaN, unit: '', note: NO_BENCH_DATA }]
  }
  const runs: SeedRun[] = []
  for (const [nodes, threads] of (process.env.MW_BENCH_CLUSTER_RUNS ? JSON.parse(process.env.MW_BENCH_CLUSTER_RUNS) as number[][] : [[1, 1], [1, 2], [1, 4], [2, 1], [4, 1]])) runs.push(await clusterSeed(nodes, threads))
  const death = await failover()
  const base = runs[0].tilesPerSecond
  const of = (nodes: number, threads: number) => runs.find((r) => r.nodes === nodes && r.threads === threads)
  const figures: Figure[] = runs.map((r) => ({
    name: `cluster: seed, ${r.nodes} node${r.nodes > 1 ? 's' : ''} x ${r.threads} thread${r.threads > 1 ? 's' : ''}`,
    value: Math.round(r.tilesPerSecond),
    unit: 'tiles/s',
    note: `per-thread efficiency ${round(r.tilesPerSecond / (r.nodes * r.threads) / base)}; ${r.tiles} tiles, ${r.metatiles} metatiles in ${round(r.seconds, 1)} s; ` +
      `${round(r.statements.total / r.metatiles, 1)} statements/metatile (quota ${round(r.statements.quota / r.metatiles)}, plan ${round(r.statements.plan / r.metatiles)}, lock ${round(r.statements.lock / r.metatiles)}, ` +
      `chunks and tasks ${round(r.statements.seed / r.metatiles)}, queue ${round(r.statements.queue / r.metatiles)}, other ${round(r.statements.other / r.metatiles)}); ` +
      `${round(r.transactions / r.metatiles, 1)} transactions/metatile; database CPU ${round(r.dbCpuSeconds * 1000 / r.metatiles, 1)} ms/metatile; backends waiting for a lock in ${round(r.lockWaitShare * 100, 1)} % of samples`
  }))
  const ratio = (a: SeedRun | undefined, b: SeedRun | undefined) => a && b ? round(a.tilesPerSecond / b.tilesPerSecond) : NaN
  const four = of(4, 1)
  const multi = runs.filter((r) => r.nodes > 1)
  const perMetatile = Math.max(...multi.map((r) => r.statements.total / r.metatiles))
  return [
    ...figures,
    { name: 'cluster: four nodes x 1 thread / one node x 4 threads', value: ratio(four, of(1, 4)), unit: '', note: `target >= 0.95 (${os.cpus().length} cores)` },
    { name: 'cluster: two nodes x 1 thread / one node x 2 threads', value: ratio(of(2, 1), of(1, 2)), unit: '', note: 'target >= 0.9' },
    { name: 'cluster: database round trips per metatile while nodes seed', value: round(perMetatile, 1), unit: '', note: `target <= 6: the most of the runs of several nodes (${multi.map((r) => `${r.nodes} nodes: ${r.statements.total} statements over ${r.metatiles} metatiles`).join('; ')})` },
    { name: 'cluster: node death to its chunks running elsewhere', value: Math.round(death), unit: 'ms', note: 'SIGKILL of one of two built servers mid-seed; the other notices within its 1 s check and the work queue retries at once' }
  ]
}
