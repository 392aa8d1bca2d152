// Property-based fuzz (issue 9, "Hostile inputs"): every XML/JSON body schema and path names get
// arbitrary input; the service must never answer 500 and must stay up. Bounded: a fixed seed and
// a fixed number of runs per property, so a run is reproducible and short.
import t from 'tap'
import fc from 'fast-check'
import { ADMIN, BASE, hostileApp, type Hostile, type T } from './refuse.js'
import { addLayer } from '../fixtures/seed/layers.js'

const SEED = 20261123
const RUNS = 200
const opts = (numRuns = RUNS) => ({ seed: SEED, numRuns, endOnFailure: true })

// --- generators ---------------------------------------------------------------------------------

const nasty = fc.constantFrom('', ' ', '0', '-1', '1e309', 'NaN', 'Infinity', '1.5', 'true', 'null', '../../etc/passwd', '%00', '\u0000',
  '<script>', '&amp;', '&#65;', '\ufeff', 'ＡＢ', 'java.lang.ProcessBuilder', '${ENV}', 'a'.repeat(300), 'EPSG:4326', 'image/png', 'ADMIN', '*.*.r')
const scalar = fc.oneof(nasty, fc.string({ maxLength: 20 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null))
/** A JSON value whose object keys come from `keys` (the schema's own fields) or anywhere. */
function jsonValue (keys: string[]) {
  const key = fc.oneof(fc.constantFrom(...keys, '@class', '$', 'class', '__proto__', 'constructor', 'prototype'), fc.string({ maxLength: 12 }))
  return fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(key, tie('value'), { maxKeys: 6 })
  })).value
}
/** A body under the schema's root: mostly an object with the schema's fields, sometimes anything. */
function jsonBody (root: string | undefined, keys: string[]) {
  const inner = fc.oneof(
    fc.dictionary(fc.constantFrom(...keys), jsonValue(keys), { maxKeys: keys.length }),
    jsonValue(keys)
  )
  const doc = root ? fc.oneof(inner.map((v) => ({ [root]: v })), inner) : inner
  return fc.oneof({ weight: 8, arbitrary: doc.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: doc.map((v) => JSON.stringify(v)).chain((s) => fc.nat(s.length).map((n) => s.slice(0, n))) })
}
const escape = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)
/** XML under the schema's root: elements named by the schema's fields (or not), text escaped or raw. */
function xmlBody (root: string, keys: string[]) {
  const name = fc.oneof(fc.constantFrom(...keys), fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,8}$/))
  const text = fc.oneof(scalar.map((v) => escape(String(v))), scalar.map((v) => String(v)))
  const attrs = fc.dictionary(fc.constantFrom('class', 'resource', 'xmlns', 'xsi:type', 'a'), scalar.map((v) => escape(String(v))), { maxKeys: 2 })
    .map((a) => Object.entries(a).map(([k, v]) => ` ${k}="${v}"`).join(''))
  const tree = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, text, tie('element')),
    element: fc.tuple(name, attrs, fc.array(tie('node'), { maxLength: 4 })).map(([n, a, kids]) => `<${n}${a}>${kids.join('')}</${n}>`)
  })).node
  return fc.oneof({ weight: 8, arbitrary: fc.tuple(attrs, fc.array(tree, { maxLength: 6 })).map(([a, kids]) => `<${root}${a}>${kids.join('')}</${root}>`) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.array(tree, { maxLength: 3 }).map((kids) => `<${root}>${kids.join('')}`) })
}

// --- the schemas --------------------------------------------------------------------------------

interface Schema { name: string, method: 'POST' | 'PUT', url: string, root?: string, xmlRoot?: string, keys: string[] }
const SCHEMAS: Schema[] = [
  { name: 'seed request', method: 'POST', url: '/gwc/rest/seed/topp:states', root: 'seedRequest', keys: ['name', 'bounds', 'coords', 'double', 'gridSetId', 'zoomStart', 'zoomStop', 'format', 'type', 'threadCount', 'parameters', 'entry', 'string'] },
  { name: 'disk quota', method: 'PUT', url: '/gwc/rest/diskquota', root: 'gwcQuotaConfiguration', keys: ['enabled', 'diskBlockSize', 'cacheCleanUpFrequency', 'cacheCleanUpUnits', 'maxConcurrentCleanUps', 'globalExpirationPolicyName', 'globalQuota', 'value', 'units', 'layerQuotas', 'LayerQuota', 'layer', 'quota', 'quotaStore'] },
  { name: 'ACL rules', method: 'POST', url: '/rest/security/acl/layers', xmlRoot: 'rules', keys: ['rule', 'topp.*.r', '*.*.w', 'ws.layer.a', 'x..r'] },
  { name: 'ACL rules (PUT)', method: 'PUT', url: '/rest/security/acl/layers', xmlRoot: 'rules', keys: ['rule', '*.*.r', 'topp.states.w'] },
  { name: 'catalog mode', method: 'PUT', url: '/rest/security/acl/catalog', xmlRoot: 'catalog', keys: ['mode'] },
  { name: 'master password', method: 'PUT', url: '/rest/security/masterpw', xmlRoot: 'masterPassword', keys: ['oldMasterPassword', 'newMasterPassword'] },
  { name: 'workspace', method: 'POST', url: '/rest/workspaces', root: 'workspace', keys: ['name', 'isolated'] },
  { name: 'workspace (PUT)', method: 'PUT', url: '/rest/workspaces/topp', root: 'workspace', keys: ['name', 'isolated'] },
  { name: 'style entry', method: 'POST', url: '/rest/styles', root: 'style', keys: ['name', 'filename', 'format', 'languageVersion', 'version', 'workspace'] },
  { name: 'layer', method: 'PUT', url: '/rest/layers/topp:states', root: 'layer', keys: ['defaultStyle', 'styles', 'style', 'name', 'workspace', 'enabled', 'expireCache', 'expireClients', 'cachedOnly', 'cachedOnlyMissing'] },
  { name: 'area seed', method: 'POST', url: '/gwc/rest/seed/topp:states/area', keys: ['seedRequest', 'geometry', 'olderThan', 'type', 'coordinates', 'crs', 'properties', 'name', 'zoomStart', 'zoomStop', 'gridSetId', 'threadCount'] },
  { name: 'mosaic coverage', method: 'POST', url: '/rest/workspaces/topp/coveragestores/states/coverages', root: 'coverage', keys: ['name', 'nativeName', 'nativeCoverageName', 'title', 'enabled', 'srs', 'metadata', 'entry', 'dimensionInfo'] },
  { name: 'user', method: 'POST', url: '/rest/security/usergroup/users', root: 'user', keys: ['userName', 'password', 'enabled'] },
  { name: 'kill_all form', method: 'POST', url: '/gwc/rest/seed', keys: ['kill_all'] }
]

async function fuzzApp (t: T): Promise<Hostile> {
  const h = await hostileApp(t, { taskSlots: 1 })
  await addLayer(h.app)
  return h
}

function check (status: number, body: string, what: string) {
  if (status >= 500 && status !== 503 && status !== 507) throw new Error(`${what}: ${status} ${body.slice(0, 200)}`)
}

async function stopSeeding (h: Hostile) {
  await h.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed`, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'kill_all=all' })
}

t.test('[hostile fuzz] arbitrary JSON and XML bodies for every schema never answer 500', async (t) => {
  const h = await fuzzApp(t)
  for (const s of SCHEMAS) {
    const runs = Math.round(RUNS / 2)
    if (s.name === 'kill_all form') {
      await fc.assert(fc.asyncProperty(fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('kill_all', 'kill_all=', 'kill_all=all&kill_all=running', 'kill_all=%00', '=all')), async (payload) => {
        const res = await h.inject({ method: 'POST', url: BASE + s.url, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload })
        check(res.statusCode, res.body, `${s.name} ${JSON.stringify(payload)}`)
      }), opts(runs))
      t.pass(`${s.name}: never 500 in ${runs} runs`)
      continue
    }
    await fc.assert(fc.asyncProperty(jsonBody(s.root, s.keys), async (payload) => {
      const res = await h.inject({ method: s.method, url: `${BASE}${s.url}.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload })
      check(res.statusCode, res.body, `${s.name} JSON ${payload.slice(0, 200)}`)
    }), opts(runs))
    await fc.assert(fc.asyncProperty(xmlBody(s.root ?? s.xmlRoot ?? 'x', s.keys), async (payload) => {
      const res = await h.inject({ method: s.method, url: `${BASE}${s.url}.xml`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload })
      check(res.statusCode, res.body, `${s.name} XML ${payload.slice(0, 200)}`)
    }), opts(runs))
    t.pass(`${s.name}: never 500 in ${runs} JSON and ${runs} XML runs`)
    await stopSeeding(h)
  }
  const health = await h.inject({ method: 'GET', url: `${BASE}/health` })
  t.equal(health.statusCode, 200, 'still alive')
})

t.test('[hostile fuzz] arbitrary path names never answer 500', async (t) => {
  const h = await fuzzApp(t)
  const piece = fc.oneof(
    fc.constantFrom('..', '.', '%2f', '%2F', '%5c', '%00', '%c0%ae', '%ef%bc%8e', '%ef%bc%8f', '%', '%zz', '%252e', ':', '%3a', 'CON', '~', '+', ';', '%20', 'a', 'topp', 'states', '.xml', '.json', '.sld', '.zip', 'ä', '%e2%80%ae', '%ff'),
    fc.string({ maxLength: 6 }).map(encodeURIComponent),
    fc.string({ unit: 'grapheme', maxLength: 4 }).map(encodeURIComponent)
  )
  const name = fc.array(piece, { minLength: 0, maxLength: 6 }).map((p) => p.join(''))
  const routes: Array<[string, (n: string) => string]> = [
    ['GET', (n) => `/rest/workspaces/${n}`], ['DELETE', (n) => `/rest/workspaces/${n}?recurse=true`], ['GET', (n) => `/rest/styles/${n}`],
    ['PUT', (n) => `/rest/styles/${n}`], ['DELETE', (n) => `/rest/styles/${n}?purge=true`], ['POST', (n) => `/rest/styles?name=${n}`],
    ['GET', (n) => `/gwc/rest/seed/${n}.json`], ['POST', (n) => `/gwc/rest/seed/${n}.json`], ['GET', (n) => `/rest/layers/${n}`],
    ['GET', (n) => `/rest/workspaces/${n}/coveragestores/${n}/coverages/${n}/index/granules.json`],
    ['PUT', (n) => `/rest/workspaces/topp/coveragestores/${n}/file.imagemosaic`], ['GET', (n) => `/gwc/service/tms/1.0.0/${n}@EPSG:4326@png/0/0/0.png`],
    ['DELETE', (n) => `/rest/security/acl/layers/${n}`], ['GET', (n) => `/rest/workspaces/topp/datastores/${n}/featuretypes.json`],
    ['POST', (n) => `/gwc/rest/seed/${n}/area.json`], ['GET', (n) => `/gwc/rest/export/${n}.mbtiles`], ['GET', (n) => `/gwc/rest/export/topp:states.gpkg?bounds=${n}&zoomStop=${n}`]
  ]
  await fc.assert(fc.asyncProperty(fc.constantFrom(...routes), name, async ([method, url], n) => {
    const headers: Record<string, string> = { ...ADMIN }
    let payload: string | undefined
    if (method === 'PUT' || method === 'POST') {
      headers['content-type'] = url(n).includes('seed') ? 'application/json' : 'application/vnd.ogc.sld+xml'
      payload = headers['content-type'] === 'application/json' ? '{"seedRequest":{"zoomStart":0}}' : '<StyledLayerDescriptor/>'
    }
    let res
    try {
      res = await h.inject({ method: method as 'GET', url: BASE + url(n), headers, payload })
    } catch (err) {
      // light-my-request refuses some URLs before they reach the server: not the server's doing.
      if (/invalid|url/i.test((err as Error).message)) return
      throw err
    }
    check(res.statusCode, res.body, `${method} ${url(n)}`)
  }), opts(RUNS * 2))
  t.pass(`${RUNS * 2} path names, never 500`)
  await stopSeeding(h)
  t.equal((await h.inject({ method: 'GET', url: `${BASE}/health` })).statusCode, 200, 'still alive')
})
