// A standard client reads the WMTS capabilities: OpenLayers' WMTS tile grid, built from the
// TileMatrixSet we publish, addresses the same tiles (extent and pixels) as our grid sets.
import t from 'tap'
import { createFromCapabilitiesMatrixSet } from 'ol/tilegrid/WMTS.js'
import { fromLonLat } from 'ol/proj.js'
import { build, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'
import { parseXml } from '../../../services/files/xml.js'
import { GRID_SETS, closestRectangle, rectBounds, tilesHigh } from '../../../services/tilecache/grid-sets.js'

const SERVICE = `${BASE}/gwc/service`
const arr = <T>(v: T | T[]) => Array.isArray(v) ? v : [v]

t.test('WMTS capabilities (anonymous) drive an OpenLayers tile grid to the tiles we serve', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(80, 80, [-20, -10, 20, 30], pattern) })
  const res = await app.inject({ method: 'GET', url: `${SERVICE}/wmts?service=WMTS&request=GetCapabilities` })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/vnd.ogc.wmts+xml; charset=utf-8')
  const caps = (await parseXml(res.body)).Capabilities as any
  const l = arr(caps.Contents.Layer)[0]
  t.equal(l['ows:Identifier'], layer)
  t.same(arr(l.Format), ['image/png', 'image/png8', 'image/jpeg', 'image/webp', 'image/vnd.jpeg-png'])
  t.equal(l.Style.$.isDefault, 'true')
  t.equal(l.Style['ows:Identifier'], 'raster')
  const template: string = arr(l.ResourceURL).find((r: any) => r.$.format === 'image/png').$.template
  t.equal(template, `http://localhost:80${SERVICE}/wmts/rest/topp%3Aworld/{style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}?format=image/png`)
  const limits = arr(l.TileMatrixSetLink).find((s: any) => s.TileMatrixSet === 'EPSG:4326').TileMatrixSetLimits.TileMatrixLimits
  t.same(arr(limits)[3], { TileMatrix: 'EPSG:4326:3', MinTileRow: '2', MaxTileRow: '4', MinTileCol: '7', MaxTileCol: '8' })

  for (const [id, point] of [['EPSG:900913', fromLonLat([5, 15])], ['EPSG:4326', [5, 15]]] as const) {
    const set = arr(caps.Contents.TileMatrixSet).find((s: any) => s['ows:Identifier'] === id)
    const matrixSet = {
      Identifier: set['ows:Identifier'],
      SupportedCRS: set['ows:SupportedCRS'],
      TileMatrix: arr(set.TileMatrix).map((m: any) => ({
        Identifier: m['ows:Identifier'],
        ScaleDenominator: Number(m.ScaleDenominator),
        TopLeftCorner: m.TopLeftCorner.split(' ').map(Number),
        TileWidth: Number(m.TileWidth),
        TileHeight: Number(m.TileHeight),
        MatrixWidth: Number(m.MatrixWidth),
        MatrixHeight: Number(m.MatrixHeight)
      }))
    }
    const grid = createFromCapabilitiesMatrixSet(matrixSet as any)
    const gs = GRID_SETS[id]
    const z = 4
    const [, col, row] = grid.getTileCoordForCoordAndZ(point as number[], z)
    const ours = closestRectangle(gs, z, [point[0], point[1], point[0], point[1]])
    t.equal(col, ours[0], `${id} column`)
    t.equal(row, tilesHigh(gs, z) - 1 - ours[1], `${id} row counted from the top`)
    const olExtent = grid.getTileCoordExtent([z, col, row])
    const ourExtent = rectBounds(gs, z, [ours[0], ours[1], ours[0], ours[1]])
    for (let i = 0; i < 4; i++) t.ok(Math.abs(olExtent[i] - ourExtent[i]) < 1e-6 * Math.max(1, Math.abs(ourExtent[i])), `${id} extent ${i}`)
    const url = template.replace('http://localhost:80', '').replace('{style}', 'raster').replace('{TileMatrixSet}', id)
      .replace('{TileMatrix}', grid.getMatrixId(z)).replace('{TileRow}', String(row)).replace('{TileCol}', String(col))
    const viaWmts = await app.inject({ method: 'GET', url })
    t.equal(viaWmts.statusCode, 200, url)
    const viaXyz = await app.inject({ method: 'GET', url: `${SERVICE}/xyz/${layer}/${id}/${z}/${col}/${row}.png` })
    t.same(viaWmts.rawPayload, viaXyz.rawPayload, `${id}: the WMTS tile OpenLayers asks for is our XYZ tile`)
  }
})

t.test('TMS service and tile map documents list the layer\'s tile maps', async (t) => {
  const app = await build(t)
  await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(8, 8, [-20, -10, 20, 30], pattern) })
  let res = await app.inject({ method: 'GET', url: `${SERVICE}/tms/1.0.0` })
  t.equal(res.statusCode, 200)
  t.match(res.body, '<TileMap title="topp:world" srs="EPSG:4326" profile="global-geodetic" href="http://localhost:80/geoserver/gwc/service/tms/1.0.0/topp%3Aworld%40EPSG%3A4326%40png"/>')
  res = await app.inject({ method: 'GET', url: `${SERVICE}/tms/1.0.0/topp%3Aworld%40EPSG%3A900913%40png` })
  t.equal(res.statusCode, 200)
  t.match(res.body, '<Origin x="-20037508.34" y="-20037508.34"/>')
  t.match(res.body, '<TileFormat width="256" height="256" mime-type="image/png" extension="png"/>')
})
