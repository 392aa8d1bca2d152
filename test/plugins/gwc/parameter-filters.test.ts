// GeoWebCache's parameter filters set through its REST (PUT /gwc/rest/layers/<layer>.xml): a string
// filter on CQL_FILTER lets the listed filters through, each drawing its own features and cached
// under its own parameter set id; a value it does not list is refused as GWC refuses it; GET shows
// the filter as GWC writes it; seeding and mass truncation with parameters follow the filter; the
// other kinds (regex with normalize, float, integer) are kept and shown; what cannot be a filter is a
// 400 naming it.
import t from 'tap'
import { ADMIN, BASE, build } from '../../helper.js'
import { G, vectorSetup } from '../../fixtures/vector-tiles.js'
import { pixels, timeMosaic, wmsUrl } from '../wms/helpers.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'

const L = `${BASE}/gwc/rest/layers`
const XMLH = { ...ADMIN, 'content-type': 'text/xml' }
const JSONH = { ...ADMIN, 'content-type': 'application/json' }
const A = "kind = 'a'"
const B = "kind = 'b'"
const FILTERS = `<parameterFilters><stringParameterFilter><key>CQL_FILTER</key><defaultValue></defaultValue><values><string>${A}</string><string>${B}</string></values></stringParameterFilter></parameterFilters>`

/** The XYZ tile 2/4/1 of EPSG:4326 (lon 0..45, lat 0..45) with a CQL_FILTER. */
const tile = (app: any, cql?: string) =>
  app.inject({ url: `${G}/xyz/vx:shapes/EPSG:4326/2/4/1.png${cql === undefined ? '' : `?CQL_FILTER=${encodeURIComponent(cql)}`}`, headers: ADMIN })
/** Whether the tile draws something at lon/lat (256 pixels over 45 degrees). */
async function drawnAt (payload: Buffer, lon: number, lat: number): Promise<boolean> {
  const px = await pixels(payload)
  const x = Math.floor(lon / 45 * 256)
  const y = Math.floor((45 - lat) / 45 * 256)
  return px.data[(y * px.width + x) * 4 + 3] > 0
}

t.test('a string filter on CQL_FILTER: two values, two tiles under two parameter ids; another value refused; GET shows it', async (t) => {
  const app = await vectorSetup(t)
  const put = await app.inject({ method: 'PUT', url: `${L}/vx:shapes.xml`, headers: XMLH, payload: `<GeoServerLayer><name>vx:shapes</name>${FILTERS}</GeoServerLayer>` })
  t.equal(put.statusCode, 200, put.body)

  const xml = (await app.inject({ url: `${L}/vx:shapes.xml`, headers: ADMIN })).body
  t.match(xml, [
    '  <parameterFilters>',
    '    <styleParameterFilter>',
    '      <key>STYLES</key>',
    '      <defaultValue></defaultValue>',
    '    </styleParameterFilter>',
    '    <stringParameterFilter>',
    '      <key>CQL_FILTER</key>',
    '      <defaultValue></defaultValue>',
    '      <values>',
    `        <string>kind = &apos;a&apos;</string>`,
    `        <string>kind = &apos;b&apos;</string>`,
    '      </values>',
    '    </stringParameterFilter>',
    '  </parameterFilters>'
  ].join('\n'), 'GET shows the filter in GWC\'s XML')
  const json = (await app.inject({ url: `${L}/vx:shapes.json`, headers: ADMIN })).json()
  t.same(json.GeoServerLayer.parameterFilters.stringParameterFilter, [{ key: 'CQL_FILTER', defaultValue: '', values: { string: [A, B] } }], 'and in its JSON')

  const a = await tile(app, A)
  t.equal(a.statusCode, 200, a.body)
  t.equal(a.headers['content-type'], 'image/png')
  t.ok(await drawnAt(a.rawPayload, 5, 5), 'kind a drawn')
  t.notOk(await drawnAt(a.rawPayload, 25, 5), 'kind b not drawn')
  const b = await tile(app, B)
  t.equal(b.statusCode, 200, b.body)
  t.notOk(await drawnAt(b.rawPayload, 5, 5), 'kind a not drawn')
  t.ok(await drawnAt(b.rawPayload, 25, 5), 'kind b drawn')
  t.equal((await tile(app, A)).headers['geowebcache-cache-result'], 'HIT', 'each is cached')
  const ids = (await app.tileCache.store.tileSets('vx:shapes')).map((s: any) => s.parameterId).sort()
  t.equal(ids.length, 2, 'two tile sets')
  t.ok(ids.every((id: string) => /^[0-9a-f]{40}$/.test(id)) && ids[0] !== ids[1], `two parameter ids: ${ids.join(', ')}`)

  const refused = await tile(app, "kind = 'c'")
  t.equal(refused.statusCode, 400)
  t.equal(refused.body, "Invalid tile request: parameter CQL_FILTER: kind = 'c' violates filter for parameter CQL_FILTER")
  const wmts = await app.inject({ url: `${G}/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=vx:shapes&STYLE=&TILEMATRIXSET=EPSG:4326&TILEMATRIX=EPSG:4326:2&TILEROW=1&TILECOL=4&FORMAT=image/png&CQL_FILTER=${encodeURIComponent('1 = 1')}`, headers: ADMIN })
  t.equal(wmts.statusCode, 400, 'WMTS refuses it too')
  t.match(wmts.body, /1 = 1 violates filter for parameter CQL_FILTER/)
  t.equal((await tile(app)).statusCode, 200, 'no CQL_FILTER: the default (empty) value, all features')
  t.equal((await app.tileCache.store.tileSets('vx:shapes')).length, 3, 'in the default set')

  // Truncating one parameter set drops only it; a value the filter refuses is refused.
  const bad = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/masstruncate`, headers: XMLH, payload: `<truncateParameters><layerName>vx:shapes</layerName><parameters><parameter><key>CQL_FILTER</key><value>kind = 'z'</value></parameter></parameters></truncateParameters>` })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, /kind = 'z' violates filter for parameter CQL_FILTER/)
  const mt = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/masstruncate`, headers: XMLH, payload: `<truncateParameters><layerName>vx:shapes</layerName><parameters><parameter><key>CQL_FILTER</key><value>${B}</value></parameter></parameters></truncateParameters>` })
  t.equal(mt.statusCode, 200, mt.body)
  t.equal((await tile(app, A)).headers['geowebcache-cache-result'], 'HIT', 'kind a still cached')
  t.equal((await tile(app, B)).headers['geowebcache-cache-result'], 'MISS', 'kind b dropped')

  // Removing the filters (an empty parameterFilters) lets any CQL_FILTER through again.
  const clear = await app.inject({ method: 'PUT', url: `${L}/vx:shapes.xml`, headers: XMLH, payload: '<GeoServerLayer><name>vx:shapes</name><parameterFilters/></GeoServerLayer>' })
  t.equal(clear.statusCode, 200, clear.body)
  t.equal((await tile(app, "kind = 'c'")).statusCode, 200)
  t.notOk('stringParameterFilter' in (await app.inject({ url: `${L}/vx:shapes.json`, headers: ADMIN })).json().GeoServerLayer.parameterFilters)
})

t.test('seeding with parameters follows the filter: an allowed value seeds its tile set, another is refused', async (t) => {
  const app = await vectorSetup(t)
  t.equal((await app.inject({ method: 'PUT', url: `${L}/vx:shapes.xml`, headers: XMLH, payload: `<GeoServerLayer><name>vx:shapes</name>${FILTERS}</GeoServerLayer>` })).statusCode, 200)
  const seed = (value: string) => app.inject({
    method: 'POST',
    url: `${BASE}/gwc/rest/seed/vx:shapes.json`,
    headers: JSONH,
    payload: JSON.stringify({ seedRequest: { name: 'vx:shapes', gridSetId: 'EPSG:4326', zoomStart: 2, zoomStop: 2, format: 'image/png', type: 'seed', threadCount: 1, parameters: { entry: [{ string: ['CQL_FILTER', value] }] } } })
  })
  const refused = await seed("kind = 'c'")
  t.equal(refused.statusCode, 400)
  t.equal(refused.body, "Invalid seed request: parameters CQL_FILTER: kind = 'c' violates filter for parameter CQL_FILTER")
  const ok = await seed(B)
  t.equal(ok.statusCode, 200, ok.body)
  await app.tileCache.breeder.idle()
  const sets = await app.tileCache.store.tileSets('vx:shapes')
  t.equal(sets.length, 1, 'one tile set seeded')
  t.match(sets[0].parameterId, /^[0-9a-f]{40}$/)
  const b = await tile(app, B)
  t.equal(b.headers['geowebcache-cache-result'], 'HIT', 'the seeded value is served from the cache')
  t.ok(await drawnAt(b.rawPayload, 25, 5), 'drawn with the filter')
  t.notOk(await drawnAt(b.rawPayload, 5, 5))
  t.equal((await tile(app, A)).headers['geowebcache-cache-result'], 'MISS', 'the other value was not seeded')
})

t.test('regex, float and integer filters are kept and shown as GWC writes them; the value is normalised', async (t) => {
  const app = await vectorSetup(t)
  const body = '<GeoServerLayer><name>vx:shapes</name><parameterFilters><regexParameterFilter><key>cql_filter</key><defaultValue></defaultValue>' +
    '<normalize><case>UPPER</case></normalize><regex>KIND = &apos;[AB]&apos;</regex></regexParameterFilter></parameterFilters></GeoServerLayer>'
  const put = await app.inject({ method: 'PUT', url: `${L}/vx:shapes.xml`, headers: XMLH, payload: body })
  t.equal(put.statusCode, 200, put.body)
  t.match((await app.inject({ url: `${L}/vx:shapes.xml`, headers: ADMIN })).body,
    '    <regexParameterFilter>\n      <key>CQL_FILTER</key>\n      <defaultValue></defaultValue>\n      <normalize>\n        <case>UPPER</case>\n      </normalize>\n      <regex>KIND = &apos;[AB]&apos;</regex>\n    </regexParameterFilter>')
  // kind = 'a' upper-cased matches; the upper-cased filter (KIND = 'A') is what is drawn (no feature has kind A).
  const a = await tile(app, A)
  t.equal(a.statusCode, 200, a.body)
  t.notOk(await drawnAt(a.rawPayload, 5, 5), 'drawn with the normalised value')
  t.equal((await tile(app, "kind = 'c'")).statusCode, 400)

  const mosaic = await build(t)
  const layer = await createMosaic(mosaic, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, [0, 0, 40, 40], pattern) })
  const refuse = async (inner: string, message: RegExp) => {
    const res = await mosaic.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: XMLH, payload: `<GeoServerLayer><name>${layer}</name><parameterFilters>${inner}</parameterFilters></GeoServerLayer>` })
    t.equal(res.statusCode, 400, inner)
    t.match(res.body, message)
  }
  await refuse('<floatParameterFilter><key>ELEVATION</key><values><float>1.5</float></values></floatParameterFilter>', /^GeoServerLayer parameterFilters floatParameterFilter ELEVATION: layer topp:world has no elevation dimension/)
  await refuse('<stringParameterFilter><key>ENV</key><values><string>a</string></values></stringParameterFilter>', /parameterFilters stringParameterFilter ENV: a filter narrows one of CQL_FILTER, TIME, ELEVATION/)
  await refuse('<regexParameterFilter><key>CQL_FILTER</key><regex>(</regex></regexParameterFilter>', /parameterFilters regexParameterFilter CQL_FILTER regex: "\(" is not a regular expression/)
  await refuse('<integerParameterFilter><key>CQL_FILTER</key><values><int>x</int></values></integerParameterFilter>', /CQL_FILTER values: "x" is not a whole number/)
  await refuse('<stringParameterFilter><key>CQL_FILTER</key><values><string>a</string></values><regex>.*</regex></stringParameterFilter>', /CQL_FILTER regex: not a field of a stringParameterFilter/)
  await refuse('<fooParameterFilter><key>CQL_FILTER</key></fooParameterFilter>', /parameterFilters fooParameterFilter: not a filter kind/)
  // A float filter on CQL_FILTER is accepted as GWC accepts it, and shown with its threshold.
  const fl = await mosaic.inject({ method: 'PUT', url: `${L}/${layer}.json`, headers: JSONH, payload: JSON.stringify({ GeoServerLayer: { name: layer, parameterFilters: { floatParameterFilter: [{ key: 'CQL_FILTER', defaultValue: '', values: { float: ['1.5', '2'] }, threshold: '0.1' }] } } }) })
  t.equal(fl.statusCode, 200, fl.body)
  t.same((await mosaic.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).json().GeoServerLayer.parameterFilters.floatParameterFilter, [{ key: 'CQL_FILTER', defaultValue: '', values: { float: ['1.5', '2.0'] }, threshold: '0.1' }])
})

t.test('float and regex filters on a mosaic\'s ELEVATION and TIME: the value is snapped to the closest listed one, drawn and cached under it; WMS-C follows', async (t) => {
  const app = await build(t)
  const layer = await timeMosaic(app)
  const put = await app.inject({
    method: 'PUT',
    url: `${L}/${layer}.json`,
    headers: JSONH,
    payload: JSON.stringify({ GeoServerLayer: { name: layer, parameterFilters: {
      floatParameterFilter: { key: 'ELEVATION', defaultValue: '0', values: { float: [0, 100] }, threshold: 5 },
      regexParameterFilter: { key: 'TIME', defaultValue: '', regex: '2024-01-01.*' }
    } } })
  })
  t.equal(put.statusCode, 200, put.body)
  t.match((await app.inject({ url: `${L}/${layer}.xml`, headers: ADMIN })).body,
    '    <regexParameterFilter>\n      <key>TIME</key>\n      <defaultValue></defaultValue>\n      <regex>2024-01-01.*</regex>\n    </regexParameterFilter>\n' +
    '    <floatParameterFilter>\n      <key>ELEVATION</key>\n      <defaultValue>0</defaultValue>\n      <values>\n        <float>0.0</float>\n        <float>100.0</float>\n      </values>\n      <threshold>5.0</threshold>\n    </floatParameterFilter>\n')
  // GET then PUT back (XML and JSON) changes nothing.
  const shownXml = (await app.inject({ url: `${L}/${layer}.xml`, headers: ADMIN })).body
  t.equal((await app.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: XMLH, payload: shownXml })).statusCode, 200)
  t.equal((await app.inject({ url: `${L}/${layer}.xml`, headers: ADMIN })).body, shownXml, 'the XML round trip keeps the filters')
  const shownJson = (await app.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).body
  const back = await app.inject({ method: 'PUT', url: `${L}/${layer}.json`, headers: JSONH, payload: shownJson })
  t.equal(back.statusCode, 200, back.body)
  t.equal((await app.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).body, shownJson, 'the JSON round trip keeps the filters')
  // ws:temp covers lon/lat 0..10: the EPSG:4326 tile 4/16/7 (lon 0..11.25, lat 0..11.25) holds it.
  const get = (q: string) => app.inject({ url: `${G}/xyz/${layer}/EPSG:4326/4/16/7.png?TIME=2024-01-01T00:00:00.000Z&${q}` })
  const high = await get('ELEVATION=98.5')
  t.equal(high.statusCode, 200, high.body)
  t.equal(high.headers['geowebcache-cache-result'], 'MISS')
  const exact = await get('ELEVATION=100')
  t.equal(exact.headers['geowebcache-cache-result'], 'HIT', '98.5 and 100 are one value (100.0): one tile set')
  t.same(exact.rawPayload, high.rawPayload)
  const low = await get('')
  t.equal(low.statusCode, 200, low.body)
  t.equal(low.headers['geowebcache-cache-result'], 'MISS', 'no ELEVATION: the default 0, another set')
  const [hp, lp] = [await pixels(high.rawPayload), await pixels(low.rawPayload)]
  t.notOk(hp.data.equals(lp.data), 'elevation 100 (granule of 20) and 0 (granule of 10) draw different maps')
  t.equal((await app.tileCache.store.tileSets(layer)).length, 2, 'two tile sets')

  const far = await get('ELEVATION=60')
  t.equal(far.statusCode, 400)
  t.equal(far.body, 'Invalid tile request: parameter ELEVATION: Closest match for ELEVATION=60 is 100.0, but this exceeds the threshold of 5.0')
  const feb = await app.inject({ url: `${G}/xyz/${layer}/EPSG:4326/4/16/7.png?TIME=2024-02-01T00:00:00.000Z` })
  t.equal(feb.statusCode, 400)
  t.equal(feb.body, 'Invalid tile request: parameter TIME: 2024-02-01T00:00:00.000Z violates filter for parameter TIME')

  // WMS-C: the same tile as a tiled GetMap is served from the same tile set.
  const span = 180 / 16
  const wmsc = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.1.1', LAYERS: layer, STYLES: '', SRS: 'EPSG:4326', BBOX: [0, 0, span, span].join(','), WIDTH: 256, HEIGHT: 256, FORMAT: 'image/png', TRANSPARENT: 'true', TILED: 'true', TIME: '2024-01-01T00:00:00.000Z', ELEVATION: '100' }) })
  t.equal(wmsc.statusCode, 200)
  t.equal(wmsc.headers['geowebcache-cache-result'], 'HIT', 'WMS-C finds the tile cached under the filtered value')
  t.same(wmsc.rawPayload, high.rawPayload)
  const refused = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.1.1', LAYERS: layer, STYLES: '', SRS: 'EPSG:4326', BBOX: [0, 0, span, span].join(','), WIDTH: 256, HEIGHT: 256, FORMAT: 'image/png', TRANSPARENT: 'true', TILED: 'true', TIME: '2024-01-01T00:00:00.000Z', ELEVATION: '60' }) })
  t.match(refused.body, 'Closest match for ELEVATION=60 is 100.0, but this exceeds the threshold of 5.0', 'WMS-C refuses what the filter refuses')
})
