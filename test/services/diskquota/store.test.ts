// The contract of the usage store (services/diskquota/quota-store.ts), the same cases on the SQLite
// and the PostgreSQL store: flushes add up and clamp at zero with tile-set totals always the sum of
// their pages, LRU/LFU pick the same pages in the same order (ties included), truncation, the
// rebuild's replacement, configuration, state, page geometry and forgetting. Then what only
// PostgreSQL has: two nodes flushing the same pages at once lose nothing, a layer forgotten during
// a flush fails no flush, relaxed commits leave the connection as they found it, and a
// configuration write is announced ('quota').
// The SQLite flush's synchronous setting is sqlite-quota-store.test.ts.
import t from 'tap'
import { createSqliteQuotaStore } from '../../../services/diskquota/sqlite-quota-store.js'
import { createPgQuotaStore } from '../../../services/diskquota/pg-quota-store.js'
import type { PageDelta, PageRef, QuotaStore } from '../../../services/diskquota/quota-store.js'
import { connectPg } from '../../../services/storage/pg/database.js'
import { BACKENDS, openBackend, recordChanges, secondNode, type Opened } from '../../fixtures/backends.js'
import { migratedPg } from '../../fixtures/pg.js'

const quotaStore = (o: Opened) => o.backend === 'pg' ? createPgQuotaStore(o.db) : createSqliteQuotaStore(o.db)
const MIN = 60_000

const tileSet = (layer: string) => ({ layer, gridSet: 'EPSG:4326', format: 'image/png' as const, parameterId: 'default' })
const A = tileSet('ws:a')
const B = tileSet('ws:B') // before ws:a in byte order
const idOf = (s: typeof A) => `${s.layer}#EPSG:4326#image/png#default`

type Change_ = Partial<Pick<PageDelta, 'tiles' | 'bytes' | 'hits' | 'accessMs' | 'firstMs' | 'maxTiles'>>
const delta = (s: typeof A, z: number, px: number, py: number, c: Change_): PageDelta =>
  ({ tileSet: s, z, px, py, tiles: 0, bytes: 0, hits: 0, accessMs: 0, firstMs: 0, maxTiles: 64, ...c })
const ref = (s: typeof A, z: number, px: number, py: number, r: Pick<PageRef, 'tiles' | 'bytes' | 'hits' | 'lastAccessMs' | 'frequency'>): PageRef =>
  ({ tileSetId: idOf(s), ...s, z, px, py, ...r })
const where = (p: PageRef) => `${p.layer} ${p.z}/${p.px}/${p.py}`
const totals = async (store: QuotaStore) => (await store.tileSets()).map((s) => [s.layer, s.tiles, s.bytes])
const ALL = { except: [] }

// Seven pages whose LRU and LFU orders need every tie-break: P2 and P1 differ only by tile set.
const P = {
  p1: delta(A, 2, 0, 0, { tiles: 8, bytes: 800, accessMs: 5 * MIN, firstMs: MIN }),
  p2: delta(B, 2, 0, 0, { tiles: 8, bytes: 800, accessMs: 5 * MIN, firstMs: MIN }),
  p3: delta(A, 5, 1, 0, { tiles: 1, bytes: 100, accessMs: 5 * MIN, firstMs: MIN }),
  p4: delta(A, 5, 0, 2, { tiles: 1, bytes: 100, accessMs: 5 * MIN, firstMs: MIN }),
  p5: delta(A, 1, 0, 0, { tiles: 64, bytes: 6400, hits: 5, accessMs: 2 * MIN, firstMs: 1 }),
  p6: delta(B, 1, 0, 0, { tiles: 64, bytes: 6400, hits: 2, accessMs: 5 * MIN, firstMs: MIN }),
  p7: delta(A, 4, 0, 0, { tiles: 3, bytes: 300, hits: 5, accessMs: 2 * MIN, firstMs: 1 })
}
const name = (d: PageDelta) => `${d.tileSet.layer} ${d.z}/${d.px}/${d.py}`

for (const backend of BACKENDS) {
  t.test(`${backend}: flushes add up, clamp at zero, and move tile-set totals by what their pages moved`, async (t) => {
    const store = quotaStore(await openBackend(t, backend))
    await store.applyBatch([
      delta(A, 3, 0, 0, { tiles: 4, bytes: 4096, firstMs: MIN }),
      delta(A, 3, 0, 1, { tiles: 2, bytes: 2048, hits: 1, accessMs: 2 * MIN }),
      delta(A, 3, 1, 1, { tiles: -5, bytes: -100, accessMs: 3 * MIN }) // a new page cannot start below zero
    ], 10 * MIN)
    await store.applyBatch([
      delta(A, 3, 0, 0, { tiles: -10, bytes: -1000, hits: 3, accessMs: 3 * MIN }), // tiles clamp at 0
      delta(A, 3, 0, 1, { tiles: 3, bytes: 500, hits: 1 }),
      delta(A, 3, 0, 1, { tiles: 3, bytes: 500, hits: 1 }) // the same page twice in one flush
    ], 20 * MIN)
    t.same(await store.leastRecentlyUsed(ALL, 10), [
      ref(A, 3, 0, 0, { tiles: 0, bytes: 3096, hits: 3, lastAccessMs: 3 * MIN, frequency: 0 }),
      ref(A, 3, 0, 1, { tiles: 8, bytes: 3048, hits: 3, lastAccessMs: 10 * MIN, frequency: 3 / 1 * (8 / 64) })
    ], 'the empty new page is no candidate; created at the flush time without a first event')
    t.same(await totals(store), [['ws:a', 8, 6144]], 'the sum of the pages, not of the deltas')
    t.equal(await store.usedBytes({ layers: ['ws:a'] }), 6144)
    t.equal(await store.usedBytes({ layers: [] }), 0)
    t.equal(await store.usedBytes({ except: ['ws:a'] }), 0)
    t.equal(await store.usedBytes(ALL), 6144)
  })

  t.test(`${backend}: LRU and LFU pick the same pages in the same order, ties broken by zoom, page and tile set`, async (t) => {
    const store = quotaStore(await openBackend(t, backend))
    await store.applyBatch(Object.values(P), 30 * MIN)
    t.same((await store.leastRecentlyUsed(ALL, 10)).map(where), [P.p7, P.p5, P.p4, P.p3, P.p2, P.p1, P.p6].map(name))
    t.same((await store.leastFrequentlyUsed(ALL, 10)).map(where), [P.p4, P.p3, P.p2, P.p1, P.p7, P.p6, P.p5].map(name))
    t.same((await store.leastFrequentlyUsed(ALL, 10)).map((p) => p.frequency), [0, 0, 0, 0, 5 / 3 * (3 / 64), 2 / 5 * 1, 5 / 3 * 1],
      'frequency of use as tile-page.ts computes it, to the last bit')
    t.same((await store.leastRecentlyUsed({ layers: ['ws:B'] }, 10)).map(where), [P.p2, P.p6].map(name))
    t.same((await store.leastRecentlyUsed({ except: ['ws:B'] }, 3)).map(where), [P.p7, P.p5, P.p4].map(name))
    t.same((await store.leastFrequentlyUsed({ layers: ['ws:a', 'ws:B'] }, 2)).map(where), [P.p4, P.p3].map(name))
    t.same(await store.leastRecentlyUsed({ layers: ['ws:none'] }, 10), [])
    t.same(await totals(store), [['ws:B', 72, 7200], ['ws:a', 77, 7700]], 'tile sets in byte order')
  })

  t.test(`${backend}: truncated pages are zeroed once, and their tile sets lose what they held`, async (t) => {
    const store = quotaStore(await openBackend(t, backend))
    await store.applyBatch(Object.values(P), 30 * MIN)
    const pages = await store.leastRecentlyUsed(ALL, 10)
    const [p7, , , , p2] = pages
    await store.markTruncated([p2, p7, { ...p7, z: 9 }]) // the last one does not exist
    await store.markTruncated([p2]) // already empty: nothing more to take off
    t.same((await store.leastRecentlyUsed(ALL, 10)).map(where), [P.p5, P.p4, P.p3, P.p1, P.p6].map(name))
    t.same(await totals(store), [['ws:B', 64, 6400], ['ws:a', 74, 7400]])
    await store.applyBatch([delta(A, 4, 0, 0, { tiles: 1, bytes: 100, accessMs: 40 * MIN })], 40 * MIN)
    t.match(await store.leastRecentlyUsed({ layers: ['ws:a'] }, 10), [{ z: 1 }, { z: 5 }, { z: 5 }, { z: 2 }, { z: 4, tiles: 1, hits: 5 }],
      'a truncated page counts again from zero, its hits kept')
  })

  t.test(`${backend}: a quiet page is settled to a scan of the disk, its tile set moved by the difference; a busy one is not`, async (t) => {
    const store = quotaStore(await openBackend(t, backend))
    await store.applyBatch(Object.values(P), 30 * MIN)
    const p3 = (await store.leastRecentlyUsed({ layers: ['ws:a'] }, 10)).find((p) => p.z === 5 && p.px === 1)!
    t.equal(await store.settlePage(p3, { tiles: 1, bytes: 100, maxTiles: 64 }, 6 * MIN), 'same', 'counts that agree with the disk stay')
    t.equal(await store.settlePage(p3, { tiles: 3, bytes: 300, maxTiles: 64 }, 5 * MIN), 'busy', 'accessed at the quiet limit: left alone')
    t.equal(await store.settlePage(p3, { tiles: 1, bytes: 100, maxTiles: 64 }, 5 * MIN), 'busy', 'busy even when the counts agree (an event may be on its way)')
    t.same(await totals(store), [['ws:B', 72, 7200], ['ws:a', 77, 7700]])
    t.equal(await store.settlePage(p3, { tiles: 3, bytes: 300, maxTiles: 64 }, 5 * MIN + 1), 'changed')
    t.same(await totals(store), [['ws:B', 72, 7200], ['ws:a', 79, 7900]], 'the tile set moved by what the page moved')
    t.match((await store.leastRecentlyUsed({ layers: ['ws:a'] }, 10)).find((p) => p.z === 5 && p.px === 1), { tiles: 3, bytes: 300, hits: 0, lastAccessMs: 5 * MIN },
      'hits and access time kept')
    t.equal(await store.settlePage({ ...p3, z: 9 }, { tiles: 1, bytes: 1, maxTiles: 64 }, 60 * MIN), 'same', 'an unknown page: nothing to settle')
  })

  t.test(`${backend}: the rebuild replaces every count; hits and creation times stay`, async (t) => {
    const store = quotaStore(await openBackend(t, backend))
    await store.applyBatch(Object.values(P), 30 * MIN)
    await store.replaceCounts([
      delta(A, 1, 0, 0, { tiles: 10, bytes: 1000, accessMs: MIN }), // p5: an older access leaves its last access
      delta(B, 0, 0, 0, { tiles: 1, bytes: 100 }) // a page the flushes never saw
    ], 50 * MIN)
    t.same(await store.leastRecentlyUsed(ALL, 10), [
      ref(A, 1, 0, 0, { tiles: 10, bytes: 1000, hits: 5, lastAccessMs: 2 * MIN, frequency: 5 / 3 * (10 / 64) }),
      ref(B, 0, 0, 0, { tiles: 1, bytes: 100, hits: 0, lastAccessMs: 50 * MIN, frequency: 0 })
    ])
    t.same(await totals(store), [['ws:B', 1, 100], ['ws:a', 10, 1000]])
    await store.replaceCounts([], 60 * MIN)
    t.same(await totals(store), [['ws:B', 0, 0], ['ws:a', 0, 0]])
    t.same(await store.leastRecentlyUsed(ALL, 10), [])
  })

  t.test(`${backend}: configuration, state, the first page geometry, forgetting workspaces and layers`, async (t) => {
    const store = quotaStore(await openBackend(t, backend))
    t.equal(await store.readConfig(), undefined)
    await store.writeConfig('{"v":1}')
    await store.writeConfig('{"v":2}')
    t.equal(await store.readConfig(), '{"v":2}')
    t.equal(await store.getState('lastCleanup'), undefined)
    await store.setState('lastCleanup', '1')
    await store.setState('lastCleanup', '2')
    t.equal(await store.getState('lastCleanup'), '2')

    const g1 = { minX: 0, minY: 0, tilesX: 4, tilesY: 2 }
    t.equal(await store.geometry('ws:a', 'EPSG:4326', 3), undefined)
    t.same(await store.saveGeometry('ws:a', 'EPSG:4326', 3, g1), g1)
    t.same(await store.saveGeometry('ws:a', 'EPSG:4326', 3, { minX: 1, minY: 1, tilesX: 9, tilesY: 9 }), g1, 'the first one stays')
    t.same(await store.geometry('ws:a', 'EPSG:4326', 3), g1)

    const layers = ['ws:a', 'ws:b', 'ws2:c', 'w_:d', 'wx:e']
    for (const l of layers) await store.saveGeometry(l, 'EPSG:4326', 0, g1)
    await store.applyBatch(layers.map((l) => delta(tileSet(l), 0, 0, 0, { tiles: 1, bytes: 10 })), MIN)
    await store.forgetWorkspace('ws')
    await store.forgetWorkspace('w_') // a literal prefix: wx:e stays
    t.same((await store.tileSets()).map((s) => s.layer), ['ws2:c', 'wx:e'])
    t.same((await store.leastRecentlyUsed(ALL, 10)).map((p) => p.layer), ['ws2:c', 'wx:e'], 'their pages went with them')
    t.equal(await store.geometry('ws:a', 'EPSG:4326', 3), undefined)
    t.same(await store.geometry('ws2:c', 'EPSG:4326', 0), g1)
    await store.forgetLayer('ws2:c')
    t.same((await store.tileSets()).map((s) => s.layer), ['wx:e'])
    t.equal(await store.geometry('ws2:c', 'EPSG:4326', 0), undefined)
    t.same(await store.geometry('wx:e', 'EPSG:4326', 0), g1)
  })
}

t.test('pg: two nodes flushing 200 interleaved batches on the same pages end with exactly the summed counts', async (t) => {
  const { url, db } = await migratedPg(t)
  const nodes = [createPgQuotaStore(db), createPgQuotaStore(secondNode(t, url))]
  const pages = [[A, 3, 0, 0], [A, 3, 0, 1], [A, 4, 2, 2], [B, 3, 0, 0], [B, 0, 0, 0]] as const
  await nodes[0].applyBatch(pages.map(([s, z, x, y]) => delta(s, z, x, y, { tiles: 1000, bytes: 100_000, firstMs: 1 })), 1)
  const expected = pages.map(() => ({ tiles: 1000, bytes: 100_000 }))
  const batches = Array.from({ length: 200 }, (_, i) => {
    // Each batch names every page, in an order of its own; deltas go both ways but never to zero.
    const order = pages.map((_, k) => (k * (i % 2 ? 1 : -1) + i + 5 * pages.length) % pages.length)
    return order.map((k) => {
      const tiles = ((i * 7 + k * 3) % 11) - 5
      expected[k].tiles += tiles
      expected[k].bytes += tiles * 100
      const [s, z, x, y] = pages[k]
      return delta(s, z, x, y, { tiles, bytes: tiles * 100, hits: 1, accessMs: 1000 + i })
    })
  })
  await Promise.all(batches.map((b, i) => nodes[i % 2].applyBatch(b, 2)))
  const got = await nodes[0].leastRecentlyUsed(ALL, 10)
  t.same(pages.map(([s, z, x, y]) => got.find((p) => p.tileSetId === idOf(s) && p.z === z && p.px === x && p.py === y))
    .map((p) => p && { tiles: p.tiles, bytes: p.bytes, hits: p.hits, lastAccessMs: p.lastAccessMs }),
  expected.map((e) => ({ ...e, hits: 200, lastAccessMs: 1199 })))
  const sum = (from: number, to: number, k: 'tiles' | 'bytes') => expected.slice(from, to).reduce((n, e) => n + e[k], 0)
  t.same(await totals(nodes[0]), [['ws:B', sum(3, 5, 'tiles'), sum(3, 5, 'bytes')], ['ws:a', sum(0, 3, 'tiles'), sum(0, 3, 'bytes')]])
})

t.test('pg: a node forgetting a layer while another flushes its usage: each flush lands whole, before or after', async (t) => {
  const { url, db } = await migratedPg(t)
  const [a, b] = [createPgQuotaStore(db), createPgQuotaStore(secondNode(t, url))]
  const other = tileSet('ws:other')
  for (let i = 0; i < 40; i++) {
    await Promise.all([
      a.applyBatch([delta(A, 1, 0, 0, { tiles: 1, bytes: 10 }), delta(other, 1, 0, 0, { tiles: 1, bytes: 10 })], i),
      b.forgetLayer('ws:a')
    ])
  }
  const byLayer = new Map((await totals(a)).map(([layer, tiles, bytes]) => [layer, [tiles, bytes]]))
  t.same(byLayer.get('ws:other'), [40, 400], 'no flush was lost to the forget')
  const pagesA = (await a.leastRecentlyUsed({ layers: ['ws:a'] }, 10))
  t.same(byLayer.get('ws:a') ?? [0, 0], [pagesA.reduce((n, p) => n + p.tiles, 0), pagesA.reduce((n, p) => n + p.bytes, 0)],
    'what is left of the forgotten layer is the sum of its pages')
})

t.test('pg: a flush commits without the WAL flush, leaves the connection synchronous, and fails whole', async (t) => {
  const { url } = await migratedPg(t)
  const one = connectPg(url, { max: 1 })
  t.teardown(() => one.close())
  const store = createPgQuotaStore(one)
  await store.applyBatch([delta(A, 3, 0, 0, { tiles: 2, bytes: 8192, accessMs: 1000, firstMs: 1000 })], 2000)
  t.same((await one.query('SHOW synchronous_commit')).rows, [{ synchronous_commit: 'on' }])
  await t.rejects(store.applyBatch([
    delta(A, 3, 0, 0, { tiles: 1, bytes: 1 }),
    delta({ ...A, format: undefined as any }, 3, 0, 0, { tiles: 1, bytes: 1 })
  ], 3000))
  t.same(await totals(store), [['ws:a', 2, 8192]], 'the failed flush changed nothing')
})

t.test('pg: a configuration write is announced as "quota"', async (t) => {
  const { url, db } = await migratedPg(t)
  const changes = await recordChanges(t, url, db)
  await createPgQuotaStore(db).writeConfig('{"v":1}')
  t.same(await changes.settle(), [{ topic: 'quota' }])
})
