// GET {base}/metrics: the Prometheus text format, administrators only unless MAPWARDEN_METRICS says
// otherwise; the counters follow the tiles served and the seeds run, the gauges the task records,
// the disk quota and the database pools, and a gauge that cannot be read never fails the scrape.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN, BASE, TEST_BACKEND } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import { appRun } from '../../fixtures/catalog-rows.js'
import { wmsUrl } from '../wms/helpers.js'
import { GRID_SETS, rectBounds } from '../../../services/tilecache/grid-sets.js'
import { resolveConfig } from '../../../plugins/infra/config.js'

const METRICS = `${BASE}/metrics`
const SERVICE = `${BASE}/tilecache/service`
const BBOX: [number, number, number, number] = [-20, -10, 20, 30]

interface Sample { name: string, labels: Record<string, string>, value: number }

/** The text exposition format 0.0.4, strictly: every line a HELP, a TYPE or a sample of a typed family. */
function parseExposition (text: string): Sample[] {
  const types = new Map<string, string>()
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '') continue
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line)
    if (meta) {
      if (meta[1] === 'TYPE') {
        if (!/^(counter|gauge|histogram|summary|untyped)$/.test(meta[3])) throw new Error(`unknown type: ${line}`)
        types.set(meta[2], meta[3])
      }
      continue
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m) throw new Error(`not Prometheus text: ${JSON.stringify(line)}`)
    const family = types.has(m[1]) ? m[1] : m[1].replace(/_(bucket|sum|count)$/, '')
    if (!types.has(family)) throw new Error(`sample without a TYPE: ${line}`)
    const labels: Record<string, string> = {}
    const rest = (m[2] ?? '').replace(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g, (_all, k: string, v: string) => { labels[k] = v; return '' })
    if (rest !== '') throw new Error(`bad labels: ${line}`)
    // Go's ParseFloat, as Prometheus reads it: NaN in any case (prom-client writes "Nan").
    const value = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : /^nan$/i.test(m[3]) ? NaN : Number(m[3])
    if (Number.isNaN(value) && !/^nan$/i.test(m[3])) throw new Error(`bad value: ${line}`)
    samples.push({ name: m[1], labels, value })
  }
  return samples
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when there is none. */
function valueOf (samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`)
  return found[0]?.value
}

async function scrape (t: Test, app: FastifyInstance, headers: Record<string, string> = ADMIN): Promise<Sample[]> {
  const res = await app.inject({ method: 'GET', url: METRICS, headers })
  t.equal(res.statusCode, 200, 'the scrape answers')
  t.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8')
  return parseExposition(res.body)
}

async function world (app: FastifyInstance): Promise<string> {
  return createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
}

t.test('GET /metrics: 401 without credentials, the Prometheus text format for an administrator, with the process metrics', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: METRICS })
  t.equal(res.statusCode, 401)
  t.equal(res.headers['www-authenticate'], 'Basic realm="GeoServer Realm"')
  t.notMatch(res.body, 'mapwarden_')
  const samples = await scrape(t, app)
  t.ok(valueOf(samples, 'nodejs_eventloop_lag_seconds') !== undefined, 'event-loop lag')
  t.ok(valueOf(samples, 'process_resident_memory_bytes')! > 0, 'process metrics')
  t.equal(valueOf(samples, 'mapwarden_render_queue_depth', { priority: 'interactive' }), 0)
  t.equal(valueOf(samples, 'mapwarden_render_running'), 0)
  for (const state of ['pending', 'running', 'done', 'aborted']) t.equal(valueOf(samples, 'mapwarden_seed_tasks', { state }), 0, `no ${state} task yet`)
  t.equal(valueOf(samples, 'mapwarden_diskquota_enabled'), 0)
  t.equal(valueOf(samples, 'mapwarden_diskquota_limit_bytes', { quota: 'global' }), 500 * 2 ** 20, 'the default global quota')
  t.equal(valueOf(samples, 'mapwarden_diskquota_used_bytes', { quota: 'global' }), 0)
  if (TEST_BACKEND === 'pg') {
    const catalog = (state: string) => valueOf(samples, 'mapwarden_db_pool_connections', { pool: 'catalog', state })!
    t.ok(catalog('in_use') + catalog('idle') >= 1, 'the catalog pool holds the connections the app opened')
    t.ok(valueOf(samples, 'mapwarden_db_pool_waiting', { pool: 'catalog' })! >= 0)
    t.ok(valueOf(samples, 'mapwarden_db_pool_waiting', { pool: 'locks' })! >= 0, 'the metatile locks\' pool')
  } else {
    t.equal(samples.filter((s) => s.name.startsWith('mapwarden_db_pool')).length, 0, 'SQLite has no pool')
  }
  const doc = JSON.parse((await app.inject({ method: 'GET', url: `${BASE}/rest/openapi.json`, headers: ADMIN })).body)
  t.match(doc.paths[`${BASE}/metrics`].get, { tags: ['metrics'], description: /Administrators only/ }, 'in the OpenAPI document')
})

t.test('tile requests count by service and cache result (a miss, then hits), with the tiles rendered on demand and their queue wait', async (t) => {
  const app = await build(t)
  const layer = await world(app)
  // z2 of EPSG:4326: the layer's metatile x 4, rows 1..2 (two tiles).
  const xyz = `${SERVICE}/xyz/${layer}/EPSG:4326/2/4/1.png`
  const get = (url: string) => app.inject({ method: 'GET', url })
  t.equal((await get(xyz)).headers['geowebcache-cache-result'], 'MISS')
  t.equal((await get(xyz)).headers['geowebcache-cache-result'], 'HIT')
  t.equal((await get(`${SERVICE}/wmts?SERVICE=WMTS&REQUEST=GetTile&LAYER=${layer}&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:2&TILEROW=1&TILECOL=4&FORMAT=image/png`)).headers['geowebcache-cache-result'], 'HIT')
  t.equal((await get(`${BASE}/gwc/service/tms/1.0.0/${encodeURIComponent(`${layer}@EPSG:4326@png`)}/2/4/2.png`)).headers['geowebcache-cache-result'], 'HIT')
  const tile = { SERVICE: 'WMS', VERSION: '1.1.1', REQUEST: 'GetMap', LAYERS: layer, STYLES: '', SRS: 'EPSG:4326', BBOX: rectBounds(GRID_SETS['EPSG:4326'], 2, [4, 2, 4, 2]).join(','), WIDTH: 256, HEIGHT: 256, FORMAT: 'image/png' }
  t.equal((await get(wmsUrl(tile, '/gwc/service/wms'))).headers['geowebcache-cache-result'], 'HIT')
  const map = await get(wmsUrl({ ...tile, BBOX: '0,0,10,10' }))
  t.equal(map.statusCode, 200)
  t.notOk(map.headers['geowebcache-cache-result'], 'a WMS map drawn without the cache')
  t.equal((await get(`${SERVICE}/xyz/topp:nosuch/EPSG:4326/2/4/1.png`)).statusCode, 404, 'a refused request is not a tile served')

  const samples = await scrape(t, app)
  const requests = (service: string, result: string) => valueOf(samples, 'mapwarden_tile_requests_total', { service, result })
  t.equal(requests('xyz', 'miss'), 1)
  t.equal(requests('xyz', 'hit'), 1)
  t.equal(requests('wmts', 'hit'), 1)
  t.equal(requests('tms', 'hit'), 1)
  t.equal(requests('wms-c', 'hit'), 1)
  t.equal(requests('wms', 'uncached'), 1)
  t.equal(samples.filter((s) => s.name === 'mapwarden_tile_requests_total').reduce((n, s) => n + s.value, 0), 6, 'nothing else counted')
  t.equal(valueOf(samples, 'mapwarden_tiles_rendered_total', { kind: 'on_demand' }), 2, 'the miss rendered its metatile: two tiles')
  t.equal(valueOf(samples, 'mapwarden_tiles_rendered_total', { kind: 'seed' }), undefined, 'no seed yet')
  t.equal(valueOf(samples, 'mapwarden_render_queue_wait_seconds_count', { priority: 'interactive' }), 2, 'two interactive renders: the metatile and the map')
  t.equal(valueOf(samples, 'mapwarden_render_queue_wait_seconds_bucket', { priority: 'interactive', le: '+Inf' }), 2)
})

t.test('a seed moves the seed counter; task states and disk-quota gauges follow; a layer quota has series of its own', async (t) => {
  const app = await build(t)
  const layer = await world(app)
  const seed = { seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'seed', zoomStart: 0, zoomStop: 3, threadCount: 2 } }
  let res = await app.inject({ method: 'POST', url: `${BASE}/tilecache/rest/seed/${layer}.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify(seed) })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  res = await app.inject({ method: 'PUT', url: `${BASE}/tilecache/rest/diskquota.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ tilecacheQuotaConfiguration: { enabled: true, layerQuotas: [{ layer, quota: { value: '3', units: 'MiB' } }] } }) })
  t.equal(res.statusCode, 200, res.body)
  await app.diskQuota.flush() // (the accounting reaches the store within a second; a scrape reads the store)

  const samples = await scrape(t, app)
  t.equal(valueOf(samples, 'mapwarden_tiles_rendered_total', { kind: 'seed' }), 16, 'every tile of the range: z0 2, z1 4, z2 4, z3 6')
  t.equal(valueOf(samples, 'mapwarden_tiles_rendered_total', { kind: 'on_demand' }), undefined, 'none in this app (the app of the test before rendered two: each app has its own registry)')
  t.ok(valueOf(samples, 'mapwarden_render_queue_wait_seconds_count', { priority: 'seed' })! >= 1, 'seed renders waited in their lane')
  t.equal(valueOf(samples, 'mapwarden_seed_tasks', { state: 'done' }), 2, 'the two tasks of the request')
  t.equal(valueOf(samples, 'mapwarden_seed_tasks', { state: 'running' }), 0)
  t.equal(valueOf(samples, 'mapwarden_diskquota_enabled'), 1)
  const usage = await app.diskQuota.usage()
  t.ok(usage.usedBytes > 0, 'the seed is accounted')
  t.equal(valueOf(samples, 'mapwarden_diskquota_used_bytes', { quota: layer }), usage.usedBytes, 'the layer\'s quota holds its tiles')
  t.equal(valueOf(samples, 'mapwarden_diskquota_limit_bytes', { quota: layer }), 3 * 2 ** 20)
  t.equal(valueOf(samples, 'mapwarden_diskquota_used_bytes', { quota: 'global' }), 0, 'no other layer has tiles')
})

t.test('a gauge that cannot be read is left out and counted; the scrape still answers, and the gauge is back once it can be read', async (t) => {
  const app = await build(t)
  // The task records' table gone for a moment: the database answers, that read fails.
  await appRun(app, 'ALTER TABLE seed_tasks RENAME TO seed_tasks_away')
  let samples: Sample[]
  try {
    samples = await scrape(t, app)
  } finally {
    await appRun(app, 'ALTER TABLE seed_tasks_away RENAME TO seed_tasks')
  }
  t.equal(valueOf(samples, 'mapwarden_seed_tasks', { state: 'pending' }), undefined, 'no stale or made-up value')
  t.equal(valueOf(samples, 'mapwarden_metrics_collect_failures_total', { metric: 'mapwarden_seed_tasks' }), 1)
  t.equal(valueOf(samples, 'mapwarden_diskquota_used_bytes', { quota: 'global' }), 0, 'the other gauges are there')
  samples = await scrape(t, app)
  t.equal(valueOf(samples, 'mapwarden_seed_tasks', { state: 'pending' }), 0, 'read again at the next scrape')
})

t.test('MAPWARDEN_METRICS: public answers anyone (credentials, when sent, still checked); off has no route; anything else stops the start', async (t) => {
  const open = await build(t, { metrics: 'public' })
  await scrape(t, open, {})
  const wrong = await open.inject({ method: 'GET', url: METRICS, headers: { authorization: 'Basic ' + Buffer.from('admin:wrong').toString('base64') } })
  t.equal(wrong.statusCode, 401)
  const off = await build(t, { metrics: 'off' })
  t.equal((await off.inject({ method: 'GET', url: METRICS, headers: ADMIN })).statusCode, 404)
  t.equal(resolveConfig({ env: {} }).metrics, 'admin', 'administrators only by default')
  t.equal(resolveConfig({ env: { MAPWARDEN_METRICS: 'public' } }).metrics, 'public')
  t.throws(() => resolveConfig({ env: { MAPWARDEN_METRICS: 'everyone' } }), { message: 'Invalid setting MAPWARDEN_METRICS="everyone": must be one of admin, public, off' })
})
