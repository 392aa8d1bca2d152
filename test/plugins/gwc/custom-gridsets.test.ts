// Custom grid sets through GeoWebCache's REST (PUT, GET, DELETE gridsets/<name>, XML and JSON) on
// either backend: created 201, replaced 200, built-in ones 405, bad fields 400 naming them, kept over
// a restart and (PostgreSQL) seen by another instance; and usable: a layer offers it, WMTS lists it
// as a TileMatrixSet, a WMTS tile in it equals a WMS GetMap of its box, seeding writes exactly its
// tiles, and deleting it drops them.
import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import { build, tempDir, ADMIN, BASE, TEST_BACKEND } from '../../helper.js'
import { createMosaic } from '../../fixtures/seed/mosaic.js'
import { makeTiff } from '../../fixtures/mosaics/make.js'
import { pixels, wmsUrl } from '../wms/helpers.js'
import { gridSetOf, parseGridSet } from '../../../services/tilecache/grid-set-definition.js'
import { gridSubset, rectArea, tilesHigh } from '../../../services/tilecache/grid-sets.js'

const G = `${BASE}/gwc/rest/gridsets`
const XML = { ...ADMIN, 'content-type': 'text/xml' }
const JSON_BODY = { ...ADMIN, 'content-type': 'application/json' }

// The British National Grid: 4 levels of 2000, 1000, 500 and 250 m over Great Britain's grid extent.
const OSGB_XML = `<gridSet>
  <name>OSGB</name>
  <description>British National Grid</description>
  <srs><number>27700</number></srs>
  <extent><coords><double>0.0</double><double>0.0</double><double>700000.0</double><double>1300000.0</double></coords></extent>
  <alignTopLeft>false</alignTopLeft>
  <resolutions><double>2000.0</double><double>1000.0</double><double>500.0</double><double>250.0</double></resolutions>
  <metersPerUnit>1.0</metersPerUnit>
  <pixelSize>2.8E-4</pixelSize>
  <tileHeight>256</tileHeight>
  <tileWidth>256</tileWidth>
  <yCoordinateFirst>false</yCoordinateFirst>
</gridSet>`

// Great Britain, lon -6..2, lat 50..56 at 0.05 degrees: 1-degree cells of 60 and 200.
const GB = makeTiff({ width: 160, height: 120, bbox: [-6, 50, 2, 56], value: (x, y) => (Math.floor(x / 20) + Math.floor(y / 20)) % 2 === 0 ? 60 : 200 })

/** 0 = no data, 1 = the cells holding 60, 2 = those holding 200. */
function classes (rgba: Buffer): Uint8Array {
  const out = new Uint8Array(rgba.length / 4)
  for (let i = 0; i < out.length; i++) out[i] = rgba[i * 4 + 3] === 0 ? 0 : rgba[i * 4] < 128 ? 1 : 2
  return out
}

function files (dir: string): string[] {
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name))
}

async function until (what: string, ok: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await ok()) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`never happened: ${what}`)
}

t.test('PUT creates (201) and replaces (200) a custom grid set; GET shows it in XML and JSON; DELETE removes it', async (t) => {
  const app = await build(t)
  let res = await app.inject({ method: 'PUT', url: `${G}/OSGB.xml`, headers: XML, payload: OSGB_XML })
  t.equal(res.statusCode, 201, res.body)
  t.equal(res.body, '')
  res = await app.inject({ url: `${G}/OSGB.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, ['<gridSet>', '  <name>OSGB</name>', '  <description>British National Grid</description>', '  <srs>', '    <number>27700</number>', '  </srs>',
    '  <extent>', '    <coords>', '      <double>0.0</double>', '      <double>0.0</double>', '      <double>700000.0</double>', '      <double>1300000.0</double>', '    </coords>', '  </extent>',
    '  <alignTopLeft>false</alignTopLeft>', '  <resolutions>', '    <double>2000.0</double>', '    <double>1000.0</double>', '    <double>500.0</double>', '    <double>250.0</double>', '  </resolutions>',
    '  <metersPerUnit>1.0</metersPerUnit>', '  <pixelSize>2.8E-4</pixelSize>', '  <scaleNames>', '    <string>OSGB:0</string>', '    <string>OSGB:1</string>', '    <string>OSGB:2</string>', '    <string>OSGB:3</string>', '  </scaleNames>',
    '  <tileHeight>256</tileHeight>', '  <tileWidth>256</tileWidth>', '  <yCoordinateFirst>false</yCoordinateFirst>', '</gridSet>'].join('\n'))
  t.same((await app.inject({ url: `${G}.json`, headers: ADMIN })).json(), ['EPSG:4326', 'EPSG:900913', 'GlobalCRS84Pixel', 'GlobalCRS84Scale', 'GoogleCRS84Quad', 'OSGB'])
  t.match((await app.inject({ url: G, headers: ADMIN })).body, /<name>OSGB<\/name>\n {4}<atom:link xmlns:atom="http:\/\/www.w3.org\/2005\/Atom" rel="alternate" href="http:\/\/localhost:80\/geoserver\/gwc\/rest\/gridsets\/OSGB.xml" type="text\/xml"\/>/)

  // JSON as GWC writes it ({"double": [...]}) or plain arrays; scale denominators instead of resolutions.
  res = await app.inject({
    method: 'PUT',
    url: `${G}/LAEA.json`,
    headers: JSON_BODY,
    payload: JSON.stringify({ gridSet: { name: 'LAEA', srs: { number: 3035 }, extent: { coords: { double: [2000000, 1000000, 7000000, 6000000] } }, alignTopLeft: true, scaleDenominators: { double: [10000000, 5000000, 2500000] }, tileWidth: 512, tileHeight: 512 } })
  })
  t.equal(res.statusCode, 201, res.body)
  const laea = (await app.inject({ url: `${G}/LAEA.json`, headers: ADMIN })).json().gridSet
  t.match(laea, { name: 'LAEA', srs: { number: 3035 }, extent: { coords: [2000000, 1000000, 7000000, 6000000] }, alignTopLeft: true, metersPerUnit: 1, pixelSize: 0.00028, tileWidth: 512, tileHeight: 512 })
  t.same(laea.resolutions.map((r: number) => Math.round(r * 1e6) / 1e6), [2800, 1400, 700], 'resolution = scale denominator x pixel size / metres per unit')

  // Replaced: 200, empty body; the new definition in force.
  res = await app.inject({ method: 'PUT', url: `${G}/OSGB`, headers: XML, payload: OSGB_XML.replace('<double>250.0</double>', '<double>250.0</double><double>125.0</double>') })
  t.equal(res.statusCode, 200, res.body)
  t.equal(res.body, '')
  t.same((await app.inject({ url: `${G}/OSGB.json`, headers: ADMIN })).json().gridSet.resolutions, [2000, 1000, 500, 250, 125])

  res = await app.inject({ method: 'DELETE', url: `${G}/LAEA`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  res = await app.inject({ url: `${G}/LAEA.xml`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Failed to get GridSet. A GridSet with name "LAEA" does not exist.')
  res = await app.inject({ method: 'DELETE', url: `${G}/LAEA`, headers: ADMIN })
  t.equal(res.statusCode, 404)
  t.equal(res.body, 'Failed to remove GridSet. A GridSet with name "LAEA" does not exist.')
  t.equal((await app.inject({ method: 'PUT', url: `${G}/X1`, headers: { 'content-type': 'text/xml' }, payload: OSGB_XML })).statusCode, 401, 'admin only')
})

t.test('built-in grid sets cannot be changed or deleted (405)', async (t) => {
  const app = await build(t)
  const before = (await app.inject({ url: `${G}/EPSG:4326.xml`, headers: ADMIN })).body
  let res = await app.inject({ method: 'PUT', url: `${G}/EPSG:4326.xml`, headers: XML, payload: OSGB_XML.replace('<name>OSGB</name>', '<name>EPSG:4326</name>') })
  t.equal(res.statusCode, 405)
  t.equal(res.body, 'Grid set EPSG:4326 is built in: it cannot be changed')
  res = await app.inject({ method: 'DELETE', url: `${G}/EPSG:900913`, headers: ADMIN })
  t.equal(res.statusCode, 405)
  t.equal(res.body, 'Grid set EPSG:900913 is built in: it cannot be deleted')
  t.equal((await app.inject({ url: `${G}/EPSG:4326.xml`, headers: ADMIN })).body, before, 'unchanged')
  // GWC's well-known scale sets are built in too: shown, read-only.
  const scale = (await app.inject({ url: `${G}/GlobalCRS84Scale.json`, headers: ADMIN })).json().gridSet
  t.match(scale, { name: 'GlobalCRS84Scale', srs: { number: 4326 }, extent: { coords: [-180, -90, 180, 90] }, alignTopLeft: true, yCoordinateFirst: true, tileWidth: 256 })
  t.equal(scale.resolutions.length, 21)
  t.equal(Math.round(scale.resolutions[0] * 1e9) / 1e9, Math.round(500e6 * 0.00028 / 111319.49079327358 * 1e9) / 1e9, 'scale 1:500,000,000')
  const pixel = (await app.inject({ url: `${G}/GlobalCRS84Pixel.json`, headers: ADMIN })).json().gridSet
  t.equal(pixel.resolutions.length, 18)
  t.same(pixel.resolutions.slice(0, 3), [2, 1, 0.5])
  t.equal((await app.inject({ url: `${G}/GoogleCRS84Quad.json`, headers: ADMIN })).json().gridSet.resolutions.length, 19)
  t.equal((await app.inject({ method: 'DELETE', url: `${G}/GoogleCRS84Quad`, headers: ADMIN })).statusCode, 405)
  t.equal((await app.inject({ method: 'PUT', url: `${G}/GlobalCRS84Pixel.xml`, headers: XML, payload: OSGB_XML.replace('<name>OSGB</name>', '') })).statusCode, 405)
})

t.test('every bad field is a 400 naming it, and nothing is stored', async (t) => {
  const app = await build(t)
  const cases: Array<[string, string, RegExp]> = [
    ['OSGB', OSGB_XML.replace('<number>27700</number>', '<number>5714</number>'), /^Invalid grid set: srs\/number "5714": not a horizontal coordinate system/],
    ['OSGB', OSGB_XML.replace('<number>27700</number>', '<number>abc</number>'), /^Invalid grid set: srs\/number "abc": an EPSG code is expected/],
    ['OSGB', OSGB_XML.replace('<double>700000.0</double>', '<double>-1.0</double>'), /^Invalid grid set: extent\/coords .*: the minimum must be below the maximum/],
    ['OSGB', OSGB_XML.replace('<double>1300000.0</double>', ''), /^Invalid grid set: extent\/coords .*: four numbers are expected/],
    ['OSGB', OSGB_XML.replace('<metersPerUnit>', '<scaleDenominators><double>1000.0</double></scaleDenominators><metersPerUnit>'), /^Invalid grid set: scaleDenominators null: give either resolutions or scaleDenominators/],
    ['OSGB', OSGB_XML.replace('<double>500.0</double>', '<double>1500.0</double>'), /^Invalid grid set: resolutions\[2\] 1500: levels go from the coarsest to the finest/],
    ['OSGB', OSGB_XML.replace('<double>500.0</double>', '<double>-5</double>'), /^Invalid grid set: resolutions\[2\] "-5": a positive number is expected/],
    ['OSGB', OSGB_XML.replace('<tileWidth>256</tileWidth>', '<tileWidth>0</tileWidth>'), /^Invalid grid set: tileWidth "0": a whole number from 16 to 2048/],
    ['OSGB', OSGB_XML.replace('<alignTopLeft>false</alignTopLeft>', '<alignTopLeft>yes</alignTopLeft>'), /^Invalid grid set: alignTopLeft "yes": true or false is expected/],
    ['OSGB', OSGB_XML.replace('<pixelSize>2.8E-4</pixelSize>', '<pixelSize>NaN</pixelSize>'), /^Invalid grid set: pixelSize "NaN": a finite number is expected/],
    ['OSGB', OSGB_XML.replace('<yCoordinateFirst>', '<colour>red</colour><yCoordinateFirst>'), /^Invalid grid set: colour "red": not a field of a grid set/],
    ['OSGB', OSGB_XML.replace('<name>OSGB</name>', '<name>Other</name>'), /^Invalid grid set: name "Other": the body names another grid set than the URL/],
    ['OSGB', OSGB_XML.replace(/<srs>.*<\/srs>/, ''), /^Invalid grid set: srs null: required/],
    ['OS_GB', OSGB_XML.replace('<name>OSGB</name>', ''), /^Invalid grid set: name "OS_GB": '_' may only follow a ':'/],
    ['..', OSGB_XML.replace('<name>OSGB</name>', ''), /^Invalid grid set: name "\.\.": a grid set name starts with a letter or digit/],
    ['OSGB', OSGB_XML.replace('<double>250.0</double>', '<double>0.0000001</double>'), /^Invalid grid set: resolutions\[3\] 1e-7: level 3 would be 27343750000 x 50781250000 tiles/]
  ]
  for (const [name, body, message] of cases) {
    const res = await app.inject({ method: 'PUT', url: `${G}/${encodeURIComponent(name)}.xml`, headers: XML, payload: body })
    t.equal(res.statusCode, 400, `${name}: ${res.body}`)
    t.match(res.body, message)
  }
  const json = await app.inject({ method: 'PUT', url: `${G}/J.json`, headers: JSON_BODY, payload: JSON.stringify({ gridSet: { srs: { number: 4326 }, extent: { coords: [-180, -90, 180] }, resolutions: [1] } }) })
  t.equal(json.statusCode, 400)
  t.match(json.body, /extent\/coords .*four numbers/)
  t.same((await app.inject({ url: `${G}.json`, headers: ADMIN })).json(), ['EPSG:4326', 'EPSG:900913', 'GlobalCRS84Pixel', 'GlobalCRS84Scale', 'GoogleCRS84Quad'], 'nothing stored')
})

t.test('a custom grid set is served: WMTS lists it, its tile equals a GetMap of its box, seeding writes exactly its tiles, DELETE drops them', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir })
  const layer = await createMosaic(app, 'uk', 'gb', { 'gb.tif': GB })
  t.equal((await app.inject({ method: 'PUT', url: `${G}/OSGB.xml`, headers: XML, payload: OSGB_XML })).statusCode, 201)

  // The layer offers it (GeoServerLayer) and WMTS lists it as a TileMatrixSet in EPSG:27700.
  const gsl = (await app.inject({ url: `${BASE}/gwc/rest/layers/${layer}.json`, headers: ADMIN })).json().GeoServerLayer
  t.same(gsl.gridSubsets.map((g: any) => g.gridSetName), ['EPSG:4326', 'EPSG:900913', 'OSGB'])
  const caps = (await app.inject({ url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetCapabilities` })).body
  t.match(caps, /<TileMatrixSetLink>\n {8}<TileMatrixSet>OSGB<\/TileMatrixSet>/)
  t.match(caps, /<ows:Identifier>OSGB<\/ows:Identifier>\n {6}<ows:SupportedCRS>urn:ogc:def:crs:EPSG::27700<\/ows:SupportedCRS>\n {6}<TileMatrix>\n {8}<ows:Identifier>OSGB:0<\/ows:Identifier>\n {8}<ScaleDenominator>7142857.14285714\d*<\/ScaleDenominator>\n {8}<TopLeftCorner>0.0 1536000.0<\/TopLeftCorner>\n {8}<TileWidth>256<\/TileWidth>\n {8}<TileHeight>256<\/TileHeight>\n {8}<MatrixWidth>2<\/MatrixWidth>\n {8}<MatrixHeight>3<\/MatrixHeight>/)

  // Level 2 (500 m, 128 km tiles): the tile over the Midlands, column 3, row 2 from the bottom.
  const def = parseGridSet('OSGB', { srs: '27700', extent: [0, 0, 700000, 1300000], resolutions: [2000, 1000, 500, 250] })
  const gs = gridSetOf(def)
  const row = tilesHigh(gs, 2) - 1 - 2
  const tile = await app.inject({ url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=${layer}&STYLE=&TILEMATRIXSET=OSGB&TILEMATRIX=OSGB:2&TILEROW=${row}&TILECOL=3&FORMAT=image/png` })
  t.equal(tile.statusCode, 200, tile.body)
  t.equal(tile.headers['content-type'], 'image/png')
  const map = await app.inject({ url: wmsUrl({ SERVICE: 'WMS', REQUEST: 'GetMap', VERSION: '1.1.1', LAYERS: layer, STYLES: '', FORMAT: 'image/png', TRANSPARENT: 'TRUE', SRS: 'EPSG:27700', BBOX: '384000,256000,512000,384000', WIDTH: 256, HEIGHT: 256 }) })
  t.equal(map.statusCode, 200)
  const a = classes((await pixels(tile.rawPayload)).data)
  const b = classes((await pixels(map.rawPayload)).data)
  let differ = 0
  const counts = [0, 0, 0]
  for (let i = 0; i < a.length; i++) { if (a[i] !== b[i]) differ++; counts[b[i]]++ }
  t.ok(counts[1] > 1000 && counts[2] > 1000, `the tile crosses cell edges (${counts})`)
  t.ok(differ / a.length < 0.002, `${differ} of ${a.length} pixels of the WMTS tile differ from the GetMap of its box`)

  // TMS and XYZ address the same tile.
  const tms = await app.inject({ url: `${BASE}/gwc/service/tms/1.0.0/${encodeURIComponent(`${layer}@OSGB@png`)}/2/3/2.png` })
  t.equal(tms.statusCode, 200, tms.body)
  t.same(tms.rawPayload, tile.rawPayload, 'TMS: the same cached tile')

  // Seeding levels 0-2 writes exactly the tiles of the layer's subset (GWC's exact counts).
  const res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSON_BODY, payload: JSON.stringify({ seedRequest: { gridSetId: 'OSGB', zoomStart: 0, zoomStop: 2, format: 'image/png', type: 'seed', threadCount: 2 } }) })
  t.equal(res.statusCode, 200, res.body)
  await app.tileCache.breeder.idle()
  const sub = gridSubset(gs, [-6, 50, 2, 56])
  const expected = [0, 1, 2].reduce((n, z) => n + rectArea(sub.coverage(z)), 0)
  const dir = path.join(dataDir, 'tiles', 'uk', 'gb', 'OSGB')
  t.equal(files(dir).length, expected, `${expected} tiles seeded`)

  // Deleted: its tiles go, the layer no longer offers it, WMTS no longer lists it.
  t.equal((await app.inject({ method: 'DELETE', url: `${G}/OSGB.xml`, headers: ADMIN })).statusCode, 200)
  t.equal(files(dir).length, 0, 'its tiles dropped')
  const after = (await app.inject({ url: `${BASE}/gwc/rest/layers/${layer}.json`, headers: ADMIN })).json().GeoServerLayer
  t.same(after.gridSubsets.map((g: any) => g.gridSetName), ['EPSG:4326', 'EPSG:900913'])
  t.notMatch((await app.inject({ url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetCapabilities` })).body, /OSGB/)
  const gone = await app.inject({ url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=${layer}&STYLE=&TILEMATRIXSET=OSGB&TILEMATRIX=OSGB:2&TILEROW=${row}&TILECOL=3&FORMAT=image/png` })
  t.equal(gone.statusCode, 400, 'an unknown TileMatrixSet')
})

t.test('a grid set with scaleNames: its levels are those TileMatrix identifiers in WMTS capabilities, KVP and RESTful GetTile', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'uk', 'gb', { 'gb.tif': GB })
  const named = OSGB_XML.replace('<metersPerUnit>', '<scaleNames><string>national</string><string>regional</string><string>county</string><string>local</string></scaleNames><metersPerUnit>')
  t.equal((await app.inject({ method: 'PUT', url: `${G}/OSGB.xml`, headers: XML, payload: named })).statusCode, 201)
  const caps = (await app.inject({ url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetCapabilities` })).body
  const set = caps.slice(caps.indexOf('<ows:Identifier>OSGB</ows:Identifier>'))
  t.same([...set.slice(0, set.indexOf('</TileMatrixSet>')).matchAll(/<TileMatrix>\n {8}<ows:Identifier>([^<]+)</g)].map((m) => m[1]), ['national', 'regional', 'county', 'local'])
  t.match(caps, /<TileMatrixSet>OSGB<\/TileMatrixSet>\n {8}<TileMatrixSetLimits>\n {10}<TileMatrixLimits>\n {12}<TileMatrix>national<\/TileMatrix>/)
  const gs = gridSetOf(parseGridSet('OSGB', { srs: '27700', extent: [0, 0, 700000, 1300000], resolutions: [2000, 1000, 500, 250] }))
  const row = tilesHigh(gs, 2) - 1 - 2
  const kvp = (tm: string) => app.inject({ url: `${BASE}/gwc/service/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=${layer}&STYLE=&TILEMATRIXSET=OSGB&TILEMATRIX=${tm}&TILEROW=${row}&TILECOL=3&FORMAT=image/png` })
  const tile = await kvp('county')
  t.equal(tile.statusCode, 200, tile.body)
  const rest = await app.inject({ url: `${BASE}/gwc/service/wmts/rest/${layer}/raster/OSGB/county/${row}/3?format=image/png` })
  t.equal(rest.statusCode, 200, rest.body)
  t.same(rest.rawPayload, tile.rawPayload, 'the same tile')
  const tms = await app.inject({ url: `${BASE}/gwc/service/tms/1.0.0/${encodeURIComponent(`${layer}@OSGB@png`)}/2/3/2.png` })
  t.same(tms.rawPayload, tile.rawPayload, 'level 2 of TMS')
  const other = await kvp('OSGB:2')
  t.equal(other.statusCode, 400, 'a grid set with names is addressed by them, as GWC looks them up')
  t.match(other.body, 'TILEMATRIX "OSGB:2" is not a TileMatrix of OSGB (national to local)')
})

t.test('deleting a grid set while a seed works in it leaves none of its tiles', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir })
  const layer = await createMosaic(app, 'uk', 'gb', { 'gb.tif': GB })
  t.equal((await app.inject({ method: 'PUT', url: `${G}/OSGB.xml`, headers: XML, payload: OSGB_XML })).statusCode, 201)
  const res = await app.inject({ method: 'POST', url: `${BASE}/gwc/rest/seed/${layer}.json`, headers: JSON_BODY, payload: JSON.stringify({ seedRequest: { gridSetId: 'OSGB', zoomStart: 0, zoomStop: 3, format: 'image/png', type: 'seed', threadCount: 2 } }) })
  t.equal(res.statusCode, 200, res.body)
  // Whether the seed is still running or done by now, the deletion stops it and drops what it wrote.
  t.equal((await app.inject({ method: 'DELETE', url: `${G}/OSGB`, headers: ADMIN })).statusCode, 200)
  await app.tileCache.breeder.idle()
  t.same(files(path.join(dataDir, 'tiles', 'uk', 'gb', 'OSGB')), [], 'no tile of the deleted grid set')
  t.same(app.tileCache.tasks(layer), [], 'no task left')
})

t.test('a custom grid set is kept over a restart and, on a shared database, seen by every instance', async (t) => {
  const dataDir = tempDir(t)
  const app = await build(t, { dataDir, keepOpen: true })
  t.equal((await app.inject({ method: 'PUT', url: `${G}/OSGB.xml`, headers: XML, payload: OSGB_XML })).statusCode, 201)
  const shown = (await app.inject({ url: `${G}/OSGB.xml`, headers: ADMIN })).body
  await app.close()
  const again = await build(t, { dataDir })
  const res = await again.inject({ url: `${G}/OSGB.xml`, headers: ADMIN })
  t.equal(res.statusCode, 200)
  t.equal(res.body, shown, 'kept over a restart')
  if (TEST_BACKEND !== 'pg') return

  const two = await build(t, { dataDir })
  t.equal((await two.inject({ url: `${G}/OSGB.xml`, headers: ADMIN })).body, shown, 'the second instance reads it at start')
  t.equal((await again.inject({ method: 'PUT', url: `${G}/LAEA.json`, headers: JSON_BODY, payload: JSON.stringify({ gridSet: { name: 'LAEA', srs: { number: 3035 }, extent: { coords: [2000000, 1000000, 7000000, 6000000] }, resolutions: [4000, 2000] } }) })).statusCode, 201)
  await until('the other instance sees the new grid set', async () => (await two.inject({ url: `${G}/LAEA.json`, headers: ADMIN })).statusCode === 200)
  t.same((await two.inject({ url: `${G}.json`, headers: ADMIN })).json(), ['EPSG:4326', 'EPSG:900913', 'GlobalCRS84Pixel', 'GlobalCRS84Scale', 'GoogleCRS84Quad', 'LAEA', 'OSGB'])
  t.equal((await two.inject({ method: 'DELETE', url: `${G}/OSGB`, headers: ADMIN })).statusCode, 200)
  await until('the first instance sees the deletion', async () => (await again.inject({ url: `${G}/OSGB.json`, headers: ADMIN })).statusCode === 404)
  t.same((await again.inject({ url: `${G}.json`, headers: ADMIN })).json(), ['EPSG:4326', 'EPSG:900913', 'GlobalCRS84Pixel', 'GlobalCRS84Scale', 'GoogleCRS84Quad', 'LAEA'])
})
