// The renderer's libvips read path (plain 8-bit TIFFs) against its geotiff.js path: the same
// nearest-neighbour samples, byte for byte, in both grid sets' CRSs, with nodata and across
// granule edges, enlarged (target rows copied from the row above when they sample the same source
// row); and the byte-band styling against the float one.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { tempDir } from '../../../helper.js'
import { makeTiledTiff } from '../../../fixtures/mosaics/tiled-tiff.js'
import { makeTiff } from '../../../fixtures/mosaics/make.js'
import { renderMosaic, closeRenderCache } from '../../../../services/render/raster/render-mosaic.js'
import { useLibvips } from '../../../../services/render/raster/vips-window.js'
import { applyRasterStyle } from '../../../../services/render/raster/raster-style.js'
import { lonToX, latToY } from '../../../../services/render/crs.js'
import type { GranuleRef, RenderJob } from '../../../../services/render/raster/mosaic-types.js'

t.teardown(async () => { useLibvips(true); await closeRenderCache() })

// Three bands, each a different function of the position: a sample says where it came from.
const value = (x: number, y: number, b: number) => (x * (b + 1) + y * 3 + b * 50) % 256

function granules (dir: string): GranuleRef[] {
  const west = path.join(dir, 'west.tif')
  const east = path.join(dir, 'east.tif')
  // Tiled DEFLATE with the predictor (libvips path), and a striped uncompressed one with nodata.
  fs.writeFileSync(west, makeTiledTiff({ bbox: [0, 40, 10, 50], bands: 3, tile: 64, deflate: true, levels: [{ width: 300, height: 300, value }] }))
  fs.writeFileSync(east, makeTiff({ width: 250, height: 250, bbox: [10, 40, 20, 50], bands: 3, nodata: 7, value: (x, y, b) => (x + y) % 13 === 0 ? 7 : value(x, y, b) }))
  return [
    { path: west, crs: 'EPSG:4326', bbox: [0, 40, 10, 50], width: 300, height: 300, bands: 3, nodata: null },
    { path: east, crs: 'EPSG:4326', bbox: [10, 40, 20, 50], width: 250, height: 250, bands: 3, nodata: 7 }
  ]
}

const ranges = [0, 1, 2].map(() => ({ min: 0, max: 255 }))
async function both (job: RenderJob) {
  useLibvips(true)
  const vips = await renderMosaic(job)
  useLibvips(false)
  await closeRenderCache()
  const reference = await renderMosaic(job)
  useLibvips(true)
  return { vips: Buffer.from(vips.rgba), reference: Buffer.from(reference.rgba) }
}

t.test('libvips reads give the same pixels as geotiff.js, EPSG:4326 and EPSG:900913', async (t) => {
  const g = granules(tempDir(t, 'mwvips'))
  const jobs: RenderJob[] = [
    { crs: 'EPSG:4326', bbox: [-1, 39, 21, 51], width: 700, height: 380, granules: g, bands: 3, ranges },
    { crs: 'EPSG:4326', bbox: [9.3, 44.1, 10.9, 45.3], width: 256, height: 256, granules: g, bands: 3, ranges },
    { crs: 'EPSG:900913', bbox: [lonToX(2), latToY(41), lonToX(18), latToY(49.5)], width: 512, height: 400, granules: g, bands: 3, ranges }
  ]
  for (const job of jobs) {
    const { vips, reference } = await both(job)
    t.ok(vips.equals(reference), `${job.crs} ${job.bbox.join(',')}`)
    let opaque = 0
    for (let i = 3; i < vips.length; i += 4) if (vips[i] === 255) opaque++
    t.ok(opaque > 0 && opaque < vips.length / 4, 'some pixels drawn, some left transparent')
  }
  // A granule big enough to be decimated for coarse renders (overviews.ts): its decimated copy
  // decoded by libvips holds the same pixels as geotiff.js's; so does a render in several windows.
  const big = path.join(tempDir(t, 'mwvips'), 'big.tif')
  fs.writeFileSync(big, makeTiledTiff({ bbox: [0, 40, 10, 50], bands: 3, tile: 256, deflate: true, levels: [{ width: 2050, height: 2050, value }] }))
  const bigRef: GranuleRef = { path: big, crs: 'EPSG:4326', bbox: [0, 40, 10, 50], width: 2050, height: 2050, bands: 3, nodata: null }
  for (const job of [
    { crs: 'EPSG:4326', bbox: [-1, 39, 11, 51], width: 300, height: 290, granules: [bigRef], bands: 3, ranges },
    { crs: 'EPSG:900913', bbox: [lonToX(1), latToY(41), lonToX(9), latToY(49)], width: 200, height: 260, granules: [bigRef], bands: 3, ranges },
    // Full resolution, more rows than one libvips window holds (vips-window.ts): several windows.
    { crs: 'EPSG:4326', bbox: [0.5, 40.2, 9.5, 49.9], width: 1845, height: 1990, granules: [bigRef], bands: 3, ranges }
  ] as RenderJob[]) {
    await closeRenderCache()
    const { vips, reference } = await both(job)
    t.ok(vips.equals(reference), `coarse or large: ${job.crs} ${job.bbox.join(',')}`)
  }
  // One known sample: the centre of the west granule's pixel (10, 20).
  const one = await renderMosaic({ crs: 'EPSG:4326', bbox: [10 / 30, 50 - 21 / 30, 11 / 30, 50 - 20 / 30], width: 1, height: 1, granules: g, bands: 3, ranges })
  t.same([...one.rgba], [value(10, 20, 0), value(10, 20, 1), value(10, 20, 2), 255])
})

t.test('byte bands are styled as float bands', async (t) => {
  const n = 256
  const bytes = [0, 1, 2].map((b) => Uint8Array.from({ length: n }, (_, i) => (i * (b + 3)) % 256))
  const valid = Uint8Array.from({ length: n }, (_, i) => (i % 5 === 0 ? 0 : 1))
  const data = (bands: Array<Uint8Array | Float32Array>) => ({ width: 16, height: 16, bands, valid, ranges: [{ min: 10, max: 200 }, { min: 0, max: 255 }, { min: 0, max: 255 }] })
  const styles = [
    undefined,
    { contrast: { method: 'normalize' as const, gamma: 0.7 }, opacity: 0.5 },
    { channels: { gray: 2 } },
    { colorMap: { type: 'ramp' as const, entries: [{ quantity: 20, color: [0, 0, 255] as [number, number, number], opacity: 1 }, { quantity: 180, color: [255, 0, 0] as [number, number, number], opacity: 0.5 }] } },
    { colorMap: { type: 'intervals' as const, entries: [{ quantity: 100, color: [0, 255, 0] as [number, number, number], opacity: 1 }] }, contrast: { method: 'normalize' as const } }
  ]
  for (const style of styles) {
    const fromBytes = applyRasterStyle(data(bytes), style)
    const fromFloats = applyRasterStyle(data(bytes.map((b) => Float32Array.from(b))), style)
    t.same(Buffer.from(fromBytes), Buffer.from(fromFloats), JSON.stringify(style))
  }
})
