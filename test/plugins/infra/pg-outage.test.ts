// PostgreSQL stopped and started under load: requests answer 503 with a message meanwhile (never
// 500), nothing acknowledged is lost, and the app answers again without a restart.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { privatePgServer } from '../../fixtures/pg.js'

t.test('the catalog database stopped and started under a stream of creations', async (t) => {
  const server = await privatePgServer(t)
  const app = await build(t, { databaseUrl: server.url })
  const acked: string[] = []
  const statuses = new Map<number, number>()
  const unavailable: Array<{ body: string, retryAfter: unknown }> = []
  let phase: 'before' | 'down' | 'after' = 'before'
  let afterAcks = 0
  let n = 0
  const worker = async () => {
    while (phase !== 'after' || afterAcks < 20) {
      const name = `ws${n++}`
      const res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ workspace: { name } }) })
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
      if (res.statusCode === 201) {
        acked.push(name)
        if (phase === 'after') afterAcks++
      } else if (res.statusCode === 503) {
        unavailable.push({ body: res.body, retryAfter: res.headers['retry-after'] })
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
  }
  const workers = [worker(), worker(), worker(), worker()]
  while (acked.length < 20) await new Promise((resolve) => setTimeout(resolve, 10))
  await server.stop()
  phase = 'down'
  while (unavailable.length < 8) await new Promise((resolve) => setTimeout(resolve, 10))
  const health = await app.inject({ method: 'GET', url: `${BASE}/health` })
  t.equal(health.statusCode, 503, 'the health check says so while the database is down')
  // An operator's scrape still answers: what needs the database is left out and counted.
  const metrics = await app.inject({ method: 'GET', url: `${BASE}/metrics`, headers: ADMIN })
  t.equal(metrics.statusCode, 200, 'the metrics answer while the database is down')
  t.notMatch(metrics.body, /^mapwarden_seed_tasks\{/m, 'no task counts without the database')
  t.match(metrics.body, /^mapwarden_metrics_collect_failures_total\{metric="mapwarden_seed_tasks"\} 1$/m)
  t.match(metrics.body, /^mapwarden_db_pool_waiting\{pool="catalog"\} \d+$/m, 'the pools are read from memory')
  await server.start()
  phase = 'after'
  await Promise.all(workers)

  t.same([...statuses.keys()].sort(), [201, 503], `only 201 and 503 answered: ${JSON.stringify([...statuses])}`)
  t.ok(unavailable.every((u) => u.body === 'The catalog database is not reachable; try again later' && u.retryAfter === '1'), 'each 503 says why, with Retry-After')
  t.ok(afterAcks >= 20, `${afterAcks} creations succeeded after the restart, without restarting the app`)
  const res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  const listed = new Set((res.json().workspaces.workspace as Array<{ name: string }>).map((w) => w.name))
  t.same(acked.filter((name) => !listed.has(name)), [], `every one of the ${acked.length} acknowledged workspaces is there`)
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/health` })).statusCode, 200, 'healthy again')
})
