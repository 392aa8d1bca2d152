// The embedded default's seed job store (services/storage/sqlite/job-store.ts) and in-process work
// queue (work-queue.ts): a chunk counts once however often it is finished, the job ends with
// exactly its tiles; a job whose request was not read yet is planned once it is (the transaction
// runs again); the chunks out at a kill -9 are queued again by the next start; task slots, the
// pending cap and kills; ids never repeat after a restart.
import t from 'tap'
import path from 'node:path'
import { openDatabase, type Db } from '../../../../services/storage/sqlite/database.js'
import { createSqliteJobStore } from '../../../../services/storage/sqlite/job-store.js'
import { inProcessWorkQueue } from '../../../../services/storage/sqlite/work-queue.js'
import { WINDOW, type ChunkRef, type Dispatch } from '../../../../services/seed/job-store.js'
import { firstCursor, nextChunks } from '../../../../services/seed/chunks.js'
import { countTiles, tileRange } from '../../../../services/tilecache/tile-range.js'
import { GRID_SETS, gridSubset, rectArea, type Rect } from '../../../../services/tilecache/grid-sets.js'
import type { TaskView } from '../../../../services/seed/task.js'
import { tempDir } from '../../../helper.js'

const range = tileRange(gridSubset(GRID_SETS['EPSG:4326'], [-180, -90, 180, 90]), 0, 7)
const view = { type: 'seed', layer: 'topp:m', gridSetId: 'EPSG:4326', format: 'image/png', zoomStart: 0, zoomStop: 7, state: 'pending', status: 0, tilesDone: -1, tilesTotal: -1, tilesRemaining: -1, percentDone: -1, tilesPerSecond: 0, etaSeconds: -1 } as Omit<TaskView, 'id'>
const job = (tasks: number) => ({ layer: 'topp:m', type: 'seed' as const, request: '{}', views: Array.from({ length: tasks }, () => view), total: countTiles(range), cursor: firstCursor(range), descending: false })

/** A dispatch whose jobs' requests are read on `load` only (as the breeder's); the chunks it is given, in `queued`. */
function dispatcher (limits: Partial<Dispatch> = {}) {
  const loaded = new Set<number>()
  const queued: ChunkRef[] = []
  const loads: number[] = []
  const d: Dispatch = {
    taskSlots: 4, maxPendingTasks: 100, now: Date.now(),
    enqueue: async (_tx, refs) => { queued.push(...refs) },
    load: async (id) => { loads.push(id); loaded.add(id) },
    plan: (id, cursor, n, oneLevel) => loaded.has(id) ? nextChunks(range, cursor, n, { oneLevel }) : undefined,
    ...limits
  }
  return { d, queued, loads }
}

function open (t: Parameters<typeof tempDir>[0], dir = tempDir(t)): Db {
  const db = openDatabase(dir)
  t.teardown(() => { if (db.open) db.close() })
  return db
}

const rectOf = (db: Db, ref: ChunkRef): Rect => JSON.parse((db.prepare('SELECT rect FROM seed_chunks WHERE job = ? AND seq = ?').get(ref.job, ref.seq) as { rect: string }).rect)

t.test('a job not read yet is planned once it is; a chunk finished twice counts once; the job ends with exactly its tiles', async (t) => {
  const db = open(t)
  const changes: unknown[] = []
  const store = createSqliteJobStore(db, (c) => changes.push(c))
  const { d, queued, loads } = dispatcher()
  const ids = await store.submit(job(2), d, () => {})
  t.same(loads, [ids[0]], 'the transaction ran again once the request was read')
  t.equal(queued.length, WINDOW, 'a window of chunks goes to the queue once committed')
  let rounds = 0
  let unbegun = 0
  while (queued.length > 0) {
    const out = queued.splice(0)
    for (const ref of out) {
      if (!await store.begin(ref, 'local', '1')) unbegun++
      const done = { metatiles: 1, tiles: rectArea(rectOf(db, ref)) }
      await store.complete(ref, 'local', done, d)
      await store.complete(ref, 'local', done, d) // a chunk redone after a stop: counted already
    }
    rounds++
  }
  t.ok(rounds > 1, `handed out over ${rounds} rounds`)
  t.equal(unbegun, 0, 'every chunk handed out is one of a running job')
  const tasks = db.prepare('SELECT state, tiles_done FROM seed_tasks ORDER BY id').all() as Array<{ state: string, tiles_done: number }>
  t.same(tasks.map((r) => r.state), ['done', 'done'])
  t.equal(tasks.reduce((n, r) => n + r.tiles_done, 0), Number(countTiles(range)), 'the tasks count the range once')
  t.equal((db.prepare('SELECT state FROM seed_jobs').get() as { state: string }).state, 'done')
  t.equal(await store.begin({ job: ids[0], seq: 0 }, 'local', '2'), undefined, 'a chunk of a finished job is not worked')
  t.ok(changes.length > 0, 'every change is announced in the process')
})

t.test('after a kill -9 the chunks out are queued again and the job goes on to exactly its tiles', async (t) => {
  const dir = tempDir(t)
  let db = open(t, dir)
  const first = dispatcher()
  const [id] = await createSqliteJobStore(db, () => {}).submit(job(1), first.d, () => {})
  db.close() // the process dies: its queue is gone, the rows stay
  db = open(t, path.resolve(dir))
  const store = createSqliteJobStore(db, () => {})
  const { d } = dispatcher()
  const outstanding = store.outstanding()
  t.same(outstanding, first.queued, 'the chunks out, in order')
  let tiles = 0
  const queue = inProcessWorkQueue(outstanding, (err) => { throw err })
  d.enqueue = async (tx, refs) => await queue.add(tx, refs)
  await queue.work(3, async (ref) => {
    if (!await store.begin(ref, 'local', '1')) return
    const n = rectArea(rectOf(db, ref))
    await store.complete(ref, 'local', { metatiles: 1, tiles: n }, d)
    tiles += n
  })
  while ((db.prepare('SELECT state FROM seed_jobs WHERE id = ?').get(id) as { state: string }).state === 'running') await new Promise((resolve) => setTimeout(resolve, 10))
  await queue.stop()
  t.equal(tiles, Number(countTiles(range)))
  t.equal((db.prepare('SELECT tiles_done FROM seed_tasks WHERE id = ?').get(id) as { tiles_done: number }).tiles_done, Number(countTiles(range)))
})

t.test('task slots and the pending cap hold; a kill ends a job and starts the next; ids never repeat', async (t) => {
  const dir = tempDir(t)
  let db = open(t, dir)
  let store = createSqliteJobStore(db, () => {})
  const { d } = dispatcher({ taskSlots: 2, maxPendingTasks: 2 })
  const first = await store.submit(job(2), d, () => {})
  const second = await store.submit(job(2), d, () => {})
  const states = () => (db.prepare('SELECT state FROM seed_tasks ORDER BY id').all() as Array<{ state: string }>).map((r) => r.state)
  t.same(states(), ['running', 'running', 'pending', 'pending'], 'the second job waits for slots')
  await t.rejects(store.submit(job(1), d, () => {}), { code: 'MW_SEED_TOO_MANY_PENDING' }, 'past the cap')
  const killed = await store.kill({ states: ['running', 'pending'], ids: first }, d)
  t.same(killed.map((k) => [k.id, k.was]), [[first[0], 'running'], [first[1], 'running']])
  t.same(states(), ['aborted', 'aborted', 'running', 'running'], 'the next job starts')
  t.equal((db.prepare('SELECT count(*) AS n FROM seed_chunks WHERE job = ?').get(first[0]) as { n: number }).n, 0, 'the killed job\'s chunks are withdrawn')
  await store.kill({ states: ['running', 'pending'] }, d)
  const one = dispatcher({ taskSlots: 1 })
  const third = await store.submit(job(2), one.d, () => {})
  t.same(states().slice(4), ['running', 'pending'], 'a task slot is a task: the job\'s second task waits for it')
  t.same(new Set((db.prepare('SELECT task FROM seed_chunks WHERE job = ?').all(third[0]) as Array<{ task: number }>).map((r) => r.task)), new Set([third[0]]), 'its chunks count for the running task')
  await store.kill({ ids: [third[0]], states: ['running'] }, one.d)
  t.same(states().slice(4), ['aborted', 'running'], 'the waiting task starts when the slot frees')
  await store.abortUnfinished('aborted: restart', Date.now())
  await store.prune(Date.now() + 1)
  db.prepare('DELETE FROM seed_tasks').run()
  db.close()
  db = open(t, dir)
  store = createSqliteJobStore(db, () => {})
  const [again] = await store.submit(job(1), dispatcher().d, () => {})
  t.ok(again > second[1], `a new id (${again}) after every earlier one, their rows gone and the process restarted`)
})
