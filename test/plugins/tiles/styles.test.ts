// STYLES selects a layer style: its RasterStyle (from the styles area) renders a separate tile set.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { build, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import { GRID_SETS, rectBounds } from '../../../services/tilecache/grid-sets.js'
import { renderMosaic } from '../../../services/render/raster/render-mosaic.js'

const SLD = `<?xml version="1.0" encoding="UTF-8"?>
<sld:StyledLayerDescriptor version="1.0.0" xmlns:sld="http://www.opengis.net/sld">
  <sld:NamedLayer><sld:Name>gray</sld:Name><sld:UserStyle><sld:Name>gray-half</sld:Name>
    <sld:FeatureTypeStyle><sld:Rule><sld:RasterSymbolizer>
      <sld:Opacity>0.5</sld:Opacity>
      <sld:ChannelSelection><sld:GrayChannel><sld:SourceChannelName>2</sld:SourceChannelName></sld:GrayChannel></sld:ChannelSelection>
    </sld:RasterSymbolizer></sld:Rule></sld:FeatureTypeStyle>
  </sld:UserStyle></sld:NamedLayer>
</sld:StyledLayerDescriptor>`

t.test('a tile requested with STYLES=<layer style> is rendered with that style into its own tile set', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, [-20, -10, 20, 30], pattern) })
  let res = await app.inject({ method: 'POST', url: `${BASE}/rest/styles?name=grayhalf`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: SLD })
  t.equal(res.statusCode, 201, res.body)
  res = await app.inject({ method: 'PUT', url: `${BASE}/rest/layers/${layer}`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { layer: { styles: { style: [{ name: 'grayhalf' }] } } } })
  t.equal(res.statusCode, 200, res.body)

  const url = `${BASE}/tilecache/service/xyz/${layer}/EPSG:4326/2/4/1.png`
  const plain = await app.inject({ method: 'GET', url })
  const styled = await app.inject({ method: 'GET', url: `${url}?STYLES=grayhalf` })
  t.equal(styled.statusCode, 200)
  const style = await app.styles.rasterStyleFor('topp', 'grayhalf')
  t.match(style, { opacity: 0.5, channels: { gray: 2 } })
  const job = await app.mosaics.prepareRender({ layer, crs: 'EPSG:4326', bbox: rectBounds(GRID_SETS['EPSG:4326'], 2, [4, 1, 4, 2]), width: 256, height: 512, style })
  const img = await renderMosaic(job)
  const expected = await sharp(Buffer.from(img.rgba), { raw: { width: 256, height: 512, channels: 4 } }).extract({ left: 0, top: 0, width: 256, height: 256 }).raw().toBuffer()
  t.same(await sharp(styled.rawPayload).ensureAlpha().raw().toBuffer(), expected, 'pixels of the styled renderer')
  t.notSame(styled.rawPayload, plain.rawPayload)
  const sets = fs.readdirSync(path.join(app.config.dataDir, 'tiles/topp/world/EPSG_4326/png')).sort()
  t.equal(sets.length, 2)
  t.ok(sets.includes('default'))
  t.match(sets.find((s) => s !== 'default'), /^[0-9a-f]{40}$/, 'the styled tiles are a hashed parameter set')
})

t.test('seeding the same layer with two STYLES values fills two different tile sets', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, [-20, -10, 20, 30], pattern) })
  const other = SLD.replace('gray-half', 'blue-gray').replace('<sld:Opacity>0.5</sld:Opacity>', '').replace('<sld:SourceChannelName>2<', '<sld:SourceChannelName>3<')
  for (const [name, body] of [['grayhalf', SLD], ['bluegray', other]]) {
    const res = await app.inject({ method: 'POST', url: `${BASE}/rest/styles?name=${name}`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: body })
    t.equal(res.statusCode, 201, res.body)
  }
  let res = await app.inject({ method: 'PUT', url: `${BASE}/rest/layers/${layer}`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { layer: { styles: { style: [{ name: 'grayhalf' }, { name: 'bluegray' }] } } } })
  t.equal(res.statusCode, 200, res.body)
  for (const style of ['grayhalf', 'bluegray']) {
    res = await app.inject({
      method: 'POST',
      url: `${BASE}/gwc/rest/seed/${layer}.json`,
      headers: { ...ADMIN, 'content-type': 'application/json' },
      payload: { seedRequest: { gridSetId: 'EPSG:4326', format: 'image/png', type: 'seed', threadCount: 1, zoomStart: 0, zoomStop: 2, parameters: { entry: [{ string: ['STYLES', style] }] } } }
    })
    t.equal(res.statusCode, 200, res.body)
  }
  await app.tileCache.breeder.idle()
  const root = path.join(app.config.dataDir, 'tiles/topp/world/EPSG_4326/png')
  const sets = fs.readdirSync(root).sort()
  t.equal(sets.length, 2, 'one tile set per style')
  t.ok(sets.every((s) => /^[0-9a-f]{40}$/.test(s)), 'both are hashed parameter sets')
  const tile = (set: string) => fs.readFileSync(path.join(root, set, '2/4/1.png'))
  const [a, b] = await Promise.all(sets.map(async (s) => sharp(tile(s)).ensureAlpha().raw().toBuffer()))
  t.equal(fs.readdirSync(path.join(root, sets[0]), { recursive: true }).filter((f) => String(f).endsWith('.png')).length,
    fs.readdirSync(path.join(root, sets[1]), { recursive: true }).filter((f) => String(f).endsWith('.png')).length, 'the same tiles in each')
  t.notSame(a, b, 'the two styles give different pixels')
})
