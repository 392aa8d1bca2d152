// POST {base}/rest/reload re-reads what mapwarden keeps in memory from the store (the workspace
// list, the global settings, credentials, rules...), on every instance of a shared database;
// POST rest/reset drops the in-memory caches. Rows written behind the app's back stand for a
// change the app did not make itself (a restore, another tool).
import t from 'tap'
import { build, ADMIN, BASE, TEST_BACKEND, tempDir } from '../../helper.js'
import { addWorkspace, appRun, withAppDb } from '../../fixtures/catalog-rows.js'

const REST = `${BASE}/rest`
const names = (body: string): string[] => { const l = JSON.parse(body).workspaces; return l === '' ? [] : l.workspace.map((w: { name: string }) => w.name) }
const storedSettings = (numDecimals: number) => JSON.stringify({ settings: { contact: {}, charset: 'UTF-8', numDecimals, verbose: false, verboseExceptions: false }, updateSequence: 7 })

t.test('POST rest/reload re-reads the workspace list and the global settings from the store', async (t) => {
  const app = await build(t)
  // Written behind the app's back from the start: on PostgreSQL the app hears its own announcements,
  // which would empty its list at a moment of their choosing.
  await withAppDb(app, async (o) => await addWorkspace(o, 'a'))
  t.same(names((await app.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })).body), ['a'])
  await withAppDb(app, async (o) => await addWorkspace(o, 'b'))
  await appRun(app, 'INSERT INTO global_settings (id, body, updated_at) VALUES ($1, $2, $3)', ['global', storedSettings(3), new Date().toISOString()])
  t.same(names((await app.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })).body), ['a'], 'the list kept in memory')
  t.equal((await app.inject({ url: `${REST}/settings.json`, headers: ADMIN })).json().global.settings.numDecimals, 8, 'the settings kept in memory')

  let res = await app.inject({ method: 'POST', url: `${REST}/reload` })
  t.equal(res.statusCode, 401, 'admin only')
  res = await app.inject({ method: 'POST', url: `${REST}/reload`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '')
  t.same(names((await app.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })).body), ['a', 'b'])
  res = await app.inject({ url: `${REST}/settings.json`, headers: ADMIN })
  t.equal(res.body, '{"global":{"settings":{"contact":{},"charset":"UTF-8","numDecimals":3,"verbose":false,"verboseExceptions":false},"updateSequence":7}}')

  // PUT answers the same, as GeoServer.
  await withAppDb(app, async (o) => await addWorkspace(o, 'c'))
  res = await app.inject({ method: 'PUT', url: `${REST}/reload`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.same(names((await app.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })).body), ['a', 'b', 'c'])
})

t.test('POST rest/reset drops the in-memory caches', async (t) => {
  const app = await build(t)
  t.same(names((await app.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })).body), [])
  await withAppDb(app, async (o) => await addWorkspace(o, 'x'))
  t.same(names((await app.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })).body), [], 'the list kept in memory')
  let res = await app.inject({ method: 'POST', url: `${REST}/reset` })
  t.equal(res.statusCode, 401, 'admin only')
  res = await app.inject({ method: 'POST', url: `${REST}/reset`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '')
  t.same(names((await app.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })).body), ['x'])
  for (const method of ['GET', 'DELETE'] as const) {
    res = await app.inject({ method, url: `${REST}/reset`, headers: ADMIN })
    t.equal(res.statusCode, 405, 'POST and PUT only')
    t.equal(res.body, `Request method ${method} not supported`)
  }
})

t.test('a reload on one instance of a shared database makes every instance re-read', { skip: TEST_BACKEND !== 'pg' && 'PostgreSQL only (MAPWARDEN_TEST_BACKEND=pg)' }, async (t) => {
  const dataDir = tempDir(t)
  const one = await build(t, { dataDir })
  const two = await build(t, { dataDir })
  t.equal((await two.inject({ url: `${REST}/settings.json`, headers: ADMIN })).json().global.settings.numDecimals, 8)
  t.same(names((await two.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })).body), [])
  await withAppDb(one, async (o) => await addWorkspace(o, 'restored'))
  await new Promise((resolve) => setTimeout(resolve, 300))
  t.same(names((await two.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })).body), [], 'nothing announced yet')
  await appRun(one, 'INSERT INTO global_settings (id, body, updated_at) VALUES ($1, $2, $3)', ['global', storedSettings(2), new Date().toISOString()])
  t.equal((await one.inject({ method: 'POST', url: `${REST}/reload`, headers: ADMIN })).statusCode, 200)
  // The other instance hears of it on the change bus.
  const until = Date.now() + 60_000
  while (two.globalSettings.get().settings.numDecimals !== 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50))
  t.equal((await two.inject({ url: `${REST}/settings.json`, headers: ADMIN })).json().global.settings.numDecimals, 2)
  t.same(names((await two.inject({ url: `${REST}/workspaces.json`, headers: ADMIN })).body), ['restored'])
})
