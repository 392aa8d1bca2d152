// Seed task records on a real catalog, SQLite and PostgreSQL: unfinished tasks become ABORTED
// "aborted: restart" on the next start (resuming off), finished records are kept an hour and at
// most keepMax, and ids never repeat across restarts, even after their records were pruned.
import t from 'tap'
import { createTaskRecords, RESTART_REASON } from '../../../services/seed/task-records.js'
import { createSqliteSeedStore } from '../../../services/seed/sqlite-store.js'
import { createPgSeedStore } from '../../../services/seed/pg-store.js'
import { createSqliteJobStore } from '../../../services/storage/sqlite/job-store.js'
import { createClusterSeedStore } from '../../../services/storage/pg/cluster-store.js'
import { BACKENDS, openBackend, reopen, type Opened } from '../../fixtures/backends.js'
import { insertTask } from '../../fixtures/task-rows.js'

const seedStore = (o: Opened) => o.backend === 'pg' ? createPgSeedStore(o.db) : createSqliteSeedStore(o.db)

for (const backend of BACKENDS) {
  t.test(`${backend}: unfinished tasks are ABORTED "aborted: restart" after a restart and ids never repeat`, async (t) => {
    let o = await openBackend(t, backend)
    const a = await insertTask(o, 'pending')
    const b = await insertTask(o, 'running')
    const c = await insertTask(o, 'done', { finishedAt: Date.now() })
    // the process dies; nothing else is written
    o = reopen(t, o)
    const records = createTaskRecords(seedStore(o).tasks)
    // The one abort at start: the job store's, with the jobs (job-breeder.ts start).
    const jobs = o.backend === 'pg' ? createClusterSeedStore(o.db as any) : createSqliteJobStore(o.db as any, () => {})
    t.equal(await jobs.abortUnfinished(RESTART_REASON, Date.now()), 2, 'the pending and the running task')
    t.match(await records.get(a), { state: 'aborted', status: -1, error: RESTART_REASON })
    t.match(await records.get(b), { state: 'aborted', error: RESTART_REASON, etaSeconds: 0 })
    t.match(await records.get(c), { state: 'done', error: undefined })
    t.equal(await records.get(c + 1000), undefined, 'an unknown id')
    const next = await insertTask(o, 'pending')
    t.ok(next > c, `a new id (${next}) after every earlier one`)
  })

  t.test(`${backend}: finished records are pruned after keepMs and beyond keepMax; ids still do not repeat`, async (t) => {
    let now = 1_000_000
    let o = await openBackend(t, backend)
    const ids: number[] = []
    for (let i = 0; i < 5; i++) ids.push(await insertTask(o, 'done', { finishedAt: now }))
    let records = createTaskRecords(seedStore(o).tasks, { now: () => now, keepMs: 1000, keepMax: 3 })
    await records.prune()
    t.same((await Promise.all(ids.map((id) => records.get(id)))).map((r) => r !== undefined), [false, false, true, true, true], 'only the 3 newest finished records stay')
    now += 2000
    await records.prune()
    t.same((await Promise.all(ids.map((id) => records.get(id)))).map((r) => r !== undefined), [false, false, false, false, false], 'and none after keepMs')
    o = reopen(t, o)
    records = createTaskRecords(seedStore(o).tasks, { now: () => now, keepMs: 1000, keepMax: 3 })
    const again = await insertTask(o, 'pending')
    t.ok(again > ids[4], 'the pruned ids are not handed out again, after a restart too')
    await records.prune()
    t.ok(await records.get(again), 'an unfinished record is never pruned')
  })
}
