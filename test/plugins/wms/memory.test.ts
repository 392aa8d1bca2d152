// Bounded memory: a GetMap of 4096x4096 (the default MAPWARDEN_WMS_MAX_SIZE) is rendered in strips
// on the render pool; the process's peak resident set (VmHWM, which the render threads share) grows
// by the map's own pixels and little more, well inside the seeding budget of 400 MB (README,
// Performance) over a server's ~170 MB at rest.
import t from 'tap'
import fs from 'node:fs'
import { build } from '../../helper.js'
import { pixels, wmsUrl, worldMosaic } from './helpers.js'

const peakMiB = () => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1]) / 1024

t.test('a 4096x4096 GetMap stays within the seeding memory budget', { skip: process.platform !== 'linux' && 'VmHWM is Linux only' }, async (t) => {
  const app = await build(t)
  const layer = await worldMosaic(app)
  // A small map first, so the render threads are up before the budget is measured.
  await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.1.1', LAYERS: layer, STYLES: '', SRS: 'EPSG:3857', BBOX: '-2500000,-1500000,2500000,3500000', WIDTH: 64, HEIGHT: 64, FORMAT: 'image/png' }) })
  const before = peakMiB()
  const res = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.1.1', LAYERS: layer, STYLES: '', SRS: 'EPSG:3857', BBOX: '-2500000,-1500000,2500000,3500000', WIDTH: 4096, HEIGHT: 4096, FORMAT: 'image/png', TRANSPARENT: 'true' }) })
  t.equal(res.statusCode, 200)
  const grown = peakMiB() - before
  const p = await pixels(res.rawPayload)
  t.same([p.width, p.height], [4096, 4096])
  // The map's own RGBA (64 MiB) plus one strip and the encoder's buffers; rendered whole, the
  // renderer's band, mask and style arrays alone would add some 200 MiB more.
  t.ok(grown < 140, `the peak resident set grew by ${Math.round(grown)} MiB (< 140 MiB) from ${Math.round(before)} MiB`)
})
