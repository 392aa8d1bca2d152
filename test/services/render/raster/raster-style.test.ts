import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { fromArrayBuffer, writeArrayBuffer } from 'geotiff'
import { applyRasterStyle, defaultRendering } from '../../../../services/render/raster/raster-style.js'
import type { BandData, RasterStyle } from '../../../../services/render/render-types.js'
import { parseSld, rasterStyleOf } from '../../../../services/styles/sld.js'

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', '..', 'test', 'fixtures', 'styles')
const fixture = (name: string) => fs.readFileSync(path.join(fixtures, name), 'utf8')
const px = (rgba: Uint8Array, i: number) => Array.from(rgba.subarray(i * 4, i * 4 + 4))

/** A single-band Int16 elevation granule written as a real GeoTIFF and read back, as the renderer reads granules. */
async function elevationGranule (): Promise<BandData> {
  const NODATA = -32768
  const values = new Int16Array([-100, 0, 250, 500, 750, 1000, 2000, NODATA])
  // geotiff.js writes 16-bit samples from a Uint16Array; SampleFormat 2 makes them signed.
  const tiff = await writeArrayBuffer(new Uint16Array(values.buffer), {
    width: 4, height: 2, BitsPerSample: [16], SampleFormat: [2], SamplesPerPixel: 1, GDAL_NODATA: String(NODATA),
    ModelPixelScale: [0.25, 0.25, 0], ModelTiepoint: [0, 0, 0, 10, 46, 0], GeographicTypeGeoKey: 4326
  })
  const image = await (await fromArrayBuffer(tiff)).getImage()
  const [band] = await image.readRasters() as unknown as Int16Array[]
  const nodata = image.getGDALNoData()
  const valid = Uint8Array.from(band, (v) => (v === nodata ? 0 : 1))
  return { width: 4, height: 2, bands: [Float32Array.from(band)], valid, ranges: [{ min: -32767, max: 32767 }] }
}

t.test('a three-stop ColorMap ramp colours a single-band Int16 elevation granule at known pixels', async (t) => {
  const style = rasterStyleOf(await parseSld(fixture('dem.sld')))
  const rgba = applyRasterStyle(await elevationGranule(), style)
  t.same(px(rgba, 0), [0, 0, 255, 255], '-100 m, below the first stop: first colour')
  t.same(px(rgba, 1), [0, 0, 255, 255], '0 m: blue')
  t.same(px(rgba, 2), [0, 128, 128, 255], '250 m: halfway blue to green')
  t.same(px(rgba, 3), [0, 255, 0, 255], '500 m: green')
  t.same(px(rgba, 4), [128, 128, 0, 191], '750 m: halfway green to red, opacity halfway 1 to 0.5')
  t.same(px(rgba, 5), [255, 0, 0, 128], '1000 m: red at opacity 0.5')
  t.same(px(rgba, 6), [255, 0, 0, 128], '2000 m, past the last stop: last colour')
  t.same(px(rgba, 7), [0, 0, 0, 0], 'nodata is transparent')
})

const band = (values: number[], range = { min: 0, max: 255 }, extra: number[][] = []): BandData => ({
  width: values.length,
  height: 1,
  bands: [Float32Array.from(values), ...extra.map((b) => Float32Array.from(b))],
  valid: new Uint8Array(values.length).fill(1),
  ranges: [range, ...extra.map(() => range)]
})

t.test('ColorMap intervals paint a value with the first entry above it and nothing past the last', async (t) => {
  const style: RasterStyle = { colorMap: { type: 'intervals', entries: [{ quantity: 10, color: [1, 1, 1], opacity: 1 }, { quantity: 20, color: [2, 2, 2], opacity: 0.5 }] } }
  const rgba = applyRasterStyle(band([5, 10, 19.9, 20, 25]), style)
  t.same([0, 1, 2, 3, 4].map((i) => px(rgba, i)), [[1, 1, 1, 255], [2, 2, 2, 128], [2, 2, 2, 128], [0, 0, 0, 0], [0, 0, 0, 0]])
})

t.test('ColorMap values paint exact matches only', async (t) => {
  const style: RasterStyle = { colorMap: { type: 'values', entries: [{ quantity: 1, color: [9, 8, 7], opacity: 1 }, { quantity: 3, color: [1, 2, 3], opacity: 1 }] } }
  const rgba = applyRasterStyle(band([1, 2, 3]), style)
  t.same([0, 1, 2].map((i) => px(rgba, i)), [[9, 8, 7, 255], [0, 0, 0, 0], [1, 2, 3, 255]])
})

t.test('SE 1.1 Categorize compiles to intervals with an open last class', async (t) => {
  const style = rasterStyleOf(await parseSld(fixture('classes-se.sld')))
  const rgba = applyRasterStyle(band([5, 15, 100]), style)
  t.same([0, 1, 2].map((i) => px(rgba, i)), [[0, 255, 0, 255], [255, 255, 0, 255], [255, 0, 0, 255]])
})

t.test('gray channel selection, Normalize, GammaValue and Opacity', async (t) => {
  const style = rasterStyleOf(await parseSld(fixture('gray-gamma.sld')))
  t.same(style, { opacity: 0.5, channels: { gray: 2 }, contrast: { method: 'normalize', gamma: 2 } })
  // band 2 over 0..1000: 250 -> 0.25, gamma 2 brightens to sqrt(0.25) = 0.5 -> 128; opacity halves alpha
  const data = band([7, 7, 7], { min: 0, max: 1000 }, [[0, 250, 1000]])
  const rgba = applyRasterStyle(data, style)
  t.same([0, 1, 2].map((i) => px(rgba, i)), [[0, 0, 0, 128], [128, 128, 128, 128], [255, 255, 255, 128]])
})

t.test('RGB channel selection picks and orders bands', async (t) => {
  const data = band([10], { min: 0, max: 255 }, [[20], [30]])
  const rgba = applyRasterStyle(data, { channels: { red: 3, green: 1, blue: 2 } })
  t.same(px(rgba, 0), [30, 10, 20, 255])
})

t.test('no style, or a style without a RasterSymbolizer, is the default rendering', async (t) => {
  const data = band([0, 128, 255], { min: 0, max: 255 })
  t.same(applyRasterStyle(data, undefined), defaultRendering(data))
  t.equal(rasterStyleOf(await parseSld(fixture('rain.sld'))), undefined)
})

t.test('two styles of one layer render the same granule differently (what two STYLES values seed)', async (t) => {
  const granule = await elevationGranule()
  const ramp = applyRasterStyle(granule, rasterStyleOf(await parseSld(fixture('dem.sld'))))
  const gray = applyRasterStyle(granule, rasterStyleOf(await parseSld(fixture('gray-gamma.sld'))))
  t.not(Buffer.from(ramp).toString('hex'), Buffer.from(gray).toString('hex'))
  t.same(px(gray, 3), [182, 182, 182, 128], 'gray-gamma: band 2 is clamped to the only band; 500 m normalised over the Int16 range is 0.508, gamma 2 makes 0.712, opacity 0.5')
})
