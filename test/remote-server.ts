// A loopback HTTP server for url.* upload tests: serves the bodies it is given by path, redirects,
// error statuses, a body longer than it says it is not, and a request it never answers; it counts
// every connection and request, so a refused upload can be shown to have reached nothing.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type Route = Buffer | { status?: number, headers?: Record<string, string>, body?: Buffer, chunks?: { size: number, count: number }, hang?: boolean }

export interface RemoteServer { url: string, port: number, hits: () => number, paths: () => string[], close: () => Promise<void> }

export async function remoteServer (t: { teardown (fn: () => unknown): void }, routes: Record<string, Route>): Promise<RemoteServer> {
  let connections = 0
  const seen: string[] = []
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '')
    const route = routes[req.url ?? '']
    if (route === undefined) { res.statusCode = 404; res.end('no such file'); return }
    if (Buffer.isBuffer(route)) { res.setHeader('content-length', route.length); res.end(route); return }
    if (route.hang) return // never answers: the client's deadline ends it
    res.writeHead(route.status ?? 200, route.headers ?? {})
    if (route.chunks) {
      // Streamed without a length: the client must stop reading at its cap.
      const chunk = Buffer.alloc(route.chunks.size, 0x41)
      let n = 0
      const more = () => {
        while (n < route.chunks!.count) {
          n++
          if (!res.write(chunk)) { res.once('drain', more); return }
        }
        res.end()
      }
      res.on('error', () => {})
      more()
      return
    }
    res.end(route.body ?? '')
  })
  server.on('connection', () => { connections++ })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  t.teardown(close)
  return { url: `http://127.0.0.1:${port}`, port, hits: () => Math.max(connections, seen.length), paths: () => [...seen], close }
}
