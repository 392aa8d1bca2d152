// The standalone server: the same plugin, configured from MAPWARDEN_* variables.
import Fastify from 'fastify'
import mapwarden, { resolveConfig, serverOptions } from './app.js'
import { ConfigError } from './infra/config.js'

async function main () {
  let config
  try {
    config = resolveConfig()
  } catch (err) {
    if (err instanceof ConfigError) { process.stderr.write(`mapwarden: ${err.message}\n`); process.exit(2) }
    throw err
  }
  const app = Fastify(serverOptions(config))
  await app.register(mapwarden, { prefix: config.basePath })
  let closing = false
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (closing) return
      closing = true
      app.log.info({ signal }, 'shutting down: no new requests, finishing writes, closing pools and databases')
      app.close().then(() => process.exit(0), (err) => { app.log.error({ err }, 'shutdown failed'); process.exit(1) })
    })
  }
  await app.listen({ port: config.port, host: config.host })
}

main().catch((err) => {
  const message = err?.code === 'EADDRINUSE'
    ? `port ${err.port} on ${err.address} is in use: stop what listens there, or choose another MAPWARDEN_PORT`
    : err?.message ?? err
  process.stderr.write(`mapwarden: failed to start: ${message}\n`)
  process.exit(1)
})
