// The standalone server (plugins/server.ts) as the load bench runs it: the same built plugin and
// serverOptions(), configured from MAPWARDEN_* variables, plus one host-level route the plugin
// does not have: GET /bench/stats, the process's own event-loop delay (monitorEventLoopDelay,
// 10 ms resolution) and memory. `?reset=1` starts a new measurement window; `?gc=1` collects
// garbage first (the bench starts this process with --expose-gc).
import Fastify from 'fastify'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import mapwarden, { resolveConfig, serverOptions } from '../plugins/app.js'

async function main () {
  const config = resolveConfig()
  const app = Fastify(serverOptions(config))
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  let peakRss = process.memoryUsage.rss()
  setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage.rss()) }, 250).unref()
  app.get('/bench/stats', async (req) => {
    const q = req.query as { reset?: string, gc?: string }
    const gc = (globalThis as { gc?: () => void }).gc
    if (q.gc && gc) gc()
    const ms = (ns: number) => Math.round(ns / 1e4) / 100
    const out = {
      loopP50Ms: ms(loop.percentile(50)),
      loopP99Ms: ms(loop.percentile(99)),
      loopMaxMs: ms(loop.max),
      rss: process.memoryUsage.rss(),
      peakRss,
      heapUsed: process.memoryUsage().heapUsed
    }
    if (q.reset) { loop.reset(); peakRss = out.rss }
    return out
  })
  await app.register(mapwarden, { prefix: config.basePath })
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
  }
  await app.listen({ port: config.port, host: config.host })
  process.stdout.write(`mapwarden load server listening on ${config.host}:${config.port}\n`)
}

main().catch((err) => { process.stderr.write(`load-server: ${err?.message ?? err}\n`); process.exit(1) })
