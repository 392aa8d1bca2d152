// WFS requests sent as XML by POST (WFS 2.0.0, 1.1.0 and 1.0.0 schemas alike, read by local
// names): GetCapabilities (AcceptVersions), DescribeFeatureType (TypeName), GetFeature and
// GetPropertyValue (wfs:Query with its typeNames, srsName, PropertyName, Filter and SortBy; the
// GetFeatureById wfs:StoredQuery), ListStoredQueries and DescribeStoredQueries, Transaction (its
// document handed to transaction.ts); the rest is OperationNotSupported. GetFeature becomes the same FeatureRequest KVP gives (request.ts).
import { parseXmlElements, type XmlElement } from '../files/xml.js'
import { WfsInvalidParameter, WfsMissingParameter } from '../errors.js'
import { parseViewParams } from '../vector/virtual-table.js'
import {
  capabilitiesVersion, checkCrs, GET_FEATURE_ID, list, lockParams, operationOf, outputFormat, requestVersion,
  type FeatureRequest, type LockParams, type Kvp, type Operation, type QueryFilter, type WfsQuery, type WfsVersion
} from './request.js'

export interface XmlRequest {
  operation: Operation
  version: WfsVersion
  /** The request's parameters as KVP names (GetCapabilities, DescribeFeatureType). */
  kvp: Kvp
  feature?: FeatureRequest
  /** A Transaction's document (transaction.ts reads its actions). */
  root?: XmlElement
  /** LockFeature and GetFeatureWithLock: the lock's expiry and lockAction. */
  lock?: LockParams
}

const child = (el: XmlElement, name: string) => el.children.find((c) => c.local === name)
const children = (el: XmlElement, name: string) => el.children.filter((c) => c.local === name)

function whole (v: string | undefined, locator: string): number | undefined {
  if (v === undefined || v.trim() === '') return undefined
  if (!/^\d{1,15}$/.test(v.trim())) throw WfsInvalidParameter(locator, JSON.stringify(v.slice(0, 30)), 'a whole number is expected')
  return Number(v)
}

function query (q: XmlElement): WfsQuery {
  const typeNames = list((q.attrs.typeNames ?? q.attrs.typeName ?? '').replace(/\s+/g, ','))
  if (typeNames.length === 0) throw WfsMissingParameter('typeNames')
  const filters: QueryFilter[] = []
  const f = child(q, 'Filter')
  if (f) filters.push({ kind: 'xml', el: f })
  const props = [...children(q, 'PropertyName'), ...children(q, 'ValueReference')].map((p) => p.text.trim()).filter((s) => s !== '')
  const sort = child(q, 'SortBy')
  const sortBy = sort ? children(sort, 'SortProperty').map((s) => {
    const name = (child(s, 'ValueReference') ?? child(s, 'PropertyName'))?.text.trim()
    if (!name) throw WfsInvalidParameter('sortBy', '(empty)', 'a SortProperty needs a property name')
    const order = (child(s, 'SortOrder')?.text ?? 'ASC').trim().toUpperCase()
    if (!['ASC', 'DESC'].includes(order)) throw WfsInvalidParameter('sortBy', JSON.stringify(order), 'ASC or DESC is expected')
    return { name, descending: order === 'DESC' }
  }) : undefined
  const srs = q.attrs.srsName
  return {
    typeNames: [typeNames[0]],
    ...(props.length > 0 ? { properties: props } : {}),
    filters,
    ...(sortBy && sortBy.length > 0 ? { sortBy } : {}),
    ...(srs ? { srsName: checkCrs(srs, 'srsName') } : {})
  }
}

export async function parseXmlRequest (text: string): Promise<XmlRequest> {
  const root = await parseXmlElements(text)
  const operation = operationOf(root.local)
  const a = root.attrs
  if (operation === 'GetCapabilities') {
    const accept = child(root, 'AcceptVersions')
    const kvp: Kvp = {}
    if (accept) kvp.ACCEPTVERSIONS = children(accept, 'Version').map((v) => v.text.trim()).join(',')
    if (a.version) kvp.VERSION = a.version
    return { operation, version: capabilitiesVersion(kvp), kvp }
  }
  const version = requestVersion({ VERSION: a.version ?? '' })
  if (operation === 'DescribeFeatureType') {
    const names = children(root, 'TypeName').map((t) => t.text.trim()).filter((s) => s !== '')
    return { operation, version, kvp: { ...(names.length > 0 ? { TYPENAME: names.join(',') } : {}), ...(a.outputFormat ? { OUTPUTFORMAT: a.outputFormat } : {}) } }
  }
  if (operation === 'ListStoredQueries' || operation === 'DescribeStoredQueries') return { operation, version, kvp: {} }
  if (operation === 'Transaction') return { operation, version, kvp: {}, root }
  const lock = operation === 'LockFeature' || operation === 'GetFeatureWithLock' ? lockParams(a.expiry, a.lockAction, version) : undefined
  if (operation === 'LockFeature') {
    // 1.x: wfs:Lock elements (typeName, a Filter); 2.0.0: wfs:Query elements.
    const queries = [...children(root, 'Lock'), ...children(root, 'Query')].map(query)
    if (queries.length === 0) throw WfsMissingParameter(version === '2.0.0' ? 'Query' : 'Lock')
    return { operation, version, kvp: {}, lock, feature: { version, queries, startIndex: 0, resultType: 'results', outputFormat: outputFormat(undefined, version) } }
  }
  // GetFeature, GetFeatureWithLock, GetPropertyValue
  const queries = children(root, 'Query').map(query)
  let byId = false
  for (const sq of children(root, 'StoredQuery')) {
    if (sq.attrs.id !== GET_FEATURE_ID) throw WfsInvalidParameter('STOREDQUERY_ID', JSON.stringify((sq.attrs.id ?? '').slice(0, 80)), `the stored query offered is ${GET_FEATURE_ID}`)
    const id = children(sq, 'Parameter').find((p) => p.attrs.name?.toUpperCase() === 'ID')?.text.trim()
    if (!id) throw WfsMissingParameter('ID')
    const type = id.slice(0, id.lastIndexOf('.'))
    if (type === '') throw WfsInvalidParameter('ID', JSON.stringify(id), 'a feature id is <type>.<id>')
    queries.push({ typeNames: [type], filters: [], ids: [id] })
    byId = true
  }
  if (queries.length === 0) throw WfsMissingParameter('Query')
  // GeoServer's viewParams attribute of GetFeature, as the KVP's.
  const views = parseViewParams(a.viewParams, queries.length)
  queries.forEach((qq, i) => { if (views[i]) qq.viewParams = views[i] })
  const resultType = (a.resultType ?? 'results').toLowerCase()
  if (resultType !== 'results' && resultType !== 'hits') throw WfsInvalidParameter('resultType', JSON.stringify(a.resultType), 'results or hits is expected')
  const count = whole(a.count ?? a.maxFeatures, a.count !== undefined ? 'count' : 'maxFeatures')
  const feature: FeatureRequest = {
    version,
    queries,
    ...(count !== undefined ? { count } : {}),
    startIndex: whole(a.startIndex, 'startIndex') ?? 0,
    resultType,
    outputFormat: outputFormat(a.outputFormat, version),
    ...(byId ? { byId } : {}),
    ...(a.valueReference !== undefined ? { valueReference: a.valueReference } : {})
  }
  return { operation, version, kvp: {}, feature, ...(lock ? { lock } : {}) }
}
