// Hostile inputs, XML / JSON parsing (hostile cases 6-15).
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ADMIN, BASE, hostileApp, refuse, leaksNothing, type T } from './refuse.js'
import { canaryFor } from './canary.js'
import { addLayer } from '../fixtures/seed/layers.js'

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'fixtures')
const SLD = fs.readFileSync(path.join(FIXTURES, 'styles', 'dem.sld'), 'utf8')
const SEED = `${BASE}/gwc/rest/seed/topp:states`
const XML = { ...ADMIN, 'content-type': 'text/xml' }
const JSONH = { ...ADMIN, 'content-type': 'application/json' }
const SLDH = { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }

async function app (t: T) {
  const h = await hostileApp(t)
  await addLayer(h.app)
  return h
}

t.test('[hostile #6] malformed XML is 400 malformed XML, on every XML body', async (t) => {
  const h = await app(t)
  const bodies: Array<[string, string]> = [
    [`${SEED}.xml`, '<seedRequest><name>x</seedRequest'],
    [`${SEED}.xml`, '<seedRequest><name>x</name>'],
    [`${BASE}/rest/workspaces`, '<workspace><name>x</workspace>'],
    [`${BASE}/rest/security/acl/layers.xml`, '<rules><rule resource="a.b.r">X</rules>'],
    [`${BASE}/gwc/rest/diskquota.xml`, '<gwcQuotaConfiguration><enabled>true</enabled'],
    [`${BASE}/rest/styles`, '<style><name>x</name><filename>x.sld</style>']
  ]
  for (const [url, payload] of bodies) {
    const method = url.includes('diskquota') ? 'PUT' : 'POST'
    await refuse(t, h, { method, url, headers: XML, payload }, { status: 400, message: /malformed xml/i })
  }
  await refuse(t, h, { method: 'POST', url: `${BASE}/rest/styles?name=broken`, headers: SLDH, payload: SLD.slice(0, 300) },
    { status: 400, message: /sld|xml|style/i }, 'truncated SLD')
})

t.test('[hostile #7] malformed JSON (truncated, trailing garbage, byte order mark) is 400 malformed JSON', async (t) => {
  const h = await app(t)
  const good = '{"seedRequest":{"name":"topp:states","zoomStart":0,"zoomStop":1,"type":"seed","threadCount":1,"gridSetId":"EPSG:4326","format":"image/png"}}'
  for (const payload of ['{"seedRequest":', good + 'garbage', good + '}', '\ufeff' + good, "{'seedRequest':{}}", '{"seedRequest":{"zoomStart":01}}', 'null x', '[1,]']) {
    await refuse(t, h, { method: 'POST', url: `${SEED}.json`, headers: JSONH, payload }, { status: 400, message: /malformed json/i }, `seed ${JSON.stringify(payload.slice(0, 20))}`)
  }
  for (const url of [`${BASE}/rest/workspaces`, `${BASE}/rest/security/acl/catalog.json`, `${BASE}/gwc/rest/diskquota.json`, `${BASE}/rest/security/masterpw.json`]) {
    const method = url.endsWith('workspaces') ? 'POST' : 'PUT'
    await refuse(t, h, { method, url, headers: JSONH, payload: '{"x":' }, { status: 400, message: /malformed json/i })
  }
})

const laughs = (() => {
  const ents = ['<!ENTITY lol "lol">']
  for (let i = 1; i <= 10; i++) ents.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`)
  return `<?xml version="1.0"?>\n<!DOCTYPE StyledLayerDescriptor [\n${ents.join('\n')}\n]>\n` + SLD.replace(/<\?xml[^>]*>/, '').replace('<Name>', '<Name>&lol10;')
})()

t.test('[hostile #8] a billion-laughs SLD is refused before any entity is expanded', async (t) => {
  const h = await app(t)
  const rss = process.memoryUsage().rss
  for (const [url, headers] of [[`${BASE}/rest/styles?name=laughs`, SLDH], [`${BASE}/rest/styles?name=laughs`, XML], [`${SEED}.xml`, XML]] as const) {
    await refuse(t, h, { method: 'POST', url, headers, payload: laughs }, { status: 400, message: /DOCTYPE/ })
  }
  // Not a timing assertion: an expanded billion laughs would need gigabytes.
  t.ok(process.memoryUsage().rss - rss < 64 * 1024 * 1024, 'memory stays flat')
})

t.test('[hostile #9] one 1 KB entity referenced 100 000 times is refused as a DOCTYPE', async (t) => {
  const h = await app(t)
  const payload = `<?xml version="1.0"?><!DOCTYPE s [<!ENTITY e "${'x'.repeat(1024)}">]><seedRequest><name>${'&e;'.repeat(100_000)}</name></seedRequest>`
  await refuse(t, h, { method: 'POST', url: `${SEED}.xml`, headers: XML, payload }, { status: 400, message: /DOCTYPE/ })
  await refuse(t, h, { method: 'POST', url: `${BASE}/rest/styles?name=e`, headers: SLDH, payload: payload.replace(/seedRequest/g, 'StyledLayerDescriptor') }, { status: 400, message: /DOCTYPE/ })
})

t.test('[hostile #10] character references in an attribute: 413 over the body limit, else parsed without harm', async (t) => {
  const h = await app(t)
  const big = `<rules><rule resource="${'&#65;'.repeat(1_700_000)}">ROLE_X</rule></rules>` // 8.5 MB
  await refuse(t, h, { method: 'POST', url: `${BASE}/rest/security/acl/layers.xml`, headers: XML, payload: big }, { status: 413, message: /too large|larger than the limit/i })
  await refuse(t, h, { method: 'POST', url: `${BASE}/rest/styles?name=refs`, headers: SLDH, payload: SLD.replace('<Name>', `<Name a="${'&#65;'.repeat(1_700_000)}">`) }, { status: 413, message: /too large|larger than the limit/i })
  // Under the limit (1 MB): parsed, and refused for what it says (an invalid rule), not for its size.
  const small = `<rules><rule resource="${'&#65;'.repeat(200_000)}">ROLE_X</rule></rules>`
  await refuse(t, h, { method: 'POST', url: `${BASE}/rest/security/acl/layers.xml`, headers: XML, payload: small }, { status: [400, 422], message: /rule|resource|invalid/i })
  await refuse(t, h, { method: 'POST', url: `${SEED}.xml`, headers: XML, payload: `<seedRequest><name a="${'&#65;'.repeat(200_000)}">x</name></seedRequest>` }, { status: 400, message: /seed request/i })
})

t.test('[hostile #11] an external entity naming /etc/passwd is refused and never read', async (t) => {
  const h = await app(t)
  const payload = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]>' + SLD.replace(/<\?xml[^>]*>/, '').replace('<Name>', '<Name>&e;')
  for (const [url, headers] of [[`${BASE}/rest/styles?name=xxe`, SLDH], [`${BASE}/rest/styles?name=xxe`, XML], [`${BASE}/rest/workspaces`, XML], [`${BASE}/gwc/rest/diskquota.xml`, XML]] as const) {
    const res = await refuse(t, h, { method: url.includes('diskquota') ? 'PUT' : 'POST', url, headers, payload: url.includes('styles') ? payload : payload.replace(/StyledLayerDescriptor/g, 'workspace') },
      { status: 400, message: /DOCTYPE/ })
    t.notMatch(res.body, /root:/, 'never echoes the file')
  }
})

t.test('[hostile #12] DOCTYPE, schemaLocation and xi:include pointing at a loopback canary never reach it', async (t) => {
  const h = await app(t)
  const canary = await canaryFor(t)
  const xxe = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e SYSTEM "${canary.url}/x">]>` + SLD.replace(/<\?xml[^>]*>/, '').replace('<Name>', '<Name>&e;')
  await refuse(t, h, { method: 'POST', url: `${BASE}/rest/styles?name=xxe`, headers: SLDH, payload: xxe }, { status: 400, message: /DOCTYPE/ })
  const param = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY % p SYSTEM "${canary.url}/p"> %p;]><seedRequest/>`
  await refuse(t, h, { method: 'POST', url: `${SEED}.xml`, headers: XML, payload: param }, { status: 400, message: /DOCTYPE/ })
  // schemaLocation is ignored (never fetched); the style itself is fine.
  const located = SLD.replace(/xsi:schemaLocation="[^"]*"/, '').replace('<StyledLayerDescriptor ', `<StyledLayerDescriptor xsi:schemaLocation="http://www.opengis.net/sld ${canary.url}/sld.xsd" `)
  const res = await h.inject({ method: 'POST', url: `${BASE}/rest/styles?name=located`, headers: SLDH, payload: located })
  t.ok(res.statusCode === 201 || res.statusCode === 400, `schemaLocation: accepted or refused, not ${res.statusCode}`)
  leaksNothing(t, res.body, 'schemaLocation')
  const included = SLD.replace('<NamedLayer>', `<NamedLayer><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="${canary.url}/inc.xml"/>`)
  const inc = await h.inject({ method: 'POST', url: `${BASE}/rest/styles?name=included`, headers: SLDH, payload: included })
  t.ok(inc.statusCode < 500, `xi:include: answered ${inc.statusCode}`)
  leaksNothing(t, inc.body, 'xi:include')
  const wsLocated = `<workspace xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="x ${canary.url}/ws.xsd"><name>located</name></workspace>`
  const ws = await h.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: XML, payload: wsLocated })
  t.ok(ws.statusCode < 500, `workspace with schemaLocation: ${ws.statusCode}`)
  t.equal(canary.hits(), 0, `canary never reached (${canary.paths().join(', ')})`)
})

t.test('[hostile #13] prototype poisoning in JSON is refused and pollutes nothing', async (t) => {
  const h = await app(t)
  const bodies = ['{"__proto__":{"isAdmin":true}}', '{"constructor":{"prototype":{"isAdmin":true}}}',
    '{"tilecacheQuotaConfiguration":{"__proto__":{"isAdmin":true},"enabled":true}}', '{"rules":{"constructor":{"prototype":{"isAdmin":true}}}}',
    '{"a":1,"\\u005f_proto__":{"isAdmin":true}}']
  const targets: Array<['PUT' | 'POST', string]> = [['PUT', `${BASE}/gwc/rest/diskquota.json`], ['POST', `${BASE}/rest/security/acl/layers.json`],
    ['PUT', `${BASE}/rest/security/acl/catalog.json`], ['POST', `${BASE}/rest/workspaces`], ['POST', `${SEED}.json`], ['POST', `${BASE}/rest/security/usergroup/users`]]
  for (const [method, url] of targets) {
    for (const payload of bodies) {
      await refuse(t, h, { method, url, headers: JSONH, payload }, { status: 400, message: /malformed json|prototype|constructor/i }, `${url} ${payload.slice(0, 30)}`)
    }
  }
  t.equal(({} as Record<string, unknown>).isAdmin, undefined, 'Object.prototype untouched')
  t.equal((Object.prototype as Record<string, unknown>).isAdmin, undefined)
})

t.test('[hostile #14] Java type hints and unknown fields are refused as unknown fields', async (t) => {
  const h = await app(t)
  const cases: Array<['PUT' | 'POST', string, string, string]> = [
    ['POST', `${SEED}.xml`, 'text/xml', '<seedRequest class="java.lang.ProcessBuilder"><name>topp:states</name></seedRequest>'],
    ['POST', `${SEED}.json`, 'application/json', '{"seedRequest":{"@class":"java.lang.ProcessBuilder","name":"topp:states"}}'],
    ['POST', `${SEED}.json`, 'application/json', '{"seedRequest":{"command":"rm -rf /","name":"topp:states"}}'],
    ['POST', `${BASE}/rest/workspaces`, 'text/xml', '<workspace class="java.lang.ProcessBuilder"><name>pb</name></workspace>'],
    ['POST', `${BASE}/rest/workspaces`, 'application/json', '{"workspace":{"@class":"java.lang.ProcessBuilder","name":"pb"}}'],
    ['POST', `${BASE}/rest/workspaces`, 'text/xml', '<workspace><name>pb</name><command>touch /tmp/x</command></workspace>'],
    ['PUT', `${BASE}/gwc/rest/diskquota.xml`, 'text/xml', '<gwcQuotaConfiguration class="java.lang.ProcessBuilder"><enabled>true</enabled></gwcQuotaConfiguration>'],
    ['PUT', `${BASE}/gwc/rest/diskquota.json`, 'application/json', '{"gwcQuotaConfiguration":{"@class":"java.lang.ProcessBuilder","enabled":true}}'],
    ['PUT', `${BASE}/gwc/rest/diskquota.json`, 'application/json', '{"gwcQuotaConfiguration":{"bogusField":1}}'],
    ['PUT', `${BASE}/rest/security/acl/catalog.xml`, 'text/xml', '<catalog class="java.lang.ProcessBuilder"><mode>MIXED</mode></catalog>'],
    ['PUT', `${BASE}/rest/security/acl/catalog.json`, 'application/json', '{"@class":"java.lang.ProcessBuilder","mode":"MIXED"}'],
    ['PUT', `${BASE}/rest/security/masterpw.xml`, 'text/xml', '<masterPassword class="java.lang.ProcessBuilder"><oldMasterPassword>a</oldMasterPassword><newMasterPassword>b-long-password</newMasterPassword></masterPassword>'],
    ['POST', `${BASE}/rest/styles`, 'application/json', '{"style":{"@class":"java.lang.ProcessBuilder","name":"pb","filename":"pb.sld"}}'],
    ['POST', `${BASE}/rest/security/usergroup/users`, 'application/json', '{"user":{"@class":"java.lang.ProcessBuilder","userName":"pb","password":"a-long-password"}}']
  ]
  for (const [method, url, type, payload] of cases) {
    await refuse(t, h, { method, url, headers: { ...ADMIN, 'content-type': type }, payload }, { status: 400, message: /unknown|unexpected/i }, `${url.slice(BASE.length)} ${payload.slice(0, 50)}`)
  }
})

t.test('[hostile #15] JSON and XML nested 100 000 levels are refused; the process lives', async (t) => {
  const h = await app(t)
  const deepJson = '{"seedRequest":' + '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_001)
  const deepArray = '['.repeat(100_000) + ']'.repeat(100_000)
  const deepXml = '<seedRequest>' + '<a>'.repeat(100_000) + '</a>'.repeat(100_000) + '</seedRequest>'
  for (const url of [`${SEED}.json`, `${BASE}/rest/workspaces`, `${BASE}/rest/security/acl/layers.json`]) {
    await refuse(t, h, { method: 'POST', url, headers: JSONH, payload: deepJson }, { status: [400, 413], message: /nested deeper|larger than/i })
    await refuse(t, h, { method: 'POST', url, headers: JSONH, payload: deepArray }, { status: [400, 413], message: /nested deeper|larger than/i })
  }
  for (const [url, headers] of [[`${SEED}.xml`, XML], [`${BASE}/rest/workspaces`, XML], [`${BASE}/rest/styles?name=deep`, SLDH]] as const) {
    await refuse(t, h, { method: 'POST', url, headers, payload: deepXml }, { status: [400, 413], message: /nested deeper|larger than/i })
  }
  const alive = await h.inject({ method: 'GET', url: `${BASE}/health` })
  t.equal(alive.statusCode, 200)
})
