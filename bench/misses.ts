// Cache misses under load (issue 21): the BUILT server as a child process (load-server.ts, as the
// load bench starts it), 200 concurrent clients reading every tile of 50 uncached metatiles (4 x 4,
// whole, spread over the layer) of the bench mosaic in EPSG:900913 at zoom MW_BENCH_MISSES_ZOOM
// (default 10), each tile once, in an order that asks all 50 metatiles at once (4 tiles of each
// among the first 200 requests). Figures: metatiles rendered (the server's tile-written events,
// one render per full set of a metatile's tiles; target 50: each rendered once however many of its
// tiles are asked at the same time), errors (target 0), the server's event-loop delay p99 (target
// < 50 ms), tile latency p99 and its ratio to one metatile's render alone (target <= 3). With all
// 50 asked at once on MAPWARDEN_WORKER_THREADS render threads, the last render cannot start
// before ceil(50 / threads) - 1 renders have finished on its thread: that lower bound is shown too.
// Then the same storm on a cluster (issue 37): two such servers on one throwaway PostgreSQL
// database (MW_BENCH_PG, as cluster.ts) and one data directory, each asked every tile by its own
// 200 connections, both in the same order at the same time, so both want each of the 50 metatiles
// at once. Figures: renders per metatile across the nodes (both nodes' metatiles rendered over 50;
// target 1.00), errors, each node's event-loop delay p99 (target < 50 ms), the requests that found
// their metatile rendered by the other node and waited (mapwarden_metatile_waits_total) and those
// that gave up waiting, tile p99 against the single node's.
import autocannon from 'autocannon'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Figure } from './harness.js'
import { withDatabase } from './cluster.js'
import { call, createLayer, layerSubset, startServer, stats, statuses, type Server } from './load.js'
import { GRID_SETS, tilesHigh } from '../services/tilecache/grid-sets.js'
import { rectAt, tileRange } from '../services/tilecache/tile-range.js'

const ZOOM = Number(process.env.MW_BENCH_MISSES_ZOOM ?? 10)
const CLIENTS = 200
const METATILES = 50
const THREADS = 2

type Meta = [number, number] // first tile column and row (row 0 at the bottom)

/** Whole 4 x 4 metatiles inside the layer at ZOOM, `count` of them spread evenly over the list. */
async function pickMetatiles (s: Server, layer: string, count: number): Promise<Meta[]> {
  const r = rectAt(tileRange(await layerSubset(s, layer), ZOOM, ZOOM), ZOOM)
  if (!r) throw new Error(`the layer has no tiles at zoom ${ZOOM}`)
  const all: Meta[] = []
  for (let y = Math.ceil(r[1] / 4) * 4; y + 3 <= r[3]; y += 4) {
    for (let x = Math.ceil(r[0] / 4) * 4; x + 3 <= r[2]; x += 4) all.push([x, y])
  }
  if (all.length < count) throw new Error(`only ${all.length} whole metatiles at zoom ${ZOOM}; MW_BENCH_MISSES_ZOOM higher`)
  const step = all.length / count
  return Array.from({ length: count }, (_, i) => all[Math.floor(i * step)])
}

function tilePath (layer: string, [mx, my]: Meta, i: number): string {
  const rows = tilesHigh(GRID_SETS['EPSG:900913'], ZOOM)
  return `/geoserver/gwc/service/xyz/${layer}/EPSG:900913/${ZOOM}/${mx + (i % 4)}/${rows - 1 - (my + Math.floor(i / 4))}.png`
}

/** Latency of one tile of an uncached metatile with nothing else running (ms). */
async function alone (s: Server, layer: string, m: Meta): Promise<number> {
  const t0 = performance.now()
  const res = await fetch(s.root + tilePath(layer, m, 5))
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`tile: ${res.status}`)
  return performance.now() - t0
}

/** Every path once, by `CLIENTS` connections, in order. */
async function storm (s: Server, paths: string[]) {
  let next = 0
  return await autocannon({
    url: s.root, connections: CLIENTS, amount: paths.length, timeout: 300,
    requests: [{ method: 'GET', setupRequest: (req: any) => ({ ...req, path: paths[next++ % paths.length] }) }]
  })
}

/** The paths of every tile of `load`, tile t of every metatile before tile t + 1 of any. */
function stormPaths (layer: string, load: Meta[]): string[] {
  const paths: string[] = []
  for (let t = 0; t < 16; t++) for (const m of load) paths.push(tilePath(layer, m, t))
  return paths
}

/** A node's metatile waits so far (mapwarden_metatile_waits_total by outcome). */
async function waits (s: Server): Promise<{ waited: number, timedOut: number }> {
  const text = (await call(s, 'GET', '/metrics')).text
  const value = (outcome: string) => Number(new RegExp(`^mapwarden_metatile_waits_total\\{outcome="${outcome}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0)
  return { waited: value('waited'), timedOut: value('timed_out') }
}

/** The storm on two nodes of one database and data directory; `single`: the one-node run's tile and event-loop p99. */
async function cluster (single: { tileP99: number, loopP99: number }): Promise<Figure[]> {
  return await withDatabase(async (databaseUrl) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-misses-cluster-'))
    const env = { MAPWARDEN_WORKER_THREADS: String(THREADS), MAPWARDEN_DATABASE_URL: databaseUrl }
    const nodes: Server[] = []
    try {
      nodes.push(await startServer(env, dataDir), await startServer(env, dataDir))
      const [a, b] = nodes
      const { layer } = await createLayer(a)
      for (let i = 0; (await call(b, 'GET', `/rest/layers/${layer}.json`)).status !== 200; i++) {
        if (i > 200) throw new Error(`node B never saw ${layer}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      // One metatile each for the warm-up (each node's threads started, granules opened), 50 under load.
      const metas = await pickMetatiles(a, layer, METATILES + 2)
      await alone(a, layer, metas[0])
      await alone(b, layer, metas[1])
      const paths = stormPaths(layer, metas.slice(2))
      await Promise.all(nodes.map((n) => stats(n, true)))
      const before = await Promise.all(nodes.map(waits))
      const runs = await Promise.all(nodes.map((n) => storm(n, paths)))
      const after = await Promise.all(nodes.map((n) => stats(n)))
      const w = (await Promise.all(nodes.map(waits))).map((x, i) => ({ waited: x.waited - before[i].waited, timedOut: x.timedOut - before[i].timedOut }))
      const rendered = after[0].metatilesRendered + after[1].metatilesRendered
      const p99 = Math.max(...runs.map((r) => r.latency.p99))
      const load = `machine load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs`
      return [
        { name: 'misses on two nodes: setup', value: paths.length * 2, unit: 'tiles', note: `every tile of the same ${METATILES} metatiles asked of both nodes at once (${CLIENTS} connections each, same order), one PostgreSQL database and data directory, ${THREADS} render threads each; ${load}` },
        { name: 'misses on two nodes: renders per metatile', value: Math.round(rendered / METATILES * 100) / 100, unit: '', note: `target 1.00; node A rendered ${after[0].metatilesRendered}, node B ${after[1].metatilesRendered} of ${METATILES}; ${after[0].tileWrites + after[1].tileWrites} tile writes` },
        { name: 'misses on two nodes: errors', value: runs.reduce((n, r) => n + r.errors + r.non2xx + r.timeouts, 0), unit: 'req', note: `statuses A ${statuses(runs[0])}, B ${statuses(runs[1])}; target 0` },
        { name: 'misses on two nodes: event-loop delay p99, node A', value: after[0].loopP99Ms, unit: 'ms', note: `max ${after[0].loopMaxMs} ms; target < 50 (${load})` },
        { name: 'misses on two nodes: event-loop delay p99, node B', value: after[1].loopP99Ms, unit: 'ms', note: `max ${after[1].loopMaxMs} ms; target < 50` },
        { name: 'misses on two nodes: event-loop delay p99 / one node\'s', value: Math.round(Math.max(after[0].loopP99Ms, after[1].loopP99Ms) / single.loopP99 * 100) / 100, unit: 'ratio', note: `the higher node's against ${single.loopP99} ms on one node in this run (two processes and four render threads on the same cores)` },
        { name: 'misses on two nodes: requests that waited for the other node', value: w[0].waited + w[1].waited, unit: 'metatiles', note: `A ${w[0].waited}, B ${w[1].waited} (no connection held while waiting); gave up after MAPWARDEN_METATILE_WAIT: ${w[0].timedOut + w[1].timedOut}, target 0` },
        { name: 'misses on two nodes: tile p99 / one node\'s', value: Math.round(p99 / single.tileP99 * 100) / 100, unit: 'ratio', note: `${p99} ms (the slower node's) against ${single.tileP99} ms on one node in this run; the two nodes share the renders on one machine's cores` }
      ]
    } finally {
      for (const n of nodes) await n.stop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
}

export async function run (): Promise<Figure[]> {
  const single = await oneNode()
  const figure = (name: string) => single.find((f) => f.name === `misses under load: ${name}`)!.value
  try {
    return [...single, ...await cluster({ tileP99: figure('tile latency p99'), loopP99: figure('event-loop delay p99') })]
  } catch (err) {
    return [...single, { name: 'misses on two nodes', value: NaN, unit: '', note: `not run: ${(err as Error).message} (PostgreSQL at MW_BENCH_PG)` }]
  }
}

async function oneNode (): Promise<Figure[]> {
  const s = await startServer({ MAPWARDEN_WORKER_THREADS: String(THREADS) })
  try {
    const { layer, source } = await createLayer(s)
    // One for a warm-up (threads started, granules opened), three alone, 50 under load.
    const metas = await pickMetatiles(s, layer, METATILES + 4)
    await alone(s, layer, metas[0])
    const single = [await alone(s, layer, metas[1]), await alone(s, layer, metas[2]), await alone(s, layer, metas[3])].sort((a, b) => a - b)[1]
    // Tile t of every metatile before tile t + 1 of any: the first 200 requests ask each metatile 4 times.
    const paths = stormPaths(layer, metas.slice(4))
    await stats(s, true)
    const r = await storm(s, paths)
    const after = await stats(s)
    const bound = Math.ceil(METATILES / THREADS) * single
    return [
      { name: 'misses under load: setup', value: paths.length, unit: 'tiles', note: `${METATILES} metatiles 4 x 4 of ${layer} (${source}), EPSG:900913 zoom ${ZOOM}, ${CLIENTS} connections, ${THREADS} render threads; machine load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs` },
      { name: 'misses under load: metatiles rendered', value: after.metatilesRendered, unit: '', note: `target ${METATILES} (each once); ${after.metatilesWritten} metatiles written, ${after.tileWrites} tile writes` },
      { name: 'misses under load: errors', value: r.errors + r.non2xx + r.timeouts, unit: 'req', note: `statuses ${statuses(r)}; target 0` },
      { name: 'misses under load: event-loop delay p99', value: after.loopP99Ms, unit: 'ms', note: `server's own; max ${after.loopMaxMs} ms; target < 50` },
      { name: 'misses under load: tile latency p99', value: r.latency.p99, unit: 'ms', note: `p50 ${r.latency.p50} ms, max ${r.latency.max} ms; all ${paths.length} tiles in ${(r.duration).toFixed(1)} s` },
      { name: 'misses under load: one metatile rendered alone', value: Math.round(single), unit: 'ms', note: 'median of 3, a tile of an uncached metatile with nothing else running' },
      { name: 'misses under load: tile p99 / one metatile alone', value: Math.round(r.latency.p99 / single * 100) / 100, unit: 'ratio', note: 'target <= 3' },
      { name: 'misses under load: tile p99 / all asked at once on the threads', value: Math.round(r.latency.p99 / bound * 100) / 100, unit: 'ratio', note: `ceil(${METATILES} / ${THREADS}) x one metatile alone = ${Math.round(bound)} ms, the least the last tile can wait` }
    ]
  } finally {
    await s.stop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((f) => { for (const x of f) console.log(`${x.name}: ${x.value} ${x.unit}${x.note ? ` (${x.note})` : ''}`) })
}
