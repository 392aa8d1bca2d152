// Shapefile and GeoPackage uploads through GeoServer's DataStoreFileController URLs: PUT file.shp and
// file.gpkg (a ZIP), external.shp and external.gpkg (a location under the harvest roots), with
// configure=first|all|none, charset and update=overwrite; the store and its feature types created,
// the files kept under <dataDir>/data/<ws>/<store>/; a ZIP without its .dbf or .shx, a broken .prj,
// a .gpkg that is not SQLite: 400 naming it and nothing left on disk.
import t, { type Test } from 'tap'
import fs from 'node:fs'
import path from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, ADMIN, BASE, tempDir } from '../../helper.js'
import { createWorkspace, zipItems, type ZipItem } from '../appschema/helpers.js'
import { indexFileOf } from '../../../services/vector/shapefile-index.js'
import { writeGeoPackage, writeShapefile, ESRI_WGS84_PRJ, ESRI_UTM33N_PRJ } from '../../fixtures/vector/files.js'

const REST = `${BASE}/rest`
const DS = `${REST}/workspaces/vx/datastores`

interface Setup { app: FastifyInstance, root: string, dataDir: string, files: string }

async function setup (t: Test): Promise<Setup> {
  const root = tempDir(t, 'harvest')
  const dataDir = tempDir(t)
  const app = await build(t, { harvestRoots: [root], dataDir })
  await createWorkspace(app, 'vx')
  const files = tempDir(t, 'files')
  writeShapefile(files, 'parcels', {
    type: 'polygon',
    fields: [{ name: 'kind', type: 'C', length: 12 }],
    features: [{ geometry: { type: 'Polygon', coordinates: [[[1, 2], [2, 2], [2, 3], [1, 3], [1, 2]]] }, values: ['field'] }],
    prj: ESRI_WGS84_PRJ
  })
  writeShapefile(files, 'wells', {
    type: 'point',
    fields: [{ name: 'id', type: 'N', length: 5 }],
    features: [{ geometry: { type: 'Point', coordinates: [500000, 0] }, values: [1] }],
    prj: ESRI_UTM33N_PRJ
  })
  writeGeoPackage(path.join(files, 'city.gpkg'), [
    { name: 'places', columns: ['name TEXT'], geometryColumn: 'geom', geometryType: 'POINT', rtree: true, rows: [{ values: ['A'], geometry: { type: 'Point', coordinates: [3, 4] } }] },
    { name: 'roads', columns: ['kind TEXT'], geometryColumn: 'geom', geometryType: 'LINESTRING', rows: [{ values: ['main'], geometry: { type: 'LineString', coordinates: [[0, 0], [1, 1]] } }] }
  ])
  return { app, root, dataDir, files }
}

const shapefileItems = (dir: string, base: string, skip: string[] = [], folder = ''): ZipItem[] =>
  ['shp', 'shx', 'dbf', 'prj'].filter((e) => !skip.includes(e)).map((e) => ({ name: `${folder}${base}.${e}`, data: fs.readFileSync(path.join(dir, `${base}.${e}`)) }))

const putZip = async (app: FastifyInstance, url: string, items: ZipItem[]) =>
  app.inject({ method: 'PUT', url, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: await zipItems(items) })
const putText = (app: FastifyInstance, url: string, body: string) =>
  app.inject({ method: 'PUT', url, headers: { ...ADMIN, 'content-type': 'text/plain' }, payload: body })
const get = (app: FastifyInstance, url: string) => app.inject({ method: 'GET', url, headers: ADMIN })
const json = (r: LightMyRequestResponse) => JSON.parse(r.body)
/** The EPSG code of a nativeCRS as GET shows it (GeoServer's WKT, a string or {"@class": "projected", "$"}). */
const epsgOf = (c: string | { $: string }) => { const m = /AUTHORITY\["EPSG","([0-9]+)"\]\]$/.exec(typeof c === 'string' ? c : c.$); return m ? `EPSG:${m[1]}` : c }
const configured = async (app: FastifyInstance, store: string): Promise<string[]> => {
  const b = json(await get(app, `${DS}/${store}/featuretypes.json`))
  return b.featureTypes === '' ? [] : b.featureTypes.featureType.map((f: { name: string }) => f.name)
}
const param = (store: { connectionParameters: { entry: Array<{ '@key': string, $: string }> } }, key: string) => store.connectionParameters.entry.find((e) => e['@key'] === key)?.$
const leftovers = (dataDir: string) => {
  const tmp = path.join(dataDir, 'tmp')
  return fs.existsSync(tmp) ? fs.readdirSync(tmp).filter((n) => n.startsWith('vector-')) : []
}

t.test('PUT file.shp: a ZIP becomes a Shapefile store under data/<ws>/<store>, its first type published (configure=first)', async (t) => {
  const s = await setup(t)
  const res = await putZip(s.app, `${DS}/up/file.shp?charset=UTF-8`, shapefileItems(s.files, 'parcels'))
  t.equal(res.statusCode, 201, res.body)
  t.match(res.headers['content-type'], /xml/)
  t.match(res.body, '<type>Shapefile</type>')
  const store = json(await get(s.app, `${DS}/up.json`)).dataStore
  t.equal(store.type, 'Shapefile')
  t.equal(param(store, 'url'), 'file:data/vx/up/parcels.shp')
  t.equal(param(store, 'charset'), 'UTF-8')
  t.same(fs.readdirSync(path.join(s.dataDir, 'data', 'vx', 'up')).sort(), ['parcels.dbf', 'parcels.prj', 'parcels.shp', 'parcels.shx'])
  const index = indexFileOf(path.join(s.dataDir, 'data', 'vx', 'up', 'parcels.shp'), path.join(s.dataDir, 'shapefile-index'))
  t.ok(fs.existsSync(index), 'the spatial index is built on upload, under the data directory (not beside the files)')
  t.same(fs.readdirSync(path.dirname(index)).filter((n) => n.endsWith('.mwtmp')), [], 'no temp file of the index left')
  t.same(await configured(s.app, 'up'), ['parcels'])
  const ft = json(await get(s.app, `${DS}/up/featuretypes/parcels.json`)).featureType
  t.same([ft.srs, ft.nativeBoundingBox.maxx], ['EPSG:4326', 2])
  t.equal(json(await get(s.app, `${REST}/layers/vx:parcels.json`)).layer.defaultStyle.name, 'polygon')
  t.same(leftovers(s.dataDir), [], 'the staging folder is gone')

  // Again, overwriting: another shapefile, the store follows; the old files are gone.
  const again = await putZip(s.app, `${DS}/up/file.shp?configure=none`, shapefileItems(s.files, 'wells'))
  t.equal(again.statusCode, 201, again.body)
  t.same(fs.readdirSync(path.join(s.dataDir, 'data', 'vx', 'up')).sort(), ['wells.dbf', 'wells.prj', 'wells.shp', 'wells.shx'])
  t.equal(param(json(await get(s.app, `${DS}/up.json`)).dataStore, 'url'), 'file:data/vx/up/wells.shp')
  t.same(json(await get(s.app, `${DS}/up/featuretypes.json?list=all`)), { list: { string: ['wells'] } })
})

t.test('PUT file.shp with two shapefiles in a folder of the ZIP and configure=all: a folder store, both published; configure=none publishes none', async (t) => {
  const s = await setup(t)
  const res = await putZip(s.app, `${DS}/both/file.shp?configure=all`, [...shapefileItems(s.files, 'parcels', [], 'in/'), ...shapefileItems(s.files, 'wells', [], 'in/')])
  t.equal(res.statusCode, 201, res.body)
  const store = json(await get(s.app, `${DS}/both.json`)).dataStore
  t.equal(store.type, 'Directory of spatial files (shapefiles)')
  t.equal(param(store, 'url'), 'file:data/vx/both')
  t.same(await configured(s.app, 'both'), ['parcels', 'wells'])
  t.equal(epsgOf(json(await get(s.app, `${DS}/both/featuretypes/wells.json`)).featureType.nativeCRS), 'EPSG:32633')
  t.equal((await putZip(s.app, `${DS}/none/file.shp?configure=none`, shapefileItems(s.files, 'parcels'))).statusCode, 201)
  t.same(await configured(s.app, 'none'), [])
  t.equal((await putZip(s.app, `${DS}/bad/file.shp?configure=some`, shapefileItems(s.files, 'parcels'))).statusCode, 400)
})

t.test('refused uploads: no .dbf, no .shx, a broken .prj, no .shp, update=append, not a ZIP; nothing stored, nothing on disk', async (t) => {
  const s = await setup(t)
  const cases: Array<[string, ZipItem[], RegExp]> = [
    ['nodbf', shapefileItems(s.files, 'parcels', ['dbf']), /shapefile "parcels\.shp" has no \.dbf beside it/],
    ['noshx', shapefileItems(s.files, 'parcels', ['shx']), /shapefile "parcels\.shp" has no \.shx beside it/],
    ['badprj', [...shapefileItems(s.files, 'parcels', ['prj']), { name: 'parcels.prj', data: 'garbage' }], /"parcels\.prj" is not a WKT coordinate reference system/],
    ['noshp', [{ name: 'readme.txt', data: 'hello' }], /the ZIP holds no \.shp file/]
  ]
  for (const [name, items, message] of cases) {
    const r = await putZip(s.app, `${DS}/${name}/file.shp`, items)
    t.equal(r.statusCode, 400, `${name}: ${r.body}`)
    t.match(r.body, message, name)
    t.equal((await get(s.app, `${DS}/${name}.json`)).statusCode, 404, `${name}: no store`)
    t.notOk(fs.existsSync(path.join(s.dataDir, 'data', 'vx', name)), `${name}: no files`)
  }
  t.same(leftovers(s.dataDir), [])
  const dots = await putZip(s.app, `${DS}/%2E%2E/file.shp`, shapefileItems(s.files, 'parcels'))
  t.ok(dots.statusCode >= 400 && dots.statusCode < 500, `a store name that is no safe name is refused before anything is written: ${dots.statusCode}`)
  t.notOk(fs.existsSync(path.join(s.dataDir, 'data')), 'no file was written anywhere under data/')
  const odd = await putZip(s.app, `${DS}/a%2Fb/file.shp`, shapefileItems(s.files, 'parcels'))
  t.equal(odd.statusCode, 400, odd.body)
  t.notOk(fs.existsSync(path.join(s.dataDir, 'data')))
  t.equal((await putZip(s.app, `${REST}/workspaces/nows/datastores/x/file.shp`, shapefileItems(s.files, 'parcels'))).statusCode, 404)
  // update=append (shp-append.test.ts, append.test.ts): onto a shapefile store that exists, the records follow the store's.
  t.equal((await putZip(s.app, `${DS}/app/file.shp`, shapefileItems(s.files, 'parcels'))).statusCode, 201)
  const append = await putZip(s.app, `${DS}/app/file.shp?update=append`, shapefileItems(s.files, 'parcels'))
  t.equal(append.statusCode, 201, append.body)
  const text = await putText(s.app, `${DS}/txt/file.shp`, 'hello')
  t.equal(text.statusCode, 415)
  const gpkgText = await putZip(s.app, `${DS}/g/file.gpkg`, [{ name: 'city.gpkg', data: 'not sqlite, only some text of a length' }])
  t.equal(gpkgText.statusCode, 400)
  t.match(gpkgText.body, /"city\.gpkg" is not a GeoPackage: not an SQLite database/)
  t.notOk(fs.existsSync(path.join(s.dataDir, 'data', 'vx', 'g')))
  t.equal((await putZip(s.app, `${DS}/x/file.csv`, shapefileItems(s.files, 'parcels'))).statusCode, 400, 'another format: unsupported')
})

t.test('PUT file.gpkg (a ZIP holding the .gpkg) and external.gpkg / external.shp (a location under the harvest roots)', async (t) => {
  const s = await setup(t)
  const res = await putZip(s.app, `${DS}/city/file.gpkg?configure=all`, [{ name: 'city.gpkg', data: fs.readFileSync(path.join(s.files, 'city.gpkg')) }])
  t.equal(res.statusCode, 201, res.body)
  const store = json(await get(s.app, `${DS}/city.json`)).dataStore
  t.same([store.type, param(store, 'dbtype'), param(store, 'database')], ['GeoPackage', 'geopkg', 'file:data/vx/city/city.gpkg'])
  t.same(await configured(s.app, 'city'), ['places', 'roads'])

  // The GeoPackage itself as the body: stored as <store>.gpkg.
  const raw = await s.app.inject({ method: 'PUT', url: `${DS}/rawcity/file.gpkg?configure=first`, headers: { ...ADMIN, 'content-type': 'application/geopackage+sqlite3' }, payload: fs.readFileSync(path.join(s.files, 'city.gpkg')) })
  t.equal(raw.statusCode, 201, raw.body)
  t.equal(param(json(await get(s.app, `${DS}/rawcity.json`)).dataStore, 'database'), 'file:data/vx/rawcity/rawcity.gpkg')
  t.same(await configured(s.app, 'rawcity'), [], 'its first type\'s name is the city store\'s feature type already: not published, the upload still stands')
  t.same(json(await get(s.app, `${DS}/rawcity/featuretypes.json?list=available`)), { list: { string: ['places', 'roads'] } })
  const junk = await s.app.inject({ method: 'PUT', url: `${DS}/junk/file.gpkg`, headers: { ...ADMIN, 'content-type': 'application/x-sqlite3' }, payload: Buffer.from('this is not an SQLite database at all') })
  t.equal(junk.statusCode, 400)
  t.match(junk.body, /"junk\.gpkg" is not a GeoPackage: not an SQLite database/)
  t.notOk(fs.existsSync(path.join(s.dataDir, 'data', 'vx', 'junk')))
  t.equal((await get(s.app, `${DS}/junk.json`)).statusCode, 404)
  const elsewhere = await s.app.inject({ method: 'PUT', url: `${DS}/junk/file.appschema`, headers: { ...ADMIN, 'content-type': 'application/x-sqlite3' }, payload: Buffer.from('x') })
  t.equal(elsewhere.statusCode, 415, 'a GeoPackage body is file.gpkg\'s only')

  fs.copyFileSync(path.join(s.files, 'city.gpkg'), path.join(s.root, 'ext.gpkg'))
  const ext = await putText(s.app, `${DS}/ext/external.gpkg?configure=none`, `file://${path.join(s.root, 'ext.gpkg')}`)
  t.equal(ext.statusCode, 201, ext.body)
  t.equal(param(json(await get(s.app, `${DS}/ext.json`)).dataStore, 'database'), `file://${path.join(s.root, 'ext.gpkg')}`)
  t.same(json(await get(s.app, `${DS}/ext/featuretypes.json?list=available`)), { list: { string: ['places', 'roads'] } })
  t.ok(fs.existsSync(path.join(s.root, 'ext.gpkg')), 'an external file stays where it is')

  for (const e of ['shp', 'shx', 'dbf', 'prj']) fs.copyFileSync(path.join(s.files, `wells.${e}`), path.join(s.root, `wells.${e}`))
  const shp = await putText(s.app, `${DS}/wells/external.shp`, path.join(s.root, 'wells.shp'))
  t.equal(shp.statusCode, 201, shp.body)
  t.same(await configured(s.app, 'wells'), ['wells'])
  const outside = await putText(s.app, `${DS}/out/external.shp`, path.join(s.files, 'wells.shp'))
  t.equal(outside.statusCode, 400)
  t.match(outside.body, /is outside the data directory and the harvest roots/)
  t.equal((await get(s.app, `${DS}/out.json`)).statusCode, 404)
  const nul = await putText(s.app, `${DS}/nul/external.shp`, `${path.join(s.root, 'wells.shp')}\u0000.txt`)
  t.equal(nul.statusCode, 400, nul.body)
  t.equal((await putText(s.app, `${DS}/empty/external.shp`, '  ')).statusCode, 400)
  t.equal((await putZip(s.app, `${DS}/zipped/external.shp`, shapefileItems(s.files, 'wells'))).statusCode, 400, 'external.shp takes a location, not a ZIP')
  const kind = await putText(s.app, `${DS}/wells/external.gpkg`, path.join(s.root, 'ext.gpkg'))
  t.equal(kind.statusCode, 400, 'a Shapefile store does not become a GeoPackage one')
  t.match(kind.body, /is a Shapefile store: a \.gpkg upload cannot change its type/)
})

t.test('a refused re-upload onto an existing store (broken ZIP, broken .prj, a charset the store refuses, a junk GeoPackage) leaves its files and the store as they were', async (t) => {
  const s = await setup(t)
  t.equal((await putZip(s.app, `${DS}/up/file.shp?charset=UTF-8`, shapefileItems(s.files, 'parcels'))).statusCode, 201)
  const dir = path.join(s.dataDir, 'data', 'vx', 'up')
  const before = fs.readdirSync(dir).sort().map((n) => [n, fs.readFileSync(path.join(dir, n)).toString('base64')])
  const storeBefore = json(await get(s.app, `${DS}/up.json`)).dataStore
  const unchanged = async (what: string) => {
    t.same(fs.readdirSync(dir).sort().map((n) => [n, fs.readFileSync(path.join(dir, n)).toString('base64')]), before, `${what}: the old files are all there, unchanged`)
    t.same(json(await get(s.app, `${DS}/up.json`)).dataStore, storeBefore, `${what}: the store is unchanged`)
    t.same(json(await get(s.app, `${DS}/up/featuretypes.json?list=all`)), { list: { string: ['parcels'] } }, `${what}: its type is still read from the files`)
    t.same(fs.readdirSync(path.join(s.dataDir, 'data', 'vx')), ['up'], `${what}: nothing left beside the store`)
    t.same(leftovers(s.dataDir), [], `${what}: no staging folder left`)
  }
  const broken = await s.app.inject({ method: 'PUT', url: `${DS}/up/file.shp`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: Buffer.from('PK\u0003\u0004 this is no ZIP archive at all') })
  t.equal(broken.statusCode, 400, broken.body)
  await unchanged('broken ZIP')
  const prj = await putZip(s.app, `${DS}/up/file.shp`, [...shapefileItems(s.files, 'wells', ['prj']), { name: 'wells.prj', data: 'garbage' }])
  t.equal(prj.statusCode, 400, prj.body)
  await unchanged('broken .prj')
  const charset = await putZip(s.app, `${DS}/up/file.shp?charset=no-such-charset`, shapefileItems(s.files, 'wells'))
  t.equal(charset.statusCode, 400, charset.body)
  t.match(charset.body, /connection parameter "charset" is not a character set this server knows/)
  await unchanged('refused charset')

  // A GeoPackage store: a junk GeoPackage and a broken ZIP leave it as it was.
  t.equal((await putZip(s.app, `${DS}/city/file.gpkg?configure=all`, [{ name: 'city.gpkg', data: fs.readFileSync(path.join(s.files, 'city.gpkg')) }])).statusCode, 201)
  const gpkg = path.join(s.dataDir, 'data', 'vx', 'city', 'city.gpkg')
  const gpkgBefore = fs.readFileSync(gpkg)
  const junk = await s.app.inject({ method: 'PUT', url: `${DS}/city/file.gpkg`, headers: { ...ADMIN, 'content-type': 'application/geopackage+sqlite3' }, payload: Buffer.from('this is not an SQLite database at all') })
  t.equal(junk.statusCode, 400, junk.body)
  const zip = await s.app.inject({ method: 'PUT', url: `${DS}/city/file.gpkg`, headers: { ...ADMIN, 'content-type': 'application/zip' }, payload: Buffer.from('not a zip') })
  t.equal(zip.statusCode, 400, zip.body)
  t.same(fs.readdirSync(path.dirname(gpkg)), ['city.gpkg'])
  t.ok(fs.readFileSync(gpkg).equals(gpkgBefore), 'the GeoPackage is unchanged')
  t.same(json(await get(s.app, `${DS}/city/featuretypes.json?list=all`)), { list: { string: ['places', 'roads'] } }, 'both types still read from the file')

  // A successful overwrite still replaces the files, with nothing left aside.
  t.equal((await putZip(s.app, `${DS}/up/file.shp?configure=none`, shapefileItems(s.files, 'wells'))).statusCode, 201)
  t.same(fs.readdirSync(dir).sort(), ['wells.dbf', 'wells.prj', 'wells.shp', 'wells.shx'])
  t.same(fs.readdirSync(path.join(s.dataDir, 'data', 'vx')).sort(), ['city', 'up'])
})
