// The standalone server (plugins/server.ts) as the load bench runs it: the same built plugin and
// serverOptions(), configured from MAPWARDEN_* variables, plus one host-level route the plugin
// does not have: GET /bench/stats, the process's own event-loop delay (monitorEventLoopDelay,
// 10 ms resolution), memory, and the metatiles rendered: tiles written per metatile (4 x 4, as the
// store reports them), a metatile counting once per full set of its tiles written.
// `?reset=1` starts a new measurement window; `?gc=1` collects garbage first (the bench starts
// this process with --expose-gc). The plugin is registered as the server does, in a scope of its
// own under the base path, with its decorators visible in that scope (the tile store's events).
import Fastify, { type FastifyInstance } from 'fastify'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { exposedMapwarden, resolveConfig, serverOptions } from '../plugins/app.js'

async function main () {
  const config = resolveConfig()
  const app = Fastify(serverOptions(config))
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  let peakRss = process.memoryUsage.rss()
  setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage.rss()) }, 250).unref()
  // Per metatile: tile writes, and the distinct tiles written.
  let metatiles = new Map<string, { writes: number, tiles: Set<string> }>()
  const rendered = () => {
    let renders = 0
    let writes = 0
    for (const m of metatiles.values()) { renders += Math.round(m.writes / m.tiles.size); writes += m.writes }
    return { metatilesRendered: renders, metatilesWritten: metatiles.size, tileWrites: writes }
  }
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
      heapUsed: process.memoryUsage().heapUsed,
      ...rendered()
    }
    if (q.reset) { loop.reset(); peakRss = out.rss; metatiles = new Map() }
    return out
  })
  await app.register(async (scope: FastifyInstance) => {
    await scope.register(exposedMapwarden, {})
    scope.tileCache.store.onTileWritten((e) => {
      const key = `${e.layer} ${e.gridSet} ${e.format} ${e.parameterId} ${e.z} ${e.x >> 2} ${e.y >> 2}`
      const m = metatiles.get(key) ?? { writes: 0, tiles: new Set<string>() }
      m.writes++
      m.tiles.add(`${e.x} ${e.y}`)
      metatiles.set(key, m)
    })
  }, { prefix: config.basePath })
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
  }
  await app.listen({ port: config.port, host: config.host })
  process.stdout.write(`mapwarden load server listening on ${config.host}:${config.port}\n`)
}

main().catch((err) => { process.stderr.write(`load-server: ${err?.message ?? err}\n`); process.exit(1) })
