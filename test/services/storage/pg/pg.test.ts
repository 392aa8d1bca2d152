import t from 'tap'
import { connectPg, ifFirst, migratePg } from '../../../../services/storage/pg/database.js'
import { isConnectionError } from '../../../../services/errors.js'
import { createChangeBus, type Change } from '../../../../services/storage/pg/change-bus.js'
import { PG_MIGRATIONS } from '../../../../services/storage/pg/schema.js'
import { migratedPg, pgDatabase, privatePgServer, terminateConnections } from '../../../fixtures/pg.js'
import { createNodeRegistry } from '../../../../services/storage/pg/nodes.js'
import { openWorkQueue } from '../../../../services/storage/pg/work-queue.js'
import { until } from '../../../fixtures/cluster.js'
import { spawnSync } from 'node:child_process'
import os from 'node:os'

const MIGRATIONS = [
  { id: 'test/001-counter', sql: 'CREATE TABLE counter (id INT PRIMARY KEY, n INT NOT NULL); INSERT INTO counter VALUES (1, 0)' },
  { id: 'test/002-notes', sql: 'CREATE TABLE notes (text TEXT NOT NULL)' }
]

t.test('migrations: four nodes starting at once apply each migration exactly once', async (t) => {
  const url = await pgDatabase(t)
  const dbs = [1, 2, 3, 4].map(() => connectPg(url))
  t.teardown(() => Promise.all(dbs.map((d) => d.close())))
  const applied = await Promise.all(dbs.map((d) => migratePg(d, MIGRATIONS)))
  t.same(applied.flat().sort(), MIGRATIONS.map((m) => m.id), 'each id applied by one node')
  t.same((await dbs[0].query('SELECT n FROM counter')).rows, [{ n: 0 }], 'the seed row inserted once')
  t.same(await migratePg(dbs[1], MIGRATIONS), [], 'nothing left on a restart')
})

t.test('transactions: serializable read-modify-writes from two nodes conflict and are retried, none lost', async (t) => {
  const url = await pgDatabase(t)
  const a = connectPg(url)
  const b = connectPg(url)
  t.teardown(async () => { await a.close(); await b.close() })
  await migratePg(a, MIGRATIONS)
  const bump = (db: typeof a) => db.transaction(async (c) => {
    const n = (await c.query<{ n: number }>('SELECT n FROM counter WHERE id = 1')).rows[0].n
    await new Promise((resolve) => setTimeout(resolve, 2)) // widen the window
    await c.query('UPDATE counter SET n = $1 WHERE id = 1', [n + 1])
  }, { serializable: true })
  await Promise.all(Array.from({ length: 20 }, (_, i) => bump(i % 2 ? a : b)))
  t.same((await a.query('SELECT n FROM counter')).rows, [{ n: 20 }])
})

t.test('transactions: a failure rolls back every statement of the unit', async (t) => {
  const url = await pgDatabase(t)
  const db = connectPg(url)
  t.teardown(() => db.close())
  await migratePg(db, MIGRATIONS)
  await t.rejects(db.transaction(async (c) => {
    await c.query("INSERT INTO notes VALUES ('kept?')")
    await c.query('INSERT INTO notes VALUES (NULL)')
  }), { code: '23502' })
  t.same((await db.query('SELECT count(*)::int AS n FROM notes')).rows, [{ n: 0 }])
})

t.test('change bus: a committed change reaches every node, a rolled-back one none', async (t) => {
  const url = await pgDatabase(t)
  const db = connectPg(url)
  await migratePg(db, MIGRATIONS)
  const a = await createChangeBus(url)
  const b = await createChangeBus(url)
  t.teardown(async () => { await a.close(); await b.close(); await db.close() })
  const seenA: Array<Change | 'resync'> = []
  const seenB: Array<Change | 'resync'> = []
  a.subscribe((c) => seenA.push(c))
  b.subscribe((c) => seenB.push(c))
  await db.transaction(async (c) => {
    await c.query("INSERT INTO notes VALUES ('x')")
    await a.announce(c, { topic: 'rules', key: 'topp.*.r' })
    await new Promise((resolve) => setTimeout(resolve, 50))
    t.same(seenB, [], 'nothing before the commit')
  })
  await t.rejects(db.transaction(async (c) => {
    await a.announce(c, { topic: 'users', key: 'bob' })
    throw new Error('abandoned')
  }))
  await until('both nodes heard the change', async () => seenA.length > 0 && seenB.length > 0)
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.same(seenA, [{ topic: 'rules', key: 'topp.*.r' }])
  t.same(seenB, [{ topic: 'rules', key: 'topp.*.r' }])
})

t.test('change bus: a listener whose connection was killed reconnects and asks for a full re-read', async (t) => {
  const url = await pgDatabase(t)
  const db = connectPg(url)
  const bus = await createChangeBus(url, { retryMs: 20 })
  t.teardown(async () => { await bus.close(); await db.close() })
  const seen: Array<Change | 'resync'> = []
  bus.subscribe((c) => seen.push(c))
  t.equal(await terminateConnections(url, 'mapwarden-listener'), 1)
  await until('the listener asked for a re-read', async () => seen.includes('resync'))
  await db.transaction((c) => bus.announce(c, { topic: 'styles' }))
  await until('the next change reached it', async () => seen.length === 2)
  t.same(seen, ['resync', { topic: 'styles' }], 'resync, then changes flow again')
})

t.test('a database that does not answer is recognised as unavailable', async (t) => {
  const db = connectPg('postgres://postgres@127.0.0.1:1/none', { connectionTimeoutMs: 500 })
  t.teardown(() => db.close())
  const err = await db.query('SELECT 1').catch((e: unknown) => e)
  t.ok(isConnectionError(err), String(err))
  t.notOk(isConnectionError(Object.assign(new Error('duplicate key'), { code: '23505' })))
})

t.test('schema: every area\'s tables apply on PostgreSQL, with PostGIS footprints where the extension is installed and box footprints where it is not', async (t) => {
  for (const postgis of [true, false]) {
    const url = await pgDatabase(t, { postgis })
    const db = connectPg(url)
    t.teardown(() => db.close())
    const applied = await migratePg(db, postgis ? PG_MIGRATIONS : PG_MIGRATIONS.map((m) => m.id === 'pg/002-footprints' ? { ...m, sql: m.sql.replace('CREATE EXTENSION IF NOT EXISTS postgis;', "RAISE EXCEPTION 'no postgis here';") } : m))
    t.same(applied, PG_MIGRATIONS.map((m) => m.id))
    const tables = (await db.query<{ t: string }>("SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1")).rows.map((r) => r.t)
    for (const name of ['workspaces', 'stores', 'resources', 'layers', 'users', 'roles', 'user_roles', 'security_rules', 'security_settings', 'styles', 'style_file_intents', 'mosaic_stores', 'mosaic_granules', 'seed_tasks', 'tile_layer_settings', 'tile_parameter_sets', 'tile_drops', 'dq_config', 'dq_pages', 'dq_tilesets', 'dq_page_geometry', 'dq_state']) {
      t.ok(tables.includes(name), `${name} (${postgis ? 'PostGIS' : 'box'})`)
    }
    const footprint = (await db.query("SELECT data_type FROM information_schema.columns WHERE table_name = 'mosaic_granules' AND column_name = 'footprint'")).rows
    t.same(footprint.length, postgis ? 1 : 0, postgis ? 'a geometry footprint column' : 'no geometry column')
    // A granule inserted and found through the footprint index in either shape.
    await db.query("INSERT INTO workspaces (name, name_key, namespace_uri, isolated, created_at) VALUES ('w', 'w', 'urn:w', 0, 'now')")
    await db.query("INSERT INTO stores (workspace, name, name_key, kind, type, created_at) VALUES ('w', 's', 's', 'coverage', 'ImageMosaic', 'now')")
    await db.query("INSERT INTO mosaic_stores VALUES ('w', 's', '/d', 's', 'EPSG:4326', '{}')")
    await db.query("INSERT INTO mosaic_granules (workspace, store, seq, location, path, crs, minx, miny, maxx, maxy, width, height, bands, data_type, ranges, attrs) VALUES ('w', 's', 1, 'a.tif', '/d/a.tif', 'EPSG:4326', 0, 40, 10, 50, 8, 8, 3, 'Byte', '[]', '{}')")
    const hit = postgis
      ? "SELECT seq FROM mosaic_granules WHERE footprint && ST_MakeEnvelope(5, 45, 6, 46)"
      : "SELECT seq FROM mosaic_granules WHERE box(point(minx, miny), point(maxx, maxy)) && box(point(5, 45), point(6, 46))"
    t.same((await db.query(hit)).rows, [{ seq: 1 }])
    // Names that fold alike are one name, whatever the server's collation.
    await t.rejects(db.query("INSERT INTO workspaces (name, name_key, namespace_uri, isolated, created_at) VALUES ('W', 'w', 'urn:W', 0, 'now')"), { code: '23505' })
    const big = (await db.query<{ n: number }>('SELECT 9007199254740991::bigint AS n')).rows[0].n
    t.equal(big, Number.MAX_SAFE_INTEGER, 'BIGINT reads as a number')
  }
})

t.test('nodes: the first to start is alone; later ones see it until it stops or goes silent', async (t) => {
  const { db } = await migratedPg(t)
  const a = createNodeRegistry(db, { heartbeatMs: 50, deadAfterMs: 1000 })
  const b = createNodeRegistry(db, { heartbeatMs: 50, deadAfterMs: 1000 })
  t.teardown(async () => { await a.close(); await b.close() })
  t.equal(await a.startup(async (alone) => alone), true, 'an empty cluster: alone')
  t.equal(await b.startup(async (alone) => alone), false, 'a live node: not alone')
  t.same((await a.live()).map((n) => n.id), [a.id, b.id], 'both live, by start time')
  await b.close()
  t.same((await a.live()).map((n) => n.id), [a.id], 'a stopped node leaves at once')
  await a.close()
  // A node killed with SIGKILL stops its heartbeat: once silent for deadAfterMs it is not live.
  await db.query("INSERT INTO cluster_nodes (id, host, pid, started_at, seen_at) VALUES ('silent', 'elsewhere', 1, now(), now() - interval '2 seconds')")
  const c = createNodeRegistry(db, { heartbeatMs: 50, deadAfterMs: 1000 })
  t.teardown(() => c.close())
  t.equal(await c.startup(async (alone) => alone), true, 'a silent node is dead')
})

t.test('nodes: a node of this host whose process is gone is dead at once', async (t) => {
  const { db } = await migratedPg(t)
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString()
  await db.query('INSERT INTO cluster_nodes (id, host, pid, started_at, seen_at) VALUES ($1, $2, $3, now(), now())', ['gone', os.hostname(), Number(dead)])
  await db.query("INSERT INTO cluster_nodes (id, host, pid, started_at, seen_at) VALUES ('other-host', 'elsewhere', $1, now(), now())", [Number(dead)])
  const n = createNodeRegistry(db)
  t.teardown(() => n.close())
  t.same((await n.live()).map((x) => x.id), ['other-host'], 'the same pid on another host is not ours to judge')
})

t.test('nodes: two nodes starting at once run their start-ups one after the other', async (t) => {
  const { db } = await migratedPg(t)
  const nodes = [0, 1, 2].map(() => createNodeRegistry(db))
  t.teardown(() => Promise.all(nodes.map((n) => n.close())))
  let inside = 0
  let most = 0
  const alone = await Promise.all(nodes.map((n) => n.startup(async (a) => {
    most = Math.max(most, ++inside)
    await new Promise((resolve) => setTimeout(resolve, 20))
    inside--
    return a
  })))
  t.equal(most, 1, 'never two start-ups at once')
  t.same(alone.filter(Boolean).length, 1, 'exactly one was alone')
})

t.test('ifFirst: one holder of a cluster-wide lock at a time; the others skip, and it is free again after', async (t) => {
  const { url, db } = await migratedPg(t)
  const other = connectPg(url)
  t.teardown(() => other.close())
  let release!: () => void
  const held = new Promise<void>((resolve) => { release = resolve })
  const first = ifFirst(db, 'quotaCleanup', async () => { await held; return 'first' })
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.equal(await ifFirst(other, 'quotaCleanup', async () => 'second'), undefined, 'skipped while held elsewhere')
  release()
  t.equal(await first, 'first')
  t.equal(await ifFirst(other, 'quotaCleanup', async () => 'third'), 'third', 'free once released')
  await t.rejects(ifFirst(db, 'quotaCleanup', async () => { throw new Error('boom') }), /boom/)
  t.equal(await ifFirst(other, 'quotaCleanup', async () => 'fourth'), 'fourth', 'released after a failure too')
})

t.test('a pool outlives a database restart: unavailable while it is down, answering again once it is up', async (t) => {
  const server = await privatePgServer(t)
  const db = connectPg(server.url, { connectionTimeoutMs: 1000 })
  t.teardown(() => db.close())
  t.same((await db.query('SELECT 1 AS one')).rows, [{ one: 1 }])
  await server.stop()
  const err = await db.query('SELECT 1').catch((e: unknown) => e)
  t.ok(isConnectionError(err), `down: ${String(err)}`)
  await server.start()
  t.same((await db.query('SELECT 1 AS one')).rows, [{ one: 1 }], 'the same pool answers after the restart')
})

t.test('work queue: jobs ending while the database is down are completed or failed once it is back, and the failed one is run again', async (t) => {
  const server = await privatePgServer(t)
  const db = connectPg(server.url, { connectionTimeoutMs: 1000 })
  t.teardown(() => db.close())
  const refused: Error[] = []
  const queue = await openWorkQueue<{ n: number }>(db, 'restart-test', { onError: (err) => { if (isConnectionError(err)) refused.push(err) } })
  t.teardown(() => queue.stop())
  await db.transaction((c) => queue.add(c, [{ n: 1 }, { n: 2 }]))
  const runs = [0, 0, 0]
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  await queue.work(2, async ({ n }) => {
    runs[n]++
    await gate
    if (n === 2 && runs[n] === 1) throw new Error('the first run of job 2 fails')
  })
  await until('both jobs are in hand', async () => runs[1] === 1 && runs[2] === 1)
  // A fast shutdown, then both handlers end: neither the completion nor the failure can be recorded
  // (pg-boss's own workers would reject them unheard, ending the process).
  await server.stop()
  release()
  await until('both ends were refused', async () => refused.length >= 2)
  await server.start()
  const states = async () => (await db.query<{ n: string, state: string }>("SELECT data->>'n' AS n, state FROM pgboss.job WHERE name = 'restart-test' ORDER BY 1")).rows
  await until('both jobs are completed', async () => (await states()).every((r) => r.state === 'completed'), 120)
  t.same(await states(), [{ n: '1', state: 'completed' }, { n: '2', state: 'completed' }])
  t.same(runs.slice(1), [1, 2], 'the completed job ran once; the failed one was run again')
})
