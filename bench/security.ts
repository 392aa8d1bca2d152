// Security figures (not a test): authenticated `GET {base}/rest/workspaces.json` requests/s over
// real HTTP on 127.0.0.1 with the verified-credentials cache on (authCacheSeconds 60) against a
// fresh scrypt check on every request (authCacheSeconds 0), measured in the same run.
import autocannon from 'autocannon'
import { AUTH, startMapwarden } from './harness.js'

type Figure = { name: string, value: number, unit: string, note?: string }
const SECONDS = Number(process.env.MW_BENCH_SECURITY_SECONDS ?? 8)

async function measure (authCacheSeconds: number): Promise<{ rps: number, p99: number, errors: number }> {
  const mw = await startMapwarden({ authCacheSeconds })
  try {
    const url = `${mw.url}/geoserver/rest/workspaces.json`
    const check = await fetch(url, { headers: { authorization: AUTH } })
    if (check.status !== 200) throw new Error(`warm-up answered ${check.status}`)
    const result = await autocannon({ url, connections: 10, duration: SECONDS, headers: { authorization: AUTH } })
    return { rps: result.requests.average, p99: result.latency.p99, errors: result.non2xx + result.errors }
  } finally {
    await mw.close()
  }
}

export async function run (): Promise<Figure[]> {
  const cached = await measure(60)
  const fresh = await measure(0)
  return [
    { name: 'security: GET /rest/workspaces.json, credential cache on', value: Math.round(cached.rps), unit: 'req/s', note: `p99 ${cached.p99} ms, ${cached.errors} non-2xx, 10 connections, ${SECONDS} s` },
    { name: 'security: GET /rest/workspaces.json, scrypt per request (authCacheSeconds 0)', value: Math.round(fresh.rps), unit: 'req/s', note: `p99 ${fresh.p99} ms, ${fresh.errors} non-2xx` },
    { name: 'security: credential cache speed-up', value: Math.round((cached.rps / Math.max(fresh.rps, 0.001)) * 10) / 10, unit: 'x' }
  ]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((figures) => { for (const f of figures) console.log(`${f.name}: ${f.value} ${f.unit}${f.note ? ` (${f.note})` : ''}`) })
}
