// Seed, reseed and truncate tasks rendering a real mosaic: lifecycle, lists, kills, restart.
import t from 'tap'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { build, tempDir, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import { GRID_SETS, gridSubset } from '../../../services/tilecache/grid-sets.js'
import { countTiles, tileRange } from '../../../services/tilecache/tile-range.js'

const SEED = `${BASE}/tilecache/rest/seed`
const JSON_TYPE = { ...ADMIN, 'content-type': 'application/json' }
const FORM = { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }
const BBOX: [number, number, number, number] = [-20, -10, 20, 30]
const seedJson = (o: Record<string, unknown>) => JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'seed', threadCount: 1, ...o } })

function files (dir: string): string[] {
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort()
}

t.test('seed renders every tile of the range once (exact count), the task ends DONE, truncate removes the range', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  let res = await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedJson({ zoomStart: 0, zoomStop: 3, threadCount: 2 }) })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '')
  await app.tileCache.breeder.idle()
  const pngDir = path.join(app.config.dataDir, 'tiles/topp/world/EPSG_4326/png/default')
  // z0 2x1, z1 2x2, z2 2x2, z3 2x3 tiles touch the layer's bounds: 16, no metatile padding.
  t.equal(files(pngDir).length, 16)
  for (const id of [1, 2]) {
    res = await app.inject({ method: 'GET', url: `${SEED}/tasks/${id}.json`, headers: ADMIN })
    const { task } = JSON.parse(res.body)
    t.match(task, { id, type: 'seed', layer, gridSetId: 'EPSG:4326', format: 'image/png', zoomStart: 0, zoomStop: 3, state: 'done', status: 2, tilesRemaining: 0, etaSeconds: 0, percentDone: 100, request: { tilesTotal: 16, tilesRemaining: 0 } })
  }
  const done = await Promise.all([1, 2].map(async (id) => JSON.parse((await app.inject({ method: 'GET', url: `${SEED}/tasks/${id}.json`, headers: ADMIN })).body).task.tilesDone))
  t.equal(done[0] + done[1], 16, 'the two tasks shared the range')
  res = await app.inject({ method: 'GET', url: `${SEED}.json`, headers: ADMIN })
  t.equal(res.body, '{"long-array-array":[]}', 'finished tasks leave the list')

  // XML request with bounds as text; truncate z3 within (0,10)-(20,30) across formats and parameter sets.
  res = await app.inject({
    method: 'POST', url: `${SEED}/${layer}`, headers: { ...ADMIN, 'content-type': 'text/xml' },
    payload: '<seedRequest><name>' + layer + '</name><bounds><coords><double>0</double><double>10</double><double>20.0</double><double>30</double></coords></bounds><gridSetId>EPSG:4326</gridSetId><zoomStart>3</zoomStart><zoomStop>3</zoomStop><type>truncate</type><threadCount>4</threadCount></seedRequest>'
  })
  t.equal(res.statusCode, 200)
  await app.tileCache.breeder.idle()
  res = await app.inject({ method: 'GET', url: `${SEED}/tasks/3.xml`, headers: ADMIN })
  t.match(res.body, /<type>truncate<\/type>[\s\S]*<state>done<\/state>[\s\S]*<tilesDone>2<\/tilesDone>/)
  t.equal(files(pngDir).filter((f) => f.startsWith("3/")).length, 4, "z3 x 8, y 4..5 deleted of x 7..8, y 3..5")
  res = await app.inject({ method: 'GET', url: `${SEED}/tasks/4.json`, headers: ADMIN })
  t.equal(res.statusCode, 404, 'truncate is one task whatever the threadCount')
  // Truncate of something never cached: 200, nothing to do.
  res = await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedJson({ gridSetId: 'EPSG:900913', zoomStart: 0, zoomStop: 5, type: 'truncate', format: undefined }) })
  t.equal(res.statusCode, 200)
})

t.test('pending tasks wait for a task slot; kill_all pending and running; killed tasks show ABORTED on their resource', async (t) => {
  const app = await build(t, { taskSlots: 1 })
  const big = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  const small = await createMosaic(app, 'topp', 'small', { 'small.tif': rgbTiff(16, 16, [0, 0, 4, 4], pattern) })
  // Task 1 takes the only slot with a zoom 0-20 seed (never finishes within the test).
  let res = await app.inject({ method: 'POST', url: `${SEED}/${big}.json`, headers: JSON_TYPE, payload: seedJson({ zoomStart: 0, zoomStop: 20 }) })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'POST', url: `${SEED}/${small}.xml`, headers: { ...ADMIN, 'content-type': 'application/xml' }, payload: '<seedRequest><zoomStart>0</zoomStart><zoomStop>4</zoomStop><type>reseed</type><threadCount>2</threadCount><format>image/jpeg</format><gridSetId>EPSG:900913</gridSetId></seedRequest>' })
  t.equal(res.statusCode, 200)

  res = await app.inject({ method: 'GET', url: `${SEED}/${small}.json`, headers: ADMIN })
  t.equal(res.body, '{"long-array-array":[[-1,-1,-1,2,0],[-1,-1,-1,3,0]]}')
  res = await app.inject({ method: 'GET', url: `${BASE}/gwc/rest/seed/${small}.xml`, headers: ADMIN })
  t.equal(res.body, [
    '<long-array-array>',
    '  <long-array>', '    <long>-1</long>', '    <long>-1</long>', '    <long>-1</long>', '    <long>2</long>', '    <long>0</long>', '  </long-array>',
    '  <long-array>', '    <long>-1</long>', '    <long>-1</long>', '    <long>-1</long>', '    <long>3</long>', '    <long>0</long>', '  </long-array>',
    '</long-array-array>'
  ].join('\n'))
  res = await app.inject({ method: 'GET', url: `${SEED}.json`, headers: ADMIN })
  const rows = JSON.parse(res.body)['long-array-array']
  const total = countTiles(tileRange(gridSubset(GRID_SETS['EPSG:4326'], BBOX), 0, 20))
  t.equal(rows.length, 3)
  t.same([rows[0][3], rows[0][4]], [1, 1], 'task 1 RUNNING')
  t.equal(String(rows[0][1]), String(total), 'counted exactly')
  t.equal(BigInt(rows[0][1]) - BigInt(rows[0][2]), BigInt(rows[0][0]), 'remaining = total - done')

  res = await app.inject({ method: 'POST', url: `${SEED}/${small}`, headers: FORM, payload: 'kill_all=pending' })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/html; charset=utf-8')
  t.equal(res.body, '<p>Requested to terminate pending tasks.Terminated tasks: <ul><li>[2: topp:small, RESEED, PENDING]</li><li>[3: topp:small, RESEED, PENDING]</li></ul></p>')
  res = await app.inject({ method: 'GET', url: `${SEED}/tasks/2.json`, headers: ADMIN })
  t.match(JSON.parse(res.body).task, { state: 'aborted', status: -1, tilesDone: -1 })

  res = await app.inject({ method: 'POST', url: SEED, headers: FORM, payload: 'kill_all=1' })
  t.equal(res.body, '<p>Requested to terminate running tasks.Terminated tasks: <ul><li>[1: topp:world, SEED, RUNNING]</li></ul></p>')
  res = await app.inject({ method: 'GET', url: `${SEED}.json`, headers: ADMIN })
  t.equal(res.body, '{"long-array-array":[]}', 'a killed task leaves the list at once')
  await app.tileCache.breeder.idle()
  res = await app.inject({ method: 'GET', url: `${SEED}/tasks/1.json`, headers: ADMIN })
  t.match(JSON.parse(res.body).task, { state: 'aborted', status: -1 })
  t.notOk(fs.existsSync(path.join(app.config.dataDir, 'tiles/topp/small')), 'killed pending tasks wrote nothing')
})

t.test('after a restart the tiles are still served from the cache, the task list is empty and the record of the finished task remains', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir, keepOpen: true })
  const layer = await createMosaic(first, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  await first.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedJson({ zoomStart: 0, zoomStop: 2 }) })
  await first.tileCache.breeder.idle()
  const before = await first.inject({ method: 'GET', url: `${BASE}/tilecache/service/xyz/${layer}/EPSG:4326/2/4/1.png` })
  t.equal(before.headers['geowebcache-cache-result'], 'HIT')
  await first.close()
  const second = await build(t, { dataDir })
  const res = await second.inject({ method: 'GET', url: `${SEED}.json`, headers: ADMIN })
  t.equal(res.body, '{"long-array-array":[]}')
  const after = await second.inject({ method: 'GET', url: `${BASE}/tilecache/service/xyz/${layer}/EPSG:4326/2/4/1.png` })
  t.equal(after.headers['geowebcache-cache-result'], 'HIT')
  t.same(after.rawPayload, before.rawPayload)
  const record = await second.inject({ method: 'GET', url: `${SEED}/tasks/1.json`, headers: ADMIN })
  t.equal(record.statusCode, 200)
  t.match(record.json().task, { id: 1, state: 'done' })
})

t.test('past the pending-task cap a seed request is 429 and creates nothing; progress streams as server-sent events', async (t) => {
  const app = await build(t, { taskSlots: 1, maxPendingTasks: 2 })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(16, 16, BBOX, pattern) })
  // The helper's app is a scope of the root server: listen on the shared HTTP server directly.
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve))
  const { port } = app.server.address() as { port: number }
  let text = ''
  let sawRunning: () => void
  const running = new Promise<void>((resolve) => { sawRunning = resolve })
  const sse = await new Promise<http.IncomingMessage>((resolve) => {
    http.get({ host: '127.0.0.1', port, path: `${SEED}/events`, headers: ADMIN }, resolve)
  })
  t.equal(sse.headers['content-type'], 'text/event-stream; charset=utf-8')
  sse.setEncoding('utf8')
  sse.on('data', (chunk: string) => { text += chunk; if (text.includes('"state":"running"')) sawRunning() })

  let res = await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedJson({ zoomStart: 0, zoomStop: 20 }) })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedJson({ zoomStart: 0, zoomStop: 2, threadCount: 3 }) })
  t.equal(res.statusCode, 429)
  t.equal(res.body, 'Too many pending seed tasks (limit 2); try again later')
  res = await app.inject({ method: 'GET', url: `${SEED}.json`, headers: ADMIN })
  t.equal(JSON.parse(res.body)['long-array-array'].length, 1, 'nothing was created')

  await running
  const events = text.split('\n\n').filter((e) => e.startsWith('event:'))
  t.match(events[0], /^event: task\ndata: \{"id":1,"type":"seed","layer":"topp:world"/)
  sse.destroy()
  await app.inject({ method: 'POST', url: SEED, headers: FORM, payload: 'kill_all=all' })
  await app.tileCache.breeder.idle()
})
