// The PostGIS vector source: the SQL of a read (bound values, quoted identifiers, bbox, filter,
// order and page) checked as text, then every method against a real PostGIS database with a schema
// and a table whose names hold quotes and spaces, read through a cursor in batches of 2.
import t from 'tap'
import pg from 'pg'
import { pgDatabase } from '../../fixtures/pg.js'
import { createPostgisSource, selectSql, vectorTileSql } from '../../../services/vector/postgis-source.js'
import { compare, allOf, type Filter } from '../../../services/filters/tree.js'
import { parseEcql } from '../../../services/filters/ecql.js'
import type { Feature, TypeSchema } from '../../../services/vector/source.js'

const roads: TypeSchema = {
  name: 'Roads "x"',
  attributes: [
    { name: 'kind', binding: 'java.lang.String', nillable: true, minOccurs: 0, maxOccurs: 1 },
    { name: 'lanes', binding: 'java.lang.Integer', nillable: true, minOccurs: 0, maxOccurs: 1 },
    { name: 'the geom', binding: 'org.locationtech.jts.geom.LineString', nillable: true, minOccurs: 0, maxOccurs: 1 }
  ],
  geometry: { name: 'the geom', type: 'LINESTRING', srid: 4326 }
}

t.test('selectSql quotes every identifier and binds every value', async (t) => {
  const sql = selectSql('my "schema"', roads, { type: roads.name }, { looseBbox: false, keys: [] })
  t.equal(sql.text, 'SELECT "kind", "lanes", ST_AsBinary("the geom") AS "the geom" FROM "my ""schema"""."Roads ""x"""')
  t.same(sql.values, [])
  const keyed = selectSql('public', roads, { type: roads.name, properties: ['lanes'], geometryFormat: 'geojson' }, { looseBbox: false, keys: ['id'] })
  t.equal(keyed.text, 'SELECT "lanes", "id", ST_AsGeoJSON("the geom") AS "the geom" FROM "public"."Roads ""x"""', 'the key is read for the feature id')
})

t.test('selectSql: the distinct values of one attribute, paged, and their count (app-schema feature ids)', async (t) => {
  const page = selectSql('public', roads, { type: roads.name, distinct: 'kind', filter: compare('>', 'lanes', 2), offset: 10, limit: 1 }, { looseBbox: false, keys: ['id'] })
  t.equal(page.text, 'SELECT DISTINCT "kind" FROM "public"."Roads ""x""" WHERE ("lanes" > $1) ORDER BY "kind" ASC LIMIT $2::bigint OFFSET $3::bigint')
  t.same(page.values, [2, 1, 10])
  const count = selectSql('public', roads, { type: roads.name, distinct: 'kind' }, { looseBbox: false, keys: ['id'], count: true })
  t.equal(count.text, 'SELECT count(DISTINCT "kind") AS n FROM "public"."Roads ""x"""')
  t.throws(() => selectSql('public', roads, { type: roads.name, distinct: 'colour' }, { looseBbox: false, keys: [] }), /has no attribute "colour"/)
  // Sorted (an app-schema sortBy on a denormalised type): each value at its first row under the sort.
  const sorted = selectSql('public', roads, { type: roads.name, distinct: 'kind', sortBy: [{ name: 'lanes', descending: true }], filter: compare('>', 'lanes', 2), offset: 10, limit: 1 }, { looseBbox: false, keys: ['id'] })
  t.equal(sorted.text, 'SELECT "kind" FROM (SELECT "kind", row_number() OVER (ORDER BY "lanes" DESC, "kind" ASC) AS "mw_rank" FROM "public"."Roads ""x""" WHERE ("lanes" > $1)) AS mw_rows GROUP BY "kind" ORDER BY min("mw_rank") LIMIT $2::bigint OFFSET $3::bigint')
  t.same(sorted.values, [2, 1, 10])
  t.throws(() => selectSql('public', roads, { type: roads.name, distinct: 'kind', sortBy: [{ name: 'colour' }] }, { looseBbox: false, keys: [] }), /has no attribute "colour"/)
})

t.test('selectSql: a bbox is an index test and an exact intersection, or the index test alone with Loose bbox', async (t) => {
  const exact = selectSql('public', roads, { type: roads.name, bbox: [1, 2, 3, 4] }, { looseBbox: false, keys: [] })
  const env = 'ST_MakeEnvelope($1::double precision, $2::double precision, $3::double precision, $4::double precision, $5::integer)'
  t.equal(exact.text, `SELECT "kind", "lanes", ST_AsBinary("the geom") AS "the geom" FROM "public"."Roads ""x""" WHERE ("the geom" && ${env} AND ST_Intersects("the geom", ${env}))`)
  t.same(exact.values, [1, 2, 3, 4, 4326])
  const loose = selectSql('public', roads, { type: roads.name, bbox: [1, 2, 3, 4] }, { looseBbox: true, keys: [] })
  t.match(loose.text, `WHERE "the geom" && ${env}`)
  t.notMatch(loose.text, 'ST_Intersects')
  t.throws(() => selectSql('public', roads, { type: roads.name, bbox: [3, 2, 1, 4] }, { looseBbox: true, keys: [] }), /bounding box \[3,2,1,4\] is not minx, miny, maxx, maxy/)
  t.throws(() => selectSql('public', roads, { type: roads.name, bbox: [NaN, 2, 1, 4] }, { looseBbox: true, keys: [] }), /bounding box/)
})

t.test('selectSql: the filter tree compiles with bound values after the bbox; order and page bind their numbers', async (t) => {
  const filter = allOf([compare('>', 'lanes', 2), { k: 'like', e: { k: 'property', name: 'kind' }, pattern: "m%'; DROP TABLE x; --", ci: false }])!
  const sql = selectSql('public', roads, { type: roads.name, bbox: [0, 0, 1, 1], filter, sortBy: [{ name: 'kind', descending: true }], limit: 10, offset: 20 }, { looseBbox: true, keys: ['id'] })
  t.equal(sql.text, 'SELECT "kind", "lanes", "id", ST_AsBinary("the geom") AS "the geom" FROM "public"."Roads ""x""" WHERE "the geom" && ST_MakeEnvelope($1::double precision, $2::double precision, $3::double precision, $4::double precision, $5::integer)' +
    ' AND (("lanes" > $6) AND ("kind"::text COLLATE "C" LIKE $7::text ESCAPE \'\\\')) ORDER BY "kind" DESC, "id" ASC LIMIT $8::bigint OFFSET $9::bigint')
  t.same(sql.values, [0, 0, 1, 1, 4326, 2, "m%'; DROP TABLE x; --", 10, 20])
  const bboxFilter: Filter = { k: 'bbox', env: [5, 6, 7, 8] }
  t.match(selectSql('public', roads, { type: roads.name, filter: bboxFilter }, { looseBbox: false, keys: [] }).text, '(ST_XMax("the geom") >= $1::double precision AND ST_XMin("the geom") <= $2::double precision')
  t.throws(() => selectSql('public', roads, { type: roads.name, filter: compare('=', 'nope', 1) }, { looseBbox: false, keys: [] }), /Roads "x" has no attribute "nope"/)
  t.throws(() => selectSql('public', roads, { type: roads.name, properties: ['x"; --'] }, { looseBbox: false, keys: [] }), /has no attribute/)
  t.throws(() => selectSql('public', roads, { type: roads.name, sortBy: [{ name: 'nope' }] }, { looseBbox: false, keys: [] }), /has no attribute "nope"/)
  t.throws(() => selectSql('public', roads, { type: roads.name, limit: -1 }, { looseBbox: false, keys: [] }), /limit must be a whole number of at least 0: -1/)
  t.throws(() => selectSql('public', roads, { type: roads.name, offset: 1.5 }, { looseBbox: false, keys: [] }), /offset must be a whole number/)
})

t.test('selectSql: a simplified read binds its tolerance; a bad one is refused', async (t) => {
  const sql = selectSql('public', roads, { type: roads.name, bbox: [0, 0, 1, 1], simplify: 0.25 }, { looseBbox: true, keys: [] })
  t.match(sql.text, 'ST_AsBinary(ST_RemoveRepeatedPoints(ST_Simplify("the geom", $6::double precision, true))) AS "the geom"')
  t.same(sql.values, [0, 0, 1, 1, 4326, 0.25])
  t.match(selectSql('public', roads, { type: roads.name, simplify: 0.25, geometryFormat: 'geojson' }, { looseBbox: true, keys: [] }).text, 'ST_AsGeoJSON(ST_RemoveRepeatedPoints(ST_Simplify(')
  t.notMatch(selectSql('public', roads, { type: roads.name, simplify: 0 }, { looseBbox: true, keys: [] }).text, 'ST_Simplify')
  t.throws(() => selectSql('public', roads, { type: roads.name, simplify: -1 }, { looseBbox: true, keys: [] }), /simplification tolerance must be a number of at least 0: -1/)
  t.throws(() => selectSql('public', roads, { type: roads.name, simplify: NaN }, { looseBbox: true, keys: [] }), /simplification tolerance/)
})

t.test('against PostGIS: a simplified read drops the vertices under the tolerance and keeps a polygon smaller than it', async (t) => {
  const url = new URL(await pgDatabase(t, { postgis: true }))
  const c = new pg.Client({ connectionString: url.href })
  await c.connect()
  // A line of 1001 vertices zigzagging by 0.001 and a square of 0.01 a side.
  await c.query(`CREATE TABLE shapes (id integer PRIMARY KEY, geom geometry(Geometry, 4326));
    INSERT INTO shapes SELECT 1, ST_SetSRID(ST_MakeLine(array_agg(ST_MakePoint(i / 100.0, (i % 2) * 0.001) ORDER BY i)), 4326) FROM generate_series(0, 1000) i;
    INSERT INTO shapes VALUES (2, ST_MakeEnvelope(5, 5, 5.01, 5.01, 4326))`)
  await c.end()
  const source = createPostgisSource({
    host: url.hostname, port: Number(url.port || 5432), database: url.pathname.slice(1), schema: 'public', user: decodeURIComponent(url.username) || 'postgres',
    // One connection: a read asks for the table's description on the connection it holds (it waited
    // for a second one before, and timed out).
    timeout: 10, ssl: 'off' as const, maxConnections: 1, minConnections: 0, fetchSize: 10, looseBbox: false, exposePrimaryKeys: true
  })
  t.teardown(() => source.close())
  const read = async (simplify?: number) => {
    const out: Record<string, unknown> = {}
    for await (const f of source.readFeatures({ type: 'shapes', geometryFormat: 'geojson', ...(simplify !== undefined ? { simplify } : {}) })) out[String(f.properties.id)] = JSON.parse(f.geometry as string)
    return out as Record<string, { type: string, coordinates: unknown[] }>
  }
  const full = await read()
  t.equal(full['1'].coordinates.length, 1001)
  const simple = await read(0.1)
  t.same(simple['1'], { type: 'LineString', coordinates: [[0, 0], [10, 0]] }, 'the zigzag under the tolerance is a straight line')
  t.equal(simple['2'].type, 'Polygon', 'the square smaller than the tolerance is still there')
  t.ok((simple['2'].coordinates[0] as unknown[]).length >= 3)
})

t.test('against PostGIS: types, schema, bounds, lat/lon, and features streamed in batches with bbox, filter, order and page', async (t) => {
  const url = new URL(await pgDatabase(t, { postgis: true }))
  const c = new pg.Client({ connectionString: url.href })
  await c.connect()
  await c.query(`CREATE SCHEMA "odd ""schema"" é";
    CREATE TABLE "odd ""schema"" é"."Roads ""x""" (id integer PRIMARY KEY, kind varchar(12) NOT NULL, lanes integer, "the geom" geometry(LineString, 4326));
    INSERT INTO "odd ""schema"" é"."Roads ""x""" SELECT i, CASE WHEN i % 2 = 0 THEN 'main' ELSE 'minor' END, i, ST_MakeLine(ST_MakePoint(i, i), ST_MakePoint(i + 1, i + 1))::geometry(LineString, 4326) FROM generate_series(1, 5) i;
    CREATE TABLE "odd ""schema"" é".merc (id integer, g geometry(Point, 3857));
    INSERT INTO "odd ""schema"" é".merc VALUES (1, ST_SetSRID(ST_MakePoint(0, 0), 3857)), (2, ST_SetSRID(ST_MakePoint(1113194.9079327357, 1118889.9748579594), 3857));
    CREATE VIEW "odd ""schema"" é".v AS SELECT 1 AS n;
    ANALYZE "odd ""schema"" é"."Roads ""x""";`)
  await c.end()
  const options = {
    host: url.hostname, port: Number(url.port || 5432), database: url.pathname.slice(1), schema: 'odd "schema" é', user: decodeURIComponent(url.username) || 'postgres',
    timeout: 10, ssl: 'off' as const, maxConnections: 2, minConnections: 0, fetchSize: 2, looseBbox: false, exposePrimaryKeys: false
  }
  const source = createPostgisSource(options)
  t.teardown(() => source.close())

  t.same(await source.listTypes(), [{ name: 'Roads "x"', hasGeometry: true }, { name: 'merc', hasGeometry: true }, { name: 'v', hasGeometry: false }])
  t.same(await source.describe('Roads "x"'), {
    name: 'Roads "x"',
    attributes: [
      { name: 'kind', binding: 'java.lang.String', nillable: false, minOccurs: 1, maxOccurs: 1, length: 12 },
      { name: 'lanes', binding: 'java.lang.Integer', nillable: true, minOccurs: 0, maxOccurs: 1 },
      { name: 'the geom', binding: 'org.locationtech.jts.geom.LineString', nillable: true, minOccurs: 0, maxOccurs: 1 }
    ],
    geometry: { name: 'the geom', type: 'LINESTRING', srid: 4326 }
  })
  t.equal(await source.describe('nope'), undefined)
  t.equal(await source.describe('spatial_ref_sys'), undefined)
  t.same(await source.bounds('Roads "x"', false), [1, 1, 6, 6])
  const est = await source.bounds('Roads "x"', true)
  t.ok(est && est[0] <= 1 && est[2] >= 6, `estimated bounds hold the data: ${JSON.stringify(est)}`)
  t.same(await source.bounds('merc', true), [0, 0, 1113194.9079327357, 1118889.9748579594], 'no statistics: the exact extent')
  t.equal(await source.bounds('v', false), undefined)
  const ll = await source.toLatLon([0, 0, 1113194.9079327357, 1118889.9748579594], 3857)
  t.ok(Math.abs(ll[2] - 10) < 1e-9 && Math.abs(ll[3] - 10) < 1e-6, JSON.stringify(ll))
  t.equal(await source.hasCrs(3857), true)
  t.equal(await source.hasCrs(999999), false)

  const read = async (q: Parameters<typeof source.readFeatures>[0]) => { const out: Feature[] = []; for await (const f of source.readFeatures(q)) out.push(f); return out }
  const all = await read({ type: 'Roads "x"' })
  t.same(all.map((f) => f.id), ['1', '2', '3', '4', '5'], 'five features through a cursor fetching 2 at a time')
  t.same(all[0].properties, { kind: 'minor', lanes: 1 }, 'the primary key is the id, not a property')
  t.ok(Buffer.isBuffer(all[0].geometry) && (all[0].geometry as Buffer).length === 41, 'WKB of a 2-point line')
  const boxed = await read({ type: 'Roads "x"', bbox: [2.5, 2.5, 3.5, 3.5] })
  t.same(boxed.map((f) => f.id), ['2', '3'], 'lines meeting the box')
  const filtered = await read({ type: 'Roads "x"', filter: parseEcql("kind = 'main' AND lanes >= 3", { attributes: [{ name: 'kind', type: 'String' }, { name: 'lanes', type: 'Integer' }], crs: 'EPSG:4326' }) })
  t.same(filtered.map((f) => f.id), ['4'])
  const page = await read({ type: 'Roads "x"', sortBy: [{ name: 'lanes', descending: true }], limit: 2, offset: 1, properties: ['kind'], geometryFormat: 'geojson' })
  t.same(page.map((f) => f.id), ['4', '3'])
  t.same(page[0].properties, { kind: 'main' })
  t.same(JSON.parse(page[0].geometry as string), { type: 'LineString', coordinates: [[4, 4], [5, 5]] })

  // A reader that stops early: its connection is dropped, the pool still answers.
  for await (const _f of source.readFeatures({ type: 'Roads "x"' })) break
  t.equal((await read({ type: 'Roads "x"', limit: 1 })).length, 1)
  await t.rejects(read({ type: 'nope' }), /no table or view "nope"/)

  // Reads reuse the table's description for a while: a column dropped under it sends the read
  // (and a count) back to the catalogs once, and the features come without that column.
  t.same((await read({ type: 'merc' })).map((f) => f.properties), [{ id: 1 }, { id: 2 }])
  const alter = new pg.Client({ connectionString: url.href })
  await alter.connect()
  await alter.query('ALTER TABLE "odd ""schema"" é".merc DROP COLUMN id')
  await alter.end()
  t.same((await read({ type: 'merc' })).map((f) => f.properties), [{}, {}], 'the dropped column is gone from the read')
  t.equal(await source.count({ type: 'merc', bbox: [-1, -1, 2e6, 2e6] }), 2)
  // A whole table dropped: the read says so (no stale description standing in for it).
  const drop = new pg.Client({ connectionString: url.href })
  await drop.connect()
  await drop.query('DROP TABLE "odd ""schema"" é".merc')
  await drop.end()
  await t.rejects(read({ type: 'merc' }), /no table or view "merc"/)
})

t.test('selectSql: feature ids compare each key as text with bound values; count drops order and page', async (t) => {
  const one = selectSql('public', roads, { type: roads.name, filter: { k: 'fid', ids: ['7', "8'; --"] } }, { looseBbox: false, keys: ['id'] })
  t.match(one.text, 'WHERE (("id"::text = $1::text) OR ("id"::text = $2::text))')
  t.same(one.values, ['7', "8'; --"])
  const two = selectSql('public', roads, { type: roads.name, filter: { k: 'fid', ids: ['1.a', 'nodot'] } }, { looseBbox: false, keys: ['a', 'b'] })
  t.match(two.text, 'WHERE (("a"::text = $1::text AND "b"::text = $2::text) OR FALSE)', 'an id without a part per key matches nothing')
  t.throws(() => selectSql('public', roads, { type: roads.name, filter: { k: 'fid', ids: ['1'] } }, { looseBbox: false, keys: [] }), /has no primary key/)
  const count = selectSql('public', roads, { type: roads.name, bbox: [0, 0, 1, 1], sortBy: [{ name: 'kind' }], limit: 5, offset: 5 }, { looseBbox: true, keys: ['id'], count: true })
  t.equal(count.text, 'SELECT count(*) AS n FROM "public"."Roads ""x""" WHERE "the geom" && ST_MakeEnvelope($1::double precision, $2::double precision, $3::double precision, $4::double precision, $5::integer)')
  t.same(count.values, [0, 0, 1, 1, 4326])
})

t.test('vectorTileSql: ST_AsMVT over ST_AsMVTGeom of the read, every identifier quoted, every value bound', async (t) => {
  const q = { type: roads.name, name: 'ro"ads\'', tile: [0, 0, 10, 10] as [number, number, number, number], gridSrid: 3857, dataSrid: 4326, area: [-1, -1, 1, 1] as [number, number, number, number], extent: 4096, buffer: 256, filter: compare('=', 'kind', "a'; --") }
  const sql = vectorTileSql('my "schema"', roads, q, { keys: ['id'] })
  t.match(sql.text, /^SELECT ST_AsMVT\(t, \$\d+::text, \$\d+::integer, \$\d+::text\) AS mvt FROM \(SELECT s\."kind", s\."lanes", ST_AsMVTGeom\(ST_Transform\(ST_SetSRID\(s\."the geom", \$\d+::integer\), \$\d+::integer\), ST_MakeEnvelope\(/)
  t.match(sql.text, 'FROM "my ""schema"""."Roads ""x"""', 'the table quoted')
  t.match(sql.text, /::box2d, \$\d+::integer, \$\d+::integer, true\) AS "__mw_mvt_geom"/, 'extent and buffer bound, clipped')
  t.notMatch(sql.text, /ro"ads|a';|4096|3857/, 'no value in the text')
  for (const v of ['ro"ads\'', "a'; --", 4096, 256, 3857, 4326, 10]) t.ok(sql.values.includes(v), `${v} is bound`)
  const wkt = vectorTileSql('public', roads, { ...q, dataSrid: undefined }, { keys: [] })
  t.notMatch(wkt.text, 'ST_SetSRID', 'data in a CRS of no EPSG code keeps its column\'s SRID')
  t.notMatch(sql.text, 'ST_Intersects', 'the area on the index alone: ST_AsMVTGeom clips and drops what misses the tile')
  t.throws(() => vectorTileSql('public', { ...roads, geometry: undefined }, q, { keys: [] }), /has no geometry/)
})
