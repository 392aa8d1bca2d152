// Builds the app on a temporary data directory, registered as a host would register it.
import Fastify, { type FastifyInstance } from 'fastify'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { exposedMapwarden, type MapwardenPluginOptions } from '../plugins/app.js'

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

export async function build (t: TestLike, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const dataDir = opts.dataDir ?? tempDir(t)
  const root = Fastify({ logger: false })
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
      dataDir
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
