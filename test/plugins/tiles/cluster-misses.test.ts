// Two instances on one PostgreSQL database and one data directory: a tile missing on both, asked of
// both at once, is rendered once (a cluster-wide lock per metatile); the instance that waited
// serves the tile the other wrote.
import t from 'tap'
import { build, BASE, tempDir } from '../../helper.js'
import { pgDatabase } from '../../fixtures/pg.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'

t.test('a metatile missing on two nodes at once is rendered once', async (t) => {
  const databaseUrl = await pgDatabase(t, { migrated: true })
  const dataDir = tempDir(t)
  const a = await build(t, { dataDir, databaseUrl })
  const b = await build(t, { dataDir, databaseUrl })
  const layer = await createMosaic(a, 'topp', 'world', { 'world.tif': rgbTiff(256, 256, [0, 0, 90, 90], pattern) })
  const writes = new Map<string, number>()
  for (const app of [a, b]) {
    app.tileCache.store.onTileWritten((e) => { const k = `${e.z}/${e.x}/${e.y}`; writes.set(k, (writes.get(k) ?? 0) + 1) })
  }
  // Zoom 5 tiles of the layer's 0-90 E, 0-90 N in EPSG:4326: 16 metatiles of 4 x 4 tiles.
  const urls: string[] = []
  for (let x = 32; x < 48; x++) for (let y = 8; y < 16; y++) urls.push(`${BASE}/gwc/service/xyz/${layer}/EPSG:4326/5/${x}/${y}.png`)
  const answers = await Promise.all(urls.flatMap((url) => [a.inject({ url }), b.inject({ url })]))
  t.ok(answers.every((r) => r.statusCode === 200), 'every tile served by both nodes')
  for (let i = 0; i < urls.length; i++) t.same(answers[2 * i].rawPayload, answers[2 * i + 1].rawPayload, 'both nodes serve the same tile')
  const twice = [...writes].filter(([, n]) => n > 1)
  t.same(twice, [], 'no tile written twice')
  t.equal(writes.size, urls.length, `${writes.size} tiles written, each once`)
})
