// text/json is JSON wherever application/json is (GeoServer registers both): every area's JSON
// body answers the same with either label, and 415 messages list text/json.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'

t.test('a text/json body is read as JSON in every area', async (t) => {
  const app = await build(t)
  let masterpw = JSON.parse((await app.inject({ method: 'GET', url: `${BASE}/rest/security/masterpw.json`, headers: ADMIN })).body).oldMasterPassword
  for (const [round, charset] of ['', '; charset=utf-8'].entries()) {
    const n = round + 1
    const calls: Array<[string, string, unknown, number]> = [
      ['POST', '/rest/workspaces', { workspace: { name: `tj${n}` } }, 201],
      ['PUT', `/rest/workspaces/tj${n}`, { workspace: { name: `tj${n}b` } }, 200],
      ['PUT', '/rest/security/acl/catalog.json', { mode: 'MIXED' }, 200],
      ['POST', '/rest/security/acl/layers.json', { [`tj${n}b.*.r`]: 'ROLE_READER' }, 201],
      ['PUT', '/rest/security/masterpw.json', { oldMasterPassword: masterpw, newMasterPassword: `a-new-master-password-${n}` }, 200],
      ['POST', '/rest/security/usergroup/users', { user: { userName: `reader${n}`, password: 'a-long-password', enabled: true } }, 201],
      ['POST', '/rest/styles', { style: { name: `entry${n}`, filename: `entry${n}.sld` } }, 201],
      ['PUT', '/gwc/rest/diskquota.json', { gwcQuotaConfiguration: { enabled: true } }, 200]
    ]
    masterpw = `a-new-master-password-${n}`
    for (const [method, url, body, status] of calls) {
      const res = await app.inject({ method: method as 'POST', url: BASE + url, headers: { ...ADMIN, 'content-type': `text/json${charset}` }, payload: JSON.stringify(body) })
      t.equal(res.statusCode, status, `${method} ${url} text/json${charset}: ${res.body}`)
    }
  }
  // Applied, not only accepted.
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/rest/security/acl/catalog.json`, headers: ADMIN })).body, '{"mode":"MIXED"}')
  t.match((await app.inject({ method: 'GET', url: `${BASE}/rest/security/acl/layers.json`, headers: ADMIN })).body, /"tj2b\.\*\.r":"ROLE_READER"/)
  t.equal((await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces/tj2b.json`, headers: ADMIN })).statusCode, 200)
  const refused = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, 'content-type': 'image/png' }, payload: 'x' })
  t.equal(refused.statusCode, 415)
  t.match(refused.body, /accepted: .*application\/json, text\/json/)
  const style = await app.inject({ method: 'POST', url: `${BASE}/rest/styles`, headers: { ...ADMIN, 'content-type': 'image/png' }, payload: 'x' })
  t.equal(style.statusCode, 415)
  t.match(style.body, /text\/json/)
})
