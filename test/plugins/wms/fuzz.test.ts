// No WMS request, however odd its values, is a server fault: fast-check (fixed seed) mixes valid
// and hostile values of every parameter; each answer is a 4xx ServiceExceptionReport or a 200 map,
// capabilities document or feature info, never a 5xx.
import t from 'tap'
import fc from 'fast-check'
import { build } from '../../helper.js'
import { timeMosaic, wmsUrl, worldMosaic } from './helpers.js'

const junk = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('', ' ', '%00', '\u0000', 'NaN', '-1', '1e309', '0', '99999999999', '<x/>', "'", ',,,,', '1,2,3,4,5'))
const pick = <T>(...values: T[]) => fc.oneof({ arbitrary: fc.constantFrom(...values), weight: 19 }, { arbitrary: junk, weight: 1 })

t.test('WMS parameters from fast-check never make a 5xx', async (t) => {
  const app = await build(t)
  await worldMosaic(app)
  await timeMosaic(app)
  const params = fc.record({
    SERVICE: pick('WMS'),
    VERSION: pick('1.1.1', '1.3.0', '1.0.0', '2.0'),
    REQUEST: pick('GetMap', 'GetFeatureInfo', 'GetCapabilities'),
    LAYERS: pick('topp:world', 'ws:temp', 'topp:world,ws:temp', 'topp:nope', 'world'),
    QUERY_LAYERS: pick('topp:world', 'ws:temp'),
    STYLES: pick('', 'raster', ',', 'nostyle'),
    CRS: pick('EPSG:4326', 'CRS:84', 'EPSG:3857', 'EPSG:32631', 'EPSG:4269', 'AUTO:42001', 'urn:ogc:def:crs:EPSG::4326'),
    SRS: pick('EPSG:4326', 'EPSG:900913'),
    BBOX: pick('-10,-20,30,20', '0,0,10,10', '-180,-90,180,90', '-20037508,-20037508,20037508,20037508', '1,1,1,1'),
    WIDTH: pick('1', '16', '64', '4097'),
    HEIGHT: pick('1', '16', '64'),
    FORMAT: pick('image/png', 'image/png8', 'image/jpeg', 'image/webp', 'image/tiff'),
    TRANSPARENT: pick('true', 'FALSE'),
    BGCOLOR: pick('0xFF0000', '#00ff00'),
    TIME: pick('2024-01-01', 'current', '2024-01-01/2024-03-01', '2024-01-01,2024-02-01'),
    ELEVATION: pick('0', '100', '0/100'),
    CQL_FILTER: pick('elevation = 100', 'ingestion > 2024-01-15', 'INCLUDE'),
    EXCEPTIONS: pick('XML', 'INIMAGE', 'BLANK', 'application/vnd.ogc.se_inimage'),
    INFO_FORMAT: pick('text/plain', 'application/json', 'application/vnd.ogc.gml'),
    I: pick('0', '5', '63'),
    J: pick('0', '5'),
    TILED: pick('true', 'false'),
    SLD_BODY: fc.oneof(fc.constant(undefined), junk, fc.constant('<StyledLayerDescriptor xmlns="http://www.opengis.net/sld"><NamedLayer><Name>ws:temp</Name><UserStyle><FeatureTypeStyle><Rule><RasterSymbolizer/></Rule></FeatureTypeStyle></UserStyle></NamedLayer></StyledLayerDescriptor>'))
  }, { requiredKeys: ['REQUEST'] })
  let maps = 0
  await fc.assert(fc.asyncProperty(params, fc.constantFrom('/wms', '/ows', '/ws/wms', '/gwc/service/wms'), async (q, path) => {
    const clean = Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as Record<string, string>
    // W3CSTATUS=true: refusals carry their HTTP status, so a 4xx can be told from a map.
    const res = await app.inject({ method: 'GET', url: wmsUrl({ ...clean, W3CSTATUS: 'true' }, path) })
    if (res.statusCode >= 500) throw new Error(`${res.statusCode} for ${path} ${JSON.stringify(clean)}: ${res.body.slice(0, 300)}`)
    if (res.statusCode === 200 && /^image\//.test(String(res.headers['content-type']))) maps++
    if (res.statusCode >= 400) t.match(res.body, '<ServiceExceptionReport', 'an exception report')
  }), { seed: 20261124, numRuns: 300, endOnFailure: true })
  t.ok(maps > 0, `${maps} of the requests drew a map`)
})
