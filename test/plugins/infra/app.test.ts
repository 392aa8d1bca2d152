import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import http from 'node:http'
import net from 'node:net'
import Fastify from 'fastify'
import mapwarden, { exposedMapwarden, serverOptions } from '../../../plugins/app.js'
import { build, ADMIN, ADMIN_PASSWORD, BASE, basic, tempDir } from '../../helper.js'

t.test('registered into a host, the plugin leaves the host\'s routes, hooks and parsers alone', async (t) => {
  const host = Fastify()
  host.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, { hostParsed: body }))
  host.post('/host/echo', async (req) => req.body)
  host.get('/host/open', async () => ({ open: true }))
  await host.register(mapwarden, { prefix: '/geoserver', dataDir: tempDir(t), env: {}, adminPassword: ADMIN_PASSWORD, announce: () => {} })
  t.teardown(() => host.close())

  let res = await host.inject({ method: 'GET', url: '/host/open' })
  t.equal(res.statusCode, 200, 'no auth on the host route')
  t.same(res.json(), { open: true })
  res = await host.inject({ method: 'POST', url: '/host/echo', headers: { 'content-type': 'application/json' }, payload: '{"__proto__":1}' })
  t.same(res.json(), { hostParsed: '{"__proto__":1}' }, 'the host parser is intact')
  res = await host.inject({ method: 'GET', url: '/host/nope' })
  t.equal(res.statusCode, 404, 'the host 404 is not challenged')
  t.notOk(res.headers['www-authenticate'])

  res = await host.inject({ method: 'GET', url: '/geoserver/rest/workspaces.json' })
  t.equal(res.statusCode, 401, 'the plugin\'s routes are protected')
  res = await host.inject({ method: 'GET', url: '/geoserver/rest/workspaces.json', headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '{"workspaces":""}')
  t.notOk((host as any).db, 'decorators stay inside the plugin')
})

t.test('missing or wrong credentials get 401 with GeoServer\'s challenge, on every path', async (t) => {
  const app = await build(t)
  const cases: Array<[string, string, Record<string, string>]> = [
    ['GET', `${BASE}/rest`, {}],
    ['GET', `${BASE}/rest/nope`, {}],
    ['GET', `${BASE}/gwc/rest/seed.json`, {}],
    ['HEAD', `${BASE}/rest/workspaces.json`, {}],
    ['OPTIONS', `${BASE}/rest/workspaces.json`, {}],
    ['GET', `${BASE}/rest/workspaces.json`, { authorization: 'Basic !!!' }],
    ['GET', `${BASE}/rest/workspaces.json`, { authorization: 'Basic ' }],
    ['GET', `${BASE}/rest/workspaces.json`, { authorization: 'Basic dXNlcg==' }],
    ['GET', `${BASE}/rest/workspaces.json`, { authorization: 'Bearer x' }],
    ['GET', `${BASE}/rest/workspaces.json`, { authorization: basic('admin', 'wrong') }],
    ['GET', `${BASE}/rest/workspaces.json`, { authorization: basic('nobody', 'wrong') }]
  ]
  for (const [method, url, headers] of cases) {
    const res = await app.inject({ method: method as any, url, headers })
    t.equal(res.statusCode, 401, `${method} ${url} ${headers.authorization ?? ''}`)
    t.equal(res.headers['www-authenticate'], 'Basic realm="GeoServer Realm"')
  }
})

t.test('a valid non-admin gets 403 on admin routes; public routes need no credentials', async (t) => {
  const app = await build(t)
  const { hashPassword } = await import('../../../services/auth/passwords.js')
  await app.users.insert({ name: 'bob', passwordHash: await hashPassword('bob-password-1'), enabled: true, roles: ['ROLE_AUTHENTICATED'] })
  let res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: { authorization: basic('bob', 'bob-password-1') } })
  t.equal(res.statusCode, 403)
  t.equal(res.body, 'Administrative privileges required')
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/about/version.json`, headers: { authorization: basic('bob', 'bob-password-1') } })
  t.equal(res.statusCode, 200, 'authenticated routes admit any user')
  res = await app.inject({ method: 'GET', url: `${BASE}/health` })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok' })
  res = await app.inject({ method: 'GET', url: `${BASE}/health`, headers: { authorization: basic('bob', 'nope') } })
  t.equal(res.statusCode, 401, 'credentials sent to a public route are still checked')
})

t.test('responses carry the request id; the standalone server echoes a client\'s id', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: `${BASE}/health` })
  t.match(res.headers['x-request-id'], /^req-/)
  const server = Fastify(serverOptions({ logLevel: 'silent', bodyLimit: 1024 }))
  await server.register(mapwarden, { prefix: BASE, dataDir: tempDir(t), env: {}, adminPassword: ADMIN_PASSWORD, announce: () => {} })
  t.teardown(() => server.close())
  const echoed = await server.inject({ method: 'GET', url: `${BASE}/health`, headers: { 'x-request-id': 'abc-123' } })
  t.equal(echoed.headers['x-request-id'], 'abc-123', JSON.stringify(echoed.headers) + echoed.body)
})

t.test('unexpected failures are 500 without details; domain errors keep their status', async (t) => {
  // Routes that fail on purpose, on an instance of its own.
  const fresh = Fastify()
  await fresh.register(async (scope) => {
    await scope.register(exposedMapwarden, { env: {}, dataDir: tempDir(t), adminPassword: ADMIN_PASSWORD, announce: () => {} })
    scope.get('/boom', { config: { access: 'public' } }, async () => { throw new Error('secret /etc/path detail') })
    scope.get('/enospc', { config: { access: 'public' } }, async () => { throw Object.assign(new Error('ENOSPC: no space'), { code: 'ENOSPC' }) })
  }, { prefix: BASE })
  t.teardown(() => fresh.close())
  let res = await fresh.inject({ method: 'GET', url: `${BASE}/boom` })
  t.equal(res.statusCode, 500)
  t.equal(res.body, 'Internal server error')
  res = await fresh.inject({ method: 'GET', url: `${BASE}/enospc` })
  t.equal(res.statusCode, 507)
  t.match(res.body, /Not enough space/)
})

t.test('an oversized body is 413 and changes nothing', async (t) => {
  const app = await build(t, { bodyLimit: 2048 })
  const res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ workspace: { name: 'x', pad: 'a'.repeat(5000) } }) })
  t.equal(res.statusCode, 413)
  t.equal((await app.workspaces.list()).length, 0)
})

t.test('ZIP uploads stream to a temp file under a cap, chunked or not, and never outlive the request', async (t) => {
  const dataDir = tempDir(t)
  const server = Fastify()
  const seen: string[] = []
  await server.register(async (scope) => {
    await scope.register(exposedMapwarden, { env: {}, dataDir, adminPassword: ADMIN_PASSWORD, announce: () => {}, uploadLimit: 4096 })
    scope.put('/upload', async (req) => { seen.push(req.upload!.path); return { size: req.upload!.size, exists: fs.existsSync(req.upload!.path) } })
  }, { prefix: BASE })
  t.teardown(() => server.close())
  const url = await server.listen({ port: 0, host: '127.0.0.1' })
  const chunked = (bytes: number) => new ReadableStream({
    start (c) { for (let i = 0; i < bytes; i += 1000) c.enqueue(new Uint8Array(Math.min(1000, bytes - i))); c.close() }
  })
  let res = await fetch(`${url}${BASE}/upload`, { method: 'PUT', headers: { ...ADMIN, 'content-type': 'application/zip' }, body: chunked(3000), duplex: 'half' } as any)
  t.equal(res.status, 200)
  t.same(await res.json(), { size: 3000, exists: true })
  res = await fetch(`${url}${BASE}/upload`, { method: 'PUT', headers: { ...ADMIN, 'content-type': 'application/zip' }, body: chunked(9000), duplex: 'half' } as any)
  t.equal(res.status, 413, 'a chunked body past the cap')
  t.match(await res.text(), /larger than the limit of 4096 bytes/)
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.request(`${url}${BASE}/upload`, { method: 'PUT', headers: { ...ADMIN, 'content-type': 'application/zip', 'content-length': '2147483648' } }, (r) => { r.resume(); resolve(r.statusCode!) })
    req.on('error', reject)
    req.write('x') // one byte of the announced 2 GiB: the answer must not wait for the rest
  })
  t.equal(status, 413, 'a declared length past the cap is refused before reading')
  t.same(fs.readdirSync(path.join(dataDir, 'tmp', 'uploads')), [], 'no upload file is left behind')
  t.equal(seen.length, 1)
})

t.test('the exposed variant shows its decorators and leaves the default export encapsulated', async (t) => {
  const first = Fastify()
  await first.register(exposedMapwarden, { dataDir: tempDir(t), env: {}, adminPassword: ADMIN_PASSWORD, announce: () => {} })
  t.teardown(() => first.close())
  await first.ready()
  t.ok((first as any).db, 'decorators reach the host')
  const host = Fastify()
  await host.register(mapwarden, { prefix: '/geoserver', dataDir: tempDir(t), env: {}, adminPassword: ADMIN_PASSWORD, announce: () => {} })
  t.teardown(() => host.close())
  const res = await host.inject({ method: 'GET', url: '/geoserver/health' })
  t.equal(res.statusCode, 200, 'the default export still honours its prefix')
  t.notOk((host as any).db)
})

t.test('a request that reaches a closing server answers 503 with Retry-After', async (t) => {
  const server = Fastify(serverOptions({ logLevel: 'silent', bodyLimit: 1 << 20 }))
  let release!: () => void
  const held = new Promise<void>((resolve) => { release = resolve })
  let arrived!: () => void
  const holding = new Promise<void>((resolve) => { arrived = resolve })
  await server.register(async (scope) => {
    await scope.register(exposedMapwarden, { env: {}, dataDir: tempDir(t), adminPassword: ADMIN_PASSWORD, announce: () => {} })
    scope.get('/hold', { config: { access: 'public' } }, async () => { arrived(); await held; return 'held' })
  }, { prefix: BASE })
  const url = new URL(await server.listen({ port: 0, host: '127.0.0.1' }))
  // The held request answers once the second has reached the server.
  server.server.prependListener('request', (req) => { if (req.url?.endsWith('/health')) release() })
  // A keep-alive connection busy with one request; the second, pipelined, is read while the server closes.
  const socket = net.connect(Number(url.port), '127.0.0.1')
  t.teardown(() => socket.destroy())
  let answer = ''
  socket.on('data', (d) => { answer += d.toString() })
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  socket.write(`GET ${BASE}/hold HTTP/1.1\r\nHost: x\r\n\r\n`)
  await holding
  const closed = server.close()
  socket.write(`GET ${BASE}/health HTTP/1.1\r\nHost: x\r\n\r\n`)
  await ended
  await closed
  const [first, second] = answer.split(/(?=HTTP\/1\.1 )/)
  t.match(first, /^HTTP\/1\.1 200 OK\r\n[\s\S]*held$/)
  t.match(second, /^HTTP\/1\.1 503 Service Unavailable\r\n/)
  t.match(second, /\r\nretry-after: 1\r\n/i)
  t.match(second, /The server is shutting down; try again later$/)
})
