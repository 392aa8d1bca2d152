// The accounting flush commits with synchronous=NORMAL (no fsync on the event loop) and leaves the
// catalog connection as it found it (FULL), so catalog commits stay durable before their response.
import t from 'tap'
import { tempDir } from '../../helper.js'
import { openDatabase } from '../../../services/storage/sqlite/database.js'
import { createSqliteQuotaStore } from '../../../services/diskquota/sqlite-quota-store.js'

t.test('applyBatch commits the usage and restores the connection to synchronous=FULL', async (t) => {
  const db = openDatabase(tempDir(t, 'mwdq'))
  t.teardown(() => db.close())
  const store = createSqliteQuotaStore(db)
  t.equal(db.pragma('synchronous', { simple: true }), 2, 'FULL before')
  const tileSet = { layer: 'ws:l', gridSet: 'EPSG:4326', format: 'image/png' as const, parameterId: 'default' }
  await store.applyBatch([{ tileSet, z: 3, px: 0, py: 0, tiles: 2, bytes: 8192, hits: 0, accessMs: 1000, firstMs: 1000, maxTiles: 64 }], 2000)
  t.equal(db.pragma('synchronous', { simple: true }), 2, 'FULL after')
  t.same((await store.tileSets()).map((s) => [s.layer, s.tiles, s.bytes]), [['ws:l', 2, 8192]])
  await t.rejects(store.applyBatch([{ tileSet: { ...tileSet, format: undefined as any }, z: 3, px: 0, py: 0, tiles: 1, bytes: 1, hits: 0, accessMs: 1, firstMs: 1, maxTiles: 64 }], 3000))
  t.equal(db.pragma('synchronous', { simple: true }), 2, 'FULL after a failed batch')
  t.same((await store.tileSets()).map((s) => [s.layer, s.tiles, s.bytes]), [['ws:l', 2, 8192]], 'the failed batch changed nothing')
})
