// Coverage PUT (issue 16 item 1): every field GET shows is applied by PUT, in XML and in JSON, and
// kept across a restart, or refused with a 400 naming it that changes nothing.
import t from 'tap'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import sharp from 'sharp'
import { makeTiff, makeZip, INDEXER, TIMEREGEX, ELEVATIONREGEX } from '../../fixtures/mosaics/make.js'
import { createMosaic, pattern, rgbTiff } from '../../fixtures/seed/mosaic.js'

const R = `${BASE}/rest/workspaces/ws/coveragestores`
const C = `${R}/temp/coverages/temp`
const rows = (_x: number, y: number) => y

async function setup (t: any, opts: { dataDir?: string, bands?: number } = {}) {
  const app = await build(t, { dataDir: opts.dataDir, keepOpen: opts.dataDir !== undefined })
  await app.workspaces.create({ name: 'ws' })
  const bands = opts.bands ?? 1
  const zip = await makeZip({
    'indexer.properties': INDEXER,
    'timeregex.properties': TIMEREGEX,
    'elevationregex.properties': ELEVATIONREGEX,
    'temp_20081101T000000_0.tif': makeTiff({ width: 20, height: 20, bbox: [0, 40, 10, 50], value: rows, bands }),
    'temp_20081102T000000_100.tif': makeTiff({ width: 20, height: 20, bbox: [5, 45, 15, 55], value: rows, bands })
  })
  const r = await app.inject({ method: 'PUT', url: `${R}/temp/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
  t.equal(r.statusCode, 200, 'mosaic uploaded')
  return app
}

const get = (app: any, url: string) => app.inject({ method: 'GET', url, headers: ADMIN })
const putJson = (app: any, body: unknown) =>
  app.inject({ method: 'PUT', url: `${C}.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: typeof body === 'string' ? body : JSON.stringify(body) })
const putXml = (app: any, body: string) =>
  app.inject({ method: 'PUT', url: `${C}.xml`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: body })
const coverageJson = async (app: any) => JSON.parse((await get(app, `${C}.json`)).body).coverage

t.test("geoserver-node-client's renameCoverageBands renames the band, and GET (store and workspace paths, XML and JSON) shows it", async (t) => {
  const app = await setup(t)
  const range = (await coverageJson(app)).dimensions.coverageDimension[0].range
  const r = await putJson(app, '{"coverage":{"dimensions":{"coverageDimension":[{"name":"sst"}]}}}')
  t.equal(r.statusCode, 200)
  const cov = await coverageJson(app)
  t.same(cov.dimensions.coverageDimension.map((d: any) => [d.name, d.description]), [['sst', 'sst of Byte']])
  t.same(cov.dimensions.coverageDimension[0].range, range, 'range untouched')
  t.match((await get(app, `${C}.xml`)).body, /<coverageDimension>\n {6}<name>sst<\/name>/)
  const byWorkspace = JSON.parse((await get(app, `${BASE}/rest/workspaces/ws/coverages/temp.json`)).body).coverage
  t.equal(byWorkspace.dimensions.coverageDimension[0].name, 'sst')
})

t.test('GET, change every writable field, PUT back in XML: the next GET shows each change, and so does a restart', async (t) => {
  const dataDir = tempDir(t, 'mwdata')
  const app = await setup(t, { dataDir })
  const before = (await get(app, `${C}.xml`)).body as string
  const edited = before
    .replace('<title>temp</title>', '<title>Water temperature</title>\n  <abstract>Sea surface, daily</abstract>\n  <keywords>\n    <string>ocean</string>\n    <string>sst</string>\n  </keywords>')
    .replace('<projectionPolicy>REPROJECT_TO_DECLARED</projectionPolicy>', '<projectionPolicy>FORCE_DECLARED</projectionPolicy>')
    .replace('<enabled>true</enabled>\n  <metadata>', '<enabled>false</enabled>\n  <metadata>')
    .replace(/(<entry key="time">\s*<dimensionInfo>\s*)<enabled>true<\/enabled>(\s*<attribute>ingestion<\/attribute>\s*)<presentation>LIST<\/presentation>/,
      '$1<enabled>true</enabled>$2<presentation>DISCRETE_INTERVAL</presentation>\n        <resolution>86400000</resolution>')
    .replace(/(<entry key="elevation">\s*<dimensionInfo>\s*)<enabled>true<\/enabled>/, '$1<enabled>false</enabled>')
    .replace('<unitSymbol>m</unitSymbol>', '<unitSymbol>ft</unitSymbol>')
    .replace('</metadata>', '  <entry key="dirName">temp_temp</entry>\n  </metadata>')
    .replace('<name>GRAY_INDEX</name>\n      <description>GRAY_INDEX of Byte</description>', '<name>sst</name>\n      <description>Sea surface temperature</description>')
  t.not(edited, before)
  t.equal((await putXml(app, edited)).statusCode, 200)
  const check = async (a: any, label: string) => {
    const cov = await coverageJson(a)
    t.equal(cov.title, 'Water temperature', `${label}: title`)
    t.equal(cov.abstract, 'Sea surface, daily', `${label}: abstract`)
    t.same(cov.keywords, { string: ['ocean', 'sst'] }, `${label}: keywords`)
    t.equal(cov.projectionPolicy, 'FORCE_DECLARED', `${label}: projectionPolicy`)
    t.equal(cov.enabled, false, `${label}: enabled`)
    const entries = Object.fromEntries(cov.metadata.entry.map((e: any) => [e['@key'], e.dimensionInfo ?? e.$]))
    t.match(entries.time, { enabled: true, presentation: 'DISCRETE_INTERVAL', resolution: 86400000 }, `${label}: time`)
    t.match(entries.elevation, { enabled: false, unitSymbol: 'ft' }, `${label}: elevation`)
    t.equal(entries.dirName, 'temp_temp', `${label}: other metadata`)
    t.same(cov.dimensions.coverageDimension.map((d: any) => [d.name, d.description]), [['sst', 'Sea surface temperature']], `${label}: band`)
    t.equal((await a.layers.get('ws', 'temp'))!.enabled, false, `${label}: the layer follows enabled`)
  }
  await check(app, 'after PUT')
  // The whole document sent back as GET shows it (GET-modify-PUT with nothing modified) changes nothing.
  const now = (await get(app, `${C}.xml`)).body
  t.equal((await putXml(app, now)).statusCode, 200)
  t.equal((await get(app, `${C}.xml`)).body, now)
  await app.close()
  await check(await setup2(t, dataDir), 'after a restart')
})

async function setup2 (t: any, dataDir: string) { return await build(t, { dataDir }) }

t.test('GET, change every writable field, PUT back in JSON: the next GET shows each change', async (t) => {
  const app = await setup(t, { bands: 3 })
  const cov = await coverageJson(app)
  t.same(cov.dimensions.coverageDimension.map((d: any) => d.name), ['RED_BAND', 'GREEN_BAND', 'BLUE_BAND'])
  cov.title = 'RGB'
  cov.abstract = 'Three bands'
  cov.keywords = { string: ['rgb'] }
  cov.projectionPolicy = 'NONE'
  cov.enabled = true
  cov.metadata.entry[0].dimensionInfo.presentation = 'CONTINUOUS_INTERVAL'
  cov.metadata.entry[0].dimensionInfo.units = 'ISO8601'
  cov.metadata.entry.push({ '@key': 'note', $: 'kept' })
  cov.dimensions.coverageDimension[0].name = 'red'
  cov.dimensions.coverageDimension[2].name = 'blue'
  cov.dimensions.coverageDimension[2].description = 'Blue light'
  const r = await putJson(app, { coverage: cov })
  t.equal(r.statusCode, 200, r.body)
  const after = await coverageJson(app)
  t.equal(after.title, 'RGB')
  t.equal(after.abstract, 'Three bands')
  t.same(after.keywords, { string: ['rgb'] })
  t.equal(after.projectionPolicy, 'NONE')
  t.equal(after.metadata.entry[0].dimensionInfo.presentation, 'CONTINUOUS_INTERVAL')
  t.same(after.metadata.entry[2], { '@key': 'note', $: 'kept' })
  t.same(after.dimensions.coverageDimension.map((d: any) => [d.name, d.description]),
    [['red', 'RED_BAND of Byte'], ['GREEN_BAND', 'GREEN_BAND of Byte'], ['blue', 'Blue light']], 'a description sent back as it was is kept as sent')
  // Clearing: empty abstract and keywords, the metadata entry with no value.
  t.equal((await putJson(app, { coverage: { abstract: '', keywords: '', metadata: { entry: [{ '@key': 'note', $: '' }] } } })).statusCode, 200)
  const cleared = await coverageJson(app)
  t.equal(cleared.abstract, undefined)
  t.equal(cleared.keywords, undefined)
  t.same(cleared.metadata.entry.map((e: any) => e['@key']), ['time', 'elevation'])
})

t.test('the renderer sees dimensions switched off by PUT: without them it draws every granule, not only the default one', async (t) => {
  const app = await setup(t)
  const job = async () => (await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 40, 15, 55], width: 20, height: 20 }))
    .granules.map((g: any) => g.path.replace(/.*[\\/]/, ''))
  t.same(await job(), ['temp_20081102T000000_100.tif'], 'time and elevation on: the latest time')
  t.equal((await putXml(app, '<coverage><metadata><entry key="time"><dimensionInfo><enabled>false</enabled></dimensionInfo></entry></metadata></coverage>')).statusCode, 200)
  t.same(await job(), ['temp_20081101T000000_0.tif'], 'time off: the lowest elevation')
  t.equal((await putJson(app, { coverage: { metadata: { entry: [{ '@key': 'elevation', dimensionInfo: { enabled: false } }] } } })).statusCode, 200)
  t.same((await job()).sort(), ['temp_20081101T000000_0.tif', 'temp_20081102T000000_100.tif'], 'both off: every granule')
})

t.test('a changed read-only field, another srs or an unknown field is a 400 naming it, and nothing changes', async (t) => {
  const app = await setup(t)
  const xml = (await get(app, `${C}.xml`)).body as string
  const json = (await get(app, `${C}.json`)).body as string
  const refused: Array<[string, () => Promise<any>, RegExp]> = [
    ['nativeName (XML)', () => putXml(app, xml.replace('<title>temp</title>', '<title>new</title>').replace('<nativeName>temp</nativeName>', '<nativeName>other</nativeName>')), /Field "nativeName" of coverage is read-only: it is "temp", the request sends "other"/],
    ['name (JSON)', () => putJson(app, { coverage: { name: 'renamed', title: 'new' } }), /Field "name" of coverage is read-only/],
    ['srs', () => putJson(app, { coverage: { srs: 'EPSG:3857', projectionPolicy: 'FORCE_DECLARED' } }), /srs "EPSG:3857" cannot be declared/],
    ['latLonBoundingBox', () => putJson(app, { coverage: { latLonBoundingBox: { minx: -180, maxx: 180, miny: -90, maxy: 90, crs: 'EPSG:4326' } } }), /Field "latLonBoundingBox" of coverage is read-only/],
    ['store', () => putXml(app, '<coverage><title>new</title><store class="coverageStore"><name>ws:other</name></store></coverage>'), /Field "store" of coverage is read-only/],
    ['band range', () => putJson(app, { coverage: { dimensions: { coverageDimension: [{ name: 'sst', range: { min: 0, max: 1000 } }] } } }), /Field "range" of coverage.dimensions.coverageDimension\[0\] is read-only/],
    ['band count', () => putJson(app, { coverage: { dimensions: { coverageDimension: [{ name: 'a' }, { name: 'b' }] } } }), /lists 2 band\(s\), the coverage has 1/],
    ['band field', () => putXml(app, '<coverage><dimensions><coverageDimension><name>sst</name><nullValues><double>0</double></nullValues></coverageDimension></dimensions></coverage>'), /Unknown field "nullValues" in coverage.dimensions.coverageDimension\[0\]/],
    ['unknown field', () => putJson(app, { coverage: { title: 'new', advertised: false } }), /Unknown field "advertised" in coverage/],
    ['dimension attribute', () => putXml(app, '<coverage><metadata><entry key="time"><dimensionInfo><attribute>other</attribute></dimensionInfo></entry></metadata></coverage>'), /Field "attribute" of coverage.metadata.entry\[time\].dimensionInfo is read-only/],
    ['default NEAREST', () => putJson(app, { coverage: { metadata: { entry: [{ '@key': 'time', dimensionInfo: { defaultValue: { strategy: 'NEAREST' } } }] } } }), /defaultValue.strategy NEAREST is not supported/],
    ['default FIXED without value', () => putJson(app, { coverage: { metadata: { entry: [{ '@key': 'time', dimensionInfo: { defaultValue: { strategy: 'FIXED' } } }] } } }), /the FIXED strategy needs a referenceValue/],
    ['default FIXED bad time', () => putXml(app, '<coverage><metadata><entry key="time"><dimensionInfo><defaultValue><strategy>FIXED</strategy><referenceValue>yesterday</referenceValue></defaultValue></dimensionInfo></entry></metadata></coverage>'), /referenceValue "yesterday" is not an ISO 8601 time/],
    ['raw nearest match', () => putJson(app, { coverage: { metadata: { entry: [{ '@key': 'time', dimensionInfo: { enabled: true, rawNearestMatchEnabled: true } }] } } }), /Field "rawNearestMatchEnabled" of coverage.metadata.entry\[time\].dimensionInfo is read-only: it is false, the request sends true/],
    ['acceptableInterval', () => putJson(app, { coverage: { metadata: { entry: [{ '@key': 'time', dimensionInfo: { nearestMatchEnabled: true, acceptableInterval: 'P1M' } }] } } }), /acceptableInterval "P1M" must be an ISO 8601 duration/],
    ['custom dimension', () => putJson(app, { coverage: { metadata: { entry: [{ '@key': 'custom_dimension_depth', dimensionInfo: { enabled: true } }] } } }), /custom dimensions are not supported/],
    ['projectionPolicy', () => putJson(app, { coverage: { projectionPolicy: 'SOMETIMES' } }), /projectionPolicy "SOMETIMES" is not one of/],
    ['presentation', () => putJson(app, { coverage: { metadata: { entry: [{ '@key': 'time', dimensionInfo: { presentation: 'GRID' } }] } } }), /presentation "GRID" is not one of/],
    ['type hint', () => putJson(app, { coverage: { '@class': 'java.lang.Runtime', title: 'x' } }), /Unknown field "@class" in coverage/]
  ]
  for (const [label, send, message] of refused) {
    const r = await send()
    t.equal(r.statusCode, 400, label)
    t.match(r.headers['content-type'], /^text\/plain/, label)
    t.match(r.body, message, label)
  }
  t.equal((await get(app, `${C}.xml`)).body, xml, 'nothing changed (XML)')
  t.equal((await get(app, `${C}.json`)).body, json, 'nothing changed (JSON)')
})

t.test('a style that selects a band by name (SourceChannelName) renders the band that carries that name after a rename', async (t) => {
  const app = await setup(t, { bands: 3 })
  const sld = (band: string) => `<?xml version="1.0" encoding="UTF-8"?>
<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld"><NamedLayer><Name>x</Name><UserStyle><Name>by-name</Name>
<FeatureTypeStyle><Rule><RasterSymbolizer><ChannelSelection><GrayChannel><SourceChannelName>${band}</SourceChannelName></GrayChannel></ChannelSelection></RasterSymbolizer></Rule></FeatureTypeStyle>
</UserStyle></NamedLayer></StyledLayerDescriptor>`
  for (const [name, band] of [['bydefault', 'BLUE_BAND'], ['byname', 'sst']]) {
    const r = await app.inject({ method: 'POST', url: `${BASE}/rest/styles?name=${name}`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: sld(band) })
    t.equal(r.statusCode, 201, r.body)
  }
  const render = async (styleName: string) => {
    const style = await app.styles.rasterStyleFor(undefined, styleName)
    return await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 40, 15, 55], width: 20, height: 20, style })
  }
  t.match((await render('bydefault')).style, { channels: { gray: 3 } }, "GeoServer's default name of band 3")
  await t.rejects(render('byname'), /the style selects band "sst", which ws:temp does not have \(its bands: RED_BAND, GREEN_BAND, BLUE_BAND\)/)
  const r = await putJson(app, { coverage: { dimensions: { coverageDimension: [{ name: 'red' }, { name: 'sst' }, { name: 'blue' }] } } })
  t.equal(r.statusCode, 200, r.body)
  const job = await render('byname')
  t.same(job.style, { channels: { gray: 2 } }, 'the name resolves to band 2, and the worker gets indexes only')
  await t.rejects(render('bydefault'), /which ws:temp does not have \(its bands: red, sst, blue\)/, 'the old name is gone')
})

t.test("geoserver-node-client's enableTimeCoverage body is applied, and defaultValue strategies choose what a request without TIME or ELEVATION draws", async (t) => {
  const app = await setup(t)
  const drawn = async () => (await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 40, 15, 55], width: 20, height: 20 }))
    .granules.map((g: any) => g.path.replace(/.*[\\/]/, '')).sort()
  const entry = (key: string, dimensionInfo: Record<string, unknown>) => ({ coverage: { metadata: { entry: [{ '@key': key, dimensionInfo }] } } })
  // enableTimeCoverage(ws, store, name, 'LIST', 3600000, 'MINIMUM', false, false): nearest match off.
  let r = await putJson(app, entry('time', { enabled: true, presentation: 'LIST', resolution: 3600000, units: 'ISO8601', defaultValue: { strategy: 'MINIMUM' }, nearestMatchEnabled: false, rawNearestMatchEnabled: false }))
  t.equal(r.statusCode, 200, r.body)
  const time = (await coverageJson(app)).metadata.entry.find((e: any) => e['@key'] === 'time').dimensionInfo
  t.match(time, { enabled: true, presentation: 'LIST', resolution: 3600000, units: 'ISO8601', defaultValue: { strategy: 'MINIMUM' } })
  t.same(await drawn(), ['temp_20081101T000000_0.tif'], 'time MINIMUM: the earliest granule')
  r = await putXml(app, '<coverage><metadata><entry key="time"><dimensionInfo><defaultValue><strategy>FIXED</strategy><referenceValue>2008-11-02T00:00:00Z</referenceValue></defaultValue></dimensionInfo></entry></metadata></coverage>')
  t.equal(r.statusCode, 200, r.body)
  t.same(await drawn(), ['temp_20081102T000000_100.tif'], 'time FIXED: the granule of that time')
  r = await putJson(app, { coverage: { metadata: { entry: [{ '@key': 'time', dimensionInfo: { enabled: false } }, { '@key': 'elevation', dimensionInfo: { defaultValue: { strategy: 'MAXIMUM' } } }] } } })
  t.equal(r.statusCode, 200, r.body)
  t.same(await drawn(), ['temp_20081102T000000_100.tif'], 'elevation MAXIMUM: the highest')
  r = await putJson(app, entry('elevation', { defaultValue: { strategy: 'FIXED', referenceValue: '0' } }))
  t.equal(r.statusCode, 200, r.body)
  t.same(await drawn(), ['temp_20081101T000000_0.tif'], 'elevation FIXED 0')
  r = await putJson(app, entry('elevation', { defaultValue: '' }))
  t.equal(r.statusCode, 200, r.body)
  t.match((await coverageJson(app)).metadata.entry.find((e: any) => e['@key'] === 'elevation').dimensionInfo.defaultValue, { strategy: 'MINIMUM' }, 'back to the default')
})

t.test("nearest match (enableTimeCoverage's nearestMatchEnabled and acceptableInterval): a TIME or ELEVATION between granules draws the closest one within the interval", async (t) => {
  const app = await setup(t)
  const drawn = async (q: { time?: string, elevation?: string }) => (await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 40, 15, 55], width: 20, height: 20, ...q }))
    .granules.map((g: any) => g.path.replace(/.*[\\/]/, '')).sort()
  t.same(await drawn({ time: '2008-11-01T06:00:00Z' }), [], 'exact match only: nothing at 06:00')
  // geoserver-node-client: enableTimeCoverage(ws, store, name, 'LIST', 3600000, 'MAXIMUM', true, false, 'PT12H')
  let r = await putJson(app, { coverage: { metadata: { entry: [{ '@key': 'time', dimensionInfo: { enabled: true, presentation: 'LIST', resolution: 3600000, units: 'ISO8601', defaultValue: { strategy: 'MAXIMUM' }, nearestMatchEnabled: true, rawNearestMatchEnabled: false, acceptableInterval: 'PT12H' } }] } } })
  t.equal(r.statusCode, 200, r.body)
  t.match((await coverageJson(app)).metadata.entry[0].dimensionInfo, { nearestMatchEnabled: true, acceptableInterval: 'PT12H' })
  t.same(await drawn({ time: '2008-11-01T06:00:00Z' }), ['temp_20081101T000000_0.tif'], '6 h after the first time: the first')
  t.same(await drawn({ time: '2008-11-01T20:00:00Z' }), ['temp_20081102T000000_100.tif'], '4 h before the second: the second')
  t.same(await drawn({ time: '2008-11-03T00:00:00Z' }), [], 'a day past the last: outside PT12H, nothing')
  r = await putXml(app, '<coverage><metadata><entry key="time"><dimensionInfo><acceptableInterval>P2D/PT0S</acceptableInterval></dimensionInfo></entry></metadata></coverage>')
  t.equal(r.statusCode, 200, r.body)
  t.same(await drawn({ time: '2008-11-03T00:00:00Z' }), ['temp_20081102T000000_100.tif'], 'two days back allowed')
  t.same(await drawn({ time: '2008-10-31T23:00:00Z' }), [], 'nothing ahead allowed')
  r = await putJson(app, { coverage: { metadata: { entry: [{ '@key': 'time', dimensionInfo: { enabled: false } }, { '@key': 'elevation', dimensionInfo: { nearestMatchEnabled: true } }] } } })
  t.equal(r.statusCode, 200, r.body)
  t.same(await drawn({ elevation: '90' }), ['temp_20081102T000000_100.tif'], 'elevation 90: the nearest, 100')
  t.same(await drawn({ elevation: '0/50' }), ['temp_20081101T000000_0.tif'], 'ranges stay ranges')
})

t.test('a coverage edit that changes what is drawn (band names a style selects by) makes the cached tiles stale; a title edit does not', async (t) => {
  const app = await build(t)
  const layer = await createMosaic(app, 'topo', 'rgb', { 'rgb.tif': rgbTiff(80, 80, [-20, -10, 20, 30], pattern) })
  const cov = `${BASE}/rest/workspaces/topo/coveragestores/rgb/coverages/rgb.json`
  const put = (body: unknown) => app.inject({ method: 'PUT', url: cov, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: JSON.stringify(body) })
  const bands = (names: string[]) => ({ coverage: { dimensions: { coverageDimension: names.map((name) => ({ name })) } } })
  t.equal((await put(bands(['r', 'sst', 'b']))).statusCode, 200)
  const sld = '<StyledLayerDescriptor version="1.0.0" xmlns="http://www.opengis.net/sld"><NamedLayer><Name>s</Name><UserStyle><Name>sst</Name><FeatureTypeStyle><Rule><RasterSymbolizer><ChannelSelection><GrayChannel><SourceChannelName>sst</SourceChannelName></GrayChannel></ChannelSelection></RasterSymbolizer></Rule></FeatureTypeStyle></UserStyle></NamedLayer></StyledLayerDescriptor>'
  t.equal((await app.inject({ method: 'POST', url: `${BASE}/rest/styles?name=sst`, headers: { ...ADMIN, 'content-type': 'application/vnd.ogc.sld+xml' }, payload: sld })).statusCode, 201)
  t.equal((await app.inject({ method: 'PUT', url: `${BASE}/rest/layers/${layer}.json`, headers: { ...ADMIN, 'content-type': 'application/json' }, payload: { layer: { styles: { style: [{ name: 'sst' }] } } } })).statusCode, 200)
  const tile = async () => {
    const res = await app.inject({ method: 'GET', url: `${BASE}/gwc/service/xyz/${layer}/EPSG:4326/2/4/1.png?STYLES=sst` })
    t.equal(res.statusCode, 200, res.body)
    await app.tileCache.invalidation.idle()
    return { result: res.headers['geowebcache-cache-result'], pixels: await sharp(res.rawPayload).ensureAlpha().raw().toBuffer() }
  }
  const first = await tile()
  t.equal(first.result, 'MISS')
  t.equal((await tile()).result, 'HIT')
  t.equal((await put({ coverage: { title: 'Only a title' } })).statusCode, 200)
  t.equal((await tile()).result, 'HIT', 'a title does not change a tile')
  t.equal((await put(bands(['r', 'g', 'sst']))).statusCode, 200)
  const after = await tile()
  t.equal(after.result, 'MISS', 'the band the style names moved: drawn again')
  t.notSame(after.pixels, first.pixels, 'from band 3 now')
})
