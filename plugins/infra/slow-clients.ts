// Slow clients cannot hold the server: a request body that arrives slower than a minimum rate, or
// a request still receiving its body past a total time (uploads get a longer one), is answered
// 408 and its connection closed (an upload's temp file goes with it: the upload parser removes it
// when its stream fails); connections per client address are capped; running out of file
// descriptors is a 503 for the request that hit it, never a 500 (plugins/infra/errors.ts).
// Slow headers are Node's business (headersTimeout). The watchdog reads the socket's byte counter,
// so it never touches the body stream the parsers read.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { Socket } from 'node:net'
import { redactUrl } from './url-text.js'

export interface SlowClientOptions {
  /** Bytes per second a body must average over each RATE_WINDOW_MS. */
  bodyMinRate: number
  /** Longest time to receive a body, milliseconds; uploads (ZIP) get uploadTimeoutMs. */
  bodyTimeoutMs: number
  uploadTimeoutMs: number
  /** Open connections one client address may hold (0: no cap). */
  maxConnectionsPerAddress: number
}

export const RATE_WINDOW_MS = 5000
const CHECK_MS = 500
const UPLOAD = /^application\/(zip|x-zip|x-zip-compressed)\b|^multipart\/form-data\b/i

function refuse (socket: Socket, status: string, message: string, extraHeaders = ''): void {
  if (socket.writable) {
    socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(message)}\r\n${extraHeaders}Connection: close\r\n\r\n${message}`)
  }
  setTimeout(() => socket.destroy(), 1000).unref() // the answer first, then the socket, even if the client reads nothing
}

async function slowClients (app: FastifyInstance, opts: SlowClientOptions) {
  // One timer for every body in flight (a burst of small POSTs must not mean a timer each).
  interface Watch { check (now: number): boolean }
  const watched = new Set<Watch>()
  let timer: NodeJS.Timeout | undefined
  const tick = () => {
    const now = Date.now()
    for (const w of watched) if (w.check(now)) watched.delete(w)
    if (watched.size === 0 && timer) { clearInterval(timer); timer = undefined }
  }

  app.addHook('onRequest', (req, reply, done) => {
    const length = Number(req.headers['content-length'] ?? 0)
    if (!(length > 0 || req.headers['transfer-encoding'] !== undefined) || req.raw.complete) return done()
    // Watched until the whole body has arrived, also after a route answered without reading it.
    const socket = req.raw.socket
    // inject() (a host's own calls, the tests) has no network socket: no slow client to cut.
    if (!(socket instanceof Socket)) return done()
    const limit = UPLOAD.test(req.headers['content-type'] ?? '') ? opts.uploadTimeoutMs : opts.bodyTimeoutMs
    const started = Date.now()
    let windowStart = started
    let windowBytes = socket.bytesRead
    const watch: Watch = {
      /** True once the request needs no more watching (body in, socket gone, or cut now). */
      check (now) {
        if (req.raw.complete || socket.destroyed) return true
        let why: string | undefined
        if (now - started > limit) why = `the request body did not arrive within ${Math.round(limit / 1000)} s`
        else if (now - windowStart >= RATE_WINDOW_MS) {
          const rate = (socket.bytesRead - windowBytes) * 1000 / (now - windowStart)
          if (rate < opts.bodyMinRate) why = `the request body arrived at ${Math.floor(rate)} bytes/s, below the ${opts.bodyMinRate} bytes/s required`
          windowStart = now
          windowBytes = socket.bytesRead
        }
        if (!why) return false
        req.log.warn({ route: `${req.method} ${redactUrl(req.url.split('?')[0])}`, bytes: socket.bytesRead, reason: why }, 'slow request body cut')
        // A route that never reads its body (a tile GET) has answered already; Node goes on reading
        // the declared body after the answer, so the socket is closed all the same.
        if (reply.raw.headersSent) socket.destroy()
        else refuse(socket, '408 Request Timeout', `Request timeout: ${why}`)
        return true
      }
    }
    watched.add(watch)
    const forget = () => watched.delete(watch)
    req.raw.once('end', forget) // the body is in ('end' does not start the stream flowing)
    req.raw.once('close', forget)
    if (!timer) { timer = setInterval(tick, CHECK_MS); timer.unref() }
    done()
  })
  app.addHook('onClose', async () => { if (timer) clearInterval(timer) })

  if (opts.maxConnectionsPerAddress > 0) {
    const open = new Map<string, number>()
    app.server.on('connection', (socket: Socket) => {
      const address = socket.remoteAddress ?? ''
      const n = (open.get(address) ?? 0) + 1
      open.set(address, n)
      socket.once('close', () => { const left = (open.get(address) ?? 1) - 1; if (left > 0) open.set(address, left); else open.delete(address) })
      if (n > opts.maxConnectionsPerAddress) {
        // Like every other 503 (plugins/infra/errors.ts): worth trying again soon, once a connection closes.
        refuse(socket, '503 Service Unavailable', `Too many connections from your address (at most ${opts.maxConnectionsPerAddress}); try again later`, 'Retry-After: 1\r\n')
      }
    })
  }
}

export default fp(slowClients, { name: 'slow-clients' })
