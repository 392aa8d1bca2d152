// The crash-safety harness: the BUILT
// server (dist/plugins/server.js) runs as a child process on 127.0.0.1 with a temporary data
// directory; a mixed stream of changes drives it while it is killed with SIGKILL (from outside at
// seeded random moments, or by itself at a named fault point, MAPWARDEN_FAULT_KILL_AT); after each
// kill it is restarted and the seven invariants of the spec are checked.
//
// The model: every tracked resource has the value the last acknowledged change gave it and, while
// a change is in flight, the value that change would give it. After a restart the resource must
// read as one of the two (compared by sha256 of the representation); it then becomes the
// acknowledged value.
import { spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Database } from '../../services/storage/sqlite/sqlite-driver.js'
import sharp from 'sharp'
import { makeZip } from '../fixtures/mosaics/make.js'
import { rgbTiff, pattern } from '../fixtures/seed/mosaic.js'

export const SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../plugins/server.js')
export const PASSWORD = 'crash-admin-password'
export const BASE = '/geoserver'
const AUTH = 'Basic ' + Buffer.from(`admin:${PASSWORD}`).toString('base64')
export const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex')

// ---------------------------------------------------------------- a seeded random source
/** mulberry32: small, fast and the same sequence for the same seed on every machine. */
export function rng (seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: T[]) => xs[Math.floor(next() * xs.length)] }
}

// ---------------------------------------------------------------- the child process
export interface Server {
  child: ChildProcess
  url: string
  exited: Promise<{ code: number | null, signal: NodeJS.Signals | null }>
  output: () => string
}

export interface Env { dataDir: string, harvestRoot: string }

export function makeEnv (prefix = 'mw-crash'): Env & { cleanup: () => void } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`)))
  const dataDir = path.join(root, 'data')
  const harvestRoot = path.join(root, 'harvest')
  fs.mkdirSync(harvestRoot, { recursive: true })
  return { dataDir, harvestRoot, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) }
}

/** Starts the built server; resolves when it listens. `fault` sets MAPWARDEN_FAULT_KILL_AT. */
export function start (env: Env, fault?: string, extra: Record<string, string> = {}): Promise<Server> {
  const child = spawn(process.execPath, [SERVER], {
    env: {
      PATH: process.env.PATH,
      MAPWARDEN_PORT: '0',
      MAPWARDEN_HOST: '127.0.0.1',
      MAPWARDEN_DATA_DIR: env.dataDir,
      MAPWARDEN_ADMIN_PASSWORD: PASSWORD,
      MAPWARDEN_LOG_LEVEL: 'info',
      MAPWARDEN_WORKER_THREADS: '1',
      MAPWARDEN_HARVEST_ROOTS: env.harvestRoot,
      // Invariant 7 checks the tasks a kill interrupts end ABORTED with a reason: the setting that
      // keeps that behaviour. Resuming them (the default) has its own crash test, resume.test.ts.
      MAPWARDEN_RESUME_TASKS: 'false',
      ...(fault ? { MAPWARDEN_FAULT_KILL_AT: fault } : {}),
      ...extra
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let out = ''
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString()
      if (out.length > 200_000) out = out.slice(-100_000)
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) resolve({ child, url: m[1], exited, output: () => out })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    void exited.then((e) => reject(new Error(`server exited (${e.code ?? e.signal}) before listening: ${out.slice(-2000)}`)))
  })
}

export async function kill (s: Server): Promise<void> {
  s.child.kill('SIGKILL')
  await s.exited
}

// ---------------------------------------------------------------- HTTP
export interface Res { status: number, body: Buffer, text: string, json: () => any }
export class Disconnected extends Error {}

export async function http (s: Server, method: string, url: string, body?: string | Buffer, type?: string): Promise<Res> {
  let res: Response
  try {
    res = await fetch(s.url + BASE + url, {
      method,
      headers: { authorization: AUTH, ...(type ? { 'content-type': type } : {}) },
      body: body as BodyInit | undefined
    })
  } catch (err) {
    throw new Disconnected(`${method} ${url}: ${(err as Error).message}`)
  }
  let buf: Buffer
  try { buf = Buffer.from(await res.arrayBuffer()) } catch (err) { throw new Disconnected(`${method} ${url}: ${(err as Error).message}`) }
  return { status: res.status, body: buf, text: buf.toString(), json: () => JSON.parse(buf.toString()) }
}

// ---------------------------------------------------------------- fixtures
export function sld (name: string, rev: number): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld" xmlns:xlink="http://www.w3.org/1999/xlink">
  <NamedLayer><Name>${name}</Name><UserStyle><Name>${name}</Name><Title>revision ${rev}</Title><FeatureTypeStyle><Rule>
    <PointSymbolizer><Graphic><ExternalGraphic><OnlineResource xlink:type="simple" xlink:href="${name}.png"/><Format>image/png</Format></ExternalGraphic>
    <Size>${8 + (rev % 40)}</Size></Graphic></PointSymbolizer>
  </Rule></FeatureTypeStyle></UserStyle></NamedLayer>
</StyledLayerDescriptor>
`
}

export async function stylePackage (name: string, rev: number): Promise<Buffer> {
  const image = await sharp({ create: { width: 4, height: 4, channels: 4, background: { r: rev % 256, g: 10, b: 10, alpha: 1 } } }).png().toBuffer()
  return makeZip({ [`${name}.sld`]: sld(name, rev), [`${name}.png`]: image })
}

const BBOX: [number, number, number, number] = [0, 0, 40, 40]
/** Granules g<k>.tif of one mosaic generation, each a quarter of a 40x40 degree square. */
export async function mosaicZip (gen: number, count: number): Promise<Buffer> {
  const files: Record<string, Buffer> = {}
  for (let k = 0; k < count; k++) {
    const qx = k % 2
    const qy = Math.floor(k / 2) % 2
    files[`g${gen}_${k}.tif`] = rgbTiff(16, 16, [qx * 20, qy * 20, qx * 20 + 20, qy * 20 + 20], (x, y, b) => (pattern(x, y, b) + gen * 11) % 256)
  }
  return makeZip(files)
}

export function harvestFile (env: Env, name: string, gen: number): string {
  const p = path.join(env.harvestRoot, name)
  fs.writeFileSync(p, rgbTiff(16, 16, [20, 20, 40, 40], (x, y, b) => (pattern(x, y, b) + gen * 5) % 256))
  return p
}

export { BBOX }

// ---------------------------------------------------------------- the model
type Fetch = (s: Server) => Promise<string>
interface Tracked { fetch: Fetch, acked: string, pending: string[] }

export class Model {
  readonly resources = new Map<string, Tracked>()
  /** Seed and truncate task ids seen, and which were last seen unfinished. */
  readonly tasks = new Set<number>()
  maxTaskId = 0
  masterPassword = ''
  /** Granule files of a purge=all delete in flight: once their row is gone, so must they be. */
  purges: string[] = []
  acl: Record<string, string> = {}
  readonly env: Env
  constructor (env: Env) { this.env = env }

  track (key: string, fetch: Fetch, acked: string) {
    if (!this.resources.has(key)) this.resources.set(key, { fetch, acked, pending: [] })
  }
  /** A change is about to be sent: the resource may read `next` from now on. */
  expect (key: string, next: string) { this.resources.get(key)!.pending.push(next) }
  /** The change was acknowledged. */
  ack (key: string, next: string) {
    const r = this.resources.get(key)!
    r.acked = next
    r.pending = []
  }
}

export interface Failure { invariant: number, message: string }

/** Resource values are compared by sha256 of their representation (invariant 1). */
const short = (v: string) => v.length > 80 ? `sha256:${sha(v).slice(0, 12)}` : v

// ---------------------------------------------------------------- invariants
export async function checkInvariants (s: Server, m: Model): Promise<Failure[]> {
  const fails: Failure[] = []
  const fail = (invariant: number, message: string) => fails.push({ invariant, message })

  // 1 and 4 and 5: every resource reads as the acknowledged value or the value of the change in
  // flight, never anything else (ACL rules and the master password are tracked resources too).
  for (const [key, r] of m.resources) {
    const actual = await r.fetch(s)
    const allowed = [r.acked, ...r.pending]
    if (!allowed.some((v) => sha(v) === sha(actual))) {
      const inv = key === 'acl' ? 4 : key === 'masterpw' ? 5 : 1
      fail(inv, `${key}: read ${short(actual)}, expected one of ${allowed.map(short).join(' | ')}`)
    }
    r.acked = actual
    r.pending = []
  }

  // 2: a purge whose rows are gone has removed its files too (the start finishes it).
  const listed = m.resources.get('mosaic')?.acked ?? ''
  for (const p of m.purges) {
    if (!listed.split('\n').includes(p) && fs.existsSync(p)) fail(2, `granule ${p} left the index but its purge=all did not remove the file`)
  }
  m.purges = []

  // 5: the master password in use opens the keystore: changing it to itself+x and back works.
  const mp = await http(s, 'GET', '/rest/security/masterpw.json')
  if (mp.status !== 200) fail(5, `GET masterpw: ${mp.status} ${mp.text}`)
  else m.masterPassword = mp.json().oldMasterPassword

  // 2 and 3: catalog and files agree; no temp or staging files after the startup clean-up.
  fails.push(...checkFiles(m.env.dataDir))

  // 6: quota usage is never negative and, once the rebuild a crash triggers is done, equals a scan.
  let usage: any
  for (;;) {
    const res = await http(s, 'GET', '/gwc/rest/diskquota/usage.json')
    if (res.status !== 200) { fail(6, `GET usage: ${res.status} ${res.text}`); break }
    usage = res.json().diskQuotaUsage
    if (usage.rebuild.state !== 'running') break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  if (usage) {
    if (!(usage.usedBytes >= 0)) fail(6, `usage ${usage.usedBytes} is negative`)
    for (const l of usage.layers?.layer ?? []) if (l.usedBytes < 0) fail(6, `layer ${l.name} usage ${l.usedBytes} is negative`)
    const scanned = scanTiles(path.join(m.env.dataDir, 'tiles'), usage.diskBlockSize)
    if (usage.usedBytes !== scanned) {
      // Within one flush window: the flush that ends it must make them agree.
      await new Promise((resolve) => setTimeout(resolve, 1100))
      const again = (await http(s, 'GET', '/gwc/rest/diskquota/usage.json')).json().diskQuotaUsage.usedBytes
      const rescan = scanTiles(path.join(m.env.dataDir, 'tiles'), usage.diskBlockSize)
      if (again !== rescan) fail(6, `usage ${again} bytes, a scan of the tiles finds ${rescan}`)
    }
  }

  // 7: no task is running after a restart; tasks of the previous run say why they stopped.
  const list = await http(s, 'GET', '/gwc/rest/seed.json')
  const rows = list.json()['long-array-array'] as number[][]
  const leftover = rows.filter((r) => r[3] <= m.maxTaskId)
  if (leftover.length) fail(7, `tasks of the previous run are listed after the restart: ${JSON.stringify(leftover)}`)
  for (const id of m.tasks) {
    const res = await http(s, 'GET', `/gwc/rest/seed/tasks/${id}.json`)
    if (res.status !== 200) { fail(7, `task ${id}: ${res.status} ${res.text}`); continue }
    const t = res.json().task
    if (t.state === 'running' || t.state === 'pending') fail(7, `task ${id} shows ${t.state} after the restart`)
    else if (t.state === 'aborted' && !/^aborted: /.test(t.error ?? '')) fail(7, `task ${id} aborted without a reason: ${JSON.stringify(t)}`)
    else if (t.state === 'aborted' && /\//.test(t.error)) fail(7, `task ${id}: the reason shows a file path: ${t.error}`)
  }
  m.tasks.clear()
  // Tasks created just before the kill, whose request was never answered, are recorded too.
  for (let id = m.maxTaskId + 1; ; id++) {
    const res = await http(s, 'GET', `/gwc/rest/seed/tasks/${id}.json`)
    if (res.status !== 200) break
    const t = res.json().task
    if (t.state === 'running' || t.state === 'pending') fail(7, `task ${id} shows ${t.state} after the restart`)
    m.maxTaskId = id
  }
  return fails
}

/** Bytes of every tile file, each rounded up to the disk block size (what the quota counts). */
export function scanTiles (dir: string, block: number): number {
  let total = 0
  walkFiles(dir, (p) => { total += Math.ceil(fs.statSync(p).size / block) * block })
  return total
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const IEND = Buffer.from([0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82])

function walkFiles (dir: string, fn: (p: string, rel: string) => void) {
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else fn(p, path.relative(dir, p))
    }
  }
  if (fs.existsSync(dir)) walk(dir)
}

/** Invariants 2 and 3, read from the catalog database (read-only, beside the running server). */
export function checkFiles (dataDir: string): Failure[] {
  const fails: Failure[] = []
  walkFiles(dataDir, (p, rel) => {
    if (rel.endsWith('.mwtmp')) fails.push({ invariant: 3, message: `temp file left after the start: ${rel}` })
    if (rel.startsWith('tmp' + path.sep)) fails.push({ invariant: 3, message: `staging file left after the start: ${rel}` })
    if (rel.startsWith('aside' + path.sep)) fails.push({ invariant: 3, message: `aside folder left after the start: ${rel}` })
    if (rel.startsWith('tiles' + path.sep) && rel.endsWith('.png')) {
      const b = fs.readFileSync(p)
      if (!b.subarray(0, 8).equals(PNG_SIGNATURE) || !b.subarray(b.length - 8).equals(IEND)) fails.push({ invariant: 1, message: `torn tile ${rel}` })
    }
  })
  const db = new Database(path.join(dataDir, 'catalog.db'), { readonly: true, fileMustExist: true })
  try {
    // Styles: every live file and image of a row exists; every .sld and image in a style folder
    // belongs to a row (or is a .bak kept by a DELETE without purge).
    const styles = db.prepare('SELECT workspace, name, file, images FROM styles').all() as Array<{ workspace: string | null, name: string, file: string | null, images: string }>
    const folder = (ws: string | null) => ws === null ? path.join(dataDir, 'styles') : path.join(dataDir, 'workspaces', ws, 'styles')
    const owned = new Map<string, Set<string>>()
    for (const st of styles) {
      const dir = folder(st.workspace)
      const set = owned.get(dir) ?? new Set<string>()
      owned.set(dir, set)
      // An image is a plain name (older rows) or { name, file } (file relative to the folder).
      const images = (JSON.parse(st.images) as Array<string | { file: string }>).map((i) => typeof i === 'string' ? i : i.file)
      for (const f of [...(st.file ? [st.file] : []), ...images]) {
        set.add(f)
        if (!fs.existsSync(path.join(dir, f))) fails.push({ invariant: 2, message: `style ${st.name}: ${f} is in the catalog but not on disk` })
      }
    }
    const dirs = [path.join(dataDir, 'styles'), ...(fs.existsSync(path.join(dataDir, 'workspaces')) ? fs.readdirSync(path.join(dataDir, 'workspaces')).map((w) => path.join(dataDir, 'workspaces', w, 'styles')) : [])]
    for (const dir of dirs) {
      if (!fs.existsSync(dir)) continue
      // Files of styles with a sub-folder of their own (packages/<id>/...) are listed with it.
      for (const f of fs.readdirSync(dir, { recursive: true }).map(String)) {
        if (f.endsWith('.bak') || fs.statSync(path.join(dir, f)).isDirectory()) continue
        if (!owned.get(dir)?.has(f)) fails.push({ invariant: 2, message: `${path.relative(dataDir, path.join(dir, f))} is on disk but no style has it` })
      }
    }
    // Mosaics: every indexed granule file exists; every store folder has a store row.
    const granules = db.prepare('SELECT workspace, store, path, location FROM mosaic_granules').all() as Array<{ workspace: string, store: string, path: string, location: string }>
    const mosaics = new Map((db.prepare('SELECT workspace, store, dir FROM mosaic_stores').all() as Array<{ workspace: string, store: string, dir: string }>).map((r) => [`${r.workspace}/${r.store}`, r.dir]))
    for (const g of granules) {
      const dir = mosaics.get(`${g.workspace}/${g.store}`) ?? ''
      const p = g.path || (path.isAbsolute(g.location) ? g.location : path.join(dir, g.location))
      if (!fs.existsSync(p)) fails.push({ invariant: 2, message: `granule ${g.location} of ${g.workspace}:${g.store} is indexed but missing` })
    }
    const dataRoot = path.join(dataDir, 'data')
    if (fs.existsSync(dataRoot)) {
      for (const ws of fs.readdirSync(dataRoot)) {
        for (const st of fs.readdirSync(path.join(dataRoot, ws))) {
          if (!mosaics.has(`${ws}/${st}`)) fails.push({ invariant: 2, message: `store folder data/${ws}/${st} has no catalog entry` })
        }
      }
    }
  } finally { db.close() }
  return fails
}
