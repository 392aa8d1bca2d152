import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { tempDir } from '../../helper.js'
import { createBlobStore, type TileEvent } from '../../../services/tilecache/blob-store.js'
import { readTileFile, writeTileFile } from '../../../services/render/tile-files.js'
import { normaliseParameters, parameterId } from '../../../services/tilecache/parameters.js'
import { TILE_FORMATS } from '../../../services/tilecache/formats.js'
import type { LayerInfo } from '../../../services/catalog/layers.js'

const layer: LayerInfo = {
  workspace: 'topp', name: 'states', qualifiedName: 'topp:states', type: 'RASTER', store: 'states',
  defaultStyle: 'raster', styles: ['pophatch'], enabled: true, bbox: [-180, -90, 180, 90], config: { dimensions: { time: true, elevation: false } }
}

t.test('parameter sets: defaults share the default set, distinct values get stable distinct hashes', async (t) => {
  t.equal(parameterId(normaliseParameters(layer, {})), 'default')
  t.equal(parameterId(normaliseParameters(layer, { STYLES: 'raster' })), 'default')
  t.equal(parameterId(normaliseParameters(layer, { styles: '' })), 'default')
  const a = parameterId(normaliseParameters(layer, { STYLES: 'pophatch', TIME: '2020-01-01' }))
  const b = parameterId(normaliseParameters(layer, { time: '2020-01-01', styles: 'pophatch' }))
  t.equal(a, b, 'order and case of names do not matter')
  t.match(a, /^[0-9a-f]{40}$/)
  t.not(parameterId(normaliseParameters(layer, { CQL_FILTER: 'a = 1' })), parameterId(normaliseParameters(layer, { CQL_FILTER: 'a = 2' })))
  t.throws(() => normaliseParameters(layer, { ELEVATION: '10' }), { message: /not a parameter filter of layer topp:states; allowed: STYLES, CQL_FILTER, TIME/ })
})

t.test('blob store: writes land whole under layer/gridset/format/parameter set, listeners see writes, reads and deletes', async (t) => {
  const dir = tempDir(t)
  const store = createBlobStore({ root: path.join(dir, 'tiles'), tmpDir: path.join(dir, 'tmp', 'tiles') })
  const events: Array<[string, TileEvent]> = []
  store.onTileWritten((e) => events.push(['write', e]))
  store.onTileRead((e) => events.push(['read', e]))
  store.onTileDeleted((e) => events.push(['delete', e]))
  const set = { layer: 'topp:states', gridSet: 'EPSG:4326', format: 'image/png' as const, parameterId: 'default' }
  const other = { ...set, parameterId: parameterId({ STYLES: 'pophatch' }) }
  await store.put({ ...set, z: 3, x: 5, y: 2 }, Buffer.from('tile-a'))
  await store.put({ ...other, z: 3, x: 5, y: 2 }, Buffer.from('tile-b'))
  t.ok(fs.existsSync(path.join(dir, 'tiles/topp/states/EPSG_4326/png/default/3/5/2.png')))
  t.same(fs.readdirSync(path.join(dir, 'tmp', 'tiles')), [], 'no temp file left')
  const got = await store.get({ ...set, z: 3, x: 5, y: 2 })
  t.equal(got!.data.toString(), 'tile-a')
  t.equal((await store.get({ ...other, z: 3, x: 5, y: 2 }))!.data.toString(), 'tile-b', 'parameter sets are separate')
  t.equal(await store.get({ ...set, z: 3, x: 5, y: 3 }), undefined)
  t.match(got!.etag, /^"[0-9a-f]+-[0-9a-f]+"$/)
  t.same(await store.tileSets('topp:states'), [set, other].sort((a, b) => a.parameterId.localeCompare(b.parameterId)))
  t.equal(await store.deleteTiles([{ ...other, z: 3, x: 5, y: 2 }, { ...other, z: 3, x: 5, y: 9 }]), 1)
  t.same(events.map(([k, e]) => [k, e.parameterId === 'default' ? 'd' : 'o', e.z, e.x, e.y, e.bytes]), [
    ['write', 'd', 3, 5, 2, 6], ['write', 'o', 3, 5, 2, 6], ['read', 'd', 3, 5, 2, 6], ['read', 'o', 3, 5, 2, 6], ['delete', 'o', 3, 5, 2, 6]
  ])
})

t.test('blob store truncate deletes only the range, across formats and parameter sets when not given', async (t) => {
  const dir = tempDir(t)
  const store = createBlobStore({ root: path.join(dir, 'tiles'), tmpDir: path.join(dir, 'tmp') })
  const png = { layer: 'topp:states', gridSet: 'EPSG:4326', format: 'image/png' as const, parameterId: 'default' }
  const jpeg = { ...png, format: 'image/jpeg' as const, parameterId: parameterId({ STYLES: 'x' }) }
  for (const s of [png, jpeg]) for (let x = 0; x < 4; x++) await store.put({ ...s, z: 2, x, y: 1 }, Buffer.from('t'))
  await store.put({ ...png, gridSet: 'EPSG:900913', z: 2, x: 1, y: 1 }, Buffer.from('m'))
  const n = await store.truncate({ layer: 'topp:states', gridSet: 'EPSG:4326', zoomStart: 0, zoomStop: 5, rectAt: (z) => z === 2 ? [1, 0, 2, 3] : undefined })
  t.equal(n, 4)
  for (const s of [png, jpeg]) {
    t.same(await Promise.all([0, 1, 2, 3].map((x) => store.exists({ ...s, z: 2, x, y: 1 }))), [true, false, false, true])
  }
  t.ok(await store.exists({ ...png, gridSet: 'EPSG:900913', z: 2, x: 1, y: 1 }), 'other grid set untouched')
  t.equal(await store.truncate({ layer: 'topp:empty', gridSet: 'EPSG:4326', zoomStart: 0, zoomStop: 5, rectAt: () => [0, 0, 9, 9] }), 0, 'empty cache: 0 tiles, no error')
})

t.test('blob store truncate deletes the tiles of every format of the formats table (jpeg-png has a dash in its extension)', async (t) => {
  const dir = tempDir(t)
  const store = createBlobStore({ root: path.join(dir, 'tiles'), tmpDir: path.join(dir, 'tmp') })
  const key = (format: (typeof TILE_FORMATS)[number]) => ({ layer: 'topp:states', gridSet: 'EPSG:4326', format, parameterId: 'default', z: 1, x: 1, y: 0 })
  for (const format of TILE_FORMATS) await store.put(key(format), Buffer.from(format))
  t.equal((await store.tileSets('topp:states')).length, TILE_FORMATS.length, 'a tile set per format')
  const n = await store.truncate({ layer: 'topp:states', gridSet: 'EPSG:4326', zoomStart: 0, zoomStop: 5, rectAt: () => [0, 0, 3, 1] })
  t.equal(n, TILE_FORMATS.length, 'one tile of each format deleted')
  for (const format of TILE_FORMATS) t.notOk(await store.exists(key(format)), `${format}: gone`)
})

t.test('blob store: a metatile target lists the tile files in image order, and recording it reports each tile once', async (t) => {
  const dir = tempDir(t)
  const store = createBlobStore({ root: path.join(dir, 'tiles'), tmpDir: path.join(dir, 'tmp', 'tiles') })
  const events: TileEvent[] = []
  store.onTileWritten((e) => events.push(e))
  const set = { layer: 'topp:states', gridSet: 'EPSG:900913', format: 'image/png' as const, parameterId: 'default' }
  await store.put({ ...set, z: 4, x: 3, y: 7 }, Buffer.alloc(40))
  events.length = 0
  const target = store.metatileTarget(set, 4, [2, 6, 3, 7]) // two columns, two rows
  t.equal(target.tmpDir, path.join(dir, 'tmp', 'tiles'))
  t.same(target.paths.map((p) => path.relative(path.join(dir, 'tiles'), p)), [
    'topp/states/EPSG_900913/png/default/4/2/7.png', 'topp/states/EPSG_900913/png/default/4/3/7.png',
    'topp/states/EPSG_900913/png/default/4/2/6.png', 'topp/states/EPSG_900913/png/default/4/3/6.png'
  ], 'top row (highest y) first, left to right: the order the renderer cuts the image in')
  // What a worker reports after writing the first three before its disk filled up:
  store.recordMetatile(set, 4, [2, 6, 3, 7], [{ bytes: 10, replacedBytes: -1, mtimeMs: 1 }, { bytes: 11, replacedBytes: 40, mtimeMs: 1 }, { bytes: 12, replacedBytes: -1, mtimeMs: 1 }])
  t.same(events.map((e) => [e.x, e.y, e.bytes, e.replacedBytes]), [[2, 7, 10, undefined], [3, 7, 11, 40], [2, 6, 12, undefined]])
  t.throws(() => store.metatileTarget({ ...set, parameterId: '../x' }, 4, [0, 0, 0, 0]), /bad parameter set id/)
})

t.test('tile files: written whole, replaced sizes reported, folders removed meanwhile made again, failures leave no temp file', async (t) => {
  const dir = tempDir(t)
  const tmpDir = path.join(dir, 'tmp')
  const target = path.join(dir, 'tiles', '3', '1', '2.png')
  // The time reported is the tile file's own (the ETag of the response that rendered it).
  t.same(writeTileFile(tmpDir, target, Buffer.from('first')), { bytes: 5, replacedBytes: -1, mtimeMs: fs.statSync(target).mtimeMs })
  t.same(writeTileFile(tmpDir, target, Buffer.from('second!')), { bytes: 7, replacedBytes: 5, mtimeMs: fs.statSync(target).mtimeMs })
  t.equal(fs.readFileSync(target, 'utf8'), 'second!')
  // A truncate removed the folder and a restart emptied the temp folder since the last write:
  fs.rmSync(path.join(dir, 'tiles'), { recursive: true })
  fs.rmSync(tmpDir, { recursive: true })
  t.same(writeTileFile(tmpDir, target, Buffer.from('third')), { bytes: 5, replacedBytes: -1, mtimeMs: fs.statSync(target).mtimeMs })
  t.equal(fs.readFileSync(target, 'utf8'), 'third')
  // The rename fails after the temp file was written (a folder stands where the tile goes): the
  // error comes with its code, and the temp file goes.
  fs.mkdirSync(path.join(dir, 'tiles', '3', '1', '5.png'))
  t.throws(() => writeTileFile(tmpDir, path.join(dir, 'tiles', '3', '1', '5.png'), Buffer.from('x')), { code: 'EISDIR' })
  t.same(fs.readdirSync(tmpDir), [], 'no temp file left by any write')
})

t.test('tile files: read whole with their time, a missing one is undefined, an unreadable one rejects and leaves no descriptor open', async (t) => {
  const dir = tempDir(t)
  const big = Buffer.alloc(3 * 2 ** 20 + 5, 1).map((_, i) => i % 251)
  fs.writeFileSync(path.join(dir, 'big.png'), big)
  const got = await readTileFile(path.join(dir, 'big.png'))
  t.ok(got!.data.equals(big), 'every byte of a file of several MB')
  t.equal(got!.mtimeMs, fs.statSync(path.join(dir, 'big.png')).mtimeMs)
  fs.writeFileSync(path.join(dir, 'empty.png'), '')
  t.equal((await readTileFile(path.join(dir, 'empty.png')))!.data.length, 0, 'an empty file is empty')
  t.equal(await readTileFile(path.join(dir, 'none.png')), undefined, 'no file: undefined')
  fs.mkdirSync(path.join(dir, 'folder.png'))
  const open = fs.readdirSync('/proc/self/fd').length
  await t.rejects(readTileFile(path.join(dir, 'folder.png')), { code: 'EISDIR' })
  t.equal(fs.readdirSync('/proc/self/fd').length, open, 'the descriptor was closed')
})
