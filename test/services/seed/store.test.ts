// The contract of the tile cache's stores (services/seed/store.ts), the same cases on the SQLite
// and the PostgreSQL store: task records (read, aborted at a start), tile settings, tile sets and
// drop marks; the task counts by state. Then what only PostgreSQL has: the 'tiles' announcements
// other nodes forget their caches by. Restarts and pruning are task-records.test.ts; the job
// stores that write the records are test/services/storage/{sqlite,pg}/.
import t from 'tap'
import { createSqliteSeedStore } from '../../../services/seed/sqlite-store.js'
import { createPgSeedStore } from '../../../services/seed/pg-store.js'
import { insertTask, taskView as view } from '../../fixtures/task-rows.js'
import { BACKENDS, openBackend, recordChanges, type Opened } from '../../fixtures/backends.js'
import { addLayer, addWorkspace } from '../../fixtures/catalog-rows.js'
import { migratedPg } from '../../fixtures/pg.js'

const seedStore = (o: Opened) => o.backend === 'pg' ? createPgSeedStore(o.db) : createSqliteSeedStore(o.db)

for (const backend of BACKENDS) {
  t.test(`${backend}: task records: one as stored, an unknown id`, async (t) => {
    const o = await openBackend(t, backend)
    const { tasks } = seedStore(o)
    const a = await insertTask(o, 'pending')
    const b = await insertTask(o, 'running')
    const c = await insertTask(o, 'done', { finishedAt: 10 })
    t.same(await tasks.get(a), { id: a, state: 'pending', view: view('pending'), error: undefined })
    t.equal(await tasks.get(c + 1000), undefined, 'an unknown id')
    t.match(await tasks.get(b), { state: 'running', error: undefined })
    t.match(await tasks.get(c), { state: 'done', error: undefined })
  })

  t.test(`${backend}: countByState counts the records of each state present (the metrics' task gauge)`, async (t) => {
    const o = await openBackend(t, backend)
    const { tasks } = seedStore(o)
    t.same(await tasks.countByState(), [], 'no records, no rows')
    await insertTask(o, 'running')
    await insertTask(o, 'done', { finishedAt: 5 })
    await insertTask(o, 'aborted', { finishedAt: 6, error: 'killed' })
    await insertTask(o, 'pending')
    const counts = (await tasks.countByState()).sort((a, b) => a.state.localeCompare(b.state))
    t.same(counts, [{ state: 'aborted', count: 1 }, { state: 'done', count: 1 }, { state: 'pending', count: 1 }, { state: 'running', count: 1 }])
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
