// One server per data directory: a second start on a directory a live server holds is refused
// (message naming the directory and the holder's pid) before it recovers anything, so the live
// server's temp files and tasks are untouched; kill -9 of the holder leaves no stale lock.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { makeEnv, start, kill, http } from '../../../crash/harness.js'
import { build, tempDir, TEST_BACKEND } from '../../../helper.js'

t.test('a second server on the same data directory is refused; kill -9 leaves no stale lock', async (t) => {
  const env = makeEnv('mw-lock')
  t.teardown(env.cleanup)
  const first = await start(env)
  t.teardown(() => kill(first))
  // Something the live server has in flight: an upload being received.
  const inFlight = path.join(env.dataDir, 'tmp', 'uploads', 'live-upload')
  fs.mkdirSync(path.dirname(inFlight), { recursive: true })
  fs.writeFileSync(inFlight, 'half an upload')

  const second = await start(env).then(() => undefined, (err: Error) => err)
  t.ok(second, 'the second start fails')
  t.match(second!.message, /server exited \(1\) before listening/)
  t.match(second!.message, new RegExp(`mapwarden: failed to start: The data directory ${env.dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by another mapwarden process \\(pid ${first.child.pid}\\)`))
  t.ok(fs.existsSync(inFlight), "the live server's temp files are untouched")
  t.equal((await http(first, 'GET', '/health')).status, 200, 'the first server still answers')

  await kill(first)
  const third = await start(env)
  t.teardown(() => kill(third))
  t.equal((await http(third, 'GET', '/health')).status, 200, 'after kill -9 the directory can be used at once')
})

t.test('two apps in one host on one data directory: on SQLite the second registration fails and the first keeps working; on PostgreSQL they are two instances of one cluster', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir })
  if (TEST_BACKEND === 'pg') {
    // Instances sharing the database share the data directory by design (docker-compose.cluster.yml).
    const second = await build(t, { dataDir })
    t.equal((await second.inject({ method: 'GET', url: '/geoserver/health' })).statusCode, 200)
  } else {
    const err = await build(t, { dataDir }).then(() => undefined, (e: Error) => e)
    t.match(err?.message, /^The data directory .+ is in use by another mapwarden process \(pid \d+\)/)
  }
  t.equal((await first.inject({ method: 'GET', url: '/geoserver/health' })).statusCode, 200)
})

t.test('a port in use names MAPWARDEN_PORT', async (t) => {
  const env = makeEnv('mw-port')
  t.teardown(env.cleanup)
  const first = await start(env)
  t.teardown(() => kill(first))
  const port = new URL(first.url).port
  const other = makeEnv('mw-port2')
  t.teardown(other.cleanup)
  const err = await start(other, undefined, { MAPWARDEN_PORT: port }).then(() => undefined, (e: Error) => e)
  t.match(err?.message, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use: stop what listens there, or choose another MAPWARDEN_PORT`))
})

t.test('first-start messages: an empty tile cache says so; MAPWARDEN_ADMIN_PASSWORD on a directory with users is ignored aloud', async (t) => {
  const env = makeEnv('mw-first')
  t.teardown(env.cleanup)
  const first = await start(env)
  // The usage rebuild logs after the server listens: wait for its line (bounded).
  for (let i = 0; i < 100 && !/disk quota: (the tile cache is empty|usage rebuilt)/.test(first.output()); i++) await http(first, 'GET', '/health')
  t.match(first.output(), /disk quota: the tile cache is empty/)
  t.notMatch(first.output(), /usage rebuilt from the tiles on disk/)
  await kill(first)
  const second = await start(env, undefined, { MAPWARDEN_ADMIN_PASSWORD: 'another-password-canary' })
  t.teardown(() => kill(second))
  t.match(second.output(), /MAPWARDEN_ADMIN_PASSWORD is ignored: this data directory has users already\. Change a password through the users resource: curl .+ -X POST .+\/geoserver\/rest\/security\/usergroup\/user\/admin/)
  t.notMatch(second.output(), /another-password-canary/, 'the ignored password is not logged')
  t.equal((await http(second, 'GET', '/rest/workspaces.json')).status, 200, 'the first password still works')
})
