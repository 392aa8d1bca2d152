// Progress that reads true (issue 24, item 7): the task list keeps GWC's rows (position 2 is the
// whole request's total), but the per-task resource shows the task's own share at the top and the
// request's sum under `request`; a DONE task reads 100 % of what it had to do.
import t from 'tap'
import http from 'node:http'
import { build, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import { GRID_SETS, gridSubset } from '../../../services/tilecache/grid-sets.js'
import { countTiles, tileRange } from '../../../services/tilecache/tile-range.js'

const SEED = `${BASE}/tilecache/rest/seed`
const JSON_TYPE = { ...ADMIN, 'content-type': 'application/json' }
const BBOX: [number, number, number, number] = [-20, -10, 20, 30]
const seedJson = (o: Record<string, unknown>) => JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'seed', threadCount: 1, ...o } })

t.test('two tasks of one finished seed each read 100 % of their own share; the shares add up to the request', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  const res = await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedJson({ zoomStart: 0, zoomStop: 4, threadCount: 2 }) })
  t.equal(res.statusCode, 200)
  await app.tileCache.breeder.idle()
  const total = countTiles(tileRange(gridSubset(GRID_SETS['EPSG:4326'], BBOX), 0, 4))
  let sum = 0
  for (const id of [1, 2]) {
    const json = await app.inject({ method: 'GET', url: `${SEED}/tasks/${id}.json`, headers: ADMIN })
    t.equal(json.statusCode, 200)
    const { task } = json.json()
    t.equal(task.state, 'done')
    t.equal(task.tilesTotal, task.tilesDone, 'a done task had to do what it did')
    t.equal(task.tilesRemaining, 0)
    t.equal(task.percentDone, 100)
    t.same(task.request, { taskIds: { id: [1, 2] }, tilesDone: Number(total), tilesTotal: Number(total), tilesRemaining: 0, percentDone: 100, tilesPerSecond: task.request.tilesPerSecond, etaSeconds: 0 })
    sum += task.tilesDone

    const xml = await app.inject({ method: 'GET', url: `${SEED}/tasks/${id}.xml`, headers: ADMIN })
    t.equal(xml.headers['content-type'], 'application/xml')
    t.match(xml.body, `  <tilesDone>${task.tilesDone}</tilesDone>\n  <tilesTotal>${task.tilesDone}</tilesTotal>\n  <tilesRemaining>0</tilesRemaining>\n  <percentDone>100</percentDone>`)
    t.match(xml.body, `  <request>\n    <taskIds>\n      <id>1</id>\n      <id>2</id>\n    </taskIds>\n    <tilesDone>${total}</tilesDone>\n    <tilesTotal>${total}</tilesTotal>\n    <tilesRemaining>0</tilesRemaining>\n    <percentDone>100</percentDone>`)
  }
  t.equal(BigInt(sum), total, 'the two shares are the request')
})

t.test('running tasks have half of the request each; killed ones keep that part, below 100 %', async (t) => {
  const app = await build(t, { taskSlots: 2 })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  let res = await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedJson({ zoomStart: 0, zoomStop: 20, threadCount: 2 }) })
  t.equal(res.statusCode, 200)
  const total = countTiles(tileRange(gridSubset(GRID_SETS['EPSG:4326'], BBOX), 0, 20))

  // The list keeps the owner's wire format: position 2 is the request's total in both rows.
  res = await app.inject({ method: 'GET', url: `${SEED}.json`, headers: ADMIN })
  const rows = res.json()['long-array-array']
  t.equal(rows.length, 2)
  for (const row of rows) t.equal(String(row[1]), String(total))

  for (const id of [1, 2]) {
    const { task } = (await app.inject({ method: 'GET', url: `${SEED}/tasks/${id}.json`, headers: ADMIN })).json()
    t.equal(task.state, 'running')
    const r = task.request
    t.equal(String(r.tilesTotal), String(total), 'the request counts every tile')
    t.equal(BigInt(r.tilesDone) + BigInt(r.tilesRemaining), total)
    // Two tasks: each has half of the request as its part, fixed (the lower id takes the odd tile).
    const half = total / 2n + (id === 1 ? total % 2n : 0n)
    t.equal(String(task.tilesTotal), String(half), `task ${id} has half of the request to do`)
    t.equal(BigInt(task.tilesRemaining), half - BigInt(task.tilesDone))
    t.ok(task.percentDone >= 0 && task.percentDone < 100, `running: ${task.percentDone} %`)
    t.same(r.taskIds, { id: [1, 2] })
  }

  res = await app.inject({ method: 'POST', url: SEED, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'kill_all=all' })
  t.equal(res.statusCode, 200)
  await app.tileCache.breeder.idle()
  for (const id of [1, 2]) {
    const { task } = (await app.inject({ method: 'GET', url: `${SEED}/tasks/${id}.json`, headers: ADMIN })).json()
    t.equal(task.state, 'aborted')
    t.ok(BigInt(task.tilesTotal) > BigInt(task.tilesDone), 'the share it did not finish')
    t.ok(task.percentDone < 100, `aborted at ${task.percentDone} %`)
    t.equal(task.etaSeconds, 0)
    t.ok(task.request.percentDone < 100, 'the request did not finish either')
  }
})

t.test('a truncate task counts what it deleted once done: 100 %', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedJson({ zoomStart: 0, zoomStop: 2 }) })
  await app.tileCache.breeder.idle()
  await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedJson({ zoomStart: 0, zoomStop: 2, type: 'truncate' }) })
  await app.tileCache.breeder.idle()
  const { task } = (await app.inject({ method: 'GET', url: `${SEED}/tasks/2.json`, headers: ADMIN })).json()
  t.match(task, { type: 'truncate', state: 'done', tilesDone: 10, tilesTotal: 10, tilesRemaining: 0, percentDone: 100 })
  t.match(task.request, { taskIds: { id: [2] }, tilesDone: 10, tilesTotal: 10, percentDone: 100 })
})

t.test('the event stream starts with the tasks that ended within the hour, then the live ones', async (t) => {
  const app = await build(t, { taskSlots: 1 })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedJson({ zoomStart: 0, zoomStop: 2, threadCount: 2 }) })
  await app.tileCache.breeder.idle()
  await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: seedJson({ zoomStart: 0, zoomStop: 20 }) })
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve))
  const { port } = app.server.address() as { port: number }
  let text = ''
  const sse = await new Promise<http.IncomingMessage>((resolve) => { http.get({ host: '127.0.0.1', port, path: `${SEED}/events`, headers: ADMIN }, resolve) })
  sse.setEncoding('utf8')
  await new Promise<void>((resolve) => sse.on('data', (chunk: string) => { text += chunk; if (text.split('\n\n').filter((e) => e.startsWith('event:')).length >= 3) resolve() }))
  sse.destroy()
  const views = text.split('\n\n').filter((e) => e.startsWith('event:')).slice(0, 3).map((e) => JSON.parse(e.replace(/^event: task\ndata: /, '')))
  t.same(views.map((v) => [v.id, v.state]), [[1, 'done'], [2, 'done'], [3, 'running']])
  t.same(views.slice(0, 2).map((v) => v.percentDone), [100, 100])
  t.same(views[0].request.taskIds, { id: [1, 2] })
  await app.inject({ method: 'POST', url: SEED, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'kill_all=all' })
  await app.tileCache.breeder.idle()
})
