import t from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import crypto from 'node:crypto'
import { pathToFileURL } from 'node:url'
import { build, ADMIN, BASE, TEST_BACKEND, tempDir } from '../../helper.js'
import { makeTiff, makeZip, INDEXER, TIMEREGEX, ELEVATIONREGEX } from '../../fixtures/mosaics/make.js'
import { renderMosaic, closeRenderCache } from '../../../services/render/raster/render-mosaic.js'
import { appRows } from '../../fixtures/catalog-rows.js'

t.teardown(closeRenderCache)

const R = `${BASE}/rest/workspaces/ws/coveragestores`
const G = `${R}/temp/coverages/temp/index/granules`
const FIXTURES = new URL('../../../../test/fixtures/mosaics/', import.meta.url)
const fixture = (name: string) => fs.readFileSync(new URL(name, FIXTURES), 'utf8')
const rows = (_x: number, y: number) => y

const GRANULE_1 = makeTiff({ width: 20, height: 20, bbox: [0, 40, 10, 50], value: rows })
const GRANULE_2 = makeTiff({ width: 20, height: 20, bbox: [5, 45, 15, 55], value: rows })

async function sampleZip (extra: Record<string, string | Buffer> = {}) {
  return await makeZip({
    'indexer.properties': INDEXER,
    'timeregex.properties': TIMEREGEX,
    'elevationregex.properties': ELEVATIONREGEX,
    'temp_20081101T000000_0.tif': GRANULE_1,
    'temp_20081102T000000_100.tif': GRANULE_2,
    ...extra
  })
}

async function setup (t: any, opts: Record<string, unknown> = {}) {
  const app = await build(t, opts)
  await app.workspaces.create({ name: 'ws' })
  return app
}

function put (app: any, zip: Buffer, query = '') {
  return app.inject({ method: 'PUT', url: `${R}/temp/file.imagemosaic${query}`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: zip })
}
const get = (app: any, url: string) => app.inject({ method: 'GET', url, headers: ADMIN })
const del = (app: any, url: string) => app.inject({ method: 'DELETE', url, headers: ADMIN })
const harvest = (app: any, body: string, store = 'temp') =>
  app.inject({ method: 'POST', url: `${R}/${store}/external.imagemosaic`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: body })

/** relative path, size and sha256 of every file under the data dir (the WAL-mode database aside). */
function manifest (dir: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const rel = path.relative(dir, p)
      if (/^catalog\.db/.test(rel) || rel.startsWith(path.join('tmp', 'uploads'))) continue
      if (e.isDirectory()) { out.push(rel + '/'); walk(p) } else out.push(`${rel} ${fs.statSync(p).size} ${crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex')}`)
    }
  }
  walk(dir)
  return out.sort()
}

/** yazl refuses unsafe names, so hostile archives get them patched in (same length, both headers). */
function renameEntry (zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('names must have the same length')
  const out = Buffer.from(zip)
  let i = 0
  let n = 0
  while ((i = out.indexOf(from, i)) >= 0) { out.write(to, i); i += from.length; n++ }
  if (n < 2) throw new Error('entry name not found in both headers')
  return out
}

function dataDirOf (app: any): string { return app.config.dataDir }

t.test('PUT file.imagemosaic answers the coverageStore; store, coverages, index and granules read back exactly', async (t) => {
  const app = await setup(t)
  const res = await put(app, await sampleZip())
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'application/xml')
  t.equal(res.body, fixture('upload-store.xml'))
  const bodies: Array<[string, string, string]> = [
    ['temp.xml', 'store.xml', 'application/xml'], ['temp.json', 'store.json', 'application/json; charset=utf-8'],
    ['temp/coverages.xml', 'coverages.xml', 'application/xml'], ['temp/coverages.json', 'coverages.json', 'application/json; charset=utf-8'],
    ['temp/coverages/temp.xml', 'coverage.xml', 'application/xml'], ['temp/coverages/temp.json', 'coverage.json', 'application/json; charset=utf-8'],
    ['temp/coverages/temp/index.xml', 'index.xml', 'application/xml'], ['temp/coverages/temp/index.json', 'index.json', 'application/json; charset=utf-8'],
    ['temp/coverages/temp/index/granules.xml', 'granules.xml', 'application/xml'], ['temp/coverages/temp/index/granules.json', 'granules.json', 'application/json; charset=utf-8']
  ]
  for (const [url, file, type] of bodies) {
    const r = await get(app, `${R}/${url}`)
    t.equal(r.statusCode, 200, url)
    t.equal(r.headers['content-type'], type, url)
    t.equal(r.body, fixture(file), url)
  }
  t.ok(fs.existsSync(path.join(dataDirOf(app), 'data', 'ws', 'temp', 'temp_20081101T000000_0.tif')))
  const layer = await app.layers.get('ws', 'temp')
  t.equal(layer!.type, 'RASTER')
  // The JSON form of the upload answer.
  const json = await app.inject({ method: 'PUT', url: `${R}/temp/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'application/zip', accept: 'application/json' }, payload: await sampleZip() })
  t.equal(json.statusCode, 200)
  t.equal(json.body, '{"coverageStore":{"name":"temp","type":"ImageMosaic","enabled":true,"workspace":{"name":"ws"},"_default":false,"url":"file:data/ws/temp"}}')
  t.equal((await get(app, `${G}.json`)).body, fixture('granules.json'), 'replacing the store re-indexes the same granules')
})

t.test('[hostile #53] [hostile #54] granule queries: ECQL filters, paging, single granules', async (t) => {
  const app = await setup(t)
  t.equal((await put(app, await sampleZip())).statusCode, 200)
  const ids = async (q: string) => {
    const r = await get(app, `${G}.json?${q}`)
    t.equal(r.statusCode, 200, q)
    return JSON.parse(r.body).features.map((f: any) => f.id)
  }
  t.same(await ids('filter=' + encodeURIComponent('elevation>0')), ['temp.2'])
  t.same(await ids('filter=' + encodeURIComponent('ingestion=2008-11-01T00:00:00Z')), ['temp.1'])
  t.same(await ids('filter=' + encodeURIComponent("location='temp_20081102T000000_100.tif'")), ['temp.2'])
  t.same(await ids('filter=' + encodeURIComponent('elevation>=0 AND ingestion DURING 2008-11-01T12:00:00Z/2008-11-03T00:00:00Z')), ['temp.2'])
  t.same(await ids('filter=' + encodeURIComponent('ingestion BEFORE 2008-11-02T00:00:00Z')), ['temp.1'])
  t.same(await ids('filter=' + encodeURIComponent('BBOX(the_geom, 11, 51, 12, 52)')), ['temp.2'])
  t.same(await ids('filter=' + encodeURIComponent('INTERSECTS(the_geom, POINT(1 41))')), ['temp.1'])
  t.same(await ids('filter=' + encodeURIComponent('elevation IN (0, 100) AND NOT elevation BETWEEN 50 AND 150')), ['temp.1'])
  t.same(await ids('filter=' + encodeURIComponent("location LIKE 'temp_%_100.tif'")), ['temp.2'])
  t.same(await ids('filter=' + encodeURIComponent("location LIKE 'TEMP%'")), [], 'LIKE is case-sensitive')
  t.same(await ids('filter=' + encodeURIComponent("location ILIKE 'TEMP%'")), ['temp.1', 'temp.2'])
  t.same(await ids('filter=INCLUDE'), ['temp.1', 'temp.2'])
  t.same(await ids('filter=EXCLUDE'), [])
  t.same(await ids('filter=' + encodeURIComponent("location = 'x'' OR ''1''=''1'")), [], 'quotes stay inside the literal')
  t.same(await ids('offset=1'), ['temp.2'])
  t.same(await ids('limit=1'), ['temp.1'])
  t.same(await ids('offset=1&limit=5'), ['temp.2'])

  const bad: Array<[string, string]> = [
    ['filter=' + encodeURIComponent('nosuch = 1'), 'Invalid cql syntax: unknown attribute "nosuch"; the index has the_geom, location, ingestion, elevation'],
    ['filter=' + encodeURIComponent('elevation >'), 'Invalid cql syntax: unexpected end of the filter'],
    ['filter=' + encodeURIComponent("strEndsWith(location,'x')=true"), 'Invalid cql syntax: function strEndsWith is not supported'],
    ['filter=' + encodeURIComponent("elevation IN ('a') OR 1=1"), 'Invalid cql syntax: comparison at position 22 tests values only; name an attribute of the index'],
    ['filter=' + encodeURIComponent("elevation IN ('a')"), 'Invalid cql syntax: "a" is not a number'],
    ['offset=-1', 'Invalid offset value: "-1"'],
    ['limit=0', 'Invalid limit value: "0"'],
    ['limit=abc', 'Invalid limit value: "abc"']
  ]
  for (const [q, msg] of bad) {
    const r = await get(app, `${G}.xml?${q}`)
    t.equal(r.statusCode, 400, q)
    t.equal(r.headers['content-type'], 'text/plain; charset=utf-8')
    t.equal(r.body, msg, q)
  }

  let r = await get(app, `${G}/temp.2.json`)
  t.equal(r.statusCode, 200)
  t.equal(r.body, '{"type":"FeatureCollection","features":[{"type":"Feature","id":"temp.2","geometry":{"type":"Polygon","coordinates":[[[5,45],[5,55],[15,55],[15,45],[5,45]]]},"properties":{"location":"temp_20081102T000000_100.tif","ingestion":"2008-11-02T00:00:00.000+0000","elevation":100}}],"crs":{"type":"name","properties":{"name":"EPSG:4326"}},"bbox":[5,45,15,55]}')
  r = await get(app, `${G}/temp.1.xml`)
  t.equal(r.statusCode, 200)
  t.match(r.body, /<gf:temp fid="temp.1">/)
  t.notMatch(r.body, /temp\.2/)
  r = await get(app, `${G}/temp.9.xml`)
  t.equal(r.statusCode, 404)
  t.equal(r.body, 'Could not find a granule with id temp.9 in coverage temp')

  for (const method of ['POST', 'PUT']) {
    r = await app.inject({ method, url: `${G}.xml`, headers: ADMIN })
    t.equal(r.statusCode, 405, `${method} granules`)
  }
  for (const method of ['POST', 'PUT', 'DELETE']) {
    r = await app.inject({ method, url: `${R}/temp/coverages/temp/index.xml`, headers: ADMIN })
    t.equal(r.statusCode, 405, `${method} index`)
  }
})

t.test('unknown workspace, store, coverage answer 404 with GeoServer messages; no credentials 401', async (t) => {
  const app = await setup(t)
  await put(app, await sampleZip())
  const cases: Array<[string, string]> = [
    [`${BASE}/rest/workspaces/nows/coveragestores/temp/coverages/temp/index.xml`, 'No such workspace : nows'],
    [`${R}/nostore/coverages/temp/index.xml`, 'No such coverage store: nostore'],
    [`${R}/temp/coverages/nocov/index.xml`, 'No such coverage in store: nocov'],
    [`${R}/temp/coverages/nocov/index/granules.json`, 'No such coverage in store: nocov'],
    [`${R}/nostore.xml`, 'No such coverage store: nostore']
  ]
  for (const [url, msg] of cases) {
    const r = await get(app, url)
    t.equal(r.statusCode, 404, url)
    t.equal(r.body, msg, url)
  }
  const r = await harvest(app, 'file:///tmp', 'nostore')
  t.equal(r.statusCode, 404)
  t.equal(r.body, 'No such coverage store: ws,nostore')
  const anon = await app.inject({ method: 'GET', url: `${G}.xml` })
  t.equal(anon.statusCode, 401)
})

t.test('[hostile #55] DELETE granules: filter required, purge validated, rows and files removed', async (t) => {
  const app = await setup(t)
  await put(app, await sampleZip())
  const dir = path.join(dataDirOf(app), 'data', 'ws', 'temp')
  const before = manifest(dataDirOf(app))
  let r = await del(app, `${G}.xml`)
  t.equal(r.statusCode, 400)
  t.equal(r.body, 'A filter is required to delete granules (use filter=INCLUDE to delete all of them)')
  r = await del(app, `${G}.xml?filter=INCLUDE&purge=bogus`)
  t.equal(r.statusCode, 400)
  t.equal(r.body, 'Invalid purge value "bogus", allowed values are [NONE, METADATA, ALL]')
  r = await del(app, `${G}.xml?filter=${encodeURIComponent('nosuch=1')}`)
  t.equal(r.statusCode, 400)
  t.same(manifest(dataDirOf(app)), before, 'refused deletes change nothing')
  t.equal(JSON.parse((await get(app, `${G}.json`)).body).features.length, 2)

  r = await del(app, `${G}.xml?filter=${encodeURIComponent("location='temp_20081101T000000_0.tif'")}`)
  t.equal(r.statusCode, 200)
  t.same(JSON.parse((await get(app, `${G}.json`)).body).features.map((f: any) => f.id), ['temp.2'])
  t.ok(fs.existsSync(path.join(dir, 'temp_20081101T000000_0.tif')), 'purge=none keeps the file')
  const cov = JSON.parse((await get(app, `${R}/temp/coverages/temp.json`)).body).coverage
  t.same(cov.nativeBoundingBox, { minx: 5, maxx: 15, miny: 45, maxy: 55, crs: 'EPSG:4326' }, 'bounds follow the index')

  r = await del(app, `${G}/temp.2?purge=all`)
  t.equal(r.statusCode, 200)
  t.notOk(fs.existsSync(path.join(dir, 'temp_20081102T000000_100.tif')), 'purge=all removes the file')
  t.equal((await get(app, `${G}.json`)).body, '{"type":"FeatureCollection","features":[],"crs":{"type":"name","properties":{"name":"EPSG:4326"}}}')
  t.equal((await get(app, `${G}.xml`)).body, [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<wfs:FeatureCollection xmlns:wfs="http://www.opengis.net/wfs" xmlns:gf="http://www.geoserver.org/rest/granules" xmlns:gml="http://www.opengis.net/gml" xmlns:ogc="http://www.opengis.net/ogc" xmlns:xs="http://www.w3.org/2001/XMLSchema">',
    '  <gml:boundedBy>',
    '    <gml:null>unknown</gml:null>',
    '  </gml:boundedBy>',
    '</wfs:FeatureCollection>'
  ].join('\n'))
  r = await del(app, `${G}/temp.2`)
  t.equal(r.statusCode, 404)
})

t.test('empty mosaic with configure=none, harvest under the roots, then POST coverages', async (t) => {
  const root = fs.realpathSync(tempDir(t, 'mwroot'))
  const app = await setup(t, { harvestRoots: [root] })
  const indexerXml = `<?xml version="1.0" encoding="UTF-8"?>
<Indexer>
  <domains>
    <domain name="time"><attributes><attribute ref="ingestion"/></attributes></domain>
    <domain name="elevation"><attributes><attribute ref="elevation"/></attributes></domain>
  </domains>
  <collectors>
    <collector spi="TimestampFileNameExtractorSPI" name="ingestionCollector"><value>timeregex</value><mapped>ingestion</mapped></collector>
    <collector spi="IntegerFileNameExtractorSPI" name="elevationCollector"><value>elevationregex</value><mapped>elevation</mapped></collector>
  </collectors>
  <schemas><schema name="default"><attributes>the_geom:Polygon,location:String,ingestion:java.util.Date,elevation:Integer</attributes></schema></schemas>
  <parameters>
    <parameter name="CanBeEmpty" value="true"/>
    <parameter name="Name" value="temp"/>
    <parameter name="AbsolutePath" value="true"/>
  </parameters>
</Indexer>`
  const datastore = 'SPI=org.geotools.data.h2.H2DataStoreFactory\ndatabase=empty\ndbtype=h2\nuser=geosolutions\npasswd=geosolutions\nLoose\\ bbox=true\n'
  const zip = await makeZip({ 'indexer.xml': indexerXml, 'datastore.properties': datastore, 'timeregex.properties': TIMEREGEX, 'elevationregex.properties': ELEVATIONREGEX })
  let r = await put(app, zip)
  t.equal(r.statusCode, 400, 'an empty mosaic needs configure=none')
  t.match(r.body, /^Could not find appropriate imagemosaic file in archive/)
  r = await put(app, zip, '?configure=none')
  t.equal(r.statusCode, 200)
  t.equal(r.body, '')
  t.equal((await get(app, `${R}/temp/coverages.json`)).body, '{"coverages":""}')
  t.equal((await get(app, `${R}/temp/coverages.xml`)).body, '<coverages/>')

  fs.mkdirSync(path.join(root, 'in'))
  fs.writeFileSync(path.join(root, 'in', 'temp_20081101T000000_0.tif'), GRANULE_1)
  fs.writeFileSync(path.join(root, 'in', 'temp_20081102T000000_100.tif'), GRANULE_2)
  r = await harvest(app, pathToFileURL(path.join(root, 'in')).href)
  t.equal(r.statusCode, 201)
  t.equal(r.body, '')
  r = await harvest(app, path.join(root, 'in', 'temp_20081101T000000_0.tif'))
  t.equal(r.statusCode, 201, 're-harvesting one file is idempotent')
  t.same(await appRows(app, "SELECT seq, location FROM mosaic_granules WHERE store = 'temp' ORDER BY seq"), [
    { seq: 1, location: path.join(root, 'in', 'temp_20081101T000000_0.tif') },
    { seq: 2, location: path.join(root, 'in', 'temp_20081102T000000_100.tif') }
  ])

  r = await app.inject({ method: 'POST', url: `${R}/temp/coverages`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<coverage><nativeCoverageName>temp</nativeCoverageName><name>temp</name></coverage>' })
  t.equal(r.statusCode, 201)
  t.equal(r.body, 'temp')
  t.equal(r.headers.location, 'http://localhost:80/geoserver/rest/workspaces/ws/coveragestores/temp/coverages/temp')
  r = await app.inject({ method: 'POST', url: `${R}/temp/coverages`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<coverage><name>temp</name></coverage>' })
  t.equal(r.statusCode, 409)
  r = await app.inject({ method: 'POST', url: `${R}/temp/coverages`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<coverage><name>temp</name>' })
  t.equal(r.statusCode, 400)
  t.match(r.body, /^Malformed XML/)
  const layer = await app.layers.get('ws', 'temp')
  t.same(layer!.bbox, [0, 40, 15, 55])
  const job = await app.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [0, 40, 15, 55], width: 15, height: 15 })
  t.equal(job.granules.length, 1, 'default time and elevation pick one granule')

  // A granule added later extends the bounds of the configured coverage.
  fs.writeFileSync(path.join(root, 'temp_20081103T000000_0.tif'), makeTiff({ width: 4, height: 4, bbox: [20, 40, 30, 50], value: () => 1 }))
  r = await harvest(app, path.join(root, 'temp_20081103T000000_0.tif'))
  t.equal(r.statusCode, 201)
  t.same((await app.layers.get('ws', 'temp'))!.bbox, [0, 40, 30, 55])
})

// Locations outside the harvest roots and non-file URLs: test/hostile/granules.test.ts ([hostile #56]).
t.test('a harvest into a store that does not exist is 404', async (t) => {
  const app = await setup(t)
  const r = await harvest(app, 'file:///tmp')
  t.equal(r.statusCode, 404, 'no store there')
})

t.test('bad uploads are refused with a message and leave the data directory unchanged', async (t) => {
  const app = await setup(t, { zipMaxBytes: 200_000, zipMaxEntries: 20 })
  t.equal((await put(app, await sampleZip())).statusCode, 200)
  const before = manifest(dataDirOf(app))
  const granulesBefore = (await get(app, `${G}.json`)).body
  const big = Buffer.alloc(300_000, 0)
  const cases: Array<[string, Buffer | string, number, RegExp, string?]> = [
    ['zip-slip', renameEntry(await sampleZip({ 'xx/evil.tif': GRANULE_1 }), 'xx/evil.tif', '../evil.tif'), 400, /^Unsafe ZIP entry/],
    ['absolute entry', renameEntry(await makeZip({ 'etc/cron.d/x': 'x' }), 'etc/cron.d/x', '/tc/cron.d/x'), 400, /^Unsafe ZIP entry/],
    ['zip bomb', await makeZip({ 'indexer.properties': INDEXER, 'bomb.bin': big }), 413, /^ZIP archive expands past the limit/],
    ['too many entries', await makeZip(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}.txt`, 'x']))), 400, /more than 20 entries/],
    ['no indexer, no granules', await makeZip({ 'readme.txt': 'hello' }), 400, /^Could not find appropriate imagemosaic file in archive/],
    ['only corrupt granules', await makeZip({ 'indexer.properties': INDEXER, 'timeregex.properties': TIMEREGEX, 'elevationregex.properties': ELEVATIONREGEX, 'bad_20081101T000000_0.tif': GRANULE_1.subarray(0, GRANULE_1.length - 100) }), 400, /^No granule could be indexed: bad_20081101T000000_0.tif: truncated/],
    ['not a zip', 'this is not a zip', 400, /^Not a ZIP archive/],
    ['remote index', await sampleZip({ 'datastore.properties': 'SPI=org.geotools.data.postgis.PostgisNGDataStoreFactory\nhost=10.0.0.1\n' }), 400, /^Invalid mosaic configuration: datastore.properties names/],
    ['jndi index', await sampleZip({ 'datastore.properties': 'jndiReferenceName=java:comp/env/jdbc/x\n' }), 400, /jndiReferenceName is not supported/],
    ['env substitution', await sampleZip({ 'datastore.properties': 'SPI=org.geotools.data.h2.H2DataStoreFactory\npasswd=${ENV_SECRET}\n' }), 400, /substitutions/],
    ['file: database', await sampleZip({ 'datastore.properties': 'SPI=org.geotools.data.h2.H2DataStoreFactory\ndatabase=file:/etc/x\n' }), 400, /plain name/],
    ['bad schema', await sampleZip({ 'indexer.properties': 'Schema=*the_geom:Polygon,location:String,x:java.lang.Thread\n' }), 400, /unsupported attribute type "java.lang.Thread"/],
    ['bad regex', await sampleZip({ 'timeregex.properties': 'regex=([0-9\n' }), 400, /invalid regex/]
  ]
  for (const [name, zip, status, msg] of cases) {
    const r = await put(app, Buffer.isBuffer(zip) ? zip : Buffer.from(zip))
    t.equal(r.statusCode, status, name)
    t.equal(r.headers['content-type'], 'text/plain; charset=utf-8', name)
    t.match(r.body, msg, name)
    t.notMatch(r.body, new RegExp(dataDirOf(app).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'no absolute path in the message')
    t.same(manifest(dataDirOf(app)), before, `${name}: data dir unchanged`)
  }
  let r = await app.inject({ method: 'PUT', url: `${R}/temp/file.imagemosaic`, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: 'x' })
  t.equal(r.statusCode, 415)
  r = await app.inject({ method: 'PUT', url: `${R}/temp/file.netcdf`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await sampleZip() })
  t.equal(r.statusCode, 400)
  t.equal(r.body, 'Unsupported format: netcdf, available formats are: [geotiff, imagemosaic, worldimage]')
  t.equal((await get(app, `${G}.json`)).body, granulesBefore, 'index unchanged')
  t.same(manifest(dataDirOf(app)), before)
})

t.test('a corrupt GeoTIFF among good ones: the good are indexed, the bad one reported and not kept', async (t) => {
  const app = await setup(t)
  const r = await put(app, await sampleZip({ 'temp_20081103T000000_0.tif': GRANULE_1.subarray(0, GRANULE_1.length - 100), 'temp_20081104T000000_0.tif': Buffer.from('II*\0garbage') }))
  t.equal(r.statusCode, 200)
  t.ok(Array.isArray(r.headers.warning))
  const warnings = r.headers.warning as string[]
  t.equal(warnings.length, 2)
  t.equal(warnings[0], '199 mapwarden "Skipped granule temp_20081103T000000_0.tif: truncated: image data runs past the end of the file"')
  t.match(warnings[1], /^199 mapwarden "Skipped granule temp_20081104T000000_0.tif: /)
  const dir = path.join(dataDirOf(app), 'data', 'ws', 'temp')
  t.notOk(fs.existsSync(path.join(dir, 'temp_20081103T000000_0.tif')))
  t.notOk(fs.existsSync(path.join(dir, 'temp_20081104T000000_0.tif')))
  t.equal((await get(app, `${G}.json`)).body, fixture('granules.json'))
})

t.test('the catalog, index and files survive a restart', async (t) => {
  const dataDir = tempDir(t, 'mwdata')
  const app1 = await build(t, { dataDir, keepOpen: true })
  await app1.workspaces.create({ name: 'ws' })
  t.equal((await put(app1, await sampleZip())).statusCode, 200)
  const granules = (await get(app1, `${G}.xml`)).body
  await app1.close()
  const app2 = await build(t, { dataDir })
  t.equal((await get(app2, `${G}.xml`)).body, granules)
  t.equal((await get(app2, `${R}/temp/coverages/temp.xml`)).body, fixture('coverage.xml'))
  const job = await app2.mosaics.prepareRender({ layer: 'ws:temp', crs: 'EPSG:4326', bbox: [5, 45, 15, 55], width: 20, height: 20 })
  const img = await renderMosaic(job)
  t.same([...img.rgba.slice(0, 4)], [0, 0, 0, 255], 'row 0 of the latest granule')
  await app2.close()

  // A granule file lost while the server was down (a crash between file and index): its row goes
  // at the next start and the bounds follow.
  fs.rmSync(path.join(dataDir, 'data', 'ws', 'temp', 'temp_20081101T000000_0.tif'))
  const app3 = await build(t, { dataDir })
  t.same(JSON.parse((await get(app3, `${G}.json`)).body).features.map((f: any) => f.id), ['temp.2'])
  t.same((await app3.layers.get('ws', 'temp'))!.bbox, [5, 45, 15, 55])
})

t.test('concurrent PUTs of one store run one after the other and leave one whole mosaic', async (t) => {
  const app = await setup(t)
  const a = await sampleZip()
  const b = await makeZip({ 'indexer.properties': INDEXER, 'timeregex.properties': TIMEREGEX, 'elevationregex.properties': ELEVATIONREGEX, 'temp_20090101T000000_5.tif': GRANULE_1 })
  const results = await Promise.all([put(app, a), put(app, b), put(app, a), put(app, b)])
  t.same(results.map((r) => r.statusCode), [200, 200, 200, 200])
  // Which PUT runs last depends on when each body finished streaming; either way index and files
  // agree on one whole mosaic.
  const ids = JSON.parse((await get(app, `${G}.json`)).body).features.map((f: any) => f.properties.location)
  const fromA = ['temp_20081101T000000_0.tif', 'temp_20081102T000000_100.tif']
  const fromB = ['temp_20090101T000000_5.tif']
  const expected = ids.length === 2 ? fromA : fromB
  t.same(ids, expected, 'the granules of exactly one of the archives')
  t.same(fs.readdirSync(path.join(dataDirOf(app), 'data', 'ws', 'temp')).sort(), ['elevationregex.properties', 'indexer.properties', ...expected, 'timeregex.properties'].sort())
  t.same(fs.readdirSync(path.join(dataDirOf(app), 'tmp')).filter((f) => f !== 'uploads'), [], 'no staging left')
})

t.test('deleting the workspace with recurse removes the mosaic rows and files', async (t) => {
  const app = await setup(t)
  await put(app, await sampleZip())
  const r = await del(app, `${BASE}/rest/workspaces/ws?recurse=true`)
  t.equal(r.statusCode, 200)
  t.notOk(fs.existsSync(path.join(dataDirOf(app), 'data', 'ws')))
  t.equal((await appRows(app, 'SELECT count(*) AS n FROM mosaic_granules'))[0].n, 0)
  // SQLite's R*Tree index of the granules is a table of its own; PostgreSQL indexes mosaic_granules itself.
  if (TEST_BACKEND === 'sqlite') t.equal((await appRows(app, 'SELECT count(*) AS n FROM mosaic_granules_rtree'))[0].n, 0)
  t.equal((await appRows(app, 'SELECT count(*) AS n FROM mosaic_stores'))[0].n, 0)
})

t.test('PUT coverage merges dimension settings; DELETE store needs recurse and removes files', async (t) => {
  const app = await setup(t)
  await put(app, await sampleZip())
  let r = await app.inject({
    method: 'PUT',
    url: `${R}/temp/coverages/temp.json`,
    headers: { ...ADMIN, 'content-type': 'application/json' },
    payload: '{"coverage":{"title":"Water temperature","metadata":{"entry":[{"@key":"elevation","dimensionInfo":{"enabled":false}},{"@key":"time","dimensionInfo":{"enabled":true,"presentation":"CONTINUOUS_INTERVAL","units":"ISO8601"}}]}}}'
  })
  t.equal(r.statusCode, 200)
  const cov = JSON.parse((await get(app, `${R}/temp/coverages/temp.json`)).body).coverage
  t.equal(cov.title, 'Water temperature')
  t.same(cov.metadata.entry.map((e: any) => [e['@key'], e.dimensionInfo.enabled, e.dimensionInfo.presentation]), [['time', true, 'CONTINUOUS_INTERVAL'], ['elevation', false, 'LIST']])
  t.same((await app.layers.get('ws', 'temp'))!.config.dimensions, { time: true, elevation: false })
  r = await app.inject({ method: 'PUT', url: `${R}/temp/coverages/temp.xml`, headers: { ...ADMIN, 'content-type': 'text/xml' }, payload: '<coverage><enabled>maybe</enabled></coverage>' })
  t.equal(r.statusCode, 400)

  r = await del(app, `${R}/temp`)
  t.equal(r.statusCode, 403)
  t.equal(r.body, 'Unable to delete non-empty coverage store temp, use recurse=true')
  r = await del(app, `${R}/temp?recurse=true`)
  t.equal(r.statusCode, 200)
  t.notOk(fs.existsSync(path.join(dataDirOf(app), 'data', 'ws', 'temp')))
  t.equal(await app.layers.get('ws', 'temp'), undefined)
  t.equal((await appRows(app, 'SELECT count(*) AS n FROM mosaic_granules'))[0].n, 0)
  // SQLite's R*Tree index of the granules is a table of its own; PostgreSQL indexes mosaic_granules itself.
  if (TEST_BACKEND === 'sqlite') t.equal((await appRows(app, 'SELECT count(*) AS n FROM mosaic_granules_rtree'))[0].n, 0)
  r = await get(app, `${R}/temp.xml`)
  t.equal(r.statusCode, 404)
})
