// Seed task records on a real catalog, SQLite and PostgreSQL: ids never repeat across restarts
// (even after their records were pruned), unfinished tasks become ABORTED "aborted: restart" on the
// next start, and finished records are kept an hour and at most keepMax.
import t from 'tap'
import { createTaskRecords, RESTART_REASON } from '../../../services/seed/task-records.js'
import { createSqliteSeedStore } from '../../../services/seed/sqlite-store.js'
import { createPgSeedStore } from '../../../services/seed/pg-store.js'
import type { TaskView } from '../../../services/seed/task.js'
import { BACKENDS, openBackend, reopen, type Opened } from '../../fixtures/backends.js'

const seedStore = (o: Opened) => o.backend === 'pg' ? createPgSeedStore(o.db) : createSqliteSeedStore(o.db)

const view = (state: TaskView['state']): Omit<TaskView, 'id'> => ({
  type: 'seed', layer: 'ws:l', gridSetId: 'EPSG:4326', format: 'image/png', zoomStart: 0, zoomStop: 3, state,
  status: 0, tilesDone: -1, tilesTotal: -1, tilesRemaining: -1, percentDone: -1, tilesPerSecond: 0, etaSeconds: -1
})

for (const backend of BACKENDS) {
  t.test(`${backend}: unfinished tasks are ABORTED "aborted: restart" after a restart and ids never repeat`, async (t) => {
    const o = await openBackend(t, backend)
    let records = createTaskRecords(seedStore(o).tasks)
    const [a, b, c] = await records.create([{ layer: 'ws:l', view: view('pending') }, { layer: 'ws:l', view: view('pending') }, { layer: 'ws:l', view: view('pending') }])
    await records.save([{ view: { ...view('running'), id: b } }])
    await records.save([{ view: { ...view('done'), id: c }, finishedAt: Date.now() }])
    // the process dies; nothing else is written
    records = createTaskRecords(seedStore(reopen(t, o)).tasks)
    t.equal(await records.abortUnfinished(), 2, 'the pending and the running task')
    t.match(await records.get(a), { state: 'aborted', status: -1, error: RESTART_REASON })
    t.match(await records.get(b), { state: 'aborted', error: RESTART_REASON, etaSeconds: 0 })
    t.match(await records.get(c), { state: 'done', error: undefined })
    const [next] = await records.create([{ layer: 'ws:l', view: view('pending') }])
    t.ok(next > c, `a new id (${next}) after every earlier one`)
  })

  t.test(`${backend}: finished records are pruned after keepMs and beyond keepMax; ids still do not repeat`, async (t) => {
    let now = 1_000_000
    const records = createTaskRecords(seedStore(await openBackend(t, backend)).tasks, { now: () => now, keepMs: 1000, keepMax: 3 })
    const ids = await records.create(Array.from({ length: 5 }, () => ({ layer: 'ws:l', view: view('pending') })))
    await records.save(ids.map((id) => ({ view: { ...view('done'), id }, finishedAt: now })))
    await records.prune()
    t.same((await Promise.all(ids.map((id) => records.get(id)))).map((r) => r !== undefined), [false, false, true, true, true], 'only the 3 newest finished records stay')
    now += 2000
    await records.prune()
    t.same((await Promise.all(ids.map((id) => records.get(id)))).map((r) => r !== undefined), [false, false, false, false, false], 'and none after keepMs')
    const [again] = await records.create([{ layer: 'ws:l', view: view('pending') }])
    t.ok(again > ids[4], 'the pruned ids are not handed out again')
    await records.prune()
    t.ok(await records.get(again), 'an unfinished record is never pruned')
  })
}
