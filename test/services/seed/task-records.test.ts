// Seed task records on a real SQLite catalog: ids never repeat across restarts (even after their
// records were pruned), unfinished tasks become ABORTED "aborted: restart" on the next start, and
// finished records are kept an hour and at most keepMax.
import t from 'tap'
import { openDatabase } from '../../../services/storage/database.js'
import { createTaskRecords, RESTART_REASON } from '../../../services/seed/task-records.js'
import type { TaskView } from '../../../services/seed/task.js'
import { tempDir } from '../../helper.js'

const view = (state: TaskView['state']): Omit<TaskView, 'id'> => ({
  type: 'seed', layer: 'ws:l', gridSetId: 'EPSG:4326', format: 'image/png', zoomStart: 0, zoomStop: 3, state,
  status: 0, tilesDone: -1, tilesTotal: -1, tilesRemaining: -1, percentDone: -1, tilesPerSecond: 0, etaSeconds: -1
})

t.test('unfinished tasks are ABORTED "aborted: restart" after a restart and ids never repeat', async (t) => {
  const dir = tempDir(t)
  let db = openDatabase(dir)
  let records = createTaskRecords(db)
  const [a, b, c] = records.createAll([{ layer: 'ws:l', view: view('pending') }, { layer: 'ws:l', view: view('pending') }, { layer: 'ws:l', view: view('pending') }])
  records.saveAll([{ view: { ...view('running'), id: b } }])
  records.saveAll([{ view: { ...view('done'), id: c }, finishedAt: Date.now() }])
  db.close() // the process dies; nothing else is written

  db = openDatabase(dir)
  records = createTaskRecords(db)
  t.equal(records.abortUnfinished(), 2, 'the pending and the running task')
  t.match(records.get(a), { state: 'aborted', status: -1, error: RESTART_REASON })
  t.match(records.get(b), { state: 'aborted', error: RESTART_REASON, etaSeconds: 0 })
  t.match(records.get(c), { state: 'done', error: undefined })
  const next = records.create('ws:l', view('pending'))
  t.ok(next > c, `a new id (${next}) after every earlier one`)
  db.close()
})

t.test('finished records are pruned after keepMs and beyond keepMax; ids still do not repeat', async (t) => {
  const dir = tempDir(t)
  const db = openDatabase(dir)
  t.teardown(() => db.close())
  let now = 1_000_000
  const records = createTaskRecords(db, { now: () => now, keepMs: 1000, keepMax: 3 })
  const ids = records.createAll(Array.from({ length: 5 }, () => ({ layer: 'ws:l', view: view('pending') })))
  records.saveAll(ids.map((id) => ({ view: { ...view('done'), id }, finishedAt: now })))
  records.prune()
  t.same(ids.map((id) => records.get(id) !== undefined), [false, false, true, true, true], 'only the 3 newest finished records stay')
  now += 2000
  records.prune()
  t.same(ids.map((id) => records.get(id) !== undefined), [false, false, false, false, false], 'and none after keepMs')
  const again = records.create('ws:l', view('pending'))
  t.ok(again > ids[4], 'the pruned ids are not handed out again')
  records.prune()
  t.ok(records.get(again), 'an unfinished record is never pruned')
})
