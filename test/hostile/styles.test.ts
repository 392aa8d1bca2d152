// Bad input to the styles routes: each is a 4xx with a
// text/plain message, and the data directory and the catalog are exactly as before.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE } from '../helper.js'
import { canary } from '../manifest.js'
import { SLD, addWorkspace, fixture, manifest, png, renameEntry, zip } from '../plugins/styles/helpers.js'

const REST = `${BASE}/rest`
const ZIP = { 'content-type': 'application/zip' }

interface Case { name: string, method?: 'POST' | 'PUT', url?: string, headers?: Record<string, string>, payload: string | Buffer | (() => Promise<Buffer>), status: number, message: RegExp | string }

const entity = (system: string) => fixture('rain.sld').replace('<?xml version="1.0" encoding="UTF-8"?>',
  `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE StyledLayerDescriptor [<!ENTITY e SYSTEM "${system}">]>`).replace('Rainfall', '&e;')
const laughs = '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('') +
  ']>\n<StyledLayerDescriptor xmlns="http://www.opengis.net/sld"><NamedLayer><Name>&lol9;</Name></NamedLayer></StyledLayerDescriptor>'

const cases: Case[] = [
  { name: 'SLD with an external file entity', payload: entity('file:///etc/passwd'), headers: SLD, status: 400, message: 'XML documents with a DOCTYPE or entity declarations are not allowed' },
  { name: 'billion laughs SLD', payload: laughs, headers: SLD, status: 400, message: 'XML documents with a DOCTYPE or entity declarations are not allowed' },
  { name: 'malformed XML', payload: '<StyledLayerDescriptor xmlns="http://www.opengis.net/sld"><NamedLayer>', headers: SLD, status: 400, message: /^Malformed XML: / },
  { name: 'XML that is not an SLD', payload: '<html><body>hi</body></html>', headers: SLD, status: 400, message: 'Invalid style:the root element must be StyledLayerDescriptor, found html' },
  { name: 'SLD in the wrong namespace', payload: fixture('rain.sld').replace('xmlns="http://www.opengis.net/sld"', 'xmlns="urn:x"'), headers: SLD, status: 400, message: 'Invalid style:StyledLayerDescriptor must be in the namespace http://www.opengis.net/sld, found "urn:x"' },
  { name: 'SLD with a Rule without symbolizer', payload: fixture('rain.sld').replace(/<PolygonSymbolizer>[\s\S]*<\/PolygonSymbolizer>/, ''), headers: SLD, status: 400, message: 'Invalid style:Rule has no symbolizer' },
  { name: 'SLD with an unknown element in a Rule', payload: fixture('rain.sld').replace('<PolygonSymbolizer>', '<Script/><PolygonSymbolizer>'), headers: SLD, status: 400, message: 'Invalid style:unexpected element Script in Rule' },
  { name: 'RasterSymbolizer with a bad colour', payload: fixture('dem.sld').replace('#00FF00', 'green'), headers: SLD, status: 400, message: 'Invalid style:ColorMapEntry color must be a colour #RRGGBB, found "green"' },
  { name: 'SLD version 2.0', payload: fixture('rain.sld').replace('version="1.0.0"', 'version="2.0"'), headers: SLD, status: 400, message: 'Invalid style:unsupported SLD version "2.0": 1.0.0 or 1.1.0 expected' },
  { name: 'UserStyle name that leaves the folder', payload: fixture('rain.sld').replace('<Name>rain</Name>\n      <Title>', '<Name>../../security/users</Name>\n      <Title>'), headers: SLD, status: 400, message: 'Invalid style name: "../../security/users"' },
  { name: '?name=../../security/users', url: `${REST}/styles?name=../../security/users`, payload: fixture('rain.sld'), headers: SLD, status: 400, message: 'Invalid style name: "../../security/users"' },
  { name: '?name with %2f', url: `${REST}/styles?name=a%2fb`, payload: fixture('rain.sld'), headers: SLD, status: 400, message: 'Invalid style name: "a/b"' },
  { name: '?name=..', url: `${REST}/styles?name=..`, payload: fixture('rain.sld'), headers: SLD, status: 400, message: 'Invalid style name: ".."' },
  { name: '?name with a control character', url: `${REST}/styles?name=a%01b`, payload: fixture('rain.sld'), headers: SLD, status: 400, message: 'Invalid style name: "a\\u0001b"' },
  { name: 'catalog entry with a traversal filename', headers: { 'content-type': 'application/json' }, payload: '{"style":{"name":"x","filename":"../x.sld"}}', status: 400, message: 'Invalid style file name: "../x.sld"' },
  { name: 'catalog entry with a filename that is not .sld', headers: { 'content-type': 'application/json' }, payload: '{"style":{"name":"x","filename":"x.png"}}', status: 400, message: 'Invalid style entry: filename "x.png" must end with .sld' },
  { name: 'catalog entry in another style language', headers: { 'content-type': 'application/json' }, payload: '{"style":{"name":"x","format":"css"}}', status: 400, message: 'Invalid style entry: format "css" is not supported; only sld' },
  { name: 'catalog entry with the wrong root', headers: { 'content-type': 'application/xml' }, payload: '<layer><name>x</name></layer>', status: 400, message: 'Expected root element style, found layer' },
  { name: 'PUT to a name with encoded slashes', method: 'PUT', url: `${REST}/styles/..%2f..%2fetc%2fpasswd`, headers: SLD, payload: fixture('rain.sld'), status: 400, message: 'Invalid style name: "../../etc/passwd"' },
  { name: 'duplicate name', payload: fixture('rain.sld').replace('<Name>rain</Name>\n      <Title>', '<Name>existing</Name>\n      <Title>'), headers: SLD, status: 403, message: 'Style existing already exists.' },
  { name: 'duplicate name by catalog entry', headers: { 'content-type': 'application/json' }, payload: '{"style":{"name":"existing"}}', status: 403, message: 'Style existing already exists.' },
  { name: 'unknown workspace', url: `${REST}/workspaces/nowhere/styles`, headers: SLD, payload: fixture('rain.sld'), status: 404, message: 'Workspace nowhere not found' },
  { name: 'SLD as text/plain', headers: { 'content-type': 'text/plain' }, payload: fixture('rain.sld'), status: 415, message: /^Unsupported media type text\/plain for a style; accepted: application\/vnd.ogc.sld\+xml/ },
  { name: 'ZIP as text/plain', headers: { 'content-type': 'text/plain' }, payload: async () => zip([['a.sld', fixture('rain.sld')]]), status: 415, message: /^Unsupported media type text\/plain/ },
  { name: 'PUT an SLD as text/plain', method: 'PUT', url: `${REST}/styles/existing`, headers: { 'content-type': 'text/plain' }, payload: fixture('rain.sld'), status: 415, message: /^Unsupported media type text\/plain for a style/ },
  { name: 'SLD with a bogus charset', headers: { 'content-type': 'application/vnd.ogc.sld+xml; charset=bogus-8' }, payload: fixture('rain.sld'), status: 415, message: 'Unsupported charset: "bogus-8"' },
  { name: 'SLD text sent as application/zip', headers: ZIP, payload: fixture('rain.sld'), status: 400, message: /^Not a ZIP archive/ },
  { name: 'ZIP with no SLD', headers: ZIP, payload: async () => zip([['gear.png', await png()]]), status: 400, message: 'No sld file provided: the ZIP holds no .sld file at its top level' },
  { name: 'ZIP with two SLDs', headers: ZIP, payload: async () => zip([['a.sld', fixture('rain.sld')], ['b.sld', fixture('dem.sld')]]), status: 400, message: 'The ZIP holds more than one .sld file at its top level (a.sld, b.sld); send one style per package' },
  { name: 'ZIP with a ../ entry', headers: ZIP, payload: async () => renameEntry(await zip([['rain.sld', fixture('rain.sld')], ['xx/evil.png', await png()]]), 'xx/evil.png', '../evil.png'), status: 400, message: /^Unsafe ZIP entry "..\/evil.png"/ },
  { name: 'ZIP with an absolute entry', headers: ZIP, payload: async () => renameEntry(await zip([['rain.sld', fixture('rain.sld')], ['xtmp/gear.png', await png()]]), 'xtmp/gear.png', '/tmp/gear.png'), status: 400, message: /^Unsafe ZIP entry "\/tmp\/gear.png"/ },
  { name: 'ZIP whose image name is not a plain name', headers: ZIP, payload: async () => zip([['rain.sld', fixture('rain.sld')], ['-x.png', await png()]]), status: 400, message: 'Invalid style image name: "-x.png"' },
  { name: 'ZIP whose SLD declares an entity', headers: ZIP, payload: async () => zip([['rain.sld', entity('file:///etc/passwd')]]), status: 400, message: 'XML documents with a DOCTYPE or entity declarations are not allowed' },
  { name: 'ZIP with an invalid SLD', headers: ZIP, payload: async () => zip([['rain.sld', '<nope/>']]), status: 400, message: 'Invalid style:the root element must be StyledLayerDescriptor, found nope' },
  { name: 'zip bomb', headers: ZIP, payload: async () => zip([['rain.sld', fixture('rain.sld')], ['big.png', Buffer.alloc(3_000_000)]]), status: 413, message: 'ZIP archive expands past the limit of 1000000 bytes' },
  { name: 'PUT a ZIP with no SLD to an existing style', method: 'PUT', url: `${REST}/styles/existing`, headers: ZIP, payload: async () => zip([['gear.png', await png()]]), status: 400, message: /^No sld file provided/ },
  { name: 'PUT an invalid SLD', method: 'PUT', url: `${REST}/styles/existing`, headers: SLD, payload: '<StyledLayerDescriptor xmlns="http://www.opengis.net/sld" version="1.0.0"/>', status: 400, message: 'Invalid style:StyledLayerDescriptor has no NamedLayer or UserLayer' },
  { name: 'PUT an SLD to an unknown style', method: 'PUT', url: `${REST}/styles/nope`, headers: SLD, payload: fixture('rain.sld'), status: 404, message: 'No such style: nope' }
]

t.test('bad style input is refused with a message and changes nothing', async (t) => {
  const app = await build(t, { zipMaxBytes: 1_000_000 })
  await addWorkspace(app, 'cite')
  const seed = await app.inject({ method: 'POST', url: `${REST}/styles?name=existing`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  t.equal(seed.statusCode, 201)
  const catalog = async () => (await Promise.all([`${REST}/styles.json`, `${REST}/workspaces/cite/styles.json`, `${REST}/styles/existing.sld`]
    .map((url) => app.inject({ method: 'GET', url, headers: ADMIN })))).map((r) => r.body)
  const before = manifest(app.config.dataDir)
  const catalogBefore = await catalog()
  for (const c of cases) {
    const res = await app.inject({ method: c.method ?? 'POST', url: c.url ?? `${REST}/styles`, headers: { ...ADMIN, ...c.headers }, payload: typeof c.payload === 'function' ? await c.payload() : c.payload })
    t.equal(res.statusCode, c.status, `${c.name}: status`)
    t.match(res.headers['content-type'], /^text\/plain/, `${c.name}: text/plain`)
    if (typeof c.message === 'string') t.equal(res.body, c.message, `${c.name}: message`)
    else t.match(res.body, c.message, `${c.name}: message`)
    t.notOk(res.body.includes('root:') || res.body.includes(app.config.dataDir) || /at .*\.js/.test(res.body), `${c.name}: no file content, path or stack`)
    t.same(manifest(app.config.dataDir), before, `${c.name}: data directory unchanged`)
  }
  t.same(await catalog(), catalogBefore, 'catalog answers as before')
  t.same(fs.readdirSync(path.join(app.config.dataDir, 'tmp')).filter((f) => f !== 'uploads'), [], 'no staging left')
})

t.test('entities and schema locations pointing at a loopback canary are never fetched', async (t) => {
  const app = await build(t)
  const c = await canary()
  t.teardown(c.close)
  let res = await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: entity(`${c.url}/entity`) })
  t.equal(res.statusCode, 400)
  res = await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...ZIP }, payload: await zip([['rain.sld', entity(`${c.url}/zip`)]]) })
  t.equal(res.statusCode, 400)
  const located = fixture('rain.sld').replace('StyledLayerDescriptor.xsd', `${c.url}/schema.xsd`).replace('<NamedLayer>', `<NamedLayer xmlns:xi="http://www.w3.org/2001/XInclude"><xi:include href="${c.url}/include"/>`)
  res = await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: located })
  t.equal(res.statusCode, 400, 'xi:include is not an SLD element')
  t.equal(res.body, 'Invalid style:unexpected element include in NamedLayer')
  res = await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld').replace('StyledLayerDescriptor.xsd', `${c.url}/schema.xsd`) })
  t.equal(res.statusCode, 201, 'a schemaLocation is ignored')
  await app.styles.rasterStyleFor(undefined, 'rain')
  t.equal(c.hits(), 0)
})

t.test('an image name another style uses leaves that style\'s image alone', async (t) => {
  const app = await build(t)
  const mine = await png()
  let res = await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...ZIP }, payload: await zip([['gear.sld', fixture('gear.sld')], ['gear.png', mine]]) })
  t.equal(res.statusCode, 201)
  const before = manifest(app.config.dataDir)
  res = await app.inject({ method: 'POST', url: `${REST}/styles?name=other`, headers: { ...ADMIN, ...ZIP }, payload: await zip([['gear.sld', fixture('gear.sld')], ['gear.png', Buffer.from('not mine')]]) })
  t.equal(res.statusCode, 201)
  const after = manifest(app.config.dataDir)
  for (const [file, hash] of Object.entries(before)) if (!file.startsWith('catalog.db')) t.equal(after[file], hash, `${file} unchanged`)
})

t.test('an SLD file already on disk that no style owns is 403, as GeoServer', async (t) => {
  const app = await build(t)
  fs.mkdirSync(path.join(app.config.dataDir, 'styles'), { recursive: true })
  fs.writeFileSync(path.join(app.config.dataDir, 'styles', 'rain.sld'), 'hand-made')
  const res = await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  t.equal(res.statusCode, 403)
  t.equal(res.body, 'Style resource rain.sld already exists.')
  t.equal(fs.readFileSync(path.join(app.config.dataDir, 'styles', 'rain.sld'), 'utf8'), 'hand-made')
})
