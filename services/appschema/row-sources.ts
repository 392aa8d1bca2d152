// The source data stores of a mapping, read as rows: GeoTools property-file directories (read
// here: `_=NAME:String,SHAPE:MultiPolygon:srid=4326` header, `fid=v|v|...` rows, WKT geometries),
// PostGIS (dbtype=postgis: the same parameter checks and pool as a PostGIS data store, through
// services/vector's PostGIS source) and GeoPackage (dbtype=geopkg, a file of the upload). A filter
// goes to the source's SQL where there is one and is evaluated on the rows of a property file.
import fs from 'node:fs/promises'
import path from 'node:path'
import { tokenize } from '../filters/ecql-parser.js'
import { readWkt } from '../filters/wkt.js'
import { matches, recordView } from '../filters/evaluate.js'
import type { Filter } from '../filters/tree.js'
import { filterType } from '../filters/bindings.js'
import { decodeGeometry, envelopeOf, type Geo } from '../wfs/geometry.js'
import { checkPostgisParams, connectionSettings } from '../datastores/params.js'
import { isMapwardenError } from '../errors.js'
import type { ReadQuery, VectorSource, TypeSchema } from '../vector/source.js'
import type { PostgisSourceOptions } from '../vector/postgis-source.js'
import type { GeoPackageSourceOptions } from '../vector/geopackage-source.js'
import { resolveRef } from './references.js'
import type { DataStoreDecl } from './type-mapping.js'
import type { Row } from './ocql.js'

export interface RowQuery {
  filter?: Filter
  /** Source attribute to order by (the feature id's, so the rows of one feature come together). */
  orderBy?: string
  /** Source attributes to order by first (a WFS sortBy on mapped XPaths), before `orderBy`. */
  sortBy?: SortKeys
  /** Skip this many rows, then at most `limit` of them. */
  offset?: number
  limit?: number
  /** Only the rows whose `column` is among the values of `value` in the rows `query` reads of
   *  `type` (another type of the same source, its page included): one statement where the source
   *  has SQL (a chained mapping's features for a page of parents). */
  within?: { column: string, type: string, value: string, query: RowQuery }
}

export type SortKeys = Array<{ name: string, descending: boolean }>

/** A page of the distinct values of one attribute: in its order, or with `sortBy` in the order of
 *  each value's first row under those keys (the value's order breaking ties). */
export interface DistinctQuery { filter?: Filter, column: string, sortBy?: SortKeys, offset?: number, limit?: number }

export interface RowSource {
  /** Undefined when the type can be read, else why not. */
  check (type: string): Promise<string | undefined>
  /** The attribute names of a type (a filter names them exactly). */
  attributes (type: string): Promise<string[]>
  rows (type: string, q?: RowQuery): AsyncIterable<Row>
  /** The filter type of each attribute ('String', 'Integer', 'Double', 'Boolean', 'Date', 'Geometry'). */
  kinds (type: string): Promise<Map<string, string>>
  /** The EPSG code of the type's (first) geometry, when it declares one. */
  srid (type: string): Promise<number | undefined>
  /** The envelope of the type's (first) geometry in its CRS; undefined: no geometry or no features. */
  bounds (type: string): Promise<[number, number, number, number] | undefined>
  /** Where the source has SQL (PostGIS, GeoPackage): the distinct values of a column, in its order,
   *  a page of them in one statement; and how many there are (COUNT(DISTINCT)). A property file
   *  has neither: its rows are read and grouped. */
  distinct? (type: string, q: DistinctQuery): Promise<unknown[]>
  countDistinct? (type: string, q: DistinctQuery): Promise<number>
  close (): Promise<void>
}

export interface Openers {
  postgis (o: PostgisSourceOptions): VectorSource
  geopackage (o: GeoPackageSourceOptions): VectorSource
}

const GEOMETRY = /^(Geometry|Point|MultiPoint|LineString|MultiLineString|Polygon|MultiPolygon|GeometryCollection)$/i
const NUMBER = /^(Integer|Int|Long|Short|Double|Float|BigDecimal|BigInteger|Number)$/i

/** The filter type of a property file's attribute type. */
function propertyKind (type: string): string {
  if (GEOMETRY.test(type)) return 'Geometry'
  if (/^(Integer|Int|Long|Short|BigInteger)$/i.test(type)) return 'Integer'
  if (NUMBER.test(type)) return 'Double'
  if (/^Boolean$/i.test(type)) return 'Boolean'
  return 'String'
}

interface PropertyType { attributes: Array<{ name: string, type: string, srid?: number }>, rows: Row[] }

/** A property file's rows, values typed by the header (empty non-string values are null). */
export function readPropertyRows (text: string): PropertyType | string {
  const lines = text.split(/\r?\n/)
  const header = lines.find((l) => l.startsWith('_='))
  if (!header) return 'no "_=" header line declaring the attributes'
  const attributes = header.slice(2).split(',').map((spec) => {
    const [name, type = 'String', ...rest] = spec.trim().split(':')
    const srid = rest.map((r) => /^srid=(\d+)$/i.exec(r.trim())).find((m) => m)
    return { name: name.trim(), type: type.trim(), ...(srid ? { srid: Number(srid[1]) } : {}) }
  })
  const rows: Row[] = []
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]
    if (line === '' || line.startsWith('#') || line.startsWith('_=')) continue
    const eq = line.indexOf('=')
    if (eq < 0) return `line ${n + 1}: no "=" between the feature id and its values`
    const parts = line.slice(eq + 1).split('|')
    const values: Record<string, unknown> = {}
    for (let i = 0; i < attributes.length; i++) {
      const a = attributes[i]
      const raw = parts[i]
      if (raw === undefined || (raw === '' && !/^String$/i.test(a.type))) { values[a.name] = null; continue }
      if (GEOMETRY.test(a.type)) {
        try { values[a.name] = readWkt(tokenize(raw.replace(/^\s*SRID=\d+;/i, '')), 0).geo } catch (err) {
          if (!isMapwardenError(err)) throw err
          return `line ${n + 1}: ${a.name}: ${err.message}`
        }
      } else if (NUMBER.test(a.type)) values[a.name] = Number(raw)
      else if (/^Boolean$/i.test(a.type)) values[a.name] = raw.trim().toLowerCase() === 'true'
      else values[a.name] = raw
    }
    rows.push({ id: line.slice(0, eq).trim(), values })
  }
  return { attributes, rows }
}

function propertySource (dir: string): RowSource {
  const cache = new Map<string, { mtime: number, t: PropertyType }>()
  const load = async (type: string): Promise<PropertyType | string> => {
    if (!/^[A-Za-z0-9_.-]+$/.test(type) || type.startsWith('.')) return `${JSON.stringify(type)} is not a property file name`
    const file = path.join(dir, `${type}.properties`)
    const st = await fs.stat(file).catch(() => undefined)
    if (!st?.isFile()) return `${type}.properties is not a file of the directory`
    const had = cache.get(type)
    if (had && had.mtime === st.mtimeMs) return had.t
    const t = readPropertyRows(await fs.readFile(file, 'utf8'))
    if (typeof t !== 'string') cache.set(type, { mtime: st.mtimeMs, t })
    return t
  }
  const source: RowSource = {
    async check (type) { const t = await load(type); return typeof t === 'string' ? t : undefined },
    async attributes (type) { const t = await load(type); return typeof t === 'string' ? [] : t.attributes.map((a) => a.name) },
    async srid (type) { const t = await load(type); return typeof t === 'string' ? undefined : t.attributes.find((a) => GEOMETRY.test(a.type))?.srid },
    async bounds (type) {
      const t = await load(type)
      const geom = typeof t === 'string' ? undefined : t.attributes.find((a) => GEOMETRY.test(a.type))?.name
      if (typeof t === 'string' || !geom) return undefined
      let env: [number, number, number, number] | undefined
      for (const r of t.rows) { const g = r.values[geom] as Geo | null; if (g) env = envelopeOf(g, env) }
      return env
    },
    async kinds (type) {
      const t = await load(type)
      return new Map(typeof t === 'string' ? [] : t.attributes.map((a) => [a.name, propertyKind(a.type)]))
    },
    async * rows (type, q = {}) {
      const t = await load(type)
      if (typeof t === 'string') throw new Error(t)
      const geomName = t.attributes.find((a) => GEOMETRY.test(a.type))?.name
      let rows = t.rows
      if (q.within) {
        const w = q.within
        const wanted = new Set<string>()
        for await (const r of source.rows(w.type, w.query)) { const v = r.values[w.value]; if (v !== null && v !== undefined) wanted.add(String(v)) }
        rows = rows.filter((r) => wanted.has(String(r.values[w.column])))
      }
      if (q.filter) {
        const f = q.filter
        rows = rows.filter((r) => {
          const g = geomName ? r.values[geomName] as Geo | null : null
          return matches(f, recordView(r.values, g ? envelopeOf(g) : undefined, r.id, g ?? undefined))
        })
      }
      const keys = [...(q.sortBy ?? []), ...(q.orderBy ? [{ name: q.orderBy, descending: false }] : [])]
      if (keys.length > 0) {
        // Numbers as numbers, text as text, nulls as the largest value (PostgreSQL's default: last
        // ascending, first descending), so a property file and its PostGIS copy sort alike.
        const cmp = (a: unknown, b: unknown): number => {
          if (a === b) return 0
          if (a === null || a === undefined) return 1
          if (b === null || b === undefined) return -1
          if (typeof a === 'number' && typeof b === 'number') return a - b
          return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0
        }
        rows = [...rows].sort((a, b) => {
          for (const k of keys) {
            const c = k.name === q.orderBy ? cmp(String(a.values[k.name] ?? a.id), String(b.values[k.name] ?? b.id)) : cmp(a.values[k.name], b.values[k.name])
            if (c !== 0) return k.descending ? -c : c
          }
          return 0
        })
      }
      const from = q.offset ?? 0
      yield * (q.limit !== undefined || from > 0 ? rows.slice(from, q.limit !== undefined ? from + q.limit : undefined) : rows)
    },
    async close () {}
  }
  return source
}

/** A read of rows as the vector source's read: orderBy after sortBy, a `within` read likewise. */
function readQuery (type: string, q: RowQuery): ReadQuery {
  const sortBy = [...(q.sortBy ?? []), ...(q.orderBy ? [{ name: q.orderBy, descending: false }] : [])]
  return {
    type,
    ...(q.filter ? { filter: q.filter } : {}),
    ...(sortBy.length > 0 ? { sortBy } : {}),
    ...(q.offset ? { offset: q.offset } : {}),
    ...(q.limit !== undefined ? { limit: q.limit } : {}),
    ...(q.within ? { within: { column: q.within.column, value: q.within.value, query: readQuery(q.within.type, q.within.query) } } : {})
  }
}

function vectorRows (source: VectorSource): RowSource {
  const schemas = new Map<string, Promise<TypeSchema | undefined>>()
  const describe = (type: string) => {
    let s = schemas.get(type)
    if (!s) { s = source.describe(type); schemas.set(type, s); s.catch(() => schemas.delete(type)) }
    return s
  }
  return {
    async check (type) {
      try { return (await describe(type)) ? undefined : `${type} is not a table or view of the source` } catch (err) { return (err as Error).message }
    },
    async attributes (type) { return (await describe(type))?.attributes.map((a) => a.name) ?? [] },
    async srid (type) { const g = (await describe(type))?.geometry; return g && g.srid > 0 ? g.srid : undefined },
    async bounds (type) { return (await describe(type))?.geometry ? await source.bounds(type, false) : undefined },
    async kinds (type) { return new Map((await describe(type))?.attributes.map((a) => [a.name, filterType(a.binding)]) ?? []) },
    async * rows (type, q = {}) {
      const schema = await describe(type)
      if (!schema) throw new Error(`${type} is not a table or view of the source`)
      const geom = schema.geometry?.name
      for await (const f of source.readFeatures({ ...readQuery(type, q), geometryFormat: 'geojson' })) {
        const values = { ...f.properties }
        if (geom) values[geom] = decodeGeometry(f.geometry)
        yield { id: f.id ?? '', values }
      }
    },
    async distinct (type, q) {
      const out: unknown[] = []
      for await (const f of source.readFeatures({ type, distinct: q.column, ...(q.filter ? { filter: q.filter } : {}), ...(q.sortBy && q.sortBy.length > 0 ? { sortBy: q.sortBy } : {}), ...(q.offset ? { offset: q.offset } : {}), ...(q.limit !== undefined ? { limit: q.limit } : {}) })) out.push(f.properties[q.column])
      return out
    },
    countDistinct: (type, q) => source.count({ type, distinct: q.column, ...(q.filter ? { filter: q.filter } : {}) }),
    close: () => source.close()
  }
}

/**
 * Opens the source of a declared data store of a mapping stored at `root`; a string says why it
 * cannot be opened (the parameters, not the connection: that is check()'s).
 */
export function openRowSource (decl: DataStoreDecl, root: string, openers: Openers): RowSource | string {
  const p = decl.params
  const get = (k: string) => { for (const [n, v] of p) if (n.toLowerCase() === k.toLowerCase()) return v; return undefined }
  const inUpload = (value: string): string | undefined => {
    const r = resolveRef(value, { kind: 'upload', rel: decl.file })
    return r.loc?.kind === 'upload' ? path.join(root, r.loc.rel) : undefined
  }
  const dbtype = get('dbtype')?.toLowerCase()
  const directory = get('directory')
  if (dbtype === undefined && directory !== undefined) {
    const dir = inUpload(directory)
    return dir ? propertySource(dir) : `directory ${JSON.stringify(directory)} is not a directory of the upload`
  }
  if (dbtype === 'postgis') {
    const params: Record<string, string> = {}
    for (const [k, v] of p) if (k !== 'passwd' && k !== 'password') params[k] = v
    let checked: Record<string, string>
    try { checked = checkPostgisParams(params) } catch (err) {
      if (!isMapwardenError(err)) throw err
      return err.message
    }
    // The password is the mapping file's own (GeoServer reads it from there too); it is never echoed.
    const password = get('passwd') ?? get('password')
    const fetch = Number(checked['fetch size'] ?? 1000)
    return vectorRows(openers.postgis({
      ...connectionSettings(checked, password),
      maxConnections: Number(checked['max connections'] ?? 4),
      minConnections: 0,
      fetchSize: fetch,
      looseBbox: false,
      exposePrimaryKeys: true
    }))
  }
  if (dbtype === 'geopkg' || dbtype === 'geopackage') {
    const db = get('database') ?? ''
    const file = inUpload(db)
    if (!file) return `database ${JSON.stringify(db)} is not a GeoPackage file of the upload`
    return vectorRows(openers.geopackage({ file, fetchSize: 1000, exposePrimaryKeys: true }))
  }
  return `dbtype ${JSON.stringify(dbtype ?? '')} is not a source this server reads (postgis, geopkg or a property-file directory)`
}
