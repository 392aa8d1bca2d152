// Hostile inputs, body size and content type (hostile cases 16-20).
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import yazl from 'yazl'
import { ADMIN, BASE, hostileApp, refuse, snapshot, assertUnchanged, assertMessage, tempFiles } from './refuse.js'
import { head, wire } from './wire.js'

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'fixtures')
const SLD = fs.readFileSync(path.join(FIXTURES, 'styles', 'dem.sld'), 'utf8')
const MOSAIC = `${BASE}/rest/workspaces/topp/coveragestores/wt/file.imagemosaic`
const AUTH = ADMIN.authorization

function zipOf (entries: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const [name, text] of Object.entries(entries)) zip.addBuffer(Buffer.from(text), name)
  zip.end()
  const chunks: Buffer[] = []
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject)
  })
}

t.test('[hostile #16] a 2 GiB Content-Length trickled a byte at a time is refused at once with 413 and the socket closed', async (t) => {
  const h = await hostileApp(t, { listen: true, uploadLimit: 1024 * 1024 })
  await h.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<workspace><name>topp</name></workspace>' })
  const cases: Array<[string, string, string]> = [
    ['PUT', MOSAIC, 'application/zip'],
    ['POST', `${BASE}/rest/styles`, 'application/zip'],
    ['POST', `${BASE}/rest/styles?name=big`, 'application/vnd.ogc.sld+xml'],
    ['POST', `${BASE}/gwc/rest/seed/topp:x.json`, 'application/json'],
    ['PUT', `${BASE}/gwc/rest/diskquota.xml`, 'text/xml']
  ]
  for (const [method, url, type] of cases) {
    const before = snapshot(h)
    const res = await wire(h.port, head(method, url, { authorization: AUTH, 'content-type': type, 'content-length': 2147483648 }), {
      trickle: Buffer.alloc(600, 0x50), trickleEveryMs: 50, waitMs: 20_000
    })
    const what = `${method} ${url.slice(BASE.length)} as ${type}`
    assertMessage(t, res, 413, /too large|larger than the limit/i, what, h.dataDir)
    t.ok(res.closed, `${what}: the server closes the connection`)
    t.notOk(res.timedOut, `${what}: answered before the body arrives`)
    assertUnchanged(t, h, before, what)
  }
  // The same with the default 2 GiB upload limit: one byte past it.
  const h2 = await hostileApp(t, { listen: true })
  const res = await wire(h2.port, head('PUT', MOSAIC, { authorization: AUTH, 'content-type': 'application/zip', 'content-length': 2147483649 }), { trickle: Buffer.alloc(600), trickleEveryMs: 50, waitMs: 20_000 })
  assertMessage(t, res, 413, /too large|larger than the limit/i, 'default upload limit', h2.dataDir)
  t.ok(res.closed, 'closed')
  t.same(tempFiles(h2.dataDir), [], 'no temp file')
})

t.test('[hostile #17] a Content-Length larger or smaller than the body is 400', async (t) => {
  const h = await hostileApp(t, { listen: true })
  const body = '<workspace><name>liar</name></workspace>'
  for (const [len, label] of [[body.length + 20, 'larger'], [body.length - 10, 'smaller']] as const) {
    const before = snapshot(h)
    const res = await wire(h.port, head('POST', `${BASE}/rest/workspaces`, { authorization: AUTH, 'content-type': 'text/xml', 'content-length': len }) + body, { end: true, waitMs: 15_000 })
    assertMessage(t, res, 400, /malformed|content-length|request/i, `Content-Length ${label} than the body`, h.dataDir)
    assertUnchanged(t, h, before, `Content-Length ${label}`)
  }
  // A body that ends early on an upload: nothing kept.
  const zip = await zipOf({ 'a.sld': SLD })
  const before = snapshot(h)
  const res = await wire(h.port, Buffer.concat([Buffer.from(head('POST', `${BASE}/rest/styles`, { authorization: AUTH, 'content-type': 'application/zip', 'content-length': zip.length + 1000 })), zip]), { end: true, waitMs: 15_000 })
  t.ok(res.statusCode === 400 || res.statusCode === 0, `short ZIP upload: 400 or connection dropped, got ${res.statusCode}`)
  if (res.statusCode) assertMessage(t, res, 400, /malformed|content-length|request|zip/i, 'short ZIP upload', h.dataDir)
  assertUnchanged(t, h, before, 'short ZIP upload')
  const alive = await h.inject({ method: 'GET', url: `${BASE}/health` })
  t.equal(alive.statusCode, 200)
})

t.test('[hostile #18] a body in the wrong media type is 415 listing the accepted types', async (t) => {
  const h = await hostileApp(t)
  await h.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<workspace><name>topp</name></workspace>' })
  const zip = await zipOf({ 'a.sld': SLD })
  const cases: Array<['POST' | 'PUT', string, string | undefined, string | Buffer]> = [
    ['POST', `${BASE}/rest/styles?name=s`, 'application/json', SLD],
    ['PUT', `${BASE}/rest/styles/s`, 'application/json', SLD],
    ['POST', `${BASE}/rest/workspaces`, 'application/json', '<workspace><name>x</name></workspace>'],
    ['POST', `${BASE}/gwc/rest/seed/topp:x.json`, 'application/json', '  <seedRequest><name>x</name></seedRequest>'],
    ['POST', `${BASE}/rest/styles`, 'text/plain', zip],
    ['PUT', MOSAIC, 'text/plain', zip],
    ['PUT', MOSAIC, undefined, zip],
    ['POST', `${BASE}/rest/styles`, undefined, zip],
    ['PUT', MOSAIC, 'image/png', zip],
    ['POST', `${BASE}/rest/styles`, 'application/x-java-serialized-object', Buffer.from([0xac, 0xed, 0, 5])]
  ]
  for (const [method, url, type, payload] of cases) {
    const headers: Record<string, string> = { ...ADMIN }
    if (type) headers['content-type'] = type
    await refuse(t, h, { method, url, headers, payload }, { status: 415, message: /unsupported media type[\s\S]*accepted: .*\//i }, `${method} ${url.slice(BASE.length)} as ${type ?? '(none)'}`)
  }
})

t.test('[hostile #19] SLD text sent as application/zip is 400 not a ZIP', async (t) => {
  const h = await hostileApp(t)
  await h.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<workspace><name>topp</name></workspace>' })
  const dem = await h.inject({ method: 'POST', url: `${BASE}/rest/styles?name=dem`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: SLD })
  t.equal(dem.statusCode, 201)
  for (const [method, url] of [['POST', `${BASE}/rest/styles`], ['PUT', `${BASE}/rest/styles/dem`], ['PUT', MOSAIC],
    ['PUT', `${BASE}/rest/workspaces/topp/datastores/gsml/file.appschema`], ['POST', `${BASE}/rest/topp/styles`]] as const) {
    await refuse(t, h, { method, url, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: SLD }, { status: 400, message: /not a zip|zip/i })
  }
  // Empty and truncated archives too.
  const zip = await zipOf({ 'a.sld': SLD })
  for (const payload of [Buffer.alloc(0), zip.subarray(0, zip.length - 30), Buffer.from('PK\u0003\u0004garbage')]) {
    await refuse(t, h, { method: 'POST', url: `${BASE}/rest/styles`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload }, { status: 400, message: /zip|empty/i }, `archive of ${payload.length} bytes`)
  }
})

t.test('[hostile #20] an unknown charset is 415, never 500', async (t) => {
  const h = await hostileApp(t)
  for (const [url, type] of [[`${BASE}/rest/styles?name=cs`, 'application/vnd.ogc.sld+xml; charset=bogus-8'], [`${BASE}/rest/styles?name=cs`, 'application/vnd.ogc.sld+xml; charset="x\u0001"'],
    [`${BASE}/rest/workspaces`, 'text/xml; charset=bogus-8'], [`${BASE}/rest/workspaces`, 'application/json; charset=bogus-8'],
    [`${BASE}/gwc/rest/seed`, 'text/plain; charset=bogus-8']] as const) {
    const payload = type.startsWith('application/json') ? '{"workspace":{"name":"cs"}}' : url.endsWith('seed') ? 'kill_all=all' : url.includes('styles') ? SLD : '<workspace><name>cs</name></workspace>'
    await refuse(t, h, { method: 'POST', url, headers: { ...ADMIN, 'content-type': type }, payload }, { status: [415, 400], message: /charset|media type/i }, type)
  }
})
