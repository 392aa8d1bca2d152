// PUT {base}/rest/resource/<path>?operation=copy|move with the source's path as the body (GeoServer's
// ResourceController): files copied (201 new, 200 replaced) and moved, directories moved; a directory
// copy is 405, a missing source 404 ("Unable to locate"); style files may be copied from but never
// moved or written; traversal, hidden places and symlinks out are refused and change nothing.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { manifest } from '../../manifest.js'
import { SLD, fixture } from '../styles/helpers.js'

const REST = `${BASE}/rest`
const R = `${REST}/resource`

async function setup (t: Test) {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir })
  const res = await app.inject({ method: 'POST', url: `${REST}/styles`, headers: { ...ADMIN, ...SLD }, payload: fixture('rain.sld') })
  t.equal(res.statusCode, 201, 'a style through the catalog')
  const put = async (p: string, body: string) => {
    const r = await app.inject({ method: 'PUT', url: `${R}/${p}`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: body })
    t.equal(r.statusCode, 201, `PUT ${p}`)
  }
  await put('templates/header.ftl', '<h1>${name}</h1>')
  await put('templates/dir/a.ftl', 'A')
  await put('templates/dir/sub/b.ftl', 'B')
  const op = (operation: string, target: string, source: string) =>
    app.inject({ method: 'PUT', url: `${R}/${target}?operation=${operation}`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: source })
  return { app, dataDir, op }
}

t.test('copy: a file to a new path (201), over an existing one (200), the source stays', async (t) => {
  const { app, dataDir, op } = await setup(t)
  let res = await op('cOpY', 'workspaces/topp/header.ftl', '/templates/header.ftl')
  t.equal(res.statusCode, 201, 'operation names are case-insensitive, as GeoServer\'s')
  t.equal(fs.readFileSync(path.join(dataDir, 'workspaces', 'topp', 'header.ftl'), 'utf8'), '<h1>${name}</h1>')
  t.ok(fs.existsSync(path.join(dataDir, 'templates', 'header.ftl')), 'the source stays')
  res = await op('copy', 'workspaces/topp/header.ftl', 'templates/dir/a.ftl')
  t.equal(res.statusCode, 200, 'replaced; the source path may omit the leading slash')
  res = await app.inject({ url: `${R}/workspaces/topp/header.ftl`, headers: ADMIN })
  t.equal(res.body, 'A', 'read back through the API')
  t.same(fs.readdirSync(path.join(dataDir, 'workspaces', 'topp')), ['header.ftl'], 'no temp file left')

  res = await op('copy', 'templates/rain-copy.sld', '/styles/rain.sld')
  t.equal(res.statusCode, 201, 'a style file may be copied from (a read)')
  t.same(fs.readFileSync(path.join(dataDir, 'templates', 'rain-copy.sld')), fs.readFileSync(path.join(dataDir, 'styles', 'rain.sld')))
})

t.test('move: a file and a directory; the source is gone', async (t) => {
  const { app, dataDir, op } = await setup(t)
  let res = await op('move', 'workspaces/topp/h.ftl', '/templates/header.ftl')
  t.equal(res.statusCode, 201)
  t.notOk(fs.existsSync(path.join(dataDir, 'templates', 'header.ftl')))
  t.equal(fs.readFileSync(path.join(dataDir, 'workspaces', 'topp', 'h.ftl'), 'utf8'), '<h1>${name}</h1>')
  res = await app.inject({ url: `${R}/templates/header.ftl`, headers: ADMIN })
  t.equal(res.statusCode, 404)

  res = await op('move', 'workspaces/topp/dir', '/templates/dir')
  t.equal(res.statusCode, 201, 'a directory moves with everything in it')
  t.notOk(fs.existsSync(path.join(dataDir, 'templates', 'dir')))
  t.equal(fs.readFileSync(path.join(dataDir, 'workspaces', 'topp', 'dir', 'sub', 'b.ftl'), 'utf8'), 'B')
  res = await app.inject({ url: `${R}/workspaces/topp/dir?format=json`, headers: ADMIN })
  t.same(res.json().ResourceDirectory.children.child.map((c: { name: string }) => c.name), ['a.ftl', 'sub'])
  res = await op('move', 'templates/h2.ftl', '/workspaces/topp/h.ftl')
  t.equal(res.statusCode, 201, 'and back to another area')
})

t.test('refusals: GeoServer\'s 404 and 405, the catalog\'s style files, conflicts; nothing changes', async (t) => {
  const { dataDir, op } = await setup(t)
  fs.writeFileSync(path.join(dataDir, 'templates', 'other.ftl'), 'O')
  fs.mkdirSync(path.join(dataDir, 'workspaces', 'topp', 'styles'), { recursive: true })
  const before = manifest(dataDir)
  const cases: Array<[string, string, string, number, RegExp]> = [
    ['copy', 'templates/d2', '/templates/dir', 405, /Cannot copy directory \/templates\/dir/],
    ['copy', 'templates/x.ftl', '/templates/nope.ftl', 404, /Unable to locate "\/templates\/nope.ftl"/],
    ['move', 'templates/x.ftl', '/templates/nope.ftl', 404, /Unable to locate/],
    ['copy', 'templates/x.ftl', '', 400, /the body names the source path/],
    ['copy', 'styles/new.sld', '/templates/header.ftl', 403, /\/rest\/styles/],
    ['move', 'styles/new.sld', '/templates/header.ftl', 403, /\/rest\/styles/],
    ['move', 'templates/rain.sld', '/styles/rain.sld', 403, /Cannot move \/styles\/rain.sld/],
    ['move', 'templates/s', '/styles', 403, /style/],
    ['move', 'templates/ws', '/workspaces', 403, /style folders/],
    ['copy', 'templates', '/templates/header.ftl', 405, /directory/],
    ['copy', 'templates/dir', '/templates/header.ftl', 405, /directory/],
    ['move', 'templates/dir/sub/in', '/templates/dir', 400, /into itself/],
    ['move', 'templates/other.ftl', '/templates/dir', 409, /something is there already/],
    ['move', 'templates/header.ftl', '/templates/header.ftl', 400, /onto itself/],
    ['copy', 'templates/header.ftl', 'templates/header.ftl', 400, /onto itself/],
    ['copy', 'templates/header.ftl/x', '/templates/other.ftl', 409, /is a file/],
    ['metadata', 'templates/x.ftl', '/templates/header.ftl', 400, /Unsupported operation "metadata"/]
  ]
  for (const [operation, target, source, status, message] of cases) {
    const res = await op(operation, target, source)
    t.equal(res.statusCode, status, `${operation} ${source} -> ${target}: ${res.body}`)
    t.match(res.body, message)
    t.match(res.headers['content-type'], /^text\/plain/)
  }
  t.same(manifest(dataDir), before, 'nothing changed')
})

/** The manifest with the symlinks the hostile case plants left out (test/manifest.ts reads through them). */
function withoutLinks (dataDir: string, links: string[]): string[] {
  const moved = links.map((l) => [l, fs.readlinkSync(l)])
  for (const [l] of moved) fs.unlinkSync(l)
  try { return manifest(dataDir) } finally { for (const [l, to] of moved) fs.symlinkSync(to, l) }
}

t.test('hostile sources and targets: traversal, hidden files, symlinks out; nothing read or written', async (t) => {
  const { dataDir, op } = await setup(t)
  const outside = tempDir(t, 'outside')
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET')
  fs.symlinkSync(outside, path.join(dataDir, 'templates', 'out'))
  fs.symlinkSync(path.join(dataDir, 'catalog.db'), path.join(dataDir, 'templates', 'db'))
  fs.writeFileSync(path.join(dataDir, 'templates', '.hidden.ftl'), 'H')
  const links = [path.join(dataDir, 'templates', 'out'), path.join(dataDir, 'templates', 'db')]
  const before = withoutLinks(dataDir, links)
  for (const source of ['/catalog.db', 'catalog.db', '/security/master.key', '/tmp', '/templates/out/secret.txt', '/templates/out',
    '/templates/db', '/templates/.hidden.ftl', '/etc/passwd', `${outside}/secret.txt`, '/templates/../catalog.db', '../catalog.db',
    '/templates/%2e%2e/catalog.db', '/templates\\..\\catalog.db', '/templates/x\u0000y', '/']) {
    for (const operation of ['copy', 'move']) {
      const res = await op(operation, 'templates/got.ftl', source)
      t.ok(res.statusCode === 404 || res.statusCode === 400, `${operation} ${JSON.stringify(source)}: ${res.statusCode} ${res.body}`)
      t.notMatch(res.body, /SECRET|SQLite/)
    }
  }
  for (const target of ['catalog.db', 'security/x', 'templates/out/x.ftl', 'templates/.x.ftl', 'tiles/x', 'templates/%2e%2e/x']) {
    for (const operation of ['copy', 'move']) {
      const res = await op(operation, target, '/templates/header.ftl')
      t.ok(res.statusCode >= 400 && res.statusCode < 500, `${operation} -> ${target}: ${res.statusCode}`)
    }
  }
  t.same(withoutLinks(dataDir, links), before, 'nothing changed in the data directory')
  t.same(fs.readdirSync(path.join(dataDir, 'templates')).sort(), ['.hidden.ftl', 'db', 'dir', 'header.ftl', 'out'], 'the links are still there')
  t.same(fs.readdirSync(outside), ['secret.txt'], 'nothing written outside')
})
