// End to end on a real layer: real PNG tiles are written through the tile cache's blob store
// (as seeding writes them) over the layer's coverage, pushed over a small quota, and one clean-up
// pass brings them back under: the evicted files are really gone and the recorded usage equals
// the bytes on disk; truncation through the seed API is accounted too.
// A second test seeds and reseeds a real mosaic through the seed API and the render pool.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { addLayer } from '../../fixtures/seed/layers.js'
import { diskUsage } from '../../fixtures/diskquota/harness.js'
import { GRID_SETS, gridSubset } from '../../../services/tilecache/grid-sets.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import { appRun } from '../../fixtures/catalog-rows.js'

const DQ = `${BASE}/gwc/rest/diskquota`

/** A real PNG whose size varies with its content (noise over part of the tile). */
async function png (seed: number): Promise<Buffer> {
  const side = 16 + (seed % 5) * 8
  const raw = Buffer.alloc(side * side * 3)
  let v = seed * 2654435761 >>> 0
  for (let i = 0; i < raw.length; i++) { v = (v * 1103515245 + 12345) >>> 0; raw[i] = v >>> 24 }
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } }).png().toBuffer()
}

async function seededLayer (t: any, app: FastifyInstance, zoomStop: number): Promise<string> {
  const layer = await addLayer(app, { workspace: 'ws', name: 'dem', bbox: [-20, -10, 20, 30] })
  const subset = gridSubset(GRID_SETS['EPSG:4326'], [-20, -10, 20, 30])
  let n = 0
  for (let z = 0; z <= zoomStop; z++) {
    const r = subset.coverage(z)!
    for (let x = r[0]; x <= r[2]; x++) {
      for (let y = r[1]; y <= r[3]; y++) {
        await app.tileCache.store.put({ layer, gridSet: 'EPSG:4326', format: 'image/png', parameterId: 'default', z, x, y }, await png(n++))
      }
    }
  }
  t.ok(n > 0)
  return layer
}

const usage = async (app: FastifyInstance) => {
  await app.diskQuota.flush() // the start-up rebuild of an empty cache may still be running
  return (await app.inject({ url: `${DQ}/usage.json`, headers: ADMIN })).json().diskQuotaUsage
}

t.test('a layer written over a small quota shrinks back under it in one clean-up pass, its files really gone', async (t) => {
  const app = await build(t)
  const layer = await seededLayer(t, app, 6)
  const root = app.tileCache.store.root
  const seeded = diskUsage(root, 4096)
  t.ok(seeded.files > 50, `wrote ${seeded.files} tiles`)
  let u = await usage(app)
  t.equal(u.usedBytes, seeded.bytes, 'recorded usage equals the bytes on disk, rounded to blocks')
  t.equal(u.layers.layer[0].tiles, seeded.files)

  const quota = Math.floor(seeded.bytes / 3)
  const put = await app.inject({ method: 'PUT', url: `${DQ}.json`, headers: ADMIN, payload: JSON.stringify({ gwcQuotaConfiguration: { enabled: true, globalExpirationPolicyName: 'LRU', globalQuota: { value: String(quota), units: 'B' } } }) })
  t.equal(put.statusCode, 200)
  const run = await app.diskQuota.runCleanUp()
  t.equal(run.results.length, 1)
  t.ok(run.results[0].pages > 0)
  const after = diskUsage(root, 4096)
  t.ok(after.bytes <= quota, `on disk ${after.bytes} <= quota ${quota}`)
  t.ok(after.files < seeded.files, `${seeded.files - after.files} files deleted`)
  t.equal(after.files, seeded.files - run.results[0].tiles, 'every tile the cleaner counted is gone from disk')
  u = await usage(app)
  t.equal(u.usedBytes, after.bytes, 'recorded usage still equals the bytes on disk')
  t.equal(u.layers.layer[0].tiles, after.files)
  t.ok(u.lastCleanUp, 'the time of the clean-up is reported')

  // Truncating through the seed API is accounted too.
  const trunc = await app.inject({
    method: 'POST',
    url: `${BASE}/gwc/rest/seed/${layer}.json`,
    headers: { ...ADMIN, 'content-type': 'application/json' },
    payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 6, type: 'truncate', format: 'image/png', threadCount: 1 } })
  })
  t.equal(trunc.statusCode, 200)
  await app.tileCache.breeder.idle()
  u = await usage(app)
  t.equal(u.usedBytes, diskUsage(root, 4096).bytes)
  t.equal(u.usedBytes, 0)
})

t.test('usage survives a restart, and is rebuilt from the files when the usage store is lost', async (t) => {
  const dataDir = tempDir(t)
  const first = await build(t, { dataDir, keepOpen: true })
  await seededLayer(t, first, 4)
  const root = first.tileCache.store.root
  const onDisk = diskUsage(root, 4096)
  await first.close()

  const second = await build(t, { dataDir, keepOpen: true })
  t.equal((await usage(second)).usedBytes, onDisk.bytes, 'after a restart')
  for (const table of ['dq_pages', 'dq_tilesets', 'dq_state']) await appRun(second, `DELETE FROM ${table}`)
  await second.close()

  const third = await build(t, { dataDir })
  await third.diskQuota.flush() // waits for the rebuild started at boot
  const u = await usage(third)
  t.equal(u.rebuild.state, 'done')
  t.equal(u.rebuild.filesScanned, onDisk.files)
  t.equal(u.usedBytes, onDisk.bytes, 'rebuilt from the files on disk')
})

t.test('a real mosaic seeded and reseeded through the seed API is accounted exactly, then evicted under a quota', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'ws', 'dem', { 'dem.tif': rgbTiff(256, 256, [-20, -10, 20, 30], pattern) })
  const seed = async (type: string) => {
    const res = await app.inject({
      method: 'POST',
      url: `${BASE}/gwc/rest/seed/${layer}.json`,
      headers: { ...ADMIN, 'content-type': 'application/json' },
      payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 5, type, format: 'image/png', threadCount: 2 } })
    })
    t.equal(res.statusCode, 200, res.body)
    await app.tileCache.breeder.idle()
  }
  const root = app.tileCache.store.root
  await seed('seed')
  const seeded = diskUsage(root, 4096)
  t.ok(seeded.files > 20, `seeded ${seeded.files} tiles`)
  t.equal((await usage(app)).usedBytes, seeded.bytes)
  await seed('reseed') // every tile rewritten: replaced, not added
  let u = await usage(app)
  t.equal(u.usedBytes, diskUsage(root, 4096).bytes)
  t.equal(u.layers.layer[0].tiles, seeded.files)

  await app.inject({ method: 'PUT', url: `${DQ}.xml`, headers: ADMIN, payload: `<gwcQuotaConfiguration><enabled>true</enabled><globalQuota><value>${Math.floor(seeded.bytes / 2)}</value><units>B</units></globalQuota></gwcQuotaConfiguration>` })
  await app.diskQuota.runCleanUp()
  const after = diskUsage(root, 4096)
  t.ok(after.bytes <= seeded.bytes / 2, `${after.bytes} on disk under the quota`)
  u = await usage(app)
  t.equal(u.usedBytes, after.bytes)
  t.equal(u.layers.layer[0].tiles, after.files)
})

t.test('deleting a seeded mosaic store with recurse removes its tiles and their recorded usage', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'ws', 'gone', { 'gone.tif': rgbTiff(128, 128, [-20, -10, 20, 30], pattern) })
  const kept = await createMosaic(app, 'ws', 'kept', { 'kept.tif': rgbTiff(128, 128, [-20, -10, 20, 30], pattern) })
  for (const l of [layer, kept]) {
    const res = await app.inject({
      method: 'POST',
      url: `${BASE}/gwc/rest/seed/${l}.json`,
      headers: { ...ADMIN, 'content-type': 'application/json' },
      payload: JSON.stringify({ seedRequest: { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 3, type: 'seed', format: 'image/png', threadCount: 1 } })
    })
    t.equal(res.statusCode, 200, res.body)
  }
  await app.tileCache.breeder.idle()
  const root = app.tileCache.store.root
  t.equal((await usage(app)).layers.layer.length, 2)
  const res = await app.inject({ method: 'DELETE', url: `${BASE}/rest/workspaces/ws/coveragestores/gone?recurse=true`, headers: ADMIN })
  t.equal(res.statusCode, 200, res.body)
  t.notOk(fs.existsSync(path.join(root, 'ws', 'gone')), 'the tiles are gone from disk')
  t.ok(fs.existsSync(path.join(root, 'ws', 'kept')), 'the other layer keeps its tiles')
  const u = await usage(app)
  t.same(u.layers.layer.map((l: { name: string }) => l.name), [kept], 'only the remaining layer is accounted')
  t.equal(u.usedBytes, diskUsage(root, 4096).bytes, 'recorded usage equals the bytes on disk')
})
