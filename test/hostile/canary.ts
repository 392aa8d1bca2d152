// A loopback canary for SSRF/XXE/schema cases: an HTTP server on
// 127.0.0.1, random port, that counts every TCP connection and every request it gets. A hostile test
// points a reference at `url` and asserts `hits() === 0` afterwards. Connections are counted too, so
// a fetch that opens a socket but never sends a full request is still seen.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Canary {
  /** e.g. http://127.0.0.1:41234 */
  url: string
  port: number
  /** requests plus connections that never became a request */
  hits: () => number
  /** request paths seen, for the failure message */
  paths: () => string[]
  close: () => Promise<void>
}

export async function startCanary (): Promise<Canary> {
  let connections = 0
  const seen: string[] = []
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    res.setHeader('content-type', 'text/plain')
    res.end('canary')
  })
  server.on('connection', () => { connections++ })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits: () => Math.max(connections, seen.length),
    paths: () => [...seen],
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  }
}

/** Starts a canary and closes it at the end of the test. */
export async function canaryFor (t: { teardown (fn: () => unknown): void }): Promise<Canary> {
  const c = await startCanary()
  t.teardown(() => c.close())
  return c
}
