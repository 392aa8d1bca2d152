// Disk quota figures (not a test), each against its baseline in the same run:
// 1. cached-tile GET requests/s with accounting on vs off (same server, alternating runs);
// 2. the time to evict 100,000 tiles through the cleaner (page by page, every deletion
//    accounted) vs `rm -rf` of the same files.
// Bounded: about 13 s of load plus two writes of 100,000 small files (MW_BENCH_DISKQUOTA_TILES
// lowers the count; on an idle machine the whole run takes well under two minutes).
// @ts-ignore autocannon's types come from bench/autocannon.d.ts on main
import autocannon from 'autocannon'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { startMapwarden } from './harness.js'
import { openDatabase } from '../services/storage/sqlite/database.js'
import { createBlobStore } from '../services/tilecache/blob-store.js'
import { createSqliteQuotaStore } from '../services/diskquota/sqlite-quota-store.js'
import { createDiskQuota } from '../services/diskquota/disk-quota.js'
import { GRID_SETS, gridSubset } from '../services/tilecache/grid-sets.js'

type Figure = { name: string, value: number, unit: string, note?: string }
const TILES = Number(process.env.MW_BENCH_DISKQUOTA_TILES ?? 100_000)

async function rps (url: string, duration = 3): Promise<number> {
  const r: { requests: { average: number }, non2xx: number } = await autocannon({ url, connections: 10, duration })
  if (r.non2xx) throw new Error(`${r.non2xx} failed tile requests`)
  return r.requests.average
}

async function cachedGets (): Promise<Figure[]> {
  const { app, url, close } = await startMapwarden()
  try {
    await app.workspaces.create({ name: 'bench' })
    const now = new Date().toISOString()
    app.db.prepare("INSERT INTO stores (workspace, name, kind, type, config, created_at) VALUES ('bench', 'l', 'coverage', 'ImageMosaic', '{}', ?)").run(now)
    app.db.prepare("INSERT INTO resources (workspace, store, name, kind, native_name, srs, bbox, config) VALUES ('bench', 'l', 'l', 'coverage', 'l', 'EPSG:4326', '[-180,-90,180,90]', '{}')").run()
    app.db.prepare("INSERT INTO layers (workspace, name, type, styles) VALUES ('bench', 'l', 'RASTER', '[]')").run()
    await app.tileCache.store.put({ layer: 'bench:l', gridSet: 'EPSG:900913', format: 'image/png', parameterId: 'default', z: 1, x: 0, y: 1 }, Buffer.alloc(12_000, 1))
    const tile = `${url}/geoserver/tilecache/service/xyz/bench:l/EPSG:900913/1/0/0.png`
    const on: number[] = []
    const off: number[] = []
    await rps(tile, 1) // warm-up
    for (let i = 0; i < 2; i++) {
      app.diskQuota.recorder.setEnabled(false)
      off.push(await rps(tile))
      app.diskQuota.recorder.setEnabled(true)
      on.push(await rps(tile))
    }
    await app.diskQuota.flush()
    const hits = app.db.prepare('SELECT SUM(hits) FROM dq_pages').pluck().get() as number
    const avg = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length
    return [
      { name: 'cached tile GET, accounting on', value: Math.round(avg(on)), unit: 'req/s', note: `${hits} hits recorded` },
      { name: 'cached tile GET, accounting off', value: Math.round(avg(off)), unit: 'req/s' },
      { name: 'cached tile GET on/off ratio', value: Number((avg(on) / avg(off)).toFixed(3)), unit: 'x', note: 'target >= 0.8' }
    ]
  } finally {
    await close()
  }
}

/** Writes `n` small tiles of one layer at zoom 9 in the blob store's layout; returns the tile root. */
function writeTiles (root: string, n: number): void {
  const cov = gridSubset(GRID_SETS['EPSG:4326'], undefined).coverage(9)!
  const rows = cov[3] - cov[1] + 1
  const data = Buffer.alloc(700, 3)
  for (let i = 0; i < n;) {
    const x = Math.floor(i / rows)
    const dir = path.join(root, 'bench', 'l', 'EPSG_4326', 'png', 'default', '9', String(x))
    fs.mkdirSync(dir, { recursive: true })
    for (let y = 0; y < rows && i < n; y++, i++) fs.writeFileSync(path.join(dir, `${y}.png`), data)
  }
}

async function eviction (): Promise<Figure[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-evict-'))
  try {
    const db = openDatabase(dir)
    const blobStore = createBlobStore({ root: path.join(dir, 'tiles'), tmpDir: path.join(dir, 'tmp') })
    const logs = { info: () => {}, warn: () => {} }
    const dq = await createDiskQuota({
      store: createSqliteQuotaStore(db),
      blobStore,
      flushMs: 0,
      log: logs,
      layerExists: async () => true,
      coverage: async (_l, gs, z) => gridSubset(GRID_SETS[gs as 'EPSG:4326'], undefined).coverage(z)
    })
    writeTiles(blobStore.root, TILES)
    await dq.rebuild()
    await dq.update({ enabled: true, globalExpirationPolicyName: 'LRU', globalQuota: { value: '0', units: 'B' } })
    let t0 = performance.now()
    const run = await dq.runCleanUp()
    const evictMs = performance.now() - t0
    const evicted = run.results.reduce((n, r) => n + r.tiles, 0)
    const pages = run.results.reduce((n, r) => n + r.pages, 0)
    await dq.close()
    db.close()

    const rmDir = path.join(dir, 'rm')
    writeTiles(rmDir, TILES)
    t0 = performance.now()
    spawnSync('rm', ['-rf', rmDir])
    const rmMs = performance.now() - t0
    return [
      { name: `evict ${evicted} tiles (${pages} pages, LRU)`, value: Math.round(evictMs), unit: 'ms' },
      { name: `rm -rf ${TILES} tiles`, value: Math.round(rmMs), unit: 'ms' },
      { name: 'eviction / rm -rf', value: Number((evictMs / rmMs).toFixed(2)), unit: 'x', note: 'target within 3x' }
    ]
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

export async function run (): Promise<Figure[]> {
  const parts = (process.env.MW_BENCH_DISKQUOTA_PARTS ?? 'gets,evict').split(',')
  return [...parts.includes('gets') ? await cachedGets() : [], ...parts.includes('evict') ? await eviction() : []]
}
