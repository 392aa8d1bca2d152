// ZIP archives whose local file header names another file than the central directory (an archive
// smuggling trick: a streaming extractor and a directory-reading one see two different files) are
// refused in every area that takes ZIPs (400, nothing written).
import t from 'tap'
import fs from 'node:fs'
import { build, ADMIN, BASE } from '../helper.js'
import { makeTiff, makeZip } from '../fixtures/mosaics/make.js'
import { fixtureZip } from '../plugins/appschema/helpers.js'
import { manifest } from '../manifest.js'

const SLD = fs.readFileSync(new URL('../../../test/fixtures/styles/rain.sld', import.meta.url), 'utf8')

/** The archive with the first local header naming `to` instead of `from` (same length: offsets hold). */
function smuggle (zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('same length only')
  const out = Buffer.from(zip)
  for (let i = 0; i + 30 < out.length; i++) {
    if (out.readUInt32LE(i) !== 0x04034b50) continue
    const n = out.readUInt16LE(i + 26)
    if (out.toString('utf8', i + 30, i + 30 + n) === from) { out.write(to, i + 30, 'utf8'); return out }
  }
  throw new Error(`no local header for ${from}`)
}

t.test('a ZIP whose local header names another file is refused by styles, mosaics and app-schema stores', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const before = manifest(app.config.dataDir)
  const cases: Array<[string, string, Buffer, string]> = [
    ['POST', `${BASE}/rest/styles`, smuggle(await makeZip({ 'rain.sld': SLD, 'gear.png': Buffer.from('png') }), 'gear.png', 'evil.png'), 'gear.png'],
    ['PUT', `${BASE}/rest/workspaces/ws/coveragestores/m/file.imagemosaic`, smuggle(await makeZip({ 'g.tif': makeTiff({ width: 4, height: 4, bbox: [0, 0, 1, 1], value: () => 1 }) }), 'g.tif', 'x.tif'), 'g.tif'],
    ['PUT', `${BASE}/rest/workspaces/ws/datastores/gsml/file.appschema?configure=all`, smuggle(await fixtureZip('geosciml'), 'geosciml.appschema', 'evilevil.appschema'), 'geosciml.appschema']
  ]
  for (const [method, url, payload, name] of cases) {
    const res = await app.inject({ method: method as 'PUT', url, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload })
    t.equal(res.statusCode, 400, url)
    t.match(res.body, new RegExp(`^Unsafe ZIP entry "${name.replace('.', '\\.')}": its local header names another file \\("`))
  }
  t.same(manifest(app.config.dataDir), before, 'nothing written')
  // The same archives unchanged are fine.
  const ok = await app.inject({ method: 'POST', url: `${BASE}/rest/styles`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await makeZip({ 'rain.sld': SLD, 'gear.png': Buffer.from('png') }) })
  t.equal(ok.statusCode, 201)
})
