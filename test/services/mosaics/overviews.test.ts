import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { Piscina } from 'piscina'
import { build, tempDir } from '../../helper.js'
import { makeZip } from '../../fixtures/mosaics/make.js'
import { makeTiledTiff } from '../../fixtures/mosaics/tiled-tiff.js'
import { renderMosaic, closeRenderCache } from '../../../services/render/raster/render-mosaic.js'

t.teardown(closeRenderCache)

// Full resolution carries a position code; each overview a constant, so the grey level says
// which level was read.
const code = (x: number, y: number) => ((x >> 3) + (y >> 3) * 7) % 200
const TIFF = makeTiledTiff({
  bbox: [0, 0, 8, 8],
  deflate: true,
  levels: [
    { width: 512, height: 512, value: code },
    { width: 256, height: 256, value: () => 220 },
    { width: 128, height: 128, value: () => 240 }
  ]
})

async function mosaic (t: any) {
  const app = await build(t)
  await app.workspaces.create({ name: 'ws' })
  const zip = path.join(tempDir(t, 'mwzip'), 'm.zip')
  fs.writeFileSync(zip, await makeZip({ 'ovr.tif': TIFF }))
  await app.mosaics.upload('ws', 'ovr', zip, { configure: 'all' })
  return app
}

t.test('the renderer reads the coarsest overview that still has the resolution asked for', async (t) => {
  const app = await mosaic(t)
  const render = async (size: number, bbox: [number, number, number, number] = [0, 0, 8, 8]) =>
    renderMosaic(await app.mosaics.prepareRender({ layer: 'ws:ovr', crs: 'EPSG:4326', bbox, width: size, height: size }))
  t.equal((await render(512)).rgba[0], code(0, 0), '512 px: full resolution')
  t.equal((await render(256)).rgba[0], 220, '256 px: first overview')
  t.equal((await render(200)).rgba[0], 220, '200 px: the first overview, the second would be too coarse')
  t.equal((await render(128)).rgba[0], 240, '128 px: second overview')
  t.equal((await render(64)).rgba[0], 240, 'smaller: the coarsest there is')
})

t.test('windowed reads across DEFLATE tiles sample the right pixels', async (t) => {
  const app = await mosaic(t)
  // Pixels 100..299 of the full-resolution image (1/64 degree each), 200 x 200 output.
  const bbox: [number, number, number, number] = [100 / 64, 8 - 300 / 64, 300 / 64, 8 - 100 / 64]
  const img = await renderMosaic(await app.mosaics.prepareRender({ layer: 'ws:ovr', crs: 'EPSG:4326', bbox, width: 200, height: 200 }))
  for (const [x, y] of [[0, 0], [27, 63], [28, 64], [150, 12], [199, 199]]) {
    t.equal(img.rgba[(y * 200 + x) * 4], code(100 + x, 100 + y), `pixel ${x},${y}`)
  }
})

t.test('renderMosaic runs in a Piscina worker thread and gives the same pixels', async (t) => {
  const app = await mosaic(t)
  const job = await app.mosaics.prepareRender({ layer: 'ws:ovr', crs: 'EPSG:900913', bbox: [0, 0, 890555.9263461898, 893463.7570718392], width: 64, height: 64 })
  const pool = new Piscina({ filename: new URL('../../../services/render/raster/render-mosaic.js', import.meta.url).href, maxThreads: 1, minThreads: 1 })
  t.teardown(() => pool.destroy())
  const fromWorker = await pool.run(job, { name: 'renderMosaic' })
  const inline = await renderMosaic(job)
  t.equal(fromWorker.width, 64)
  t.same(Buffer.from(fromWorker.rgba), Buffer.from(inline.rgba))
  t.ok(inline.rgba.some((v: number) => v !== 0))
})
