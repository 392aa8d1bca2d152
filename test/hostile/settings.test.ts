// Hostile seed requests, disk quota settings and security settings (hostile
// cases 38-52). The messages are the ones the area tests pin (test/plugins/seed/validation,
// diskquota, security); here every refusal is also checked for internals, for an unchanged data
// directory and catalog, and for temp files.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN, BASE, basic } from '../helper.js'
import { addLayer } from '../fixtures/seed/layers.js'
import { createMosaic, pattern, rgbTiff } from '../fixtures/seed/mosaic.js'
import { assertRefused, snapshot, type Refusal } from './assert-b.js'

const SEED = `${BASE}/gwc/rest/seed`
const DQ = `${BASE}/gwc/rest/diskquota`
const S = `${BASE}/rest/security`
const JSON_ = { ...ADMIN, 'content-type': 'application/json' }
const XML = { ...ADMIN, 'content-type': 'application/xml' }
const FORM = { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }
const good = { zoomStart: 0, zoomStop: 2, type: 'seed', threadCount: 1, gridSetId: 'EPSG:4326', format: 'image/png' }
const seedJson = (over: Record<string, unknown>) => JSON.stringify({ seedRequest: { ...good, ...over } })

interface Case extends Refusal { label: string, method?: 'POST' | 'PUT' | 'DELETE', url: string, headers: Record<string, string>, payload?: string }

async function refuseAll (t: any, app: FastifyInstance, cases: Case[], gets: string[]) {
  for (const c of cases) {
    const before = await snapshot(app, gets, ADMIN)
    const res = await app.inject({ method: c.method ?? 'POST', url: c.url, headers: c.headers, payload: c.payload })
    await assertRefused(t, app, res, c, before, c.label, gets, ADMIN)
  }
}

const seedCase = (label: string, over: Record<string, unknown>, message: string): Case =>
  ({ label, url: `${SEED}/topp:states.json`, headers: JSON_, payload: seedJson(over), status: 400, message })
const SEED_GETS = [`${SEED}.json`, `${SEED}/topp:states.json`]

t.test('seed requests refused whole, naming the field; no task, no tile', async (t) => {
  const app = await build(t)
  await addLayer(app, { styles: ['pophatch'], config: { dimensions: { time: { enabled: true } } } })
  const tilesDir = path.join(app.config.dataDir, 'tiles')
  await t.test('[hostile #38] zoom levels', async (t) => {
    await refuseAll(t, app, [
      seedCase('zoomStart -1', { zoomStart: -1 }, 'Invalid seed request: zoomStart -1: must be from 0 to 21 in grid set EPSG:4326'),
      seedCase('zoomStop 1000', { zoomStop: 1000 }, 'Invalid seed request: zoomStop 1000: must be from 0 to 21 in grid set EPSG:4326'),
      seedCase('zoomStart > zoomStop', { zoomStart: 3, zoomStop: 2 }, 'Invalid seed request: zoomStart 3: is greater than zoomStop 2'),
      seedCase('zoomStop beyond the grid set', { zoomStop: 22 }, 'Invalid seed request: zoomStop 22: must be from 0 to 21 in grid set EPSG:4326'),
      seedCase('"1e3"', { zoomStop: '1e3' }, 'Invalid seed request: zoomStop "1e3": must be an integer'),
      seedCase('missing zoomStart', { zoomStart: undefined }, 'Invalid seed request: zoomStart is required'),
      seedCase('zoomStop as an object', { zoomStop: { a: 1 } }, /^Invalid seed request: zoomStop .*must be an integer$/ as any)
    ], SEED_GETS)
  })
  await t.test('[hostile #39] bounds', async (t) => {
    const b = (double: unknown[]) => ({ bounds: { coords: { double } } })
    await refuseAll(t, app, [
      seedCase('NaN', b(['NaN', 0, 1, 1]), 'Invalid seed request: bounds "NaN": must be a finite number'),
      seedCase('Infinity', b([0, 0, 'Infinity', 1]), 'Invalid seed request: bounds "Infinity": must be a finite number'),
      seedCase('strings', b(['a', 'b', 'c', 'd']), 'Invalid seed request: bounds "a": must be a finite number'),
      seedCase('3 numbers', b([0, 0, 1]), 'Invalid seed request: bounds {"coords":{"double":[0,0,1]}}: must hold four numbers under coords/double (minx, miny, maxx, maxy)'),
      seedCase('minx > maxx', b([10, 0, 1, 1]), 'Invalid seed request: bounds 10,0,1,1: need minx < maxx and miny < maxy'),
      seedCase('1e308', b(['1e308', 0, '1.5e308', 1]), 'Invalid seed request: bounds 1e+308,0,1.5e+308,1: do not intersect the layer\'s extent -180,-90,180,90 in grid set EPSG:4326'),
      seedCase('outside the grid set', b([200, 100, 300, 120]), /^Invalid seed request: bounds 200,100,300,120: do not intersect/ as any)
    ], SEED_GETS)
  })
  await t.test('[hostile #40] threadCount (0 is 400: GWC clamps it, we refuse it; max 16 by default)', async (t) => {
    await refuseAll(t, app, [
      seedCase('0', { threadCount: 0 }, 'Invalid seed request: threadCount 0: must be from 1 to 16'),
      seedCase('-5', { threadCount: -5 }, 'Invalid seed request: threadCount -5: must be from 1 to 16'),
      seedCase('1.5', { threadCount: 1.5 }, 'Invalid seed request: threadCount 1.5: must be an integer'),
      seedCase('"abc"', { threadCount: 'abc' }, 'Invalid seed request: threadCount "abc": must be an integer'),
      seedCase('10000', { threadCount: 10000 }, 'Invalid seed request: threadCount 10000: must be from 1 to 16')
    ], SEED_GETS)
  })
  await t.test('[hostile #41] type, grid set, format, parameters, layer', async (t) => {
    await refuseAll(t, app, [
      seedCase('destroy', { type: 'destroy' }, 'Invalid seed request: type destroy: must be seed, reseed or truncate'),
      seedCase('missing type', { type: undefined }, 'Invalid seed request: type (seed, reseed or truncate) is required'),
      seedCase('unknown grid set', { gridSetId: 'EPSG:31467' }, 'Invalid seed request: gridSetId EPSG:31467: unknown grid set; the layer has EPSG:4326, EPSG:900913'),
      seedCase('unknown format', { format: 'image/foo' }, 'Invalid seed request: format image/foo: must be one of image/png, image/png8, image/jpeg, image/webp, image/vnd.jpeg-png'),
      seedCase('parameter not in the filters', { parameters: { entry: { string: ['ELEVATION', '10'] } } }, 'Invalid seed request: parameters ELEVATION: not a parameter filter of layer topp:states; allowed: STYLES, CQL_FILTER, TIME'),
      seedCase('style not of the layer', { parameters: { entry: [{ string: ['STYLES', 'nosuch'] }] } }, 'Invalid seed request: parameters STYLES=nosuch: not a style of layer topp:states; allowed: raster, pophatch'),
      { label: 'unknown layer', url: `${SEED}/topp:nosuch.json`, headers: JSON_, payload: seedJson({}), status: 400, message: 'Unknown layer topp:nosuch' },
      { label: 'layer name with a path', url: `${SEED}/..%2f..%2fetc.json`, headers: JSON_, payload: seedJson({}), status: 400, message: /^Unknown layer|^Invalid/ }
    ], SEED_GETS)
  })
  await t.test('[hostile #42] kill_all with a bad value kills nothing', async (t) => {
    const cases: Case[] = [['kill_all=garbage', 'garbage'], ['kill_all', ''], ['kill_all=all&kill_all=running', 'all,running'], ['', '']]
      .map(([payload, shown]) => ({ label: `kill_all body ${JSON.stringify(payload)}`, url: SEED, headers: FORM, payload, status: 400, message: `Unknown kill_all code: '${shown}'. One of all|running|pending is expected.` }))
    await refuseAll(t, app, cases, SEED_GETS)
  })
  t.notOk(fs.existsSync(tilesDir), 'no tile directory was ever made')
})

t.test('[hostile #43] a burst of seed POSTs: the pending queue is bounded (429 past the cap), the process stays up', async (t) => {
  const cap = 100
  const app = await build(t, { taskSlots: 1, maxPendingTasks: cap })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(32, 32, [-20, -10, 20, 30], pattern) })
  const burst = 2000
  const codes = new Map<number, number>()
  let refusal: any
  // Each task seeds zoom 0-12 of the layer (far more than the burst lasts), so nothing drains.
  const all = await Promise.all(Array.from({ length: burst }, () => app.inject({ method: 'POST', url: `${SEED}/${layer}.json`, headers: JSON_, payload: seedJson({ zoomStop: 12 }) })))
  for (const r of all) {
    codes.set(r.statusCode, (codes.get(r.statusCode) ?? 0) + 1)
    if (r.statusCode === 429) refusal = r
  }
  t.same([...codes.keys()].sort(), [200, 429], `only 200 and 429 (${JSON.stringify([...codes])})`)
  t.ok((codes.get(200) ?? 0) <= cap + 1, 'no more tasks than the cap plus the one running')
  t.equal(refusal.body, `Too many pending seed tasks (limit ${cap}); try again later`)
  t.match(refusal.headers['content-type'], /^text\/plain/)
  const list = JSON.parse((await app.inject({ url: `${SEED}.json`, headers: ADMIN })).body)['long-array-array']
  t.ok(list.length <= cap + 1, `the task list holds ${list.length}`)
  t.equal((await app.inject({ method: 'POST', url: SEED, headers: FORM, payload: 'kill_all=all' })).statusCode, 200)
  await app.tileCache.breeder.idle()
  t.equal((await app.inject({ url: `${SEED}.json`, headers: ADMIN })).body, '{"long-array-array":[]}')
})

t.test('[hostile #44] truncating an empty cache is 200 and a task that deleted 0 tiles', async (t) => {
  // GWC's masstruncate (truncateExtent) has no counterpart in the owner's interface; the same
  // question is a truncate seed request over a range nothing was cached for.
  const app = await build(t)
  await addLayer(app)
  const before = await snapshot(app, SEED_GETS, ADMIN)
  for (const format of ['json', 'xml']) {
    const payload = format === 'json' ? seedJson({ type: 'truncate', zoomStop: 21 })
      : '<seedRequest><gridSetId>EPSG:4326</gridSetId><zoomStart>0</zoomStart><zoomStop>21</zoomStop><type>truncate</type><format>image/png</format></seedRequest>'
    const r = await app.inject({ method: 'POST', url: `${SEED}/topp:states.${format}`, headers: format === 'json' ? JSON_ : XML, payload })
    t.equal(r.statusCode, 200)
    t.equal(r.body, '')
  }
  await app.tileCache.breeder.idle()
  for (const id of [1, 2]) {
    const task = JSON.parse((await app.inject({ url: `${SEED}/tasks/${id}.json`, headers: ADMIN })).body).task
    t.match(task, { type: 'truncate', state: 'done', tilesDone: 0 })
  }
  const after = await snapshot(app, SEED_GETS, ADMIN)
  t.same(after, before, 'nothing changed')
})

const DQ_GETS = [`${DQ}.json`]
const dq = (label: string, inner: string, message: string | RegExp): Case =>
  ({ label, method: 'PUT', url: `${DQ}.json`, headers: JSON_, payload: `{"tilecacheQuotaConfiguration":${inner}}`, status: 400, message })

t.test('disk quota settings refused whole, nothing applied', async (t) => {
  const app = await build(t)
  await addLayer(app)
  t.equal((await app.inject({ method: 'PUT', url: `${DQ}.json`, headers: JSON_, payload: '{"tilecacheQuotaConfiguration":{"maxConcurrentCleanUps":3}}' })).statusCode, 200)
  const units = 'valid units: B, KiB, MiB, GiB, TiB, PiB, EiB, ZiB, YiB'
  await t.test('[hostile #45] units and values', async (t) => {
    await refuseAll(t, app, [
      dq('ZZiB', '{"globalQuota":{"value":"1","units":"ZZiB"}}', `Unknown storage unit ZZiB in globalQuota.units; ${units}`),
      dq('mb', '{"globalQuota":{"value":"1","units":"mb"}}', `Unknown storage unit mb in globalQuota.units; ${units}`),
      dq('-1', '{"globalQuota":{"value":"-1","units":"MiB"}}', 'globalQuota.value shall be a non-negative number: -1'),
      dq('1e309', '{"globalQuota":{"value":"1e309","units":"MiB"}}', 'globalQuota is too large: 1e309'),
      dq('NaN', '{"globalQuota":{"value":"NaN","units":"MiB"}}', 'globalQuota.value shall be a non-negative number: NaN'),
      dq('class name as unit', '{"globalQuota":{"value":"1","units":"org.geowebcache.diskquota.storage.StorageUnit"}}', /^Unknown storage unit org\.geowebcache/),
      { label: 'XML ZZiB', method: 'PUT', url: `${DQ}.xml`, headers: XML, payload: '<gwcQuotaConfiguration><globalQuota><value>1</value><units>ZZiB</units></globalQuota></gwcQuotaConfiguration>', status: 400, message: `Unknown storage unit ZZiB in globalQuota.units; ${units}` }
    ], DQ_GETS)
  })
  await t.test('[hostile #46] counts, frequency, units of time, policy, unknown layer', async (t) => {
    await refuseAll(t, app, [
      dq('maxConcurrentCleanUps 0', '{"maxConcurrentCleanUps":0}', 'maxConcurrentCleanUps shall be a positive integer: 0'),
      dq('maxConcurrentCleanUps -1', '{"maxConcurrentCleanUps":-1}', 'maxConcurrentCleanUps shall be a positive integer: -1'),
      dq('cacheCleanUpFrequency 0', '{"cacheCleanUpFrequency":0}', 'cacheCleanUpFrequency shall be a positive integer: 0'),
      dq('FORTNIGHTS', '{"cacheCleanUpUnits":"FORTNIGHTS"}', 'cacheCleanUpUnits shall be one of NANOSECONDS, MICROSECONDS, MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS: FORTNIGHTS'),
      dq('MRU', '{"globalExpirationPolicyName":"MRU"}', 'globalExpirationPolicyName shall be LRU or LFU: MRU'),
      dq('unknown layer', '{"layerQuotas":[{"layer":"topp:nosuch","quota":{"value":"1","units":"GiB"}}]}', 'layerQuotas: unknown layer topp:nosuch')
    ], DQ_GETS)
  })
  await t.test('[hostile #47] a valid field next to an invalid one: no partial apply', async (t) => {
    const enabledBefore = JSON.parse((await app.inject({ url: `${DQ}.json`, headers: ADMIN })).body).tilecacheQuotaConfiguration.enabled
    await refuseAll(t, app, [
      dq('enabled with maxConcurrentCleanUps 0', `{"enabled":${!enabledBefore},"maxConcurrentCleanUps":0}`, 'maxConcurrentCleanUps shall be a positive integer: 0'),
      dq('valid quota then a bad layer quota', '{"globalQuota":{"value":"5","units":"GiB"},"layerQuotas":[{"layer":"topp:states","quota":{"value":"1","units":"XB"}}]}', /^Unknown storage unit XB in layerQuotas\[0\]\.quota\.units/)
    ], DQ_GETS)
    t.equal(JSON.parse((await app.inject({ url: `${DQ}.json`, headers: ADMIN })).body).tilecacheQuotaConfiguration.enabled, enabledBefore, 'enabled unchanged')
  })
  await t.test('[hostile #48] quota store: JDBC, JNDI, odd validation query, unknown dialect', async (t) => {
    await refuseAll(t, app, [
      dq('JDBC store', '{"quotaStore":"JDBC"}', 'quotaStore JDBC: only the embedded store (sqlite) is supported'),
      dq('JNDI source', '{"jdbcConfiguration":{"dialect":"PostgreSQL","JNDISource":"java:comp/env/jdbc/x"}}', 'jdbcConfiguration: only the embedded quota store (sqlite) is supported'),
      dq('validation query', '{"jdbcConfiguration":{"dialect":"H2","connectionPool":{"driver":"org.h2.Driver","url":"jdbc:h2:/tmp/x","validationQuery":"DROP TABLE TILEPAGE"}}}', 'jdbcConfiguration: only the embedded quota store (sqlite) is supported'),
      dq('unknown dialect', '{"jdbcConfiguration":{"dialect":"Oracle9"}}', 'jdbcConfiguration: only the embedded quota store (sqlite) is supported'),
      dq('unknown store name', '{"quotaStore":"../../etc"}', /^quotaStore \.\.\/\.\.\/etc: only the embedded store/)
    ], DQ_GETS)
  })
})

const SEC_GETS = [`${S}/acl/layers.json`, `${S}/acl/catalog.json`, `${S}/masterpw.json`]

t.test('security settings refused with GeoServer\'s codes, nothing written', async (t) => {
  const app = await build(t)
  const acl = (label: string, payload: string, status: number, message: string | RegExp, method: 'POST' | 'PUT' = 'POST'): Case =>
    ({ label, method, url: `${S}/acl/layers.json`, headers: JSON_, payload, status, message })
  await t.test('[hostile #49] malformed rule keys, role injection, 100 000 rules: 422', async (t) => {
    const many = '<rules>' + Array.from({ length: 100_000 }, (_, i) => `<rule resource="w${i}.*.r">A</rule>`).join('') + '</rules>'
    await refuseAll(t, app, [
      acl('2 parts', '{"ws.layer":"A"}', 422, 'Invalid rule ws.layer, the expected format is workspace.layer.mode=role1,role2,...'),
      acl('unknown mode', '{"ws.layer.x":"A"}', 422, 'Unknown access mode x in ws.layer.x'),
      acl('* workspace, named layer', '{"*.layer.r":"A"}', 422, 'Invalid rule *.layer.r, when namespace is * then also layer must be *.'),
      acl('admin on a layer', '{"ws.layer.a":"A"}', 422, 'Invalid rule ws.layer.a, admin (a) privileges may only be applied globally to a workspace, layer must be *.'),
      acl('empty layer', '{"ws..r":"A"}', 422, 'Invalid rule ws..r, the expected format is workspace.layer.mode=role1,role2,...'),
      acl('line break in the roles', '{"ws.l.r":"A\\nws2.*.r=*"}', 422, 'Invalid rule ws.l.r, the role list contains a line break or control character'),
      acl('valid rule beside an invalid one', '{"ok.*.r":"A","ws.layer":"A"}', 422, 'Invalid rule ws.layer, the expected format is workspace.layer.mode=role1,role2,...'),
      { label: '100 000 rules', url: `${S}/acl/layers.xml`, headers: XML, payload: many, status: 422, message: 'Too many rules: 100000, at most 10000 are allowed' }
    ], SEC_GETS)
  })
  await t.test('[hostile #50] existing rule POST 409, unknown rule PUT 409, missing rule DELETE 404', async (t) => {
    await refuseAll(t, app, [
      acl('POST existing', '{"*.*.r":"B"}', 409, 'Already existing rules: *.*.r'),
      acl('PUT unknown', '{"nope.*.r":"B"}', 409, 'Unknown rules: nope.*.r', 'PUT'),
      { label: 'DELETE missing', method: 'DELETE', url: `${S}/acl/layers/topp.*.r`, headers: ADMIN, status: 404, message: 'Rule not found: topp.*.r' }
    ], SEC_GETS)
  })
  await t.test('[hostile #51] catalog mode OPEN, hide, empty: 422', async (t) => {
    const mode = (label: string, payload: string, message: string): Case => ({ label, method: 'PUT', url: `${S}/acl/catalog.json`, headers: JSON_, payload, status: 422, message })
    await refuseAll(t, app, [
      mode('OPEN', '{"mode":"OPEN"}', 'Not a valid mode: OPEN'),
      mode('hide', '{"mode":"hide"}', 'Not a valid mode: hide'),
      mode('empty', '{"mode":""}', 'Not a valid mode: '),
      { label: 'empty XML', method: 'PUT', url: `${S}/acl/catalog.xml`, headers: XML, payload: '<catalog><mode></mode></catalog>', status: 422, message: 'Not a valid mode: ' }
    ], SEC_GETS)
  })
  await t.test('[hostile #52] master password: missing fields 400, wrong old / weak / same 422, never echoed, GET no-store', async (t) => {
    const get = await app.inject({ url: `${S}/masterpw.json`, headers: ADMIN })
    t.equal(get.headers['cache-control'], 'no-store')
    const current = JSON.parse(get.body).oldMasterPassword as string
    const pw = (label: string, body: Record<string, unknown>, status: number, message: string): Case =>
      ({ label, method: 'PUT', url: `${S}/masterpw.json`, headers: JSON_, payload: JSON.stringify(body), status, message })
    const cases = [
      pw('missing fields', {}, 400, 'no master password'),
      pw('missing new', { oldMasterPassword: current }, 400, 'no master password'),
      pw('wrong old', { oldMasterPassword: 'wrong-password', newMasterPassword: 'new-password-1' }, 422, 'Cannot change master password: the current master password is not correct'),
      pw('weak new', { oldMasterPassword: current, newMasterPassword: 'abc' }, 422, 'Cannot change master password: the new master password must have at least 8 characters'),
      pw('new == old', { oldMasterPassword: current, newMasterPassword: current }, 422, 'Cannot change master password: the new master password must differ from the current one')
    ]
    for (const c of cases) {
      const before = await snapshot(app, SEC_GETS, ADMIN)
      const res = await app.inject({ method: 'PUT', url: c.url, headers: c.headers, payload: c.payload })
      await assertRefused(t, app, res, c, before, c.label, SEC_GETS, ADMIN)
      t.notOk(res.body.includes(current) || res.body.includes('new-password-1'), `${c.label}: no password echoed`)
    }
    // A non-admin: 405 on PUT (as GeoServer), 403 on GET; never the password.
    await app.inject({ method: 'POST', url: `${S}/usergroup/users`, headers: JSON_, payload: { user: { userName: 'bob', password: 'bob-password-1', enabled: true } } })
    const bob = { authorization: basic('bob', 'bob-password-1') }
    const r1 = await app.inject({ method: 'PUT', url: `${S}/masterpw.json`, headers: { ...bob, 'content-type': 'application/json' }, payload: JSON.stringify({ oldMasterPassword: current, newMasterPassword: 'x-password-2' }) })
    t.equal(r1.statusCode, 405)
    const r2 = await app.inject({ url: `${S}/masterpw.json`, headers: bob })
    t.equal(r2.statusCode, 403)
    t.equal(r1.body, 'Administrative privileges required')
    t.equal(r2.body, 'Administrative privileges required')
  })
})
