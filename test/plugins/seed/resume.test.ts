// Seeding survives a restart: tasks pending or running when the server stops resume after the next
// start with the same ids, from the metatiles not yet written, and end with the exact tile count;
// killed tasks do not resume; MAPWARDEN_RESUME_TASKS=false ends them ABORTED (aborted: restart).
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { once } from 'node:events'
import { build, tempDir, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import type { FastifyInstance } from 'fastify'
import type { TaskView } from '../../../services/seed/task.js'

const SEED = `${BASE}/gwc/rest/seed`
const JSON_TYPE = { ...ADMIN, 'content-type': 'application/json' }
const BBOX: [number, number, number, number] = [-20, -10, 20, 30]

function count (dir: string): number {
  if (!fs.existsSync(dir)) return 0
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length
}
const ids = (link: unknown) => [link].flat().map((l) => Number(/tasks\/(\d+)\.json/.exec(String(l))![1]))
const task = async (app: FastifyInstance, id: number) => (await app.inject({ method: 'GET', url: `${SEED}/tasks/${id}.json`, headers: ADMIN })).json().task

/** Resolves once a task has written some tiles (the breeder's progress events), not after a delay. */
async function someProgress (app: FastifyInstance): Promise<void> {
  for (;;) {
    const [view] = await once(app.tileCache.breeder.events, 'task') as [TaskView]
    if (view.state === 'running' && view.tilesDone >= 32) return
  }
}

t.test('tasks running or pending at a shutdown resume after the next start with their ids and end with the exact count', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir, keepOpen: true, taskSlots: 1 })
  const layer = await createMosaic(first, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  const other = await createMosaic(first, 'topp', 'other', { 'other.tif': rgbTiff(40, 40, [0, 0, 10, 10], pattern) })
  let res = await first.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 7, type: 'seed', threadCount: 2 } }) })
  t.equal(res.statusCode, 200)
  const seedIds = ids(res.headers.link)
  // A reseed by area waits (one task slot); a truncate of the other layer waits and is killed.
  res = await first.inject({ method: 'POST', url: `${SEED}/${other}/area.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:900913', zoomStart: 0, zoomStop: 6, type: 'reseed' }, geometry: { type: 'Polygon', coordinates: [[[1, 1], [9, 1], [9, 9], [1, 1]]] } }) })
  t.equal(res.statusCode, 200, res.body)
  const [reseedId] = ids(res.headers.link)
  res = await first.inject({ method: 'POST', url: `${SEED}/${other}.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 3, type: 'seed' } }) })
  const [killedId] = ids(res.headers.link)
  await someProgress(first)
  res = await first.inject({ method: 'POST', url: `${SEED}/${other}`, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: `kill_thread=1&thread_id=${killedId}` })
  t.match(res.body, /Requested to terminate task/)
  const dir = path.join(dataDir, 'tiles/topp/world/EPSG_4326/png/default')
  await first.close() // SIGTERM's path: the tasks in hand stop after their metatile
  const before = count(dir)

  const second = await build(t, { dataDir, taskSlots: 1 })
  const listed = (await second.inject({ method: 'GET', url: `${SEED}.json`, headers: ADMIN })).json()['long-array-array'] as number[][]
  t.same(listed.map((r) => r[3]).sort((a, b) => a - b), [...seedIds, reseedId], 'the same ids are pending or running again; the killed task is not')
  t.ok(before > 0, `${before} tiles written before the stop`)
  await second.tileCache.breeder.idle()
  const views = await Promise.all(seedIds.map((id) => task(second, id)))
  // Each task's own share at the top; the request's sum (the whole range) under request.
  const total = views[0].request.tilesTotal
  for (const v of views) t.match(v, { state: 'done', status: 2, tilesTotal: v.tilesDone, tilesRemaining: 0, request: { tilesTotal: total, tilesRemaining: 0 } })
  t.equal(views[0].tilesDone + views[1].tilesDone, total, 'progress is honest: tiles already on disk count as done')
  t.equal(count(dir), total, 'every tile of the range exactly once')
  t.match(await task(second, reseedId), { state: 'done', type: 'reseed' })
  t.match(await task(second, killedId), { state: 'aborted', status: -1 })
  t.notOk(fs.existsSync(path.join(dataDir, 'tiles/topp/other/EPSG_4326')), 'the killed task wrote nothing')
  // New ids continue after the resumed ones.
  res = await second.inject({ method: 'POST', url: `${SEED}/${other}.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 0, type: 'seed' } }) })
  t.ok(ids(res.headers.link)[0] > killedId)
  await second.tileCache.breeder.idle()
})

t.test('a resumed reseed leaves alone the metatiles it wrote before the stop', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir, keepOpen: true, taskSlots: 1 })
  const layer = await createMosaic(first, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  const seed = (type: string) => first.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 7, type, threadCount: 1 } }) })
  t.equal((await seed('seed')).statusCode, 200)
  await first.tileCache.breeder.idle()
  const dir = path.join(dataDir, 'tiles/topp/world/EPSG_4326/png/default')
  const old = new Date('2020-01-01T00:00:00Z')
  const all = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name))
  for (const f of all) fs.utimesSync(f, old, old)
  const [id] = ids((await seed('reseed')).headers.link)
  await someProgress(first)
  await first.close()
  const renewed = all.filter((f) => fs.statSync(f).mtimeMs > old.getTime()).length
  t.ok(renewed > 0 && renewed < all.length, `${renewed} of ${all.length} re-rendered before the stop`)
  const mtimes = new Map(all.map((f) => [f, fs.statSync(f).mtimeMs]))

  const second = await build(t, { dataDir, keepOpen: true, taskSlots: 1 })
  await second.tileCache.breeder.idle()
  t.match(await task(second, id), { state: 'done', tilesRemaining: 0 })
  let again = 0
  let stale = 0
  for (const f of all) {
    const m = fs.statSync(f).mtimeMs
    if (m <= old.getTime()) stale++
    if (mtimes.get(f)! > old.getTime() && m !== mtimes.get(f)) again++
  }
  t.equal(stale, 0, 'every tile is fresh')
  t.equal(again, 0, 'no tile re-rendered before the stop was rendered a second time')
  await second.close()
})

t.test('with MAPWARDEN_RESUME_TASKS=false the tasks of a stopped run end ABORTED with "aborted: restart"', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir, keepOpen: true, taskSlots: 1, resumeTasks: false })
  const layer = await createMosaic(first, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  const res = await first.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 7, type: 'seed', threadCount: 2 } }) })
  const seedIds = ids(res.headers.link)
  await someProgress(first)
  await first.close()
  const second = await build(t, { dataDir, env: { MAPWARDEN_RESUME_TASKS: 'false' } })
  t.equal((await second.inject({ method: 'GET', url: `${SEED}.json`, headers: ADMIN })).body, '{"long-array-array":[]}')
  for (const id of seedIds) t.match(await task(second, id), { state: 'aborted' })
})

t.test('a truncate stopped by a shutdown resumes and counts every tile it deleted, before and after', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir, keepOpen: true, taskSlots: 1 })
  const layer = await createMosaic(first, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  let res = await first.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 7, type: 'seed', threadCount: 2 } }) })
  await first.tileCache.breeder.idle()
  const dir = path.join(dataDir, 'tiles/topp/world/EPSG_4326/png/default')
  const cached = count(dir)
  res = await first.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 7, type: 'truncate' } }) })
  const [id] = ids(res.headers.link)
  // Stop once it has deleted something (watched on disk, between two turns of the event loop).
  while (count(dir) === cached) await new Promise((resolve) => setImmediate(resolve))
  await first.close() // the truncate stops between two tiles
  const left = count(dir)
  t.ok(left < cached, 'it had begun')
  t.comment(`${cached - left} of ${cached} deleted before the stop`)

  const second = await build(t, { dataDir, taskSlots: 1 })
  await second.tileCache.breeder.idle()
  t.match(await task(second, id), { state: 'done', type: 'truncate', tilesDone: cached })
  t.equal(count(dir), 0, 'nothing left')
})
