// Foundation figure: authenticated GET /rest/workspaces.json on the embedded SQLite catalog and on
// PostgreSQL (a throwaway database on the local server, MAPWARDEN_TEST_PG), against a bare Fastify
// route that answers the same bytes, in the same run. Target ratio >= 0.5 on both.
import Fastify from 'fastify'
import { AUTH, load, startMapwarden, type Figure } from './harness.js'
import { pgDatabase } from '../test/fixtures/pg.js'

/** The list measured on one backend: 10 workspaces, then the load. */
async function measure (databaseUrl?: string) {
  const mw = await startMapwarden({ databaseUrl })
  for (let i = 0; i < 10; i++) {
    await fetch(`${mw.url}/geoserver/rest/workspaces.json`, { method: 'POST', headers: { authorization: AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ workspace: { name: `ws${i}` } }) })
  }
  const target = `${mw.url}/geoserver/rest/workspaces.json`
  const body = await (await fetch(target, { headers: { authorization: AUTH } })).text()
  await load(target, { authorization: AUTH }, 1) // warm-up
  const result = await load(target, { authorization: AUTH })
  await mw.close()
  return { body, result }
}

export async function run (): Promise<Figure[]> {
  const { body, result: ours } = await measure()
  // A throwaway database on the PostgreSQL server the tests use (the same fixture), dropped after.
  const drops: Array<() => unknown> = []
  const onPg = await pgDatabase({ teardown: (fn) => drops.push(fn) }).then(measure).finally(async () => { for (const drop of drops) await drop() })

  const bare = Fastify({ logger: false })
  bare.get('/geoserver/rest/workspaces.json', async (_req, reply) => reply.type('application/json').send(body))
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' })
  await load(`${bareUrl}/geoserver/rest/workspaces.json`, {}, 1)
  const base = await load(`${bareUrl}/geoserver/rest/workspaces.json`)
  await bare.close()
  return [
    { name: 'GET /rest/workspaces.json (Basic auth, 10 workspaces)', value: Math.round(ours.rps), unit: 'req/s', note: `p99 ${ours.p99} ms, ${ours.errors} errors` },
    { name: 'bare Fastify route, same body', value: Math.round(base.rps), unit: 'req/s', note: `p99 ${base.p99} ms` },
    { name: 'workspaces.json vs bare route', value: Number((ours.rps / base.rps).toFixed(2)), unit: 'ratio', note: 'target >= 0.5' },
    { name: 'GET /rest/workspaces.json on PostgreSQL', value: Math.round(onPg.result.rps), unit: 'req/s', note: `p99 ${onPg.result.p99} ms, ${onPg.result.errors} errors` },
    { name: 'workspaces.json on PostgreSQL vs bare route', value: Number((onPg.result.rps / base.rps).toFixed(2)), unit: 'ratio', note: `target >= 0.5; on SQLite ${(ours.rps / base.rps).toFixed(2)}` }
  ]
}
