// A PostgreSQL restart under two seeding nodes (issue 31): a fast shutdown ends every connection
// while chunks are rendered, counted and completed on the work queue. No node may exit because its
// database went away: while it is down, requests that need it answer 503 with Retry-After, and once
// it is back the seed goes on and ends with exactly its tiles. The database is a private server of
// the test's own (fixtures/pg.ts privatePgServer), never the shared one.
import t from 'tap'
import pg from 'pg'
import { startBuiltServer, tempDir } from '../helper.js'
import { privatePgServer } from '../fixtures/pg.js'
import { call, seed, taskOf, tileFiles, until } from '../fixtures/cluster.js'
import { rgbTiff, pattern, zipOf } from '../fixtures/seed/mosaic.js'

type Node = Awaited<ReturnType<typeof startBuiltServer>>

// Two servers seeding on a busy 2-core machine.
t.setTimeout(300_000)

t.test('a fast restart of PostgreSQL mid-seed: both nodes stay up, answer 503 meanwhile, and the seed ends with exactly its tiles', async (t) => {
  const server = await privatePgServer(t)
  const dataDir = tempDir(t)
  const env = { MAPWARDEN_DATABASE_URL: server.url, MAPWARDEN_WORKER_THREADS: '1' }
  const nodes: Node[] = []
  const exits: string[] = []
  t.teardown(() => { for (const n of nodes) { if (process.env.MW_DEBUG) console.error(n.output().slice(-4000)); n.child.kill('SIGKILL') } })
  for (const name of ['A', 'B']) {
    const n = await startBuiltServer(dataDir, env)
    n.child.once('exit', (code, signal) => { exits.push(`${name} exited (${code ?? signal}): ${n.output().slice(-1500)}`) })
    nodes.push(n)
  }
  const [a, b] = nodes
  const alive = () => t.same(exits, [], 'both nodes are running')

  t.equal((await call(a, 'POST', '/rest/workspaces', JSON.stringify({ workspace: { name: 'topp' } }))).status, 201)
  const zip = await zipOf({ 'g.tif': rgbTiff(512, 256, [0, 0, 90, 45], pattern) })
  const up = await call(a, 'PUT', '/rest/workspaces/topp/coveragestores/m/file.imagemosaic', zip, 'application/zip')
  t.ok(up.status < 300, `mosaic on A: ${up.status}`)

  const job = await seed(a, { zoomStop: 7, type: 'seed', format: 'image/png' })
  // Mid-seed: both nodes have counted chunks, and B shows the task (its copy of the cluster's tasks
  // holds it; it knows the administrator's credentials).
  const counted = async () => {
    const c = new pg.Client({ connectionString: server.url })
    await c.connect()
    try { return (await c.query<{ node: string }>('SELECT node FROM seed_node_work WHERE job = $1', [job])).rows.length } finally { await c.end() }
  }
  await until('both nodes have counted chunks', async () => await counted() === 2 && (await taskOf(b, job)).state === 'running', 120)
  const before = await taskOf(a, job)
  t.comment(`restart at ${before.request.tilesDone} of ${before.request.tilesTotal} tiles`)

  // `pg_ctl stop -m fast` then start: the shutdown ends every session (57P01), connections tried
  // meanwhile are refused. A node that exits ends the test there: the assertion says which, and why.
  let down = false
  try {
    await server.stop()
    down = true
    for (const n of nodes) {
      // A request that needs the database: a new seed request is recorded there.
      const res = await call(n, 'POST', '/gwc/rest/seed/topp:m.json', JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 1, type: 'seed', format: 'image/jpeg', threadCount: 1 } }))
      t.equal(res.status, 503, 'a seed request answers 503 while the database is down')
      t.equal(res.headers.get('retry-after'), '1', 'with Retry-After')
      t.equal(await res.text(), 'The catalog database is not reachable; try again later')
      // The health check fails too: every node has noticed by then.
      await until('the health check says the database is down', async () => (await call(n, 'GET', '/health')).status === 503, 120)
      // What needs no database still answers: the node's copy of the cluster's tasks, which says
      // the seed was cut off before it ended.
      t.equal((await taskOf(n, job)).state, 'running', 'the task resource answers, the seed is running')
    }
    alive()
    await server.start()
    down = false
    await until('the seed ends', async () => exits.length > 0 || ['done', 'aborted'].includes((await taskOf(b, job)).state), 180)
  } catch (err) {
    // A refused request: the node's exit is reported moments later.
    await until('a node exited', async () => exits.length > 0).catch(() => { throw err })
  } finally {
    if (down) await server.start()
  }
  alive()
  if (exits.length > 0) return
  const after = await taskOf(b, job)
  const total = Number(after.request.tilesTotal)
  t.equal(after.state, 'done', `the task is done, not aborted: ${after.error ?? ''}`)
  t.equal(after.request.tilesDone, total, `the request counts exactly its ${total} tiles`)
  t.equal(tileFiles(dataDir, 'png'), total, 'every tile is on disk')
  t.equal((await call(a, 'GET', '/health')).status, 200, 'A is healthy again')
  t.equal((await call(b, 'GET', '/health')).status, 200, 'B is healthy again')
  alive()
})
