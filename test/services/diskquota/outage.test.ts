// Tile usage recorded while the usage store is away for a while, on a real store made unavailable
// for real: PostgreSQL stopped and started (a private server), SQLite locked by another connection
// (SQLITE_BUSY). A flush the database refuses keeps its events; the flush once it is back records
// them, so usage equals what the events did, to the byte. Closing while it never comes back ends.
import t from 'tap'
import { createUsageRecorder, type UsageRecorder } from '../../../services/diskquota/usage-recorder.js'
import { createPgQuotaStore } from '../../../services/diskquota/pg-quota-store.js'
import { createSqliteQuotaStore } from '../../../services/diskquota/sqlite-quota-store.js'
import type { QuotaStore } from '../../../services/diskquota/quota-store.js'
import type { TileEvent } from '../../../services/tilecache/blob-store.js'
import { openDatabase } from '../../../services/storage/sqlite/database.js'
import { connectPg, migratePg } from '../../../services/storage/pg/database.js'
import { PG_MIGRATIONS } from '../../../services/storage/pg/schema.js'
import { privatePgServer } from '../../fixtures/pg.js'
import { tempDir, type TestLike } from '../../helper.js'

const BLOCK = 4096
const L = 'ws:roads'

interface Unavailable { store: QuotaStore, down (): Promise<void>, up (): Promise<void> }

/** A PostgreSQL usage store on a server of the test's own: down stops the server, up starts it. */
async function pgStore (t: TestLike): Promise<Unavailable> {
  const server = await privatePgServer(t)
  const db = connectPg(server.url, { connectionTimeoutMs: 1000 })
  t.teardown(() => db.close())
  await migratePg(db, PG_MIGRATIONS)
  return { store: createPgQuotaStore(db), down: () => server.stop(), up: () => server.start() }
}

/** A SQLite usage store: down takes the write lock from another connection (no busy wait), up commits. */
async function sqliteStore (t: TestLike): Promise<Unavailable> {
  const dir = tempDir(t)
  const db = openDatabase(dir)
  const other = openDatabase(dir)
  t.teardown(() => { other.close(); db.close() })
  db.pragma('busy_timeout = 0') // SQLITE_BUSY at once rather than after 5 s of a blocked event loop
  return { store: createSqliteQuotaStore(db), down: async () => { other.exec('BEGIN IMMEDIATE') }, up: async () => { other.exec('COMMIT') } }
}

/** Tile events and, beside, what they leave on disk: sizes by tile (the expected usage). */
function tiles () {
  const disk = new Map<string, number>()
  const reads: string[] = []
  const key = (z: number, x: number, y: number): TileEvent => ({ layer: L, gridSet: 'EPSG:4326', format: 'image/png', parameterId: 'default', z, x, y, bytes: 0 })
  const id = (e: TileEvent) => `${e.z}/${e.x}/${e.y}`
  return {
    write (r: UsageRecorder, z: number, x: number, y: number, bytes: number) {
      const e = key(z, x, y)
      r.written({ ...e, bytes, replacedBytes: disk.get(id(e)) })
      disk.set(id(e), bytes)
    },
    delete (r: UsageRecorder, z: number, x: number, y: number) {
      const e = key(z, x, y)
      r.deleted({ ...e, bytes: disk.get(id(e))! })
      disk.delete(id(e))
    },
    read (r: UsageRecorder, z: number, x: number, y: number) {
      const e = key(z, x, y)
      r.read({ ...e, bytes: disk.get(id(e))! })
      reads.push(id(e))
    },
    expected: () => ({
      tiles: disk.size,
      bytes: [...disk.values()].reduce((n, b) => n + Math.ceil(b / BLOCK) * BLOCK, 0),
      hits: reads.length
    })
  }
}

async function recorded (store: QuotaStore) {
  const sets = await store.tileSets()
  const pages = await store.leastRecentlyUsed({ except: [] }, 10_000)
  return { tiles: sets.reduce((n, s) => n + s.tiles, 0), bytes: sets.reduce((n, s) => n + s.bytes, 0), hits: pages.reduce((n, p) => n + p.hits, 0) }
}

const cases = { pg: pgStore, sqlite: sqliteStore }

for (const [backend, open] of Object.entries(cases)) {
  t.test(`${backend}: events whose flush the database refused are recorded once it is back, in order, exactly`, async (t) => {
    const { store, down, up } = await open(t)
    const logs: Array<{ obj: object, msg: string }> = []
    const log = { info: (obj: object, msg: string) => { logs.push({ obj, msg }) }, warn: (obj: object, msg: string) => { logs.push({ obj, msg }) } }
    let ms = Date.UTC(2026, 0, 1)
    const r = createUsageRecorder({ store, coverage: async () => undefined, blockSize: () => BLOCK, now: () => ms++, log })
    const ev = tiles()
    for (let x = 0; x < 8; x++) for (let y = 0; y < 4; y++) ev.write(r, 3, x, y, 1000 + 300 * x + y)
    await r.flush()
    t.same(await recorded(store), ev.expected(), 'recorded while the database answers')

    // Writes, overwrites, deletes and reads at a level seen already and at a new one (its page
    // geometry is read and saved in the flush too).
    for (let x = 0; x < 8; x++) ev.write(r, 3, x, 0, 9000 + x)
    for (let y = 0; y < 4; y++) ev.delete(r, 3, 7, y)
    for (let x = 0; x < 16; x++) for (let y = 0; y < 3; y++) ev.write(r, 4, x, y, 5000 + 7 * x * y)
    for (let x = 0; x < 6; x++) ev.read(r, 3, x, 1)
    await down()
    await r.flush() // refused
    t.equal(r.pending(), 8 + 4 + 48 + 6, 'the refused events are kept')
    ev.delete(r, 4, 0, 0) // the tile the kept write of 4/0/0 made: folded after it, as it happened
    ev.write(r, 4, 0, 0, 123)
    ev.read(r, 4, 0, 0)
    await r.flush() // refused again: kept in front of the newer events
    t.equal(r.pending(), 8 + 4 + 48 + 6 + 3)
    t.equal(logs.filter((l) => l.msg === 'disk quota: the usage store is unavailable; tile usage is kept until it is back').length, 1, 'said once per outage')
    t.notOk(logs.some((l) => l.msg === 'disk quota: could not record tile usage'), 'nothing dropped')

    await up()
    await r.flush()
    t.equal(r.pending(), 0)
    t.same(await recorded(store), ev.expected(), 'usage is what the events did, none lost, none twice')
    t.ok(logs.some((l) => l.msg === 'disk quota: the usage store is back; the tile usage kept meanwhile is recorded'))
    t.equal(r.lost(), 0)
    await r.close()
  })

  t.test(`${backend}: closing while the database stays away ends, and says what was not recorded`, async (t) => {
    const { store, down, up } = await open(t)
    const logs: Array<{ obj: object, msg: string }> = []
    const log = { warn: (obj: object, msg: string) => { logs.push({ obj, msg }) } }
    const r = createUsageRecorder({ store, coverage: async () => undefined, blockSize: () => BLOCK, now: () => Date.UTC(2026, 0, 1), log })
    const ev = tiles()
    await down()
    for (let x = 0; x < 5; x++) ev.write(r, 2, x, 0, 100)
    ev.read(r, 2, 0, 0)
    await r.flush()
    await r.close()
    t.equal(r.lost(), 5, 'the writes are counted as lost')
    t.equal(r.pending(), 0)
    t.match(logs.at(-1), { obj: { events: 6, writesAndDeletes: 5 }, msg: /not recorded at shutdown/ })
    await up()
  })
}

t.test('memory stays bounded while the database is away: reads are dropped first, then the oldest writes, logged and counted', async (t) => {
  const { store, down, up } = await sqliteStore(t) // the bound is the recorder's: one backend shows it
  const logs: Array<{ obj: object, msg: string }> = []
  const log = { warn: (obj: object, msg: string) => { logs.push({ obj, msg }) } }
  const r = createUsageRecorder({ store, coverage: async () => undefined, blockSize: () => BLOCK, now: () => Date.UTC(2026, 0, 1), log, maxKept: 10 })
  const ev = tiles()
  await down()
  for (let x = 0; x < 6; x++) ev.write(r, 2, x, 0, 100)
  for (let x = 0; x < 4; x++) ev.read(r, 2, x, 0)
  await r.flush()
  t.equal(r.pending(), 10, 'all kept up to the bound')
  r.read({ layer: L, gridSet: 'EPSG:4326', format: 'image/png', parameterId: 'default', z: 2, x: 0, y: 0, bytes: 100 })
  t.equal(r.pending(), 10, 'a read past the bound is not queued')
  for (let x = 6; x < 8; x++) ev.write(r, 2, x, 0, 100)
  ev.write(r, 3, 0, 0, 100)
  await r.flush()
  t.equal(r.pending(), 10)
  t.match(logs.at(-1), { obj: { reads: 3, writesAndDeletes: 0, kept: 10 }, msg: 'disk quota: tile reads dropped while the usage store is unavailable' })
  for (let x = 1; x < 4; x++) ev.write(r, 3, x, 0, 100)
  await r.flush()
  t.match(logs.at(-1), { obj: { reads: 1, writesAndDeletes: 2, kept: 10 }, msg: /^disk quota: tile usage dropped while the usage store is unavailable/ })
  t.equal(r.lost(), 2)
  await up()
  await r.flush()
  const all = ev.expected()
  t.same(await recorded(store), { tiles: all.tiles - 2, bytes: all.bytes - 2 * BLOCK, hits: 0 }, 'the ten newest writes are recorded')
  t.same((await store.leastRecentlyUsed({ except: [] }, 100)).filter((p) => p.z === 2).reduce((n, p) => n + p.tiles, 0), 6, 'the two oldest (zoom 2) went')
})
