// The contract of the tile cache's stores (services/seed/store.ts), the same cases on the SQLite
// and the PostgreSQL store: task records (jobs, the sticky kill flag, the first start time, aborts),
// tile settings, tile sets and drop marks. Then what only PostgreSQL has: nodes creating and
// writing tasks at once, relaxed commits that leave the connection as they found it, and the
// 'tiles' announcements other nodes forget their caches by. Restarts and pruning are
// task-records.test.ts.
import t from 'tap'
import { createSqliteSeedStore } from '../../../services/seed/sqlite-store.js'
import { createPgSeedStore } from '../../../services/seed/pg-store.js'
import type { TaskView } from '../../../services/seed/task.js'
import { connectPg } from '../../../services/storage/pg/database.js'
import { BACKENDS, openBackend, recordChanges, secondNode, type Opened } from '../../fixtures/backends.js'
import { addLayer, addWorkspace } from '../../fixtures/catalog-rows.js'
import { migratedPg } from '../../fixtures/pg.js'

const seedStore = (o: Opened) => o.backend === 'pg' ? createPgSeedStore(o.db) : createSqliteSeedStore(o.db)

const view = (state: TaskView['state'], more: Partial<TaskView> = {}): Omit<TaskView, 'id'> => ({
  type: 'seed', layer: 'ws:l', gridSetId: 'EPSG:4326', format: 'image/png', zoomStart: 0, zoomStop: 3, state,
  status: 0, tilesDone: -1, tilesTotal: -1, tilesRemaining: -1, percentDone: -1, tilesPerSecond: 0, etaSeconds: -1, ...more
})

for (const backend of BACKENDS) {
  t.test(`${backend}: tasks`, async (t) => {
    const { tasks } = seedStore(await openBackend(t, backend))

    t.test('create: ids in order, the job of each is the first id, the request kept', async (t) => {
      const ids = await tasks.create([{ layer: 'ws:l', view: view('pending') }, { layer: 'ws:m', view: view('pending', { layer: 'ws:m' }) }], '{"seedRequest":{}}', 5)
      t.equal(ids.length, 2)
      t.ok(ids[1] > ids[0])
      const [single] = await tasks.create([{ layer: 'ws:l', view: view('pending') }], undefined, 6)
      t.same(await tasks.unfinished(), [
        { id: ids[0], job: ids[0], view: view('pending'), request: '{"seedRequest":{}}', killed: false, startedAt: undefined },
        { id: ids[1], job: ids[0], view: view('pending', { layer: 'ws:m' }), request: '{"seedRequest":{}}', killed: false, startedAt: undefined },
        { id: single, job: single, view: view('pending'), request: null, killed: false, startedAt: undefined }
      ])
      t.same(await tasks.get(ids[1]), { id: ids[1], state: 'pending', view: view('pending', { layer: 'ws:m' }), error: undefined })
      t.equal(await tasks.get(single + 1000), undefined, 'an unknown id')
      t.same(await tasks.create([], undefined, 7), [], 'no tasks, no ids')
    })

    t.test('save: the later write wins, the kill flag stays set, the first start time is kept', async (t) => {
      const [id] = await tasks.create([{ layer: 'ws:l', view: view('pending') }], undefined, 1)
      await tasks.save([{ view: { ...view('running', { tilesDone: 5 }), id }, startedAt: 100 }], false)
      await tasks.save([{ view: { ...view('running', { tilesDone: 9 }), id }, killed: true, startedAt: 200 }], false)
      await tasks.save([
        { view: { ...view('running', { tilesDone: 10 }), id }, killed: false, startedAt: 300 },
        { view: { ...view('running', { tilesDone: 12 }), id } }
      ], true)
      t.match((await tasks.unfinished()).find((u) => u.id === id), { view: { tilesDone: 12 }, killed: true, startedAt: 100 })
      await tasks.save([{ view: { ...view('aborted', { error: 'disk full' }), id }, finishedAt: 400 }], true)
      t.same(await tasks.get(id), { id, state: 'aborted', view: { ...view('aborted', { error: 'disk full' }), id }, error: 'disk full' })
      await tasks.save([{ view: { ...view('done'), id: id + 1000 } }], true) // an unknown id: nothing to write
      t.equal(await tasks.get(id + 1000), undefined)
    })

    t.test('abort ends one unfinished task; abortUnfinished every one, and counts them', async (t) => {
      const [a, b, c] = await tasks.create([1, 2, 3].map(() => ({ layer: 'ws:l', view: view('pending') })), undefined, 1)
      await tasks.save([{ view: { ...view('done'), id: c }, finishedAt: 10 }], true)
      await tasks.abort(a, 'killed', 20)
      await tasks.abort(c, 'too late', 20)
      t.match(await tasks.get(a), { state: 'aborted', error: 'killed' })
      t.match(await tasks.get(c), { state: 'done', error: undefined }, 'a finished task stays as it ended')
      const open = (await tasks.unfinished()).length
      t.ok(open >= 1)
      t.equal(await tasks.abortUnfinished('shutdown', 30), open)
      t.match(await tasks.get(b), { state: 'aborted', error: 'shutdown' })
      t.same(await tasks.unfinished(), [])
      t.equal(await tasks.abortUnfinished('again', 40), 0)
    })
  })

  t.test(`${backend}: tile settings in (workspace, name) order, replaced whole, removed`, async (t) => {
    const o = await openBackend(t, backend)
    for (const ws of ['a', 'b']) await addWorkspace(o, ws)
    for (const [ws, name] of [['b', 'x'], ['a', 'y'], ['a', 'X']]) await addLayer(o, ws, name, name, undefined, [])
    const { tileSettings } = seedStore(o)
    const s1 = { expireCache: 60, expireClients: 0, cachedOnly: true, cachedOnlyMissing: 'notFound' as const }
    const s2 = { expireCache: 0, expireClients: 30, cachedOnly: false, cachedOnlyMissing: 'notFound' as const }
    await tileSettings.put('b', 'x', s1)
    await tileSettings.put('a', 'y', s1)
    await tileSettings.put('a', 'X', s2)
    await tileSettings.put('a', 'y', s2)
    t.same(await tileSettings.all(), [
      { workspace: 'a', name: 'X', settings: s2 },
      { workspace: 'a', name: 'y', settings: s2 },
      { workspace: 'b', name: 'x', settings: s1 }
    ], 'byte order: X before y')
    await tileSettings.remove('a', 'X')
    await tileSettings.remove('a', 'nothing')
    t.same((await tileSettings.all()).map((r) => r.name), ['y', 'x'])
    await t.rejects(tileSettings.put('a', 'unpublished', s1), 'only a published layer has settings')
  })

  t.test(`${backend}: tile sets keep their first parameters; drop marks oldest first`, async (t) => {
    const { tileSets } = seedStore(await openBackend(t, backend))
    await tileSets.addSet('ws:l', 'p2', { STYLES: 'b' })
    await tileSets.addSet('ws:l', 'P1', { STYLES: 'a' })
    await tileSets.addSet('ws:l', 'p2', { STYLES: 'changed' })
    await tileSets.addSet('ws:m', 'p3', { TIME: '2020' })
    t.same(await tileSets.sets(['ws:m', 'ws:l', 'ws:none']), [
      { layer: 'ws:m', parameterId: 'p3', parameters: { TIME: '2020' } },
      { layer: 'ws:l', parameterId: 'P1', parameters: { STYLES: 'a' } },
      { layer: 'ws:l', parameterId: 'p2', parameters: { STYLES: 'b' } }
    ], 'in the order of the layers asked, then by parameter id')
    t.same(await tileSets.sets([]), [])
    await tileSets.removeSets('ws:l')
    t.same((await tileSets.sets(['ws:l', 'ws:m'])).map((s) => s.parameterId), ['p3'])

    const a = await tileSets.addMark({ layer: 'ws:l', before: 100, reason: 'style' })
    const b = await tileSets.addMark({ layer: 'ws:m', parameterId: 'p3', area: [0, 0, 10, 10], before: 200, reason: 'data' })
    const c = await tileSets.addMark({ layer: 'ws:l', before: 300, reason: 'again' })
    t.ok(a < b && b < c)
    await tileSets.clearMark(b)
    await tileSets.clearMark(b + 1000)
    t.same(await tileSets.marks(), [
      { id: a, layer: 'ws:l', parameterId: undefined, area: undefined, before: 100, reason: 'style' },
      { id: c, layer: 'ws:l', parameterId: undefined, area: undefined, before: 300, reason: 'again' }
    ])
    await tileSets.clearMark(a)
    const d = await tileSets.addMark({ layer: 'ws:m', parameterId: 'p3', area: [0, 0, 10, 10], before: 400, reason: 'data' })
    t.same(await tileSets.marks(), [
      { id: c, layer: 'ws:l', parameterId: undefined, area: undefined, before: 300, reason: 'again' },
      { id: d, layer: 'ws:m', parameterId: 'p3', area: [0, 0, 10, 10], before: 400, reason: 'data' }
    ])
  })
}

t.test('pg: two nodes creating tasks at once get distinct ids; a job is its own first id', async (t) => {
  const { url, db } = await migratedPg(t)
  const nodes = [createPgSeedStore(db), createPgSeedStore(secondNode(t, url))]
  const created = await Promise.all(Array.from({ length: 40 }, (_, i) =>
    nodes[i % 2].tasks.create([1, 2, 3].map(() => ({ layer: 'ws:l', view: view('pending') })), `{"n":${i}}`, i)))
  const ids = created.flat()
  t.equal(new Set(ids).size, 120, 'all distinct')
  const byId = new Map((await nodes[0].tasks.unfinished()).map((u) => [u.id, u]))
  t.equal(byId.size, 120)
  created.forEach((group, i) => {
    t.same(group.map((id) => byId.get(id)?.job), [group[0], group[0], group[0]], `job of request ${i}`)
    t.same(group.map((id) => byId.get(id)?.request), [`{"n":${i}}`, `{"n":${i}}`, `{"n":${i}}`])
  })
})

t.test('pg: two nodes writing the same tasks at once: one kill is never lost, the first start time stays', async (t) => {
  const { url, db } = await migratedPg(t)
  const nodes = [createPgSeedStore(db), createPgSeedStore(secondNode(t, url))]
  const ids = await nodes[0].tasks.create([1, 2, 3, 4].map(() => ({ layer: 'ws:l', view: view('pending') })), undefined, 1)
  // Each save names every task, in opposite orders on the two nodes; one of them kills task 3.
  await Promise.all(Array.from({ length: 60 }, (_, i) => {
    const order = i % 2 ? ids : [...ids].reverse()
    return nodes[i % 2].tasks.save(order.map((id) => ({
      view: { ...view('running', { tilesDone: i }), id }, startedAt: i === 0 ? 50 : 1000 + i, killed: i === 31 && id === ids[2]
    })), i % 3 === 0)
  }))
  const rows = await nodes[0].tasks.unfinished()
  t.same(rows.map((r) => r.killed), [false, false, true, false])
  const first = (await db.query('SELECT min(started_at) AS s FROM seed_tasks')).rows[0].s as number
  t.same(rows.map((r) => r.startedAt), [first, first, first, first], 'one first write set every start time')
  t.ok(rows.every((r) => r.view.tilesDone === rows[0].view.tilesDone), 'the last save wrote every task')
})

t.test('pg: a progress save commits without the WAL flush and leaves the connection synchronous', async (t) => {
  const { url } = await migratedPg(t)
  const one = connectPg(url, { max: 1 })
  t.teardown(() => one.close())
  const tasks = createPgSeedStore(one).tasks
  const [id] = await tasks.create([{ layer: 'ws:l', view: view('pending') }], undefined, 1)
  await tasks.save([{ view: { ...view('running', { tilesDone: 3 }), id } }], false)
  t.same((await one.query('SHOW synchronous_commit')).rows, [{ synchronous_commit: 'on' }])
  t.match(await tasks.get(id), { view: { tilesDone: 3 } })
})

t.test('pg: tile settings, tile sets and drop marks announce "tiles" for the layer they change', async (t) => {
  const { url, db } = await migratedPg(t)
  const o: Opened = { backend: 'pg', db, url }
  await addWorkspace(o, 'ws')
  await addLayer(o, 'ws', 'l', 'l', undefined, [])
  const changes = await recordChanges(t, url, db)
  const { tileSettings, tileSets } = createPgSeedStore(db)
  await tileSettings.put('ws', 'l', { expireCache: 1, expireClients: 0, cachedOnly: false, cachedOnlyMissing: 'notFound' })
  await tileSettings.remove('ws', 'l')
  await tileSettings.remove('ws', 'l') // nothing changed
  await tileSets.addSet('ws:a', 'p', {})
  await tileSets.addSet('ws:a', 'p', {}) // kept as first recorded
  await tileSets.removeSets('ws:a')
  const id = await tileSets.addMark({ layer: 'ws:b', before: 1, reason: 'r' })
  await tileSets.clearMark(id)
  await tileSets.clearMark(id)
  t.same(await changes.settle(), ['ws:l', 'ws:l', 'ws:a', 'ws:a', 'ws:b', 'ws:b'].map((key) => ({ topic: 'tiles', key })))
})
