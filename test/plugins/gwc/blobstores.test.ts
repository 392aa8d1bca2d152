// GeoWebCache's file blob stores through HTTP (GET/PUT/DELETE /gwc/rest/blobstores, XML and JSON) on
// either backend: created 201, replaced 200, shown as GWC's FileBlobStore; a layer's blobStoreId
// (GeoServerLayer) puts its tiles under that store's directory, where tile requests write them,
// truncation removes them and the disk quota (and its rebuild from the files) counts them; a new
// store drops the tiles of the old one; one default at a time; a store in use or the default is not
// removed; a disabled store's tiles are refused as GWC does; a baseDirectory outside
// MAPWARDEN_BLOBSTORE_ROOTS ('..', a symbolic link, elsewhere) is refused with nothing changed; kept
// over a restart and (PostgreSQL) seen by another instance.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, tempDir, ADMIN, BASE, TEST_BACKEND } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'

const B = `${BASE}/gwc/rest/blobstores`
const L = `${BASE}/gwc/rest/layers`
const XML = { ...ADMIN, 'content-type': 'text/xml' }
const JSON_BODY = { ...ADMIN, 'content-type': 'application/json' }

const storeXml = (id: string, dir: string, o: { enabled?: boolean, dflt?: boolean, block?: number } = {}) =>
  `<FileBlobStore default="${o.dflt ?? false}">\n  <id>${id}</id>\n  <enabled>${o.enabled ?? true}</enabled>\n  <baseDirectory>${dir}</baseDirectory>\n  <fileSystemBlockSize>${o.block ?? 4096}</fileSystemBlockSize>\n</FileBlobStore>`

function files (dir: string): string[] {
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort()
}

async function until (what: string, ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await ok()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`never happened: ${what}`)
}

async function layerUsage (app: any, layer: string): Promise<{ tiles: number, bytes: number }> {
  await app.diskQuota.flush()
  const u = (await app.inject({ url: `${BASE}/gwc/rest/diskquota/usage.json`, headers: ADMIN })).json().diskQuotaUsage
  const l = u.layers.layer?.find((x: any) => x.name === layer)
  return { tiles: l?.tiles ?? 0, bytes: l?.usedBytes ?? 0 }
}

/** A data directory, a blob store root beside it and the app. */
async function setup (t: any, opts: { keepOpen?: boolean } = {}) {
  const dataDir = tempDir(t)
  const root = tempDir(t)
  const app = await build(t, { dataDir, blobStoreRoots: [root], ...opts })
  return { app, dataDir, root }
}

t.test('PUT creates (201) and replaces (200) a file blob store; GET shows it as GWC writes it in XML and JSON; DELETE removes it', async (t) => {
  const { app, root } = await setup(t)
  const dir = path.join(root, 'store1')
  t.same((await app.inject({ url: `${B}.json`, headers: ADMIN })).json(), [], 'none configured: the implicit default is not listed')
  let res = await app.inject({ method: 'PUT', url: `${B}/blobStore1.xml`, headers: XML, payload: storeXml('blobStore1', dir, { enabled: false }) })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.body, '')
  t.ok(fs.statSync(dir).isDirectory(), 'its directory is made')
  res = await app.inject({ url: `${B}/blobStore1.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, storeXml('blobStore1', dir, { enabled: false }))
  res = await app.inject({ url: `${B}/blobStore1.json`, headers: ADMIN })
  t.match(res.headers['content-type'], /^application\/json/)
  t.equal(res.body, JSON.stringify({ FileBlobStore: { '@default': 'false', baseDirectory: dir, enabled: false, fileSystemBlockSize: 4096, id: 'blobStore1' } }))

  // Modified (GWC's "Modify BlobStore" example, as JSON this time): 200, empty body.
  res = await app.inject({ method: 'PUT', url: `${B}/blobStore1.json`, headers: JSON_BODY, payload: JSON.stringify({ FileBlobStore: { '@default': 'false', id: 'blobStore1', enabled: true, baseDirectory: dir, fileSystemBlockSize: 2048 } }) })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.body, '')
  t.equal((await app.inject({ url: `${B}/blobStore1.xml`, headers: ADMIN })).body, storeXml('blobStore1', dir, { block: 2048 }))

  t.equal((await app.inject({ method: 'PUT', url: `${B}/second`, headers: XML, payload: storeXml('second', path.join(root, 'second')) })).statusCode, 201)
  t.same((await app.inject({ url: `${B}.json`, headers: ADMIN })).json(), ['blobStore1', 'second'])
  res = await app.inject({ url: B, headers: ADMIN })
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, ['<blobStores>',
    '  <blobStore>', '    <name>blobStore1</name>', '    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/gwc/rest/blobstores/blobStore1.xml" type="text/xml"/>', '  </blobStore>',
    '  <blobStore>', '    <name>second</name>', '    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/gwc/rest/blobstores/second.xml" type="text/xml"/>', '  </blobStore>',
    '</blobStores>'].join('\n'))

  res = await app.inject({ method: 'DELETE', url: `${B}/second.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.body, '')
  res = await app.inject({ url: `${B}/second.xml`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Failed to get BlobStoreInfo. A BlobStoreInfo with name "second" does not exist.')
  res = await app.inject({ method: 'DELETE', url: `${B}/second`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Failed to remove BlobStoreInfo. A BlobStoreInfo with name "second" does not exist.')

  // GWC's table for the list: POST and PUT 405, DELETE 400; POST on one 405. Admin only.
  t.equal((await app.inject({ method: 'POST', url: B, headers: XML, payload: '<a/>' })).statusCode, 405)
  t.equal((await app.inject({ method: 'PUT', url: `${B}.xml`, headers: XML, payload: '<a/>' })).statusCode, 405)
  res = await app.inject({ method: 'DELETE', url: B, headers: ADMIN })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'DELETE is not supported on the blob store list; use blobstores/<id>')
  t.equal((await app.inject({ method: 'POST', url: `${B}/blobStore1`, headers: XML, payload: '<a/>' })).statusCode, 405)
  t.equal((await app.inject({ url: `${B}.json` })).statusCode, 401, 'admin only')
  t.equal((await app.inject({ method: 'PUT', url: `${B}/x`, headers: { 'content-type': 'text/xml' }, payload: storeXml('x', path.join(root, 'x')) })).statusCode, 401)
  t.same((await app.inject({ url: `${B}.json`, headers: ADMIN })).json(), ['blobStore1'])
})

t.test('bad bodies and directories outside the roots are refused, naming the problem, and nothing changes', async (t) => {
  const { app, dataDir, root } = await setup(t)
  const outside = tempDir(t)
  fs.symlinkSync(outside, path.join(root, 'escape'))
  t.equal((await app.inject({ method: 'PUT', url: `${B}/kept`, headers: XML, payload: storeXml('kept', path.join(root, 'kept')) })).statusCode, 201)
  const cases: Array<[string, string, number, RegExp]> = [
    ['a', storeXml('a', `${root}/x/../../etc`), 403, /^Invalid blob store: baseDirectory ".*" is not under the directories blob stores may use \(MAPWARDEN_BLOBSTORE_ROOTS\): it is outside them$/],
    ['a', storeXml('a', `${root}/x/../y`), 400, /^Invalid blob store: baseDirectory ".*\/x\/\.\.\/y": '\.\.' segments are not allowed$/],
    ['a', storeXml('a', path.join(root, 'escape')), 403, /: it leaves them through a symbolic link$/],
    ['a', storeXml('a', path.join(root, 'escape', 'deeper', 'still')), 403, /: it leaves them through a symbolic link$/],
    ['a', storeXml('a', outside), 403, /: it is outside them$/],
    ['a', storeXml('a', path.join(dataDir, 'tiles')), 403, /: it is outside them$/],
    ['a', storeXml('a', 'relative/dir'), 400, /^Invalid blob store: baseDirectory "relative\/dir": must be an absolute path$/],
    ['a', storeXml('a', path.join(root, 'kept', 'inner')), 400, /overlaps the directory of another blob store/],
    ['a', storeXml('a', root), 400, /overlaps the directory of another blob store/],
    ['a', storeXml('b', path.join(root, 'a')), 400, /^Invalid blob store: id "b": is not a, the store of the URL/],
    ['_DEFAULT_STORE_', storeXml('_DEFAULT_STORE_', path.join(root, 'd')), 400, /is a reserved identifier/],
    ['a', storeXml('a', path.join(root, 'a'), { block: 0 }), 400, /^Invalid blob store: fileSystemBlockSize "0": is not a block size/],
    ['a', storeXml('a', path.join(root, 'a')).replace('<enabled>true</enabled>', '<enabled>maybe</enabled>'), 400, /^Invalid blob store: enabled "maybe": is not true or false$/],
    ['a', storeXml('a', path.join(root, 'a')).replace('<fileSystemBlockSize>', '<bucket>b</bucket><fileSystemBlockSize>'), 400, /^Invalid blob store: bucket : not a field of a FileBlobStore/],
    ['a', '<S3BlobStore><id>a</id><bucket>b</bucket></S3BlobStore>', 400, /Expected root element FileBlobStore/],
    ['a', storeXml('a', path.join(root, 'a'), { dflt: true, enabled: false }), 400, /the default blob store can't be disabled: a/]
  ]
  for (const [id, body, status, message] of cases) {
    const res = await app.inject({ method: 'PUT', url: `${B}/${encodeURIComponent(id)}.xml`, headers: XML, payload: body })
    t.equal(res.statusCode, status, `${id}: ${res.body}`)
    t.match(res.body, message)
  }
  t.same((await app.inject({ url: `${B}.json`, headers: ADMIN })).json(), ['kept'], 'nothing stored')
  t.same(fs.readdirSync(outside), [], 'nothing made through the link')
  t.same(fs.readdirSync(root).sort(), ['escape', 'kept'], 'nothing made under the root')
  t.notOk(fs.existsSync(path.join(root, 'y')))

  // A replacement that would move the store out is refused too, and the store stays as it was.
  const before = (await app.inject({ url: `${B}/kept.xml`, headers: ADMIN })).body
  const res = await app.inject({ method: 'PUT', url: `${B}/kept.xml`, headers: XML, payload: storeXml('kept', path.join(root, 'escape', 'k')) })
  t.equal(res.statusCode, 403, res.body)
  t.equal((await app.inject({ url: `${B}/kept.xml`, headers: ADMIN })).body, before, 'unchanged')

  // Without MAPWARDEN_BLOBSTORE_ROOTS no store can be made.
  const bare = await build(t)
  const none = await bare.inject({ method: 'PUT', url: `${B}/a.xml`, headers: XML, payload: storeXml('a', path.join(root, 'z')) })
  t.equal(none.statusCode, 403)
  t.match(none.body, /MAPWARDEN_BLOBSTORE_ROOTS\): none are configured$/)
  t.notOk(fs.existsSync(path.join(root, 'z')))
})

t.test('a layer in a blob store: its tiles are written, read, truncated and counted there; a new store drops the old tiles; a store in use is not removed', async (t) => {
  const { app, dataDir, root } = await setup(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, [0, 0, 40, 40], pattern) })
  const dir = path.join(root, 'fast')
  t.equal((await app.inject({ method: 'PUT', url: `${B}/fast.xml`, headers: XML, payload: storeXml('fast', dir) })).statusCode, 201)

  // An unknown store is refused, the layer unchanged.
  let res = await app.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: XML, payload: '<GeoServerLayer><blobStoreId>nope</blobStoreId></GeoServerLayer>' })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'GeoServerLayer blobStoreId: "nope" is not a blob store (GET gwc/rest/blobstores lists them)')

  // A tile cached in the built-in store first.
  t.equal((await app.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/3/8/3.png` })).statusCode, 200)
  const builtIn = path.join(dataDir, 'tiles', 'topp', 'world')
  t.ok(files(builtIn).includes('EPSG_4326/png/default/3/8/4.png'))
  t.ok((await layerUsage(app, layer)).tiles >= 1)

  res = await app.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: XML, payload: '<GeoServerLayer><blobStoreId>fast</blobStoreId></GeoServerLayer>' })
  t.equal(res.statusCode, 200, res.body)
  const view = (await app.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).json().GeoServerLayer
  t.equal(view.blobStoreId, 'fast')
  t.match((await app.inject({ url: `${L}/${layer}.xml`, headers: ADMIN })).body, /<name>topp:world<\/name>\n {2}<blobStoreId>fast<\/blobStoreId>\n {2}<mimeFormats>/)
  t.same(files(builtIn), [], 'the tiles of the old store are dropped (GWC never moves them)')
  t.same(await layerUsage(app, layer), { tiles: 0, bytes: 0 }, 'and the quota says so')

  // Requested again: written under the store's directory (a metatile's tiles over the data), read back from there.
  const tile = await app.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/3/8/3.png` })
  t.equal(tile.statusCode, 200)
  t.equal(tile.headers['content-type'], 'image/png')
  const stored = files(path.join(dir, 'topp', 'world'))
  t.ok(stored.includes('EPSG_4326/png/default/3/8/4.png'), `written under the store: ${stored.join(', ')}`)
  t.same(files(builtIn), [], 'nothing in the built-in store')
  t.same(fs.readFileSync(path.join(dir, 'topp', 'world', 'EPSG_4326/png/default/3/8/4.png')), tile.rawPayload, 'the tile served is the file in the store')
  const again = await app.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/3/8/3.png` })
  t.same(again.rawPayload, tile.rawPayload)
  // Counted in disk blocks of the quota's diskBlockSize (4096 by default), as GWC's disk quota does.
  const bytes = stored.reduce((n, f) => n + Math.ceil(fs.statSync(path.join(dir, 'topp', 'world', f)).size / 4096) * 4096, 0)
  t.same(await layerUsage(app, layer), { tiles: stored.length, bytes }, 'the quota counts the tiles of the store')

  // The quota rebuilt from the files finds them in the store's directory.
  await app.diskQuota.rebuild()
  t.same(await layerUsage(app, layer), { tiles: stored.length, bytes }, 'a rebuild counts them where they are')

  // Seeded there too.
  res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSON_BODY, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:900913', zoomStart: 0, zoomStop: 1, format: 'image/png', type: 'seed', threadCount: 1 } }) })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  const seeded = files(path.join(dir, 'topp', 'world', 'EPSG_900913'))
  t.ok(seeded.length >= 2, 'seeded into the store')
  t.same(files(builtIn), [])

  // Exported from the store: every tile seeded there, each the file's bytes.
  const mbtiles = await app.inject({ url: `${BASE}/gwc/rest/export/${layer}.mbtiles?gridSetId=EPSG:900913&zoomStart=0&zoomStop=1`, headers: ADMIN })
  t.equal(mbtiles.statusCode, 200, mbtiles.body.slice(0, 200))
  t.equal(mbtiles.headers['x-tile-count'], String(seeded.length), `the ${seeded.length} tiles of the store exported`)
  const first = fs.readFileSync(path.join(dir, 'topp', 'world', 'EPSG_900913', seeded[0]))
  t.ok(mbtiles.rawPayload.includes(first), 'a tile of the store is in the export')

  // A store with a layer's tiles in it is not removed (409), nor is the layer's setting lost.
  res = await app.inject({ method: 'DELETE', url: `${B}/fast`, headers: ADMIN })
  t.equal(res.statusCode, 409)
  t.equal(res.body, 'Blob store fast cannot be removed: the tiles of topp:world are kept in it (change their blobStoreId first)')
  t.equal((await app.inject({ url: `${B}/fast.json`, headers: ADMIN })).statusCode, 200)

  // Truncated (GeoNode's masstruncate): gone from the store's directory, and from the quota.
  res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/masstruncate`, headers: XML, payload: `<truncateLayer><layerName>${layer}</layerName></truncateLayer>` })
  t.equal(res.statusCode, 200, res.body)
  t.same(files(path.join(dir, 'topp', 'world')), [], 'truncated in the store')
  t.same(await layerUsage(app, layer), { tiles: 0, bytes: 0 })

  // Back to the default store (an empty blobStoreId): the store may go now.
  t.equal((await app.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/3/8/3.png` })).statusCode, 200)
  res = await app.inject({ method: 'PUT', url: `${L}/${layer}.json`, headers: JSON_BODY, payload: JSON.stringify({ GeoServerLayer: { blobStoreId: '' } }) })
  t.equal(res.statusCode, 200, res.body)
  t.same(files(path.join(dir, 'topp', 'world')), [], 'its tiles in the old store dropped')
  t.notOk('blobStoreId' in (await app.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).json().GeoServerLayer)
  t.equal((await app.inject({ method: 'DELETE', url: `${B}/fast`, headers: ADMIN })).statusCode, 200)
})

t.test('one default store at a time: it holds the layers that name none, cannot be disabled or removed; a disabled store\'s tiles are refused as GWC does', async (t) => {
  const { app, dataDir, root } = await setup(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, [0, 0, 40, 40], pattern) })
  t.equal((await app.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/3/8/3.png` })).statusCode, 200)
  const builtIn = path.join(dataDir, 'tiles', 'topp', 'world')
  t.ok(files(builtIn).length > 0)

  // Marked default: the layer's tiles now live there (the built-in store's copies dropped).
  t.equal((await app.inject({ method: 'PUT', url: `${B}/one.xml`, headers: XML, payload: storeXml('one', path.join(root, 'one'), { dflt: true }) })).statusCode, 201)
  t.same(files(builtIn), [], 'the implicit default\'s tiles of the layer dropped')
  t.equal((await app.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/3/8/3.png` })).statusCode, 200)
  t.ok(files(path.join(root, 'one', 'topp', 'world')).includes('EPSG_4326/png/default/3/8/4.png'), 'written in the default store')

  // A second default takes the mark from the first.
  t.equal((await app.inject({ method: 'PUT', url: `${B}/two.json`, headers: JSON_BODY, payload: JSON.stringify({ FileBlobStore: { '@default': 'true', id: 'two', enabled: true, baseDirectory: path.join(root, 'two') } }) })).statusCode, 201)
  t.equal((await app.inject({ url: `${B}/one.json`, headers: ADMIN })).json().FileBlobStore['@default'], 'false')
  t.equal((await app.inject({ url: `${B}/two.json`, headers: ADMIN })).json().FileBlobStore['@default'], 'true')
  t.same(files(path.join(root, 'one')), [], 'moved again: the old default\'s tiles dropped')
  t.equal((await app.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/3/8/3.png` })).statusCode, 200)
  t.ok(files(path.join(root, 'two', 'topp', 'world')).length > 0)

  let res = await app.inject({ method: 'DELETE', url: `${B}/two`, headers: ADMIN })
  t.equal(res.statusCode, 409)
  t.equal(res.body, "The default blob store can't be removed: two")
  res = await app.inject({ method: 'PUT', url: `${B}/two.xml`, headers: XML, payload: storeXml('two', path.join(root, 'two'), { dflt: true, enabled: false }) })
  t.equal(res.statusCode, 400)
  t.equal(res.body, "Invalid blob store: enabled false: the default blob store can't be disabled: two")
  res = await app.inject({ method: 'PUT', url: `${B}/two.xml`, headers: XML, payload: storeXml('two', path.join(root, 'two')) })
  t.equal(res.statusCode, 400)
  t.equal(res.body, 'Invalid blob store: default false: two is the default blob store: mark another one default instead')

  // A layer in a disabled store: its tiles are refused with GWC's message (400), and not seeded.
  t.equal((await app.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: XML, payload: '<GeoServerLayer><blobStoreId>one</blobStoreId></GeoServerLayer>' })).statusCode, 200)
  t.equal((await app.inject({ method: 'PUT', url: `${B}/one.xml`, headers: XML, payload: storeXml('one', path.join(root, 'one'), { enabled: false }) })).statusCode, 200)
  res = await app.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/3/8/3.png` })
  t.equal(res.statusCode, 400)
  t.equal(res.body, "Attempted to use a blob store that's disabled: one")
  res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSON_BODY, payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 1, format: 'image/png', type: 'seed', threadCount: 1 } }) })
  t.equal(res.statusCode, 400)
  t.equal(res.body, "Attempted to use a blob store that's disabled: one")
  t.same(files(path.join(root, 'one')), [], 'nothing written')
  t.equal((await app.inject({ method: 'PUT', url: `${B}/one.xml`, headers: XML, payload: storeXml('one', path.join(root, 'one')) })).statusCode, 200)
  t.equal((await app.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/3/8/3.png` })).statusCode, 200, 'enabled again')
  t.ok(files(path.join(root, 'one', 'topp', 'world')).length > 0)
})

t.test('blob stores and a layer\'s store are kept over a restart and, on a shared database, seen by every instance', async (t) => {
  const { app, dataDir, root } = await setup(t, { keepOpen: true })
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, [0, 0, 40, 40], pattern) })
  t.equal((await app.inject({ method: 'PUT', url: `${B}/s1.xml`, headers: XML, payload: storeXml('s1', path.join(root, 's1')) })).statusCode, 201)
  t.equal((await app.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: XML, payload: '<GeoServerLayer><blobStoreId>s1</blobStoreId></GeoServerLayer>' })).statusCode, 200)
  const shown = (await app.inject({ url: `${B}/s1.xml`, headers: ADMIN })).body
  await app.close()
  const again = await build(t, { dataDir, blobStoreRoots: [root] })
  t.equal((await again.inject({ url: `${B}/s1.xml`, headers: ADMIN })).body, shown, 'kept over a restart')
  t.equal((await again.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).json().GeoServerLayer.blobStoreId, 's1')
  t.equal((await again.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/3/8/3.png` })).statusCode, 200)
  t.ok(files(path.join(root, 's1', 'topp', 'world')).includes('EPSG_4326/png/default/3/8/4.png'))
  if (TEST_BACKEND !== 'pg') return

  const two = await build(t, { dataDir, blobStoreRoots: [root] })
  t.equal((await two.inject({ url: `${B}/s1.xml`, headers: ADMIN })).body, shown, 'the second instance reads it at start')
  t.equal((await again.inject({ method: 'PUT', url: `${B}/s2.xml`, headers: XML, payload: storeXml('s2', path.join(root, 's2')) })).statusCode, 201)
  await until('the other instance sees the new store', async () => (await two.inject({ url: `${B}/s2.json`, headers: ADMIN })).statusCode === 200)
  t.equal((await again.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: XML, payload: '<GeoServerLayer><blobStoreId>s2</blobStoreId></GeoServerLayer>' })).statusCode, 200)
  await until('the other instance sees the layer\'s new store', async () => (await two.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).json().GeoServerLayer.blobStoreId === 's2')
  t.equal((await two.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/3/9/2.png` })).statusCode, 200)
  t.ok(files(path.join(root, 's2', 'topp', 'world')).includes('EPSG_4326/png/default/3/9/5.png'), 'the other instance writes the layer\'s tiles in its new store')
  t.equal((await two.inject({ method: 'DELETE', url: `${B}/s1`, headers: ADMIN })).statusCode, 200)
  await until('the first instance sees the removal', async () => (await again.inject({ url: `${B}/s1.json`, headers: ADMIN })).statusCode === 404)
})
