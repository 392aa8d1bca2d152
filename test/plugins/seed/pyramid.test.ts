// Seeding as a pyramid (issue 21): a seed of several levels of a whole layer with a linear style
// renders its deepest level from the granules and builds each level above from the four tiles under
// each tile (2x2 average, alpha-weighted), as gdal2tiles does. The result is close to rendering
// every level directly: per grid set, on smooth imagery, the mean difference of the colour channels
// over the pixels both draw is at most 1 level (of 255) and no channel differs by more than 8 (the
// direct render samples the nearest source pixel, the pyramid averages four); the deepest level
// is byte for byte the same. Seeds it does not fit (a colour map, bounds, parameter filters) render
// every level directly.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import type { FastifyInstance } from 'fastify'
import { build, ADMIN, BASE } from '../../helper.js'
import { createMosaic, rgbTiff } from '../../fixtures/seed/mosaic.js'

const JSON_TYPE = { ...ADMIN, 'content-type': 'application/json' }
/** A smooth image, as imagery is at the scale of a pixel: gradients in two directions. */
const smooth = (x: number, y: number, b: number) => b === 0 ? Math.round(x * 255 / 199) : b === 1 ? Math.round(y * 255 / 199) : Math.round((x + y) * 255 / 398)
const MEAN_TOLERANCE = 1
const MAX_TOLERANCE = 8

async function seed (app: FastifyInstance, layer: string, seedRequest: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSON_TYPE, payload: { seedRequest: { format: 'image/png', type: 'seed', threadCount: 2, ...seedRequest } } })
  if (res.statusCode !== 200) throw new Error(res.body)
  await app.tileCache.breeder.idle()
}

function tiles (app: FastifyInstance, layer: string, grid: string): Map<string, string> {
  const [ws, name] = layer.split(':')
  const dir = path.join(app.config.dataDir, 'tiles', ws, name, grid.replace(':', '_'), 'png', 'default')
  return new Map(fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith('.png')).sort().map((f) => [f, path.join(dir, f)]))
}

async function compare (t: Test, a: Map<string, string>, b: Map<string, string>, zoomStop: number) {
  t.same([...a.keys()], [...b.keys()], 'the same tiles')
  let sum = 0; let n = 0; let max = 0; let differing = 0
  for (const [name, fileA] of a) {
    const z = Number(name.split('/')[0])
    const [pa, pb] = [fs.readFileSync(fileA), fs.readFileSync(b.get(name)!)]
    if (z === zoomStop) { t.same(pa, pb, `${name}: the deepest level is rendered in both`); continue }
    if (!pa.equals(pb)) differing++
    const [ra, rb] = await Promise.all([pa, pb].map((p) => sharp(p).ensureAlpha().raw().toBuffer()))
    for (let i = 0; i < ra.length; i += 4) {
      if (ra[i + 3] === 0 || rb[i + 3] === 0) continue
      for (let c = 0; c < 3; c++) { const d = Math.abs(ra[i + c] - rb[i + c]); sum += d; n++; if (d > max) max = d }
    }
  }
  return { mean: sum / n, max, differing }
}

for (const grid of ['EPSG:4326', 'EPSG:900913']) {
  t.test(`${grid}: a seed of levels 0-6 built as a pyramid is close to every level rendered directly`, async (t) => {
    const pyramid = await build(t, { seedPyramid: true })
    const direct = await build(t)
    const granule = { 'smooth.tif': rgbTiff(200, 200, [-20, -10, 20, 30], smooth) }
    const a = await createMosaic(pyramid, 'topo', 'm', granule)
    await createMosaic(direct, 'topo', 'm', granule)
    await seed(pyramid, a, { gridSetId: grid, zoomStart: 0, zoomStop: 6 })
    await seed(direct, a, { gridSetId: grid, zoomStart: 0, zoomStop: 6 })
    const { mean, max, differing } = await compare(t, tiles(pyramid, a, grid), tiles(direct, a, grid), 6)
    t.ok(differing > 0, `${differing} tiles above the deepest level were built from their children`)
    t.ok(mean <= MEAN_TOLERANCE, `mean difference ${mean.toFixed(2)} <= ${MEAN_TOLERANCE}`)
    t.ok(max <= MAX_TOLERANCE, `largest difference ${max} <= ${MAX_TOLERANCE}`)
  })
}

t.test('seeds a pyramid does not fit are rendered directly: a colour map, bounds', async (t) => {
  const pyramid = await build(t, { seedPyramid: true })
  const direct = await build(t)
  const sld = `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld"><NamedLayer><Name>ramp</Name><UserStyle><Name>ramp</Name>
<FeatureTypeStyle><Rule><RasterSymbolizer><ChannelSelection><GrayChannel><SourceChannelName>1</SourceChannelName></GrayChannel></ChannelSelection>
<ColorMap><ColorMapEntry color="#0000ff" quantity="0"/><ColorMapEntry color="#ff0000" quantity="255"/></ColorMap></RasterSymbolizer></Rule></FeatureTypeStyle>
</UserStyle></NamedLayer></StyledLayerDescriptor>`
  for (const app of [pyramid, direct]) {
    const layer = await createMosaic(app, 'topo', 'm', { 'smooth.tif': rgbTiff(200, 200, [-20, -10, 20, 30], smooth) })
    let res = await app.inject({ method: 'POST', url: `${BASE}/rest/styles?name=ramp`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: sld })
    t.equal(res.statusCode, 201)
    res = await app.inject({ method: 'PUT', url: `${BASE}/rest/layers/${layer}`, headers: JSON_TYPE, payload: { layer: { defaultStyle: { name: 'ramp' } } } })
    t.equal(res.statusCode, 200)
    await seed(app, layer, { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 4 })
    await createMosaic(app, 'topo', 'b', { 'smooth.tif': rgbTiff(200, 200, [-20, -10, 20, 30], smooth) })
    await seed(app, 'topo:b', { gridSetId: 'EPSG:4326', zoomStart: 0, zoomStop: 4, bounds: { coords: { double: [-20, -10, 20, 30] } } })
  }
  for (const layer of ['topo:m', 'topo:b']) {
    const [a, b] = [tiles(pyramid, layer, 'EPSG:4326'), tiles(direct, layer, 'EPSG:4326')]
    t.same([...a.keys()], [...b.keys()])
    for (const [name, file] of a) t.same(fs.readFileSync(file), fs.readFileSync(b.get(name)!), `${layer} ${name}: rendered directly`)
  }
})
