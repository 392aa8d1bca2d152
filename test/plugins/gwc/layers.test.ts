// GeoWebCache's tile layers through HTTP: GET /gwc/rest/layers lists them as GWC's documentation shows
// (an atom link per layer, names form-encoded), GET /gwc/rest/layers/<layer>.xml|.json shows one as a
// GeoServerLayer read from mapwarden's own settings (a PUT of expireCache on the layer resource shows
// here), unknown layers are 404, writes to the list 400, and the whole of it is admin-only.
import t from 'tap'
import { build, ADMIN, BASE } from '../../helper.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'

const L = `${BASE}/gwc/rest/layers`

t.test('GET /gwc/rest/layers lists the tile layers with a link to each', async (t) => {
  const app = await build(t)
  await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, [0, 0, 40, 40], pattern) })
  for (const url of [L, `${L}.xml`]) {
    const res = await app.inject({ url, headers: ADMIN })
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-type'], 'application/xml')
    t.equal(res.body, '<layers>\n  <layer>\n    <name>topp:world</name>\n    <atom:link xmlns:atom="http://www.w3.org/2005/Atom" rel="alternate" href="http://localhost:80/geoserver/gwc/rest/layers/topp%3Aworld.xml" type="text/xml"/>\n  </layer>\n</layers>')
  }
  const json = await app.inject({ url: `${L}.json`, headers: ADMIN })
  t.equal(json.body, '["topp:world"]')
  t.equal((await app.inject({ url: L })).statusCode, 401, 'admin only')
  const put = await app.inject({ method: 'PUT', url: L, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<layers/>' })
  t.equal(put.statusCode, 400)
  t.match(put.body, /PUT is not supported on the layer list/)
})

t.test('GET /gwc/rest/layers/<layer>.xml shows a GeoServerLayer from the layer\'s settings', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, [0, 0, 40, 40], pattern) })
  const put = await app.inject({ method: 'PUT', url: `${BASE}/rest/layers/${layer}.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ layer: { expireCache: 600, expireClients: 3600 } }) })
  t.equal(put.statusCode, 200, put.body)
  const res = await app.inject({ url: `${L}/${layer}.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, [
    '<GeoServerLayer>',
    '  <id>topp:world</id>',
    '  <enabled>true</enabled>',
    '  <name>topp:world</name>',
    '  <mimeFormats>',
    '    <string>image/png</string>',
    '    <string>image/png8</string>',
    '    <string>image/jpeg</string>',
    '    <string>image/webp</string>',
    '    <string>image/vnd.jpeg-png</string>',
    '  </mimeFormats>',
    '  <gridSubsets>',
    '    <gridSubset>',
    '      <gridSetName>EPSG:4326</gridSetName>',
    '      <zoomStart>0</zoomStart>',
    '      <zoomStop>21</zoomStop>',
    '    </gridSubset>',
    '    <gridSubset>',
    '      <gridSetName>EPSG:900913</gridSetName>',
    '      <zoomStart>0</zoomStart>',
    '      <zoomStop>30</zoomStop>',
    '    </gridSubset>',
    '  </gridSubsets>',
    '  <metaWidthHeight>',
    '    <int>4</int>',
    '    <int>4</int>',
    '  </metaWidthHeight>',
    '  <expireCache>600</expireCache>',
    '  <expireClients>3600</expireClients>',
    '  <parameterFilters>',
    '    <styleParameterFilter>',
    '      <key>STYLES</key>',
    '      <defaultValue></defaultValue>',
    '    </styleParameterFilter>',
    '  </parameterFilters>',
    '  <gutter>0</gutter>',
    '</GeoServerLayer>'
  ].join('\n'))
  const json = await app.inject({ url: `${L}/${layer}.json`, headers: ADMIN })
  t.equal(json.statusCode, 200)
  t.equal(json.headers['content-type'], 'application/json; charset=utf-8')
  t.same(json.json().GeoServerLayer, {
    id: 'topp:world',
    enabled: true,
    name: 'topp:world',
    mimeFormats: ['image/png', 'image/png8', 'image/jpeg', 'image/webp', 'image/vnd.jpeg-png'],
    gridSubsets: [{ gridSetName: 'EPSG:4326', zoomStart: 0, zoomStop: 21 }, { gridSetName: 'EPSG:900913', zoomStart: 0, zoomStop: 30 }],
    metaWidthHeight: [4, 4],
    expireCache: 600,
    expireClients: 3600,
    parameterFilters: { styleParameterFilter: [{ key: 'STYLES', defaultValue: '', allowedStyles: [] }] },
    gutter: 0
  })
  const unknown = await app.inject({ url: `${L}/topp:nothing.xml`, headers: ADMIN })
  t.equal(unknown.statusCode, 404)
  t.match(unknown.body, /Unknown layer topp:nothing/)
  t.equal((await app.inject({ url: `${L}/${layer}.xml` })).statusCode, 401, 'admin only')
})

t.test('PUT and POST of a GeoServerLayer change the layer\'s expiry; the tiles follow', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, [0, 0, 40, 40], pattern) })
  const shown = (await app.inject({ url: `${L}/${layer}.xml`, headers: ADMIN })).body
  const XMLH = { ...ADMIN, 'content-type': 'text/xml' }
  // What GET shows goes back unchanged.
  let res = await app.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: XMLH, payload: shown })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.body, '')
  res = await app.inject({ method: 'POST', url: `${L}/${layer}.xml`, headers: XMLH, payload: shown.replace('<expireCache>0</expireCache>', '<expireCache>600</expireCache>').replace('<expireClients>0</expireClients>', '<expireClients>3600</expireClients>') })
  t.equal(res.statusCode, 200, res.body)
  const rest = (await app.inject({ url: `${BASE}/rest/layers/${layer}.json`, headers: ADMIN })).json().layer
  t.match(rest, { expireCache: 600, expireClients: 3600 }, 'the layer resource shows the same settings')
  const tile = await app.inject({ url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/2/4/1.png` })
  t.equal(tile.headers['cache-control'], 'public, max-age=3600', 'expireClients is the tiles\' max-age')
  res = await app.inject({ method: 'PUT', url: `${L}/${layer}.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify({ GeoServerLayer: { name: layer, expireCache: 0, expireClients: 0 } }) })
  t.equal(res.statusCode, 200, res.body)
  t.match((await app.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).json().GeoServerLayer, { expireCache: 0, expireClients: 0 })
})

t.test('what mapwarden cannot apply is refused with a 400 naming it, and nothing changes', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topp', 'world', { 'world.tif': rgbTiff(40, 40, [0, 0, 40, 40], pattern) })
  const XMLH = { ...ADMIN, 'content-type': 'text/xml' }
  const body = (inner: string) => `<GeoServerLayer><name>${layer}</name><expireCache>600</expireCache>${inner}</GeoServerLayer>`
  const cases: Array<[string, RegExp]> = [
    ['<mimeFormats><string>image/png</string><string>image/jpeg</string></mimeFormats>', /^GeoServerLayer mimeFormats: mapwarden serves every tile format/],
    ['<gridSubsets><gridSubset><gridSetName>EPSG:2056</gridSetName></gridSubset></gridSubsets>', /GeoServerLayer gridSubsets gridSetName: "EPSG:2056" is not a grid set/],
    ['<metaWidthHeight><int>8</int><int>8</int></metaWidthHeight>', /GeoServerLayer metaWidthHeight: every metatile is 4x4 tiles/],
    ['<gutter>10</gutter>', /GeoServerLayer gutter: metatiles are rendered without a gutter/],
    ['<blobStoreId>s3</blobStoreId>', /GeoServerLayer blobStoreId/],
    ['<enabled>false</enabled>', /GeoServerLayer enabled/],
    ['<inMemoryCached>true</inMemoryCached>', /GeoServerLayer inMemoryCached: not a field/],
    ['<parameterFilters><regexParameterFilter><key>FOO</key><regex>.*</regex></regexParameterFilter></parameterFilters>', /GeoServerLayer parameterFilters regexParameterFilter FOO/]
  ]
  for (const [inner, message] of cases) {
    const res = await app.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: XMLH, payload: body(inner) })
    t.equal(res.statusCode, 400, inner)
    t.match(res.body, message)
  }
  const bad = await app.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: XMLH, payload: `<GeoServerLayer><expireCache>-5</expireCache></GeoServerLayer>` })
  t.equal(bad.statusCode, 400)
  t.match(bad.body, /expireCache/)
  t.match((await app.inject({ url: `${L}/${layer}.json`, headers: ADMIN })).json().GeoServerLayer, { expireCache: 0 }, 'nothing changed')
  const del = await app.inject({ method: 'DELETE', url: `${L}/${layer}.xml`, headers: ADMIN })
  t.equal(del.statusCode, 400)
  t.match(del.body, /every drawable layer is cached/)
  t.equal((await app.inject({ method: 'PUT', url: `${L}/topp:nothing.xml`, headers: XMLH, payload: body('') })).statusCode, 404)
  t.equal((await app.inject({ method: 'PUT', url: `${L}/${layer}.xml`, headers: { 'content-type': 'text/xml' }, payload: body('') })).statusCode, 401)
})
