// Builds the app on a temporary data directory, registered as a host would register it.
import Fastify, { type FastifyInstance } from 'fastify'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { exposedMapwarden, ROUTER_OPTIONS, type MapwardenPluginOptions } from '../plugins/app.js'
import { pgDatabase } from './fixtures/pg.js'

export const ADMIN_PASSWORD = 'test-admin-password'
export const BASE = '/geoserver'

export interface TestLike {
  teardown (fn: () => unknown): void
  testdirName?: string
}

export function tempDir (t: TestLike, name = 'mw'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

export interface BuildOptions extends MapwardenPluginOptions { keepOpen?: boolean }

/**
 * The backend the suite runs on: the embedded SQLite catalog, or with MAPWARDEN_TEST_BACKEND=pg a
 * new PostgreSQL database per app (test/fixtures/pg.ts), dropped at teardown.
 */
export const TEST_BACKEND = process.env.MAPWARDEN_TEST_BACKEND === 'pg' ? 'pg' : 'sqlite'

// One database per data directory: an app built again on the same directory (a restart) finds its catalog.
const databases = new Map<string, string>()
async function databaseFor (t: TestLike, dataDir: string): Promise<string> {
  let url = databases.get(dataDir)
  if (url === undefined) {
    url = await pgDatabase(t, { migrated: true })
    databases.set(dataDir, url)
    t.teardown(() => databases.delete(dataDir))
  }
  return url
}

export async function build (t: TestLike, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const dataDir = opts.dataDir ?? tempDir(t)
  const databaseUrl = opts.databaseUrl ?? (TEST_BACKEND === 'pg' ? await databaseFor(t, dataDir) : undefined)
  // The router as the standalone server has it (plugins/app.ts serverOptions).
  const root = Fastify({ logger: false, routerOptions: ROUTER_OPTIONS })
  let app: FastifyInstance | undefined
  // The exposed variant so the tests can reach the decorators (app.db, app.workspaces) of the scope it returns;
  // inject() on that scope still goes through the whole server. The encapsulation test registers
  // the plugin exactly as a host would.
  await root.register(async (scope) => {
    await scope.register(exposedMapwarden, {
      env: {},
      adminPassword: ADMIN_PASSWORD,
      authCacheSeconds: 60,
      announce: () => {},
      ...opts,
      dataDir,
      databaseUrl
    })
    app = scope
  }, { prefix: BASE })
  await root.ready()
  if (!opts.keepOpen) t.teardown(() => root.close())
  return app!
}

export function basic (user: string, password: string): string {
  return 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64')
}
export const ADMIN = { authorization: basic('admin', ADMIN_PASSWORD) }

/** The built standalone server (dist/plugins/server.js). */
export const SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../plugins/server.js')

/**
 * The built standalone server as a child process on a free loopback port, with the test password;
 * resolves once it listens (its base URL, and everything it printed so far), rejects if it exits.
 */
export function startBuiltServer (dataDir: string, extraEnv: Record<string, string> = {}): Promise<{ child: ChildProcess, url: string, output: () => string }> {
  const child = spawn(process.execPath, [SERVER], {
    env: { PATH: process.env.PATH, MAPWARDEN_PORT: '0', MAPWARDEN_HOST: '127.0.0.1', MAPWARDEN_DATA_DIR: dataDir, MAPWARDEN_ADMIN_PASSWORD: ADMIN_PASSWORD, MAPWARDEN_LOG_LEVEL: 'info', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  // A test process that ends early (a timeout) takes its servers with it.
  const reap = () => { child.kill('SIGKILL') }
  process.once('exit', reap)
  child.once('exit', () => { process.off('exit', reap) })
  let out = ''
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString()
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) resolve({ child, url: m[1], output: () => out })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)))
  })
}
