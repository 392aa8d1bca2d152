// Shared by the app-schema plugin tests: ZIPs built from fixture folders or from entries made in
// the test (hostile ones included), the schema cache, and a data-directory manifest that proves a
// refused request changed nothing.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import yazl from 'yazl'
import yauzl from 'yauzl'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { ADMIN, BASE } from '../../helper.js'
import { manifest as sharedManifest } from '../../manifest.js'
import pg from 'pg'
import { pgDatabase } from '../../fixtures/pg.js'

// dist/test/plugins -> project root
export const FIXTURES = fileURLToPath(new URL('../../../../test/fixtures/appschema/', import.meta.url))
export const REST = `${BASE}/rest`

export interface ZipItem { name: string, data?: Buffer | string, mode?: number }

export function zipItems (items: ZipItem[]): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const item of items) {
    const opts = { mtime: new Date(Date.UTC(2024, 0, 1)), ...(item.mode !== undefined ? { mode: item.mode } : {}) }
    if (item.name.endsWith('/')) zip.addEmptyDirectory(item.name, opts)
    else zip.addBuffer(Buffer.from(item.data ?? ''), item.name, opts)
  }
  zip.end()
  const chunks: Buffer[] = []
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c))
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)))
    zip.outputStream.on('error', reject)
  })
}

export function filesOf (dir: string, prefix = ''): string[] {
  const out: string[] = []
  for (const e of fs.readdirSync(path.join(dir, prefix), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name
    if (e.isDirectory()) out.push(...filesOf(dir, rel))
    else out.push(rel)
  }
  return out
}

/** A fixture folder as ZIP items, optionally edited: { 'file': (text) => newText }. */
export function fixtureItems (name: string, edits: Record<string, (text: string) => string> = {}): ZipItem[] {
  const dir = path.join(FIXTURES, name)
  return filesOf(dir).map((rel) => {
    const data = fs.readFileSync(path.join(dir, rel))
    return { name: rel, data: edits[rel] ? edits[rel](data.toString('utf8')) : data }
  })
}

export function fixtureZip (name: string, edits: Record<string, (text: string) => string> = {}): Promise<Buffer> {
  return zipItems(fixtureItems(name, edits))
}

export function fixtureText (rel: string): string {
  return fs.readFileSync(path.join(FIXTURES, rel), 'utf8')
}

/** The expected-representation fixtures, with {{URL}} standing for the stored mapping's file URL. */
export function expected (name: string, vars: Record<string, string> = {}): string {
  let text = fixtureText(path.join('expected', name)).replace(/\n$/, '')
  for (const [k, v] of Object.entries(vars)) text = text.split(`{{${k}}}`).join(v)
  return text
}

export function installCache (dataDir: string): void {
  fs.cpSync(path.join(FIXTURES, 'cache'), path.join(dataDir, 'app-schema-cache'), { recursive: true })
}

export async function createWorkspace (app: FastifyInstance, name: string): Promise<void> {
  const res = await app.inject({ method: 'POST', url: `${REST}/workspaces`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { workspace: { name } } })
  if (res.statusCode !== 201) throw new Error(`workspace ${name}: ${res.statusCode} ${res.body}`)
}

export function putZip (app: FastifyInstance, ws: string, store: string, zip: Buffer, query = ''): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'PUT', url: `${REST}/workspaces/${ws}/datastores/${store}/file.appschema${query}`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
}

export function putText (app: FastifyInstance, ws: string, store: string, text: string, query = '', contentType = 'text/xml'): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'PUT', url: `${REST}/workspaces/${ws}/datastores/${store}/file.appschema${query}`, headers: { ...ADMIN, 'content-type': contentType }, payload: text })
}

export async function get (app: FastifyInstance, url: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'GET', url: `${REST}${url}`, headers: ADMIN })
}

/** The shared data-directory manifest, without tmp/ (uploads there are the foundation's; tmpLeftovers checks the rest). */
export function manifest (dataDir: string): string[] {
  return sharedManifest(dataDir).filter((line) => !line.startsWith('tmp/'))
}

/** What tmp/ holds besides uploads the foundation removes after the response. */
export function tmpLeftovers (dataDir: string): string[] {
  return fs.readdirSync(path.join(dataDir, 'tmp')).filter((n) => n !== 'uploads')
}

export function zipNames (zip: Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, z) => {
      if (err || !z) return reject(err)
      const names: string[] = []
      z.on('entry', (e: yauzl.Entry) => { names.push(e.fileName); z.readEntry() })
      z.on('end', () => resolve(names))
      z.on('error', reject)
      z.readEntry()
    })
  })
}

/**
 * single/stations.xml pointed at a PostGIS database of its own holding its `stations` table: a
 * store's sources are connected when it is created, so its database must answer.
 */
export async function stationsMapping (t: { teardown (fn: () => unknown): void }): Promise<string> {
  const url = await pgDatabase(t, { postgis: true })
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try { await c.query('CREATE TABLE stations (id serial PRIMARY KEY, code text, location geometry(Point, 4326))') } finally { await c.end() }
  const u = new URL(url)
  return fixtureText('single/stations.xml')
    .replace('<value>db.example.org</value>', `<value>${u.hostname}</value>`)
    .replace('<value>5432</value>', `<value>${u.port || '5432'}</value>`)
    .replace('<value>stations</value>', `<value>${u.pathname.slice(1)}</value>`)
    .replace('<value>reader</value>', `<value>${decodeURIComponent(u.username) || 'postgres'}</value>`)
}
