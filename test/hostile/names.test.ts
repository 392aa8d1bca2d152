// Hostile inputs, names in path and query (hostile cases 33-37).
import t from 'tap'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ADMIN, BASE, hostileApp, refuse, type T } from './refuse.js'
import { createMosaic, pattern, rgbTiff } from '../fixtures/seed/mosaic.js'

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'fixtures')
const SLD = fs.readFileSync(path.join(FIXTURES, 'styles', 'dem.sld'), 'utf8')
const SLDH = { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }
const XML = { ...ADMIN, 'content-type': 'text/xml' }
const JSONH = { ...ADMIN, 'content-type': 'application/json' }

async function app (t: T) {
  const h = await hostileApp(t)
  const ws = await h.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: XML, payload: '<workspace><name>topp</name></workspace>' })
  t.equal(ws.statusCode, 201)
  const st = await h.inject({ method: 'POST', url: `${BASE}/rest/styles?name=dem`, headers: SLDH, payload: SLD })
  t.equal(st.statusCode, 201)
  return h
}

/** Nothing named passwd, evil or x was created anywhere near the data directory. */
function nothingOutside (t: T, dataDir: string) {
  for (const p of [path.join(dataDir, '..', 'etc'), path.join(os.tmpdir(), 'evil.txt'), path.join(dataDir, '..', 'passwd'), path.join(dataDir, '..', 'users')]) {
    t.notOk(fs.existsSync(p), `nothing written at ${path.basename(p)}`)
  }
}

t.test('[hostile #33] a style name with encoded slashes and dot-dot is refused; no file outside the data directory', async (t) => {
  const h = await app(t)
  for (const name of ['..%2f..%2fetc%2fpasswd', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '..%5c..%5cetc%5cpasswd']) {
    for (const [method, url, headers, payload] of [
      ['PUT', `${BASE}/rest/styles/${name}`, SLDH, SLD], ['PUT', `${BASE}/rest/styles/${name}.sld`, SLDH, SLD],
      ['GET', `${BASE}/rest/styles/${name}.sld`, ADMIN, undefined], ['DELETE', `${BASE}/rest/styles/${name}`, ADMIN, undefined],
      ['PUT', `${BASE}/rest/workspaces/topp/styles/${name}`, SLDH, SLD], ['GET', `${BASE}/rest/workspaces/${name}.json`, ADMIN, undefined]
    ] as const) {
      await refuse(t, h, { method, url, headers, payload }, { status: [400, 404], message: /invalid .*name|no such|not found/i })
    }
  }
  nothingOutside(t, h.dataDir)
})

const HOSTILE_NAMES = ['%252e%252e%252f', '%c0%ae%c0%ae%2f', '%ef%bc%8e%ef%bc%8e%ef%bc%8f', 'a%00b', '%00', '..%5c..%5c', 'dem.', 'dem%20', 'CON', 'con.sld', 'nul', 'LPT1',
  '%e2%80%ae', 'a%0ab', 'a%0d%0ab', '.hidden', '..', '.', 'a%2fb']
const decodedForBody = (n: string) => { try { return decodeURIComponent(n) } catch { return n } }

t.test('[hostile #34] double-encoded, overlong UTF-8, fullwidth, NUL, backslash, trailing dot or space and device names are 400 invalid name', async (t) => {
  const h = await app(t)
  for (const name of HOSTILE_NAMES) {
    // As a new style (POST ?name=), as a workspace in a body, and as the target of a PUT.
    await refuse(t, h, { method: 'POST', url: `${BASE}/rest/styles?name=${name}`, headers: SLDH, payload: SLD }, { status: 400, message: /invalid .*name|malformed url|^Query parameter name holds a NUL character/i }, `POST style ?name=${name}`)
    await refuse(t, h, { method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSONH, payload: JSON.stringify({ workspace: { name: decodedForBody(name) } }) }, { status: 400, message: /invalid workspace name|^Field workspace\.name holds a character that XML cannot carry/i }, `workspace ${name}`)
    await refuse(t, h, { method: 'PUT', url: `${BASE}/rest/styles/${name}`, headers: SLDH, payload: SLD }, { status: [400, 404], message: /invalid .*name|malformed url|no such|not found/i }, `PUT style ${name}`)
    await refuse(t, h, { method: 'PUT', url: `${BASE}/rest/workspaces/topp/coveragestores/${name}/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: Buffer.from('PK\u0005\u0006' + '\u0000'.repeat(18)) },
      // '.' and '..' are dot-segments: the router reads them as a different path (405 there).
      { status: name === '.' || name === '..' ? [400, 404, 405] : [400, 404], message: /invalid .*name|malformed url|no such|not a zip|zip|not supported/i }, `mosaic store ${name}`)
  }
  nothingOutside(t, h.dataDir)
})

t.test('[hostile #35] a style name in the query that climbs out of the styles folder is 400', async (t) => {
  const h = await app(t)
  for (const name of ['../../security/users', '..%2F..%2Fsecurity%2Fusers', '/etc/passwd', 'styles/../../x', '..\\..\\security\\users']) {
    await refuse(t, h, { method: 'POST', url: `${BASE}/rest/styles?name=${name}`, headers: SLDH, payload: SLD }, { status: 400, message: /invalid style name/i })
    await refuse(t, h, { method: 'POST', url: `${BASE}/rest/workspaces/topp/styles?name=${name}`, headers: SLDH, payload: SLD }, { status: 400, message: /invalid style name/i })
    await refuse(t, h, { method: 'POST', url: `${BASE}/rest/styles`, headers: JSONH, payload: JSON.stringify({ style: { name, filename: 'x.sld' } }) }, { status: 400, message: /invalid style name/i })
    await refuse(t, h, { method: 'POST', url: `${BASE}/rest/styles`, headers: JSONH, payload: JSON.stringify({ style: { name: 'ok', filename: name } }) }, { status: 400, message: /invalid style file name/i })
  }
  nothingOutside(t, h.dataDir)
})

t.test('[hostile #36] names that differ only in case collide: 409 (403 for styles, as GeoServer)', async (t) => {
  const h = await app(t)
  await refuse(t, h, { method: 'POST', url: `${BASE}/rest/workspaces`, headers: XML, payload: '<workspace><name>TOPP</name></workspace>' }, { status: 409, message: /already exists/i })
  await refuse(t, h, { method: 'POST', url: `${BASE}/rest/workspaces`, headers: XML, payload: '<workspace><name>Topp</name></workspace>' }, { status: 409, message: /already exists/i })
  await refuse(t, h, { method: 'POST', url: `${BASE}/rest/styles?name=DEM`, headers: SLDH, payload: SLD }, { status: [403, 409], message: /already exists/i })
  await refuse(t, h, { method: 'POST', url: `${BASE}/rest/styles`, headers: JSONH, payload: JSON.stringify({ style: { name: 'Dem', filename: 'Dem.sld' } }) }, { status: [403, 409], message: /already exists/i })
  // A rename onto a case variant of another workspace collides too.
  const other = await h.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: XML, payload: '<workspace><name>other</name></workspace>' })
  t.equal(other.statusCode, 201)
  await refuse(t, h, { method: 'PUT', url: `${BASE}/rest/workspaces/other`, headers: XML, payload: '<workspace><name>ToPP</name></workspace>' }, { status: 409, message: /already exists/i })
  // ws:a and ws_a cannot collide: ':' is not a name character.
  await refuse(t, h, { method: 'POST', url: `${BASE}/rest/workspaces`, headers: XML, payload: '<workspace><name>ws:a</name></workspace>' }, { status: 400, message: /invalid workspace name/i })
  // The original names still answer.
  t.equal((await h.inject({ method: 'GET', url: `${BASE}/rest/workspaces/topp.json`, headers: ADMIN })).statusCode, 200)
})

t.test('[hostile #37] a 10 KB name, a name with markup, and an empty name are 400', async (t) => {
  const h = await app(t)
  const long = 'a'.repeat(10 * 1024)
  for (const name of [long, '<script>alert(1)</script>', '', ' ', 'a"b', "a'b", 'a;b', 'a&b']) {
    const res = await refuse(t, h, { method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSONH, payload: JSON.stringify({ workspace: { name } }) }, { status: 400, message: /invalid workspace name|name/i }, `workspace ${JSON.stringify(name.slice(0, 20))}`)
    t.notMatch(res.body, /<script>/, 'markup not echoed raw')
    t.ok(res.body.length < 1024, 'the long name is not echoed whole')
    if (name !== '') {
      await refuse(t, h, { method: 'POST', url: `${BASE}/rest/styles?name=${encodeURIComponent(name)}`, headers: SLDH, payload: SLD }, { status: 400, message: /invalid style name/i }, `style ${JSON.stringify(name.slice(0, 20))}`)
    }
  }
  // A path segment of 10 KB (past the router's limit) and an empty segment.
  await refuse(t, h, { method: 'PUT', url: `${BASE}/rest/styles/${long}`, headers: SLDH, payload: SLD }, { status: [400, 404], message: /too long|invalid|no such/i }, 'PUT a 10 KB style path')
  await refuse(t, h, { method: 'GET', url: `${BASE}/rest/workspaces/${long}.json`, headers: ADMIN }, { status: [400, 404], message: /too long|invalid|no such/i }, 'GET a 10 KB workspace path')
  await refuse(t, h, { method: 'PUT', url: `${BASE}/rest/styles/`, headers: SLDH, payload: SLD }, { status: [400, 404, 405], message: /invalid|no such|not supported/i }, 'PUT an empty style name')
})

t.test('[issue 31] a name with surrounding spaces meets one rule in XML and JSON: refused in both, nothing created', async (t) => {
  const h = await app(t)
  await createMosaic(h.app, 'topp', 'world', { 'w.tif': rgbTiff(8, 8, [0, 0, 8, 8], pattern) })
  const escape = (s: string) => s.replace(/\n/g, '&#10;')
  for (const name of [' lead', 'lead ', '\n  lead\n', '\tlead']) {
    const resources: Array<[string, string, string, object]> = [
      ['workspace', `${BASE}/rest/workspaces`, `<workspace><name>${escape(name)}</name></workspace>`, { workspace: { name } }],
      ['style', `${BASE}/rest/styles`, `<style><name>${escape(name)}</name><filename>lead.sld</filename></style>`, { style: { name, filename: 'lead.sld' } }],
      ['coverage', `${BASE}/rest/workspaces/topp/coveragestores/world/coverages`, `<coverage><nativeCoverageName>world</nativeCoverageName><name>${escape(name)}</name></coverage>`, { coverage: { nativeCoverageName: 'world', name } }]
    ]
    for (const [what, url, xml, json] of resources) {
      await refuse(t, h, { method: 'POST', url, headers: XML, payload: xml }, { status: 400, message: /invalid .*name/i }, `${what} ${JSON.stringify(name)} in XML`)
      await refuse(t, h, { method: 'POST', url, headers: JSONH, payload: JSON.stringify(json) }, { status: 400, message: /invalid .*name/i }, `${what} ${JSON.stringify(name)} in JSON`)
    }
  }
  // Whitespace between elements is layout, not a value: pretty-printed XML with clean names is accepted.
  const ws = await h.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: XML, payload: '<workspace>\n  <name>lead</name>\n</workspace>\n' })
  t.equal(ws.statusCode, 201, ws.body)
  const cov = await h.inject({ method: 'POST', url: `${BASE}/rest/workspaces/topp/coveragestores/world/coverages`, headers: XML, payload: '<coverage>\n  <nativeCoverageName>world</nativeCoverageName>\n  <name>lead</name>\n</coverage>' })
  t.equal(cov.statusCode, 201, cov.body)
})
