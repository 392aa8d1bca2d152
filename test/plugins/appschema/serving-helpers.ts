// What the app-schema serving tests share: the tutorial store over property files (or edited), WFS
// requests, xmllint against the target schema and the offline schema cache, and PostGIS tables and
// a GeoPackage holding the tutorial's rows.
import type { Test } from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import pg from 'pg'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, ADMIN, BASE } from '../../helper.js'
import { pgDatabase } from '../../fixtures/pg.js'
import { FIXTURES, REST, fixtureItems, fixtureZip, installCache, putZip, zipItems } from './helpers.js'
import { writeGeoPackage } from '../../fixtures/vector/files.js'

export const GSML = 'urn:cgi:xmlns:CGI:GeoSciML:2.0'

export async function setup (t: Test, edits: Record<string, (s: string) => string> = {}): Promise<FastifyInstance> {
  const app = await build(t)
  installCache(app.config.dataDir)
  const ns = await app.inject({ method: 'POST', url: `${REST}/namespaces`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { namespace: { prefix: 'gsml', uri: GSML } } })
  if (ns.statusCode !== 201) throw new Error(`namespace: ${ns.statusCode} ${ns.body}`)
  const res = await putZip(app, 'gsml', 'tutorial', await fixtureZip('tutorial', edits), '?configure=all')
  if (res.statusCode !== 200) throw new Error(`upload: ${res.statusCode} ${res.body}`)
  return app
}

export const wfs = (app: FastifyInstance, q: Record<string, string | number>): Promise<LightMyRequestResponse> =>
  app.inject({ method: 'GET', url: `${BASE}/wfs?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]))}` })

/** xmllint against the target schema (of the fixture) and the WFS 1.1.0 stand-in of the cache, through a catalog onto the cache. */
export function validate (t: Test, body: string, label: string, schema = path.join(FIXTURES, 'tutorial', 'schemas', 'gsml.xsd')): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-appschema-xml-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const cache = path.join(FIXTURES, 'cache')
  fs.writeFileSync(path.join(dir, 'catalog.xml'), `<?xml version="1.0"?>
<catalog xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">
  <rewriteURI uriStartString="http://schemas.opengis.net/" rewritePrefix="file://${cache}/schemas.opengis.net/"/>
  <rewriteSystem systemIdStartString="http://schemas.opengis.net/" rewritePrefix="file://${cache}/schemas.opengis.net/"/>
</catalog>`)
  fs.writeFileSync(path.join(dir, 'driver.xsd'), `<?xml version="1.0"?>
<schema xmlns="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:mapwarden:test:driver">
  <import namespace="http://www.opengis.net/wfs" schemaLocation="http://schemas.opengis.net/wfs/1.1.0/wfs.xsd"/>
  <import namespace="${GSML}" schemaLocation="file://${schema}"/>
</schema>`)
  fs.writeFileSync(path.join(dir, 'doc.xml'), body)
  const r = spawnSync('xmllint', ['--noout', '--nonet', '--schema', path.join(dir, 'driver.xsd'), path.join(dir, 'doc.xml')],
    { encoding: 'utf8', env: { ...process.env, XML_CATALOG_FILES: path.join(dir, 'catalog.xml') } })
  t.equal(r.status, 0, `${label}: ${r.status === 0 ? 'valid' : r.stderr.split('\n').slice(0, 6).join(' | ')}`)
}

/** The features of a collection, the time stamp left out. */
export const members = (body: string) => body.replace(/ timeStamp="[^"]*"/, '')

export const TABLES = `
  CREATE TABLE mappedfeature (id text PRIMARY KEY, name text, geologic_unit_id text, shape geometry(Polygon, 4326));
  INSERT INTO mappedfeature VALUES
    ('mf1', 'GUNTHORPE FORMATION', 'gu.25699', ST_GeomFromText('POLYGON((-1.2 52.5,-1.2 52.6,-1.1 52.6,-1.1 52.5,-1.2 52.5))', 4326)),
    ('mf2', 'MERCIA MUDSTONE GROUP', 'gu.25678', ST_GeomFromText('POLYGON((-1.3 52.5,-1.3 52.6,-1.2 52.6,-1.2 52.5,-1.3 52.5))', 4326)),
    ('mf3', 'CLIFTON FORMATION', 'gu.25678', ST_GeomFromText('POLYGON((-1.2 52.5,-1.2 52.6,-1.1 52.6,-1.1 52.5,-1.2 52.5))', 4326)),
    ('mf4', 'MERCIA MUDSTONE GROUP', 'gu.25682', ST_GeomFromText('POLYGON((-1.3 52.5,-1.3 52.6,-1.2 52.6,-1.2 52.5,-1.3 52.5))', 4326));
  CREATE TABLE geologicunit (row_id text PRIMARY KEY, id text, name text, name_codespace text, kind text, rank text);
  INSERT INTO geologicunit VALUES
    ('r1', 'gu.25678', 'Clifton Formation', 'urn:ietf:rfc:2141', 'i', 'formation'),
    ('r2', 'gu.25678', '-Tr2', 'urn:x-bgs:lexicon', 'i', 'formation'),
    ('r3', 'gu.25682', 'Mercia Mudstone Group', 'urn:ietf:rfc:2141', 't', NULL),
    ('r4', 'gu.25699', 'Gunthorpe Formation', 'urn:ietf:rfc:2141', 'i', 'formation'),
    ('r5', 'gu.25699', '-Py', 'urn:x-bgs:lexicon', 'i', 'formation'),
    ('r6', 'gu.25699', 'Yaughan Volcanic Group', 'urn:x-bgs:lexicon', 'i', 'formation');
`

export async function postgisSources (t: Test, sql = TABLES): Promise<string> {
  const url = await pgDatabase(t, { postgis: true })
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try { await c.query(sql) } finally { await c.end() }
  return postgisParameters(url, { 'fetch size': '2' })
}

/** A mapping's data store parameters for the PostGIS database at `url`. */
export function postgisParameters (url: string, extra: Record<string, string> = {}): string {
  const u = new URL(url)
  const p = (name: string, value: string) => `<Parameter><name>${name}</name><value>${value}</value></Parameter>`
  return [p('dbtype', 'postgis'), p('host', u.hostname), p('port', u.port || '5432'), p('database', u.pathname.slice(1)),
    p('user', decodeURIComponent(u.username) || 'postgres'), ...Object.entries(extra).map(([k, v]) => p(k, v))].join('')
}

/** The tutorial mapping's edit that reads its sources through `params` instead of the property files. */
export const sourcesIn = (params: string) => ({
  'mappedfeature.appschema': (s: string) => s.replace('<Parameter><name>directory</name><value>file:./sources</value></Parameter>', params)
})

/** Both whole types, then each filter, answered by `app` as by the property files' `props`. */
export async function sameFeatures (t: Test, props: FastifyInstance, app: FastifyInstance, filters: ReadonlyArray<readonly [string, Record<string, string>, string[]]>,
  ids: (body: string) => string[], opts: { prefix?: string, validateAs?: string } = {}): Promise<void> {
  const prefix = opts.prefix ?? ''
  for (const [version, typeName] of [['1.1.0', 'gsml:MappedFeature'], ['2.0.0', 'gsml:GeologicUnit'], ['2.0.0', 'gsml:MappedFeature']]) {
    const q = { service: 'WFS', version, request: 'GetFeature', typeName }
    const a = await wfs(props, q)
    const b = await wfs(app, q)
    t.equal(b.statusCode, 200, b.body)
    t.equal(members(b.body), members(a.body), `${version} ${typeName}`)
    if (opts.validateAs && version === '1.1.0') validate(t, b.body, `${opts.validateAs} ${version} ${typeName}`)
  }
  for (const [label, q, want] of filters) {
    const a = await wfs(props, { service: 'WFS', version: '1.1.0', request: 'GetFeature', ...q })
    const b = await wfs(app, { service: 'WFS', version: '1.1.0', request: 'GetFeature', ...q })
    t.same(ids(b.body), want, `${prefix}${label}`)
    t.equal(members(b.body), members(a.body), `${prefix}${label}: the same answer`)
  }
}

/** The tutorial's property files as GeoPackage tables (TEXT columns, the mapped feature's polygons as geometry blobs). */
function tutorialGeoPackage (file: string): void {
  const rowsOf = (name: string) => fs.readFileSync(path.join(FIXTURES, 'tutorial', 'sources', name), 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('_='))
    .map((l) => [l.slice(0, l.indexOf('=')), ...l.slice(l.indexOf('=') + 1).split('|')])
  const polygon = (wkt: string) => ({ type: 'Polygon', coordinates: [wkt.replace(/^POLYGON\(\(|\)\)$/g, '').split(',').map((p) => p.trim().split(' ').map(Number))] })
  writeGeoPackage(file, [
    { name: 'mappedfeature', columns: ['id TEXT', 'name TEXT', 'geologic_unit_id TEXT'], geometryColumn: 'shape', geometryType: 'POLYGON', rtree: true,
      rows: rowsOf('mappedfeature.properties').map(([id, name, gu, wkt]) => ({ values: [id, name, gu], geometry: polygon(wkt) })) },
    { name: 'geologicunit', columns: ['id TEXT', 'name TEXT', 'name_codespace TEXT', 'kind TEXT', 'rank TEXT'],
      rows: rowsOf('geologicunit.properties').map(([, id, name, cs, kind, rank]) => ({ values: [id, name, cs, kind, rank === '' ? null : rank] })) }
  ])
}

/** The tutorial store with its sources in a GeoPackage of the upload (dbtype=geopkg). */
export async function overGeoPackage (t: Test): Promise<FastifyInstance> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mw-appschema-gpkg-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  tutorialGeoPackage(path.join(dir, 'tutorial.gpkg'))
  const app = await build(t)
  installCache(app.config.dataDir)
  await app.inject({ method: 'POST', url: `${REST}/namespaces`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { namespace: { prefix: 'gsml', uri: GSML } } })
  const params = '<Parameter><name>dbtype</name><value>geopkg</value></Parameter><Parameter><name>database</name><value>file:./data/tutorial.gpkg</value></Parameter>'
  const items = fixtureItems('tutorial', sourcesIn(params))
    .filter((i) => !i.name.startsWith('sources/'))
  const res = await putZip(app, 'gsml', 'tutorial', await zipItems([...items, { name: 'data/tutorial.gpkg', data: fs.readFileSync(path.join(dir, 'tutorial.gpkg')) }]), '?configure=all')
  if (res.statusCode !== 200) throw new Error(`upload: ${res.statusCode} ${res.body}`)
  return app
}
