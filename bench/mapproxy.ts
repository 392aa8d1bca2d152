// MapProxy 1.15 in front of MapServer 8 seeding the bench mosaic (Debian's python3-mapproxy and
// cgi-mapserver): the seed tool MapProxy users run (mapproxy-seed; Debian ships it as the module
// `mapproxy.seed.script`), concurrency 2, EPSG:900913 levels 0..zoom over the mosaic's extent,
// PNG (RGBA, not paletted), 4x4 metatiles without a buffer, as mapwarden seeds. MapProxy runs the
// mapserv CGI once per metatile (its `mapserver` source); MapServer reads the mosaic's VRT
// (mapserver.ts; the mapfile's extent is the mosaic's).
// MapServer 8 answers nothing without a config file (msLoadConfig(): Unable to access file), and
// refuses a `map=` outside MS_MAP_PATTERN; mapproxy-seed then retries each metatile with a
// doubling back-off (100 times), which looks like a hang at 0 % CPU. So the CGI is called once
// before the seed and its answer checked, the seed stops at its first retry, and a time limit
// (MW_BENCH_MAPPROXY_TIMEOUT seconds, default 1800) ends it: each fails the figure, not the bench.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn, spawnSync } from 'node:child_process'
import { haveBenchTool } from './harness.js'
import { BENCH_LONLAT, mapfile } from './mapserver.js'
import { GRID_SETS, gridSubset, type BBox } from '../services/tilecache/grid-sets.js'
import { rectAt, tileRange } from '../services/tilecache/tile-range.js'
import { BENCH_DATA } from './data.js'

const MAPSERV = '/usr/lib/cgi-bin/mapserv'
const PYTHON = '/usr/bin/python3'
const TIMEOUT_S = Number(process.env.MW_BENCH_MAPPROXY_TIMEOUT ?? 1800)

const haveMapProxy = () => haveBenchTool(() => fs.existsSync(MAPSERV) &&
  spawnSync(PYTHON, ['-c', 'import mapproxy.seed.script'], { stdio: 'ignore' }).status === 0)

function mapproxyYaml (dir: string, bbox: BBox, layers: string): string {
  return `services:
  tms:
layers:
  - name: bench
    title: bench
    sources: [bench_cache]
caches:
  bench_cache:
    grids: [gwc_900913]
    sources: [bench_ms]
    format: image/png
    meta_size: [4, 4]
    meta_buffer: 0
    cache:
      type: file
      directory: ${path.join(dir, 'cache')}
      directory_layout: tms
sources:
  bench_ms:
    type: mapserver
    req:
      layers: ${layers}
      map: ${path.join(dir, 'bench.map')}
      transparent: true
    coverage:
      bbox: [${bbox.join(', ')}]
      srs: 'EPSG:4326'
    mapserver:
      binary: ${MAPSERV}
      working_dir: ${dir}
grids:
  # EPSG:900913 as GeoWebCache has it: row 0 at the bottom, so metatiles line up with mapwarden's.
  gwc_900913:
    base: GLOBAL_WEBMERCATOR
    origin: sw
globals:
  image:
    paletted: false
`
}

function seedYaml (bbox: BBox, zoom: number): string {
  return `seeds:
  bench:
    caches: [bench_cache]
    grids: [gwc_900913]
    coverages: [bench_area]
    levels:
      from: 0
      to: ${zoom}
coverages:
  bench_area:
    bbox: [${bbox.join(', ')}]
    srs: 'EPSG:4326'
`
}

/** One GetMap through the CGI as MapProxy calls it; throws with MapServer's answer when it is not a PNG. */
function checkMapserver (dir: string, env: NodeJS.ProcessEnv, layers: string) {
  const query = `map=${encodeURIComponent(path.join(dir, 'bench.map'))}&SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&LAYERS=${layers}&STYLES=` +
    '&SRS=EPSG:3857&BBOX=0,4865942,2226390,8399738&WIDTH=64&HEIGHT=64&FORMAT=image/png&TRANSPARENT=true'
  const r = spawnSync(MAPSERV, [], { cwd: dir, env: { ...env, REQUEST_METHOD: 'GET', QUERY_STRING: query }, timeout: 60_000 })
  const head = (r.stdout ?? Buffer.alloc(0)).subarray(0, 2000).toString('latin1')
  if (r.status !== 0 || !/^Content-Type: image\/png/i.test(head)) {
    throw new Error(`MapServer CGI GetMap: exit ${r.status}, ${head.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').slice(0, 300)}`)
  }
}

/** mapproxy-seed in its own process group, ended at its first retry or at the time limit. */
function runSeed (dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(PYTHON, ['-m', 'mapproxy.seed.script', '-f', 'mapproxy.yaml', '-s', 'seed.yaml', '-c', '2', '--seed', 'bench'],
    { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let tail = ''
  return new Promise((resolve, reject) => {
    const stop = (why: string) => {
      try { process.kill(-child.pid!, 'SIGKILL') } catch { /* gone */ }
      reject(new Error(`mapproxy-seed ${why}: ${tail.slice(-400)}`))
    }
    const timer = setTimeout(() => stop(`took longer than ${TIMEOUT_S} s (MW_BENCH_MAPPROXY_TIMEOUT)`), TIMEOUT_S * 1000)
    const watch = (d: Buffer) => {
      tail = (tail + d.toString()).slice(-4000)
      if (tail.includes('An error occured. Retry in')) { clearTimeout(timer); stop('failed a metatile') }
    }
    child.stdout!.on('data', watch)
    child.stderr!.on('data', watch)
    child.once('exit', (code) => {
      clearTimeout(timer)
      if (code === 0) resolve()
      else reject(new Error(`mapproxy-seed exited with ${code}: ${tail.slice(-400)}`))
    })
  })
}

/**
 * Seeds the mosaic (a VRT over lon/lat `bbox`) in EPSG:900913, levels 0..zoom, with MapProxy over
 * MapServer. `tiles` counts the stored tiles inside the levels' tile ranges (the tiles mapwarden
 * writes for the same request); `written` every tile MapProxy stored (whole metatiles, also the
 * parts outside the extent). Undefined when the programs are not installed.
 */
export async function mapProxySeed (vrt: string, bbox: BBox, zoom: number): Promise<{ tiles: number, written: number, bytes: number, secs: number } | undefined> {
  return await mapProxySeedMap(() => mapfile(vrt), 'mosaic', bbox, zoom)
}

/** The same seed of any mapfile (`map(dir)`, written in MapProxy's working directory) and its WMS `layers` (vectorwms.ts: the countries in PostGIS). */
export async function mapProxySeedMap (map: (dir: string) => string, layers: string, bbox: BBox, zoom: number): Promise<{ tiles: number, written: number, bytes: number, secs: number } | undefined> {
  if (!haveMapProxy()) return undefined
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-mapproxy-'))
  try {
    fs.writeFileSync(path.join(dir, 'bench.map'), map(dir))
    fs.writeFileSync(path.join(dir, 'mapserver.conf'), `CONFIG\n  ENV\n    MS_MAP_PATTERN "^${dir.replace(/[.\\]/g, '\\$&')}/"\n  END\nEND\n`)
    fs.writeFileSync(path.join(dir, 'mapproxy.yaml'), mapproxyYaml(dir, bbox, layers))
    fs.writeFileSync(path.join(dir, 'seed.yaml'), seedYaml(bbox, zoom))
    // The CGI inherits this environment from mapproxy-seed.
    const env = { ...process.env, MAPSERVER_CONFIG_FILE: path.join(dir, 'mapserver.conf') }
    checkMapserver(dir, env, layers)
    const t0 = performance.now()
    await runSeed(dir, env)
    const secs = (performance.now() - t0) / 1000
    const range = tileRange(gridSubset(GRID_SETS['EPSG:900913'], bbox), 0, zoom)
    let tiles = 0
    let written = 0
    let bytes = 0
    const cache = path.join(dir, 'cache')
    for (const z of fs.existsSync(cache) ? fs.readdirSync(cache) : []) {
      const r = rectAt(range, Number(z))
      for (const x of fs.readdirSync(path.join(cache, z))) {
        for (const f of fs.readdirSync(path.join(cache, z, x))) {
          const y = Number(f.replace(/\.png$/, ''))
          written++
          if (!r || Number(x) < r[0] || Number(x) > r[2] || y < r[1] || y > r[3]) continue
          tiles++
          bytes += fs.statSync(path.join(cache, z, x, f)).size
        }
      }
    }
    return { tiles, written, bytes, secs }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

// `node dist/bench/mapproxy.js [zoom]`: the MapProxy seed alone (default levels 0..10), as a check.
if (import.meta.url === `file://${process.argv[1]}`) {
  mapProxySeed(path.join(BENCH_DATA, 'mosaic.vrt'), BENCH_LONLAT, Number(process.argv[2] ?? 10)).then((r) => {
    console.log(r ? `${r.tiles} tiles of the ranges (${r.written} stored, ${r.bytes} bytes) in ${r.secs.toFixed(1)} s: ${(r.tiles / r.secs).toFixed(2)} tiles/s` : 'python3-mapproxy or cgi-mapserver not installed')
  }, (err) => { console.error(err.message); process.exit(1) })
}
