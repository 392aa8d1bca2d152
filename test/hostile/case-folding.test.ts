// Names that differ only in case, in every script (hostile round two, 8): Unicode full case folding
// after NFC, in SQL and JavaScript alike, for workspaces, styles, stores and archive entries.
import t from 'tap'
import fs from 'node:fs'
import { build, ADMIN, BASE } from '../helper.js'
import { makeTiff, makeZip } from '../fixtures/mosaics/make.js'
import { foldName } from '../../services/files/names.js'

const SLD = fs.readFileSync(new URL('../../../test/fixtures/styles/rain.sld', import.meta.url), 'utf8')
const ws = (app: any, name: string) => app.inject({ method: 'POST', url: `${BASE}/rest/workspaces`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ workspace: { name } }) })
const style = (app: any, name: string) => app.inject({ method: 'POST', url: `${BASE}/rest/styles?name=${encodeURIComponent(name)}`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: SLD })

t.test('foldName: full case folding after NFC', async (t) => {
  t.equal(foldName('ÄÖ'), foldName('äö'))
  t.equal(foldName('straße-ü'), foldName('STRAßE-Ü'))
  t.equal(foldName('STRASSE'), foldName('straße'))
  t.equal(foldName('ẞ'), foldName('ss'))
  t.equal(foldName('e\u0301'), foldName('É'), 'decomposed and composed')
  t.equal(foldName('ΣΊΣΥΦΟΣ'), foldName('σίσυφος'))
  t.not(foldName('a'), foldName('b'))
})

t.test('workspaces, styles, stores and ZIP entries that differ only in case collide', async (t) => {
  const app = await build(t)
  t.equal((await ws(app, 'ÄÖ')).statusCode, 201)
  for (const other of ['äö', 'Äö']) {
    const res = await ws(app, other)
    t.equal(res.statusCode, 409, other)
  }
  t.equal((await ws(app, 'A\u0308O\u0308')).statusCode, 400, 'decomposed letters (combining marks) are not name characters')
  t.equal((await style(app, 'straße-ü')).statusCode, 201)
  const clash = await style(app, 'STRAßE-Ü')
  t.equal(clash.statusCode, 403, 'GeoServer answers 403 for an existing style')
  t.match(clash.body, /already exists/)
  t.equal((await style(app, 'STRASSE-Ü')).statusCode, 403, 'ß folds to ss')

  // Rename into a folded clash.
  t.equal((await ws(app, 'Øre')).statusCode, 201)
  const rename = await app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/${encodeURIComponent('Øre')}`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ workspace: { name: 'äÖ' } }) })
  t.equal(rename.statusCode, 409)

  // Coverage stores in one workspace.
  const zip = await makeZip({ 'g.tif': makeTiff({ width: 4, height: 4, bbox: [0, 0, 1, 1], value: () => 1 }) })
  const put = (store: string) => app.inject({ method: 'PUT', url: `${BASE}/rest/workspaces/${encodeURIComponent('ÄÖ')}/coveragestores/${encodeURIComponent(store)}/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  t.equal((await put('Ölfeld')).statusCode, 200)
  const store = await put('ölfeld')
  t.equal(store.statusCode, 409)
  t.equal(store.body, "Store 'ölfeld' clashes with the existing store 'Ölfeld': names that differ only in case would share one folder")

  // A style package whose entries collide under folding.
  const pkg = await makeZip({ 'pkg.sld': SLD, 'Ärger.png': Buffer.from('x'), 'ärger.png': Buffer.from('y') })
  const res = await app.inject({ method: 'POST', url: `${BASE}/rest/styles`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: pkg })
  t.equal(res.statusCode, 400)
  t.match(res.body, /duplicate or case-colliding name/)
})
