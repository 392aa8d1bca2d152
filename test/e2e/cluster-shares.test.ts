// Task shares that add up on a two-node cluster (issue 31, item 5): a seed posted to one node is
// rendered by both, and whichever node is asked, each task keeps its part of the request, the
// parts add up to the request's total and the counts to its done: while it runs, once it is done,
// and after a kill_all posted to the other node.
import t from 'tap'
import { startBuiltServer, tempDir } from '../helper.js'
import { pgDatabase } from '../fixtures/pg.js'
import { call, until } from '../fixtures/cluster.js'
import { rgbTiff, pattern, zipOf } from '../fixtures/seed/mosaic.js'
import { sampleShares, type Seen, type TaskView } from '../fixtures/seed/shares.js'

t.setTimeout(600_000)

t.test('two nodes: the tasks\' parts and counts add up on either node, running, done and after kill_all', async (t) => {
  const databaseUrl = await pgDatabase(t, { migrated: true })
  const dataDir = tempDir(t)
  const env = { MAPWARDEN_DATABASE_URL: databaseUrl, MAPWARDEN_WORKER_THREADS: '2' }
  const nodes = [await startBuiltServer(dataDir, env), await startBuiltServer(dataDir, env)]
  t.teardown(() => { for (const n of nodes) n.child.kill('SIGKILL') })
  const [a, b] = nodes
  t.equal((await call(a, 'POST', '/rest/workspaces', JSON.stringify({ workspace: { name: 'topp' } }))).status, 201)
  const up = await call(a, 'PUT', '/rest/workspaces/topp/coveragestores/m/file.imagemosaic', await zipOf({ 'g.tif': rgbTiff(512, 256, [0, 0, 90, 45], pattern) }), 'application/zip')
  t.ok(up.status < 300, `mosaic on A: ${up.status}`)

  // Samples ask the nodes in turn, each sample one node: a node's copy of the tasks follows the
  // other's announcements within a moment, so readings of one sample come from one copy, and what a
  // node showed before is what its own next readings are checked against.
  let turn = 0
  const sample = async (seen: Seen[]) => {
    const i = turn++ % 2
    const get = async (path: string) => (await (await call(nodes[i], 'GET', `/gwc/rest/seed${path}`)).json())
    return await sampleShares(t, get, 'topp:m', ids, total, seen[i])
  }
  async function seed (zoomStop: number): Promise<{ ids: number[], total: bigint }> {
    const res = await call(a, 'POST', '/gwc/rest/seed/topp:m.json', JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop, threadCount: 3, type: 'seed', format: 'image/png' } }))
    t.equal(res.status, 200)
    const ids = [...(res.headers.get('link') ?? '').matchAll(/tasks\/(\d+)\.json/g)].map((m) => Number(m[1]))
    // Both nodes know the request and its total (B's copy of the tasks follows within a second).
    let total = -1n
    for (const node of nodes) {
      await until('the request is counted', async () => {
        const res = await call(node, 'GET', `/gwc/rest/seed/tasks/${ids[0]}.json`)
        if (res.status !== 200) return false
        total = BigInt((await res.json()).task.request.tilesTotal)
        return total > 0n
      }, 60)
    }
    return { ids, total }
  }

  // 1. To the end: sampled while both nodes render, then every task did all of its part.
  let { ids, total } = await seed(6)
  let seen: Seen[] = [new Map(), new Map()]
  let views: TaskView[] = []
  await until('the seed ends on both nodes', async () => {
    const first = await sample(seen)
    views = await sample(seen) // the other node
    return [...first, ...views].every((v) => v.state === 'done')
  }, 300)
  for (const v of views) t.equal(v.tilesDone, v.tilesTotal, `task ${v.id} did all of its part`)
  t.equal(views.reduce((n, v) => n + BigInt(v.tilesDone), 0n), total, 'the tasks did the request')

  // 2. kill_all posted to B while a bigger seed runs: the parts stay, the counts add up.
  ;({ ids, total } = await seed(12))
  seen = [new Map(), new Map()]
  await until('some tiles counted', async () => (await sample(seen)).some((v) => v.request.tilesDone >= 64), 120)
  const parts = new Map([...seen[0], ...seen[1]].map(([id, s]) => [id, s.total]))
  const res = await call(b, 'POST', '/gwc/rest/seed/topp:m', 'kill_all=all', 'application/x-www-form-urlencoded')
  t.equal(res.status, 200)
  await until('every task ended on both nodes', async () => {
    for (const n of nodes) {
      for (const id of ids) if ((await (await call(n, 'GET', `/gwc/rest/seed/tasks/${id}.json`)).json()).task.state !== 'aborted') return false
    }
    return true
  }, 60)
  views = await sample(seen)
  for (const v of views) t.equal(v.tilesTotal, parts.get(v.id), `task ${v.id} keeps the part it had: ${v.tilesTotal}`)
  const done = views.reduce((n, v) => n + v.tilesDone, 0)
  t.ok(done > 0 && BigInt(done) < total, `${done} tiles counted before the kill`)
  for (const v of views) t.equal(v.request.tilesDone, done, 'the request\'s done is the sum of its tasks')
})
