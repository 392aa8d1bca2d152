// Text that XML cannot carry (hostile round two, 4): a JSON body cannot put U+0000, U+0001, U+001B,
// U+FFFF or a lone surrogate into a text field (400 naming the field, nothing changed), so every
// resource's XML stays well-formed; messages that echo a name or path escape control characters.
import t from 'tap'
import { build, ADMIN, BASE } from '../helper.js'
import { createMosaic, pattern, rgbTiff } from '../fixtures/seed/mosaic.js'
import { parseXml } from '../../services/files/xml.js'

t.test('control characters in JSON text fields are refused, naming the field', async (t) => {
  const app = await build(t)
  await createMosaic(app, 'topp', 'world', { 'w.tif': rgbTiff(8, 8, [0, 0, 8, 8], pattern) })
  const url = `${BASE}/rest/workspaces/topp/coveragestores/world/coverages/world`
  for (const bad of ['\u0000', '\u0001', '\u001b', '\uffff', '\ud800']) {
    const res = await app.inject({ method: 'PUT', url: `${url}.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ coverage: { title: `a${bad}b` } }) })
    t.equal(res.statusCode, 400, JSON.stringify(bad))
    t.equal(res.body, 'Field coverage.title holds a character that XML cannot carry (a control character or a lone surrogate)')
  }
  const ok = await app.inject({ method: 'PUT', url: `${url}.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ coverage: { title: 'tab\tnew\nline 😀' } }) })
  t.equal(ok.statusCode, 200, 'tab, newline and characters outside the BMP are fine')
  const xml = await app.inject({ method: 'GET', url: `${url}.xml`, headers: ADMIN })
  t.equal(xml.statusCode, 200)
  t.resolves(async () => parseXml(xml.body), 'the XML representation is well-formed')
  t.match(xml.body, /<title>tab\tnew\nline 😀<\/title>/)
})

t.test('messages escape control characters', async (t) => {
  const app = await build(t)
  for (const path of ['/rest/workspaces/a%01b.json', '/rest/styles/a%00b.json', '/rest/layers/topp:a%1bb.json', '/nowhere/a%00b', '/gwc/rest/seed/tasks/%00.json']) {
    const res = await app.inject({ method: 'GET', url: BASE + path, headers: ADMIN })
    t.ok(res.statusCode >= 400 && res.statusCode < 500, `${path}: ${res.statusCode}`)
    t.notOk(/[\u0000-\u0008\u000b-\u001f]/.test(res.body), `no raw control character in ${JSON.stringify(res.body)}`)
  }
})
