// GetFeature, GetPropertyValue and the GetFeatureById stored query. Each query of a request is
// planned first (its type read under the layer rules, its filters parsed and typed against the
// type's attributes, its BBOX taken to the data's CRS, the features matched counted by the source),
// so every refusal is an exception report before a byte of features is written; then the features
// are read through the source in its batches and written as they come (GML 3.2, GML 3.1.1, GML 2,
// GeoJSON, CSV): the answer is a stream whose memory does not grow with the result.
import type { Principal } from '../auth/authenticator.js'
import { ANONYMOUS } from '../auth/authenticator.js'
import { isNorthingFirst, normalizeCrs, transformBbox } from '../render/crs.js'
import { crsName, parseOgcFilter } from '../filters/ogc-xml.js'
import { parseEcql, type FilterSchema } from '../filters/ecql.js'
import { allOf, type Envelope, type Filter } from '../filters/tree.js'
import { featureBatches, type Feature, type ReadQuery, type VectorSource } from '../vector/source.js'
import { isMapwardenError, WfsFeatureNotFound, WfsInvalidParameter, WfsMissingParameter } from '../errors.js'
import { decodeGeometry, defaultSrsName, geojsonOfWkb, gml2, gml3, reprojector, swapAxes, wkt, type Geo } from './geometry.js'
import { GML_NS, isGeometryBinding } from './describe.js'
import { filterType } from '../filters/bindings.js'
import type { FeatureRequest, OutputFormat, WfsQuery, WfsVersion } from './request.js'
import { maxFeaturesOf, type ServedType, type WfsContext, type Where } from './wfs-context.js'
import { escapeXml } from '../xml-escape.js'
import { sqlViewOf } from '../vector/virtual-table.js'

export interface FeatureAnswer {
  contentType: string
  /** Content-Disposition, for CSV. */
  disposition?: string
  /** The body, written as it is read (text, or UTF-8 bytes). */
  body: AsyncIterable<string | Buffer>
}

export interface FeatureLinks {
  /** The URL of the same request from another startIndex (KVP requests); undefined: no links. */
  page?: (startIndex: number) => string
  /** The DescribeFeatureType URL of type names (schemaLocation). */
  describe: (typeNames: string[]) => string
}

interface Planned {
  t: ServedType
  source: VectorSource
  read: ReadQuery
  matched: number
  offset: number
  limit: number
  /** Attributes written, in the type's order (the geometry included when asked for). */
  attributes: ServedType['attributes']
  withGeometry: boolean
  /** Geometries from the data's CRS to the answer's, in the answer's axis order. */
  project: (g: Geo) => Geo
  projectXY: (g: Geo) => Geo
  /** Whether projectXY changes coordinates (else GeoJSON can be written from the WKB as it is). */
  reprojects: boolean
  srsName?: string
  /** The EPSG code of the answer's CRS. */
  epsg?: string
}

const CONTENT_TYPES: Record<OutputFormat, string> = {
  gml32: 'application/gml+xml; version=3.2',
  gml31: 'text/xml; subtype=gml/3.1.1',
  gml2: 'text/xml; subtype=gml/2.1.2',
  json: 'application/json;charset=UTF-8',
  csv: 'text/csv;charset=UTF-8'
}

const x = (s: string) => escapeXml(s)
// eslint-disable-next-line no-control-regex
const xmlText = (s: string) => x(s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '?'))
const pad = (n: number, w = 2) => String(n).padStart(w, '0')

/** A value as XML/CSV text: dates as xsd:date (local calendar day, as the driver read it), instants in UTC. */
function textValue (v: unknown, binding: string): string | undefined {
  if (v === null || v === undefined) return undefined
  if (v instanceof Date) {
    if (binding === 'java.sql.Date') return `${pad(v.getFullYear(), 4)}-${pad(v.getMonth() + 1)}-${pad(v.getDate())}`
    return v.toISOString()
  }
  if (Buffer.isBuffer(v)) return v.toString('base64')
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v)
}

/** A value in GeoJSON: numbers as numbers (64-bit and decimal columns arrive as text), dates as GeoServer writes them. */
function jsonValue (v: unknown, binding: string): unknown {
  if (v === null || v === undefined) return null
  if (v instanceof Date) return binding === 'java.sql.Date' ? `${textValue(v, binding)}Z` : v.toISOString()
  if (typeof v === 'string' && /Long|BigDecimal|BigInteger|Double|Float|Integer|Short/.test(binding)) {
    const n = Number(v)
    return Number.isFinite(n) && (binding !== 'java.lang.Long' || Number.isSafeInteger(n)) ? n : v
  }
  if (Buffer.isBuffer(v)) return v.toString('base64')
  return v
}

/** A number as JSON writes it (NaN and the infinities as null). */
const jsonNumber = (n: number): string => Number.isFinite(n) ? String(n) : 'null'

const CHUNK = 65536

/** Strings joined into chunks of about 64 KiB: fewer, larger writes to the socket (bytes pass as they are). */
async function * batched (parts: AsyncIterable<string | Buffer>): AsyncGenerator<string | Buffer> {
  let buf = ''
  for await (const p of parts) {
    if (typeof p !== 'string') {
      if (buf !== '') { yield buf; buf = '' }
      yield p
      continue
    }
    buf += p
    if (buf.length >= CHUNK) { yield buf; buf = '' }
  }
  if (buf !== '') yield buf
}

/**
 * Text written as UTF-8 into buffers of 64 KiB as it comes: each feature's string is flattened and
 * dropped at once instead of joining a rope of a whole batch that lives through collections.
 */
class Chunks {
  private buf = Buffer.allocUnsafe(CHUNK)
  private at = 0
  private full: Buffer[] = []
  add (s: string): void {
    // At most 3 bytes per UTF-16 unit: a piece that may not fit starts a new buffer.
    if (this.at + s.length * 3 > CHUNK) {
      this.flush()
      if (s.length * 3 > CHUNK) { this.full.push(Buffer.from(s)); return }
    }
    this.at += this.buf.write(s, this.at)
  }
  flush (): void {
    if (this.at === 0) return
    this.full.push(this.buf.subarray(0, this.at))
    this.buf = Buffer.allocUnsafe(CHUNK)
    this.at = 0
  }
  /** The buffers filled so far. */
  take (): Buffer[] { const out = this.full; this.full = []; return out }
}

const localName = (n: string) => n.trim().slice(n.trim().indexOf(':') + 1)

/**
 * The BBOX parameter as an envelope in `storage` (the CRS of the data), easting first: four numbers
 * in the CRS the parameter names (else the type's declared `crs`), in that CRS's axis order.
 */
function bboxIn (version: WfsVersion, b: NonNullable<WfsQuery['bbox']>, crs: string | undefined, storage: string | undefined): Envelope {
  const v = b.values
  const named = b.crs ? crsName(b.crs)! : { code: crs ?? storage ?? 'EPSG:4326', latFirst: version !== '1.0.0' && isNorthingFirst(crs ?? storage ?? 'EPSG:4326') }
  let env: Envelope = named.latFirst ? [v[1], v[0], v[3], v[2]] : [v[0], v[1], v[2], v[3]]
  if (env[0] > env[2] || env[1] > env[3]) throw WfsInvalidParameter('bbox', JSON.stringify(v.join(',')), 'the minimum must not be above the maximum on either axis')
  if (storage && normalizeCrs(named.code) !== normalizeCrs(storage)) env = transformBbox(env, named.code, storage)
  if (!env.every(Number.isFinite)) throw WfsInvalidParameter('bbox', JSON.stringify(v.join(',')), `cannot be taken to ${storage}`)
  return env
}

export function featureOperations (ctx: WfsContext) {
  /** The features a read matches: its bbox and filter, counted by the source. */
  async function countOf (source: VectorSource, read: ReadQuery): Promise<number> {
    return await source.count({ type: read.type, ...(read.bbox ? { bbox: read.bbox } : {}), ...(read.filter ? { filter: read.filter } : {}), ...(read.view ? { view: read.view } : {}), properties: [] })
  }

  /** A database's refusal of a value (a filter's literal that is no valid date for the column...) is the client's. */
  async function guarded<T> (fn: () => Promise<T>): Promise<T> {
    try { return await fn() } catch (err) {
      const code = (err as { code?: unknown }).code
      if (!isMapwardenError(err) && typeof code === 'string' && /^(22|42804|42883)/.test(code)) throw WfsInvalidParameter('filter', '', (err as Error).message)
      throw err
    }
  }

  async function plan (req: FeatureRequest, q: WfsQuery, principal: Principal | undefined, where: Where): Promise<Omit<Planned, 'offset' | 'limit'>> {
    const t = await ctx.readable(q.typeNames[0], principal, where)
    const source = ctx.sourceOf(t)
    const names = new Map(t.attributes.map((a) => [a.name.toLowerCase(), a.name]))
    const attr = (raw: string, locator: string) => {
      const n = names.get(localName(raw).toLowerCase())
      if (!n) throw WfsInvalidParameter(locator, JSON.stringify(raw.slice(0, 80)), `${t.qualified} has ${t.attributes.map((a) => a.name).join(', ')}`)
      return n
    }
    const geomName = t.geometry?.name
    const storage = t.geometry && t.geometry.srid > 0 ? `EPSG:${t.geometry.srid}` : t.crs
    const dataCrs = t.ft.config.projectionPolicy === 'FORCE_DECLARED' ? t.crs ?? storage : storage
    const filterSchema: FilterSchema = { attributes: t.attributes.map((a) => ({ name: a.name, type: filterType(a.binding) })), crs: storage ?? 'EPSG:4326' }
    const filters: Filter[] = []
    for (const f of q.filters) {
      if (f.kind === 'cql') filters.push(parseEcql(f.text, filterSchema))
      else filters.push(parseOgcFilter(f.el, { ...filterSchema, localId: (id) => localId(t, id) }))
    }
    if (q.ids) filters.push({ k: 'fid', ids: q.ids.map((id) => localId(t, id)).filter((id): id is string => id !== undefined) })
    if (q.bbox && !geomName) throw WfsInvalidParameter('bbox', '', `${t.qualified} has no geometry`)
    const bbox = q.bbox ? bboxIn(req.version, q.bbox, t.crs, storage) : undefined
    // `*` (OWSLib sends it) asks for every property, as GeoServer reads it.
    const asked = q.properties && !q.properties.some((p) => p.trim() === '*') ? q.properties.map((p) => attr(p, 'propertyName')) : undefined
    const attributes = asked ? t.attributes.filter((a) => asked.includes(a.name)) : t.attributes
    const sortBy = q.sortBy?.map((s) => {
      const name = attr(s.name, 'sortBy')
      if (name === geomName) throw WfsInvalidParameter('sortBy', JSON.stringify(s.name), 'features cannot be sorted by their geometry')
      return { name, descending: s.descending }
    })
    const filter = allOf(filters)
    const read: ReadQuery = {
      type: t.ft.nativeName,
      ...(bbox ? { bbox } : {}),
      ...(filter ? { filter } : {}),
      properties: t.attributes.filter((a) => !isGeometryBinding(a.binding)).map((a) => a.name),
      ...(sortBy && sortBy.length > 0 ? { sortBy } : {})
    }
    // An SQL view: its SELECT with the query's viewparams (else the defaults) checked and bound.
    const vt = t.ft.config.virtualTable
    if (vt) read.view = sqlViewOf(vt, { attributes: t.ft.config.attributes, ...(t.ft.config.geometry ? { geometry: t.ft.config.geometry } : {}) }, q.viewParams)
    const outCrs = q.srsName ? crsName(q.srsName)!.code : dataCrs
    // The CRS name a GML writes by default is its version's (GML 2: epsg.xml#, easting first; GML
    // 3.1.1: urn:x-ogc; GML 3.2: urn:ogc), whatever the request's version; GML 2 is always easting first.
    const gmlVersion: WfsVersion = req.outputFormat === 'gml2' ? '1.0.0' : req.outputFormat === 'gml31' ? '1.1.0' : req.outputFormat === 'gml32' ? '2.0.0' : req.version
    const out = q.srsName
      ? { name: q.srsName, latFirst: req.outputFormat !== 'gml2' && crsName(q.srsName)!.latFirst }
      : outCrs ? defaultSrsName(gmlVersion, outCrs) : undefined
    const toOut = reprojector(dataCrs, outCrs)
    const matched = await guarded(() => countOf(source, read))
    return {
      t,
      source,
      read,
      matched,
      attributes,
      withGeometry: geomName !== undefined && attributes.some((a) => a.name === geomName),
      projectXY: toOut,
      reprojects: dataCrs !== undefined && outCrs !== undefined && normalizeCrs(dataCrs) !== normalizeCrs(outCrs),
      project: out?.latFirst ? (g) => swapAxes(toOut(g)) : toOut,
      ...(out ? { srsName: out.name } : {}),
      ...(outCrs ? { epsg: /^EPSG:(\d+)$/.exec(normalizeCrs(outCrs))?.[1] } : {})
    }
  }

  /** The local id of `type.fid` for a type (its name with or without the prefix); undefined: another type's. */
  function localId (t: ServedType, id: string): string | undefined {
    for (const p of [`${t.ft.name}.`, `${t.qualified}.`]) if (id.startsWith(p)) return id.slice(p.length)
    return undefined
  }

  async function planAll (req: FeatureRequest, principal: Principal | undefined, where: Where, maxFeatures: number): Promise<Planned[]> {
    const planned: Planned[] = []
    let skip = req.startIndex
    let left = Math.min(req.count ?? Infinity, maxFeatures)
    for (const q of req.queries) {
      const p = await plan(req, q, principal, where)
      const offset = Math.min(skip, p.matched)
      skip -= offset
      const limit = Math.min(left, p.matched - offset)
      left -= limit
      planned.push({ ...p, offset, limit })
    }
    return planned
  }

  async function * featuresOf (p: Planned): AsyncGenerator<Feature> {
    if (p.limit <= 0) return
    let n = 0
    for await (const f of p.source.readFeatures({ ...p.read, offset: p.offset, limit: p.limit })) {
      yield f
      // The count and the read are two statements: never more than the page, whatever changed between.
      if (++n >= p.limit) return
    }
  }

  /** featuresOf a batch at a time (the source's batches), for the writers of many features. */
  async function * batchesOf (p: Planned): AsyncGenerator<Feature[]> {
    if (p.limit <= 0) return
    let left = p.limit
    for await (const batch of featureBatches(p.source, { ...p.read, offset: p.offset, limit: p.limit })) {
      // The count and the read are two statements: never more than the page, whatever changed between.
      yield batch.length > left ? batch.slice(0, left) : batch
      left -= batch.length
      if (left <= 0) return
    }
  }

  const fid = (p: Planned, f: Feature, n: number) => `${p.t.ft.name}.${f.id ?? `fid-${p.offset + n}`}`
  const timeStamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')

  function namespacesOf (planned: Planned[]): string {
    const seen = new Map(planned.map((p) => [p.t.prefix, p.t.uri]))
    return [...seen].map(([pfx, uri]) => ` xmlns:${pfx}="${x(uri)}"`).join('')
  }

  /** One feature as a GML element (GML 2 with fid, GML 3 with gml:id). */
  function gmlFeature (p: Planned, f: Feature, n: number, format: OutputFormat): string {
    const id = fid(p, f, n)
    const el = `${p.t.prefix}:${p.t.ft.name}`
    const parts = [format === 'gml2' ? `<${el} fid="${x(id)}">` : `<${el} gml:id="${x(id)}">`]
    for (const a of p.attributes) {
      const tag = `${p.t.prefix}:${a.name}`
      if (a.name === p.t.geometry?.name) {
        const g = decodeGeometry(f.geometry)
        if (!g) continue
        const geo = p.project(g)
        const gml = format === 'gml2' ? gml2(geo, p.srsName) : gml3(geo, p.srsName, format === 'gml32', `${id}.geom`)
        parts.push(`<${tag}>${gml}</${tag}>`)
        continue
      }
      if (isGeometryBinding(a.binding)) continue // a second geometry column is not read
      const v = textValue(f.properties[a.name], a.binding)
      if (v !== undefined) parts.push(`<${tag}>${xmlText(v)}</${tag}>`)
    }
    parts.push(`</${el}>`)
    return parts.join('')
  }

  async function * gml (req: FeatureRequest, planned: Planned[], links: FeatureLinks, matched: number, returned: number, lockId?: string): AsyncGenerator<string> {
    const f = req.outputFormat
    // GetFeatureWithLock: the lock's id on the collection, as GeoServer writes it.
    const lock = lockId !== undefined ? ` lockId="${x(lockId)}"` : ''
    // schemaLocation: each namespace with the DescribeFeatureType of its types.
    const byNs = new Map<string, Set<string>>()
    for (const p of planned) byNs.set(p.t.uri, (byNs.get(p.t.uri) ?? new Set()).add(p.t.qualified))
    const describe = [...byNs].map(([uri, names]) => `${x(uri)} ${x(links.describe([...names]))}`).join(' ')
    const ns = namespacesOf(planned)
    const hits = req.resultType === 'hits'
    if (f === 'gml32') {
      const next = !hits && links.page && req.count !== undefined && req.startIndex + returned < matched ? ` next="${x(links.page(req.startIndex + returned))}"` : ''
      const prev = !hits && links.page && req.count !== undefined && req.startIndex > 0 ? ` previous="${x(links.page(Math.max(0, req.startIndex - req.count)))}"` : ''
      yield '<?xml version="1.0" encoding="UTF-8"?>\n<wfs:FeatureCollection xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:wfs="http://www.opengis.net/wfs/2.0" ' +
        `xmlns:gml="${GML_NS['2.0.0']}"${ns}${lock} numberMatched="${matched}" numberReturned="${hits ? 0 : returned}" timeStamp="${timeStamp()}"${next}${prev} ` +
        `xsi:schemaLocation="http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd http://www.opengis.net/gml/3.2 http://schemas.opengis.net/gml/3.2.1/gml.xsd ${describe}">\n`
      if (!hits) for (const p of planned) {
        let n = 0
        for await (const feat of featuresOf(p)) yield `<wfs:member>${gmlFeature(p, feat, n++, f)}</wfs:member>\n`
      }
      yield '</wfs:FeatureCollection>\n'
      return
    }
    if (f === 'gml31') {
      yield '<?xml version="1.0" encoding="UTF-8"?>\n<wfs:FeatureCollection xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:wfs="http://www.opengis.net/wfs" ' +
        `xmlns:gml="http://www.opengis.net/gml"${ns}${lock} numberOfFeatures="${hits ? matched : returned}" timeStamp="${timeStamp()}" ` +
        `xsi:schemaLocation="http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.1.0/wfs.xsd ${describe}"`
      if (hits) { yield '/>\n'; return }
      yield '>\n<gml:featureMembers>\n'
      for (const p of planned) {
        let n = 0
        for await (const feat of featuresOf(p)) yield `${gmlFeature(p, feat, n++, f)}\n`
      }
      yield '</gml:featureMembers>\n</wfs:FeatureCollection>\n'
      return
    }
    yield '<?xml version="1.0" encoding="UTF-8"?>\n<wfs:FeatureCollection xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:wfs="http://www.opengis.net/wfs" ' +
      `xmlns:gml="http://www.opengis.net/gml"${ns}${lock} xsi:schemaLocation="http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.0.0/WFS-basic.xsd ${describe}">\n` +
      '<gml:boundedBy><gml:null>unknown</gml:null></gml:boundedBy>\n'
    for (const p of planned) {
      let n = 0
      for await (const feat of featuresOf(p)) yield `<gml:featureMember>${gmlFeature(p, feat, n++, f)}</gml:featureMember>\n`
    }
    yield '</wfs:FeatureCollection>\n'
  }

  /**
   * A function writing one feature of a query as GeoJSON text (the caller puts the commas between),
   * the same text as JSON.stringify of the feature object: each feature's
   * string built from the attribute names' JSON written once, and a 2D WKB geometry that needs no
   * reprojection written from its bytes (geojsonOfWkb). Attribute names JSON objects would order
   * otherwise (array indexes first) or treat as special (__proto__) take the objects' way.
   */
  function geojsonWriter (p: Planned): (f: Feature, n: number) => string {
    const attrs = p.attributes.filter((a) => !isGeometryBinding(a.binding))
    const geometryName = p.withGeometry ? `,"geometry_name":${JSON.stringify(p.t.geometry!.name)}` : ''
    const geometry = (f: Feature): string => {
      if (!p.withGeometry) return 'null'
      const fast = p.reprojects ? undefined : geojsonOfWkb(f.geometry)
      if (fast !== undefined) return fast
      const g = decodeGeometry(f.geometry)
      return g ? JSON.stringify(p.projectXY(g)) : 'null'
    }
    if (attrs.some((a) => /^(0|[1-9][0-9]*)$/.test(a.name) || a.name === '__proto__')) {
      return (f, n) => {
        const properties: Record<string, unknown> = {}
        for (const a of attrs) properties[a.name] = jsonValue(f.properties[a.name], a.binding)
        return `{"type":"Feature","id":${JSON.stringify(fid(p, f, n))},"geometry":${geometry(f)}${geometryName},"properties":${JSON.stringify(properties)}}`
      }
    }
    const keys = attrs.map((a, i) => `${i === 0 ? '' : ','}${JSON.stringify(a.name)}:`)
    const plain = attrs.map((a) => /String/.test(a.binding))
    return (f, n) => {
      let props = ''
      for (let i = 0; i < attrs.length; i++) {
        const v = f.properties[attrs[i].name]
        props += keys[i] + (plain[i] && typeof v === 'string' ? JSON.stringify(v) : typeof v === 'number' ? jsonNumber(v) : JSON.stringify(jsonValue(v, attrs[i].binding)))
      }
      return `{"type":"Feature","id":${JSON.stringify(fid(p, f, n))},"geometry":${geometry(f)}${geometryName},"properties":{${props}}}`
    }
  }

  async function * geojson (planned: Planned[], matched: number, returned: number): AsyncGenerator<string | Buffer> {
    const out = new Chunks()
    out.add('{"type":"FeatureCollection","features":[')
    let first = true
    for (const p of planned) {
      const write = geojsonWriter(p)
      let n = 0
      // A source's batch at a time, written into the 64 KiB buffers it fills.
      for await (const batch of batchesOf(p)) {
        for (const f of batch) {
          out.add(first ? write(f, n++) : ',' + write(f, n++))
          first = false
        }
        yield * out.take()
      }
    }
    out.flush()
    yield * out.take()
    const epsg = planned.find((p) => p.epsg)?.epsg
    yield `],"totalFeatures":${matched},"numberMatched":${matched},"numberReturned":${returned},"timeStamp":"${timeStamp()}"` +
      (epsg ? `,"crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::${epsg}"}}` : '') + '}'
  }

  async function * csv (planned: Planned[]): AsyncGenerator<string> {
    const cell = (s: string) => /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
    for (const p of planned) {
      yield ['FID', ...p.attributes.map((a) => a.name)].map(cell).join(',') + '\r\n'
      let n = 0
      for await (const f of featuresOf(p)) {
        const row = [fid(p, f, n++)]
        for (const a of p.attributes) {
          if (a.name === p.t.geometry?.name) {
            const g = decodeGeometry(f.geometry)
            row.push(g ? wkt(p.projectXY(g)) : '')
          } else row.push(textValue(f.properties[a.name], a.binding) ?? '')
        }
        yield row.map(cell).join(',') + '\r\n'
      }
    }
  }

  /**
   * GetFeature, GetFeatureById and GetPropertyValue of app-schema types: their mapped features, GML
   * of the target schema (services/appschema). The BBOX parameter is taken to the type's CRS here,
   * as for simple types; propertyName, sortBy, srsName and valueReference are read on the mapped XPaths.
   */
  async function complexFeatures (req: FeatureRequest, types: ServedType[], where: Where, links: FeatureLinks): Promise<FeatureAnswer> {
    if (types.some((t) => !t.complex)) throw WfsInvalidParameter('typeNames', JSON.stringify(types.map((t) => t.qualified).join(',')), 'app-schema (complex) and simple feature types cannot be read in one request')
    if (req.valueReference === undefined && req.outputFormat !== 'gml31' && req.outputFormat !== 'gml32') throw WfsInvalidParameter('outputFormat', req.outputFormat, 'app-schema types are written as GML of their target schema (text/xml; subtype=gml/3.1.1 or application/gml+xml; version=3.2)')
    const settings = ctx.deps.serviceSettings.get('wfs', where.workspace)
    const a = await ctx.deps.complex!.getFeature(types.map((t, i) => {
      const q = req.queries[i]
      return {
        store: { workspace: t.store.workspace, name: t.store.name, config: t.store.config as never },
        nativeName: t.ft.nativeName,
        ...(t.crs ? { srs: t.crs } : {}),
        filters: q.filters,
        ...(q.ids ? { ids: q.ids } : {}),
        // `*` (OWSLib sends it) asks for every property, as GeoServer reads it.
        ...(q.properties && !q.properties.some((p) => p.trim() === '*') ? { properties: q.properties } : {}),
        ...(q.sortBy && q.sortBy.length > 0 ? { sortBy: q.sortBy } : {}),
        ...(q.srsName ? { srsName: q.srsName } : {}),
        ...(q.bbox ? { bbox: bboxIn(req.version, q.bbox, t.crs, t.crs) } : {})
      }
    }), {
      version: req.version,
      startIndex: req.startIndex,
      ...(req.count !== undefined ? { count: req.count } : {}),
      resultType: req.resultType,
      maxFeatures: maxFeaturesOf(ctx.deps, where),
      hitsIgnoreMaxFeatures: settings.hitsIgnoreMaxFeatures === true,
      describe: links.describe,
      qualified: types.map((t) => t.qualified),
      ...(req.byId ? { byId: true } : {}),
      ...(req.valueReference !== undefined ? { valueReference: req.valueReference } : {})
    })
    return { contentType: a.contentType, body: batched(a.body) }
  }

  return {
    /**
     * The features a lock request names, by type: each query's matches (GetFeatureWithLock: its page
     * alone, `paged`), of types the caller may write (the layer rules' `w`: locking is writing).
     */
    async lockTargets (req: FeatureRequest, principal: Principal | undefined, where: Where, paged: boolean): Promise<Array<{ t: ServedType, fids: string[] }>> {
      const planned = await planAll(req, principal, where, paged ? maxFeaturesOf(ctx.deps, where) : Infinity)
      const out: Array<{ t: ServedType, fids: string[] }> = []
      for (const p of planned) {
        ctx.deps.access.check(principal ?? ANONYMOUS, p.t.ft.workspace, p.t.ft.name, 'w')
        const fids: string[] = []
        const read = { ...p.read, properties: [], ...(paged ? { offset: p.offset, limit: p.limit } : {}) }
        if (!paged || p.limit > 0) {
          for await (const f of p.source.readFeatures(read)) if (f.id !== undefined) fids.push(`${p.t.ft.name}.${f.id}`)
        }
        out.push({ t: p.t, fids })
      }
      return out
    },

    async getFeature (req: FeatureRequest, principal: Principal | undefined, where: Where, links: FeatureLinks, lockId?: string): Promise<FeatureAnswer> {
      const types = await Promise.all(req.queries.map((q) => ctx.readable(q.typeNames[0], principal, where)))
      if (types.some((t) => t.complex)) return await complexFeatures(req, types, where, links)
      const max = maxFeaturesOf(ctx.deps, where)
      const planned = await planAll(req, principal, where, max)
      let matched = planned.reduce((s, p) => s + p.matched, 0)
      // As GeoServer: hits count at most maxFeatures, unless the settings say hitsIgnoreMaxFeatures.
      if (req.resultType === 'hits' && ctx.deps.serviceSettings.get('wfs', where.workspace).hitsIgnoreMaxFeatures !== true) matched = Math.min(matched, max)
      const returned = planned.reduce((s, p) => s + Math.max(0, p.limit), 0)
      if (req.byId) {
        // GetFeatureById: the feature itself (GML), 404 NotFound when there is none.
        const p = planned[0]
        if (p.matched === 0) throw WfsFeatureNotFound(req.queries[0].ids?.[0] ?? '')
        if (req.outputFormat === 'gml32' || req.outputFormat === 'gml31') {
          let feature: string | undefined
          for await (const f of featuresOf(p)) { feature = gmlFeature(p, f, 0, req.outputFormat); break }
          if (!feature) throw WfsFeatureNotFound(req.queries[0].ids?.[0] ?? '')
          const root = feature.replace(/^<([^ >]+)/, `$& xmlns:gml="${GML_NS[req.version]}" xmlns:${p.t.prefix}="${x(p.t.uri)}"`)
          return { contentType: CONTENT_TYPES[req.outputFormat], body: batched((async function * () { yield '<?xml version="1.0" encoding="UTF-8"?>\n' + root + '\n' })()) }
        }
      }
      const f = req.outputFormat
      if (req.resultType === 'hits' || f === 'gml32' || f === 'gml31' || f === 'gml2') {
        const hitsFormat = req.resultType === 'hits' && (f === 'json' || f === 'csv') ? (req.version === '2.0.0' ? 'gml32' : 'gml31') : f
        return { contentType: CONTENT_TYPES[hitsFormat], body: batched(gml({ ...req, outputFormat: hitsFormat }, planned, links, matched, returned, lockId)) }
      }
      if (f === 'json') return { contentType: CONTENT_TYPES.json, body: batched(geojson(planned, matched, returned)) }
      const name = planned.length === 1 ? planned[0].t.ft.name : 'features'
      return { contentType: CONTENT_TYPES.csv, disposition: `attachment; filename=${name}.csv`, body: batched(csv(planned)) }
    },

    /** GetPropertyValue (2.0.0): the values of one property of the features matched. */
    async getPropertyValue (req: FeatureRequest, principal: Principal | undefined, where: Where): Promise<FeatureAnswer> {
      const ref = req.valueReference
      if (ref === undefined || ref === '') throw WfsMissingParameter('valueReference')
      const types = await Promise.all(req.queries.map((q) => ctx.readable(q.typeNames[0], principal, where)))
      if (types.some((t) => t.complex)) return await complexFeatures(req, types, where, { describe: () => '' })
      const planned = await planAll(req, principal, where, maxFeaturesOf(ctx.deps, where))
      const p = planned[0]
      const a = p.t.attributes.find((x) => x.name.toLowerCase() === localName(ref.replace(/^.*\//, '')).toLowerCase())
      if (!a) throw WfsInvalidParameter('valueReference', JSON.stringify(ref.slice(0, 80)), `${p.t.qualified} has ${p.t.attributes.map((x) => x.name).join(', ')}`)
      const matched = p.matched
      const returned = Math.max(0, p.limit)
      async function * body (): AsyncGenerator<string> {
        yield '<?xml version="1.0" encoding="UTF-8"?>\n<wfs:ValueCollection xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:wfs="http://www.opengis.net/wfs/2.0" ' +
          `xmlns:gml="${GML_NS['2.0.0']}" xmlns:${p.t.prefix}="${x(p.t.uri)}" numberMatched="${matched}" numberReturned="${returned}" timeStamp="${timeStamp()}" ` +
          'xsi:schemaLocation="http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd">\n'
        let n = 0
        for await (const f of featuresOf(p)) {
          const id = fid(p, f, n++)
          if (a!.name === p.t.geometry?.name) {
            const g = decodeGeometry(f.geometry)
            yield `<wfs:member>${g ? gml3(p.project(g), p.srsName, true, `${id}.geom`) : ''}</wfs:member>\n`
          } else {
            const v = textValue(f.properties[a!.name], a!.binding)
            yield v === undefined ? '<wfs:member xsi:nil="true"/>\n' : `<wfs:member>${xmlText(v)}</wfs:member>\n`
          }
        }
        yield '</wfs:ValueCollection>\n'
      }
      return { contentType: 'application/xml', body: batched(body()) }
    }
  }
}
