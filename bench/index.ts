// npm run bench: every area's figures, each measured against its baseline in the same run.
// Usage: npm run bench [-- area ...]   (areas: core mosaics tilecache diskquota styles security wms load misses cluster vector wfs vectorwms vectorseed vectormem appschema)
// load and misses run the built server as a child process (load about 2 minutes; MW_BENCH_SOAK=1
// adds a 10-minute soak; misses: cache misses of 50 metatiles under 200 clients, on one node then
// on two nodes of one PostgreSQL database (MW_BENCH_PG), a minute or two;
// vector: MW_BENCH_VECTOR_ROWS rows, default 1,000,000, several minutes; wfs: WFS GetFeature and
// vector tiles on MW_BENCH_WFS_ROWS rows, default 100,000, a minute or two; vectorwms: countries
// GetMap against MapServer 8 and one map of MW_BENCH_VECTORWMS_ROWS points, default 1,000,000;
// vectorseed: the countries seeded z0-MW_BENCH_VECTORSEED_ZOOM (default 8) against MapProxy + MapServer;
// vectormem: the peak RSS and time of one map of MW_BENCH_VECTORMEM_ROWS points, default 1,000,000).
import { spawnSync } from 'node:child_process'
import type { Figure } from './harness.js'
import { SERVER_NODE_FLAGS } from './node-flags.js'

const AREAS = ['core', 'mosaics', 'tilecache', 'diskquota', 'styles', 'security', 'wms', 'load', 'misses', 'cluster', 'vector', 'wfs', 'vectorwms', 'vectorseed', 'vectormem', 'appschema']

async function main () {
  // Measured as the server runs (npm start, the image): glibc limited to two malloc arenas, and
  // blocks of 1 MiB and more returned when freed, which holds the RSS of the render threads; the
  // main thread's young generation held at 8 MB (SERVER_NODE_FLAGS). These only act at process
  // start, hence the child.
  const flags = SERVER_NODE_FLAGS.filter((f) => !process.execArgv.includes(f))
  if (process.env.MALLOC_ARENA_MAX === undefined || process.env.MALLOC_MMAP_THRESHOLD_ === undefined || flags.length) {
    const env = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '1048576', ...process.env }
    const child = spawnSync(process.execPath, [...process.execArgv, ...flags, ...process.argv.slice(1)], { stdio: 'inherit', env })
    process.exit(child.status ?? 1)
  }
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'))
  const areas = wanted.length ? wanted : AREAS
  const rows: Array<Figure & { area: string }> = []
  for (const area of areas) {
    let mod: { run: () => Promise<Figure[]> }
    try {
      mod = await import(`./${area}.js`)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') { console.log(`# ${area}: no benchmark yet`); continue }
      throw err
    }
    console.log(`# ${area} ...`)
    for (const f of await mod.run()) {
      rows.push({ area, ...f })
      console.log(`${area}\t${f.name}\t${f.value} ${f.unit}${f.note ? `\t(${f.note})` : ''}`)
    }
  }
  console.log('\n| area | figure | value | note |\n|---|---|---|---|')
  for (const r of rows) console.log(`| ${r.area} | ${r.name} | ${r.value} ${r.unit} | ${r.note ?? ''} |`)
}

main().catch((err) => { console.error(err); process.exit(1) })
