// Bench only (issue 37): the self time of each thread's .cpuprofile in a directory (node
// --cpu-prof of bench/seed-profile.ts), split by stage: what the code's file says it is. Native
// work of sharp and fs on libuv's pool is in no thread's JS profile (the process's CPU minus these).
import fs from 'node:fs'
import path from 'node:path'

interface Node { id: number, callFrame: { functionName: string, url: string }, hitCount?: number, children?: number[] }
interface Profile { nodes: Node[], samples: number[], timeDeltas: number[], startTime: number, endTime: number }

const STAGES: Array<[string, RegExp]> = [
  ['idle', /^\(idle\)$/],
  ['gc', /^\(garbage collector\)$/],
  ['mosaic read (tiff, inflate)', /geotiff|tiff-source|pako|inflate|granule/],
  ['resample / draw', /render\/raster\/(draw|resample|warp|render-mosaic|raster-style|overviews|vips-window)/],
  ['alpha scan + cut (tile-encode)', /tile-encode/],
  ['png encode (JS)', /png-encode/],
  ['sharp (JS side)', /node_modules\/sharp/],
  ['tile files (write, rename)', /tile-files|blob-store/],
  ['quota', /diskquota|quota/],
  ['seed bookkeeping (tasks, chunks, queue)', /services\/seed|services\/storage|seed-queue/],
  ['tile cache facade / plan', /services\/tilecache|services\/render\/(render-queue|render-pool|renderer|plan)/],
  ['sqlite / pg', /sqlite|node_modules\/pg/],
  ['piscina / worker messaging', /piscina|worker_threads|internal\/worker/],
  ['fastify / http', /fastify|light-my-request/],
  ['node internals', /^node:|^internal/],
  ['(program)', /^\(program\)$/]
]

function stageOf (n: Node): string {
  const key = n.callFrame.url || n.callFrame.functionName
  for (const [name, re] of STAGES) if (re.test(key) || re.test(n.callFrame.functionName)) return name
  return n.callFrame.url ? 'other: ' + path.basename(n.callFrame.url) : 'other: ' + n.callFrame.functionName
}

const dir = process.argv[2]
for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.cpuprofile')).sort()) {
  const p = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Profile
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const ms = new Map<string, number>()
  for (let i = 0; i < p.samples.length; i++) {
    const s = stageOf(byId.get(p.samples[i])!)
    ms.set(s, (ms.get(s) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000)
  }
  const total = (p.endTime - p.startTime) / 1000
  const busy = total - (ms.get('idle') ?? 0)
  console.log(`${f}: ${(total / 1000).toFixed(1)} s, busy ${(busy / 1000).toFixed(1)} s`)
  for (const [s, v] of [...ms].sort((a, b) => b[1] - a[1]).slice(0, 14)) if (s !== 'idle') console.log(`  ${s.padEnd(42)} ${(v / 1000).toFixed(2)} s  ${(100 * v / busy).toFixed(1)}%`)
}
