// The enforcement matrix over HTTP: callers with different roles x the three catalog modes x a
// tile request (read), a WMTS capabilities listing and a seed POST (write), on a layer with its
// own rules (topp:secret) and a layer under the default rules (topp:open).
import t from 'tap'
import { build, ADMIN, BASE, basic } from '../../helper.js'
import { addLayer } from '../../fixtures/seed/layers.js'
import { parameterId } from '../../../services/tilecache/parameters.js'

const S = `${BASE}/rest/security`
type Who = 'admin' | 'reader' | 'writer' | 'plain' | 'anon'
type Mode = 'HIDE' | 'MIXED' | 'CHALLENGE'
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex') // a stored tile: bytes only

// Expected statuses: [tile GET, listed in capabilities, seed POST], per catalog mode.
const SECRET: Record<Who, Record<Mode, [number, boolean, number]>> = {
  admin: { HIDE: [200, true, 200], MIXED: [200, true, 200], CHALLENGE: [200, true, 200] },
  reader: { HIDE: [200, true, 403], MIXED: [200, true, 403], CHALLENGE: [200, true, 403] },
  writer: { HIDE: [404, false, 200], MIXED: [403, false, 200], CHALLENGE: [403, true, 200] },
  plain: { HIDE: [404, false, 400], MIXED: [403, false, 403], CHALLENGE: [403, true, 403] },
  anon: { HIDE: [404, false, 401], MIXED: [401, false, 401], CHALLENGE: [401, true, 401] }
}
const OPEN: Record<Who, [number, boolean, number]> = {
  admin: [200, true, 200],
  reader: [200, true, 403],
  writer: [200, true, 403],
  plain: [200, true, 403],
  anon: [200, true, 401]
}

t.test('tile reads, capabilities and seed requests obey the layer rules in each catalog mode', async (t) => {
  const app = await build(t)
  await addLayer(app, { workspace: 'topp', name: 'secret' })
  await addLayer(app, { workspace: 'topp', name: 'open' })
  for (const name of ['secret', 'open']) {
    await app.tileCache.store.put({ layer: `topp:${name}`, gridSet: 'EPSG:4326', format: 'image/png', parameterId: parameterId({}), z: 0, x: 0, y: 0 }, PNG)
  }
  const json = { ...ADMIN, 'content-type': 'application/json' }
  let res = await app.inject({ method: 'POST', url: `${S}/acl/layers.json`, headers: json, payload: '{"topp.secret.r":"ROLE_READER","topp.secret.w":"ROLE_WRITER"}' })
  t.equal(res.statusCode, 201)
  const headers: Record<Who, Record<string, string>> = { admin: ADMIN, anon: {}, reader: {}, writer: {}, plain: {} }
  for (const [who, role] of [['reader', 'ROLE_READER'], ['writer', 'ROLE_WRITER'], ['plain', undefined]] as Array<[Who, string | undefined]>) {
    res = await app.inject({ method: 'POST', url: `${S}/usergroup/users`, headers: json, payload: { user: { userName: who, password: `${who}-password` } } })
    t.equal(res.statusCode, 201)
    if (role) {
      await app.inject({ method: 'POST', url: `${S}/roles/role/${role}`, headers: ADMIN })
      await app.inject({ method: 'POST', url: `${S}/roles/role/${role}/user/${who}`, headers: ADMIN })
    }
    headers[who] = { authorization: basic(who, `${who}-password`) }
  }
  const truncate = JSON.stringify({ seedRequest: { zoomStart: 0, zoomStop: 0, type: 'truncate', threadCount: 1, gridSetId: 'EPSG:4326', format: 'image/jpeg' } })

  for (const mode of ['HIDE', 'MIXED', 'CHALLENGE'] as Mode[]) {
    res = await app.inject({ method: 'PUT', url: `${S}/acl/catalog.json`, headers: json, payload: JSON.stringify({ mode }) })
    t.equal(res.statusCode, 200)
    for (const who of Object.keys(SECRET) as Who[]) {
      for (const layer of ['secret', 'open']) {
        const [tile, listed, seed] = layer === 'secret' ? SECRET[who][mode] : OPEN[who]
        const label = `${mode} ${who} topp:${layer}`
        res = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/topp:${layer}/EPSG:4326/0/0/0.png`, headers: headers[who] })
        t.equal(res.statusCode, tile, `${label}: tile`)
        if (tile === 401) t.equal(res.headers['www-authenticate'], 'Basic realm="GeoServer Realm"')
        if (tile === 404) t.equal(res.body, `Unknown layer topp:${layer}`, 'hidden looks like missing')
        res = await app.inject({ method: 'GET', url: `${BASE}/tilecache/service/wmts?SERVICE=WMTS&REQUEST=GetCapabilities`, headers: headers[who] })
        t.equal(res.statusCode, 200)
        t.equal(res.body.includes(`<ows:Identifier>topp:${layer}</ows:Identifier>`), listed, `${label}: listed in capabilities`)
        res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/topp:${layer}.json`, headers: { ...headers[who], 'content-type': 'application/json' }, payload: truncate })
        t.equal(res.statusCode, seed, `${label}: seed POST`)
        if (seed === 400) t.equal(res.body, `Unknown layer topp:${layer}`, 'hidden looks like missing')
      }
    }
  }
})

t.test('a TMS TileMap (metadata) of a refused layer: hidden, challenged, or described in CHALLENGE mode', async (t) => {
  const app = await build(t)
  await addLayer(app, { workspace: 'topp', name: 'secret' })
  const json = { ...ADMIN, 'content-type': 'application/json' }
  await app.inject({ method: 'POST', url: `${S}/acl/layers.json`, headers: json, payload: '{"topp.secret.r":"ROLE_READER"}' })
  await app.inject({ method: 'POST', url: `${S}/usergroup/users`, headers: json, payload: { user: { userName: 'plain', password: 'plain-password' } } })
  const plain = { authorization: basic('plain', 'plain-password') }
  const expected: Record<Mode, [number, number]> = { HIDE: [404, 404], MIXED: [401, 403], CHALLENGE: [200, 200] }
  for (const mode of ['HIDE', 'MIXED', 'CHALLENGE'] as Mode[]) {
    await app.inject({ method: 'PUT', url: `${S}/acl/catalog.json`, headers: json, payload: JSON.stringify({ mode }) })
    const url = `${BASE}/tilecache/service/tms/1.0.0/topp:secret@EPSG:4326@png`
    t.equal((await app.inject({ method: 'GET', url })).statusCode, expected[mode][0], `${mode} anonymous`)
    t.equal((await app.inject({ method: 'GET', url, headers: plain })).statusCode, expected[mode][1], `${mode} authenticated`)
    t.equal((await app.inject({ method: 'GET', url, headers: ADMIN })).statusCode, 200, `${mode} admin`)
  }
})

t.test('a workspace admin rule lets a user seed every layer of its workspace', async (t) => {
  const app = await build(t)
  await addLayer(app, { workspace: 'topp', name: 'roads' })
  await addLayer(app, { workspace: 'sf', name: 'dem' })
  const json = { ...ADMIN, 'content-type': 'application/json' }
  await app.inject({ method: 'POST', url: `${S}/acl/layers.json`, headers: json, payload: '{"topp.*.a":"ROLE_TOPP_ADMIN"}' })
  await app.inject({ method: 'POST', url: `${S}/usergroup/users`, headers: json, payload: { user: { userName: 'ta', password: 'topp-admin-pw' } } })
  await app.inject({ method: 'POST', url: `${S}/roles/role/ROLE_TOPP_ADMIN`, headers: ADMIN })
  await app.inject({ method: 'POST', url: `${S}/roles/role/ROLE_TOPP_ADMIN/user/ta`, headers: ADMIN })
  const ta = { authorization: basic('ta', 'topp-admin-pw'), 'content-type': 'application/json' }
  const truncate = JSON.stringify({ seedRequest: { zoomStart: 0, zoomStop: 0, type: 'truncate', threadCount: 1, gridSetId: 'EPSG:4326', format: 'image/jpeg' } })
  let res = await app.inject({ method: 'POST', url: `${BASE}/tilecache/rest/seed/topp:roads.json`, headers: ta, payload: truncate })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'POST', url: `${BASE}/tilecache/rest/seed/sf:dem.json`, headers: ta, payload: truncate })
  t.equal(res.statusCode, 403)
  res = await app.inject({ method: 'POST', url: `${BASE}/tilecache/rest/seed/sf:dem`, headers: { authorization: ta.authorization, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'kill_all=all' })
  t.equal(res.statusCode, 403, 'killing another workspace\'s tasks is refused too')
  res = await app.inject({ method: 'GET', url: `${BASE}/tilecache/rest/seed.json`, headers: ta })
  t.equal(res.statusCode, 403, 'the all-layers task list stays admin-only')
})
