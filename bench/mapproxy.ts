// MapProxy 1.15 in front of MapServer 8, seeding the bench mosaic (Debian's python3-mapproxy and
// cgi-mapserver): the seed tool MapProxy users run (mapproxy-seed, here `python3 -m
// mapproxy.seed.script`, as Debian ships no wrapper), concurrency 2, the same extent and levels,
// PNG, 4x4 metatiles without a buffer, as mapwarden seeds. MapServer reads the mosaic's VRT.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'

const MAPSERV = '/usr/lib/cgi-bin/mapserv'

/** python3-mapproxy and cgi-mapserver, installing them from Debian when possible (root, apt-get). */
export function haveMapProxy (): boolean {
  const ok = () => fs.existsSync(MAPSERV) && spawnSync('/usr/bin/python3', ['-c', 'import mapproxy.seed.script'], { stdio: 'ignore' }).status === 0
  if (ok()) return true
  if (process.getuid?.() === 0 && spawnSync('which', ['apt-get']).status === 0) {
    spawnSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'python3-mapproxy', 'cgi-mapserver'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
  }
  return ok()
}

/**
 * Seeds the mosaic (a VRT over lon/lat `bbox`) in spherical mercator, levels 0..zoom, with
 * MapProxy over MapServer; returns the tiles written, their bytes and the time taken.
 */
export function mapProxySeed (vrt: string, bbox: [number, number, number, number], zoom: number): { tiles: number, bytes: number, secs: number } | undefined {
  if (!haveMapProxy()) return undefined
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-mapproxy-'))
  try {
    fs.writeFileSync(path.join(dir, 'bench.map'), `MAP
  NAME "bench"
  EXTENT ${bbox.join(' ')}
  SIZE 1024 1024
  PROJECTION "init=epsg:4326" END
  IMAGETYPE "png"
  OUTPUTFORMAT
    NAME "png"
    DRIVER "AGG/PNG"
    MIMETYPE "image/png"
    IMAGEMODE RGBA
    EXTENSION "png"
    TRANSPARENT ON
  END
  WEB
    METADATA
      "wms_title" "bench"
      "wms_srs" "EPSG:4326 EPSG:3857 EPSG:900913"
      "wms_enable_request" "*"
    END
  END
  LAYER
    NAME "bench"
    TYPE RASTER
    STATUS ON
    DATA "${vrt}"
    PROJECTION "init=epsg:4326" END
    METADATA "wms_title" "bench" END
  END
END
`)
    const cache = path.join(dir, 'cache')
    fs.writeFileSync(path.join(dir, 'mapproxy.yaml'), `services:
  tms:
layers:
  - name: bench
    title: bench
    sources: [bench_cache]
caches:
  bench_cache:
    grids: [webmercator]
    sources: [bench_ms]
    format: image/png
    meta_size: [4, 4]
    meta_buffer: 0
    cache:
      type: file
      directory: ${cache}
      directory_layout: tms
sources:
  bench_ms:
    type: mapserver
    req:
      layers: bench
      map: ${path.join(dir, 'bench.map')}
      transparent: true
    coverage:
      bbox: [${bbox.join(', ')}]
      srs: 'EPSG:4326'
    mapserver:
      binary: ${MAPSERV}
      working_dir: ${dir}
grids:
  webmercator:
    base: GLOBAL_WEBMERCATOR
globals:
  image:
    paletted: false
`)
    fs.writeFileSync(path.join(dir, 'seed.yaml'), `seeds:
  bench:
    caches: [bench_cache]
    grids: [webmercator]
    coverages: [bench_area]
    levels:
      from: 0
      to: ${zoom}
coverages:
  bench_area:
    bbox: [${bbox.join(', ')}]
    srs: 'EPSG:4326'
`)
    const t0 = performance.now()
    const r = spawnSync('/usr/bin/python3', ['-m', 'mapproxy.seed.script', '-f', path.join(dir, 'mapproxy.yaml'), '-s', path.join(dir, 'seed.yaml'), '-c', '2', '--seed', 'bench', '-q'],
      { cwd: dir, encoding: 'utf8' })
    const secs = (performance.now() - t0) / 1000
    if (r.status !== 0) throw new Error(`mapproxy-seed failed: ${(r.stderr || r.stdout).slice(0, 500)}`)
    let tiles = 0
    let bytes = 0
    const walk = (d: string) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else if (e.name.endsWith('.png')) { tiles++; bytes += fs.statSync(p).size } } }
    if (fs.existsSync(cache)) walk(cache)
    return { tiles, bytes, secs }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
