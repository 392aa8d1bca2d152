// WFS 2.0.0 / 1.1.0 / 1.0.0 requests, read from KVP (names arrive upper-cased: the plugin folds
// them) into one shape that POST XML (xml-request.ts) also produces: the operation, the version,
// and for GetFeature its queries (type names, properties, filter, BBOX, sort, CRS, ids), paging and
// output format. Values are checked here and refused with the OGC code and locator a client expects.
import { crsName } from '../filters/ogc-xml.js'
import type { XmlElement } from '../files/xml.js'
import { WfsInvalidParameter, WfsMissingParameter, WfsOperationNotSupported, WfsVersionNegotiationFailed } from '../errors.js'
import { parseViewParams } from '../vector/virtual-table.js'

export type Kvp = Record<string, string>
export type WfsVersion = '2.0.0' | '1.1.0' | '1.0.0'
export const VERSIONS: WfsVersion[] = ['2.0.0', '1.1.0', '1.0.0']

export type Operation = 'GetCapabilities' | 'DescribeFeatureType' | 'GetFeature' | 'GetPropertyValue' | 'ListStoredQueries' | 'DescribeStoredQueries' | 'Transaction' |
  'LockFeature' | 'GetFeatureWithLock'
const OPERATIONS: Operation[] = ['GetCapabilities', 'DescribeFeatureType', 'GetFeature', 'GetPropertyValue', 'ListStoredQueries', 'DescribeStoredQueries', 'Transaction', 'LockFeature', 'GetFeatureWithLock']
/** Operations of the WFS specification this service does not offer. */
const UNOFFERED = ['GetGmlObject', 'CreateStoredQuery', 'DropStoredQuery']

export type OutputFormat = 'gml32' | 'gml31' | 'gml2' | 'json' | 'csv'
export const GET_FEATURE_ID = 'urn:ogc:def:query:OGC-WFS::GetFeatureById'

/** The filter of a query as sent: ECQL text (CQL_FILTER) or an OGC/FES Filter element. */
export type QueryFilter = { kind: 'cql', text: string } | { kind: 'xml', el: XmlElement }

export interface WfsQuery {
  typeNames: string[]
  properties?: string[]
  filters: QueryFilter[]
  /** BBOX: four numbers in the CRS named (or the type's own), in that CRS's axis order. */
  bbox?: { values: [number, number, number, number], crs?: string }
  /** Resource ids (`type.fid`). */
  ids?: string[]
  sortBy?: Array<{ name: string, descending: boolean }>
  srsName?: string
  /** An SQL view's parameters (viewparams). */
  viewParams?: Record<string, string>
}

export interface FeatureRequest {
  version: WfsVersion
  queries: WfsQuery[]
  count?: number
  startIndex: number
  resultType: 'results' | 'hits'
  outputFormat: OutputFormat
  /** GetFeatureById: a single feature, not a collection (404 when there is none). */
  byId?: boolean
  /** GetPropertyValue's valueReference. */
  valueReference?: string
}

/** What a LockFeature or GetFeatureWithLock asks of the lock: how long it lasts, and whether every feature must be locked. */
export interface LockParams {
  /** The expiry in milliseconds (2.0.0: seconds asked, default 300; 1.x: minutes asked, default 5). */
  expiryMs: number
  /** lockAction ALL (the default): none locked unless all can be; SOME: those that can be. */
  all: boolean
}

/** EXPIRY and LOCKACTION of a lock request (KVP names, or the XML root's attributes). */
export function lockParams (expiry: string | undefined, lockAction: string | undefined, version: WfsVersion): LockParams {
  const unit = version === '2.0.0' ? 1000 : 60_000
  let expiryMs = (version === '2.0.0' ? 300 : 5) * unit
  if (expiry !== undefined && expiry.trim() !== '') {
    const v = expiry.trim()
    if (!/^\d{1,9}$/.test(v) || Number(v) < 1) throw WfsInvalidParameter('expiry', JSON.stringify(v.slice(0, 30)), `a whole number of ${version === '2.0.0' ? 'seconds' : 'minutes'}, at least 1, is expected`)
    expiryMs = Number(v) * unit
  }
  const a = (lockAction ?? 'ALL').trim().toUpperCase()
  if (a !== 'ALL' && a !== 'SOME') throw WfsInvalidParameter('lockAction', JSON.stringify((lockAction ?? '').slice(0, 20)), 'ALL or SOME is expected')
  return { expiryMs, all: a === 'ALL' }
}

/** The operation of a request; GetGmlObject and stored query management are OperationNotSupported. */
export function operationOf (name: string | undefined): Operation {
  if (name === undefined || name.trim() === '') throw WfsMissingParameter('request')
  const n = name.trim().toLowerCase()
  const op = OPERATIONS.find((o) => o.toLowerCase() === n)
  if (op) return op
  const other = UNOFFERED.find((o) => o.toLowerCase() === n)
  if (other) throw WfsOperationNotSupported(other, 'this server\'s WFS offers no GetGmlObject or stored query management')
  throw WfsOperationNotSupported(JSON.stringify(name.slice(0, 60)), `supported: ${OPERATIONS.join(', ')}`)
}

const versionNumber = (v: string) => v.split('.').map(Number).reduce((a, n) => a * 100 + (Number.isFinite(n) ? n : 0), 0)

/** A version as asked (1.1 and 1.1.0 alike); the nearest lower one we speak for an unknown one. */
export function negotiate (v: string): WfsVersion | undefined {
  const s = v.trim()
  if (!/^\d+(\.\d+){0,2}$/.test(s)) return undefined
  const parts = s.split('.')
  while (parts.length < 3) parts.push('0')
  const n = versionNumber(parts.join('.'))
  return VERSIONS.find((x) => versionNumber(x) <= n)
}

/** GetCapabilities: AcceptVersions (the first we speak, in the client's order), else VERSION, else 2.0.0. */
export function capabilitiesVersion (q: Kvp): WfsVersion {
  const accept = q.ACCEPTVERSIONS?.trim()
  if (accept) {
    const asked = accept.split(',').map((s) => s.trim())
    const v = asked.find((a) => (VERSIONS as string[]).includes(a))
    if (!v) throw WfsVersionNegotiationFailed(asked.join(', '))
    return v as WfsVersion
  }
  const v = q.VERSION?.trim()
  if (!v) return '2.0.0'
  return negotiate(v) ?? '1.0.0'
}

/** Every other operation: VERSION as asked (2.0.0 when left out, as GeoServer does). */
export function requestVersion (q: Kvp): WfsVersion {
  const v = q.VERSION?.trim()
  if (!v) return '2.0.0'
  const exact = VERSIONS.find((x) => x === v || x === `${v}.0`)
  if (!exact) throw WfsInvalidParameter('version', JSON.stringify(v.slice(0, 20)), `supported: ${VERSIONS.join(', ')}`)
  return exact
}

/** A comma-separated list, trimmed, empty items dropped. */
export function list (v: string | undefined): string[] {
  return (v ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')
}

/** `(a,b)(c)` lists, one per query; a plain list is one. */
function groups (v: string): string[] {
  const t = v.trim()
  if (!t.startsWith('(')) return [t]
  const out: string[] = []
  const re = /\(([^()]*)\)/g
  let m
  while ((m = re.exec(t)) !== null) out.push(m[1])
  return out
}

/** FILTER=(<Filter>...</Filter>)(<Filter>...</Filter>): one per query; a single one unwrapped. */
function filterTexts (v: string): string[] {
  const t = v.trim()
  if (!t.startsWith('(')) return [t]
  const out: string[] = []
  let depth = 0
  let start = -1
  let inTag = false
  for (let i = 0; i < t.length; i++) {
    const c = t[i]
    if (c === '<') inTag = true
    else if (c === '>') inTag = false
    if (inTag) continue
    if (c === '(' ) { if (depth === 0) start = i + 1; depth++ }
    else if (c === ')') { depth--; if (depth === 0) out.push(t.slice(start, i)) }
  }
  return out.length > 0 ? out : [t]
}

function whole (q: Kvp, name: string, min = 0): number | undefined {
  const v = q[name.toUpperCase()]
  if (v === undefined || v.trim() === '') return undefined
  if (!/^\d{1,15}$/.test(v.trim()) || Number(v) < min) throw WfsInvalidParameter(name, JSON.stringify(v.slice(0, 30)), `a whole number of at least ${min} is expected`)
  return Number(v)
}

const FORMATS: Record<string, OutputFormat> = {
  'application/gml+xml; version=3.2': 'gml32',
  'text/xml; subtype=gml/3.2': 'gml32',
  'text/xml; subtype=gml/3.2.1': 'gml32',
  gml32: 'gml32',
  'text/xml; subtype=gml/3.1.1': 'gml31',
  'application/gml+xml; version=3.1': 'gml31',
  gml3: 'gml31',
  'text/xml; subtype=gml/2.1.2': 'gml2',
  gml2: 'gml2',
  'application/json': 'json',
  'application/geo+json': 'json',
  json: 'json',
  'text/csv': 'csv',
  csv: 'csv'
}
export const DEFAULT_FORMAT: Record<WfsVersion, OutputFormat> = { '2.0.0': 'gml32', '1.1.0': 'gml31', '1.0.0': 'gml2' }
/** The names each format is offered under, in capabilities (GeoServer's). */
export const FORMAT_NAMES: Record<OutputFormat, string> = {
  gml32: 'application/gml+xml; version=3.2',
  gml31: 'text/xml; subtype=gml/3.1.1',
  gml2: 'text/xml; subtype=gml/2.1.2',
  json: 'application/json',
  csv: 'csv'
}
export const FORMAT_ALIASES = ['GML2', 'GML3', 'gml32', 'application/json', 'json', 'text/csv', 'csv']

export function outputFormat (v: string | undefined, version: WfsVersion): OutputFormat {
  if (v === undefined || v.trim() === '') return DEFAULT_FORMAT[version]
  const k = v.trim().toLowerCase().replace(/\s*;\s*/g, '; ').replace(/\s*=\s*/g, '=').replace(/"/g, '')
  if (k === 'text/xml' || k === 'application/xml' || k === 'application/gml+xml') return DEFAULT_FORMAT[version]
  const f = FORMATS[k]
  if (!f) throw WfsInvalidParameter('outputFormat', JSON.stringify(v.slice(0, 60)), `supported: ${[...Object.values(FORMAT_NAMES), ...FORMAT_ALIASES].join(', ')}`)
  return f
}

export function checkCrs (v: string, locator: string): string {
  if (!crsName(v)) throw WfsInvalidParameter(locator, JSON.stringify(v.slice(0, 80)), 'not a coordinate reference system this server knows (EPSG codes, as EPSG:n or urn:ogc:def:crs:EPSG::n)')
  return v.trim()
}

/** sortBy: `name [ASC|DESC|A|D]`, comma-separated. */
export function sortBy (v: string | undefined): WfsQuery['sortBy'] {
  if (v === undefined || v.trim() === '') return undefined
  return list(v).map((item) => {
    const [name, dir, extra] = item.split(/\s+/)
    const d = (dir ?? 'ASC').toUpperCase()
    if (extra !== undefined || !['ASC', 'DESC', 'A', 'D'].includes(d)) throw WfsInvalidParameter('sortBy', JSON.stringify(item.slice(0, 60)), 'a property name and ASC or DESC are expected')
    return { name, descending: d === 'DESC' || d === 'D' }
  })
}

/** BBOX=minx,miny,maxx,maxy[,crs] in the axis order of the CRS named. */
export function bboxParam (v: string): NonNullable<WfsQuery['bbox']> {
  const parts = v.split(',').map((s) => s.trim())
  const crs = parts.length === 5 ? checkCrs(parts[4], 'bbox') : undefined
  const n = parts.slice(0, 4).map((s) => s === '' ? NaN : Number(s))
  if ((parts.length !== 4 && parts.length !== 5) || !n.every(Number.isFinite)) throw WfsInvalidParameter('bbox', JSON.stringify(v.slice(0, 100)), 'four numbers and an optional CRS are expected')
  return { values: n as [number, number, number, number], ...(crs ? { crs } : {}) }
}

export type ParsedFilter = (text: string) => Promise<XmlElement>

/** GetFeature (and GetPropertyValue) from KVP. */
export async function featureRequest (q: Kvp, version: WfsVersion, parseFilter: ParsedFilter): Promise<FeatureRequest> {
  const stored = q.STOREDQUERY_ID?.trim()
  const ids = list(q.RESOURCEID ?? q.FEATUREID)
  let typeNames = list(q.TYPENAMES ?? q.TYPENAME)
  let byId = false
  if (stored) {
    if (stored !== GET_FEATURE_ID) throw WfsInvalidParameter('STOREDQUERY_ID', JSON.stringify(stored.slice(0, 80)), `the stored query offered is ${GET_FEATURE_ID}`)
    const id = q.ID?.trim()
    if (!id) throw WfsMissingParameter('ID')
    ids.splice(0, ids.length, id)
    byId = true
  }
  const typeGroups = typeNames.length > 0 ? (q.TYPENAMES ?? q.TYPENAME)!.trim().startsWith('(') ? groups(q.TYPENAMES ?? q.TYPENAME) : typeNames : []
  typeNames = typeGroups.flatMap((g) => list(g))
  if (typeNames.length === 0) {
    // Resource ids name their types (`places.12`).
    const fromIds = [...new Set(ids.map((id) => id.slice(0, id.lastIndexOf('.')).trim()).filter((s) => s !== ''))]
    if (ids.length === 0 || fromIds.length === 0) throw WfsMissingParameter(version === '2.0.0' ? 'typeNames' : 'typeName')
    typeNames = fromIds
  }
  const cql = q.CQL_FILTER !== undefined && q.CQL_FILTER.trim() !== '' ? q.CQL_FILTER.split(';') : []
  const xml = q.FILTER !== undefined && q.FILTER.trim() !== '' ? filterTexts(q.FILTER) : []
  const props = q.PROPERTYNAME !== undefined && q.PROPERTYNAME.trim() !== '' ? groups(q.PROPERTYNAME) : []
  const per = <T> (items: T[], what: string): Array<T | undefined> => {
    if (items.length > 1 && items.length !== typeNames.length) throw WfsInvalidParameter(what, `(${items.length} given)`, `one for each of the ${typeNames.length} type names, or one for all`)
    return typeNames.map((_, i) => items.length === 1 ? items[0] : items[i])
  }
  const cqlOf = per(cql, 'CQL_FILTER')
  const xmlOf = per(xml, 'FILTER')
  const propsOf = per(props, 'propertyName')
  const bbox = q.BBOX !== undefined && q.BBOX.trim() !== '' ? bboxParam(q.BBOX) : undefined
  const srsName = q.SRSNAME !== undefined && q.SRSNAME.trim() !== '' ? checkCrs(q.SRSNAME, 'srsName') : undefined
  const sorted = sortBy(q.SORTBY)
  const views = parseViewParams(q.VIEWPARAMS, typeNames.length)
  const queries: WfsQuery[] = []
  for (let i = 0; i < typeNames.length; i++) {
    const filters: QueryFilter[] = []
    if (cqlOf[i] !== undefined) filters.push({ kind: 'cql', text: cqlOf[i]! })
    if (xmlOf[i] !== undefined) filters.push({ kind: 'xml', el: await parseFilter(xmlOf[i]!) })
    queries.push({
      typeNames: [typeNames[i]],
      ...(propsOf[i] !== undefined ? { properties: list(propsOf[i]) } : {}),
      filters,
      ...(bbox ? { bbox } : {}),
      ...(ids.length > 0 ? { ids } : {}),
      ...(sorted ? { sortBy: sorted } : {}),
      ...(srsName ? { srsName } : {}),
      ...(views[i] ? { viewParams: views[i] } : {})
    })
  }
  const resultType = (q.RESULTTYPE ?? 'results').trim().toLowerCase()
  if (resultType !== 'results' && resultType !== 'hits') throw WfsInvalidParameter('resultType', JSON.stringify(q.RESULTTYPE.slice(0, 30)), 'results or hits is expected')
  const count = whole(q, version === '2.0.0' ? (q.COUNT !== undefined ? 'count' : 'maxFeatures') : (q.MAXFEATURES !== undefined ? 'maxFeatures' : 'count'))
  return {
    version,
    queries,
    ...(count !== undefined ? { count } : {}),
    startIndex: whole(q, 'startIndex') ?? 0,
    resultType,
    outputFormat: outputFormat(q.OUTPUTFORMAT, version),
    ...(byId ? { byId } : {}),
    ...(q.VALUEREFERENCE !== undefined ? { valueReference: q.VALUEREFERENCE.trim() } : {})
  }
}
