// One assertion for every hostile-input case : the
// status, a text/plain message that names the problem and leaks nothing (no stack
// trace, absolute path, environment value, class name or internal error code), and nothing changed:
// the data-directory manifest (test/manifest.ts), the catalog rows, and no temp file left behind.
import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createHash } from 'node:crypto'
import { exposedMapwarden, serverOptions, type MapwardenPluginOptions } from '../../plugins/app.js'
import { ADMIN_PASSWORD, BASE, tempDir, type TestLike } from '../helper.js'
import { manifest } from '../manifest.js'
import type { Test } from 'tap'

export { ADMIN, BASE, ADMIN_PASSWORD, basic } from '../helper.js'

export type T = Test

export interface Hostile {
  /** The mapwarden scope (decorators visible: app.db, app.tileCache...). */
  app: FastifyInstance
  /** The host server, built with mapwarden's own serverOptions() as the standalone server is. */
  root: FastifyInstance
  dataDir: string
  inject (req: InjectOptions): Promise<LightMyRequestResponse>
}

/**
 * The app as the standalone server runs it (serverOptions: body limit, client-error and
 * framework-error handlers), on a fresh temporary data directory, not listening.
 */
export async function hostileApp (t: TestLike, opts: MapwardenPluginOptions & { listen?: boolean } = {}): Promise<Hostile & { port: number }> {
  const dataDir = opts.dataDir ?? tempDir(t, 'mw-hostile')
  const bodyLimit = opts.bodyLimit !== undefined ? Number(opts.bodyLimit) : 5 * 1024 * 1024
  const root = Fastify({ ...serverOptions({ logLevel: 'silent', bodyLimit }), logger: false })
  let app: FastifyInstance | undefined
  const { listen, ...pluginOpts } = opts
  await root.register(async (scope) => {
    await scope.register(exposedMapwarden, {
      env: {}, adminPassword: ADMIN_PASSWORD, authCacheSeconds: 60, announce: () => {}, ...pluginOpts, dataDir
    })
    app = scope
  }, { prefix: BASE })
  let port = 0
  if (listen) {
    await root.listen({ port: 0, host: '127.0.0.1' })
    port = (root.server.address() as { port: number }).port
  } else await root.ready()
  t.teardown(() => root.close())
  // A new data directory's usage is counted from its files once, in the background, after the
  // start; the rows it writes are not a hostile request's doing, so the cases start after it.
  await app!.diskQuota.flush()
  return { app: app!, root, dataDir, port, inject: (req) => root.inject(req) as Promise<LightMyRequestResponse> }
}

const STANDING = new Set(['tmp', path.join('tmp', 'uploads'), path.join('tmp', 'tiles')])

/** Files a failed request must never leave: anything under tmp/, *.mwtmp, *.upload, *.tmp. */
export function tempFiles (dataDir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    let entries: fs.Dirent[]
    try { entries = fs.readdirSync(d, { withFileTypes: true }) } catch { return }
    for (const e of entries) {
      const p = path.join(d, e.name)
      const rel = path.relative(dataDir, p)
      const underTmp = rel.split(path.sep)[0] === 'tmp'
      if (e.isDirectory()) {
        // The standing folders tmp/, tmp/uploads and tmp/tiles are not leftovers; a staging folder inside is.
        if (underTmp && !STANDING.has(rel)) out.push(rel + path.sep)
        walk(p)
      } else if (underTmp || /\.(mwtmp|upload|tmp|part)$/.test(e.name)) out.push(rel)
    }
  }
  walk(dataDir)
  return out.sort()
}

/** Every catalog row, hashed per table (the "catalog GETs answer the same" of the spec). */
export function catalogDigest (app: FastifyInstance, ignore: RegExp = /^$/): Record<string, string> {
  const db = (app as unknown as { db: { prepare (sql: string): { all (): unknown[] } } }).db
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>
  const out: Record<string, string> = {}
  for (const { name } of tables) {
    if (/_rtree_(node|parent|rowid)$/.test(name) || ignore.test(name)) continue
    const rows = db.prepare(`SELECT * FROM "${name}"`).all()
    out[name] = createHash('sha256').update(JSON.stringify(rows, (_k, v) => Buffer.isBuffer(v) ? v.toString('hex') : v)).digest('hex')
  }
  return out
}

export interface State { files: string[], temps: string[], catalog: Record<string, string> }
export function snapshot (h: Pick<Hostile, 'app' | 'dataDir'>, ignoreTables?: RegExp): State {
  return { files: manifest(h.dataDir), temps: tempFiles(h.dataDir), catalog: catalogDigest(h.app, ignoreTables) }
}

export function assertUnchanged (t: T, h: Pick<Hostile, 'app' | 'dataDir'>, before: State, what: string, ignoreTables?: RegExp): void {
  const after = snapshot(h, ignoreTables)
  t.same(after.files, before.files, `${what}: data directory manifest unchanged`)
  t.same(after.catalog, before.catalog, `${what}: catalog rows unchanged`)
  const left = after.temps.filter((p) => !before.temps.includes(p))
  t.same(left, [], `${what}: no temp file left`)
}

const envValues = Object.entries(process.env)
  .filter(([k, v]) => typeof v === 'string' && v.length >= 8 && !/^(LANG|LC_|TERM|SHELL|_$|SHLVL|COLORTERM|PWD|OLDPWD)/.test(k))
  .map(([, v]) => v as string)
const absolutePaths = [...new Set([os.tmpdir() + '/', process.cwd(), os.homedir(), '/work/', 'node_modules', '/dist/'])]
  .filter((p) => p.length > 1 && p !== '/')

/** Status, text/plain, message matches, and no internals leak. */
export function assertMessage (t: T, res: { statusCode: number, headers: Record<string, unknown>, body: string }, status: number | number[], message: RegExp, what: string, dataDir?: string): void {
  const statuses = Array.isArray(status) ? status : [status]
  t.ok(statuses.includes(res.statusCode), `${what}: status ${res.statusCode} is one of ${statuses.join('/')} (body: ${res.body.slice(0, 200)})`)
  t.match(String(res.headers['content-type'] ?? ''), /^text\/plain/, `${what}: text/plain message`)
  t.match(res.body, message, `${what}: message names the problem`)
  leaksNothing(t, res.body, what, dataDir)
}

/** No stack frame, absolute path, environment value, password, file content, class or error-code name in a message. */
export function leaksNothing (t: T, body: string, what: string, dataDir?: string): void {
  t.notMatch(body, /\n\s+at [^\n]*:\d+:\d+|\bat (async )?[\w.<>]+ \(|\bat .+:\d+:\d+|\.(ts|js):\d+/, `${what}: no stack trace`)
  for (const p of [...absolutePaths, ...(dataDir ? [dataDir] : [])]) {
    t.ok(!body.includes(p), `${what}: no absolute path (${p.length > 12 ? p.slice(0, 12) + '...' : p})`)
  }
  t.notMatch(body, /(^|[\s(:"'])\/(tmp|home|work|root|usr|proc|var)\//, `${what}: no absolute system path`)
  const leaked = envValues.find((v) => body.includes(v))
  t.ok(leaked === undefined, `${what}: no environment value`)
  t.notOk(body.includes(ADMIN_PASSWORD), `${what}: no password`)
  t.notMatch(body, /root:x:0:0/, `${what}: no file content`)
  t.notMatch(body, /\b(TypeError|RangeError|SyntaxError|ReferenceError|SqliteError|FastifyError|AbortError|\w+Exception)\b|Error:|\[object Object\]|\bundefined\b|node:internal|\bFST_[A-Z_]+|\bMW_[A-Z]+_[A-Z_]+|\bERR_[A-Z_]+|\bHPE_[A-Z_]+|\bE(NOENT|ACCES|PERM|ISDIR|NOTDIR|EXIST|NOSPC|MFILE|BUSY|INVAL|CONNREFUSED|CONNRESET|PIPE|AGAIN|LOOP|NAMETOOLONG|ROFS|XDEV|NOTEMPTY)\b/, `${what}: no class name or internal code`)
}

export interface Expect {
  status: number | number[]
  message: RegExp
  /** Catalog tables allowed to change (e.g. a failed-login counter); default none. */
  ignoreTables?: RegExp
}

/** Sends `req`, then asserts the refusal and that nothing changed. Returns the response. */
export async function refuse (t: T, h: Hostile, req: InjectOptions, expect: Expect, what = `${req.method ?? 'GET'} ${String(req.url).slice(0, 80)}`) {
  const before = snapshot(h, expect.ignoreTables)
  const res = await h.inject(req)
  assertMessage(t, res, expect.status, expect.message, what, h.dataDir)
  assertUnchanged(t, h, before, what, expect.ignoreTables)
  return res
}
