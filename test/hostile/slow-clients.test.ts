// Slow clients cannot take the server down (hostile round two, 7): a trickled body is cut with 408
// within the configured time and its temp file removed; connections per address are capped;
// running out of file descriptors is a 503 with Retry-After, not a 500.
import t from 'tap'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { makeEnv, start, kill, http } from '../crash/harness.js'
import { statusOf } from '../../plugins/infra/errors.js'

const AUTH = 'Basic ' + Buffer.from('admin:crash-admin-password').toString('base64')

/** Sends headers and then one byte every `everyMs`; resolves with what the server answered and when. */
function trickle (url: string, head: string[], everyMs: number, maxMs: number): Promise<{ answer: string, ms: number }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const t0 = Date.now()
    const socket = net.connect(Number(port), hostname, () => socket.write(head.join('\r\n') + '\r\n\r\n'))
    let answer = ''
    const drip = setInterval(() => { if (socket.writable) socket.write('x') }, everyMs)
    const give = setTimeout(() => socket.destroy(), maxMs)
    socket.on('data', (d) => { answer += d.toString() })
    socket.on('close', () => { clearInterval(drip); clearTimeout(give); resolve({ answer, ms: Date.now() - t0 }) })
    socket.on('error', () => {})
  })
}

t.test('a trickled body is cut with 408 within the configured time; an upload\'s temp file goes with it', async (t) => {
  const env = makeEnv('mw-slow')
  t.teardown(env.cleanup)
  const server = await start(env, undefined, { MAPWARDEN_BODY_TIMEOUT: '2', MAPWARDEN_UPLOAD_TIMEOUT: '3', MAPWARDEN_BODY_MIN_RATE: '100' })
  t.teardown(() => kill(server))
  // A tile GET with a body that never ends (anonymous reads are allowed): cut by the rate check (5 s
  // windows) or the 2 s total, whichever first.
  const tile = await trickle(server.url, ['GET /geoserver/gwc/service/xyz/nosuch:layer/EPSG:4326/0/0/0.png HTTP/1.1', 'Host: x', 'Content-Type: text/plain', 'Content-Length: 100000000'], 200, 20_000)
  // The route answers at once without reading the body (404 here); the connection is closed all the same.
  t.match(tile.answer, /^HTTP\/1\.1 404 Not Found\r\n/)
  t.ok(tile.ms < 6000, `closed after ${tile.ms} ms, not held open by the trickle`)
  // An upload stopped short: 3 s for uploads; the partial file is removed.
  const upload = await trickle(server.url, ['PUT /geoserver/rest/workspaces/ws/coveragestores/s/file.imagemosaic HTTP/1.1', 'Host: x', `Authorization: ${AUTH}`, 'Content-Type: application/zip', 'Content-Length: 100000000'], 100, 20_000)
  t.match(upload.answer, /^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*Request timeout: the request body (did not arrive within 3 s|arrived at \d+ bytes\/s, below the 100 bytes\/s required)$/)
  const uploads = path.join(env.dataDir, 'tmp', 'uploads')
  for (let i = 0; i < 100 && fs.readdirSync(uploads).length > 0; i++) await http(server, 'GET', '/health')
  t.same(fs.readdirSync(uploads), [], 'no temp file left')
  t.match(server.output(), /slow request body cut/)
  t.equal((await http(server, 'GET', '/health')).status, 200, 'the server answers others meanwhile and after')
})

t.test('a body slower than the minimum rate is cut even within the total time', async (t) => {
  const env = makeEnv('mw-rate')
  t.teardown(env.cleanup)
  const server = await start(env, undefined, { MAPWARDEN_BODY_TIMEOUT: '600', MAPWARDEN_BODY_MIN_RATE: '100' })
  t.teardown(() => kill(server))
  const res = await trickle(server.url, ['POST /geoserver/rest/workspaces HTTP/1.1', 'Host: x', `Authorization: ${AUTH}`, 'Content-Type: text/xml', 'Content-Length: 100000'], 100, 30_000)
  t.match(res.answer, /Request timeout: the request body arrived at \d+ bytes\/s, below the 100 bytes\/s required$/)
  t.ok(res.ms < 15_000, `closed after ${res.ms} ms`)
})

t.test('connections per client address are capped', async (t) => {
  const env = makeEnv('mw-conn')
  t.teardown(env.cleanup)
  const server = await start(env, undefined, { MAPWARDEN_MAX_CONNECTIONS_PER_ADDRESS: '5' })
  t.teardown(() => kill(server))
  const { port } = new URL(server.url)
  const sockets = await Promise.all(Array.from({ length: 5 }, () => new Promise<net.Socket>((resolve) => { const s = net.connect(Number(port), '127.0.0.1', () => resolve(s)) })))
  t.teardown(() => sockets.forEach((s) => s.destroy()))
  const extra = await new Promise<string>((resolve) => {
    let answer = ''
    const s = net.connect(Number(port), '127.0.0.1')
    s.on('data', (d) => { answer += d.toString() })
    s.on('close', () => resolve(answer))
    s.on('error', () => resolve(answer))
  })
  t.match(extra, /^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*\r\nRetry-After: 1\r\n[\s\S]*Too many connections from your address \(at most 5\); try again later$/)
  sockets.forEach((s) => s.destroy())
  for (let i = 0; i < 50; i++) { if ((await http(server, 'GET', '/health').catch(() => ({ status: 0 }))).status === 200) break }
  t.equal((await http(server, 'GET', '/health')).status, 200, 'free again once they close')
})

t.test('out of file descriptors is 503, not a fault', async (t) => {
  for (const code of ['EMFILE', 'ENFILE']) t.equal(statusOf(Object.assign(new Error(`${code}: too many open files`), { code })), 503)
})
