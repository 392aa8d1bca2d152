// WMS figures (not a test): GetMap 512x512 PNG of the benchmark mosaic (../shared/bench/
// make-mosaic.sh -> /tmp/bench-data) with 20 concurrent clients, mapwarden against MapServer 8
// (Debian's python3-mapscript rendering the same GeoTIFFs in process: two Python processes sharing
// the port with SO_REUSEPORT, one per core, as mapwarden has two render threads), same window, size
// and format, in the same run; and a tiled WMS hit against the cached WMTS GET of the same tile.
// When mapscript is missing the bench runs scripts/install-bench-tools.sh (root only).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { haveBenchTool, load, startMapwarden, type Figure } from './harness.js'
import { createMosaic } from './tilecache.js'
import { mapfile } from './mapserver.js'
import { GRID_SETS, closestRectangle, rectBounds, tilesHigh } from '../services/tilecache/grid-sets.js'
import { BENCH_DATA as DATA, NO_BENCH_DATA } from './data.js'

const SECONDS = Number(process.env.MW_BENCH_WMS_SECONDS ?? 10)
const CONNECTIONS = 20
// A native-resolution window (pixel 10/4096 degree) inside granule rgb_0_0, lon/lat order.
const BBOX = [5, 45, 5 + 512 * 10 / 4096, 45 + 512 * 10 / 4096]
const MAP_PARAMS = `SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&LAYERS=%s&STYLES=&SRS=EPSG:4326&BBOX=${BBOX.join(',')}&WIDTH=512&HEIGHT=512&FORMAT=image/png`

const MAPSERVER = `
import os, socket, sys, threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
import mapscript
mapfile, port, processes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
local = threading.local()
class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        m = getattr(local, 'map', None)
        if m is None:
            m = local.map = mapscript.mapObj(mapfile)
        req = mapscript.OWSRequest()
        req.loadParamsFromURL(self.path.split('?', 1)[1] if '?' in self.path else '')
        mapscript.msIO_installStdoutToBuffer()
        m.OWSDispatch(req)
        ctype = mapscript.msIO_stripStdoutBufferContentType()
        body = mapscript.msIO_getStdoutBufferBytes()
        mapscript.msIO_resetHandlers()
        self.send_response(200)
        self.send_header('Content-Type', ctype)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    def server_bind(self):
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        super().server_bind()
for i in range(processes - 1):
    if os.fork() == 0:
        break
Server(('127.0.0.1', port), Handler).serve_forever()
`

export const haveMapscript = () => haveBenchTool(() => spawnSync('/usr/bin/python3', ['-c', 'import mapscript'], { stdio: 'ignore' }).status === 0)

async function freePort (): Promise<number> {
  const srv = net.createServer()
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  const { port } = srv.address() as net.AddressInfo
  await new Promise((resolve) => srv.close(resolve))
  return port
}

/**
 * MapServer 8 in two mapscript processes on a loopback port, on the mapfile `mapfileOf` writes
 * (given the folder it is written to and the server's online resource); `url` is the query `params`
 * on it, answered with a PNG once it has started. `stop()` ends it and removes its folder.
 */
export async function startMapscript (mapfileOf: (dir: string, onlineResource: string) => string, params: string): Promise<{ url: string, child: ChildProcess, dir: string, stop: () => void }> {
  const port = await freePort()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-mapserver-'))
  fs.writeFileSync(path.join(dir, 'bench.map'), mapfileOf(dir, `http://127.0.0.1:${port}/?`))
  const child = spawn('/usr/bin/python3', ['-c', MAPSERVER, path.join(dir, 'bench.map'), String(port), '2'], { stdio: 'ignore', detached: true })
  const url = `http://127.0.0.1:${port}/?${params}`
  const stop = () => {
    try { process.kill(-child.pid!, 'SIGTERM') } catch { /* gone */ }
    fs.rmSync(dir, { recursive: true, force: true })
  }
  for (let i = 0; i < 100; i++) { // until it answers (a second or two)
    const ok = await fetch(url).then((r) => r.ok && r.headers.get('content-type') === 'image/png').catch(() => false)
    if (ok) return { url, child, dir, stop }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  stop()
  throw new Error('MapServer did not start')
}

export async function run (): Promise<Figure[]> {
  if (!fs.existsSync(path.join(DATA, 'mosaic.vrt'))) {
    return [{ name: 'wms: skipped', value: 0, unit: '', note: NO_BENCH_DATA }]
  }
  const figures: Figure[] = []
  const { app, url, close } = await startMapwarden({ harvestRoots: [DATA], workerThreads: 2 })
  try {
    const layer = await createMosaic(app)
    const ours = `${url}/geoserver/wms?${MAP_PARAMS.replace('%s', layer)}`
    const check = await fetch(ours)
    if (!check.ok || check.headers.get('content-type') !== 'image/png') throw new Error(`mapwarden GetMap: ${check.status} ${await check.text()}`)
    await load(ours, {}, 2, CONNECTIONS) // warm-up: threads started, granules open
    const mw = await load(ours, {}, SECONDS, CONNECTIONS)
    figures.push({ name: `GetMap 512x512 PNG, ${CONNECTIONS} clients, mapwarden`, value: round(mw.rps), unit: 'req/s', note: `p99 ${mw.p99} ms, ${mw.errors} errors` })
    if (haveMapscript()) {
      const ms = await startMapscript((_dir, online) => mapfile(path.join(DATA, 'mosaic.vrt'), online), MAP_PARAMS.replace('%s', 'mosaic'))
      try {
        await load(ms.url, {}, 2, CONNECTIONS)
        const them = await load(ms.url, {}, SECONDS, CONNECTIONS)
        figures.push(
          { name: `GetMap 512x512 PNG, ${CONNECTIONS} clients, MapServer 8 (mapscript, 2 processes)`, value: round(them.rps), unit: 'req/s', note: `p99 ${them.p99} ms, ${them.errors} errors` },
          { name: 'GetMap mapwarden / MapServer', value: round(mw.rps / them.rps), unit: 'ratio', note: 'target >= 1.0' })
      } finally { ms.stop() }
    } else figures.push({ name: 'MapServer', value: 0, unit: '', note: 'python3-mapscript is not installed' })

    // Tiled WMS hit against the cached WMTS GET of the same tile (both HIT after the first).
    const gs = GRID_SETS['EPSG:900913']
    const z = 10
    const p = [556597, 5621521] // lon 5, lat 45 in EPSG:3857
    const [tx, ty] = closestRectangle(gs, z, [p[0], p[1], p[0], p[1]])
    const tileBox = rectBounds(gs, z, [tx, ty, tx, ty]).join(',')
    const tiled = `${url}/geoserver/wms?SERVICE=WMS&VERSION=1.1.1&REQUEST=GetMap&LAYERS=${layer}&STYLES=&SRS=EPSG:900913&BBOX=${tileBox}&WIDTH=256&HEIGHT=256&FORMAT=image/png&TRANSPARENT=true&TILED=true`
    const wmts = `${url}/geoserver/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=${layer}&TILEMATRIXSET=EPSG:900913&TILEMATRIX=EPSG:900913:${z}&TILEROW=${tilesHigh(gs, z) - 1 - ty}&TILECOL=${tx}&FORMAT=image/png`
    const first = await fetch(tiled)
    if (!first.ok) throw new Error(`tiled WMS: ${first.status} ${await first.text()}`)
    if ((await fetch(tiled)).headers.get('geowebcache-cache-result') !== 'HIT') throw new Error('tiled WMS is not served from the cache')
    const hits: number[] = []
    const gets: number[] = []
    for (let i = 0; i < 3; i++) { // alternated, the median of each
      hits.push((await load(tiled, {}, 4, 10)).rps)
      gets.push((await load(wmts, {}, 4, 10)).rps)
    }
    const median = (a: number[]) => a.sort((m, n) => m - n)[1]
    figures.push(
      { name: 'tiled WMS GetMap, cache hit', value: round(median(hits)), unit: 'req/s' },
      { name: 'WMTS GetTile, cache hit (same tile)', value: round(median(gets)), unit: 'req/s' },
      { name: 'tiled WMS hit / cached WMTS GET', value: round(median(hits) / median(gets)), unit: 'ratio', note: 'target >= 0.9' })
  } finally {
    await close()
  }
  return figures
}

const round = (n: number) => Math.round(n * 100) / 100

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((f) => { for (const x of f) console.log(`${x.name}: ${x.value} ${x.unit}${x.note ? ` (${x.note})` : ''}`) })
}
