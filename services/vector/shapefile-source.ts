// The Shapefile vector source: one .shp (its type is the file's base name) or a folder whose every
// .shp is a type. The schema comes from the headers, as GeoTools' ShapefileDataStore gives it: the
// geometry `the_geom` first (Point, MultiPoint, MultiLineString, MultiPolygon by the .shp shape
// type), then the .dbf fields with their bindings; the CRS from the .prj (prj.ts); the bounds from
// the .shp header (exact and estimated alike, as GeoTools). A read with a bounding box takes the
// records the spatial index names (shapefile-index.ts: built on upload or first use, rebuilt when the
// .shp changes) and reads each by its offset, its .dbf row by its number (shapefile-records.ts);
// without a box, or for a .shp the index cannot follow, features are read in order with the
// `shapefile` package (the .dbf decoded with the .cpg's charset, else the store's `charset`, else
// ISO-8859-1). Each record is then tested exactly against the box and the filter tree
// (services/filters/evaluate.ts); paging stops the read early, an order holds the matching records in
// memory. Counting without a box or filter takes the .shx's record count. The event loop is given
// back between batches.
import fs from 'node:fs'
import path from 'node:path'
import * as shapefile from 'shapefile'
import type { Envelope, Filter } from '../filters/tree.js'
import { matches } from '../filters/evaluate.js'
import { prefilterEnvelope } from '../filters/spatial.js'
import { envelopeOf } from '../wfs/geometry.js'
import { InvalidDataStore, InvalidFeatureQuery } from '../errors.js'
import { builtinProj4Def, transformBbox } from '../render/crs.js'
import { epsgEntry } from '../render/epsg.js'
import { shapefileParts } from '../datastores/files.js'
import { checkEnvelope, envelopesMeet, geojsonEnvelope, geojsonToWkb, geometryMeets } from './geometry.js'
import { geometryBinding } from './postgis-source.js'
import { toleranceOf } from './simplify.js'
import { sridOfPrj } from './prj.js'
import type { AttributeInfo, Feature, ReadQuery, TypeName, TypeSchema, VectorSource } from './source.js'
import { dropShapefileIndex, ensureShapefileIndex, readRuns, recordsMeeting, type IndexedRecord } from './shapefile-index.js'
import { dbfLayout, decodeRow, decodeShape, readDbfHeader, readHead } from './shapefile-records.js'

export interface ShapefileSourceOptions {
  /** A .shp file or a folder of them. */
  path: string
  /** The .dbf charset when no .cpg names one (GeoServer's default: ISO-8859-1). */
  charset: string
  fetchSize: number
  /** Where the spatial indexes live (shapefile-index.ts); none: every bbox read scans. */
  indexDir?: string
}

/** A record as read: its number (1-based, the feature id), its .dbf values, its GeoJSON geometry. */
interface Rec { n: number, props: Record<string, unknown>, g: any }

/** The number of records of a .shp, from its .shx when that agrees with the .shp's size; else undefined. */
async function recordCount (shp: string, shx: string | undefined): Promise<number | undefined> {
  if (!shx) return undefined
  const [s, x] = await Promise.all([fs.promises.stat(shp), fs.promises.stat(shx)])
  if (x.size < 100 || (x.size - 100) % 8 !== 0) return undefined
  const n = (x.size - 100) / 8
  if (n === 0) return s.size === 100 ? 0 : undefined
  const fh = await fs.promises.open(shx, 'r')
  try {
    const last = Buffer.alloc(8)
    await fh.read(last, 0, 8, x.size - 8)
    return last.readInt32BE(0) * 2 + 8 + last.readInt32BE(4) * 2 === s.size ? n : undefined
  } finally { await fh.close() }
}

export const GEOMETRY_COLUMN = 'the_geom'

const SHAPE_TYPES: Record<number, string> = {
  1: 'POINT', 3: 'MULTILINESTRING', 5: 'MULTIPOLYGON', 8: 'MULTIPOINT',
  11: 'POINT', 13: 'MULTILINESTRING', 15: 'MULTIPOLYGON', 18: 'MULTIPOINT',
  21: 'POINT', 23: 'MULTILINESTRING', 25: 'MULTIPOLYGON', 28: 'MULTIPOINT'
}

export interface DbfField { name: string, type: string, length: number, decimals: number }

/** GeoTools' binding of a .dbf field (DbaseFileHeader): N without decimals by its width. */
export function dbfBinding (f: DbfField): string {
  switch (f.type) {
    case 'C': return 'java.lang.String'
    case 'N': return f.decimals > 0 ? 'java.lang.Double' : f.length < 10 ? 'java.lang.Integer' : f.length < 19 ? 'java.lang.Long' : 'java.math.BigDecimal'
    case 'F': return 'java.lang.Double'
    case 'L': return 'java.lang.Boolean'
    case 'D': return 'java.util.Date'
    case '@': return 'java.sql.Timestamp'
  }
  return 'java.lang.String'
}

/** The fields of a .dbf header; names decoded with `charset`. */
export async function readDbfFields (dbf: string, charset: string): Promise<DbfField[]> {
  const header = await readDbfHeader(dbf, new TextDecoder(charset))
  if (!header) throw InvalidDataStore(`${path.basename(dbf)} is not a dBase file (too short)`)
  return header.fields.map(({ name, type, length, decimals }) => ({ name, type, length, decimals }))
}

interface ShpHeader { shapeType: number, bbox?: Envelope }

export async function readShpHeader (shp: string): Promise<ShpHeader> {
  const h = await readHead(shp, 100)
  if (h.length < 100 || h.readInt32BE(0) !== 9994) throw InvalidDataStore(`${path.basename(shp)} is not a shapefile (no 9994 file code in its header)`)
  const fileBytes = h.readInt32BE(24) * 2
  const bbox: Envelope = [h.readDoubleLE(36), h.readDoubleLE(44), h.readDoubleLE(52), h.readDoubleLE(60)]
  return { shapeType: h.readInt32LE(32), ...(fileBytes > 100 && checkEnvelope(bbox) ? { bbox } : {}) }
}

/** The property names a filter reads. */
function filterNames (f: Filter, out: Set<string>): Set<string> {
  const e = (x: { k: string, name?: string }) => { if (x.k === 'property' && x.name !== undefined) out.add(x.name) }
  switch (f.k) {
    case 'and': case 'or': filterNames(f.a, out); filterNames(f.b, out); break
    case 'not': filterNames(f.a, out); break
    case 'cmp': e(f.l); e(f.r); break
    case 'between': e(f.e); e(f.lo); e(f.hi); break
    case 'like': case 'null': e(f.e); break
    case 'in': e(f.e); f.list.forEach(e); break
  }
  return out
}

/** The envelope of a BBOX node that a filter requires (itself, or a conjunct of an AND). */
function requiredBox (f: Filter): Envelope | undefined {
  if (f.k === 'bbox') return checkEnvelope(f.env) ? f.env : undefined
  if (f.k === 'spatial') { const e = envelopeOf(f.geo); return e ? prefilterEnvelope(f, e) : undefined }
  if (f.k === 'and') return requiredBox(f.a) ?? requiredBox(f.b)
  return undefined
}

/** A geometry as its type declares it: a Polygon of a polygon shapefile as a MultiPolygon, and so on. */
function asDeclared (g: any, declared: string): any {
  if (declared === 'MULTIPOLYGON' && g.type === 'Polygon') return { type: 'MultiPolygon', coordinates: [g.coordinates] }
  if (declared === 'MULTILINESTRING' && g.type === 'LineString') return { type: 'MultiLineString', coordinates: [g.coordinates] }
  if (declared === 'MULTIPOINT' && g.type === 'Point') return { type: 'MultiPoint', coordinates: [g.coordinates] }
  return g
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Compares two property values for an order: nulls first, numbers before text (as SQLite). */
function orderOf (a: unknown, b: unknown): number {
  const n = (v: unknown) => v instanceof Date ? v.getTime() : typeof v === 'boolean' ? (v ? 1 : 0) : v
  const x = n(a); const y = n(b)
  if (x === null || x === undefined) return y === null || y === undefined ? 0 : -1
  if (y === null || y === undefined) return 1
  if (typeof x === 'number' && typeof y === 'number') return x - y
  if (typeof x === 'number') return -1
  if (typeof y === 'number') return 1
  const s = String(x); const t = String(y)
  return s < t ? -1 : s > t ? 1 : 0
}

export function createShapefileSource (o: ShapefileSourceOptions): VectorSource {
  const batch = Math.max(1, o.fetchSize)

  /** The .shp of a type: the file itself, or the folder's .shp of that base name (any letter case). */
  const shpOf = async (type: string): Promise<string | undefined> => {
    const st = await fs.promises.stat(o.path)
    if (!st.isDirectory()) return path.basename(o.path).replace(/\.shp$/i, '') === type ? o.path : undefined
    const hit = (await fs.promises.readdir(o.path)).find((n) => /\.shp$/i.test(n) && n.slice(0, -4) === type)
    return hit === undefined ? undefined : path.join(o.path, hit)
  }

  const charsetOf = async (parts: { cpg?: string }): Promise<string> => {
    if (parts.cpg) {
      const label = (await fs.promises.readFile(parts.cpg, 'latin1')).trim()
      try { new TextDecoder(label); return label } catch { /* a .cpg naming no known charset: the store's */ }
    }
    return o.charset
  }

  const describeFull = async (type: string) => {
    const shp = await shpOf(type)
    if (!shp) return undefined
    const parts = await shapefileParts(shp)
    if (!parts.dbf) throw InvalidDataStore(`shapefile ${JSON.stringify(path.basename(shp))} has no .dbf beside it (its attributes)`)
    const charset = await charsetOf(parts)
    const header = await readShpHeader(shp)
    const fields = await readDbfFields(parts.dbf, charset)
    const geomType = SHAPE_TYPES[header.shapeType] ?? 'GEOMETRY'
    const prj = parts.prj ? (await fs.promises.readFile(parts.prj, 'utf8')).replace(/^\uFEFF/, '').trim() : undefined
    const srid = prj !== undefined ? await sridOfPrj(prj, path.basename(parts.prj!)) : 0
    const attributes: AttributeInfo[] = [
      { name: GEOMETRY_COLUMN, binding: geometryBinding(geomType), nillable: true, minOccurs: 0, maxOccurs: 1 },
      ...fields.map((f) => ({ name: f.name, binding: dbfBinding(f), nillable: true, minOccurs: 0, maxOccurs: 1, ...(f.type === 'C' ? { length: f.length } : {}) }))
    ]
    const schema: TypeSchema = { name: type, attributes, geometry: { name: GEOMETRY_COLUMN, type: geomType, srid, ...(srid === 0 && prj ? { wkt: prj } : {}) } }
    return { schema, shp, dbf: parts.dbf, shx: parts.shx, charset, header }
  }

  type Described = NonNullable<Awaited<ReturnType<typeof describeFull>>>

  /** The type of a query, its checked names and the attributes it returns. */
  const prepared = async (q: ReadQuery): Promise<{ d: Described, wanted: string[] }> => {
    const d = await describeFull(q.type)
    if (!d) throw InvalidFeatureQuery(`no shapefile ${JSON.stringify(q.type)} in data store ${JSON.stringify(path.basename(o.path))}`)
    const known = new Set(d.schema.attributes.map((a) => a.name))
    const check = (name: string) => { if (!known.has(name)) throw InvalidFeatureQuery(`${q.type} has no attribute ${JSON.stringify(name)}`) }
    const wanted = (q.properties ?? d.schema.attributes.map((a) => a.name)).filter((n) => n !== GEOMETRY_COLUMN)
    wanted.forEach(check)
    if (q.filter) filterNames(q.filter, new Set()).forEach(check)
    for (const s of q.sortBy ?? []) check(s.name)
    if (q.bbox && !checkEnvelope(q.bbox)) throw InvalidFeatureQuery(`bounding box ${JSON.stringify(q.bbox)} is not minx, miny, maxx, maxy`)
    for (const [v, what] of [[q.limit, 'limit'], [q.offset, 'offset']] as const) {
      if (v !== undefined && (!Number.isSafeInteger(v) || v < 0)) throw InvalidFeatureQuery(`${what} must be a whole number of at least 0: ${v}`)
    }
    return { d, wanted }
  }

  /** Every record after record `after`, in order, read with the `shapefile` package. */
  async function * scan (d: Described, after = 0): AsyncGenerator<Rec> {
    const source = await shapefile.open(d.shp, d.dbf, { encoding: d.charset })
    let done = false
    let n = 0
    try {
      for (;;) {
        const r = await source.read()
        if (r.done) { done = true; return }
        if (++n <= after) continue
        yield { n, props: (r.value.properties ?? {}) as Record<string, unknown>, g: r.value.geometry }
      }
    } finally {
      if (!done) await source.cancel().catch(() => undefined)
    }
  }

  /** The records whose envelope meets `box`, in order, through the spatial index; a scan when there
   *  is none, and from the first record not read yet when a record shows the index stale. */
  async function * indexed (d: Described, box: Envelope, dir: string): AsyncGenerator<Rec> {
    const db = await ensureShapefileIndex(d.shp, dir)
    if (!db) { yield * scan(d); return }
    let last = 0
    let stale = false
    const it = recordsMeeting(db, box)
    const shp = await fs.promises.open(d.shp, 'r')
    const dbf = await fs.promises.open(d.dbf, 'r')
    try {
      const decoder = new TextDecoder(d.charset)
      const layout = dbfLayout(await readHead(d.dbf, (await readHead(d.dbf, 32)).readUInt16LE(8)), decoder)
      for (;;) {
        const some: IndexedRecord[] = []
        for (let r = it.next(); !r.done; r = it.next()) { some.push(r.value); if (some.length >= batch) break }
        if (some.length === 0) break
        const shapes = await readRuns(shp, some, (r) => [r.off, r.off + 8 + r.len])
        const rows = await readRuns(dbf, some, (r) => [layout.headerLength + (r.id - 1) * layout.recordLength, layout.headerLength + r.id * layout.recordLength])
        for (let k = 0; k < some.length; k++) {
          const r = some[k]
          const b = shapes[k]
          let g: any
          try {
            if (!b || b.readInt32BE(0) !== r.id || b.readInt32BE(4) * 2 !== r.len) throw new Error('stale')
            g = decodeShape(b.subarray(8))
          } catch { stale = true; break }
          yield { n: r.id, props: decodeRow(rows[k], layout, decoder), g }
          last = r.id
        }
        if (stale) break
        await turn()
      }
    } finally {
      it.return(undefined)
      db.close()
      await shp.close()
      await dbf.close()
    }
    if (!stale) return
    await dropShapefileIndex(d.shp, dir)
    yield * scan(d, last)
  }

  /** The records meeting the query's bbox (envelope, then exactly) and filter, in record order. */
  async function * matching (d: Described, q: ReadQuery): AsyncGenerator<Rec> {
    // A box every match's envelope meets: the query's, else a BBOX the filter requires (alone or under AND).
    const box = q.bbox ?? (q.filter ? requiredBox(q.filter) : undefined)
    // Nothing can meet a bounding box away from the file's extent.
    if (box && (!d.header.bbox || !envelopesMeet(d.header.bbox, box))) return
    const records = box && o.indexDir ? indexed(d, box, o.indexDir) : scan(d)
    let i = 0
    for await (const r of records) {
      if (++i % batch === 0) await turn()
      const { props, g } = r
      let env: Envelope | undefined | null = null
      const footprint = () => { if (env === null) env = g ? geojsonEnvelope(g) : undefined; return env }
      if (q.bbox) {
        const e = footprint()
        if (!e || !envelopesMeet(e, q.bbox) || !geometryMeets(g, q.bbox)) continue
      }
      if (q.filter && !matches(q.filter, { property: (name) => props[name], footprint, id: () => String(r.n), geometry: () => g ?? undefined })) continue
      yield r
    }
  }

  return {
    async listTypes (): Promise<TypeName[]> {
      const st = await fs.promises.stat(o.path)
      const names = st.isDirectory()
        ? (await fs.promises.readdir(o.path)).filter((n) => /\.shp$/i.test(n)).map((n) => n.slice(0, -4))
        : [path.basename(o.path).replace(/\.shp$/i, '')]
      return names.sort().map((name) => ({ name, hasGeometry: true }))
    },

    async describe (type) { return (await describeFull(type))?.schema },

    async bounds (type) { return (await describeFull(type))?.header.bbox },

    async hasCrs (srid) { return srid === 4326 || epsgEntry(srid) !== undefined },

    async toLatLon (env, srid) {
      if (srid === 4326 || srid === 0) return env
      const code = `EPSG:${srid}`
      if (builtinProj4Def(code) === undefined) throw InvalidFeatureQuery(`the bounds in ${code} cannot be transformed to EPSG:4326: the CRS is unknown`)
      const out = transformBbox(env, code, 'EPSG:4326')
      if (!out.every(Number.isFinite)) throw InvalidFeatureQuery(`the bounds in ${code} cannot be transformed to EPSG:4326`)
      return out
    },

    async * readFeatures (q) {
      const { d, wanted } = await prepared(q)
      const declared = d.schema.geometry!.type
      toleranceOf(q) // checked as every source checks it; the render thread simplifies (simplify.ts)
      const toFeature = (r: Rec): Feature => {
        const properties: Record<string, unknown> = {}
        for (const k of wanted) properties[k] = r.props[k] ?? null
        const geom = r.g ? asDeclared(r.g, declared) : null
        return { id: String(r.n), properties, geometry: geom === null ? null : q.geometryFormat === 'geojson' ? JSON.stringify(geom) : geojsonToWkb(geom) }
      }
      const sorted = (q.sortBy ?? []).length > 0
      const held: Rec[] = []
      let skip = sorted ? 0 : q.offset ?? 0
      let left = sorted ? Infinity : q.limit ?? Infinity
      if (left <= 0) return
      for await (const r of matching(d, q)) {
        if (sorted) held.push(r)
        else if (skip > 0) skip--
        else { yield toFeature(r); if (--left <= 0) break }
      }
      if (!sorted) return
      const order = q.sortBy!
      held.sort((a, b) => {
        for (const s of order) {
          const c = orderOf(a.props[s.name], b.props[s.name])
          if (c !== 0) return s.descending ? -c : c
        }
        return a.n - b.n
      })
      const from = q.offset ?? 0
      const to = q.limit === undefined ? held.length : from + q.limit
      let i = 0
      for (const h of held.slice(from, to)) {
        yield toFeature(h)
        if (++i % batch === 0) await turn()
      }
    },

    async count (q) {
      const { d } = await prepared(q)
      if (!q.bbox && !q.filter) {
        const n = await recordCount(d.shp, d.shx)
        if (n !== undefined) return n
      }
      let n = 0
      for await (const _ of matching(d, q)) n++
      return n
    },

    async close () { /* nothing held open between reads */ }
  }
}
