// A client that aborts an upload (hostile round two, 10) is logged as a warning with the route and
// the bytes received, not as an unexpected failure, and leaves no temp file.
import t from 'tap'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import Fastify from 'fastify'
import { Writable } from 'node:stream'
import { exposedMapwarden, serverOptions } from '../../plugins/app.js'
import { ADMIN, ADMIN_PASSWORD, BASE, tempDir } from '../helper.js'

t.test('an upload cut off by the client: a warning naming the route and the bytes, no temp file', async (t) => {
  let logged = ''
  const stream = new Writable({ write (chunk, _enc, cb) { logged += chunk.toString(); cb() } })
  const opts = serverOptions({ logLevel: 'info', bodyLimit: 1024 * 1024 })
  const root = Fastify({ ...opts, logger: { ...(opts.logger as object), stream } })
  const dataDir = tempDir(t)
  await root.register(async (scope) => {
    await scope.register(exposedMapwarden, { env: {}, adminPassword: ADMIN_PASSWORD, announce: () => {}, dataDir, logLevel: 'info' })
  }, { prefix: BASE })
  await root.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => root.close())
  const port = (root.server.address() as net.AddressInfo).port
  await root.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<workspace><name>ws</name></workspace>' })
  const socket = net.connect(port, '127.0.0.1')
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write([
    `PUT ${BASE}/rest/workspaces/ws/coveragestores/cut/file.imagemosaic HTTP/1.1`, 'Host: 127.0.0.1',
    `Authorization: ${ADMIN.authorization}`, 'Content-Type: application/zip', 'Content-Length: 1000000', '', ''
  ].join('\r\n'))
  socket.write(Buffer.alloc(50_000, 1))
  // Wait until the server has the bytes (the upload file grows), then hang up.
  const uploads = path.join(dataDir, 'tmp', 'uploads')
  for (let i = 0; i < 500 && !fs.readdirSync(uploads).some((f) => fs.statSync(path.join(uploads, f)).size >= 50_000); i++) await new Promise((resolve) => setImmediate(resolve))
  socket.destroy()
  for (let i = 0; i < 500 && !/upload aborted by the client/.test(logged); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  const line = logged.split('\n').find((l) => /upload aborted by the client/.test(l))
  t.ok(line, 'a line says the client aborted the upload')
  const entry = JSON.parse(line!)
  t.equal(entry.level, 40, 'at warning level')
  t.equal(entry.route, `PUT ${BASE}/rest/workspaces/:ws/coveragestores/:store/:upload`)
  t.equal(entry.bytes, 50_000)
  t.notMatch(logged, /unexpected failure/)
  for (let i = 0; i < 500 && fs.readdirSync(uploads).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  t.same(fs.readdirSync(uploads), [], 'the partial upload is removed')
})
