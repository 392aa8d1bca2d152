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
import autocannon from 'autocannon'
import os from 'node:os'
import type { Figure } from './harness.js'
import { createLayer, layerSubset, startServer, stats, statuses, type Server } from './load.js'
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

export async function run (): Promise<Figure[]> {
  const s = await startServer({ MAPWARDEN_WORKER_THREADS: String(THREADS) })
  try {
    const { layer, source } = await createLayer(s)
    // One for a warm-up (threads started, granules opened), three alone, 50 under load.
    const metas = await pickMetatiles(s, layer, METATILES + 4)
    await alone(s, layer, metas[0])
    const single = [await alone(s, layer, metas[1]), await alone(s, layer, metas[2]), await alone(s, layer, metas[3])].sort((a, b) => a - b)[1]
    const load = metas.slice(4)
    // Tile t of every metatile before tile t + 1 of any: the first 200 requests ask each metatile 4 times.
    const paths: string[] = []
    for (let t = 0; t < 16; t++) for (const m of load) paths.push(tilePath(layer, m, t))
    await stats(s, true)
    let next = 0
    const r = await autocannon({
      url: s.root, connections: CLIENTS, amount: paths.length, timeout: 300,
      requests: [{ method: 'GET', setupRequest: (req: any) => ({ ...req, path: paths[next++ % paths.length] }) }]
    })
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
