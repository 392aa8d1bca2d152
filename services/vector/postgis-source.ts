// The PostGIS vector source: a small pool per data store (the store's `max connections`, `min
// connections`, `Connection timeout` as connect and statement timeout), the schema's tables and
// views read from the system catalogs, GeoServer's bindings for column types, bounds exact
// (ST_Extent) or estimated (ST_EstimatedExtent, where `Estimated extends` asks and statistics exist),
// and features read through a server-side cursor in batches of the store's `fetch size` (each next
// batch asked for before the last is handed on); reads reuse a table's description for 5 s. Every
// statement binds its values and quotes its identifiers (selectSql, which the unit tests check).
import pg from 'pg'
import { quotePgName, toPg, type PgTarget } from '../filters/pg.js'
import type { Envelope } from '../filters/tree.js'
import { InvalidFeatureQuery, InvalidVirtualTable } from '../errors.js'
import { toleranceOf } from './simplify.js'
import { pgConnectionConfig, type ConnectionSettings } from '../datastores/params.js'
import { createPostgisWriter } from './postgis-write.js'
import type { AttributeInfo, Feature, ReadQuery, TypeName, TypeSchema, VectorSource, VectorTileQuery } from './source.js'
import type { VirtualTable } from './virtual-table.js'

export interface PostgisSourceOptions extends ConnectionSettings {
  maxConnections: number
  minConnections: number
  /** Rows per cursor batch; 0 reads the whole result at once. */
  fetchSize: number
  /** Only the bounding-box index test (&&), no exact intersection. */
  looseBbox: boolean
  /** Primary-key columns are attributes (else they only make the feature id). */
  exposePrimaryKeys: boolean
}

/** PostGIS' catalog tables, never offered as feature types (as GeoServer's PostGIS dialect). */
const SYSTEM_TABLES = new Set(['spatial_ref_sys', 'geometry_columns', 'geography_columns', 'raster_columns', 'raster_overviews'])

const GEOMETRY_BINDINGS: Record<string, string> = {
  POINT: 'Point', MULTIPOINT: 'MultiPoint', LINESTRING: 'LineString', MULTILINESTRING: 'MultiLineString',
  POLYGON: 'Polygon', MULTIPOLYGON: 'MultiPolygon', GEOMETRYCOLLECTION: 'GeometryCollection', GEOMETRY: 'Geometry'
}

/** GeoServer's binding of a geometry type (POINTZ, MULTIPOLYGONM... read as their 2D type). */
export function geometryBinding (type: string): string {
  const base = type.toUpperCase().replace(/(ZM|Z|M)$/, '')
  return `org.locationtech.jts.geom.${GEOMETRY_BINDINGS[base] ?? 'Geometry'}`
}

const TYPE_BINDINGS: Record<string, string> = {
  int2: 'java.lang.Short', int4: 'java.lang.Integer', int8: 'java.lang.Long',
  float4: 'java.lang.Float', float8: 'java.lang.Double', numeric: 'java.math.BigDecimal',
  bool: 'java.lang.Boolean', text: 'java.lang.String', varchar: 'java.lang.String', bpchar: 'java.lang.String',
  name: 'java.lang.String', char: 'java.lang.String', json: 'java.lang.String', jsonb: 'java.lang.String',
  date: 'java.sql.Date', time: 'java.sql.Time', timetz: 'java.sql.Time',
  timestamp: 'java.sql.Timestamp', timestamptz: 'java.sql.Timestamp', uuid: 'java.util.UUID', bytea: '[B'
}

/** GeoServer's binding of a PostgreSQL column type (its JDBC mapping); arrays and others: Object. */
export function columnBinding (typname: string): string {
  return TYPE_BINDINGS[typname] ?? 'java.lang.Object'
}

/** "schema"."table", each part quoted. */
export const qualifiedTable = (schema: string, table: string) => `${quotePgName(schema)}.${quotePgName(table)}`

export interface SqlStatement { text: string, values: unknown[] }

/** An envelope of SRID `srid` as SQL, its values bound. */
function envelopeSql (e: Envelope, srid: number, bind: (v: unknown) => string): string {
  if (!e.every(Number.isFinite) || e[0] > e[2] || e[1] > e[3]) throw InvalidFeatureQuery(`bounding box ${JSON.stringify(e)} is not minx, miny, maxx, maxy`)
  return `ST_MakeEnvelope(${e.map((v) => `${bind(v)}::double precision`).join(', ')}, ${bind(srid)}::integer)`
}

/**
 * The WHERE conditions of a query on `type`: the bounding box (&& on the index, and ST_Intersects
 * unless loose) and the filter, values bound through `bind`, names checked by `check`.
 */
export function whereSql (type: TypeSchema, q: Pick<ReadQuery, 'bbox' | 'filter' | 'within'>, keys: string[], looseBbox: boolean,
  bind: (v: unknown) => string, check: (name: string) => string, sub?: (w: NonNullable<ReadQuery['within']>) => string): string[] {
  const geom = type.geometry
  const g = geom ? quotePgName(geom.name) : undefined
  const where: string[] = []
  if (q.bbox) {
    if (!g || !geom) throw InvalidFeatureQuery(`${type.name} has no geometry to compare with a bounding box`)
    const env = envelopeSql(q.bbox, geom.srid, bind)
    where.push(looseBbox ? `${g} && ${env}` : `(${g} && ${env} AND ST_Intersects(${g}, ${env}))`)
  }
  if (q.filter) {
    const target: PgTarget = {
      property: (name) => check(name),
      propertyText: (name) => `${check(name)}::text`,
      value: (v, b) => b(v),
      footprint: g ? [`ST_XMin(${g})`, `ST_YMin(${g})`, `ST_XMax(${g})`, `ST_YMax(${g})`] : ['NULL', 'NULL', 'NULL', 'NULL'],
      geometry: (name) => {
        if (!geom || name !== geom.name) throw InvalidFeatureQuery(`${type.name} has no geometry ${JSON.stringify(name)}`)
        return { sql: check(name), srid: geom.srid }
      },
      // An id is the key's value as text (several keys joined by '.'): compared as text, so an id
      // that cannot be the key's type matches nothing instead of failing.
      featureId: (ids, b) => {
        if (keys.length === 0) throw InvalidFeatureQuery(`${type.name} has no primary key: its features have no ids to match`)
        const one = (id: string) => {
          const parts = keys.length === 1 ? [id] : id.split('.')
          if (parts.length !== keys.length) return 'FALSE'
          return `(${keys.map((k, i) => `${quotePgName(k)}::text = ${b(parts[i])}::text`).join(' AND ')})`
        }
        return `(${ids.map(one).join(' OR ')})`
      }
    }
    where.push(toPg(q.filter, target, bind))
  }
  if (q.within) {
    if (!sub) throw InvalidFeatureQuery(`${type.name}: a read within another type's rows needs that type's description`)
    where.push(`${check(q.within.column)} IN (${sub(q.within)})`)
  }
  return where
}

/**
 * The SELECT of a read: the asked attributes and the default geometry of `schema`, restricted to
 * the bounding box (&& on the index, and ST_Intersects unless loose), the filter, the order and
 * the page. Property names are checked against the schema (unknown: InvalidFeatureQuery).
 */
export function selectSql (dbSchema: string, type: TypeSchema, q: ReadQuery, opts: {
  looseBbox: boolean, keys: string[], count?: boolean, rawGeometry?: boolean
  /** The descriptions of the types a `within` reads (the same schema). */
  nested?: (type: string) => (TypeSchema & { keys: string[] }) | undefined
  /** A `within`'s subquery: only this column, its values bound after the outer read's. */
  only?: string, values?: unknown[]
}): SqlStatement {
  // An SQL view's SELECT comes first, its values $1..$n; the read's own values follow.
  if (opts.values && q.view) throw InvalidFeatureQuery(`${type.name}: an SQL view cannot be read within another read`)
  const values: unknown[] = opts.values ?? (q.view ? [...q.view.values] : [])
  const bind = (v: unknown) => { values.push(v); return `$${values.length}` }
  const known = new Set([...type.attributes.map((a) => a.name), ...opts.keys])
  const check = (name: string) => {
    if (!known.has(name)) throw InvalidFeatureQuery(`${type.name} has no attribute ${JSON.stringify(name)}`)
    return quotePgName(name)
  }
  const sub = (w: NonNullable<ReadQuery['within']>) => {
    const inner = opts.nested?.(w.query.type)
    if (!inner) throw InvalidFeatureQuery(`no table or view ${JSON.stringify(w.query.type)} in schema ${JSON.stringify(dbSchema)}`)
    return selectSql(dbSchema, inner, w.query, { looseBbox: opts.looseBbox, keys: inner.keys, nested: opts.nested, only: w.value, values }).text
  }
  const where = whereSql(type, q, opts.keys, opts.looseBbox, bind, check, sub)
  const from = `${q.view ? `(${q.view.sql}) AS ${quotePgName(type.name)}` : qualifiedTable(dbSchema, type.name)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`
  if (q.distinct !== undefined) return distinctSql(q, from, opts, check, bind, values)
  const geom = type.geometry
  const g = geom ? quotePgName(geom.name) : undefined
  const columns = opts.only !== undefined ? [check(opts.only)] : (q.properties ?? type.attributes.filter((a) => a.name !== geom?.name).map((a) => a.name))
    .filter((n) => n !== geom?.name).map(check)
  if (opts.only === undefined) for (const k of opts.keys) if (!columns.includes(quotePgName(k))) columns.push(quotePgName(k))
  if (geom && g && opts.only === undefined) {
    const tolerance = toleranceOf(q)
    // Simplified to the tolerance (Douglas-Peucker, a feature smaller than it kept as a tiny one,
    // as a map draws it), then repeated points dropped: the read carries what the pixels show.
    const simplified = tolerance ? `ST_RemoveRepeatedPoints(ST_Simplify(${g}, ${bind(tolerance)}::double precision, true))` : g
    // Then cut to the map's area (ST_ClipByBox2D: GEOS' rectangle clip, which neither needs nor
    // checks validity): simplified first, so a border shared by two metatiles is the same line in
    // both, whichever part of it each shows.
    const read = q.clip ? `ST_ClipByBox2D(${simplified}, ${envelopeSql(q.clip, geom.srid, bind)})` : simplified
    columns.push(opts.rawGeometry ? g : q.geometryFormat === 'geojson' ? `ST_AsGeoJSON(${read}) AS ${g}` : `ST_AsBinary(${read}) AS ${g}`)
  }
  let text = `SELECT ${opts.count ? 'count(*) AS n' : columns.join(', ')} FROM ${from}`
  if (opts.count) return { text, values }
  const order = (q.sortBy ?? []).map((s) => `${check(s.name)} ${s.descending ? 'DESC' : 'ASC'}`)
  // A page needs a stable order: the key (else the physical order) breaks ties.
  if (q.limit !== undefined || q.offset !== undefined) for (const k of opts.keys) order.push(`${quotePgName(k)} ASC`)
  if (order.length > 0) text += ` ORDER BY ${order.join(', ')}`
  if (pageCount(q.limit, 'limit') !== undefined) text += ` LIMIT ${bind(q.limit)}::bigint`
  if (pageCount(q.offset, 'offset') !== undefined && q.offset !== 0) text += ` OFFSET ${bind(q.offset)}::bigint`
  return { text, values }
}

const pageCount = (v: number | undefined, what: string) => {
  if (v !== undefined && (!Number.isSafeInteger(v) || v < 0)) throw InvalidFeatureQuery(`${what} must be a whole number of at least 0: ${v}`)
  return v
}

/**
 * SELECT DISTINCT of one attribute in its order, paged (or the COUNT(DISTINCT) of it), from `from`
 * (the table or SQL view with the read's WHERE); with sortBy, each value at its first row under the
 * sort (the value breaking ties): the rows numbered in that order, one per value with its least number.
 */
function distinctSql (q: ReadQuery, from: string, opts: { count?: boolean }, check: (name: string) => string, bind: (v: unknown) => string, values: unknown[]): SqlStatement {
  const col = check(q.distinct!)
  const sorts = opts.count ? [] : (q.sortBy ?? []).map((s) => `${check(s.name)} ${s.descending ? 'DESC' : 'ASC'}`)
  let text: string
  if (sorts.length > 0) {
    const rank = quotePgName(q.distinct === 'mw_rank' ? 'mw_rank_' : 'mw_rank')
    text = `SELECT ${col} FROM (SELECT ${col}, row_number() OVER (ORDER BY ${[...sorts, `${col} ASC`].join(', ')}) AS ${rank} FROM ${from}) AS mw_rows GROUP BY ${col} ORDER BY min(${rank})`
  } else {
    text = `SELECT ${opts.count ? `count(DISTINCT ${col}) AS n` : `DISTINCT ${col}`} FROM ${from}`
    if (opts.count) return { text, values }
    text += ` ORDER BY ${col} ASC`
  }
  if (pageCount(q.limit, 'limit') !== undefined) text += ` LIMIT ${bind(q.limit)}::bigint`
  if (pageCount(q.offset, 'offset') !== undefined && q.offset !== 0) text += ` OFFSET ${bind(q.offset)}::bigint`
  return { text, values }
}

/** The column ST_AsMVT takes the geometry from (no attribute of a feature type is named so). */
const MVT_GEOMETRY = '__mw_mvt_geom'

/**
 * One layer of a vector tile encoded by PostGIS: the features of the read (the tile's area with its
 * buffer in the data's CRS, the filter) with their attributes, each geometry given the data's SRID,
 * taken to the grid's CRS and to the tile's units by ST_AsMVTGeom (extent, buffer, clipped), and the
 * rows encoded by ST_AsMVT under the layer's name. Values bound, identifiers quoted. The area is
 * matched on the index alone (a loose bounding box): ST_AsMVTGeom clips every geometry to the tile
 * and its buffer and gives NULL for one that does not reach them, which the query leaves out, so an
 * exact ST_Intersects first would only test each polygon's vertices twice.
 */
export function vectorTileSql (dbSchema: string, type: TypeSchema, q: VectorTileQuery, opts: { keys: string[] }): SqlStatement {
  const geom = type.geometry
  if (!geom) throw InvalidFeatureQuery(`${type.name} has no geometry to draw in a vector tile`)
  const inner = selectSql(dbSchema, type, { type: q.type, bbox: q.area, ...(q.filter ? { filter: q.filter } : {}), ...(q.view ? { view: q.view } : {}) }, { ...opts, looseBbox: true, rawGeometry: true })
  const values = inner.values
  const bind = (v: unknown) => { values.push(v); return `$${values.length}` }
  if (!q.tile.every(Number.isFinite)) throw InvalidFeatureQuery(`tile bounds ${JSON.stringify(q.tile)} are not numbers`)
  const g = `s.${quotePgName(geom.name)}`
  const grid = `${bind(q.gridSrid)}::integer`
  const env = `ST_MakeEnvelope(${q.tile.map((v) => `${bind(v)}::double precision`).join(', ')}, ${grid})`
  const attrs = type.attributes.filter((a) => a.name !== geom.name).map((a) => `s.${quotePgName(a.name)}`)
  const native = q.dataSrid !== undefined ? `ST_SetSRID(${g}, ${bind(q.dataSrid)}::integer)` : g
  const mvtGeom = `ST_AsMVTGeom(ST_Transform(${native}, ${grid}), ${env}::box2d, ${bind(q.extent)}::integer, ${bind(q.buffer)}::integer, true) AS ${quotePgName(MVT_GEOMETRY)}`
  const rows = `SELECT ${[...attrs, mvtGeom].join(', ')} FROM (${inner.text}) s`
  const text = `SELECT ST_AsMVT(t, ${bind(q.name)}::text, ${bind(q.extent)}::integer, ${bind(MVT_GEOMETRY)}::text) AS mvt FROM (${rows}) t WHERE t.${quotePgName(MVT_GEOMETRY)} IS NOT NULL`
  return { text, values }
}

interface Described extends TypeSchema { keys: string[] }

/** How long reads reuse a table's description (createPostgisSource). */
const DESCRIBED_FOR_MS = 5000
/** SQLSTATEs of a statement naming a column or table that is not there (undefined column, table). */
const SCHEMA_CHANGED = new Set(['42703', '42P01'])
const schemaChanged = (err: unknown) => SCHEMA_CHANGED.has(String((err as { code?: unknown }).code))
/** SQLSTATE classes of a failure that is not the statement's: connection, resources, shutdown. */
const NOT_THE_SQL = /^(08|53|57|58|XX)/

/** BOX(minx miny,maxx maxy) of ST_Extent as an envelope. */
const boxOf = (row: { e: string | null } | undefined): Envelope | undefined => {
  const m = row?.e ? /^BOX\(([-0-9.e+]+) ([-0-9.e+]+),([-0-9.e+]+) ([-0-9.e+]+)\)$/i.exec(row.e) : null
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] : undefined
}

export function createPostgisSource (o: PostgisSourceOptions): VectorSource {
  const pool = new pg.Pool({
    ...pgConnectionConfig(o),
    max: o.maxConnections,
    min: o.minConnections,
    idleTimeoutMillis: 60000
  } as pg.PoolConfig)
  // A connection lost while idle must not become an unhandled 'error' event.
  pool.on('error', () => undefined)

  /** The table's description from the catalogs, through `db`: a read holding a connection asks on
   *  it (a pool of one connection would otherwise wait for itself). One statement: a connection
   *  runs one query at a time, and the description costs one round trip. */
  const describeFull = async (type: string, db: pg.Pool | pg.PoolClient = pool): Promise<Described | undefined> => {
    if (SYSTEM_TABLES.has(type)) return undefined
    const r = await db.query<{
      cols: Array<{ attname: string, typname: string, attnotnull: boolean, atttypmod: number }>
      geoms: Array<{ column: string, type: string, srid: number }>
      keys: string[]
    }>(`WITH rel AS (SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'v', 'm', 'p', 'f'))
      SELECT
        (SELECT coalesce(json_agg(json_build_object('attname', a.attname, 'typname', t.typname, 'attnotnull', a.attnotnull, 'atttypmod', a.atttypmod) ORDER BY a.attnum), '[]')
          FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
          WHERE a.attrelid = rel.oid AND a.attnum > 0 AND NOT a.attisdropped) AS cols,
        (SELECT coalesce(json_agg(json_build_object('column', f_geometry_column, 'type', type, 'srid', srid)), '[]')
          FROM geometry_columns WHERE f_table_schema = $1 AND f_table_name = $2) AS geoms,
        (SELECT coalesce(json_agg(a.attname ORDER BY array_position(i.indkey, a.attnum)), '[]')
          FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
          WHERE i.indrelid = rel.oid AND i.indisprimary) AS keys
      FROM rel`, [o.schema, type])
    if (r.rows.length === 0) return undefined
    const { cols, geoms, keys: keyNames } = r.rows[0]
    const geomOf = new Map(geoms.map((g) => [g.column, g]))
    const attributes: AttributeInfo[] = []
    let geometry: TypeSchema['geometry']
    for (const c of cols) {
      if (!o.exposePrimaryKeys && keyNames.includes(c.attname)) continue
      const g = geomOf.get(c.attname)
      if (c.typname === 'geometry' && g === undefined) continue // a geometry column PostGIS does not register
      const nillable = !c.attnotnull
      const a: AttributeInfo = {
        name: c.attname,
        binding: g ? geometryBinding(g.type) : columnBinding(c.typname),
        nillable,
        minOccurs: nillable ? 0 : 1,
        maxOccurs: 1
      }
      if ((c.typname === 'varchar' || c.typname === 'bpchar') && c.atttypmod > 4) a.length = c.atttypmod - 4
      attributes.push(a)
      if (g && !geometry) geometry = { name: g.column, type: g.type, srid: g.srid }
    }
    return { name: type, attributes, ...(geometry ? { geometry } : {}), keys: keyNames }
  }

  // The reads' descriptions of tables (columns, geometry, keys): a catalog query that costs more
  // than a vector tile's own query, so a read reuses one for DESCRIBED_FOR_MS. A
  // statement refused because a column or table it names is gone (the table changed under the
  // description) drops the description and runs once more on a fresh one; describe() (publishing a
  // feature type, reloading it) always asks the catalogs and refreshes what reads use.
  const described = new Map<string, { at: number, d: Described }>()
  const remember = (type: string, d: Described | undefined) => {
    if (d) described.set(type, { at: Date.now(), d }); else described.delete(type)
    if (described.size > 1000) described.delete(described.keys().next().value!)
    return d
  }
  const describedFor = async (type: string, fresh = false, db?: pg.PoolClient): Promise<Described> => {
    const had = described.get(type)
    const d = !fresh && had && Date.now() - had.at < DESCRIBED_FOR_MS ? had.d : remember(type, await describeFull(type, db))
    if (!d) throw InvalidFeatureQuery(`no table or view ${JSON.stringify(type)} in schema ${JSON.stringify(o.schema)}`)
    return d
  }
  /** `fn` on the table's description; again on a fresh one when the statement names what is gone. */
  async function withDescription<T> (type: string, fn: (d: Described) => Promise<T>, db?: pg.PoolClient): Promise<T> {
    try { return await fn(await describedFor(type, false, db)) } catch (err) {
      if (!schemaChanged(err)) throw err
      return await fn(await describedFor(type, true, db))
    }
  }

  /** `fn` on a connection in a read-only transaction (an SQL view's SELECT runs in nothing else). */
  async function readOnly<T> (fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await pool.connect()
    let ok = false
    try {
      await c.query('BEGIN READ ONLY')
      const r = await fn(c)
      await c.query('COMMIT')
      ok = true
      return r
    } finally { c.release(ok ? undefined : true) }
  }

  /** `fn` on the read's description (an SQL view's is the feature type's own, a table's the
   *  catalogs') and the descriptions of the types its `within` reads. */
  async function describedRead<T> (q: ReadQuery, fn: (d: Described, nested: (type: string) => Described | undefined) => Promise<T>, db?: pg.PoolClient): Promise<T> {
    const nested = new Map<string, Described>()
    for (let w = q.within; w; w = w.query.within) if (!nested.has(w.query.type)) nested.set(w.query.type, await describedFor(w.query.type, false, db))
    const of = (type: string) => nested.get(type)
    if (q.view) return await fn({ ...q.view.schema, keys: q.view.keys }, of)
    return await withDescription(q.type, (d) => fn(d, of), db)
  }

  /**
   * The features of a read in batches of the store's fetch size, from a server-side cursor: each
   * FETCH is sent before the batch before it is handed on, so the database reads the next batch
   * while this one is written (at most two batches in memory). Rows come as arrays, their columns
   * placed by index (the key columns read for the id, the geometry aside).
   */
  async function * readBatches (q: ReadQuery): AsyncGenerator<Feature[]> {
    const client = await pool.connect()
    let d: Described
    let toFeatures: ((rows: unknown[][]) => Feature[]) | undefined
    const converter = (fields: Array<{ name: string }>) => {
      const keys = d.keys
      const geomAt = d.geometry ? fields.findIndex((f) => f.name === d.geometry!.name) : -1
      const props = fields.map((f, i) => ({ name: f.name, i })).filter((f) => f.i !== geomAt && (o.exposePrimaryKeys || !keys.includes(f.name)))
      const keyAt = keys.map((k) => fields.findIndex((f) => f.name === k))
      return (rows: unknown[][]): Feature[] => rows.map((row) => {
        const properties: Record<string, unknown> = {}
        for (const p of props) properties[p.name] = row[p.i]
        const geometry = geomAt >= 0 ? (row[geomAt] as Buffer | string | null) ?? null : null
        if (keyAt.length === 0 || keyAt.includes(-1)) return { properties, geometry } // no key read (a distinct read)
        return { id: keyAt.length === 1 ? String(row[keyAt[0]]) : keyAt.map((i) => String(row[i])).join('.'), properties, geometry }
      })
    }
    const batchOf = (r: pg.QueryResult<unknown[]>) => (toFeatures ??= converter(r.fields))(r.rows)
    let ok = false
    try {
      if (o.fetchSize <= 0) {
        if (q.view) await client.query('BEGIN READ ONLY')
        yield batchOf(await describedRead(q, async (desc, nested) => {
          d = desc
          const sql = selectSql(o.schema, d, q, { looseBbox: o.looseBbox, keys: d.keys, nested })
          return await client.query<unknown[]>({ text: sql.text, values: sql.values, rowMode: 'array' })
        }, client))
        if (q.view) await client.query('COMMIT')
      } else {
        await describedRead(q, async (desc, nested) => {
          d = desc
          const sql = selectSql(o.schema, d, q, { looseBbox: o.looseBbox, keys: d.keys, nested })
          await client.query('BEGIN READ ONLY')
          try {
            await client.query(`DECLARE mw_features NO SCROLL CURSOR FOR ${sql.text}`, sql.values)
          } catch (err) { await client.query('ROLLBACK'); throw err }
        }, client)
        const fetch = () => {
          const p = client.query<unknown[]>({ text: `FETCH ${o.fetchSize} FROM mw_features`, rowMode: 'array' })
          p.catch(() => undefined) // awaited below; a reader that stops early drops the connection under it
          return p
        }
        let next = fetch()
        for (;;) {
          const r: pg.QueryResult<unknown[]> = await next
          const more = r.rows.length >= o.fetchSize
          if (more) next = fetch()
          if (r.rows.length > 0) yield batchOf(r)
          if (!more) break
        }
        await client.query('COMMIT')
      }
      ok = true
    } finally {
      // A reader that stopped early leaves a transaction open (and maybe a FETCH): that connection is dropped.
      client.release(ok ? undefined : true)
    }
  }

  return {
    async listTypes (): Promise<TypeName[]> {
      const r = await pool.query<{ name: string, has_geom: boolean }>(`SELECT c.relname AS name,
          EXISTS (SELECT 1 FROM geometry_columns g WHERE g.f_table_schema = n.nspname AND g.f_table_name = c.relname) AS has_geom
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'v', 'm', 'p', 'f') AND NOT c.relispartition ORDER BY c.relname COLLATE "C"`, [o.schema])
      return r.rows.filter((x) => !SYSTEM_TABLES.has(x.name)).map((x) => ({ name: x.name, hasGeometry: x.has_geom }))
    },

    async describe (type) {
      const d = remember(type, await describeFull(type))
      if (!d) return undefined
      const { keys: _keys, ...schema } = d
      return schema
    },

    async bounds (type, estimated) {
      const d = await describeFull(type)
      if (!d?.geometry) return undefined
      const g = quotePgName(d.geometry.name)
      if (estimated) {
        try {
          const r = await pool.query<{ e: string | null }>('SELECT ST_EstimatedExtent($1, $2, $3)::text AS e', [o.schema, type, d.geometry.name])
          const env = boxOf(r.rows[0])
          if (env) return env
        } catch { /* no statistics yet (never analysed): the exact extent */ }
      }
      const r = await pool.query<{ e: string | null }>(`SELECT ST_Extent(${g})::text AS e FROM ${qualifiedTable(o.schema, type)}`)
      return boxOf(r.rows[0])
    },

    async hasCrs (srid) {
      const r = await pool.query('SELECT 1 FROM spatial_ref_sys WHERE srid = $1', [srid])
      return r.rows.length > 0
    },

    async toLatLon (env, srid) {
      if (srid === 4326 || srid === 0) return env
      const r = await pool.query<{ e: string }>(`SELECT ST_Extent(ST_Transform(ST_Segmentize(ST_MakeEnvelope($1::double precision, $2::double precision,
        $3::double precision, $4::double precision, $5::integer), ($3::double precision - $1::double precision) / 16), 4326))::text AS e`, [...env, srid])
      const m = /^BOX\(([-0-9.e+]+) ([-0-9.e+]+),([-0-9.e+]+) ([-0-9.e+]+)\)$/i.exec(r.rows[0].e)
      if (!m) throw InvalidFeatureQuery(`the bounds in EPSG:${srid} cannot be transformed to EPSG:4326`)
      return [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])]
    },

    async * readFeatures (q) {
      for await (const batch of readBatches(q)) yield * batch
    },

    readFeatureBatches: readBatches,

    async count (q) {
      return await describedRead(q, async (d, nested) => {
        const sql = selectSql(o.schema, d, q, { looseBbox: o.looseBbox, keys: d.keys, count: true, nested })
        const r = q.view ? await readOnly((c) => c.query<{ n: string }>(sql.text, sql.values)) : await pool.query<{ n: string }>(sql.text, sql.values)
        return Number(r.rows[0].n)
      })
    },

    async describeView (vt: VirtualTable, sql: string, values: string[]) {
      return await readOnly(async (c) => {
        const refused = (err: unknown): never => {
          const code = String((err as { code?: unknown }).code ?? '')
          if (!/^[0-9A-Z]{5}$/.test(code) || NOT_THE_SQL.test(code)) throw err
          throw InvalidVirtualTable(`the database refuses the SQL of ${vt.name}: ${(err as Error).message}`)
        }
        const r = await c.query({ text: `SELECT * FROM (${sql}) AS v LIMIT 0`, values }).catch(refused)
        const oids = [...new Set(r.fields.map((f) => f.dataTypeID))]
        const types = await c.query<{ oid: number, typname: string }>('SELECT oid::integer AS oid, typname FROM pg_type WHERE oid = ANY($1::oid[])', [oids])
        const typname = new Map(types.rows.map((t) => [t.oid, t.typname]))
        const names = r.fields.map((f) => f.name)
        const twice = names.find((n, i) => names.indexOf(n) !== i)
        if (twice !== undefined) throw InvalidVirtualTable(`the SQL of ${vt.name} names column ${JSON.stringify(twice)} twice: give each column its own name`)
        const geom = vt.geometries[0]
        const geomField = r.fields.find((f) => f.name === geom.name)
        if (!geomField || typname.get(geomField.dataTypeID) !== 'geometry') throw InvalidVirtualTable(`the SQL of ${vt.name} has no geometry column ${JSON.stringify(geom.name)} (columns: ${names.join(', ')})`)
        for (const k of vt.keyColumns) if (!names.includes(k)) throw InvalidVirtualTable(`key column ${JSON.stringify(k)} is not a column of the SQL of ${vt.name} (columns: ${names.join(', ')})`)
        const attributes: AttributeInfo[] = []
        for (const f of r.fields) {
          const t = typname.get(f.dataTypeID) ?? ''
          if (!o.exposePrimaryKeys && vt.keyColumns.includes(f.name)) continue
          if (t === 'geometry' && f.name !== geom.name) continue // only the declared geometry is read
          const a: AttributeInfo = { name: f.name, binding: f.name === geom.name ? geometryBinding(geom.type) : columnBinding(t), nillable: true, minOccurs: 0, maxOccurs: 1 }
          if ((t === 'varchar' || t === 'bpchar') && f.dataTypeModifier > 4) a.length = f.dataTypeModifier - 4
          attributes.push(a)
        }
        const b = await c.query<{ e: string | null }>({ text: `SELECT ST_Extent(${quotePgName(geom.name)})::text AS e FROM (${sql}) AS v`, values }).catch(refused)
        const bounds = boxOf(b.rows[0])
        const schema: TypeSchema = { name: vt.name, attributes, geometry: { name: geom.name, type: geom.type.toUpperCase(), srid: Math.max(geom.srid, 0) } }
        return { schema, keys: vt.keyColumns, ...(bounds ? { bounds } : {}) }
      })
    },

    write: createPostgisWriter(pool, o, describeFull),
    async vectorTile (q) {
      return await describedRead(q, async (d) => {
        const sql = vectorTileSql(o.schema, d, q, { keys: d.keys })
        const r = q.view ? await readOnly((c) => c.query<{ mvt: Buffer | null }>(sql.text, sql.values)) : await pool.query<{ mvt: Buffer | null }>(sql.text, sql.values)
        return r.rows[0]?.mvt ?? new Uint8Array(0)
      })
    },

    async close () { await pool.end() }
  }
}
