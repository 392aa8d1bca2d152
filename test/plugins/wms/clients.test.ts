// Real WMS clients against a listening server: OWSLib (Debian's python3-owslib, what QGIS plugins
// and scripts use) reads both capabilities versions and fetches maps; GDAL's WMS driver (gdal-bin)
// reads a map block by block, and its pixels are those of a direct render of the mosaic, so they
// land where the granules are. Both are installed by scripts/install-wms-tools.sh and
// install-gdal.sh (npm's pretest).
import t from 'tap'
import { execFile, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import sharp from 'sharp'
import { build, BASE, tempDir } from '../../helper.js'
import { renderMosaic } from '../../../services/render/raster/render-mosaic.js'
import { pixels, timeMosaic, wmsUrl, worldMosaic } from './helpers.js'

const run = promisify(execFile)

const OWSLIB = `
import json, sys
from owslib.wms import WebMapService
url, out = sys.argv[1], sys.argv[2]
doc = {}
for v in ['1.1.1', '1.3.0']:
    wms = WebMapService(url, version=v)
    temp = wms['ws:temp']
    doc[v] = {
        'title': wms.identification.title,
        'layers': sorted(wms.contents),
        'bbox': list(temp.boundingBoxWGS84),
        'crs': sorted(temp.crsOptions),
        'styles': sorted(temp.styles),
        'time': temp.timepositions,
        'elevation': temp.elevations,
        'formats': wms.getOperationByName('GetMap').formatOptions,
        'queryable': temp.queryable,
    }
    img = wms.getmap(layers=['topp:world'], styles=[''], srs='EPSG:4326', bbox=(-20, -10, 20, 30), size=(80, 80), format='image/png', transparent=True)
    open(out + '/owslib-' + v + '.png', 'wb').write(img.read())
print(json.dumps(doc))
`

async function listen (app: Awaited<ReturnType<typeof build>>): Promise<string> {
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve))
  const { port } = app.server.address() as { port: number }
  return `http://127.0.0.1:${port}${BASE}/wms`
}

const missing = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status !== 0

t.test('OWSLib reads the capabilities of both versions and fetches maps', async (t) => {
  if (missing('/usr/bin/python3', ['-c', 'import owslib'])) return t.fail('OWSLib is missing: run scripts/install-wms-tools.sh')
  const app = await build(t)
  await worldMosaic(app)
  await timeMosaic(app)
  const url = await listen(app)
  const dir = tempDir(t, 'owslib')
  const { stdout } = await run('/usr/bin/python3', ['-c', OWSLIB, url, dir], { timeout: 120_000 })
  const doc = JSON.parse(stdout)
  const direct = await app.inject({ method: 'GET', url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.1.1', LAYERS: 'topp:world', STYLES: '', SRS: 'EPSG:4326', BBOX: '-20,-10,20,30', WIDTH: 80, HEIGHT: 80, FORMAT: 'image/png', TRANSPARENT: 'TRUE' }) })
  const expected = (await pixels(direct.rawPayload)).data
  for (const v of ['1.1.1', '1.3.0']) {
    const d = doc[v]
    t.equal(d.title, 'mapwarden Web Map Service', `${v}: title`)
    t.same(d.layers, ['topp:world', 'ws:temp'], `${v}: layers`)
    t.same(d.bbox.slice(0, 4), [0, 0, 10, 10], `${v}: WGS84 box`)
    t.ok(d.crs.includes('EPSG:4326') && d.crs.includes('EPSG:3857'), `${v}: CRSs ${d.crs}`)
    t.same(d.styles, ['raster'], `${v}: styles`)
    t.same(d.time, ['2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z'], `${v}: time positions`)
    t.same(d.elevation, ['0', '100'], `${v}: elevations`)
    t.ok(d.formats.includes('image/png8'), `${v}: GetMap formats`)
    t.equal(d.queryable, 1, `${v}: queryable`)
    const png = fs.readFileSync(path.join(dir, `owslib-${v}.png`))
    t.same((await pixels(png)).data, expected, `${v}: OWSLib's map is our map of that area`)
  }
})

t.test('GDAL\'s WMS driver reads a map, block by block, with the pixels of a direct render', async (t) => {
  if (missing('gdal_translate', ['--version'])) return t.fail('gdal_translate is missing: run scripts/install-gdal.sh')
  const app = await build(t)
  const layer = await worldMosaic(app)
  const url = await listen(app)
  const dir = tempDir(t, 'gdal-wms')
  // A window of 160x160 pixels over lon -20..20, lat -10..30, read in 64-pixel blocks.
  const window = [-20.05, 30.05, 19.95, -9.95]
  for (const [version, crsTag] of [['1.1.1', 'SRS'], ['1.3.0', 'CRS']]) {
    const xml = path.join(dir, `world-${version}.xml`)
    // GDAL sends BBOX as x,y unless told: for 1.3.0's EPSG:4326 its documented BBoxOrder yxYX.
    const order = version === '1.3.0' ? '<BBoxOrder>yxYX</BBoxOrder>' : ''
    fs.writeFileSync(xml, `<GDAL_WMS>
  <Service name="WMS"><Version>${version}</Version><ServerUrl>${url}?</ServerUrl><${crsTag}>EPSG:4326</${crsTag}>
    <ImageFormat>image/png</ImageFormat><Transparent>TRUE</Transparent><Layers>${layer}</Layers>${order}</Service>
  <DataWindow><UpperLeftX>${window[0]}</UpperLeftX><UpperLeftY>${window[1]}</UpperLeftY><LowerRightX>${window[2]}</LowerRightX><LowerRightY>${window[3]}</LowerRightY>
    <SizeX>160</SizeX><SizeY>160</SizeY></DataWindow>
  <BlockSizeX>64</BlockSizeX><BlockSizeY>64</BlockSizeY><BandsCount>4</BandsCount>
</GDAL_WMS>`)
    const out = path.join(dir, `world-${version}.png`)
    await run('gdal_translate', ['-q', '-of', 'PNG', xml, out], { timeout: 120_000, env: { ...process.env, GDAL_HTTP_TIMEOUT: '60' } })
    const got = await pixels(fs.readFileSync(out))
    t.same([got.width, got.height], [160, 160])
    const job = await app.mosaics.prepareRender({ layer, crs: 'EPSG:4326', bbox: [window[0], window[3], window[2], window[1]], width: 160, height: 160 })
    const direct = await renderMosaic(job)
    const expected = await sharp(Buffer.from(direct.rgba), { raw: { width: 160, height: 160, channels: 4 } }).raw().toBuffer()
    let same = 0
    for (let i = 0; i < expected.length; i += 4) if (expected.readUInt32BE(i) === got.data.readUInt32BE(i)) same++
    t.ok(same >= 160 * 160 * 0.995, `WMS ${version}: ${same} of ${160 * 160} pixels as the direct render`)
  }
})
