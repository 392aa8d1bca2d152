// Task shares that add up (issue 31, item 5), on both backends: each task of a request has a part
// of the request's total, fixed when the request is made; the parts add up to the request's total,
// a task's done never passes its part, and the tasks' done add up to the request's done: while
// the seed runs, once it is done, after kill_all and after one task alone is killed. Read through
// the task list and the per-task resources as a client does, one request after the other, so that
// every check holds for numbers read at different moments (no single read sees them all at once).
import t, { type Test } from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { until } from '../../fixtures/cluster.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import { GRID_SETS, gridSubset } from '../../../services/tilecache/grid-sets.js'
import { countTiles, tileRange } from '../../../services/tilecache/tile-range.js'
import type { FastifyInstance } from 'fastify'
import { sampleShares, type Seen, type TaskView } from '../../fixtures/seed/shares.js'

const SEED = `${BASE}/gwc/rest/seed`
const JSON_TYPE = { ...ADMIN, 'content-type': 'application/json' }
const FORM = { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }
const BBOX: [number, number, number, number] = [-20, -10, 20, 30]
const totalTo = (zoomStop: number) => countTiles(tileRange(gridSubset(GRID_SETS['EPSG:4326'], BBOX), 0, zoomStop))

const view = async (app: FastifyInstance, id: number): Promise<TaskView> => (await app.inject({ method: 'GET', url: `${SEED}/tasks/${id}.json`, headers: ADMIN })).json().task
const sample = (t: Test, app: FastifyInstance, layer: string, ids: number[], total: bigint, seen: Seen) =>
  sampleShares(t, async (path) => (await app.inject({ method: 'GET', url: `${SEED}${path}`, headers: ADMIN })).json(), layer, ids, total, seen)

/** An app with two task slots, the world mosaic, and a seed of it to zoomStop in threadCount tasks. */
async function seedWorld (t: Test, zoomStop: number, threadCount: number): Promise<{ app: FastifyInstance, layer: string, total: bigint, ids: number[] }> {
  const app = await build(t, { taskSlots: 2 })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, BBOX, pattern) })
  return { app, layer, total: totalTo(zoomStop), ids: await submit(app, layer, zoomStop, threadCount) }
}

async function submit (app: FastifyInstance, layer: string, zoomStop: number, threadCount: number): Promise<number[]> {
  const res = await app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_TYPE, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'seed', zoomStart: 0, zoomStop, threadCount } }) })
  if (res.statusCode !== 200) throw new Error(`seed: ${res.statusCode} ${res.body}`)
  return String(res.headers.link).split(',').map((l) => Number(/tasks\/(\d+)\.json/.exec(l)![1]))
}

t.test('running and done: every task keeps its part, the parts and the counts add up (a task waiting for a slot too)', async (t) => {
  const { app, layer, total, ids } = await seedWorld(t, 7, 3)
  const seen = new Map() as Seen
  let running = 0
  await until('the seed ends', async () => {
    const views = await sample(t, app, layer, ids, total, seen)
    if (views.some((v) => v.state === 'running' && v.tilesDone > 0 && v.request.tilesDone < Number(total))) running++
    return views.every((v) => v.state === 'done')
  }, 300)
  t.ok(running > 0, `sampled while running (${running} times)`)
  const views = await sample(t, app, layer, ids, total, seen)
  for (const v of views) t.equal(v.tilesDone, v.tilesTotal, `task ${v.id} done: all of its part`)
  t.equal(views.reduce((n, v) => n + v.tilesDone, 0), Number(total), 'the tasks did the request')
  t.same(views.map((v) => v.request.tilesDone), views.map(() => Number(total)))
})

t.test('kill_all: the parts stay as they were and the counts still add up (a task waiting for a slot too)', async (t) => {
  const { app, layer, total, ids } = await seedWorld(t, 20, 3)
  const seen = new Map() as Seen
  await until('some tiles counted', async () => (await sample(t, app, layer, ids, total, seen)).some((v) => v.request.tilesDone >= 64), 120)
  const before = new Map([...seen].map(([id, s]) => [id, s.total]))
  const res = await app.inject({ method: 'POST', url: `${SEED}/${layer}`, headers: FORM, payload: 'kill_all=all' })
  t.equal(res.statusCode, 200)
  await until('every task ended', async () => (await Promise.all(ids.map((id) => view(app, id)))).every((v) => v.state === 'aborted'), 60)
  const views = await sample(t, app, layer, ids, total, seen)
  for (const v of views) t.equal(v.tilesTotal, before.get(v.id), `task ${v.id} keeps the part it had: ${v.tilesTotal}`)
  const done = views.reduce((n, v) => n + v.tilesDone, 0)
  t.ok(done > 0 && done < Number(total), `${done} tiles counted before the kill`)
  for (const v of views) t.equal(v.request.tilesDone, done, 'every task reads the request\'s done as the sum of its tasks')
})

t.test('one task killed: it keeps what it did as its part, the others take the rest and finish the request', async (t) => {
  const { app, layer, total, ids } = await seedWorld(t, 7, 2)
  const seen = new Map() as Seen
  await until('some tiles counted', async () => (await sample(t, app, layer, ids, total, seen)).some((v) => v.tilesDone >= 32), 120)
  const res = await app.inject({ method: 'POST', url: `${SEED}/${layer}`, headers: FORM, payload: `kill_thread=1&thread_id=${ids[0]}` })
  t.match(res.body, `Requested to terminate task ${ids[0]}.`)
  await until('the request ends', async () => (await Promise.all(ids.map((id) => view(app, id)))).every((v) => v.state !== 'running' && v.state !== 'pending'), 300)
  const [killed, other] = await Promise.all(ids.map((id) => view(app, id)))
  t.equal(killed.state, 'aborted')
  t.equal(other.state, 'done')
  t.equal(killed.tilesTotal, killed.tilesDone, 'the killed task\'s part is what it did')
  t.ok(killed.tilesDone < Number(total) / 2, `it did less than half (${killed.tilesDone})`)
  t.equal(other.tilesDone, other.tilesTotal, 'the other did all of its part')
  t.equal(killed.tilesTotal + other.tilesTotal, Number(total), 'the parts add up to the request')
  t.equal(killed.tilesDone + other.tilesDone, Number(total), 'the counts add up to the request')
  t.equal(other.request.tilesDone, Number(total))
})
