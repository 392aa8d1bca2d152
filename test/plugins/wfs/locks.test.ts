// WFS locking (serviceLevel COMPLETE, the default): LockFeature in 2.0.0, 1.1.0 and 1.0.0 (KVP and
// XML) answered with GeoServer's LockFeatureResponse; lockAction ALL refused with
// CannotLockAllFeatures when a feature is held, SOME locking the rest; a Transaction changing a
// feature another lock holds refused (MissingParameterValue, lockId) with nothing changed; with the
// LockId it goes through and releases the lock (releaseAction ALL) or the features it changed (SOME);
// GetFeatureWithLock; expiry; the layer rules' `w`; TRANSACTIONAL offers no locks; on PostgreSQL a
// lock taken on one instance holds on another; a LockFeature waits for a Transaction's write on its
// type (the guard: no lock comes between the Transaction's check and its write).
import t from 'tap'
import pg from 'pg'
import { ADMIN, BASE, build, TEST_BACKEND, tempDir } from '../../helper.js'
import { wfsGet, wfsPost, wfsSetup } from './helpers.js'

const dataDir = tempDir(t)
const { app, url } = await wfsSetup(t, ['places', 'roads'], { dataDir })
const W20 = 'xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:vx="http://mapwarden.org/ns/vx"'
const W11 = 'xmlns:wfs="http://www.opengis.net/wfs" xmlns:ogc="http://www.opengis.net/ogc" xmlns:gml="http://www.opengis.net/gml" xmlns:vx="http://mapwarden.org/ns/vx"'
const tx = (xml: string, headers: Record<string, string> = ADMIN, on = app) => wfsPost(on, xml, '/wfs', headers)
const report = (body: string) => ({
  code: /(?:exceptionCode|code)="([^"]+)"/.exec(body)?.[1],
  locator: /locator="([^"]+)"/.exec(body)?.[1],
  text: (/<ows:ExceptionText>([\s\S]*?)<\/ows:ExceptionText>/.exec(body)?.[1] ?? /<ServiceException[^>]*>\s*([\s\S]*?)\s*<\/ServiceException>/.exec(body)?.[1])?.trim()
})
const lockIdOf = (body: string) => (/lockId="([^"]+)"/.exec(body) ?? /<(?:wfs:)?LockId>([^<]+)</.exec(body))?.[1] ?? ''
const pops = async (): Promise<Record<string, unknown>> => {
  const r = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'vx:places', outputFormat: 'application/json' }, ADMIN)
  return Object.fromEntries((JSON.parse(r.body).features as Array<{ id: string, properties: { pop: unknown } }>).map((f) => [f.id, f.properties.pop]))
}
const update20 = (rid: string, pop: number, attrs = '') => `<wfs:Transaction service="WFS" version="2.0.0" ${attrs} ${W20}><wfs:Update typeName="vx:places">` +
  `<wfs:Property><wfs:ValueReference>pop</wfs:ValueReference><wfs:Value>${pop}</wfs:Value></wfs:Property><fes:Filter><fes:ResourceId rid="${rid}"/></fes:Filter></wfs:Update></wfs:Transaction>`
const lock20 = (params: Record<string, string>) => wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'LockFeature', ...params }, ADMIN)

const RESPONSE_20 = (id: string, inner: string) => '<?xml version="1.0" encoding="UTF-8"?><wfs:LockFeatureResponse xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ' +
  `xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:fes="http://www.opengis.net/fes/2.0" lockId="${id}" xsi:schemaLocation="http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd">` +
  `${inner}</wfs:LockFeatureResponse>\n`

t.test('capabilities offer LockFeature and GetFeatureWithLock (COMPLETE)', async (t) => {
  const c20 = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetCapabilities' })
  t.match(c20.body, '<ows:Operation name="LockFeature">')
  t.match(c20.body, '<ows:Operation name="GetFeatureWithLock">')
  t.match(c20.body, '<ows:Constraint name="ImplementsLockingWFS"><ows:NoValues/><ows:DefaultValue>TRUE</ows:DefaultValue></ows:Constraint>')
  const c10 = await wfsGet(app, { service: 'WFS', version: '1.0.0', request: 'GetCapabilities' })
  t.match(c10.body, '<LockFeature><DCPType>')
  t.match(c10.body, '<Operations><Query/><Insert/><Update/><Delete/><Lock/></Operations>')
})

t.test('WFS 2.0.0: a lock holds against other Transactions; its LockId lets one through and releases it', async (t) => {
  const r = await lock20({ typeNames: 'vx:places', resourceId: 'places.1', expiry: '300' })
  t.equal(r.statusCode, 200, r.body)
  t.equal(r.headers['content-type'], 'text/xml')
  const id = lockIdOf(r.body)
  t.match(id, /^GeoServer_[0-9a-f]{20}$/)
  t.equal(r.body, RESPONSE_20(id, '<wfs:FeaturesLocked><fes:ResourceId rid="places.1"/></wfs:FeaturesLocked>'))

  // Without the LockId: refused, nothing changed (the unlocked feature in the same Transaction neither).
  const before = await pops()
  const both = `<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Update typeName="vx:places"><wfs:Property><wfs:ValueReference>pop</wfs:ValueReference><wfs:Value>7</wfs:Value></wfs:Property>` +
    '<fes:Filter><fes:ResourceId rid="places.1"/><fes:ResourceId rid="places.2"/></fes:Filter></wfs:Update></wfs:Transaction>'
  const refused = await tx(both)
  t.equal(refused.statusCode, 400)
  t.same(report(refused.body), { code: 'MissingParameterValue', locator: 'lockId', text: 'Features places.1 are locked: a Transaction changing them needs the LockId of their lock (none given)' })
  const del = await tx(`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Delete typeName="vx:places"><fes:Filter><fes:ResourceId rid="places.1"/></fes:Filter></wfs:Delete></wfs:Transaction>`)
  t.same(report(del.body).code, 'MissingParameterValue', 'a Delete too')
  t.same(await pops(), before, 'nothing changed')

  // Another lock's id does not do either.
  const other = lockIdOf((await lock20({ typeNames: 'vx:places', resourceId: 'places.2' })).body)
  const wrong = await tx(update20('places.1', 8, `lockId="${other}"`))
  t.same(report(wrong.body), { code: 'MissingParameterValue', locator: 'lockId', text: `Features places.1 are locked: a Transaction changing them needs the LockId of their lock (${other} is not it)` })

  // lockAction ALL (the default): nothing locked when one is held; SOME: the others.
  const all = await lock20({ typeNames: 'vx:places', resourceId: 'places.1,places.3' })
  t.equal(all.statusCode, 400)
  t.same(report(all.body), { code: 'CannotLockAllFeatures', locator: 'lockAction', text: 'Could not aquire locks for: places.1 (held by other locks; lockAction=SOME locks the others)' })
  const some = await lock20({ typeNames: 'vx:places', resourceId: 'places.1,places.3', lockAction: 'SOME' })
  t.equal(some.statusCode, 200, some.body)
  t.equal(some.body, RESPONSE_20(lockIdOf(some.body), '<wfs:FeaturesLocked><fes:ResourceId rid="places.3"/></wfs:FeaturesLocked><wfs:FeaturesNotLocked><fes:ResourceId rid="places.1"/></wfs:FeaturesNotLocked>'))

  // With its LockId: the update goes through, and releaseAction ALL (the default) frees the feature.
  const ok = await tx(update20('places.1', 111, `lockId="${id}"`))
  t.equal(ok.statusCode, 200, ok.body)
  t.match(ok.body, '<wfs:totalUpdated>1</wfs:totalUpdated>')
  t.equal((await pops())['places.1'], 111)
  const released = await tx(update20('places.1', 112))
  t.equal(released.statusCode, 200, released.body)
  t.equal((await pops())['places.1'], 112, 'released: anyone may change it again')
  const gone = await tx(update20('places.1', 113, `lockId="${id}"`))
  t.same(report(gone.body), { code: 'InvalidLockId', locator: 'lockId', text: `Unknown lock ${id} (released, or never acquired)` })
  // Free the other two locks: a Transaction of a LockId alone releases it.
  for (const l of [other, lockIdOf(some.body)]) {
    const r = await tx(`<wfs:Transaction service="WFS" version="2.0.0" lockId="${l}" ${W20}></wfs:Transaction>`)
    t.equal(r.statusCode, 200, r.body)
  }
  t.equal((await tx(update20('places.2', 201))).statusCode, 200, 'places.2 free again')
})

t.test('WFS 1.1.0: LockFeature as XML (wfs:Lock with a filter, expiry in minutes); releaseAction SOME frees only what the Transaction changed', async (t) => {
  const r = await wfsPost(app, `<wfs:LockFeature service="WFS" version="1.1.0" expiry="5" ${W11}><wfs:Lock typeName="vx:places">` +
    '<ogc:Filter><ogc:PropertyIsLessThan><ogc:PropertyName>pop</ogc:PropertyName><ogc:Literal>250</ogc:Literal></ogc:PropertyIsLessThan></ogc:Filter></wfs:Lock></wfs:LockFeature>', '/wfs', ADMIN)
  t.equal(r.statusCode, 200, r.body)
  const id = lockIdOf(r.body)
  t.equal(r.body, '<?xml version="1.0" encoding="UTF-8"?><wfs:LockFeatureResponse xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:wfs="http://www.opengis.net/wfs" ' +
    'xmlns:ogc="http://www.opengis.net/ogc" xsi:schemaLocation="http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.1.0/wfs.xsd">' +
    `<wfs:LockId>${id}</wfs:LockId><wfs:FeaturesLocked><ogc:FeatureId fid="places.1"/><ogc:FeatureId fid="places.2"/></wfs:FeaturesLocked></wfs:LockFeatureResponse>\n`)
  const update11 = (fid: string, pop: number, lock = '', release = '') => `<wfs:Transaction service="WFS" version="1.1.0" ${release} ${W11}>${lock}<wfs:Update typeName="vx:places">` +
    `<wfs:Property><wfs:Name>pop</wfs:Name><wfs:Value>${pop}</wfs:Value></wfs:Property><ogc:Filter><ogc:FeatureId fid="${fid}"/></ogc:Filter></wfs:Update></wfs:Transaction>`
  const refused = await tx(update11('places.2', 5))
  t.equal(refused.statusCode, 200, '1.x reports with 200')
  t.same(report(refused.body).code, 'MissingParameterValue')
  t.match(refused.body, /<ows:ExceptionReport [^>]*version="1.0.0"/)
  const some = await tx(update11('places.1', 121, `<wfs:LockId>${id}</wfs:LockId>`, 'releaseAction="SOME"'))
  t.equal(some.statusCode, 200, some.body)
  t.match(some.body, '<wfs:totalUpdated>1</wfs:totalUpdated>')
  t.equal((await tx(update11('places.1', 122))).statusCode, 200)
  t.equal((await pops())['places.1'], 122, 'the feature changed under SOME is released')
  t.same(report((await tx(update11('places.2', 6))).body).code, 'MissingParameterValue', 'the other one is still locked')
  const all = await tx(`<wfs:Transaction service="WFS" version="1.1.0" releaseAction="ALL" ${W11}><wfs:LockId>${id}</wfs:LockId></wfs:Transaction>`)
  t.equal(all.statusCode, 200, all.body)
  t.equal((await tx(update11('places.2', 202))).statusCode, 200)
  t.equal((await pops())['places.2'], 202)
})

t.test('WFS 1.0.0: LockFeature by KVP featureId; WFS_LockFeatureResponse', async (t) => {
  const r = await wfsGet(app, { service: 'WFS', version: '1.0.0', request: 'LockFeature', typeName: 'vx:roads', featureId: 'roads.1', expiry: '2' }, ADMIN)
  t.equal(r.statusCode, 200, r.body)
  const id = lockIdOf(r.body)
  t.equal(r.body, '<?xml version="1.0" encoding="UTF-8"?><WFS_LockFeatureResponse xmlns="http://www.opengis.net/wfs" xmlns:ogc="http://www.opengis.net/ogc" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.0.0/WFS-transaction.xsd">' +
    `<LockId>${id}</LockId><FeaturesLocked><ogc:FeatureId fid="roads.1"/></FeaturesLocked></WFS_LockFeatureResponse>\n`)
  const del = (lock: string) => `<wfs:Transaction service="WFS" version="1.0.0" ${W11}>${lock}<wfs:Delete typeName="vx:roads"><ogc:Filter><ogc:FeatureId fid="roads.1"/></ogc:Filter></wfs:Delete></wfs:Transaction>`
  const refused = await tx(del(''))
  t.equal(refused.statusCode, 200)
  t.match(refused.body, '<ServiceException code="MissingParameterValue" locator="lockId">')
  const ok = await tx(del(`<wfs:LockId>${id}</wfs:LockId>`))
  t.equal(ok.statusCode, 200, ok.body)
  t.match(ok.body, '<wfs:SUCCESS/>')
  const left = JSON.parse((await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeature', typeNames: 'vx:roads', outputFormat: 'application/json' }, ADMIN)).body)
  t.same(left.features.map((f: { id: string }) => f.id), ['roads.2'])
})

t.test('GetFeatureWithLock: the features returned are locked, the collection names the lock', async (t) => {
  const r = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeatureWithLock', typeNames: 'vx:places', resourceId: 'places.4', expiry: '300' }, ADMIN)
  t.equal(r.statusCode, 200, r.body)
  const id = lockIdOf(r.body)
  t.match(id, /^GeoServer_/)
  t.match(r.body, /<wfs:FeatureCollection [^>]*lockId="GeoServer_[0-9a-f]{20}" numberMatched="1" numberReturned="1"/)
  t.match(r.body, '<vx:places gml:id="places.4">')
  t.same(report((await tx(update20('places.4', 1))).body).code, 'MissingParameterValue', 'locked')
  const r11 = await wfsPost(app, `<wfs:GetFeatureWithLock service="WFS" version="1.1.0" expiry="1" ${W11}><wfs:Query typeName="vx:places"><ogc:Filter><ogc:FeatureId fid="places.4"/></ogc:Filter></wfs:Query></wfs:GetFeatureWithLock>`, '/wfs', ADMIN)
  t.same(report(r11.body), { code: 'CannotLockAllFeatures', locator: 'lockAction', text: 'Could not aquire locks for: places.4 (held by other locks; lockAction=SOME locks the others)' })
  const json = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetFeatureWithLock', typeNames: 'vx:places', outputFormat: 'application/json' }, ADMIN)
  t.same(report(json.body), { code: 'InvalidParameterValue', locator: 'outputFormat', text: 'Invalid outputFormat json: GetFeatureWithLock answers GML, whose collection carries the lockId' })
  t.equal((await tx(`<wfs:Transaction service="WFS" version="2.0.0" lockId="${id}" ${W20}></wfs:Transaction>`)).statusCode, 200)
})

t.test('a lock expires (2.0.0: expiry in seconds): its features are free, its LockId is told so', async (t) => {
  const r = await lock20({ typeNames: 'vx:places', resourceId: 'places.3', expiry: '1' })
  t.equal(r.statusCode, 200, r.body)
  const id = lockIdOf(r.body)
  // Past the second the lock was given (no assertion on how long anything took).
  await new Promise((resolve) => setTimeout(resolve, 1100))
  const late = await tx(update20('places.3', 31, `lockId="${id}"`))
  t.same(report(late.body), { code: 'LockHasExpired', locator: 'lockId', text: `Lock ${id} has expired` })
  const free = await tx(update20('places.3', 32))
  t.equal(free.statusCode, 200, free.body)
  t.equal((await pops())['places.3'], 32)
  const again = await lock20({ typeNames: 'vx:places', resourceId: 'places.3' })
  t.equal(again.body, RESPONSE_20(lockIdOf(again.body), '<wfs:FeaturesLocked><fes:ResourceId rid="places.3"/></wfs:FeaturesLocked>'), 'and can be locked again')
  await tx(`<wfs:Transaction service="WFS" version="2.0.0" lockId="${lockIdOf(again.body)}" ${W20}></wfs:Transaction>`)
})

t.test('the layer rules\' w: locking is writing', async (t) => {
  const json = { ...ADMIN, 'content-type': 'application/json' }
  t.equal((await app.inject({ method: 'POST', url: `${BASE}/rest/security/acl/layers.json`, headers: json, payload: '{"vx.places.w":"ROLE_EDITOR"}' })).statusCode, 201)
  t.equal((await app.inject({ method: 'POST', url: `${BASE}/rest/security/usergroup/users`, headers: json, payload: { user: { userName: 'reader', password: 'reader-password' } } })).statusCode, 201)
  const reader = { authorization: `Basic ${Buffer.from('reader:reader-password').toString('base64')}` }
  const r = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'LockFeature', typeNames: 'vx:places', resourceId: 'places.2' }, reader)
  t.equal(r.statusCode, 403)
  t.match(r.body, /<ows:Exception exceptionCode="NoApplicableCode">/)
  const anon = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'LockFeature', typeNames: 'vx:places', resourceId: 'places.2' })
  t.equal(anon.statusCode, 401)
  t.equal((await tx(update20('places.2', 203))).statusCode, 200, 'nothing was locked')
  t.equal((await app.inject({ method: 'DELETE', url: `${BASE}/rest/security/acl/layers/vx.places.w`, headers: ADMIN })).statusCode, 200)
})

t.test('serviceLevel TRANSACTIONAL: transactions without locks; LockFeature is OperationNotSupported', async (t) => {
  const put = (level: string) => app.inject({ method: 'PUT', url: `${BASE}/rest/services/wfs/settings.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { wfs: { serviceLevel: level } } })
  t.equal((await put('TRANSACTIONAL')).statusCode, 200)
  t.teardown(() => put('COMPLETE'))
  const r = await lock20({ typeNames: 'vx:places', resourceId: 'places.2' })
  t.same(report(r.body), { code: 'OperationNotSupported', locator: 'LockFeature', text: 'Operation LockFeature is not supported: the WFS settings&apos; serviceLevel is TRANSACTIONAL (locks need COMPLETE)' })
  const c20 = await wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'GetCapabilities' })
  t.notMatch(c20.body, 'name="LockFeature"')
  t.match(c20.body, '<ows:Operation name="Transaction">')
})

t.test('PostgreSQL: a lock taken on one instance holds on another sharing the catalog', { skip: TEST_BACKEND !== 'pg' && 'one instance owns an SQLite catalog' }, async (t) => {
  const other = await build(t, { dataDir })
  const r = await lock20({ typeNames: 'vx:places', resourceId: 'places.2' })
  const id = lockIdOf(r.body)
  t.match(r.body, '<fes:ResourceId rid="places.2"/>')
  const refused = await tx(update20('places.2', 9), ADMIN, other)
  t.same(report(refused.body).code, 'MissingParameterValue', 'the other instance honours it')
  const taken = await wfsGet(other, { service: 'WFS', version: '2.0.0', request: 'LockFeature', typeNames: 'vx:places', resourceId: 'places.2' }, ADMIN)
  t.same(report(taken.body).code, 'CannotLockAllFeatures')
  const ok = await tx(update20('places.2', 204, `lockId="${id}"`), ADMIN, other)
  t.equal(ok.statusCode, 200, ok.body)
  t.equal((await pops())['places.2'], 204)
})

t.test('no lock comes between a Transaction\'s check and its write: a LockFeature on the type waits for the write', async (t) => {
  const data = new pg.Client({ connectionString: url })
  // pg_stat_activity and pg_locks read on a connection of their own (a transaction keeps its first view of them).
  const watch = new pg.Client({ connectionString: url })
  await data.connect()
  await watch.connect()
  t.teardown(async () => { await data.end(); await watch.end() })
  // The Transaction's write waits on this row lock, after its check found roads.2 free.
  await data.query('BEGIN')
  await data.query('SELECT 1 FROM roads WHERE id = 2 FOR UPDATE')
  const order: string[] = []
  const update = tx(`<wfs:Transaction service="WFS" version="2.0.0" ${W20}><wfs:Update typeName="vx:roads"><wfs:Property><wfs:ValueReference>kind</wfs:ValueReference>` +
    '<wfs:Value>guarded</wfs:Value></wfs:Property><fes:Filter><fes:ResourceId rid="roads.2"/></fes:Filter></wfs:Update></wfs:Transaction>').then((r) => { order.push('transaction'); return r })
  const dbName = new URL(url).pathname.slice(1)
  const waiting = async (sql: string, params: unknown[]) => {
    for (;;) {
      if ((await watch.query(sql, params)).rows.length > 0) return
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  await waiting("SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND query ILIKE 'WITH u AS (UPDATE%'", [dbName])
  const lock = wfsGet(app, { service: 'WFS', version: '2.0.0', request: 'LockFeature', typeNames: 'vx:roads', resourceId: 'roads.2', expiry: '300' }, ADMIN)
    .then((r) => { order.push('lock'); return r })
  // PostgreSQL: until the LockFeature waits for the guard's advisory lock; SQLite (in process): a
  // while, long enough for it to answer were it not held (the test cannot fail by being slow).
  if (TEST_BACKEND === 'pg') {
    await waiting("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid::bigint = (hashtext($1)::bigint & 4294967295)", ['wfs-lock-type:vx:roads'])
  } else await Promise.race([lock, new Promise((resolve) => setTimeout(resolve, 1000))])
  t.same(order, [], 'the LockFeature has not answered while the Transaction writes')
  await data.query('COMMIT')
  const [u, l] = await Promise.all([update, lock])
  t.equal(u.statusCode, 200, u.body)
  t.equal(l.statusCode, 200, l.body)
  t.match(l.body, '<wfs:FeaturesLocked><fes:ResourceId rid="roads.2"/></wfs:FeaturesLocked>', 'the lock, taken once the write was done, holds the feature')
  t.equal((await data.query('SELECT kind FROM roads WHERE id = 2')).rows[0].kind, 'guarded')
})
