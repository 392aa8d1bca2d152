// Cluster figures (not a test), on the shared benchmark mosaic and throwaway databases of the local
// PostgreSQL server (MW_BENCH_PG, default postgres://postgres@127.0.0.1:5432/postgres):
// - seeding on one node with two render threads against two nodes with one each (same data, same
//   zooms, the same total threads): what coordinating through PostgreSQL and the work queue costs;
// - database round trips per metatile while two nodes seed (every statement any of them sends,
//   pg-boss's included, over the metatiles rendered);
// - time from a node's death (SIGKILL of a built server) to its chunks running on the other node.
// The nodes of the first two figures run in this process (their render threads are workers either
// way); the third needs a process to kill, so it starts two built servers.
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import { AUTH, BENCH_PASSWORD, startMapwarden, type Figure } from './harness.js'
import { SERVER_NODE_FLAGS } from './node-flags.js'
import { benchMosaicZip, createMosaic } from './tilecache.js'
import { BENCH_DATA as DATA, NO_BENCH_DATA } from './data.js'

const ADMIN_URL = process.env.MW_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const ZOOM = Number(process.env.MW_BENCH_CLUSTER_ZOOM ?? 10)
const HERE = path.dirname(fileURLToPath(import.meta.url))

async function admin (sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL })
  await c.connect()
  try { await c.query(sql) } finally { await c.end() }
}

async function withDatabase<T> (fn: (url: string) => Promise<T>): Promise<T> {
  const name = `mw_bench_${crypto.randomBytes(5).toString('hex')}`
  await admin(`CREATE DATABASE ${name}`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  try { return await fn(url.href) } finally { await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }
}

const seedBody = (format = 'image/png') => JSON.stringify({ seedRequest: { gridSetId: 'EPSG:900913', zoomStart: 0, zoomStop: ZOOM, type: 'seed', format, threadCount: 2 } })

/** Seeds the mosaic through the first node, all nodes rendering; tiles per second and the statements sent meanwhile. */
async function clusterSeed (threads: number[]): Promise<{ tilesPerSecond: number, tiles: number, statements: number, metatiles: number }> {
  return await withDatabase(async (databaseUrl) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-cluster-'))
    const nodes: Array<{ app: FastifyInstance, close: () => Promise<void> }> = []
    try {
      for (const workerThreads of threads) nodes.push(await startMapwarden({ dataDir, databaseUrl, workerThreads }))
      const layer = await createMosaic(nodes[0].app)
      // Every statement of this process (both nodes' pools, the listener, the work queue).
      const query = pg.Client.prototype.query
      let statements = 0
      pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) { statements++; return (query as (...a: unknown[]) => unknown).apply(this, args) } as typeof query
      const t0 = performance.now()
      try {
        const res = await nodes[0].app.inject({ method: 'POST', url: `/geoserver/gwc/rest/seed/${layer}.json`, headers: { authorization: AUTH, 'content-type': 'application/json' }, payload: seedBody() })
        if (res.statusCode !== 200) throw new Error(`seed: ${res.statusCode} ${res.body}`)
        await nodes[0].app.tileCache.breeder.idle()
      } finally { pg.Client.prototype.query = query }
      const seconds = (performance.now() - t0) / 1000
      const c = new pg.Client({ connectionString: databaseUrl })
      await c.connect()
      const w = (await c.query<{ metatiles: string, tiles: string }>('SELECT sum(metatiles) AS metatiles, sum(tiles) AS tiles FROM seed_node_work')).rows[0]
      await c.end()
      return { tilesPerSecond: Number(w.tiles) / seconds, tiles: Number(w.tiles), statements, metatiles: Number(w.metatiles) }
    } finally {
      for (const n of nodes.reverse()) await n.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
}

function startServer (dataDir: string, env: Record<string, string>): Promise<{ child: ChildProcess, url: string }> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, path.join(HERE, '../plugins/server.js')], {
    env: { PATH: process.env.PATH ?? '', MAPWARDEN_PORT: '0', MAPWARDEN_HOST: '127.0.0.1', MAPWARDEN_DATA_DIR: dataDir, MAPWARDEN_ADMIN_PASSWORD: BENCH_PASSWORD, MAPWARDEN_LOG_LEVEL: 'info', ...env },
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
      const call = (method: string, url: string, body?: BodyInit, type = 'application/json') =>
        fetch(`${a.url}/geoserver${url}`, { method, headers: { authorization: AUTH, ...(body ? { 'content-type': type } : {}) }, body })
      await call('POST', '/rest/workspaces', JSON.stringify({ workspace: { name: 'bench' } }))
      const zip = await benchMosaicZip()
      try {
        const up = await call('PUT', '/rest/workspaces/bench/coveragestores/mosaic/file.imagemosaic', fs.readFileSync(zip.file), 'application/zip')
        if (up.status >= 300) throw new Error(`mosaic: ${up.status} ${await up.text()}`)
      } finally { zip.dispose() }
      const res = await call('POST', '/gwc/rest/seed/bench:mosaic.json', seedBody('image/jpeg'))
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

export async function run (): Promise<Figure[]> {
  if (!fs.existsSync(path.join(DATA, 'granules'))) {
    return [{ name: 'cluster: seeding', value: NaN, unit: '', note: NO_BENCH_DATA }]
  }
  const one = await clusterSeed([2])
  const two = await clusterSeed([1, 1])
  const death = await failover()
  return [
    { name: 'cluster: seed, one node x 2 threads', value: Math.round(one.tilesPerSecond), unit: 'tiles/s', note: `EPSG:900913 z0-${ZOOM} PNG, ${one.tiles} tiles` },
    { name: 'cluster: seed, two nodes x 1 thread', value: Math.round(two.tilesPerSecond), unit: 'tiles/s', note: 'same data, zooms and total threads, one database' },
    { name: 'cluster: two nodes / one node', value: Math.round((two.tilesPerSecond / one.tilesPerSecond) * 100) / 100, unit: '', note: 'target >= 0.9: coordination costs little' },
    { name: 'cluster: database round trips per metatile', value: Math.round((two.statements / two.metatiles) * 10) / 10, unit: '', note: `${two.statements} statements of both nodes (work queue, locks, progress, the copy of the task list) over ${two.metatiles} metatiles` },
    { name: 'cluster: node death to its chunks running elsewhere', value: Math.round(death), unit: 'ms', note: 'SIGKILL of one of two built servers mid-seed; the other notices within its 1 s check and the work queue retries at once' }
  ]
}
