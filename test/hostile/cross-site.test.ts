// Cross-site requests from a browser (issue: hostile round two, 6): a page of another site can make
// the administrator's browser, which keeps the Basic credentials of the admin page, send "simple"
// requests (form-urlencoded or text/plain bodies). Every state-changing route refuses them with
// 403 when the browser marks them cross-site (Sec-Fetch-Site or a foreign Origin), changes nothing,
// and answers them as before when they come from the page's own origin, a trusted origin, or a
// client that sends neither header.
import t from 'tap'
import { build, ADMIN, BASE } from '../helper.js'
import { manifest } from '../manifest.js'

const EVIL = 'http://evil.example'

t.test('every POST, PUT and DELETE route refuses a cross-site simple request and changes nothing', async (t) => {
  const app = await build(t, { trustedOrigins: ['https://maps.example.org'] })
  const doc = JSON.parse((await app.inject({ method: 'GET', url: `${BASE}/rest/openapi.json`, headers: ADMIN })).body)
  const routes: Array<[string, string]> = []
  for (const [p, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    for (const m of Object.keys(ops)) if (['post', 'put', 'delete', 'patch'].includes(m)) routes.push([m.toUpperCase(), p.replace(/\{[^}]+\}/g, 'x')])
  }
  t.ok(routes.length > 30, `${routes.length} state-changing routes`)
  const before = manifest(app.config.dataDir)
  for (const [method, p] of routes) {
    for (const [headers, form] of [
      [{ origin: EVIL }, 'form'],
      [{ origin: EVIL, 'sec-fetch-site': 'cross-site' }, 'text'],
      [{ 'sec-fetch-site': 'cross-site' }, 'form'],
      [{ origin: 'null' }, 'text']
    ] as Array<[Record<string, string>, string]>) {
      const res = await app.inject({
        method: method as 'POST',
        url: p,
        headers: { ...ADMIN, ...headers, 'content-type': form === 'form' ? 'application/x-www-form-urlencoded' : 'text/plain' },
        payload: form === 'form' ? 'kill_all=all' : 'file:///tmp'
      })
      t.equal(res.statusCode, 403, `${method} ${p} ${JSON.stringify(headers)}`)
      t.match(res.body, /^Cross-site request refused: a (POST|PUT|DELETE|PATCH) from "(http:\/\/evil\.example|null|another site)" may not change anything here/)
    }
  }
  t.same(manifest(app.config.dataDir), before, 'nothing changed on disk')
  // The same simple requests from the page's own origin (or with no browser headers) reach the
  // route: whatever it answers, it is not the cross-site refusal. (A route may refuse for its own
  // reason, with its own 403: the resource API will not delete the data directory's root.)
  for (const [method, p] of routes) {
    for (const headers of [{ origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin' }, { origin: 'https://maps.example.org' }, {}]) {
      const res = await app.inject({ method: method as 'POST', url: p, headers: { ...ADMIN, ...headers, 'content-type': 'text/plain' }, payload: 'file:///tmp' })
      t.notMatch(res.body, /^Cross-site request refused/, `${method} ${p} ${JSON.stringify(headers)}: ${res.statusCode} ${res.body.slice(0, 80)}`)
    }
  }
})

t.test('same-origin, trusted-origin and header-less requests go through', async (t) => {
  const app = await build(t, { trustedOrigins: ['https://maps.example.org'] })
  const body = (name: string) => `<workspace><name>${name}</name></workspace>`
  for (const [name, headers] of [
    ['same', { origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin' }],
    ['trusted', { origin: 'https://maps.example.org', 'sec-fetch-site': 'cross-site' }],
    ['curl', {}]
  ] as Array<[string, Record<string, string>]>) {
    const res = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, ...headers, 'content-type': 'text/xml' }, payload: body(name) })
    t.equal(res.statusCode, 201, `${name}: ${res.body}`)
  }
  // The admin page's kill form, from its own origin.
  const kill = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed`, headers: { ...ADMIN, origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' }, payload: 'kill_all=all' })
  t.equal(kill.statusCode, 200)
  // Reads are never refused: a cross-site GET cannot change anything.
  const read = await app.inject({ method: 'GET', url: `${BASE}/rest/workspaces.json`, headers: { ...ADMIN, origin: EVIL, 'sec-fetch-site': 'cross-site' } })
  t.equal(read.statusCode, 200)
})
