// Harvests (hostile round two, 10): a location with NUL or '..' segments is refused outright, not
// normalised; a harvest whose every granule is skipped answers 400 naming why, not an empty 201.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, ADMIN, BASE, tempDir } from '../helper.js'
import { makeTiff, makeZip } from '../fixtures/mosaics/make.js'
import { manifest } from '../manifest.js'

const R = `${BASE}/rest/workspaces/ws/coveragestores`
const GOOD = makeTiff({ width: 8, height: 8, bbox: [0, 0, 1, 1], value: () => 5 })

async function setup (t: any) {
  const root = fs.realpathSync(tempDir(t, 'mw-harvest'))
  const app = await build(t, { harvestRoots: [root] })
  await app.workspaces.create({ name: 'ws' })
  const up = await app.inject({ method: 'PUT', url: `${R}/m/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await makeZip({ 'a.tif': GOOD }) })
  t.equal(up.statusCode, 200)
  return { app, root }
}
const harvest = (app: any, body: string) =>
  app.inject({ method: 'POST', url: `${R}/m/external.imagemosaic`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: body })

t.test("NUL and '..' in harvest locations are refused before anything is read", async (t) => {
  const { app, root } = await setup(t)
  fs.mkdirSync(path.join(root, 'x'))
  fs.writeFileSync(path.join(root, 'b.tif'), GOOD)
  const before = manifest(app.config.dataDir)
  for (const [body, reason] of [
    [`file://${root}/x%00/../`, 'it holds a NUL character'],
    [`file://${root}/x/../b.tif`, "'..' segments are not allowed"],
    [`file://${root}/x/%2e%2e/b.tif`, "'..' segments are not allowed"],
    [`${root}/x/../b.tif`, "'..' segments are not allowed"]
  ]) {
    const res = await harvest(app, body)
    t.equal(res.statusCode, 400, body)
    t.equal(res.body, `Cannot harvest the location: ${reason}`)
  }
  t.same(manifest(app.config.dataDir), before, 'nothing indexed or written')
  t.equal((await harvest(app, `file://${root}/b.tif`)).statusCode, 201, 'the same file named plainly is harvested')
})

t.test('a harvest whose every granule is skipped answers 400 naming each reason', async (t) => {
  const { app, root } = await setup(t)
  fs.writeFileSync(path.join(root, 'broken.tif'), 'not a tiff')
  fs.writeFileSync(path.join(root, 'empty.tif'), '')
  const res = await harvest(app, root)
  t.equal(res.statusCode, 400)
  t.match(res.body, /^No granule could be indexed: broken\.tif: not a readable GeoTIFF .*; empty\.tif: not a readable GeoTIFF/)
  const list = JSON.parse((await app.inject({ method: 'GET', url: `${R}/m/coverages/m/index/granules.json`, headers: ADMIN })).body)
  t.equal(list.features.length, 1, 'the index is as before')
  fs.writeFileSync(path.join(root, 'good.tif'), GOOD)
  const some = await harvest(app, root)
  t.equal(some.statusCode, 201, 'one good granule among bad ones: 201, the others in the Warning header')
  t.match(String(some.headers.warning), /broken\.tif/)
})

t.test('harvests racing granule deletes with purge=all: never a 500; a vanished file is skipped with the reason', async (t) => {
  const { app, root } = await setup(t)
  const statuses = new Set<number>()
  const reasons = new Set<string>()
  for (let round = 0; round < 20; round++) {
    const dir = path.join(root, `r${round}`)
    fs.mkdirSync(dir)
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(dir, `g${round}_${i}.tif`), GOOD)
    // Index half of them first, so the delete has files to purge while the next harvest walks the folder.
    await harvest(app, path.join(dir, `g${round}_0.tif`))
    const [h, d] = await Promise.all([
      harvest(app, dir),
      app.inject({ method: 'DELETE', url: `${R}/m/coverages/m/index/granules?filter=${encodeURIComponent(`location LIKE '%g${round}_%'`)}&purge=all`, headers: ADMIN })
    ])
    statuses.add(h.statusCode)
    t.ok([201, 400].includes(h.statusCode), `round ${round}: harvest ${h.statusCode} ${h.statusCode === 400 ? h.body.slice(0, 80) : ''}`)
    t.equal(d.statusCode, 200, `round ${round}: delete`)
    for (const m of String(h.headers.warning ?? '').matchAll(/: ([^"]+)"/g)) reasons.add(m[1])
  }
  t.ok(statuses.has(201), 'harvests went through')
  t.ok([...reasons].every((r) => r === 'it vanished during the harvest'), `skips say why: ${[...reasons].join(' | ') || '(none this run)'}`)
})
