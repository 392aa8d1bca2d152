// The cluster's seed records (services/storage/pg/cluster-store.ts) on a real PostgreSQL database, two
// pools standing for two nodes: a chunk finished by both counts once, chunks of a dead node are
// handed back once (also those whose queue job a node took and never began), the task slots and the pending cap hold for the cluster, a kill ends a job and
// starts the next.
import t from 'tap'
import { migratedPg } from '../../../fixtures/pg.js'
import { connectPg } from '../../../../services/storage/pg/database.js'
import { createClusterSeedStore, SEED_QUEUE, WINDOW, type ChunkRef, type Dispatch } from '../../../../services/storage/pg/cluster-store.js'
import { openWorkQueue } from '../../../../services/storage/pg/work-queue.js'
import { firstCursor, nextChunks } from '../../../../services/seed/chunks.js'
import { countTiles, tileRange } from '../../../../services/tilecache/tile-range.js'
import { GRID_SETS, gridSubset, rectArea } from '../../../../services/tilecache/grid-sets.js'
import type { TaskView } from '../../../../services/seed/task.js'

const range = tileRange(gridSubset(GRID_SETS['EPSG:4326'], [-180, -90, 180, 90]), 0, 7)
const view = { type: 'seed', layer: 'topp:m', gridSetId: 'EPSG:4326', format: 'image/png', zoomStart: 0, zoomStop: 7, state: 'pending', status: 0, tilesDone: -1, tilesTotal: -1, tilesRemaining: -1, percentDone: -1, tilesPerSecond: 0, etaSeconds: -1 } as Omit<TaskView, 'id'>
const job = (tasks: number) => ({ layer: 'topp:m', type: 'seed' as const, request: '{}', views: Array.from({ length: tasks }, () => view), total: countTiles(range), cursor: firstCursor(range), descending: false })
const dispatch = (limits: Partial<Dispatch> = {}): Dispatch => ({
  taskSlots: 4, maxPendingTasks: 100, now: Date.now(), enqueue: async () => {}, load: async () => {},
  plan: (_job, cursor, n, oneLevel) => nextChunks(range, cursor, n, { oneLevel }),
  ...limits
})

async function nodes (t: Parameters<typeof migratedPg>[0]) {
  const { url, db } = await migratedPg(t)
  const other = connectPg(url)
  t.teardown(() => other.close())
  return { db, a: createClusterSeedStore(db), b: createClusterSeedStore(other) }
}

t.test('a chunk finished by two nodes at once counts once; the job ends with exactly its tiles', async (t) => {
  const { db, a, b } = await nodes(t)
  const ids = await a.submit(job(2), dispatch(), () => {})
  t.equal((await db.query('SELECT count(*)::int AS n FROM seed_chunks')).rows[0].n, WINDOW, 'a window of chunks goes out')
  let rounds = 0
  for (;;) {
    const out = (await db.query<ChunkRef & { rect: [number, number, number, number] }>('SELECT job, seq, rect FROM seed_chunks ORDER BY seq')).rows
    if (out.length === 0) break
    // Both nodes take every chunk and finish it at the same moment (a retried chunk whose first node lived on).
    await Promise.all(out.flatMap((c) => [
      a.begin(c, 'node-a', `a${c.seq}`).then((w) => w && a.complete(c, 'node-a', { metatiles: 1, tiles: rectArea(c.rect) }, dispatch())),
      b.begin(c, 'node-b', `b${c.seq}`).then((w) => w && b.complete(c, 'node-b', { metatiles: 1, tiles: rectArea(c.rect) }, dispatch()))
    ]))
    rounds++
  }
  t.ok(rounds > 1, `handed out over ${rounds} rounds`)
  const tasks = (await db.query('SELECT id, state, tiles_done FROM seed_tasks ORDER BY id')).rows
  t.same(tasks.map((r) => r.state), ['done', 'done'])
  t.equal(tasks.reduce((n, r) => n + Number(r.tiles_done), 0), Number(countTiles(range)), 'the tasks count the range once')
  const work = await a.nodeWork(ids[0])
  t.equal(work.reduce((n, w) => n + Number(w.tiles), 0), Number(countTiles(range)), 'the nodes\' work adds up to it')
  t.equal((await db.query('SELECT state FROM seed_jobs')).rows[0].state, 'done')
})

t.test('the chunks of a node no longer live are handed back once', async (t) => {
  const { a, b } = await nodes(t)
  const [first] = await a.submit(job(1), dispatch(), () => {})
  t.ok(await a.begin({ job: first, seq: 0 }, 'dead', 'boss-0'))
  t.ok(await a.begin({ job: first, seq: 1 }, 'alive', 'boss-1'))
  const [x, y] = await Promise.all([a.orphans(['alive']), b.orphans(['alive'])])
  t.same([...x, ...y], ['boss-0'], 'one node gets the dead node\'s chunk')
  t.same(await a.orphans(['alive']), [], 'and only once')
})

t.test('a queue job taken by a node that died before beginning its chunk is handed back after 15 s', async (t) => {
  const { db, a } = await nodes(t)
  const queue = await openWorkQueue(db, SEED_QUEUE)
  t.teardown(() => queue.stop())
  let jobId = 0
  await a.submit(job(1), dispatch(), (id) => { jobId = id })
  const active = async (seconds: number) => (await db.query<{ id: string }>(`INSERT INTO pgboss.job (name, data, state, started_on)
    VALUES ($1, '{}', 'active', now() - make_interval(secs => $2)) RETURNING id::text AS id`, [SEED_QUEUE, seconds])).rows[0].id
  const lost = await active(20) // taken 20 s ago, no chunk begun under it
  await active(5) // taken 5 s ago: its node may still begin the chunk
  const begun = await active(20)
  t.ok(await a.begin({ job: jobId, seq: 0 }, 'alive', begun), 'a live node began its chunk under this one')
  t.same(await a.orphans(['alive']), [lost], 'only the job nobody began after 15 s is failed')
})

t.test('task slots and the pending cap hold for the cluster; a kill ends a job and starts the next', async (t) => {
  const { db, a, b } = await nodes(t)
  const limits = { taskSlots: 2, maxPendingTasks: 3 }
  const first = await a.submit(job(2), dispatch(limits), () => {})
  const second = await b.submit(job(2), dispatch(limits), () => {})
  const state = async (ids: number[]) => (await db.query('SELECT state FROM seed_tasks WHERE id = ANY($1) ORDER BY id', [ids])).rows.map((r) => r.state)
  t.same(await state(first), ['running', 'running'])
  t.same(await state(second), ['pending', 'pending'], 'no slot left: pending')
  await t.rejects(a.submit(job(2), dispatch(limits), () => {}), { code: 'MW_SEED_TOO_MANY_PENDING' }, 'past the cap on any node')
  const killed = await b.kill({ states: ['running', 'pending'], ids: first }, dispatch(limits))
  t.same(killed.map((k) => [k.id, k.was]), [[first[0], 'running'], [first[1], 'running']])
  t.same(await state(first), ['aborted', 'aborted'])
  t.equal((await db.query('SELECT count(*)::int AS n FROM seed_chunks WHERE job = $1', [first[0]])).rows[0].n, 0, 'its chunks withdrawn')
  t.same(await state(second), ['running', 'running'], 'the pending job starts')
})
