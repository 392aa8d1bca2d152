// The GeoPackage vector source: the file opened read-only with better-sqlite3. Types are the
// `features` and `attributes` rows of gpkg_contents; a type's geometry column, type and CRS come
// from gpkg_geometry_columns and gpkg_spatial_ref_sys (the EPSG code where the organization is
// EPSG), its attributes from PRAGMA table_info with GeoTools' GeoPackage bindings. Bounds: the
// gpkg_contents extent when estimated, else the R-tree's (rtree_<t>_<g>, when the file has one), else
// read from the geometries. Reads compile the filter tree to SQLite SQL (services/filters/sqlite.ts,
// bound values, quoted names), take a bounding box through the R-tree when there is one and then test
// the geometry exactly (mw_meets, a function of the connection), and page in SQL. better-sqlite3 is
// synchronous: a read has its own connection and iterates in batches of the fetch size, giving the
// event loop back (setImmediate) between batches, so no query holds it for long.
import path from 'node:path'
import type BetterSqlite3 from 'better-sqlite3'
import { Database } from '../storage/sqlite/sqlite-driver.js'
import { quoteSqliteName, toSqlite } from '../filters/sqlite.js'
import type { Envelope, SpatialOp } from '../filters/tree.js'
import { prefilterEnvelope, spatialMatch, toJts, type JtsGeometry } from '../filters/spatial.js'
import { envelopeOf as geoEnvelope, type Geo } from '../wfs/geometry.js'
import { InvalidFeatureQuery } from '../errors.js'
import { builtinProj4Def, transformBbox } from '../render/crs.js'
import { checkEnvelope, envelopeOfValue as envelopeOf, geometryMeets, readGpkgBlob, wkbToGeojson } from './geometry.js'
import { geometryBinding } from './postgis-source.js'
import { toleranceOf } from './simplify.js'
import { writeGeoPackage } from './gpkg-write.js'
import type { AttributeInfo, Feature, ReadQuery, TypeName, TypeSchema, VectorSource } from './source.js'

export interface GeoPackageSourceOptions {
  file: string
  /** Rows per batch between two turns of the event loop. */
  fetchSize: number
  /** Primary-key columns are attributes (else they only make the feature id). */
  exposePrimaryKeys: boolean
}

const TYPE_BINDINGS: Record<string, string> = {
  BOOLEAN: 'java.lang.Boolean', TINYINT: 'java.lang.Byte', SMALLINT: 'java.lang.Short', MEDIUMINT: 'java.lang.Integer',
  INT: 'java.lang.Integer', INTEGER: 'java.lang.Integer', BIGINT: 'java.lang.Long', FLOAT: 'java.lang.Float', DOUBLE: 'java.lang.Double',
  REAL: 'java.lang.Double', TEXT: 'java.lang.String', BLOB: '[B', DATE: 'java.sql.Date', DATETIME: 'java.sql.Timestamp'
}

/** GeoTools' binding of a GeoPackage column type (TEXT(40) is TEXT); others: Object. */
export function gpkgColumnBinding (declared: string): string {
  return TYPE_BINDINGS[declared.toUpperCase().replace(/\s*\(.*$/, '').trim()] ?? 'java.lang.Object'
}

export interface Described extends TypeSchema {
  /** The integer primary key (the R-tree's id), else rowid. */
  key: string
  keyIsColumn: boolean
  rtree?: string
  /** The geometry column's srs_id (gpkg_geometry_columns). */
  srsId?: number
}

/** The WHERE conditions of a query (the R-tree and the exact test for a bbox, the filter), values pushed on `values`. */
export function gpkgWhere (d: Described, q: Pick<ReadQuery, 'bbox' | 'filter' | 'within'>, check: (name: string) => string, values: unknown[],
  sub?: (w: NonNullable<ReadQuery['within']>) => string): string[] {
  const g = d.geometry ? quoteSqliteName(d.geometry.name) : undefined
  const key = d.keyIsColumn ? quoteSqliteName(d.key) : 'rowid'
  const where: string[] = []
  if (q.bbox) {
    if (!g) throw InvalidFeatureQuery(`${d.name} has no geometry to compare with a bounding box`)
    if (!checkEnvelope(q.bbox)) throw InvalidFeatureQuery(`bounding box ${JSON.stringify(q.bbox)} is not minx, miny, maxx, maxy`)
    const [minx, miny, maxx, maxy] = q.bbox
    if (d.rtree) {
      where.push(`${key} IN (SELECT id FROM ${quoteSqliteName(d.rtree)} WHERE maxx >= ? AND minx <= ? AND maxy >= ? AND miny <= ?)`)
      values.push(minx, maxx, miny, maxy)
    }
    where.push(`mw_meets(${g}, ?, ?, ?, ?)`)
    values.push(minx, miny, maxx, maxy)
  }
  if (q.filter) {
    const f = toSqlite(q.filter, {
      property: (name) => check(name),
      footprint: g ? [`mw_minx(${g})`, `mw_miny(${g})`, `mw_maxx(${g})`, `mw_maxy(${g})`] : ['NULL', 'NULL', 'NULL', 'NULL'],
      // A feature's id is its key (the primary key column, else the rowid) as text, as readFeatures gives it.
      featureId: (ids, params) => {
        params.push(...ids)
        return `CAST(${key} AS TEXT) IN (${ids.map(() => '?').join(', ')})`
      },
      // A spatial predicate: the R-tree (else the blob's envelope) keeps the features that can
      // match, then jsts decides on the geometry (mw_spatial, a function of the connection).
      spatial: (n, params) => {
        const col = check(n.name)
        const parts: string[] = []
        const lit = geoEnvelope(n.geo)
        const pre = lit ? prefilterEnvelope(n, lit) : undefined
        if (pre) {
          if (d.rtree) parts.push(`${key} IN (SELECT id FROM ${quoteSqliteName(d.rtree)} WHERE maxx >= ? AND minx <= ? AND maxy >= ? AND miny <= ?)`)
          else parts.push(`(mw_maxx(${col}) >= ? AND mw_minx(${col}) <= ? AND mw_maxy(${col}) >= ? AND mw_miny(${col}) <= ?)`)
          params.push(pre[0], pre[2], pre[1], pre[3])
        }
        parts.push(`mw_spatial(${col}, ?, ?, ?)`)
        params.push(n.op, JSON.stringify(n.geo), n.distance)
        return `(${parts.join(' AND ')})`
      }
    })
    where.push(f.sql)
    values.push(...f.params)
  }
  if (q.within) {
    if (!sub) throw InvalidFeatureQuery(`${d.name}: a read within another type's rows needs that type's description`)
    where.push(`${check(q.within.column)} IN (${sub(q.within)})`)
  }
  return where
}

/** The SELECT of a read and its bound values (property names checked against the schema). */
export function gpkgSelectSql (d: Described, q: ReadQuery, exposePrimaryKeys: boolean, opts: {
  /** The descriptions of the types a `within` reads (tables of the same file). */
  nested?: (type: string) => Described | undefined
  /** A `within`'s subquery: only this column, its values pushed after the outer read's. */
  only?: string, values?: unknown[]
} = {}): { text: string, values: unknown[] } {
  const values: unknown[] = opts.values ?? []
  const known = new Set(d.attributes.map((a) => a.name))
  if (d.keyIsColumn) known.add(d.key)
  const check = (name: string) => {
    if (!known.has(name)) throw InvalidFeatureQuery(`${d.name} has no attribute ${JSON.stringify(name)}`)
    return quoteSqliteName(name)
  }
  const sub = (w: NonNullable<ReadQuery['within']>) => {
    const inner = opts.nested?.(w.query.type)
    if (!inner) throw InvalidFeatureQuery(`no feature table ${JSON.stringify(w.query.type)}`)
    return gpkgSelectSql(inner, w.query, exposePrimaryKeys, { nested: opts.nested, only: w.value, values }).text
  }
  if (q.distinct !== undefined) {
    // The distinct values of one attribute in its order, paged; with sortBy, each value at its
    // first row under the sort (the value breaking ties).
    const col = check(q.distinct)
    const where = gpkgWhere(d, q, check, values, sub)
    const from = `${quoteSqliteName(d.name)}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`
    const sorts = (q.sortBy ?? []).map((s) => `${check(s.name)} ${s.descending ? 'DESC' : 'ASC'}`)
    const rank = quoteSqliteName(q.distinct === 'mw_rank' ? 'mw_rank_' : 'mw_rank')
    let text = sorts.length > 0
      ? `SELECT ${col} FROM (SELECT ${col}, row_number() OVER (ORDER BY ${[...sorts, `${col} ASC`].join(', ')}) AS ${rank} FROM ${from}) GROUP BY ${col} ORDER BY min(${rank})`
      : `SELECT DISTINCT ${col} FROM ${from} ORDER BY ${col} ASC`
    text += page(q, values)
    return { text, values }
  }
  const geom = d.geometry
  const g = geom ? quoteSqliteName(geom.name) : undefined
  const key = d.keyIsColumn ? quoteSqliteName(d.key) : 'rowid'
  const columns = opts.only !== undefined ? [check(opts.only)] : (q.properties ?? d.attributes.filter((a) => a.name !== geom?.name).map((a) => a.name))
    .filter((n) => n !== geom?.name).map(check)
  if (opts.only === undefined && (!exposePrimaryKeys || !columns.includes(key))) columns.push(`${key} AS mw_fid`)
  if (g && opts.only === undefined) columns.push(`${g} AS mw_geom`)
  const where = gpkgWhere(d, q, check, values, sub)
  let text = `SELECT ${columns.join(', ')} FROM ${quoteSqliteName(d.name)}`
  if (where.length > 0) text += ` WHERE ${where.join(' AND ')}`
  const order = (q.sortBy ?? []).map((s) => `${check(s.name)} ${s.descending ? 'DESC' : 'ASC'}`)
  if (q.limit !== undefined || q.offset !== undefined) order.push(`${key} ASC`)
  if (order.length > 0) text += ` ORDER BY ${order.join(', ')}`
  text += page(q, values)
  return { text, values }
}

/** The LIMIT/OFFSET of a read, its values pushed to `values`. */
function page (q: ReadQuery, values: unknown[]): string {
  const count = (v: number | undefined, what: string) => {
    if (v !== undefined && (!Number.isSafeInteger(v) || v < 0)) throw InvalidFeatureQuery(`${what} must be a whole number of at least 0: ${v}`)
    return v
  }
  const limit = count(q.limit, 'limit')
  const offset = count(q.offset, 'offset')
  if (limit === undefined && (offset === undefined || offset === 0)) return ''
  values.push(limit ?? -1)
  if (offset === undefined || offset === 0) return ' LIMIT ?'
  values.push(offset)
  return ' LIMIT ? OFFSET ?'
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** The functions a read's SQL calls: the envelope parts of a geometry and the exact bbox test. */
export function addFunctions (db: BetterSqlite3.Database): void {
  const part = (i: number) => (blob: unknown) => envelopeOf(blob)?.[i] ?? null
  db.function('mw_minx', { deterministic: true }, part(0))
  db.function('mw_miny', { deterministic: true }, part(1))
  db.function('mw_maxx', { deterministic: true }, part(2))
  db.function('mw_maxy', { deterministic: true }, part(3))
  db.function('mw_spatial', { deterministic: true }, spatialFunction)
  db.function('mw_meets', { deterministic: true }, (blob: unknown, minx: unknown, miny: unknown, maxx: unknown, maxy: unknown) => {
    if (!Buffer.isBuffer(blob)) return 0
    const env: Envelope = [Number(minx), Number(miny), Number(maxx), Number(maxy)]
    try {
      const b = readGpkgBlob(blob)
      if (!b.wkb) return 0
      if (b.envelope && !(b.envelope[2] >= env[0] && b.envelope[0] <= env[2] && b.envelope[3] >= env[1] && b.envelope[1] <= env[3])) return 0
      return geometryMeets(wkbToGeojson(b.wkb), env) ? 1 : 0
    } catch { return 0 }
  })
}

/** The last literals mw_spatial parsed (a read binds one text per spatial node). */
const parsedLiterals = new Map<string, JtsGeometry>()

/** mw_spatial(blob, op, literal GeoJSON, distance): 1 when the geometry matches, 0 when not, NULL for no geometry. */
function spatialFunction (blob: unknown, op: unknown, literal: unknown, distance: unknown): number | null {
  if (!Buffer.isBuffer(blob)) return null
  let own: JtsGeometry
  try {
    const b = readGpkgBlob(blob)
    if (!b.wkb) return null
    own = toJts(wkbToGeojson(b.wkb) as Geo)
  } catch { return null } // a blob that cannot be read matches nothing, as mw_meets
  const text = String(literal)
  let lit = parsedLiterals.get(text)
  if (!lit) {
    if (parsedLiterals.size > 16) parsedLiterals.clear()
    lit = toJts(JSON.parse(text) as Geo)
    parsedLiterals.set(text, lit)
  }
  const m = spatialMatch(String(op) as SpatialOp, own, lit, Number(distance))
  return m === null ? null : m ? 1 : 0
}

export function createGeoPackageSource (o: GeoPackageSourceOptions): VectorSource {
  let meta: BetterSqlite3.Database | undefined
  const open = () => new Database(o.file, { readonly: true, fileMustExist: true })
  const db = () => { meta ??= open(); return meta }
  const batch = Math.max(1, o.fetchSize)

  const describeFull = (type: string): Described | undefined => {
    const c = db().prepare(`SELECT c.table_name FROM gpkg_contents c JOIN sqlite_master m ON m.name = c.table_name AND m.type IN ('table', 'view')
      WHERE c.table_name = ? AND c.data_type IN ('features', 'attributes')`).get(type)
    if (!c) return undefined
    const cols = db().prepare('SELECT name, type, "notnull" AS nn, pk FROM pragma_table_info(?) ORDER BY cid').all(type) as Array<{ name: string, type: string, nn: number, pk: number }>
    const g = db().prepare(`SELECT g.column_name, g.geometry_type_name, g.srs_id, s.organization, s.organization_coordsys_id
      FROM gpkg_geometry_columns g LEFT JOIN gpkg_spatial_ref_sys s ON s.srs_id = g.srs_id WHERE g.table_name = ?`).get(type) as
      { column_name: string, geometry_type_name: string, srs_id: number, organization: string | null, organization_coordsys_id: number | null } | undefined
    const pks = cols.filter((x) => x.pk > 0)
    const pk = pks.length === 1 && /^INTEGER$/i.test(pks[0].type.trim()) ? pks[0].name : undefined
    const attributes: AttributeInfo[] = []
    for (const col of cols) {
      if (col.name === pk && !o.exposePrimaryKeys) continue
      const isGeom = g !== undefined && col.name === g.column_name
      const nillable = col.nn === 0
      const a: AttributeInfo = {
        name: col.name,
        binding: isGeom ? geometryBinding(g.geometry_type_name) : gpkgColumnBinding(col.type),
        nillable,
        minOccurs: nillable ? 0 : 1,
        maxOccurs: 1
      }
      const len = /^TEXT\s*\(\s*([0-9]+)\s*\)$/i.exec(col.type.trim())
      if (len) a.length = Number(len[1])
      attributes.push(a)
    }
    const srid = g === undefined ? 0 : (g.organization ?? '').toUpperCase() === 'EPSG' && (g.organization_coordsys_id ?? 0) > 0 ? g.organization_coordsys_id! : 0
    const out: Described = { name: type, attributes, key: pk ?? 'rowid', keyIsColumn: pk !== undefined }
    if (g) {
      out.geometry = { name: g.column_name, type: g.geometry_type_name.toUpperCase(), srid }
      out.srsId = g.srs_id
      const rtree = `rtree_${type}_${g.column_name}`
      if (db().prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(rtree)) out.rtree = rtree
    }
    return out
  }

  const boundsFromGeometries = async (d: Described): Promise<Envelope | undefined> => {
    const conn = open()
    let env: Envelope | undefined
    try {
      const it = conn.prepare(`SELECT ${quoteSqliteName(d.geometry!.name)} AS g FROM ${quoteSqliteName(d.name)}`).raw(true).iterate() as IterableIterator<[unknown]>
      try {
        let n = 0
        for (const [blob] of it) {
          const e = envelopeOf(blob)
          if (e) env = env ? [Math.min(env[0], e[0]), Math.min(env[1], e[1]), Math.max(env[2], e[2]), Math.max(env[3], e[3])] : e
          if (++n % batch === 0) await turn()
        }
      } finally { it.return?.() }
    } finally { conn.close() }
    return env
  }

  return {
    async listTypes (): Promise<TypeName[]> {
      const rows = db().prepare(`SELECT c.table_name AS name, EXISTS (SELECT 1 FROM gpkg_geometry_columns g WHERE g.table_name = c.table_name) AS has_geom
        FROM gpkg_contents c JOIN sqlite_master m ON m.name = c.table_name AND m.type IN ('table', 'view')
        WHERE c.data_type IN ('features', 'attributes') ORDER BY c.table_name`).all() as Array<{ name: string, has_geom: number }>
      return rows.map((r) => ({ name: r.name, hasGeometry: r.has_geom === 1 }))
    },

    async describe (type) {
      const d = describeFull(type)
      if (!d) return undefined
      const { key: _k, keyIsColumn: _c, rtree: _r, srsId: _s, ...schema } = d
      return schema
    },

    async bounds (type, estimated) {
      const d = describeFull(type)
      if (!d?.geometry) return undefined
      const valid = (e: Array<number | null> | undefined): Envelope | undefined =>
        e && e.every((x) => typeof x === 'number' && Number.isFinite(x)) ? e as Envelope : undefined
      if (estimated) {
        const c = db().prepare('SELECT min_x, min_y, max_x, max_y FROM gpkg_contents WHERE table_name = ?').raw(true).get(type) as Array<number | null> | undefined
        const env = valid(c)
        if (env) return env
      }
      if (d.rtree) {
        return valid(db().prepare(`SELECT min(minx), min(miny), max(maxx), max(maxy) FROM ${quoteSqliteName(d.rtree)}`).raw(true).get() as Array<number | null>)
      }
      return await boundsFromGeometries(d)
    },

    async hasCrs (srid) {
      return db().prepare("SELECT 1 FROM gpkg_spatial_ref_sys WHERE upper(organization) = 'EPSG' AND organization_coordsys_id = ?").get(srid) !== undefined
    },

    async toLatLon (env, srid) {
      if (srid === 4326 || srid === 0) return env
      const code = `EPSG:${srid}`
      const defs: Record<string, string> = {}
      if (builtinProj4Def(code) === undefined) {
        // A CRS the EPSG registry lacks: the GeoPackage's own WKT definition (proj4 reads WKT).
        const r = db().prepare("SELECT definition FROM gpkg_spatial_ref_sys WHERE upper(organization) = 'EPSG' AND organization_coordsys_id = ?").get(srid) as { definition: string } | undefined
        if (!r) throw InvalidFeatureQuery(`the bounds in ${code} cannot be transformed to EPSG:4326: the CRS is unknown`)
        defs[code] = r.definition
      }
      let out: Envelope
      try { out = transformBbox(env, code, 'EPSG:4326', defs) } catch { throw InvalidFeatureQuery(`the bounds in ${code} cannot be transformed to EPSG:4326`) }
      if (!out.every(Number.isFinite)) throw InvalidFeatureQuery(`the bounds in ${code} cannot be transformed to EPSG:4326`)
      return out
    },

    async * readFeatures (q) {
      const d = describeFull(q.type)
      if (!d) throw InvalidFeatureQuery(`no feature table ${JSON.stringify(q.type)} in ${path.basename(o.file)}`)
      const sql = gpkgSelectSql(d, q, o.exposePrimaryKeys, { nested: describeFull })
      toleranceOf(q) // checked as every source checks it; the render thread simplifies (simplify.ts)
      // SQLite keeps a BOOLEAN as 0/1: read back as the binding says.
      const booleans = new Set(d.attributes.filter((a) => a.binding === 'java.lang.Boolean').map((a) => a.name))
      const conn = open()
      try {
        addFunctions(conn)
        const it = conn.prepare(sql.text).iterate(...sql.values) as IterableIterator<Record<string, unknown>>
        try {
          let n = 0
          for (const row of it) {
            const properties: Record<string, unknown> = {}
            for (const [k, v] of Object.entries(row)) {
              if (k !== 'mw_fid' && k !== 'mw_geom') properties[k] = booleans.has(k) && typeof v === 'number' ? v !== 0 : v
            }
            const fid = row.mw_fid ?? (d.keyIsColumn ? row[d.key] : undefined)
            let geometry: Buffer | string | null = null
            if (Buffer.isBuffer(row.mw_geom)) {
              const wkb = readGpkgBlob(row.mw_geom).wkb
              if (wkb) geometry = q.geometryFormat === 'geojson' ? JSON.stringify(wkbToGeojson(wkb)) : wkb
            }
            yield { ...(fid !== undefined && fid !== null ? { id: String(fid) } : {}), properties, geometry } satisfies Feature
            if (++n % batch === 0) await turn()
          }
        } finally { it.return?.() }
      } finally { conn.close() }
    },

    async count (q) {
      const d = describeFull(q.type)
      if (!d) throw InvalidFeatureQuery(`no feature table ${JSON.stringify(q.type)} in ${path.basename(o.file)}`)
      const sql = gpkgSelectSql(d, { type: q.type, properties: [], ...(q.bbox ? { bbox: q.bbox } : {}), ...(q.filter ? { filter: q.filter } : {}), ...(q.distinct !== undefined ? { distinct: q.distinct } : {}), ...(q.within ? { within: q.within } : {}) }, o.exposePrimaryKeys, { nested: describeFull })
      const conn = open()
      try {
        // No box and no filter: SQLite counts the table's b-tree, no row is decoded.
        if (!q.bbox && !q.filter && !q.within && q.distinct === undefined) return (conn.prepare(`SELECT COUNT(*) FROM ${quoteSqliteName(d.name)}`).pluck().get() as number)
        // Else the compiled WHERE (the R-tree, the exact test) stepped in batches, the loop given back between them.
        addFunctions(conn)
        const it = conn.prepare(`SELECT 1 FROM (${sql.text})`).pluck().iterate(...sql.values)
        let n = 0
        try {
          for (const _ of it) { if (++n % batch === 0) await turn() }
        } finally { it.return?.() }
        return n
      } finally { conn.close() }
    },

    async write (edits) { return writeGeoPackage(o.file, edits, describeFull, o.exposePrimaryKeys) },

    async close () { meta?.close(); meta = undefined }
  }
}
