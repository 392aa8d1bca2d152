// Shared bench helpers: start the real plugin on a loopback port, load it with autocannon.
import Fastify, { type FastifyInstance } from 'fastify'
import fastifyStatic from '@fastify/static'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { exposedMapwarden, type MapwardenPluginOptions } from '../plugins/app.js'

export interface Figure { name: string, value: number, unit: string, note?: string }
export const BENCH_PASSWORD = 'bench-admin-password'
export const AUTH = 'Basic ' + Buffer.from(`admin:${BENCH_PASSWORD}`).toString('base64')

/**
 * The real plugin (its decorators visible, for benches that set data up directly) under
 * /geoserver on a loopback port; `close()` also removes a data directory it made itself.
 */
export async function startMapwarden (opts: MapwardenPluginOptions = {}): Promise<{ app: FastifyInstance, url: string, close: () => Promise<void> }> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'mw-bench-'))
  const root = Fastify({ logger: false })
  let app: FastifyInstance | undefined
  await root.register(async (scope) => {
    await scope.register(exposedMapwarden, { env: {}, adminPassword: BENCH_PASSWORD, announce: () => {}, logLevel: 'silent', ...opts, dataDir })
    app = scope
  }, { prefix: '/geoserver' })
  const url = await root.listen({ port: 0, host: '127.0.0.1' })
  return {
    app: app!,
    url,
    close: async () => { await root.close(); if (!opts.dataDir) fs.rmSync(dataDir, { recursive: true, force: true }) }
  }
}

/**
 * Whether a baseline tool is there (`check`), after scripts/install-bench-tools.sh installed the
 * Debian packages of every baseline when it was not and this process may (root, apt-get).
 */
export function haveBenchTool (check: () => boolean): boolean {
  if (check()) return true
  if (process.getuid?.() !== 0 || spawnSync('which', ['apt-get']).status !== 0) return false
  const script = fileURLToPath(new URL('../../scripts/install-bench-tools.sh', import.meta.url))
  spawnSync('bash', [script], { stdio: 'ignore' })
  return check()
}

export async function load (url: string, headers: Record<string, string> = {}, seconds = 5, connections = 20): Promise<{ rps: number, p99: number, errors: number }> {
  // The load generator runs in a worker thread, so it does not share the server's event loop.
  const r = await autocannon({ url, headers, duration: seconds, connections, workers: 1 })
  return { rps: r.requests.average, p99: r.latency.p99, errors: r.errors + r.non2xx }
}

/**
 * Cached GETs of a stored file through one of our routes against @fastify/static serving that file:
 * alternated, three rounds of 4 s with 10 clients each (the load generator in a worker thread), the
 * median requests per second of each side.
 */
export async function againstStatic (oursUrl: string, file: string): Promise<{ ours: number, theirs: number }> {
  const stat = Fastify({ logger: false })
  await stat.register(fastifyStatic, { root: path.dirname(file) })
  await stat.listen({ port: 0, host: '127.0.0.1' })
  try {
    const staticUrl = `http://127.0.0.1:${(stat.server.address() as { port: number }).port}/${path.basename(file)}`
    const ours: number[] = []
    const theirs: number[] = []
    for (let i = 0; i < 3; i++) {
      ours.push((await load(oursUrl, {}, 4, 10)).rps)
      theirs.push((await load(staticUrl, {}, 4, 10)).rps)
    }
    const median = (a: number[]) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)]
    return { ours: median(ours), theirs: median(theirs) }
  } finally { await stat.close() }
}
