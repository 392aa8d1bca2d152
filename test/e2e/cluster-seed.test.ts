// Seeding spread over a cluster: two built servers on one PostgreSQL database and one data
// directory, as docker-compose.cluster.yml runs them. A seed posted to one is rendered by both, any
// node lists it with the progress of both, a node killed with SIGKILL leaves its share to the other,
// and a kill posted to one node stops the work of every node.
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import pg from 'pg'
import { startBuiltServer, tempDir } from '../helper.js'
import { pgDatabase } from '../fixtures/pg.js'
import { call, seed, taskOf, tileFiles, until } from '../fixtures/cluster.js'
import { diskUsage } from '../fixtures/diskquota/harness.js'
import { rgbTiff, pattern, zipOf } from '../fixtures/seed/mosaic.js'
import { TASKS_PER_THREAD } from '../../services/render/render-pool.js'

type Node = Awaited<ReturnType<typeof startBuiltServer>>

// Four seeds over two servers: minutes on a busy 2-core machine, so a longer limit than the suite's.
t.setTimeout(600_000)

t.test('a seed posted to one node is rendered by both, survives the death of one, and a kill on one stops both', async (t) => {
  const databaseUrl = await pgDatabase(t, { migrated: true })
  const dataDir = tempDir(t)
  const env = { MAPWARDEN_DATABASE_URL: databaseUrl, MAPWARDEN_WORKER_THREADS: '2' }
  const nodes: Node[] = []
  const start = async () => { const n = await startBuiltServer(dataDir, env); nodes.push(n); return n }
  t.teardown(() => { for (const n of nodes) { if (process.env.MW_DEBUG) console.error(n.output().slice(-4000)); n.child.kill('SIGKILL') } })
  const db = new pg.Client({ connectionString: databaseUrl })
  await db.connect()
  t.teardown(() => db.end())
  const work = async (job: number) => (await db.query<{ node: string, metatiles: string, tiles: string }>('SELECT node, metatiles, tiles FROM seed_node_work WHERE job = $1', [job])).rows
    .map((r) => ({ node: r.node, metatiles: Number(r.metatiles), tiles: Number(r.tiles) }))
  const sum = (rows: Array<{ tiles: number }>) => rows.reduce((n, r) => n + r.tiles, 0)

  const a = await start()
  let b = await start()
  t.equal((await call(a, 'POST', '/rest/workspaces', JSON.stringify({ workspace: { name: 'topp' } }))).status, 201)
  const zip = await zipOf({ 'g.tif': rgbTiff(512, 256, [0, 0, 90, 45], pattern) })
  const up = await call(a, 'PUT', '/rest/workspaces/topp/coveragestores/m/file.imagemosaic', zip, 'application/zip')
  t.ok(up.status < 300, `mosaic on A: ${up.status}`)

  // 1. Spread: a seed posted to A, listed by B with progress, rendered by both.
  const first = await seed(a, { zoomStop: 7, type: 'seed', format: 'image/png' })
  await until('B lists the task with progress', async () => {
    const rows = (await (await call(b, 'GET', '/gwc/rest/seed.json')).json())['long-array-array'] as number[][]
    return rows.some((r) => r[3] === first && r[0] > 0)
  }, 120)
  await until('the seed ends', async () => (await taskOf(b, first)).state === 'done', 120)
  const one = await taskOf(b, first)
  const total = Number(one.request.tilesTotal)
  t.equal(one.request.tilesDone, total, `B shows the request done: ${total} tiles`)
  const spread = await work(first)
  t.equal(spread.length, 2, `both nodes rendered: ${JSON.stringify(spread)}`)
  t.ok(spread.every((w) => w.metatiles > 0), 'each node rendered metatiles')
  t.equal(sum(spread), total, 'the nodes\' tiles add up to the total')
  t.equal(tileFiles(dataDir, 'png'), total, 'every tile is on disk once')
  // Each node's metrics count the tiles it rendered itself (Prometheus adds up the instances).
  const seeded = async (node: Node) => Number(/^mapwarden_tiles_rendered_total\{kind="seed"\} (\d+)$/m.exec(await (await call(node, 'GET', '/metrics')).text())?.[1] ?? 0)
  const [byA, byB] = [await seeded(a), await seeded(b)]
  t.ok(byA > 0 && byB > 0, `each node counts its own seed tiles: ${byA} and ${byB}`)
  t.equal(byA + byB, total, 'the nodes\' counts add up to the request')

  // 2. One quota for the cluster: both nodes write while it evicts (one cleaner at a time), and
  // afterwards the usage accounted in the database is the files' sizes rounded to blocks.
  const tiles = path.join(dataDir, 'tiles')
  const usage = async (node: Node) => (await (await call(node, 'GET', '/gwc/rest/diskquota/usage.json')).json()).diskQuotaUsage.usedBytes as number
  const quota = Math.floor(diskUsage(tiles, 4096).bytes / 2)
  const put = await call(b, 'PUT', '/gwc/rest/diskquota.json', JSON.stringify({ gwcQuotaConfiguration: { enabled: true, cacheCleanUpFrequency: 1, cacheCleanUpUnits: 'SECONDS', globalExpirationPolicyName: 'LRU', globalQuota: { value: String(quota), units: 'B' } } }))
  t.equal(put.status, 200, 'quota set on B')
  const fourth = await seed(a, { zoomStop: 7, type: 'reseed', format: 'image/png' })
  let lowest = Infinity
  await until('the reseed ends', async () => {
    lowest = Math.min(lowest, await usage(a), await usage(b))
    return (await taskOf(a, fourth)).state === 'done'
  }, 120)
  t.equal((await work(fourth)).length, 2, 'both nodes wrote')
  t.ok(lowest >= 0, `usage never negative (lowest ${lowest})`)
  // The clean-ups go on once a second: wait for one after the last write, then compare.
  await until('the cache is back under its quota', async () => diskUsage(tiles, 4096).bytes <= quota, 120)
  let accounted = 0
  let onDisk = -1
  await until('accounted usage equals the disk', async () => {
    accounted = Math.max(await usage(a), await usage(b)) // each flushes what it recorded
    onDisk = diskUsage(tiles, 4096).bytes
    return accounted === onDisk
  }, 120).catch(() => {})
  t.equal(accounted, onDisk, `accounted ${accounted} bytes, ${onDisk} on disk`)
  t.equal((await call(a, 'PUT', '/gwc/rest/diskquota.json', JSON.stringify({ gwcQuotaConfiguration: { enabled: false } }))).status, 200, 'quota off')

  // 3. B killed with SIGKILL mid-task: A finishes B's share, and the task ends with exactly its tiles.
  const second = await seed(a, { zoomStop: 7, type: 'seed', format: 'image/jpeg' })
  await until('B has finished chunks of the task', async () => (await work(second)).length === 2, 120)
  b.child.kill('SIGKILL')
  await new Promise((resolve) => b.child.once('exit', resolve))
  const killedAt = Date.now()
  await until('A finishes the task alone', async () => (await taskOf(a, second)).state === 'done', 300)
  const two = await taskOf(a, second)
  t.equal(two.request.tilesDone, Number(two.request.tilesTotal), 'the request counts its total exactly')
  t.equal(sum(await work(second)), Number(two.request.tilesTotal), 'every chunk counted once over both nodes')
  t.equal(tileFiles(dataDir, 'jpeg'), Number(two.request.tilesTotal), 'every tile of the task is on disk')
  t.comment(`A finished the task ${Date.now() - killedAt} ms after B died`)

  // 4. kill_all posted to a new B stops the work A is doing on the task.
  b = await start()
  const third = await seed(a, { zoomStop: 9, type: 'reseed', format: 'image/jpeg' })
  await until('both nodes work on it', async () => (await work(third)).length === 2, 120)
  const res = await call(b, 'POST', '/gwc/rest/seed', 'kill_all=all', 'application/x-www-form-urlencoded')
  const answeredAt = Date.now()
  t.equal(res.status, 200)
  t.match(await res.text(), new RegExp(`\\[${third}: topp:m, RESEED, RUNNING\\]`))
  await until('A shows the task aborted', async () => (await taskOf(a, third)).state === 'aborted', 120)
  // Every node stops within the metatiles in hand: once the writes settle, each render slot of the
  // two nodes (2 threads x TASKS_PER_THREAD) wrote at most the metatile (4 x 4 tiles) it had in hand
  // when the kill was answered, and on A one it may have begun in the milliseconds the announcement
  // took; nothing after.
  const jpeg = path.join(dataDir, 'tiles/topp/m/EPSG_4326/jpeg')
  const writtenSince = (at: number) => fs.readdirSync(jpeg, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && fs.statSync(path.join(e.parentPath, e.name)).mtimeMs >= at).length
  let before = -1
  await until('the writes settle', async () => {
    const n = writtenSince(answeredAt)
    const settled = n === before
    before = n
    if (!settled) await new Promise((resolve) => setTimeout(resolve, 1000))
    return settled
  }, 60)
  const slots = 2 * TASKS_PER_THREAD
  t.ok(before <= (slots + 2 * slots) * 16, `${before} tiles written after the kill's answer: at most the metatile in hand of each render slot`)
  const quiet = Date.now()
  await new Promise((resolve) => setTimeout(resolve, 2000))
  t.equal(writtenSince(quiet), 0, 'nothing written or rewritten after that')
  t.same((await (await call(a, 'GET', '/gwc/rest/seed.json')).json())['long-array-array'], [], 'A lists no live task')
})
