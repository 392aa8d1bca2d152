// Accounting and eviction on real storage: a real blob store, a real SQLite usage store and a
// controlled clock. At zoom 2 of EPSG:4326 (8x4 tiles) every page holds one tile.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { quotaHarness, diskUsage, MINUTE, type Harness } from '../../fixtures/diskquota/harness.js'
import { QUIET_MS } from '../../../services/diskquota/cache-cleaner.js'
import { writeTileFile } from '../../../services/render/tile-files.js'

const L = 'topp:states'
const TILE = 5000 // 8192 bytes on disk with 4096-byte blocks

t.test('every write, overwrite and delete is recorded, rounded up to the block size', async (t) => {
  const h = await quotaHarness(t)
  const a = h.key(L, 2, 0, 0)
  await h.put(a, TILE)
  await h.put(h.key(L, 2, 1, 0), 1)
  await h.dq.flush()
  t.same((await h.store.tileSets()).map((s) => [s.layer, s.tiles, s.bytes]), [[L, 2, 8192 + 4096]])
  await h.put(a, 100) // overwrite: same tile count, smaller size
  await h.dq.flush()
  t.same((await h.store.tileSets()).map((s) => [s.tiles, s.bytes]), [[2, 4096 + 4096]])
  await h.blobStore.delete(a)
  await h.dq.flush()
  t.same((await h.store.tileSets()).map((s) => [s.tiles, s.bytes]), [[1, 4096]])
  t.equal(await h.store.usedBytes({ except: [] }), diskUsage(h.blobStore.root, 4096).bytes)
})

t.test('statistics stay one row per page however many tiles are written', async (t) => {
  const h = await quotaHarness(t)
  // zoom 8: 512x256 tiles, pages of 8x5 tiles
  for (let x = 0; x < 16; x++) for (let y = 0; y < 10; y++) await h.put(h.key(L, 8, x, y), 10)
  await h.dq.flush()
  const pages = h.db.prepare('SELECT COUNT(*) AS n, SUM(tiles) AS tiles, MAX(fill) AS fill FROM dq_pages').get() as any
  t.same(pages, { n: 4, tiles: 160, fill: 1 })
})

async function fourTiles (h: Harness) {
  const keys = [0, 1, 2, 3].map((x) => h.key(L, 2, x, 0))
  for (const k of keys) await h.put(k, TILE) // created and last written at minute 0
  return keys
}

t.test('LRU evicts the page accessed longest ago, until usage is back under the quota', async (t) => {
  const h = await quotaHarness(t)
  const [a, b, c, d] = await fourTiles(h)
  h.clock.ms += MINUTE
  await h.read(c)
  h.clock.ms += MINUTE
  await h.read(a)
  h.clock.ms += MINUTE
  await h.read(b) // d: never read since written (oldest access), then c, a, b
  await h.dq.update({ enabled: true, globalExpirationPolicyName: 'LRU', globalQuota: { value: String(3 * 8192), units: 'B' } })
  let run = await h.dq.runCleanUp()
  t.same(run.results.map((r) => [r.quota, r.pages, r.tiles, r.bytesBefore, r.bytesAfter]), [['global', 1, 1, 4 * 8192, 3 * 8192]])
  t.same([a, b, c, d].map(h.exists), [true, true, true, false])
  await h.dq.update({ globalQuota: { value: String(8192 + 100), units: 'B' } }) // applies at the next run
  run = await h.dq.runCleanUp()
  t.same([a, b, c, d].map(h.exists), [false, true, false, false], 'c then a')
  t.equal(await h.store.usedBytes({ except: [] }), diskUsage(h.blobStore.root, 4096).bytes)
  t.ok(h.logs.some((l) => l.msg === 'disk quota: expired a tile page'), 'evictions are logged')
})

t.test('LFU evicts the page with the lowest frequency of use', async (t) => {
  const h = await quotaHarness(t)
  const [a, b, c, d] = await fourTiles(h)
  h.clock.ms += MINUTE
  for (let i = 0; i < 5; i++) await h.read(a)
  await h.read(b)
  for (let i = 0; i < 3; i++) await h.read(c)
  await h.read(d)
  await h.read(d)
  // frequencies: a 5/2, b 1/2, c 3/2, d 2/2
  await h.dq.update({ enabled: true, globalExpirationPolicyName: 'LFU', globalQuota: { value: '16', units: 'KiB' } })
  await h.dq.runCleanUp()
  t.same([a, b, c, d].map(h.exists), [true, false, true, false], 'b and d go first')
  t.equal(await h.store.usedBytes({ except: [] }), 2 * 8192)
})

t.test('a layer quota is enforced on its own layer only; the others share the global quota', async (t) => {
  const h = await quotaHarness(t)
  const own = [0, 1, 2].map((x) => h.key('topp:own', 2, x, 0))
  const shared = [0, 1, 2].map((x) => h.key('topp:shared', 2, x, 0))
  for (const k of [...own, ...shared]) await h.put(k, TILE)
  await h.dq.update({
    enabled: true,
    globalQuota: { value: '1', units: 'GiB' },
    layerQuotas: [{ layer: 'topp:own', expirationPolicyName: 'LRU', quota: { value: '8', units: 'KiB' } }]
  })
  const run = await h.dq.runCleanUp()
  t.same(run.results.map((r) => r.quota), ['topp:own'])
  t.equal(own.filter(h.exists).length, 1)
  t.equal(shared.filter(h.exists).length, 3, 'under the global quota: untouched')
  await h.dq.update({ globalQuota: { value: '8', units: 'KiB' } })
  await h.dq.runCleanUp()
  t.equal(own.filter(h.exists).length, 1, 'the global quota does not count layers with their own')
  t.equal(shared.filter(h.exists).length, 1)
})

t.test('disabled: nothing is evicted but usage is still recorded', async (t) => {
  const h = await quotaHarness(t)
  const keys = await fourTiles(h)
  await h.dq.update({ enabled: false, globalQuota: { value: '1', units: 'B' } })
  const run = await h.dq.runCleanUp()
  t.equal(run.skipped, true)
  t.same(keys.map(h.exists), [true, true, true, true])
  await h.dq.flush()
  t.equal(await h.store.usedBytes({ except: [] }), 4 * 8192)
})

t.test('usage counted for tiles that are no longer on disk is dropped when their page is evicted', async (t) => {
  const h = await quotaHarness(t)
  const keys = await fourTiles(h)
  await h.dq.flush()
  fs.rmSync(h.blobStore.tilePath(keys[0])) // behind the store's back: no event
  await h.dq.update({ enabled: true, globalExpirationPolicyName: 'LRU', globalQuota: { value: String(3 * 8192), units: 'B' } })
  await h.dq.runCleanUp()
  t.same(keys.map(h.exists), [false, true, true, true], 'the phantom page went first and freed enough')
  t.equal(await h.store.usedBytes({ except: [] }), diskUsage(h.blobStore.root, 4096).bytes)
})

t.test('a tile written into a page while it was truncated is counted again once the page is quiet', async (t) => {
  const h = await quotaHarness(t)
  const [a, b, c, d] = await fourTiles(h)
  h.clock.ms += MINUTE
  for (const k of [a, b, c]) await h.read(k) // d is the least recently used
  await h.dq.update({ enabled: true, globalExpirationPolicyName: 'LRU', globalQuota: { value: String(3 * 8192), units: 'B' } })
  await h.dq.runCleanUp()
  t.same([a, b, c, d].map(h.exists), [true, true, true, false])
  // A render thread's write of d that the truncation's zeroing swallowed: on disk, not counted.
  fs.mkdirSync(path.dirname(h.blobStore.tilePath(d)), { recursive: true })
  fs.writeFileSync(h.blobStore.tilePath(d), Buffer.alloc(TILE, 1))
  await h.dq.runCleanUp()
  t.equal(await h.store.usedBytes({ except: [] }), 3 * 8192, 'within the quiet time the page is left as recorded')
  h.clock.ms += QUIET_MS
  await h.dq.runCleanUp()
  t.equal(await h.store.usedBytes({ except: [] }), 3 * 8192, 'quiet since the truncation: scanned, not yet settled')
  h.clock.ms += QUIET_MS
  await h.dq.runCleanUp()
  t.ok(h.logs.some((l) => l.msg === 'disk quota: settled a truncated page against the disk'), 'the page was settled')
  t.same(diskUsage(h.blobStore.root, 4096), { bytes: 3 * 8192, files: 3 }, 'counted again, the cache went back under its quota')
  t.equal(await h.store.usedBytes({ except: [] }), diskUsage(h.blobStore.root, 4096).bytes, 'accounted equals the disk')
})

t.test('a tile written before the settling scan whose event comes after it is counted once', async (t) => {
  const h = await quotaHarness(t)
  const [a, b, c, d] = await fourTiles(h)
  h.clock.ms += MINUTE
  for (const k of [a, b, c]) await h.read(k)
  await h.dq.update({ enabled: true, globalExpirationPolicyName: 'LRU', globalQuota: { value: String(3 * 8192), units: 'B' } })
  await h.dq.runCleanUp()
  t.same([a, b, c, d].map(h.exists), [true, true, true, false])
  await h.dq.update({ globalQuota: { value: String(4 * 8192), units: 'B' } }) // d may come back
  // A render thread (of this node or another) writes d's metatile; the scan sees the file...
  h.clock.ms += QUIET_MS
  const set = { layer: d.layer, gridSet: d.gridSet, format: d.format, parameterId: d.parameterId }
  const { tmpDir, paths } = h.blobStore.metatileTarget(set, d.z, [d.x, d.y, d.x, d.y])
  const write = writeTileFile(tmpDir, paths[0], Buffer.alloc(TILE, 3))
  await h.dq.runCleanUp()
  // ... and its event is recorded only now, after the scan.
  h.blobStore.recordMetatile(set, d.z, [d.x, d.y, d.x, d.y], [write])
  h.clock.ms += QUIET_MS
  await h.dq.runCleanUp()
  t.equal(await h.store.usedBytes({ except: [] }), 4 * 8192, 'the event counts the tile; the scan\'s count of it is not added again')
  for (let i = 0; i < 4; i++) { h.clock.ms += QUIET_MS; await h.dq.runCleanUp() }
  t.equal(await h.store.usedBytes({ except: [] }), diskUsage(h.blobStore.root, 4096).bytes, 'accounted equals the disk')
})

t.test('a lost usage store is rebuilt from the files on disk, keeping writes made meanwhile', async (t) => {
  const h = await quotaHarness(t)
  for (let x = 0; x < 8; x++) for (let y = 0; y < 4; y++) await h.put(h.key(L, 2, x, y), 100 + x * 1000)
  await h.put({ ...h.key('other:layer', 3, 1, 1), format: 'image/jpeg' }, 9000)
  await h.dq.flush()
  const before = await h.store.tileSets()
  h.db.exec('DELETE FROM dq_pages; DELETE FROM dq_tilesets; DELETE FROM dq_state')
  t.same(await h.store.tileSets(), [])
  const rebuilding = h.dq.rebuild()
  // Changes while the rebuild runs: a new directory, an overwrite and a delete in scanned ones.
  await Promise.all([
    h.put(h.key(L, 5, 0, 0), 5000),
    h.put(h.key(L, 2, 7, 3), 20_000),
    h.blobStore.delete(h.key(L, 2, 0, 0)),
    rebuilding
  ])
  await h.put(h.key(L, 2, 6, 3), 30_000)
  t.equal(h.dq.rebuildProgress().state, 'done')
  t.ok(h.dq.rebuildProgress().filesScanned >= 31)
  await h.dq.flush()
  const disk = diskUsage(h.blobStore.root, 4096)
  t.equal(await h.store.usedBytes({ except: [] }), disk.bytes)
  t.equal((await h.store.tileSets()).reduce((n, s) => n + s.tiles, 0), disk.files)
  t.same((await h.store.tileSets()).filter((s) => s.layer === 'other:layer'), before.filter((s) => s.layer === 'other:layer'))
  t.ok(await h.store.getState('usageBuiltAt'))
})

t.test('usage survives closing and reopening the store', async (t) => {
  const h = await quotaHarness(t)
  await fourTiles(h)
  await h.close() // final flush
  const again = await quotaHarness(t, h.dir)
  t.equal(await again.store.usedBytes({ except: [] }), 4 * 8192)
})

t.test('up to maxConcurrentCleanUps quotas are cleaned at once, never the same layer twice', async (t) => {
  const h = await quotaHarness(t)
  const layers = ['topp:a', 'topp:b', 'topp:c']
  for (const l of layers) for (let x = 0; x < 3; x++) await h.put(h.key(l, 2, x, 0), TILE)
  await h.dq.update({
    enabled: true,
    maxConcurrentCleanUps: 2,
    layerQuotas: layers.map((layer) => ({ layer, quota: { value: '8', units: 'KiB' } }))
  })
  const [first, second] = await Promise.all([h.dq.runCleanUp(), h.dq.runCleanUp()])
  t.same(first.results.map((r) => r.quota), ['topp:a', 'topp:b'])
  t.same(second.results, [], 'a run while two clean-ups are busy starts none')
  const third = await h.dq.runCleanUp()
  t.same(third.results.map((r) => r.quota), ['topp:c'], 'quotas already met are not run again')
  for (const l of layers) t.equal([0, 1, 2].map((x) => h.key(l, 2, x, 0)).filter(h.exists).length, 1, l)
})

t.test('a new diskBlockSize recounts usage from the files on disk', async (t) => {
  const h = await quotaHarness(t)
  await h.put(h.key(L, 2, 0, 0), 1000)
  await h.put(h.key(L, 2, 1, 0), 5000)
  await h.dq.flush()
  t.equal(await h.store.usedBytes({ except: [] }), 4096 + 8192)
  await h.dq.update({ diskBlockSize: 512 })
  await h.dq.rebuild() // the rebuild the change started
  await h.dq.flush()
  t.equal(await h.store.usedBytes({ except: [] }), 1024 + 5120)
  t.equal(await h.store.usedBytes({ except: [] }), diskUsage(h.blobStore.root, 512).bytes)
})

t.test('after a run that did not close (kill -9), usage is rebuilt from the files at start', async (t) => {
  const crashed = await quotaHarness(t)
  await crashed.dq.start()
  await crashed.dq.rebuild()
  await crashed.put(crashed.key(L, 2, 0, 0), TILE)
  await crashed.put(crashed.key(L, 2, 1, 0), TILE) // never flushed: the process "dies" here
  const next = await quotaHarness(t, crashed.dir)
  t.equal(await next.store.usedBytes({ except: [] }), 0, 'the last flush window was lost')
  await next.dq.start()
  await next.dq.rebuild()
  t.equal(await next.store.usedBytes({ except: [] }), 2 * 8192)
  await next.close()
  const clean = await quotaHarness(t, crashed.dir)
  await clean.dq.start()
  t.equal(clean.dq.rebuildProgress().state, 'idle', 'a clean close needs no rebuild')
})

t.test('a sparse page at a deep level is truncated by walking what exists', async (t) => {
  const h = await quotaHarness(t)
  // zoom 16: pages of 1061x563 tiles; three tiles in one page, one in another
  const keys = [[100, 100], [101, 100], [400, 250], [1200, 100]].map(([x, y]) => h.key(L, 16, x, y))
  for (const k of keys) await h.put(k, TILE)
  await h.dq.update({ enabled: true, globalExpirationPolicyName: 'LRU', globalQuota: { value: '8', units: 'KiB' } })
  const run = await h.dq.runCleanUp()
  t.same(run.results.map((r) => [r.pages, r.tiles]), [[1, 3]])
  t.same(keys.map(h.exists), [false, false, false, true])
  t.equal(await h.store.usedBytes({ except: [] }), diskUsage(h.blobStore.root, 4096).bytes)
})
