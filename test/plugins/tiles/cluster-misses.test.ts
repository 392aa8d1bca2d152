// Two instances on one PostgreSQL database and one data directory (issue 37, the cache-miss storm on
// a cluster): tiles missing on both, asked of both at once, are rendered once per metatile across
// the cluster (a cluster-wide lock per metatile, claimed by one node; the other waits holding no
// connection and serves the tiles the first wrote), for a raster mosaic and a PostGIS layer alike;
// a node that dies holding a metatile's lock (its session ends) leaves no request stuck; a wait
// past MAPWARDEN_METATILE_WAIT renders the metatile rather than fail. Renders are counted by the
// nodes' own Prometheus counters; no timing is measured.
import t, { type Test } from 'tap'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { pgDatabase } from '../../fixtures/pg.js'
import { until } from '../../fixtures/cluster.js'
import { postgisStore } from '../../fixtures/postgis-store.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'

/** The value of one series of a node's /metrics (0 when absent). */
async function metric (app: FastifyInstance, series: string): Promise<number> {
  const text = (await app.inject({ url: `${BASE}/metrics`, headers: ADMIN })).body
  const line = text.split('\n').find((l) => l.startsWith(series + ' '))
  return line ? Number(line.slice(series.length + 1)) : 0
}
const RENDERED = 'mapwarden_tiles_rendered_total{kind="on_demand"}'
const WAITED = 'mapwarden_metatile_waits_total{outcome="waited"}'
const TIMED_OUT = 'mapwarden_metatile_waits_total{outcome="timed_out"}'
/** Tiles rendered on demand by these nodes together. */
const renderedBy = async (apps: FastifyInstance[]) => (await Promise.all(apps.map((a) => metric(a, RENDERED)))).reduce((s, n) => s + n, 0)

/** XYZ tiles (row 0 at the top) of EPSG:4326 zoom `z`, columns x0..x1 and rows y0..y1: whole metatiles of 4 x 4. */
function tiles (layer: string, z: number, [x0, x1]: number[], [y0, y1]: number[]): string[] {
  const urls: string[] = []
  for (let x = x0; x <= x1; x++) for (let y = y0; y <= y1; y++) urls.push(`${BASE}/gwc/service/xyz/${layer}/EPSG:4326/${z}/${x}/${y}.png`)
  return urls
}

t.test('a cache-miss storm on two nodes renders each metatile once across the cluster', async (t) => {
  const databaseUrl = await pgDatabase(t, { migrated: true })
  const dataDir = tempDir(t)
  const a = await build(t, { dataDir, databaseUrl })
  const b = await build(t, { dataDir, databaseUrl })
  const layer = await createMosaic(a, 'topp', 'world', { 'world.tif': rgbTiff(256, 256, [0, 0, 90, 90], pattern) })
  const writes = new Map<string, number>()
  for (const app of [a, b]) {
    app.tileCache.store.onTileWritten((e) => { const k = `${e.layer}/${e.z}/${e.x}/${e.y}`; writes.set(k, (writes.get(k) ?? 0) + 1) })
  }

  /** Every tile asked of both nodes at once, A's and B's requests interleaved; the metatiles' renders counted. */
  async function storm (t: Test, urls: string[]): Promise<void> {
    const before = await renderedBy([a, b])
    const written = writes.size
    const answers = await Promise.all(urls.flatMap((url) => [a.inject({ url, headers: ADMIN }), b.inject({ url, headers: ADMIN })]))
    const bad = answers.filter((r) => r.statusCode !== 200).map((r) => `${r.statusCode} ${r.body.slice(0, 200)}`)
    t.same(bad, [], 'every tile served by both nodes')
    const differ = urls.filter((_, i) => !answers[2 * i].rawPayload.equals(answers[2 * i + 1].rawPayload))
    t.same(differ, [], 'both nodes serve the same bytes for each tile')
    t.same([...writes].filter(([, n]) => n > 1), [], 'no tile written twice')
    t.equal(writes.size - written, urls.length, `${urls.length} tiles written, each once`)
    // Whole metatiles of 4 x 4 were asked: one render of each writes its 16 tiles.
    t.equal(await renderedBy([a, b]) - before, urls.length, `the nodes rendered ${urls.length / 16} metatiles, each once (${urls.length} tiles)`)
  }

  await t.test('a raster mosaic: 12 metatiles, each rendered once', async (t) => {
    // Zoom 6 of the layer's 0-90 E, 0-90 N: columns 64-75 and rows 0-15 are 3 x 4 whole metatiles.
    await storm(t, tiles(layer, 6, [64, 75], [0, 15]))
  })

  await t.test('a PostGIS layer drawn as PNG: each metatile rendered once', async (t) => {
    await postgisStore(t, a, `CREATE TABLE shapes (id integer PRIMARY KEY, geom geometry(Polygon, 4326));
      INSERT INTO shapes SELECT i, ST_MakeEnvelope(i * 4, i * 2, i * 4 + 20, i * 2 + 10, 4326) FROM generate_series(0, 15) i;`, { store: 'db' })
    const res = await a.inject({ method: 'POST', url: `${BASE}/rest/workspaces/vx/datastores/db/featuretypes`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { featureType: { name: 'shapes' } } })
    t.equal(res.statusCode, 201, 'feature type vx:shapes')
    await until('node B knows vx:shapes', async () => (await b.inject({ url: `${BASE}/rest/layers/vx:shapes.json`, headers: ADMIN })).statusCode === 200)
    // Zoom 4: columns 16-23, rows 4-7 (0-90 E, 0-45 N) are 2 x 1 whole metatiles.
    await storm(t, tiles('vx:shapes', 4, [16, 23], [4, 7]))
  })

  // A session of its own holding a metatile's lock as a node rendering it would (database.ts createKeyedLock).
  const holder = new pg.Client({ connectionString: databaseUrl })
  await holder.connect()
  t.teardown(() => holder.end().catch(() => {}))
  const hold = async (key: string) => { await holder.query('SELECT pg_advisory_lock($1, hashtext($2))', [0x6d78, key]) }

  await t.test('a node that dies holding a metatile\'s lock: the waiting request renders it and is answered', async (t) => {
    // Zoom 4, column 16, rows 4-7 from the top: the metatile whose first tile is column 16, row 8 from the bottom.
    await hold(`${layer}/EPSG:4326/image/png/default/4/16/8`)
    const before = await metric(a, RENDERED)
    const waited = await metric(a, WAITED)
    const answer = a.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/4/16/7.png`, headers: ADMIN })
    await until('A waits for the lock', async () => await metric(a, WAITED) > waited)
    const blocked = await holder.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")
    t.equal(blocked.rows[0].n, 0, 'A waits with no session of the database blocked on the lock')
    await holder.end() // the holder's session ends: PostgreSQL releases its lock
    const res = await answer
    t.equal(res.statusCode, 200, 'the tile is served')
    t.equal(await metric(a, RENDERED) - before, 16, 'A rendered the metatile, once')
    t.equal(await metric(a, TIMED_OUT), 0, 'not by giving up: the lock came free')
  })

  await t.test('a lock held past MAPWARDEN_METATILE_WAIT: the node renders the metatile itself', async (t) => {
    const c = await build(t, { dataDir, databaseUrl, metatileWait: 0 })
    const stuck = new pg.Client({ connectionString: databaseUrl })
    await stuck.connect()
    t.teardown(() => stuck.end())
    await stuck.query('SELECT pg_advisory_lock($1, hashtext($2))', [0x6d78, `${layer}/EPSG:4326/image/png/default/4/20/8`])
    const res = await c.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/4/20/7.png`, headers: ADMIN })
    t.equal(res.statusCode, 200, 'the tile is served')
    t.equal(await metric(c, RENDERED), 16, 'C rendered the metatile without its lock')
    t.equal(await metric(c, TIMED_OUT), 1, 'the wait that gave up is counted')
  })
})
