// The MosaicStore contract on every backend: the embedded SQLite store, PostgreSQL where PostGIS
// cannot be installed (footprints through the box expression index) and PostgreSQL with PostGIS
// (the geometry column). The same cases run on each and must give the same answers: footprint
// queries, filters, harvests, coverages, deletes and the crash-recovery records. PostgreSQL alone:
// the bbox query uses the GiST index, concurrent writers from two nodes, change announcements.
import t, { type Test } from 'tap'
import { openDatabase } from '../../../services/storage/sqlite/database.js'
import { connectPg, type PgDatabase } from '../../../services/storage/pg/database.js'
import { createChangeBus, type Change } from '../../../services/storage/pg/change-bus.js'
import { foldName } from '../../../services/files/names.js'
import { createSqliteMosaicStore } from '../../../services/mosaics/sqlite-store.js'
import { createPgMosaicStore } from '../../../services/mosaics/pg-store.js'
import { parseEcql } from '../../../services/filters/ecql.js'
import { compare, type Filter } from '../../../services/filters/tree.js'
import type { MosaicSettings } from '../../../services/mosaics/indexer.js'
import type { Granule, MosaicRecord, MosaicStore, NewGranule } from '../../../services/mosaics/store.js'
import { migratedPg, migratedPgWithoutPostgis } from '../../fixtures/pg.js'
import { tempDir } from '../../helper.js'

type Backend = 'sqlite' | 'pg' | 'postgis'
const BACKENDS: Backend[] = ['sqlite', 'pg', 'postgis']
type Bbox = [number, number, number, number]

const WS = 'topp'
const STORE = 'mosaic'

function settings (extra: Partial<MosaicSettings> = {}): MosaicSettings {
  return {
    schema: [
      { name: 'the_geom', type: 'Geometry', binding: 'org.locationtech.jts.geom.Polygon' },
      { name: 'location', type: 'String', binding: 'java.lang.String' },
      { name: 'ingestion', type: 'Date', binding: 'java.util.Date' },
      { name: 'elevation', type: 'Double', binding: 'java.lang.Double' },
      { name: 'name', type: 'String', binding: 'java.lang.String' }
    ],
    collectors: [],
    timeAttribute: 'ingestion',
    elevationAttribute: 'elevation',
    canBeEmpty: false,
    absolutePath: false,
    recursive: true,
    wildcard: '*.tif',
    locationAttribute: 'location',
    indexStore: 'h2',
    ...extra
  }
}

const record = (store = STORE, crs: string | undefined = 'EPSG:4326'): MosaicRecord =>
  ({ workspace: WS, store, dir: `/data/${store}`, typeName: store, crs, settings: settings() })

/** Granule i of a 10 x 10 grid of unit squares from (0, 0); attributes vary with i. */
function granule (i: number, bbox?: Bbox): NewGranule {
  const x = i % 10
  const y = Math.floor(i / 10) % 10
  const b = bbox ?? [x, y, x + 1, y + 1]
  return {
    location: `g${i}.tif`,
    path: `/data/g${i}.tif`,
    crs: 'EPSG:4326',
    bbox: b,
    nativeBbox: b,
    width: 10,
    height: 10,
    bands: 1,
    dataType: 'Byte',
    nodata: i % 2 === 0 ? null : 0,
    ranges: [{ min: i, max: i + 10 }],
    attrs: {
      location: `g${i}.tif`,
      ingestion: `2020-01-0${1 + (i % 5)}T00:00:00.000Z`,
      elevation: (i % 4) * 100,
      name: i % 3 === 0 ? null : `N${i}`
    }
  }
}
const GRID = Array.from({ length: 100 }, (_, i) => granule(i))

interface Opened { store: MosaicStore, pg?: PgDatabase, url?: string }

async function open (t: Test, backend: Backend): Promise<Opened> {
  if (backend === 'sqlite') {
    const db = openDatabase(tempDir(t, 'mwmos'))
    t.teardown(() => db.close())
    db.prepare("INSERT INTO workspaces (name, namespace_uri, created_at) VALUES (?, 'urn:topp', '2026-01-01')").run(WS)
    return { store: createSqliteMosaicStore(db) }
  }
  const { db, url } = backend === 'pg' ? await migratedPgWithoutPostgis(t) : await migratedPg(t, { postgis: true })
  await db.query("INSERT INTO workspaces (name, name_key, namespace_uri, created_at) VALUES ($1, $2, 'urn:topp', '2026-01-01')", [WS, foldName(WS)])
  return { store: createPgMosaicStore(db), pg: db, url }
}

/** A mosaic of the 100 grid granules with the coverage 'cov' configured. */
async function upload (store: MosaicStore, name = STORE, granules = GRID): Promise<string[]> {
  return await store.commitUpload(WS, name, { record: record(name), granules, storeConfig: { url: `file:${name}` }, configure: { name: name === STORE ? 'cov' : name, nativeName: name } })
}

const seqs = (gs: Granule[]) => gs.map((g) => g.seq)
/** Seqs of the grid granules satisfying a predicate (seq = i + 1). */
const where = (p: (g: NewGranule, i: number) => boolean) => GRID.flatMap((g, i) => (p(g, i) ? [i + 1] : []))
const intersects = (a: Bbox, b: Bbox) => a[2] >= b[0] && a[0] <= b[2] && a[3] >= b[1] && a[1] <= b[3]
const withoutIds = (gs: Granule[]) => gs.map(({ id, ...g }) => g)

// What the SQLite store answered, to compare the PostgreSQL ones with (the sqlite subtests run first).
const answers = new Map<string, unknown>()
function sameAsSqlite (t: Test, backend: Backend, key: string, value: unknown) {
  if (backend === 'sqlite') answers.set(key, value)
  else t.same(value, answers.get(key), `${key}: as on SQLite`)
}

const compile = (cql: string): Filter => parseEcql(cql, { attributes: settings().schema, crs: 'EPSG:4326' })

const BOXES: Bbox[] = [
  [2.5, 2.5, 4.5, 3.5], // inside: 3 x 2 granules
  [3, 3, 3, 3], // a corner point: the four granules touching it
  [10, 0, 11, 1], // touching the grid's right edge
  [20, 20, 30, 30], // nothing
  [-1, -1, 11, 11], // everything
  [0.25, 5.5, 0.75, 5.75] // within one granule
]

const FILTERS: Array<[string, (g: NewGranule, i: number) => boolean]> = [
  ['elevation > 100', (g) => (g.attrs.elevation as number) > 100],
  ['elevation BETWEEN 100 AND 200', (g) => [100, 200].includes(g.attrs.elevation as number)],
  ['NOT (elevation BETWEEN 100 AND 200)', (g) => ![100, 200].includes(g.attrs.elevation as number)],
  ['elevation IN (0, 300)', (g) => [0, 300].includes(g.attrs.elevation as number)],
  ['ingestion DURING 2020-01-02T00:00:00Z/2020-01-03T00:00:00Z', (_, i) => [1, 2].includes(i % 5)],
  ['ingestion AFTER 2020-01-04T00:00:00Z', (_, i) => i % 5 === 4],
  ["location LIKE 'g1%'", (_, i) => i === 1 || (i >= 10 && i < 20)],
  ["location ILIKE 'G1%'", (_, i) => i === 1 || (i >= 10 && i < 20)],
  ["location LIKE 'G1%'", () => false],
  ["location LIKE 'g_.tif'", (_, i) => i < 10],
  ["location LIKE 'g1_.tif'", (_, i) => i >= 10 && i < 20],
  ["location LIKE 'g1*'", () => false], // * and [ are no wildcards in LIKE
  ["location LIKE '[g]%'", () => false],
  ["NOT location LIKE '%5.tif'", (_, i) => i % 10 !== 5],
  ['name IS NULL', (_, i) => i % 3 === 0],
  ['name IS NOT NULL', (_, i) => i % 3 !== 0],
  ["name > 'N5'", (g) => g.attrs.name !== null && (g.attrs.name as string) > 'N5'],
  ["location = 'g7.tif' OR elevation = 200", (g, i) => i === 7 || g.attrs.elevation === 200],
  ['INCLUDE', () => true],
  ['EXCLUDE', () => false],
  ['BBOX(the_geom, 2.5, 2.5, 4.5, 3.5)', (g) => intersects(g.bbox, [2.5, 2.5, 4.5, 3.5])]
]

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('footprint queries: the granules whose footprint meets the box (edges included), by seq', async (t) => {
      const { store, pg } = await open(t, backend)
      t.same(await upload(store), ['cov'])
      for (const box of BOXES) {
        const expected = where((g) => intersects(g.bbox, box))
        t.same(seqs(await store.query(WS, STORE, { bbox: box })), expected, `bbox ${box.join(',')}`)
      }
      t.same(seqs(await store.query(WS, STORE, { bbox: [-1, -1, 11, 11], limit: 5, offset: 10 })), [11, 12, 13, 14, 15], 'paged')
      t.same(seqs(await store.query(WS, STORE, { bbox: [2.5, 2.5, 4.5, 3.5], filter: compile('elevation = 300') })),
        where((g) => intersects(g.bbox, [2.5, 2.5, 4.5, 3.5]) && g.attrs.elevation === 300), 'bbox and filter')
      t.same(await store.query(WS, STORE, { bbox: [0, 0, 1, 1], limit: 0 }), [], 'limit 0')
      t.equal((await store.query(WS, STORE, { limit: -1, offset: -5 })).length, 100, 'a negative limit is none, a negative offset 0')
      const all = await store.query(WS, STORE)
      t.same(withoutIds(all), GRID.map((g, i) => ({ ...g, seq: i + 1 })), 'every granule as written, by seq')
      t.same(await store.extent(WS, STORE), [0, 0, 10, 10])
      t.same(await store.count(WS, STORE), 100)
      t.same(withoutIds([(await store.getBySeq(WS, STORE, 42))!]), [{ ...GRID[41], seq: 42 }])
      t.equal(await store.getBySeq(WS, STORE, 101), undefined)
      t.same(await store.getMosaic(WS, STORE), record())
      t.same(await store.listMosaics(), [{ workspace: WS, store: STORE }])
      if (backend !== 'sqlite') {
        const column = await hasFootprintColumn(pg!)
        t.equal(column, backend === 'postgis', backend === 'postgis' ? 'the PostGIS footprint column is there' : 'no PostGIS: the box index serves')
      }
    })

    t.test('filters: count, query, min/max and distinct values as SQLite compares them', async (t) => {
      const { store } = await open(t, backend)
      await upload(store)
      for (const [cql, p] of FILTERS) {
        const filter = compile(cql)
        const expected = where(p)
        t.same(seqs(await store.query(WS, STORE, { filter })), expected, cql)
        t.equal(await store.count(WS, STORE, filter), expected.length, `count ${cql}`)
      }
      // The filters the render plan (render/raster/render-plan.ts) writes, and one comparing numbers with text (numbers sort first).
      t.same(seqs(await store.query(WS, STORE, { filter: compare('=', 'elevation', 200) })), where((g) => g.attrs.elevation === 200))
      t.equal(await store.count(WS, STORE, compare('<', 'elevation', 'a')), 100, 'every number is below any text')
      t.equal(await store.count(WS, STORE, compare('>', 'location', 5)), 100, 'every text is above any number')
      t.same(await store.minMax(WS, STORE, 'ingestion'), { min: '2020-01-01T00:00:00.000Z', max: '2020-01-05T00:00:00.000Z' })
      t.same(await store.minMax(WS, STORE, 'elevation', compare('<=', 'elevation', 150)), { min: 0, max: 100 })
      const names = GRID.map((g) => g.attrs.name).filter((n): n is string => n !== null).sort()
      t.same(await store.minMax(WS, STORE, 'name'), { min: names[0], max: names[names.length - 1] }, 'strings byte by byte, nulls skipped')
      t.same(await store.minMax(WS, STORE, 'elevation', compile('EXCLUDE')), { min: null, max: null })
      t.same(await store.minMax(WS, STORE, 'missing'), { min: null, max: null })
      t.same(await store.distinct(WS, STORE, 'elevation', 10), [0, 100, 200, 300])
      t.same(await store.distinct(WS, STORE, 'ingestion', 2), ['2020-01-01T00:00:00.000Z', '2020-01-02T00:00:00.000Z'])
      t.same(await store.distinct(WS, STORE, 'name', 4), [...new Set(names)].slice(0, 4))
    })

    t.test('harvests: new granules take the next seqs, a path indexed already keeps its seq, coverages refreshed', async (t) => {
      const { store } = await open(t, backend)
      await upload(store)
      const crsSettings = settings({ crsAttribute: 'crs', schema: [...settings().schema, { name: 'crs', type: 'String', binding: 'java.lang.String' }] })
      const dupFirst = { ...granule(200), path: '/data/dup.tif', location: 'dup.tif' }
      const dupLast = { ...granule(201, [5, 5, 5.5, 5.5]), path: '/data/dup.tif', location: 'dup.tif' }
      const mosaic = await store.commitHarvest(WS, STORE, {
        crs: 'EPSG:3857', // the mosaic has its CRS already
        settings: crsSettings,
        granules: [granule(5, [20, 20, 21, 21]), granule(100, [10, 10, 11, 11]), dupFirst, dupLast]
      })
      t.same(mosaic, { ...record(), settings: crsSettings })
      t.same(await store.getMosaic(WS, STORE), mosaic)
      t.equal(await store.count(WS, STORE), 102)
      const g5 = (await store.getBySeq(WS, STORE, 6))!
      t.same([g5.path, g5.bbox], ['/data/g5.tif', [20, 20, 21, 21]], 'a re-harvested path keeps its seq with the new footprint')
      t.same(seqs(await store.query(WS, STORE, { bbox: [20, 20, 20, 20] })), [6])
      t.same(seqs(await store.query(WS, STORE, { bbox: [5, 5, 5, 5] })), [45, 46, 55, 56, 102], 'the last of a path given twice')
      t.same((await store.getBySeq(WS, STORE, 101))!.path, '/data/g100.tif')
      t.same((await store.getBySeq(WS, STORE, 1))!.attrs, { ...GRID[0].attrs, crs: 'EPSG:4326' }, 'the CRS attribute filled in')
      t.same(Object.keys((await store.getBySeq(WS, STORE, 1))!.attrs), ['location', 'ingestion', 'elevation', 'name', 'crs'], 'appended last')
      t.same(await store.extent(WS, STORE), [0, 0, 21, 21])
      const cov = (await store.coverage(WS, STORE, 'cov'))!
      t.same(cov.config.nativeBbox, [0, 0, 21, 21])
      t.same(cov.config.ranges, [{ min: 0, max: 211 }])
      sameAsSqlite(t, backend, 'harvested coverage', cov)
      sameAsSqlite(t, backend, 'harvested granules', withoutIds(await store.query(WS, STORE)))
      await t.rejects(store.commitHarvest(WS, 'nothing', { granules: [granule(1)] }), { code: 'MW_MOSAIC_NOT_HARVESTABLE' })
    })

    t.test('catalog rows: store names folded, coverages added and edited, lists in byte order', async (t) => {
      const { store } = await open(t, backend)
      await upload(store)
      t.same(await store.store(WS, STORE), { workspace: WS, name: STORE, kind: 'coverage', type: 'ImageMosaic', enabled: true, description: null, config: { url: `file:${STORE}` } })
      await store.checkNewStoreName(WS, STORE)
      await t.rejects(store.checkNewStoreName(WS, 'MOSAIC'), { code: 'MW_CORE_STORE_NAME_CLASH' })
      await t.rejects(upload(store, 'Mosaic'), { code: 'MW_CORE_STORE_NAME_CLASH' })
      t.equal(await store.store(WS, 'Mosaic'), undefined, 'nothing of the refused upload')
      t.equal(await store.getMosaic(WS, 'Mosaic'), undefined)
      t.ok(await store.resourceExists(WS, 'COV'), 'resource names folded')
      t.notOk(await store.resourceExists(WS, 'other'))
      await t.rejects(store.addCoverage(WS, STORE, 'Cov', STORE, (row) => row), { code: 'MW_MOSAIC_COVERAGE_EXISTS' })
      await t.rejects(store.addCoverage(WS, STORE, 'broken', STORE, () => { throw new Error('edit refused') }), /edit refused/)
      t.equal(await store.coverage(WS, STORE, 'broken'), undefined, 'a throwing edit changes nothing')
      const zeta = await store.addCoverage(WS, STORE, 'Zeta', STORE, (row) => ({ ...row, title: 'Zeta title', config: { ...row.config, enabled: false } }))
      t.same([zeta.title, zeta.config.enabled], ['Zeta title', false])
      await store.addCoverage(WS, STORE, 'alpha', STORE, (row) => row)
      t.same((await store.coverages(WS, STORE)).map((c) => c.name), ['Zeta', 'alpha', 'cov'], 'byte order')
      t.same((await store.workspaceCoverages(WS)).map((c) => c.name), ['Zeta', 'alpha', 'cov'])
      await upload(store, 'Other')
      t.same(await store.workspaceStores(WS), ['Other', STORE])
      t.same((await store.workspaceCoverages(WS)).map((c) => `${c.store}/${c.name}`), ['Other/Other', `${STORE}/Zeta`, `${STORE}/alpha`, `${STORE}/cov`])
      const edited = await store.editCoverage(WS, STORE, 'cov', (row) => ({ next: { ...row, title: 'Edited', config: { ...row.config, enabled: false } }, publish: true }))
      t.same([edited!.before.title, edited!.after.title], ['cov', 'Edited'])
      t.equal(await store.editCoverage(WS, STORE, 'none', (row) => ({ next: row, publish: false })), undefined)
      t.same((await store.layerCoverage(WS, 'cov'))!.store, STORE)
      t.equal(await store.layerCoverage(WS, 'nothing'), undefined)
      sameAsSqlite(t, backend, 'coverages', await store.workspaceCoverages(WS))
      sameAsSqlite(t, backend, 'layer', await store.layerCoverage(WS, 'Zeta'))
      await t.rejects(store.addCoverage(WS, STORE, 'wrong', 'nativeElse', (row) => row), { code: 'MW_MOSAIC_NO_NATIVE_COVERAGE' }, 'wrong native name')
    })

    t.test('deletes: granules by filter or seqs with purges recorded, damage, the store, recovery records', async (t) => {
      const { store } = await open(t, backend)
      await upload(store)
      const { removed, purges } = await store.removeGranules(WS, STORE, { filter: compile('elevation = 300') }, { purge: 'all', dir: '/data' })
      t.same(seqs(removed).sort((a, b) => a - b), where((g) => g.attrs.elevation === 300))
      t.equal(purges.length, 25)
      const pending = await store.pendingPurges()
      t.same(pending.map((p) => p.id), purges)
      t.same(pending.map(({ id, ...p }) => p).sort((a, b) => a.path.localeCompare(b.path)),
        removed.map((g) => ({ path: g.path, purge: 'all', dir: '/data' })).sort((a, b) => a.path.localeCompare(b.path)))
      await store.purgesDone(purges[0], purges[purges.length - 1])
      t.same(await store.pendingPurges(), [])
      const bySeqs = await store.removeGranules(WS, STORE, { seqs: [10, 3, 10, 4] })
      t.same([seqs(bySeqs.removed), bySeqs.purges], [[10, 3], []], 'in the order of the seqs, each once; seq 4 was gone')
      t.same(seqs((await store.removeGranules(WS, STORE, { filter: compile('elevation = 0'), seqs: [1, 2] })).removed), [1], 'filter and seqs')
      t.equal(await store.count(WS, STORE), 72)
      t.same((await store.coverage(WS, STORE, 'cov'))!.config.ranges, [{ min: 1, max: 108 }], 'coverage refreshed')
      t.same(await store.markDamaged('/data/g5.tif', 'truncated'), ['g5.tif'])
      t.equal((await store.getBySeq(WS, STORE, 6))!.damage, 'truncated')
      t.same(await store.markDamaged('/data/none.tif', 'x'), [])

      await store.beginReplace(WS, STORE, true)
      await store.beginReplace(WS, 'b', false)
      await store.beginReplace(WS, STORE, false)
      t.same((await store.openReplaces()).sort((a, b) => a.store.localeCompare(b.store)), [{ workspace: WS, store: 'b', hadOld: false }, { workspace: WS, store: STORE, hadOld: false }])
      await store.endReplace(WS, 'b')
      await upload(store) // ends the replace record of the store it commits
      t.same(await store.openReplaces(), [])
      t.equal(await store.count(WS, STORE), 100, 'a new upload replaces the granules')

      await store.deleteStore(WS, STORE)
      t.equal(await store.getMosaic(WS, STORE), undefined)
      t.equal(await store.store(WS, STORE), undefined)
      t.same(await store.coverages(WS, STORE), [])
      t.equal(await store.count(WS, STORE), 0, 'granules gone by cascade')
      t.same(await store.listMosaics(), [])
      t.notOk(await store.resourceExists(WS, 'cov'))
    })
  })
}

/** Whether mosaic_granules has the PostGIS footprint column. */
async function hasFootprintColumn (db: PgDatabase): Promise<boolean> {
  const r = await db.query("SELECT 1 FROM information_schema.columns WHERE table_name = 'mosaic_granules' AND column_name = 'footprint'")
  return r.rows.length > 0
}
const openPg = async (t: Test, backend: Backend) => await open(t, backend) as Required<Opened>

for (const backend of ['pg', 'postgis'] as const) {
  t.test(`${backend}: the bbox query uses the footprint's GiST index`, async (t) => {
    const { pg } = await openPg(t, backend)
    // Records the SQL the store sends, to ask PostgreSQL how it would run it.
    const sent: Array<{ sql: string, params: unknown[] }> = []
    const spy: PgDatabase = { ...pg, query: (async (sql: string, params?: unknown[]) => { sent.push({ sql, params: params ?? [] }); return await pg.query(sql, params) }) as PgDatabase['query'] }
    const store = createPgMosaicStore(spy)
    const many = Array.from({ length: 3000 }, (_, i) => granule(i, [i % 60, Math.floor(i / 60), i % 60 + 1, Math.floor(i / 60) + 1]))
    await store.commitUpload(WS, STORE, { record: record(), granules: many, storeConfig: {}, configure: { name: 'cov', nativeName: STORE } })
    await pg.query('ANALYZE mosaic_granules')
    sent.length = 0
    const found = await store.query(WS, STORE, { bbox: [10.5, 20.5, 11.5, 21.5] })
    t.same(seqs(found), [1211, 1212, 1271, 1272], 'the four granules under the box')
    const { sql, params } = sent.find((s) => /FROM mosaic_granules/.test(s.sql))!
    const c = await pg.pool.connect()
    try {
      await c.query('SET enable_seqscan = off')
      const plan = JSON.stringify((await c.query(`EXPLAIN (FORMAT JSON) ${sql}`, params)).rows[0])
      t.match(plan, /"Index Name":"mosaic_granules_footprint"/, `${backend}: the GiST index is used`)
    } finally { c.release() }
  })

  t.test(`${backend}: two nodes writing at once give what one after the other gives`, async (t) => {
    const { store, url } = await openPg(t, backend)
    const other = connectPg(url)
    t.teardown(() => other.close())
    const store2 = createPgMosaicStore(other)
    await upload(store)
    // Harvests from both nodes: every granule gets a seq of its own, none lost.
    const batch = (k: number) => Array.from({ length: 200 }, (_, i) => granule(1000 + k * 200 + i))
    await Promise.all([0, 1, 2, 3, 4, 5].map((k) => (k % 2 ? store : store2).commitHarvest(WS, STORE, { granules: batch(k) })))
    const all = await store.query(WS, STORE)
    t.equal(all.length, 1300)
    t.same(seqs(all), Array.from({ length: 1300 }, (_, i) => i + 1), 'seqs 1..1300, each once')
    t.equal(new Set(all.map((g) => g.path)).size, 1300)
    t.same((await store.coverage(WS, STORE, 'cov'))!.config.ranges, [{ min: 0, max: 2209 }], 'the last refresh saw every granule')

    // Two new stores whose names differ in case: one is created, the other refused.
    const results = await Promise.allSettled([upload(store, 'Race'), upload(store2, 'RACE')])
    t.same(results.map((r) => r.status).sort(), ['fulfilled', 'rejected'])
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult
    t.equal(refused.reason.code, 'MW_CORE_STORE_NAME_CLASH')
    t.same((await store.workspaceStores(WS)).filter((s) => s.toLowerCase() === 'race').length, 1)

    // The same coverage added from both nodes: one adds it, the other finds it there.
    const adds = await Promise.allSettled([store.addCoverage(WS, STORE, 'twice', STORE, (r) => r), store2.addCoverage(WS, STORE, 'Twice', STORE, (r) => r)])
    t.same(adds.map((r) => r.status).sort(), ['fulfilled', 'rejected'])
    t.equal(((adds.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).code, 'MW_MOSAIC_COVERAGE_EXISTS')
  })

  t.test(`${backend}: writes are announced on the change bus`, async (t) => {
    const { store, url } = await openPg(t, backend)
    const bus = await createChangeBus(url)
    t.teardown(() => bus.close())
    const seen: Change[] = []
    let wake = () => {}
    bus.subscribe((c) => { if (c !== 'resync') { seen.push(c); wake() } })
    const until = (p: () => boolean) => new Promise<void>((resolve) => { wake = () => { if (p()) resolve() }; wake() })
    await upload(store)
    await until(() => seen.some((c) => c.topic === 'catalog') && seen.some((c) => c.topic === 'mosaics'))
    t.ok(seen.some((c) => c.topic === 'mosaics' && c.key === `${WS}:${STORE}`), 'mosaics, keyed by workspace:store')
    seen.length = 0
    await store.markDamaged('/data/g1.tif', 'bad')
    await until(() => seen.length > 0)
    t.same(seen, [{ topic: 'mosaics', key: `${WS}:${STORE}` }], 'a damaged granule: its mosaic only')
  })
}
