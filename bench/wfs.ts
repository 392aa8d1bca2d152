// WFS and vector tiles (issue 35), every figure a ratio against a baseline measured in the same run,
// on a PostGIS table of MW_BENCH_WFS_ROWS points (default 100,000; generate_series in a throwaway
// database of MW_BENCH_PG, the points of vector.ts) published as the feature type vb:pts:
// - GetFeature GeoJSON (WFS 2.0.0, outputFormat=application/json) of the whole table streamed over
//   HTTP on loopback to a file, against `ogr2ogr -f GeoJSON` exporting the same table (ogr2ogr's time
//   / ours, target >= 0.7) and against MapServer 8's WFS on the same table (the mapserv CGI of
//   cgi-mapserver run directly, its GeoJSON through OGR: no web server in front, so its time is a
//   floor; target >= 1.0), with this process's peak RSS over its RSS before (mapwarden and the client
//   reading the stream);
// - uncached vector tiles (XYZ .pbf in EPSG:900913, each request a different tile, z 6-10) against the
//   bare ST_AsMVT / ST_AsMVTGeom query for the same tiles with `pg`, one at a time, alternated: p50
//   of ours / p50 of the query (target <= 1.2). The points' tiles hold a few dozen points each, so
//   the query takes about a millisecond and the figure is mostly our fixed cost per request (HTTP,
//   the layer's lookup, the cache's file operations); the same figure on the 1:10m countries' tiles
//   of zoom 2-5 that hold land (polygons of thousands of vertices), where the database's work is
//   what a real vector tile costs, says how that fixed cost weighs on such tiles; and, alternated in
//   the same loop, the floor any HTTP server has under that target: a bare Fastify route that runs the
//   same query (a pg.Pool of its own) and answers its bytes, asked with the same client (fetch), p50
//   over the bare query's (extra rows; the target row is unchanged);
// - a cached vector tile GET against @fastify/static serving the same .pbf file (as tilecache.ts),
//   autocannon, alternated, the median of three rounds each (target >= 0.8).
// GDAL: scripts/install-gdal.sh; MapServer: scripts/install-bench-tools.sh (both root only).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { spawn } from 'node:child_process'
import pg from 'pg'
import Fastify from 'fastify'
import { AUTH, againstStatic, haveBenchTool, startMapwarden, type Figure } from './harness.js'
import { haveOgr, pointsDatabase } from './points-db.js'
import { MVT_FORMAT } from '../services/tilecache/formats.js'
import { countryTables } from '../test/fixtures/vector/countries.js'
import type { TileEvent } from '../services/tilecache/blob-store.js'

const ROWS = Number(process.env.MW_BENCH_WFS_ROWS ?? 100_000)
/** Uncached tiles per zoom level, 6 to 10. */
const TILES_PER_ZOOM = Number(process.env.MW_BENCH_WFS_TILES_PER_ZOOM ?? 10)
const MAPSERV = '/usr/lib/cgi-bin/mapserv'

const haveMapserv = () => haveBenchTool(() => fs.existsSync(MAPSERV))

const seconds = (t0: number) => (performance.now() - t0) / 1000
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]

/** Runs a program to completion, its standard output to a file; its time in seconds. */
function timed (cmd: string, args: string[], out: string, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const fd = fs.openSync(out, 'w')
  const t0 = performance.now()
  const child = spawn(cmd, args, { stdio: ['ignore', fd, 'pipe'], env })
  let err = ''
  child.stderr!.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-2000) })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => {
      const s = seconds(t0)
      fs.closeSync(fd)
      if (code === 0) resolve(s)
      else reject(new Error(`${cmd} exited with ${code}: ${err}`))
    })
  })
}

/** The number of features of a GeoJSON FeatureCollection file (after a CGI header when there is one). */
function featuresIn (file: string): number {
  let text = fs.readFileSync(file, 'utf8')
  const start = text.indexOf('{')
  if (start > 0) text = text.slice(start)
  return (JSON.parse(text) as { features: unknown[] }).features.length
}

function mapfile (db: { host: string, port: string, name: string, user: string }): string {
  return `MAP
  NAME "bench"
  EXTENT -180 -90 180 90
  PROJECTION "init=epsg:4326" END
  OUTPUTFORMAT
    NAME "geojson"
    DRIVER "OGR/GEOJSON"
    MIMETYPE "application/json; subtype=geojson"
    FORMATOPTION "STORAGE=stream"
    FORMATOPTION "FORM=SIMPLE"
  END
  WEB
    METADATA
      "wfs_title" "bench"
      "wfs_onlineresource" "http://127.0.0.1/cgi-bin/mapserv?"
      "wfs_srs" "EPSG:4326"
      "wfs_enable_request" "*"
      "wfs_getfeature_formatlist" "geojson"
    END
  END
  LAYER
    NAME "pts"
    TYPE POINT
    STATUS ON
    CONNECTIONTYPE POSTGIS
    CONNECTION "host=${db.host} port=${db.port} dbname=${db.name} user=${db.user}"
    DATA "geom FROM pts USING UNIQUE id USING SRID=4326"
    PROJECTION "init=epsg:4326" END
    METADATA
      "wfs_title" "pts"
      "wfs_featureid" "id"
      "gml_include_items" "all"
      "gml_types" "auto"
      "wfs_getfeature_formatlist" "geojson"
    END
  END
END
`
}

/** MapServer 8's WFS GetFeature of the whole table as GeoJSON: its time, or why there is none. */
async function mapserverGetFeature (work: string, db: Parameters<typeof mapfile>[0]): Promise<{ s: number, n: number } | string> {
  if (!haveMapserv()) return 'cgi-mapserver is not installed'
  const dir = path.join(work, 'mapserver')
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, 'bench.map'), mapfile(db))
  fs.writeFileSync(path.join(dir, 'mapserver.conf'), `CONFIG\n  ENV\n    MS_MAP_PATTERN "^${dir.replace(/[.\\]/g, '\\$&')}/"\n  END\nEND\n`)
  const query = `map=${encodeURIComponent(path.join(dir, 'bench.map'))}&SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&TYPENAMES=pts&OUTPUTFORMAT=geojson`
  const env = { ...process.env, MAPSERVER_CONFIG_FILE: path.join(dir, 'mapserver.conf'), REQUEST_METHOD: 'GET', QUERY_STRING: query }
  const out = path.join(dir, 'out.json')
  try {
    const s = await timed(MAPSERV, [], out, env)
    return { s, n: featuresIn(out) }
  } catch (err) {
    const head = fs.existsSync(out) ? fs.readFileSync(out, 'latin1').slice(0, 600) : ''
    return `failed: ${((err as Error).message + ' ' + head).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').slice(0, 300)}`
  }
}

/**
 * Tiles z 6-10 (XYZ, y from the top) in the middle half of the rows (latitudes the points cover),
 * spread apart, none twice: `offset` picks another set of the same kind (the warm-up's).
 */
function tileList (perZoom: number, offset: number): Array<[number, number, number]> {
  const tiles: Array<[number, number, number]> = []
  for (let z = 6; z <= 10; z++) {
    const n = 2 ** z
    for (let k = offset; k < offset + perZoom; k++) tiles.push([z, (k * 37 + z * 11) % n, n / 4 + (k * 23) % (n / 2)])
  }
  return tiles
}

/** The bare vector tile query: the tile's points with their attributes, as ST_AsMVT bytes. */
const mvtSql = (table: string, columns: string) => `SELECT ST_AsMVT(t, '${table}', 4096, 'geom') AS mvt FROM (
  SELECT ${columns}, ST_AsMVTGeom(ST_Transform(geom, 3857), ST_TileEnvelope($1, $2, $3), 4096, 256, true) AS geom
  FROM ${table} WHERE geom && ST_Transform(ST_TileEnvelope($1, $2, $3, margin => 256.0 / 4096), 4326)) t
  WHERE t.geom IS NOT NULL`
const MVT_SQL = mvtSql('pts', 'label, cls')
const COUNTRIES_MVT_SQL = mvtSql('countries', 'name')

type Tile = [number, number, number]

/**
 * Uncached tiles from `url(tile)` against `query` run with `client` for the same tiles, and against
 * a bare Fastify route running `query` on a pool of `dbUrl`, one at a time, alternated, after a
 * warm-up on other tiles: the times of the three (ms) and the bytes of the first two.
 */
async function againstQuery (client: pg.Client, dbUrl: string, query: string, url: (t: Tile) => string, warmUp: Tile[], tiles: Tile[]) {
  const fetched = async (u: string, t: Tile) => {
    const res = await fetch(u)
    const body = Buffer.from(await res.arrayBuffer())
    if (res.status !== 200 && res.status !== 204) throw new Error(`tile ${t.join('/')}: ${res.status} ${body.toString()}`)
    if (res.headers.get('geowebcache-cache-result') === 'HIT') throw new Error(`tile ${t.join('/')} came from the cache`)
    return body.length
  }
  const bare = async ([z, x, y]: Tile) => (await client.query<{ mvt: Buffer }>(query, [z, x, y])).rows[0].mvt.length
  // The HTTP floor: the same query behind a bare Fastify route (no catalog, no cache, no hooks).
  const pool = new pg.Pool({ connectionString: dbUrl, max: 2 })
  const floor = Fastify({ logger: false })
  floor.get<{ Params: { z: string, x: string, y: string } }>('/:z/:x/:y', async (req, reply) => {
    const r = await pool.query<{ mvt: Buffer }>(query, [Number(req.params.z), Number(req.params.x), Number(req.params.y)])
    return await reply.type('application/vnd.mapbox-vector-tile').send(r.rows[0].mvt)
  })
  const floorUrl = await floor.listen({ port: 0, host: '127.0.0.1' })
  const onFloor = async (t: Tile) => await fetched(`${floorUrl}/${t.join('/')}`, t)
  try {
    for (const t of warmUp) { await fetched(url(t), t); await bare(t); await onFloor(t) } // connections, plans, pages
    const r = { oursMs: [] as number[], bareMs: [] as number[], floorMs: [] as number[], oursBytes: 0, bareBytes: 0 }
    for (const t of tiles) {
      let t1 = performance.now()
      r.oursBytes += await fetched(url(t), t)
      r.oursMs.push(performance.now() - t1)
      t1 = performance.now()
      r.bareBytes += await bare(t)
      r.bareMs.push(performance.now() - t1)
      t1 = performance.now()
      await onFloor(t)
      r.floorMs.push(performance.now() - t1)
    }
    return r
  } finally { await floor.close(); await pool.end() }
}

/** The extra rows of a run of againstQuery: the bare route over the bare query, ours over the bare route. */
function floorFigures (what: string, r: { oursMs: number[], bareMs: number[], floorMs: number[] }): Figure[] {
  const [ours, bare, floor] = [median(r.oursMs), median(r.bareMs), median(r.floorMs)]
  return [
    { name: `bare Fastify route running the same query p50 / bare ST_AsMVT query (${what})`, value: round(floor / bare), unit: 'x',
      note: `route p50 ${round(floor, 2)} ms, query p50 ${round(bare, 2)} ms: what HTTP alone adds (same client, same loop); no target` },
    { name: `uncached vector tile p50 / bare Fastify route p50 (${what})`, value: round(ours / floor), unit: 'x',
      note: `ours p50 ${round(ours, 2)} ms, route p50 ${round(floor, 2)} ms: our own cost beyond HTTP; no target` }
  ]
}

export async function run (): Promise<Figure[]> {
  if (!haveOgr()) return [{ name: 'wfs', value: 0, unit: 'skipped', note: 'ogr2ogr is missing: run scripts/install-gdal.sh' }]
  const pts = await pointsDatabase(ROWS)
  const { name, url: dbUrl } = pts
  const db = { host: dbUrl.hostname, port: dbUrl.port || '5432', name, user: decodeURIComponent(dbUrl.username) || 'postgres' }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-wfs-'))
  const figures: Figure[] = []
  try {
    const mw = await startMapwarden({ dataDir: path.join(work, 'data'), workerThreads: 2 })
    try {
      const inject = async (url: string, payload: object) => {
        const r = await mw.app.inject({ method: 'POST', url: `/geoserver/rest${url}`, headers: { authorization: AUTH, 'content-type': 'application/json' }, payload })
        if (r.statusCode !== 201) throw new Error(`POST ${url}: ${r.statusCode} ${r.body}`)
      }
      await inject('/workspaces', { workspace: { name: 'vb' } })
      await inject('/workspaces/vb/datastores', { dataStore: { name: 'pg', connectionParameters: { entry: [
        { '@key': 'host', $: db.host }, { '@key': 'port', $: db.port }, { '@key': 'database', $: name },
        { '@key': 'user', $: db.user }, { '@key': 'dbtype', $: 'postgis' }
      ] } } })
      await inject('/workspaces/vb/datastores/pg/featuretypes', { featureType: { name: 'pts', nativeName: 'pts' } })

      // 1. GetFeature GeoJSON of the whole table against ogr2ogr and MapServer.
      const ogrOut = path.join(work, 'ogr.geojson')
      const pgConn = `PG:host=${db.host} port=${db.port} dbname=${name} user=${db.user}`
      const ogr = await timed('ogr2ogr', ['-f', 'GeoJSON', ogrOut, pgConn, 'pts'], '/dev/null')
      const ogrN = featuresIn(ogrOut)
      fs.rmSync(ogrOut)
      const oursOut = path.join(work, 'ours.geojson')
      const wfsUrl = `${mw.url}/geoserver/wfs?service=WFS&version=2.0.0&request=GetFeature&typeNames=vb:pts&outputFormat=application/json`
      global.gc?.()
      const before = process.memoryUsage().rss
      let peak = before
      const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 20)
      const t0 = performance.now()
      try {
        const res = await fetch(wfsUrl)
        if (res.status !== 200 || !res.body) throw new Error(`GetFeature: ${res.status} ${await res.text()}`)
        await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), fs.createWriteStream(oursOut))
      } finally { clearInterval(sampler) }
      const ours = seconds(t0)
      peak = Math.max(peak, process.memoryUsage().rss)
      const oursN = featuresIn(oursOut)
      const bytes = fs.statSync(oursOut).size
      fs.rmSync(oursOut)
      if (oursN !== ROWS || ogrN !== ROWS) throw new Error(`GetFeature gave ${oursN} features, ogr2ogr ${ogrN}, of ${ROWS}`)
      figures.push(
        { name: `WFS GetFeature GeoJSON ${ROWS} features / ogr2ogr -f GeoJSON`, value: round(ogr / ours), unit: 'x', note: `ours ${round(ours)} s (${round(bytes / 2 ** 20, 1)} MB streamed over HTTP), ogr2ogr ${round(ogr)} s; target >= 0.7` },
        { name: 'WFS GetFeature GeoJSON peak RSS over before', value: round((peak - before) / 2 ** 20, 1), unit: 'MB', note: `peak ${round(peak / 2 ** 20, 1)} MB; server and client in this process` })
      const ms = await mapserverGetFeature(work, db)
      if (typeof ms === 'string') figures.push({ name: 'WFS GetFeature GeoJSON / MapServer 8', value: 0, unit: 'skipped', note: ms })
      else if (ms.n !== ROWS) figures.push({ name: 'WFS GetFeature GeoJSON / MapServer 8', value: 0, unit: 'skipped', note: `MapServer answered ${ms.n} features of ${ROWS}` })
      else figures.push({ name: `WFS GetFeature GeoJSON ${ROWS} features / MapServer 8 WFS`, value: round(ms.s / ours), unit: 'x', note: `MapServer ${round(ms.s)} s (mapserv CGI run directly, OGR GeoJSON, no HTTP); target >= 1.0` })

      // 2. Uncached vector tiles against the bare ST_AsMVT query, one at a time, alternated.
      const written: TileEvent[] = []
      mw.app.tileCache.store.onTileWritten((e) => { if (e.format === MVT_FORMAT) written.push(e) })
      const tileUrl = ([z, x, y]: [number, number, number]) => `${mw.url}/geoserver/gwc/service/xyz/vb:pts/EPSG:900913/${z}/${x}/${y}.pbf`
      const client = new pg.Client({ connectionString: dbUrl.href })
      await client.connect()
      try {
        const p = await againstQuery(client, dbUrl.href, MVT_SQL, tileUrl, tileList(2, 1000), tileList(TILES_PER_ZOOM, 0))
        const n = p.oursMs.length
        figures.push({ name: `uncached vector tile p50 / bare ST_AsMVT query (${n} tiles of points, z 6-10)`, value: round(median(p.oursMs) / median(p.bareMs)), unit: 'x',
          note: `ours p50 ${round(median(p.oursMs), 1)} ms (XYZ .pbf over HTTP), query p50 ${round(median(p.bareMs), 1)} ms; avg ${Math.round(p.oursBytes / n)} bytes against ${Math.round(p.bareBytes / n)}; target <= 1.2` })
        figures.push(...floorFigures(`${n} tiles of points`, p))

        // The same on the countries' tiles with land: each tile's polygons, the database's real work.
        await countryTables(dbUrl.href, '10m')
        await inject('/workspaces/vb/datastores/pg/featuretypes', { featureType: { name: 'countries', nativeName: 'countries' } })
        const land: Tile[] = []
        for (let z = 2; z <= 5; z++) {
          for (let k = 0, found = 0; found < TILES_PER_ZOOM + 1 && k < 4 ** z; k++) {
            const t: Tile = [z, (k * 7 + 3) % 2 ** z, Math.floor((k * 7 + 3) / 2 ** z) % 2 ** z]
            if ((await client.query<{ mvt: Buffer }>(COUNTRIES_MVT_SQL, t)).rows[0].mvt.length > 2000) { land.push(t); found++ }
          }
        }
        const countryUrl = ([z, x, y]: Tile) => `${mw.url}/geoserver/gwc/service/xyz/vb:countries/EPSG:900913/${z}/${x}/${y}.pbf`
        const c = await againstQuery(client, dbUrl.href, COUNTRIES_MVT_SQL, countryUrl, land.filter((_, i) => i % (TILES_PER_ZOOM + 1) === 0), land.filter((_, i) => i % (TILES_PER_ZOOM + 1) !== 0))
        const m = c.oursMs.length
        figures.push({ name: `uncached vector tile p50 / bare ST_AsMVT query (${m} tiles of the 1:10m countries with land, z 2-5)`, value: round(median(c.oursMs) / median(c.bareMs)), unit: 'x',
          note: `ours p50 ${round(median(c.oursMs), 1)} ms, query p50 ${round(median(c.bareMs), 1)} ms; avg ${Math.round(c.oursBytes / m)} bytes against ${Math.round(c.bareBytes / m)}; target <= 1.2` })
        figures.push(...floorFigures(`${m} tiles of countries`, c))
      } finally { await client.end() }

      // 3. A cached vector tile GET against @fastify/static serving the same file.
      const cachedTile: [number, number, number] = [6, 40, 24]
      const cachedUrl = tileUrl(cachedTile)
      const first = await fetch(cachedUrl)
      await first.arrayBuffer()
      const again = await fetch(cachedUrl)
      const size = (await again.arrayBuffer()).byteLength
      if (again.headers.get('geowebcache-cache-result') !== 'HIT') throw new Error('the vector tile is not served from the cache')
      // A miss is answered before its tile is written (tile-reads.ts renderVectorTile): the write comes.
      const isIt = (w: TileEvent) => w.z === cachedTile[0] && w.x === cachedTile[1] && w.y === 2 ** cachedTile[0] - 1 - cachedTile[2]
      for (let i = 0; i < 500 && !written.some(isIt); i++) await new Promise((resolve) => setTimeout(resolve, 20))
      const e = written.find(isIt)
      if (!e) throw new Error('the cached vector tile was not written')
      const cached = await againstStatic(cachedUrl, mw.app.tileCache.store.tilePath(e))
      figures.push({ name: 'cached vector tile GET (XYZ .pbf) / @fastify/static', value: round(cached.ours / cached.theirs), unit: 'x',
        note: `${round(cached.ours)} req/s against ${round(cached.theirs)} req/s, ${size} bytes, 10 clients; target >= 0.8` })
    } finally { await mw.close() }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
    await pts.drop()
  }
  return figures
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((f) => { for (const x of f) console.log(`${x.name}: ${x.value} ${x.unit}${x.note ? ` (${x.note})` : ''}`) })
}
