// App-schema complex features (issue 36): WFS GetFeature of MW_BENCH_APPSCHEMA_ROWS mapped features
// (default 10,000) with one level of feature chaining, on PostGIS, against the plain feature type's
// GeoJSON of the same rows, in the same run. The mapping is GeoServer's app-schema tutorial one of
// the tests (test/fixtures/appschema/tutorial: GeoSciML MappedFeature, its gsml:specification
// chained to a denormalised GeologicUnit) over two tables of a throwaway database of MW_BENCH_PG:
// `mappedfeature` (one row a feature, a square polygon each) and `geologicunit` (ROWS / 10 units of
// two rows each). Figures: the mapped GetFeature's time over the plain GeoJSON's (both streamed over
// HTTP on loopback; and this process's CPU time for each, less moved by other load), the peak RSS
// of this process (the server runs in it) over its RSS before each, and the SQL statements each request sends, counted on pg.Client.prototype.query as cluster.ts
// does: reads (SELECT, DECLARE of a cursor) apart from the cursor's FETCHes and BEGIN/COMMIT.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import yazl from 'yazl'
import { AUTH, startMapwarden, type Figure } from './harness.js'
import { ADMIN_URL, sql } from './points-db.js'

const ROWS = Number(process.env.MW_BENCH_APPSCHEMA_ROWS ?? 10_000)
const FIXTURES = fileURLToPath(new URL('../../test/fixtures/appschema/', import.meta.url))
const GSML = 'urn:cgi:xmlns:CGI:GeoSciML:2.0'

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d
const mb = (b: number) => round(b / 2 ** 20, 1)

function zip (items: Array<{ name: string, data: Buffer | string }>): Promise<Buffer> {
  const z = new yazl.ZipFile()
  for (const i of items) z.addBuffer(Buffer.from(i.data), i.name)
  z.end()
  const chunks: Buffer[] = []
  return new Promise((resolve, reject) => {
    z.outputStream.on('data', (c: Buffer) => chunks.push(c))
    z.outputStream.on('end', () => resolve(Buffer.concat(chunks)))
    z.outputStream.on('error', reject)
  })
}

/** Statements sent through pg while `fn` runs, by kind. */
async function counted<T> (fn: () => Promise<T>): Promise<{ result: T, reads: number, catalog: number, fetches: number, other: number }> {
  const query = pg.Client.prototype.query
  const n = { reads: 0, catalog: 0, fetches: 0, other: 0 }
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const a = args[0]
    const full = typeof a === 'string' ? a : (a as { text?: string } | undefined)?.text ?? ''
    const text = full.trimStart().slice(0, 8).toUpperCase()
    // A table's description (the source reuses one for 5 s): the system catalogs, not the data.
    if (/\b(pg_class|pg_attribute|pg_index|geometry_columns)\b/.test(full)) n.catalog++
    else if (text.startsWith('SELECT') || text.startsWith('DECLARE')) n.reads++
    else if (text.startsWith('FETCH')) n.fetches++
    else n.other++
    return (query as (...x: unknown[]) => unknown).apply(this, args)
  } as typeof query
  try { return { result: await fn(), ...n } } finally { pg.Client.prototype.query = query }
}

/** A GET streamed to its end: seconds, bytes, the occurrences of each pattern and the peak RSS meanwhile. */
async function timedGet (url: string, patterns: string[] = []): Promise<{ s: number, cpu: number, bytes: number, counts: number[], peak: number, before: number }> {
  global.gc?.()
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 20)
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  let bytes = 0
  const counts = patterns.map(() => 0)
  try {
    const res = await fetch(url)
    if (res.status !== 200 || !res.body) throw new Error(`${url}: ${res.status} ${await res.text()}`)
    const decoder = new TextDecoder()
    // Each pattern counted across chunk boundaries: the last (its length - 1) characters go with the next chunk.
    const tails = patterns.map(() => '')
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length
      const text = decoder.decode(chunk, { stream: true })
      patterns.forEach((pat, i) => {
        const t = tails[i] + text
        counts[i] += t.split(pat).length - 1
        tails[i] = t.slice(Math.max(0, t.length - pat.length + 1))
      })
    }
  } finally { clearInterval(sampler) }
  const s = (performance.now() - t0) / 1000
  const cpu = process.cpuUsage(cpu0)
  return { s, cpu: (cpu.user + cpu.system) / 1e6, bytes, counts, peak: Math.max(peak, process.memoryUsage().rss), before }
}

export async function run (): Promise<Figure[]> {
  const name = `mw_bench_as_${Math.random().toString(16).slice(2, 10)}`
  await sql(ADMIN_URL, `CREATE DATABASE ${name}`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-appschema-'))
  const figures: Figure[] = []
  try {
    const units = Math.max(1, Math.trunc(ROWS / 10))
    await sql(url.href, `CREATE EXTENSION postgis;
      CREATE TABLE mappedfeature AS SELECT 'mf.' || lpad(i::text, 7, '0') AS id, 'MAPPED FEATURE ' || i AS name,
        'gu.' || lpad((i % ${units})::text, 6, '0') AS geologic_unit_id,
        ST_MakeEnvelope((i % 360) - 180, (i % 170) - 85, (i % 360) - 179.5, (i % 170) - 84.5, 4326)::geometry(Polygon, 4326) AS shape
      FROM generate_series(1, ${Math.trunc(ROWS)}) i;
      ALTER TABLE mappedfeature ADD PRIMARY KEY (id);
      CREATE TABLE geologicunit AS SELECT 'r' || u || '.' || k AS row_id, 'gu.' || lpad(u::text, 6, '0') AS id,
        CASE WHEN k = 1 THEN 'Unit ' || u ELSE '-U' || u END AS name,
        CASE WHEN k = 1 THEN 'urn:ietf:rfc:2141' ELSE 'urn:x-bgs:lexicon' END AS name_codespace, 'i'::text AS kind, 'formation'::text AS rank
      FROM generate_series(0, ${units - 1}) u, generate_series(1, 2) k;
      ALTER TABLE geologicunit ADD PRIMARY KEY (row_id);
      CREATE INDEX geologicunit_id ON geologicunit (id);
      ANALYZE mappedfeature; ANALYZE geologicunit;`)
    const db = { host: url.hostname, port: url.port || '5432', user: decodeURIComponent(url.username) || 'postgres' }
    const p = (k: string, v: string) => `<Parameter><name>${k}</name><value>${v}</value></Parameter>`
    const params = [p('dbtype', 'postgis'), p('host', db.host), p('port', db.port), p('database', name), p('user', db.user)].join('')
    const dir = path.join(FIXTURES, 'tutorial')
    const mapping = fs.readFileSync(path.join(dir, 'mappedfeature.appschema'), 'utf8')
      .replace('<Parameter><name>directory</name><value>file:./sources</value></Parameter>', params)
    const body = await zip([{ name: 'mappedfeature.appschema', data: mapping }, { name: 'schemas/gsml.xsd', data: fs.readFileSync(path.join(dir, 'schemas', 'gsml.xsd')) }])

    const mw = await startMapwarden({ dataDir: path.join(work, 'data'), workerThreads: 1 })
    try {
      fs.cpSync(path.join(FIXTURES, 'cache'), path.join(work, 'data', 'app-schema-cache'), { recursive: true })
      const rest = async (method: 'POST' | 'PUT', u: string, payload: object | Buffer, type = 'application/json', ok = 201) => {
        const r = await mw.app.inject({ method, url: `/geoserver/rest${u}`, headers: { authorization: AUTH, 'content-type': type }, payload })
        if (r.statusCode !== ok) throw new Error(`${method} ${u}: ${r.statusCode} ${r.body}`)
      }
      await rest('POST', '/namespaces', { namespace: { prefix: 'gsml', uri: GSML } })
      await rest('PUT', '/workspaces/gsml/datastores/tutorial/file.appschema?configure=all', body, 'application/zip', 200)
      await rest('POST', '/workspaces', { workspace: { name: 'plain' } })
      await rest('POST', '/workspaces/plain/datastores', { dataStore: { name: 'pg', connectionParameters: { entry: [
        { '@key': 'host', $: db.host }, { '@key': 'port', $: db.port }, { '@key': 'database', $: name },
        { '@key': 'user', $: db.user }, { '@key': 'dbtype', $: 'postgis' }
      ] } } })
      await rest('POST', '/workspaces/plain/datastores/pg/featuretypes', { featureType: { name: 'mappedfeature', nativeName: 'mappedfeature' } })

      const mappedUrl = `${mw.url}/geoserver/wfs?service=WFS&version=1.1.0&request=GetFeature&typeName=gsml:MappedFeature&maxFeatures=${ROWS}`
      const plainUrl = `${mw.url}/geoserver/wfs?service=WFS&version=2.0.0&request=GetFeature&typeNames=plain:mappedfeature&outputFormat=application/json&count=${ROWS}`
      const pageUrl = `${mw.url}/geoserver/wfs?service=WFS&version=1.1.0&request=GetFeature&typeName=gsml:MappedFeature&maxFeatures=100&startIndex=${ROWS - 100}`
      // Warm-up: connections, descriptions, plans.
      await timedGet(`${mw.url}/geoserver/wfs?service=WFS&version=1.1.0&request=GetFeature&typeName=gsml:MappedFeature&maxFeatures=10`)
      await timedGet(plainUrl.replace(`count=${ROWS}`, 'count=10'))

      const mapped = await counted(() => timedGet(mappedUrl, ['<gsml:MappedFeature gml:id=', '<gsml:GeologicUnit gml:id=']))
      const plain = await counted(() => timedGet(plainUrl, ['"type":"Feature"']))
      const page = await counted(() => timedGet(pageUrl, ['<gsml:MappedFeature gml:id=']))
      const [features, unitsWritten] = mapped.result.counts
      if (features !== ROWS || plain.result.counts[0] !== ROWS || unitsWritten !== units || page.result.counts[0] !== 100) {
        throw new Error(`mapped ${features} features and ${unitsWritten} units, plain ${plain.result.counts[0]}, page ${page.result.counts[0]}, of ${ROWS} and ${units}`)
      }
      const m = mapped.result
      const q = plain.result
      figures.push(
        { name: `app-schema GetFeature ${ROWS} mapped features (chained, GML 3.1.1) / plain GeoJSON of the same rows`, value: round(m.s / q.s), unit: 'x',
          note: `mapped ${round(m.s)} s (${mb(m.bytes)} MB, ${units} units written whole, the rest xlink:href), plain ${round(q.s)} s (${mb(q.bytes)} MB); time ratio, lower is better; this process's CPU ${round(m.cpu)} s against ${round(q.cpu)} s (${round(m.cpu / q.cpu)} x)` },
        { name: 'app-schema GetFeature peak RSS over before', value: mb(m.peak - m.before), unit: 'MB', note: `peak ${mb(m.peak)} MB; plain GeoJSON ${mb(q.peak - q.before)} MB over before; server and client in this process` },
        { name: `app-schema GetFeature SQL reads per request (${ROWS} features)`, value: mapped.reads, unit: 'statements',
          note: `SELECT/DECLARE on the tables; plus ${mapped.fetches} cursor FETCHes, ${mapped.other} BEGIN/COMMIT, ${mapped.catalog} catalog queries (table descriptions); plain GeoJSON: ${plain.reads} reads, ${plain.fetches} FETCHes` },
        { name: 'app-schema GetFeature last page (100 features at startIndex ROWS-100)', value: page.reads, unit: 'statements',
          note: `${round(page.result.s * 1000)} ms; SELECT/DECLARE on the tables, plus ${page.fetches} FETCHes, ${page.catalog} catalog queries: the page starts at its first id (keyset), the count is COUNT(DISTINCT id)` })
    } finally { await mw.close() }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
    await sql(ADMIN_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  }
  return figures
}

if (import.meta.url === `file://${process.argv[1]}`) {
  run().then((f) => { for (const x of f) console.log(`${x.name}: ${x.value} ${x.unit}${x.note ? ` (${x.note})` : ''}`) })
}
