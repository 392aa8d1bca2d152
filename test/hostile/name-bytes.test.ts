// Names measured in bytes (hostile round two, 3): a name that becomes a path segment is limited in
// UTF-8 bytes, with room for the suffixes and temp-file decorations added later, and the refusal
// says the limit. Everything accepted can then hold stores, styles and layers without a 500.
import t from 'tap'
import fs from 'node:fs'
import { ADMIN, BASE } from '../helper.js'
import { hostileApp } from './refuse.js'
import { makeTiff, makeZip } from '../fixtures/mosaics/make.js'
import { manifest } from '../manifest.js'

const FIXTURES = new URL('../../../test/fixtures/styles/', import.meta.url)
const SLD = fs.readFileSync(new URL('rain.sld', FIXTURES), 'utf8')

const createWorkspace = (app: any, name: string) => app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ workspace: { name } }) })

t.test('names over 128 UTF-8 bytes are refused with the limit; names up to it work everywhere', async (t) => {
  // The standalone server's options (path segments up to 1000 characters: a 128-byte name is 384 once percent-encoded).
  const app = (await hostileApp(t)).app
  const before = manifest(app.config.dataDir)
  for (const [name, bytes] of [['ü'.repeat(128), 256], ['a'.repeat(129), 129], ['ü'.repeat(64) + 'a', 129]] as Array<[string, number]>) {
    const res = await createWorkspace(app, name)
    t.equal(res.statusCode, 400)
    t.match(res.body, new RegExp(`^Invalid workspace name: ".+" \\(${bytes} bytes in UTF-8, more than the 128 a name may have: names become folder and file names\\)$`))
  }
  t.same(manifest(app.config.dataDir), before, 'nothing written')

  for (const ws of ['ü'.repeat(64), 'a'.repeat(128)]) {
    t.equal((await createWorkspace(app, ws)).statusCode, 201, `${Buffer.byteLength(ws)}-byte workspace`)
    const style = 'é'.repeat(64)
    const s = await app.inject({ method: 'POST', url: `${BASE}/rest/workspaces/${encodeURIComponent(ws)}/styles?name=${encodeURIComponent(style)}`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: SLD })
    t.equal(s.statusCode, 201, `a 128-byte style in it: ${s.body}`)
    const store = 'ß'.repeat(64)
    const m = await app.inject({
      method: 'PUT', url: `${BASE}/rest/workspaces/${encodeURIComponent(ws)}/coveragestores/${encodeURIComponent(store)}/file.imagemosaic`,
      headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await makeZip({ 'g.tif': makeTiff({ width: 4, height: 4, bbox: [0, 0, 1, 1], value: () => 1 }) })
    })
    t.equal(m.statusCode, 200, `a 128-byte mosaic store in it: ${m.body.slice(0, 100)}`)
    const tile = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/${encodeURIComponent(`${ws}:${store}`)}/EPSG:4326/0/1/0.png` })
    t.equal(tile.statusCode, 200, 'its tiles are cached under those names')
  }
})
