// Styles figures with 10,000 styles in the catalog: GET /rest/styles.json throughput against a bare
// Fastify route that answers the same bytes, and server start time against an empty data
// directory, both measured in the same run. The styles are seeded straight into the catalog and
// the styles folder (one SLD file each), as a data directory that grew over time would hold them.
import Fastify from 'fastify'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { openDatabase } from '../services/storage/sqlite/database.js'
import { AUTH, load, startMapwarden, type Figure } from './harness.js'

const STYLES = 10_000
const SLD = (name: string) => `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld">
  <NamedLayer><Name>${name}</Name><UserStyle><Name>${name}</Name><FeatureTypeStyle><Rule>
    <RasterSymbolizer><Opacity>1</Opacity></RasterSymbolizer>
  </Rule></FeatureTypeStyle></UserStyle></NamedLayer>
</StyledLayerDescriptor>
`

function seed (dataDir: string, count: number): void {
  const db = openDatabase(dataDir)
  const dir = path.join(dataDir, 'styles')
  fs.mkdirSync(dir, { recursive: true })
  const insert = db.prepare(`INSERT INTO styles (workspace, name, format, language_version, filename, file, revision, images, created_at, modified_at)
    VALUES (NULL, ?, 'sld', '1.0.0', ?, ?, 1, '[]', ?, ?)`)
  const now = new Date().toISOString()
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const name = `style_${String(i).padStart(5, '0')}`
      fs.writeFileSync(path.join(dir, `${name}.sld`), SLD(name))
      insert.run(name, `${name}.sld`, `${name}.sld`, now, now)
    }
  })()
  db.close()
}

/** Milliseconds to a listening server, and from there to the first styles.json answer. */
async function startTime (dataDir: string): Promise<{ ready: number, firstList: number }> {
  const t0 = performance.now()
  const mw = await startMapwarden({ dataDir })
  const t1 = performance.now()
  const res = await fetch(`${mw.url}/geoserver/rest/styles.json`, { headers: { authorization: AUTH } })
  await res.arrayBuffer()
  const t2 = performance.now()
  await mw.close()
  return { ready: t1 - t0, firstList: t2 - t1 }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

export async function run (): Promise<Figure[]> {
  const full = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-styles-'))
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-empty-'))
  try {
    seed(full, STYLES)
    await startTime(empty) // first start creates the catalog; not measured
    const starts = { full: [] as Array<{ ready: number, firstList: number }>, empty: [] as Array<{ ready: number, firstList: number }> }
    for (let i = 0; i < 5; i++) {
      starts.full.push(await startTime(full))
      starts.empty.push(await startTime(empty))
    }

    const mw = await startMapwarden({ dataDir: full })
    const target = `${mw.url}/geoserver/rest/styles.json`
    const body = await (await fetch(target, { headers: { authorization: AUTH } })).text()
    await load(target, { authorization: AUTH }, 1, 10)
    const ours = await load(target, { authorization: AUTH }, 5, 10)
    await mw.close()

    const bare = Fastify({ logger: false })
    bare.get('/geoserver/rest/styles.json', async (_req, reply) => reply.type('application/json').send(body))
    const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' })
    await load(`${bareUrl}/geoserver/rest/styles.json`, {}, 1, 10)
    const base = await load(`${bareUrl}/geoserver/rest/styles.json`, {}, 5, 10)
    await bare.close()

    const [sFull, sEmpty] = [median(starts.full.map((s) => s.ready)), median(starts.empty.map((s) => s.ready))]
    const firstList = median(starts.full.map((s) => s.firstList))
    return [
      { name: `GET /rest/styles.json with ${STYLES} styles`, value: Math.round(ours.rps), unit: 'req/s', note: `${(body.length / 1024).toFixed(0)} KiB body, p99 ${ours.p99} ms, ${ours.errors} errors` },
      { name: 'bare Fastify route, same body', value: Math.round(base.rps), unit: 'req/s', note: `p99 ${base.p99} ms` },
      { name: 'styles.json vs bare route', value: Number((ours.rps / base.rps).toFixed(2)), unit: 'ratio' },
      { name: `server start (to listening) with ${STYLES} styles`, value: Math.round(sFull), unit: 'ms', note: 'median of 5' },
      { name: 'server start (to listening), empty data directory', value: Math.round(sEmpty), unit: 'ms', note: 'median of 5' },
      { name: `start time ${STYLES} styles vs empty`, value: Number((sFull / sEmpty).toFixed(2)), unit: 'ratio', note: 'nothing is read per style at start' },
      { name: `first styles.json after start with ${STYLES} styles`, value: Math.round(firstList), unit: 'ms', note: 'builds the list once; later answers are cached until a style changes' }
    ]
  } finally {
    fs.rmSync(full, { recursive: true, force: true })
    fs.rmSync(empty, { recursive: true, force: true })
  }
}
