// Seeding survives kill -9 (issue 22): the BUILT server is killed by SIGKILL in the middle of a
// seed (by itself, at the `tile.afterRename` fault point of a render worker's tile writes, so the
// moment does not depend on timing), restarted on the same data directory with resuming on (the
// default), and the tasks come back with their ids and end DONE with the exact tile count on disk.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { BASE, PASSWORD, http, kill, makeEnv, mosaicZip, start, type Server } from './harness.js'

t.setTimeout(300_000)

const RESUME = { MAPWARDEN_RESUME_TASKS: 'true', MAPWARDEN_TASK_SLOTS: '1' }

function tiles (dir: string): number {
  if (!fs.existsSync(dir)) return 0
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length
}

/** Polls the task resources until every one has ended (the server works; nothing here waits on a clock). */
async function ended (s: Server, ids: number[]): Promise<any[]> {
  for (;;) {
    const views = await Promise.all(ids.map(async (id) => (await http(s, 'GET', `/gwc/rest/seed/tasks/${id}.json`)).json().task))
    if (views.every((v) => v.state === 'done' || v.state === 'aborted')) return views
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

t.test('kill -9 mid-seed, then a restart: the same tasks resume and end with the exact tile count', async (t) => {
  const env = makeEnv('mw-resume')
  t.teardown(env.cleanup)
  let s = await start(env, undefined, RESUME)
  t.teardown(() => { if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL') })
  let res = await http(s, 'POST', '/rest/workspaces', JSON.stringify({ workspace: { name: 'crash' } }), 'application/json')
  t.equal(res.status, 201)
  res = await http(s, 'PUT', '/rest/workspaces/crash/coveragestores/world/file.imagemosaic', await mosaicZip(0, 4), 'application/zip')
  t.equal(res.status, 200, res.text)
  await kill(s)

  // Killed by itself at the 120th tile it writes, while the seed runs.
  s = await start(env, 'tile.afterRename@120', RESUME)
  // The task ids come from the POST's Link headers (the server may die right after answering).
  const post = await fetch(`${s.url}${BASE}/gwc/rest/seed/crash:world.json`, {
    method: 'POST',
    headers: { authorization: 'Basic ' + Buffer.from(`admin:${PASSWORD}`).toString('base64'), 'content-type': 'application/json' },
    body: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 7, type: 'seed', threadCount: 2 } })
  })
  t.equal(post.status, 200)
  const ids = [...(post.headers.get('link') ?? '').matchAll(/tasks\/(\d+)\.json/g)].map((m) => Number(m[1]))
  t.equal(ids.length, 2)
  const exit = await s.exited
  t.equal(exit.signal, 'SIGKILL', 'the server died at the fault point')
  const dir = path.join(env.dataDir, 'tiles/crash/world/EPSG_4326/png/default')
  const before = tiles(dir)
  t.ok(before >= 120, `${before} tiles written before the kill`)

  s = await start(env, undefined, RESUME)
  const listed = (await http(s, 'GET', '/gwc/rest/seed.json')).json()['long-array-array'] as number[][]
  t.ok(listed.every((r) => ids.includes(r[3])), 'only the tasks of the killed run are listed, with their ids')
  const views = await ended(s, ids)
  for (const v of views) t.match(v, { state: 'done', status: 2, tilesRemaining: 0, tilesTotal: v.tilesDone })
  const total = views[0].request.tilesTotal
  t.equal(views[0].tilesDone + views[1].tilesDone, total, 'tiles already on disk counted as done')
  t.equal(tiles(dir), total, 'every tile of the range on disk, exactly the range')
  t.ok(total > before, 'the resumed tasks wrote the rest')
  res = await http(s, 'POST', '/gwc/rest/seed/crash:world.json', JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 0, type: 'seed' } }), 'application/json')
  const newest = ((await http(s, 'GET', '/gwc/rest/seed.json')).json()['long-array-array'] as number[][]).map((r) => r[3])
  t.ok(newest.every((id) => id > Math.max(...ids)), 'ids never repeat')
  await ended(s, newest)
  await kill(s)
})
