// Restart and kill -9: what was acknowledged is on disk.
import t from 'tap'
import { spawn } from 'node:child_process'
import { build, ADMIN, ADMIN_PASSWORD, BASE, basic, SERVER, startBuiltServer, tempDir } from '../../helper.js'
import { openDatabase } from '../../../services/storage/sqlite/database.js'


t.test('a workspace created before a restart is there after it', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir, keepOpen: true })
  const res = await first.inject({ method: 'POST', url: `${BASE}/rest/workspaces.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: '{"workspace":{"name":"kept"}}' })
  t.equal(res.statusCode, 201)
  await first.close()
  const second = await build(t, { dataDir })
  const got = await second.inject({ method: 'GET', url: `${BASE}/rest/workspaces/kept.json`, headers: ADMIN })
  t.equal(got.statusCode, 200)
  t.equal(got.json().workspace.name, 'kept')
})


t.test('kill -9 in the middle of a stream of creations keeps every acknowledged workspace', async (t) => {
  const dataDir = tempDir(t)
  const { child, url } = await startBuiltServer(dataDir)
  const acked: string[] = []
  const auth = basic('admin', ADMIN_PASSWORD)
  const exited = new Promise((resolve) => child.on('exit', resolve))
  let killed = false
  const writers = [0, 1, 2, 3].map(async (w) => {
    for (let i = 0; !killed; i++) {
      const name = `ws${w}_${i}`
      try {
        const res = await fetch(`${url}${BASE}/rest/workspaces.json`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ workspace: { name } }) })
        if (res.status === 201) acked.push(name)
        if (acked.length >= 60 && !killed) { killed = true; child.kill('SIGKILL') }
      } catch { return }
    }
  })
  await Promise.all(writers)
  await exited
  t.ok(acked.length >= 60, `${acked.length} creations acknowledged before the kill`)
  const db = openDatabase(dataDir)
  t.teardown(() => db.close())
  t.equal(db.pragma('integrity_check', { simple: true }), 'ok', 'the database opens and is intact')
  const names = new Set(db.prepare('SELECT name FROM workspaces').pluck().all() as string[])
  const missing = acked.filter((n) => !names.has(n))
  t.same(missing, [], 'every workspace answered 201 is in the database')
})

t.test('SIGTERM shuts the standalone server down cleanly', async (t) => {
  const dataDir = tempDir(t)
  const { child, url, output } = await startBuiltServer(dataDir)
  const res = await fetch(`${url}${BASE}/health`)
  t.equal(res.status, 200)
  const code = await new Promise((resolve) => { child.on('exit', resolve); child.kill('SIGTERM') })
  t.equal(code, 0)
  t.match(output(), /shutting down/)
  t.notMatch(output(), new RegExp(ADMIN_PASSWORD), 'the password never reaches the log')
})

t.test('the standalone server refuses a bad setting with a message naming it', async (t) => {
  const child = spawn(process.execPath, [SERVER], { env: { PATH: process.env.PATH, MAPWARDEN_PORT: 'eighty', MAPWARDEN_DATA_DIR: tempDir(t) }, stdio: ['ignore', 'pipe', 'pipe'] })
  let err = ''
  child.stderr.on('data', (d) => { err += d })
  const code = await new Promise((resolve) => child.on('exit', resolve))
  t.equal(code, 2)
  t.match(err, /MAPWARDEN_PORT="eighty"/)
})
