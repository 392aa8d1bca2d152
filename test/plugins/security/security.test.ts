// {base}/rest/security: catalog mode, layer rules and master password, in XML and JSON, with
// GeoServer's statuses and messages, persistence across restart, and non-admin refusals.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE, basic, tempDir } from '../../helper.js'
import type { FastifyInstance } from 'fastify'
import { appRows, appRun } from '../../fixtures/catalog-rows.js'

const S = `${BASE}/rest/security`
const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, '../../../../test/fixtures/security', name), 'utf8')
const XML = { ...ADMIN, 'content-type': 'application/xml' }
const JSON_ = { ...ADMIN, 'content-type': 'application/json' }

async function addUser (app: FastifyInstance, name: string, password: string, ...roles: string[]) {
  const res = await app.inject({ method: 'POST', url: `${S}/usergroup/users`, headers: JSON_, payload: { user: { userName: name, password, enabled: true } } })
  if (res.statusCode !== 201) throw new Error(`user ${name}: ${res.statusCode} ${res.body}`)
  for (const role of roles) {
    await app.inject({ method: 'POST', url: `${S}/roles/role/${role}`, headers: ADMIN })
    await app.inject({ method: 'POST', url: `${S}/roles/role/${role}/user/${name}`, headers: ADMIN })
  }
  return { authorization: basic(name, password) }
}

t.test('catalog mode: GET in XML and JSON, PUT each valid value, persisted across restart', async (t) => {
  const dataDir = tempDir(t)
  let app = await build(t, { dataDir, keepOpen: true })
  let res = await app.inject({ method: 'GET', url: `${S}/acl/catalog.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, '<?xml version="1.0" encoding="UTF-8"?>\n<catalog>\n  <mode>HIDE</mode>\n</catalog>\n')
  res = await app.inject({ method: 'GET', url: `${S}/acl/catalog.json`, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(res.body, '{"mode":"HIDE"}')

  res = await app.inject({ method: 'PUT', url: `${S}/acl/catalog.xml`, headers: XML, payload: fixture('catalog-mixed.xml') })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '')
  res = await app.inject({ method: 'GET', url: `${S}/acl/catalog`, headers: { ...ADMIN, accept: 'application/json' } })
  t.equal(res.body, '{"mode":"MIXED"}')
  // curl -d @file sends a form content type: the suffix decides.
  res = await app.inject({ method: 'PUT', url: `${S}/acl/catalog.json`, headers: { ...ADMIN, 'content-type': 'application/x-www-form-urlencoded' }, payload: '{"mode":"CHALLENGE"}' })
  t.equal(res.statusCode, 200)
  await app.close()

  app = await build(t, { dataDir })
  res = await app.inject({ method: 'GET', url: `${S}/acl/catalog.json`, headers: ADMIN })
  t.equal(res.body, '{"mode":"CHALLENGE"}')
})

t.test('[hostile #51] catalog mode: invalid values 422, missing mode 404, nothing changed', async (t) => {
  const app = await build(t)
  const cases: Array<[string, string, number, string]> = [
    ['application/json', '{"mode":"OPEN"}', 422, 'Not a valid mode: OPEN'],
    ['application/json', '{"mode":"hide"}', 422, 'Not a valid mode: hide'],
    ['application/xml', '<catalog><mode></mode></catalog>', 422, 'Not a valid mode: '],
    ['application/json', '{"mode":3}', 422, 'Not a valid mode: 3'],
    ['application/json', '{"other":"HIDE"}', 404, 'Element mode is missing'],
    ['application/xml', '<catalog/>', 404, 'Element mode is missing'],
    ['application/xml', '<catalog><mode>MIXED</mode', 400, '']
  ]
  for (const [type, payload, status, message] of cases) {
    const res = await app.inject({ method: 'PUT', url: `${S}/acl/catalog`, headers: { ...ADMIN, 'content-type': type }, payload })
    t.equal(res.statusCode, status, payload)
    t.match(res.headers['content-type'], /^text\/plain/)
    if (message) t.equal(res.body, message)
  }
  const res = await app.inject({ method: 'PUT', url: `${S}/acl/catalog.xml`, headers: XML, payload: '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><catalog><mode>&e;</mode></catalog>' })
  t.equal(res.statusCode, 400, 'XXE refused')
  t.equal((await app.inject({ method: 'GET', url: `${S}/acl/catalog.json`, headers: ADMIN })).body, '{"mode":"HIDE"}')
})

t.test('layer rules: defaults, POST 201 in XML and JSON, GET sorted in both forms, PUT, DELETE', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'GET', url: `${S}/acl/layers.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '<?xml version="1.0" encoding="UTF-8"?>\n<rules>\n  <rule resource="*.*.r">*</rule>\n  <rule resource="*.*.w">GROUP_ADMIN,ADMIN</rule>\n</rules>\n')
  res = await app.inject({ method: 'GET', url: `${S}/acl/layers.json`, headers: ADMIN })
  t.equal(res.body, '{"*.*.r":"*","*.*.w":"GROUP_ADMIN,ADMIN"}')

  res = await app.inject({ method: 'POST', url: `${S}/acl/layers.xml`, headers: XML, payload: fixture('rules-post.xml') })
  t.equal(res.statusCode, 201)
  t.equal(res.body, '')
  res = await app.inject({ method: 'POST', url: `${S}/acl/layers`, headers: JSON_, payload: fixture('rules-post.json') })
  t.equal(res.statusCode, 201)

  res = await app.inject({ method: 'GET', url: `${S}/acl/layers.json`, headers: ADMIN })
  t.equal(res.body, '{"*.*.r":"*","*.*.w":"GROUP_ADMIN,ADMIN","sf.*.r":"ROLE_AUTHENTICATED","sf.*.a":"ROLE_SF_ADMIN","topp.*.r":"ROLE_READER","topp.roads.w":"ROLE_WRITER,ROLE_EDITOR"}')

  res = await app.inject({ method: 'PUT', url: `${S}/acl/layers.json`, headers: JSON_, payload: '{"topp.*.r":"ROLE_A ,, ROLE_B, *"}' })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'PUT', url: `${S}/acl/layers.json`, headers: JSON_, payload: '{}' })
  t.equal(res.statusCode, 200, 'an empty map changes nothing')

  res = await app.inject({ method: 'DELETE', url: `${S}/acl/layers/sf.*.a`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'DELETE', url: `${S}/acl/layers/topp.roads.w`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'GET', url: `${S}/acl/layers.xml`, headers: ADMIN })
  t.equal(res.body, [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rules>',
    '  <rule resource="*.*.r">*</rule>',
    '  <rule resource="*.*.w">GROUP_ADMIN,ADMIN</rule>',
    '  <rule resource="sf.*.r">ROLE_AUTHENTICATED</rule>',
    '  <rule resource="topp.*.r">*</rule>',
    '</rules>',
    ''
  ].join('\n'))

  for (const key of ['*.*.r', '*.*.w', 'sf.*.r', 'topp.*.r']) {
    res = await app.inject({ method: 'DELETE', url: `${S}/acl/layers/${encodeURIComponent(key)}`, headers: ADMIN })
    t.equal(res.statusCode, 200, key)
  }
  res = await app.inject({ method: 'GET', url: `${S}/acl/layers.xml`, headers: ADMIN })
  t.equal(res.body, '<?xml version="1.0" encoding="UTF-8"?>\n<rules />\n')
  res = await app.inject({ method: 'GET', url: `${S}/acl/layers.json`, headers: ADMIN })
  t.equal(res.body, '{}')
})

t.test('[hostile #49] [hostile #50] layer rules: invalid keys 422 with GeoServer messages, existing 409, unknown 409, missing 404; nothing stored', async (t) => {
  const app = await build(t)
  const before = (await app.inject({ method: 'GET', url: `${S}/acl/layers.json`, headers: ADMIN })).body
  const post = (payload: string) => app.inject({ method: 'POST', url: `${S}/acl/layers.json`, headers: JSON_, payload })
  const cases: Array<[string, number, string]> = [
    ['{"ok.*.r":"A","ws.layer":"A"}', 422, 'Invalid rule ws.layer, the expected format is workspace.layer.mode=role1,role2,...'],
    ['{"ws.layer.x":"A"}', 422, 'Unknown access mode x in ws.layer.x'],
    ['{"*.layer.r":"A"}', 422, 'Invalid rule *.layer.r, when namespace is * then also layer must be *.'],
    ['{"ws.layer.a":"A"}', 422, 'Invalid rule ws.layer.a, admin (a) privileges may only be applied globally to a workspace, layer must be *.'],
    ['{"ws..r":"A"}', 422, 'Invalid rule ws..r, the expected format is workspace.layer.mode=role1,role2,...'],
    ['{"ws.l.r":"A\\nws2.*.r=*"}', 422, 'Invalid rule ws.l.r, the role list contains a line break or control character'],
    ['{"ws.l.r":" , "}', 422, 'Invalid rule ws.l.r, the role list is empty; use * for everyone'],
    ['{"ok.*.r":"A","*.*.r":"B","*.*.w":"C"}', 409, 'Already existing rules: *.*.r,*.*.w']
  ]
  for (const [payload, status, message] of cases) {
    const res = await post(payload)
    t.equal(res.statusCode, status, payload)
    t.equal(res.body, message)
  }
  const many = '<rules>' + Array.from({ length: 10_001 }, (_, i) => `<rule resource="w${i}.*.r">A</rule>`).join('') + '</rules>'
  let res = await app.inject({ method: 'POST', url: `${S}/acl/layers.xml`, headers: XML, payload: many })
  t.equal(res.statusCode, 422)
  t.equal(res.body, 'Too many rules: 10001, at most 10000 are allowed')

  res = await app.inject({ method: 'POST', url: `${S}/acl/layers.xml`, headers: XML, payload: '<rules><rule>A</rule></rules>' })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'Every rule element needs a resource attribute')

  res = await app.inject({ method: 'PUT', url: `${S}/acl/layers.json`, headers: JSON_, payload: '{"*.*.r":"A","nope.*.r":"B"}' })
  t.equal(res.statusCode, 409)
  t.equal(res.body, 'Unknown rules: nope.*.r')
  res = await app.inject({ method: 'PUT', url: `${S}/acl/layers.json`, headers: JSON_, payload: '{"*.*.r":"A","x.y":"B"}' })
  t.equal(res.statusCode, 422)

  res = await app.inject({ method: 'DELETE', url: `${S}/acl/layers/topp.*.r`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Rule not found: topp.*.r')
  res = await app.inject({ method: 'DELETE', url: `${S}/acl/layers/topp.r`, headers: ADMIN })
  t.equal(res.statusCode, 422)
  res = await app.inject({ method: 'DELETE', url: `${S}/acl/layers`, headers: ADMIN })
  t.equal(res.statusCode, 405)

  t.equal((await app.inject({ method: 'GET', url: `${S}/acl/layers.json`, headers: ADMIN })).body, before, 'nothing stored')
  t.equal((await appRows(app, 'SELECT count(*) AS n FROM security_rules'))[0].n, 2)
})

t.test('layer rules persist across restart', async (t) => {
  const dataDir = tempDir(t)
  let app = await build(t, { dataDir, keepOpen: true })
  await app.inject({ method: 'POST', url: `${S}/acl/layers.xml`, headers: XML, payload: fixture('rules-post.xml') })
  await app.close()
  app = await build(t, { dataDir })
  const res = await app.inject({ method: 'GET', url: `${S}/acl/layers.json`, headers: ADMIN })
  t.equal(res.body, '{"*.*.r":"*","*.*.w":"GROUP_ADMIN,ADMIN","topp.*.r":"ROLE_READER","topp.roads.w":"ROLE_WRITER,ROLE_EDITOR"}')
})

t.test('[hostile #52] master password: generated on first start, GET no-store in XML and JSON, PUT rules, persisted', async (t) => {
  const dataDir = tempDir(t)
  let app = await build(t, { dataDir, keepOpen: true })
  let res = await app.inject({ method: 'GET', url: `${S}/masterpw.json`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'no-store')
  const generated = JSON.parse(res.body).oldMasterPassword as string
  t.ok(generated.length >= 20, 'a strong generated password')
  res = await app.inject({ method: 'GET', url: `${S}/masterpw.xml`, headers: ADMIN })
  t.equal(res.headers['cache-control'], 'no-store')
  t.equal(res.body, `<?xml version="1.0" encoding="UTF-8"?>\n<masterPassword>\n  <oldMasterPassword>${generated}</oldMasterPassword>\n</masterPassword>\n`)

  const put = (oldPw: string, newPw: string, type = 'application/xml') => app.inject({
    method: 'PUT',
    url: `${S}/masterpw.xml`,
    headers: { ...ADMIN, 'content-type': type },
    payload: fixture('masterpw-put.xml').replace('OLD', oldPw).replace('NEW', newPw)
  })
  const refusals: Array<[string, string, number, string]> = [
    ['', 'new-password-1', 400, 'no master password'],
    [generated, '   ', 400, 'no master password'],
    ['wrong-password', 'new-password-1', 422, 'Cannot change master password: the current master password is not correct'],
    [generated, 'abc', 422, 'Cannot change master password: the new master password must have at least 8 characters'],
    [generated, generated, 422, 'Cannot change master password: the new master password must differ from the current one']
  ]
  for (const [o, n, status, message] of refusals) {
    res = await put(o, n)
    t.equal(res.statusCode, status, message)
    t.equal(res.body, message)
    t.notOk(res.body.includes(generated), 'never echoes the password')
  }
  res = await put(` ${generated} `, 'new-master-pw-1')
  t.equal(res.statusCode, 200)
  t.equal(res.body, '')
  res = await app.inject({ method: 'PUT', url: `${S}/masterpw.json`, headers: JSON_, payload: { oldMasterPassword: 'new-master-pw-1', newMasterPassword: 'new-master-pw-2' } })
  t.equal(res.statusCode, 200)
  await app.close()

  app = await build(t, { dataDir })
  res = await app.inject({ method: 'GET', url: `${S}/masterpw.json`, headers: ADMIN })
  t.equal(res.body, '{"oldMasterPassword":"new-master-pw-2"}')
})

t.test('master password is not on disk in plain text; the key file is 0600', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, keepOpen: true })
  await app.inject({ method: 'PUT', url: `${S}/masterpw.json`, headers: JSON_, payload: { oldMasterPassword: JSON.parse((await app.inject({ method: 'GET', url: `${S}/masterpw.json`, headers: ADMIN })).body).oldMasterPassword, newMasterPassword: 'plain-text-canary-42' } })
  await app.close()
  const files: string[] = []
  const walk = (d: string) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(path.join(d, e.name)) : files.push(path.join(d, e.name)) }
  walk(dataDir)
  for (const f of files) t.notOk(fs.readFileSync(f).includes('plain-text-canary-42'), `${path.relative(dataDir, f)} does not hold the password`)
  // The catalog's rows, on either backend (on PostgreSQL they are not files of the data directory).
  const settings = await appRows(app, 'SELECT key, value FROM security_settings ORDER BY key')
  t.ok(settings.some((r) => r.key !== 'catalogMode'), 'the sealed master password is a setting row')
  for (const r of settings) t.notOk(String(r.value).includes('plain-text-canary-42'), `the ${r.key} setting does not hold the password`)
  const key = path.join(dataDir, 'security', 'master.key')
  t.equal(fs.statSync(key).mode & 0o777, 0o600)
  t.equal(fs.statSync(path.dirname(key)).mode & 0o777, 0o700)
})

t.test('master password with MAPWARDEN_MASTER_KEY: no key file; a different key refuses to start', async (t) => {
  const dataDir = tempDir(t)
  let app = await build(t, { dataDir, masterKey: 'a-long-enough-secret-key', keepOpen: true })
  t.equal((await app.inject({ method: 'GET', url: `${S}/masterpw.json`, headers: ADMIN })).statusCode, 200)
  await app.close()
  t.notOk(fs.existsSync(path.join(dataDir, 'security', 'master.key')))
  await t.rejects(build(t, { dataDir, masterKey: 'another-long-enough-secret' }), /cannot be decrypted with the configured key \(wrong key\)/)
  await t.rejects(build(t, { dataDir: tempDir(t), masterKey: 'short' }), /at least 16 characters/)
})

t.test('non-admin callers: 403 on security resources, 405 on PUT masterpw; anonymous 401', async (t) => {
  const app = await build(t)
  const bob = await addUser(app, 'bob', 'bob-password-1', 'ROLE_READER')
  for (const url of ['masterpw.xml', 'acl/catalog.json', 'acl/layers.json', 'usergroup/users.json', 'roles.json']) {
    const res = await app.inject({ method: 'GET', url: `${S}/${url}`, headers: bob })
    t.equal(res.statusCode, 403, url)
    t.equal(res.body, 'Administrative privileges required')
  }
  let res = await app.inject({ method: 'PUT', url: `${S}/masterpw.json`, headers: { ...bob, 'content-type': 'application/json' }, payload: '{"oldMasterPassword":"x","newMasterPassword":"yyyyyyyyy"}' })
  t.equal(res.statusCode, 405)
  t.equal(res.body, 'Administrative privileges required')
  res = await app.inject({ method: 'POST', url: `${S}/acl/layers.json`, headers: { ...bob, 'content-type': 'application/json' }, payload: '{"topp.*.r":"ROLE_READER"}' })
  t.equal(res.statusCode, 403)
  res = await app.inject({ method: 'PUT', url: `${S}/masterpw.json`, headers: { 'content-type': 'application/json' }, payload: '{}' })
  t.equal(res.statusCode, 401)
  t.equal(res.headers['www-authenticate'], 'Basic realm="GeoServer Realm"')
})

t.test('deleting a workspace removes its layer rules; other rules stay', async (t) => {
  const app = await build(t)
  await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: JSON_, payload: '{"workspace":{"name":"topp"}}' })
  await app.inject({ method: 'POST', url: `${S}/acl/layers.json`, headers: JSON_, payload: '{"topp.*.r":"ROLE_A","topp.roads.w":"ROLE_B","sf.*.r":"ROLE_C"}' })
  const res = await app.inject({ method: 'DELETE', url: `${BASE}/rest/workspaces/topp?recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: `${S}/acl/layers.json`, headers: ADMIN })).body, '{"*.*.r":"*","*.*.w":"GROUP_ADMIN,ADMIN","sf.*.r":"ROLE_C"}')
})

t.test('acl/catalog/reload re-reads rules and mode changed outside the API', async (t) => {
  const app = await build(t)
  await appRun(app, "UPDATE security_settings SET value = 'MIXED' WHERE key = 'catalogMode'")
  t.equal(app.layerAccess.catalogMode(), 'HIDE', 'not seen before the reload')
  for (const method of ['POST', 'PUT'] as const) {
    const res = await app.inject({ method, url: `${S}/acl/catalog/reload`, headers: ADMIN })
    t.equal(res.statusCode, 200)
  }
  t.equal(app.layerAccess.catalogMode(), 'MIXED')
  t.equal((await app.inject({ method: 'GET', url: `${S}/acl/catalog.json`, headers: ADMIN })).body, '{"mode":"MIXED"}')
})
