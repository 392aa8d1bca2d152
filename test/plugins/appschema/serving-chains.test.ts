// App-schema reads whose cost must not grow with the features: the tutorial mapping over PostGIS
// tables and a GeoPackage of N mapped features (each chained to one of N / 10 denormalised
// GeologicUnits) answers a whole-type GetFeature with as many statements on the sources for 1,200
// features as for 20 (the chained GeologicUnits one statement for the page of parents, not one per
// 500).
import t from 'tap'
import type { Test } from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN } from '../../helper.js'
import { pgDatabase } from '../../fixtures/pg.js'
import { writeGeoPackage } from '../../fixtures/vector/files.js'
import { Database } from '../../../services/storage/sqlite/sqlite-driver.js'
import { REST, fixtureItems, installCache, putZip, zipItems } from './helpers.js'
import { GSML, postgisParameters, setup, sourcesIn, validate, wfs } from './serving-helpers.js'

const SOURCE_TABLE = /"(mappedfeature|geologicunit)"/

/** N mapped features mf00000.., each linked to unit gu.(i mod N/10), each unit two rows. */
function rowsOf (n: number) {
  const units = n / 10
  const pad = (i: number) => String(i).padStart(5, '0')
  const square = (i: number) => { const x = (i % 100) / 10; const y = Math.floor(i / 100) / 10; return [[x, y], [x, y + 0.1], [x + 0.1, y + 0.1], [x + 0.1, y], [x, y]] }
  return {
    features: Array.from({ length: n }, (_, i) => ({ id: `mf${pad(i)}`, name: `F${i}`, gu: `gu.${pad(i % units)}`, ring: square(i) })),
    units: Array.from({ length: units }, (_, u) => [
      { id: `gu.${pad(u)}`, name: `Unit ${u}`, cs: 'urn:ietf:rfc:2141', kind: 'i', rank: 'formation' },
      { id: `gu.${pad(u)}`, name: `-U${u}`, cs: 'urn:x-bgs:lexicon', kind: 'i', rank: 'formation' }
    ]).flat()
  }
}

async function overPostgis (t: Test, n: number): Promise<FastifyInstance> {
  const { features, units } = rowsOf(n)
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`
  const sql = `CREATE TABLE mappedfeature (id text PRIMARY KEY, name text, geologic_unit_id text, shape geometry(Polygon, 4326));
    INSERT INTO mappedfeature VALUES ${features.map((f) => `(${lit(f.id)}, ${lit(f.name)}, ${lit(f.gu)}, ST_GeomFromText('POLYGON((${f.ring.map((p) => p.join(' ')).join(',')}))', 4326))`).join(',')};
    CREATE TABLE geologicunit (row_id serial PRIMARY KEY, id text, name text, name_codespace text, kind text, rank text);
    INSERT INTO geologicunit (id, name, name_codespace, kind, rank) VALUES ${units.map((u) => `(${lit(u.id)}, ${lit(u.name)}, ${lit(u.cs)}, ${lit(u.kind)}, ${lit(u.rank)})`).join(',')};`
  const url = await pgDatabase(t, { postgis: true })
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try { await c.query(sql) } finally { await c.end() }
  return await setup(t, sourcesIn(postgisParameters(url, { 'fetch size': '1000' })))
}

async function overGeoPackageOf (t: Test, n: number): Promise<FastifyInstance> {
  const { features, units } = rowsOf(n)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-appschema-chains-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'tutorial.gpkg')
  writeGeoPackage(file, [
    { name: 'mappedfeature', columns: ['id TEXT', 'name TEXT', 'geologic_unit_id TEXT'], geometryColumn: 'shape', geometryType: 'POLYGON', rtree: true,
      rows: features.map((f) => ({ values: [f.id, f.name, f.gu], geometry: { type: 'Polygon', coordinates: [f.ring] } })) },
    { name: 'geologicunit', columns: ['id TEXT', 'name TEXT', 'name_codespace TEXT', 'kind TEXT', 'rank TEXT'],
      rows: units.map((u) => ({ values: [u.id, u.name, u.cs, u.kind, u.rank] })) }
  ])
  const app = await build(t)
  installCache(app.config.dataDir)
  await app.inject({ method: 'POST', url: `${REST}/namespaces`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { namespace: { prefix: 'gsml', uri: GSML } } })
  const params = '<Parameter><name>dbtype</name><value>geopkg</value></Parameter><Parameter><name>database</name><value>file:./data/tutorial.gpkg</value></Parameter>'
  const items = fixtureItems('tutorial', sourcesIn(params)).filter((i) => !i.name.startsWith('sources/'))
  const res = await putZip(app, 'gsml', 'tutorial', await zipItems([...items, { name: 'data/tutorial.gpkg', data: fs.readFileSync(file) }]), '?configure=all')
  if (res.statusCode !== 200) throw new Error(`upload: ${res.statusCode} ${res.body}`)
  return app
}

/** The statements naming a source table sent while `fn` runs (PostGIS: SELECT and DECLARE, not FETCH; GeoPackage: prepared statements). */
async function statements<T> (fn: () => Promise<T>): Promise<{ result: T, n: number }> {
  let n = 0
  const query = pg.Client.prototype.query
  const prepare = Database.prototype.prepare
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const a = args[0]
    const text = typeof a === 'string' ? a : (a as { text?: string } | undefined)?.text ?? ''
    if (SOURCE_TABLE.test(text) && /^\s*(SELECT|DECLARE)/i.test(text)) n++
    return (query as (...x: unknown[]) => unknown).apply(this, args)
  } as typeof query
  Database.prototype.prepare = function (this: InstanceType<typeof Database>, text: string) {
    if (SOURCE_TABLE.test(text)) n++
    return prepare.call(this, text)
  } as typeof prepare
  try { return { result: await fn(), n } } finally { pg.Client.prototype.query = query; Database.prototype.prepare = prepare }
}

for (const [label, open] of [['PostGIS', overPostgis], ['GeoPackage', overGeoPackageOf]] as const) {
  t.test(`${label}: a GetFeature with chained features sends as many statements for 1,200 features as for 20`, async (t) => {
    const counts: number[] = []
    for (const n of [20, 1200]) {
      const app = await open(t, n)
      const { result: res, n: sent } = await statements(() => wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', typeName: 'gsml:MappedFeature' }))
      t.equal(res.statusCode, 200, res.body.slice(0, 500))
      t.equal(res.body.split('<gsml:MappedFeature ').length - 1, n, `${n} features`)
      // Each feature's unit: written whole the first time, by reference after.
      t.equal(res.body.split('<gsml:specification><gsml:GeologicUnit ').length - 1, n / 10, 'each unit once')
      t.equal(res.body.split('<gsml:specification xlink:href="#gu.').length - 1, n - n / 10, 'then referenced')
      t.match(res.body, '<gml:name codeSpace="urn:x-bgs:lexicon">-U0</gml:name>')
      if (n === 20) validate(t, res.body, `${label} ${n}`)
      counts.push(sent)
      // A page in the middle: its units too, in one statement.
      const page = await statements(() => wfs(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'gsml:MappedFeature', startIndex: n / 2, count: n / 4 }))
      t.equal(page.result.body.split('<wfs:member><gsml:MappedFeature ').length - 1, n / 4)
      const units = new Set(Array.from({ length: n / 4 }, (_, i) => (n / 2 + i) % (n / 10))).size
      t.equal(page.result.body.split('<gsml:specification><gsml:GeologicUnit ').length - 1, units, 'the units of the page')
      counts.push(page.n)
    }
    t.same(counts.slice(2), counts.slice(0, 2), `statements for 20 and for 1,200 features (whole, a page): ${counts.join(', ')}`)
  })
}
