// {base}/rest/security/usergroup and /roles: users and roles as GeoServer's REST API has them,
// with changes taking effect at once despite the verified-credentials cache.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE, basic } from '../../helper.js'

const S = `${BASE}/rest/security`
const JSON_ = { ...ADMIN, 'content-type': 'application/json' }
const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, '../../../../test/fixtures/security', name), 'utf8')

t.test('users: list in XML and JSON, create from XML and JSON, passwords never returned', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'GET', url: `${S}/usergroup/users.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><users><user><userName>admin</userName><enabled>true</enabled></user></users>')

  res = await app.inject({ method: 'POST', url: `${S}/usergroup/users`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: fixture('user-post.xml') })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'POST', url: `${S}/usergroup/users.json`, headers: JSON_, payload: '{"user":{"userName":"carol","password":"carol-password","enabled":false}}' })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'GET', url: `${S}/usergroup/users.json`, headers: ADMIN })
  t.equal(res.body, '{"users":[{"userName":"admin","enabled":true},{"userName":"alice","enabled":true},{"userName":"carol","enabled":false}]}')
  t.notMatch(res.body, /password/i)

  // alice is authenticated (403, not 401) but not an administrator; carol is disabled (401).
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: { authorization: basic('alice', 'alice-secret-pw') } })
  t.equal(res.statusCode, 403)
  res = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: { authorization: basic('carol', 'carol-password') } })
  t.equal(res.statusCode, 401)
})

t.test('users: bad requests are refused with a message and store nothing', async (t) => {
  const app = await build(t)
  const post = (payload: string) => app.inject({ method: 'POST', url: `${S}/usergroup/users.json`, headers: JSON_, payload })
  const cases: Array<[string, number, string]> = [
    ['{"user":{"userName":"admin","password":"another-password"}}', 409, 'User already exists: admin'],
    ['{"user":{"userName":"dave","password":"short"}}', 422, 'Invalid password for user dave: must have at least 8 characters'],
    ['{"user":{"userName":"dave","password":"geoserver"}}', 422, 'Invalid password for user dave: a well-known default password is not allowed'],
    ['{"user":{"userName":"dave"}}', 400, 'Missing password for user dave'],
    ['{"user":{"password":"long-enough-pw"}}', 400, 'Invalid user name: undefined'],
    ['{"user":{"userName":"../etc","password":"long-enough-pw"}}', 400, 'Invalid user name: "../etc"'],
    ['{"user":{"userName":"dave","password":"long-enough-pw","enabled":"maybe"}}', 400, 'Invalid value of enabled: "maybe"; expected true or false']
  ]
  for (const [payload, status, message] of cases) {
    const res = await post(payload)
    t.equal(res.statusCode, status, payload)
    t.equal(res.body, message)
  }
  t.equal((await app.inject({ method: 'GET', url: `${S}/usergroup/users.json`, headers: ADMIN })).body, '{"users":[{"userName":"admin","enabled":true}]}')
})

t.test('roles: list, create, assign and revoke take effect at once despite the credential cache', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'GET', url: `${S}/roles.xml`, headers: ADMIN })
  t.equal(res.body, '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><roles><role>ADMIN</role><role>GROUP_ADMIN</role></roles>')
  res = await app.inject({ method: 'GET', url: `${S}/roles.json`, headers: ADMIN })
  t.equal(res.body, '{"roles":["ADMIN","GROUP_ADMIN"]}')

  await app.inject({ method: 'POST', url: `${S}/usergroup/users`, headers: JSON_, payload: '{"user":{"userName":"alice","password":"alice-secret-pw"}}' })
  const alice = { authorization: basic('alice', 'alice-secret-pw') }
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: alice })).statusCode, 403, 'alice cached as a non-admin')

  res = await app.inject({ method: 'POST', url: `${S}/roles/role/ROLE_EDITOR`, headers: ADMIN })
  t.equal(res.statusCode, 201)
  res = await app.inject({ method: 'POST', url: `${S}/roles/role/ROLE_EDITOR`, headers: ADMIN })
  t.equal(res.statusCode, 409)
  t.equal(res.body, 'Role already exists: ROLE_EDITOR')
  res = await app.inject({ method: 'POST', url: `${S}/roles/role/ROLE_ANONYMOUS`, headers: ADMIN })
  t.equal(res.statusCode, 422)
  t.equal(res.body, 'Role ROLE_ANONYMOUS is built in: it cannot be created, removed or assigned')

  res = await app.inject({ method: 'POST', url: `${S}/roles/role/ADMIN/user/alice`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: alice })).statusCode, 200, 'promotion is seen at once')
  res = await app.inject({ method: 'GET', url: `${S}/roles/user/alice.json`, headers: ADMIN })
  t.equal(res.body, '{"roles":["ADMIN"]}')
  res = await app.inject({ method: 'GET', url: `${S}/roles/user/alice.xml`, headers: ADMIN })
  t.equal(res.body, '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><roles><role>ADMIN</role></roles>')

  res = await app.inject({ method: 'DELETE', url: `${S}/roles/role/ADMIN/user/alice`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: alice })).statusCode, 403, 'demotion is seen at once')

  res = await app.inject({ method: 'POST', url: `${S}/roles/role/NOPE/user/alice`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Provided role does not exist: NOPE')
  res = await app.inject({ method: 'POST', url: `${S}/roles/role/ROLE_EDITOR/user/nobody`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Provided username does not exist: nobody')
  res = await app.inject({ method: 'GET', url: `${S}/roles/user/nobody.json`, headers: ADMIN })
  t.equal(res.statusCode, 404)

  res = await app.inject({ method: 'DELETE', url: `${S}/roles/role/ROLE_EDITOR`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'DELETE', url: `${S}/roles/role/ROLE_EDITOR`, headers: ADMIN })
  t.equal(res.statusCode, 404)
})

t.test('a changed password or a deleted user takes effect at once despite the credential cache', async (t) => {
  const app = await build(t)
  await app.inject({ method: 'POST', url: `${S}/usergroup/users`, headers: JSON_, payload: '{"user":{"userName":"alice","password":"alice-secret-pw"}}' })
  const old = { authorization: basic('alice', 'alice-secret-pw') }
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: old })).statusCode, 403)

  let res = await app.inject({ method: 'POST', url: `${S}/usergroup/user/alice.xml`, headers: { ...ADMIN, 'content-type': 'application/xml' }, payload: '<user><password>alice-new-password</password></user>' })
  t.equal(res.statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: old })).statusCode, 401, 'old password refused at once')
  const fresh = { authorization: basic('alice', 'alice-new-password') }
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: fresh })).statusCode, 403)

  res = await app.inject({ method: 'POST', url: `${S}/usergroup/user/alice`, headers: JSON_, payload: '{"user":{"enabled":false}}' })
  t.equal(res.statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: fresh })).statusCode, 401, 'disabled at once')

  res = await app.inject({ method: 'DELETE', url: `${S}/usergroup/user/alice`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  res = await app.inject({ method: 'DELETE', url: `${S}/usergroup/user/alice`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Provided username does not exist: alice')
  res = await app.inject({ method: 'POST', url: `${S}/usergroup/user/ghost`, headers: JSON_, payload: '{"user":{"enabled":true}}' })
  t.equal(res.statusCode, 404)
})

t.test('the last enabled administrator cannot be deleted, disabled or demoted', async (t) => {
  const app = await build(t)
  const cases: Array<[string, string, string | undefined, string]> = [
    ['DELETE', `${S}/usergroup/user/admin`, undefined, 'Cannot remove user admin: no enabled administrator would be left'],
    ['POST', `${S}/usergroup/user/admin`, '{"user":{"enabled":false}}', 'Cannot disable user admin: no enabled administrator would be left'],
    ['DELETE', `${S}/roles/role/ADMIN/user/admin`, undefined, 'Cannot remove role ADMIN from user admin: no enabled administrator would be left'],
    ['DELETE', `${S}/roles/role/ADMIN`, undefined, 'Cannot remove role ADMIN: no enabled administrator would be left']
  ]
  for (const [method, url, payload, message] of cases) {
    const res = await app.inject({ method: method as 'POST', url, headers: payload ? JSON_ : ADMIN, payload })
    t.equal(res.statusCode, 409, `${method} ${url}`)
    t.equal(res.body, message)
  }
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: ADMIN })).statusCode, 200, 'admin still works')
  t.equal((await app.inject({ method: 'GET', url: `${S}/roles/user/admin.json`, headers: ADMIN })).body, '{"roles":["ADMIN"]}')

  // With a second administrator the first one may go.
  await app.inject({ method: 'POST', url: `${S}/usergroup/users`, headers: JSON_, payload: '{"user":{"userName":"root2","password":"root2-password"}}' })
  await app.inject({ method: 'POST', url: `${S}/roles/role/ADMIN/user/root2`, headers: ADMIN })
  const res = await app.inject({ method: 'DELETE', url: `${S}/usergroup/user/admin`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: `${S}/roles.json`, headers: { authorization: basic('root2', 'root2-password') } })).statusCode, 200)
})
