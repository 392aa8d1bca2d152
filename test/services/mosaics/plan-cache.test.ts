// The render plan's reads of the index are kept in memory (services/mosaics/plan-cache.ts): a
// metatile's granules are picked from the mosaic's list without asking the database again; a write
// through the service drops what was kept at once, a change made elsewhere (another node, here a row
// deleted behind the service's back) once it is announced (changedElsewhere).
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, tempDir } from '../../helper.js'
import { makeTiff, makeZip } from '../../fixtures/mosaics/make.js'
import { appRows } from '../../fixtures/catalog-rows.js'

const granule = (bbox: [number, number, number, number]) => makeTiff({ width: 20, height: 20, bbox, value: () => 100 })
const plan = (app: any, bbox: [number, number, number, number]) =>
  app.mosaics.prepareRender({ layer: 'ws:m', crs: 'EPSG:4326', bbox, width: 16, height: 16 })
const names = (job: { granules: Array<{ path: string }> }) => job.granules.map((g) => path.basename(g.path)).sort()

t.test('granules picked by box from the kept list; writes and announced changes are seen', async (t) => {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const dir = tempDir(t, 'mwzip')
  const zip = path.join(dir, 'm.zip')
  fs.writeFileSync(zip, await makeZip({ 'a.tif': granule([0, 0, 10, 10]), 'b.tif': granule([10, 0, 20, 10]) }))
  await app.mosaics.upload('ws', 'm', zip, { configure: 'first' })

  t.same(names(await plan(app, [1, 1, 9, 9])), ['a.tif'], 'inside a')
  t.same(names(await plan(app, [11, 1, 19, 9])), ['b.tif'], 'inside b')
  t.same(names(await plan(app, [5, 1, 15, 9])), ['a.tif', 'b.tif'], 'across both')
  t.same(names(await plan(app, [10, 1, 12, 9])), ['a.tif', 'b.tif'], 'a touching footprint counts, as in the index')
  t.same(names(await plan(app, [30, 30, 40, 40])), [], 'outside')

  // Deleted behind the service's back (as another node would): the kept list still draws it...
  await appRows(app, "DELETE FROM mosaic_granules WHERE workspace = 'ws' AND store = 'm' AND location = 'b.tif'")
  t.same(names(await plan(app, [5, 1, 15, 9])), ['a.tif', 'b.tif'], 'read from memory, not from the index')
  // ...until the change is announced.
  app.mosaics.changedElsewhere()
  t.same(names(await plan(app, [5, 1, 15, 9])), ['a.tif'], 'read again once announced')

  // A harvest through the service is seen by the next plan.
  fs.writeFileSync(zip, await makeZip({ 'c.tif': granule([20, 0, 30, 10]) }))
  await app.mosaics.harvestUpload('ws', 'm', zip)
  t.same(names(await plan(app, [15, 1, 25, 9])), ['c.tif'], 'a harvested granule is drawn at once')
})
