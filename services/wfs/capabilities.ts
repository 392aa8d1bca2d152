// The capabilities documents of WFS 2.0.0, 1.1.0 and 1.0.0, in the shape GeoServer writes them:
// service identification, operations metadata with the service's URL for GET and POST (proxyBaseUrl
// applies: the plugin builds the URL), the output formats, the feature types the caller may see with
// their default CRS and WGS84 bounds, and the filter capabilities of what the filter parsers read
// (comparisons, Like, Between, Null, logical operators, BBOX, resource ids, sorting).
import { FORMAT_ALIASES, FORMAT_NAMES, GET_FEATURE_ID, VERSIONS, type WfsVersion } from './request.js'
import { DESCRIBE_TYPES } from './describe.js'
import type { ServedType } from './wfs-context.js'
import { escapeXml } from '../xml-escape.js'

const x = (s: string) => escapeXml(s)

export interface CapabilitiesInput {
  version: WfsVersion
  types: ServedType[]
  /** The service URL, ending in `?`. */
  url: string
  workspace?: string
  maxFeatures: number
  /** Whether Transaction is offered (the settings' serviceLevel TRANSACTIONAL or COMPLETE). */
  transactional: boolean
  /** Whether LockFeature and GetFeatureWithLock are offered (serviceLevel COMPLETE). */
  locking?: boolean
  /** What the WFS settings say of the service (the workspace's own on its virtual service). */
  service: ServiceDescription
}

/** The service settings the capabilities write ({base}/rest/services/wfs/settings). */
export interface ServiceDescription {
  title: string
  abstract?: string
  keywords: string[]
  fees?: string
  accessConstraints?: string
  /** The service's OnlineResource (1.0.0) and ProviderSite (1.1.0, 2.0.0); unset: the service URL. */
  onlineResource?: string
}

export const CAPABILITIES_TYPE = 'application/xml'

const OUTPUT_FORMATS = [...new Set([...Object.values(FORMAT_NAMES), ...FORMAT_ALIASES])]
const COMPARISONS = ['PropertyIsLessThan', 'PropertyIsGreaterThan', 'PropertyIsLessThanOrEqualTo', 'PropertyIsGreaterThanOrEqualTo',
  'PropertyIsEqualTo', 'PropertyIsNotEqualTo', 'PropertyIsLike', 'PropertyIsBetween', 'PropertyIsNull', 'PropertyIsNil']

/** The spatial operators services/filters/ogc-xml.ts evaluates and the GML geometries they take. */
const SPATIAL_OPERATORS = ['BBOX', 'Equals', 'Disjoint', 'Intersects', 'Touches', 'Crosses', 'Within', 'Contains', 'Overlaps', 'Beyond', 'DWithin']
const OPERANDS_311 = ['Envelope', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon']
const OPERANDS_32 = ['Envelope', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiCurve', 'MultiSurface']
const epsg = (t: ServedType) => /^EPSG:(\d+)$/.exec(t.crs ?? '')?.[1] ?? '4326'
const wgs84 = (t: ServedType) => t.ft.latLonBbox ?? [-180, -90, 180, 90]

function keywords (t: ServedType, tag: string, inner: string): string {
  const k = [...t.ft.config.keywords]
  if (k.length === 0) return ''
  return `<${tag}>${k.map((w) => `<${inner}>${x(w)}</${inner}>`).join('')}</${tag}>`
}

function namespaces (types: ServedType[]): string {
  const seen = new Map<string, string>()
  for (const t of types) seen.set(t.prefix, t.uri)
  return [...seen].map(([p, u]) => ` xmlns:${p}="${x(u)}"`).join('')
}

export function capabilities (c: CapabilitiesInput): string {
  if (c.version === '1.0.0') return capabilities10(c)
  return c.version === '1.1.0' ? capabilities11(c) : capabilities20(c)
}

function owsOperation (name: string, url: string, params: Array<[string, string[]]>, get = true): string {
  const dcp = `<ows:DCP><ows:HTTP>${get ? `<ows:Get xlink:href="${x(url)}"/>` : ''}<ows:Post xlink:href="${x(url.replace(/\?$/, ''))}"/></ows:HTTP></ows:DCP>`
  const ps = params.map(([n, vs]) => `<ows:Parameter name="${n}"><ows:AllowedValues>${vs.map((v) => `<ows:Value>${x(v)}</ows:Value>`).join('')}</ows:AllowedValues></ows:Parameter>`).join('')
  return `<ows:Operation name="${name}">${dcp}${ps}</ows:Operation>`
}

function serviceIdentification (c: CapabilitiesInput, versions: string[]): string {
  const s = c.service
  const keywords = s.keywords.length > 0 ? `<ows:Keywords>${s.keywords.map((k) => `<ows:Keyword>${x(k)}</ows:Keyword>`).join('')}</ows:Keywords>` : ''
  return `<ows:ServiceIdentification><ows:Title>${x(s.title)}</ows:Title><ows:Abstract>${x(s.abstract ?? '')}</ows:Abstract>${keywords}` +
    `<ows:ServiceType>WFS</ows:ServiceType>${versions.map((v) => `<ows:ServiceTypeVersion>${v}</ows:ServiceTypeVersion>`).join('')}` +
    `<ows:Fees>${x(s.fees ?? '')}</ows:Fees><ows:AccessConstraints>${x(s.accessConstraints ?? '')}</ows:AccessConstraints></ows:ServiceIdentification>` +
    `<ows:ServiceProvider><ows:ProviderName>mapwarden</ows:ProviderName><ows:ProviderSite xlink:href="${x(s.onlineResource ?? c.url.replace(/\?$/, ''))}"/><ows:ServiceContact/></ows:ServiceProvider>`
}

const constraint = (prefix: string, name: string, value: string) => `<${prefix}:Constraint name="${name}"><ows:NoValues/><ows:DefaultValue>${value}</ows:DefaultValue></${prefix}:Constraint>`

function capabilities20 (c: CapabilitiesInput): string {
  const u = c.url
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<wfs:WFS_Capabilities version="2.0.0" xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:ows="http://www.opengis.net/ows/1.1" ' +
    'xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
    `xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"${namespaces(c.types)} ` +
    'xsi:schemaLocation="http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd" updateSequence="0">',
    serviceIdentification(c, ['2.0.0']),
    '<ows:OperationsMetadata>',
    owsOperation('GetCapabilities', u, [['AcceptVersions', VERSIONS], ['AcceptFormats', ['text/xml']], ['Sections', ['ServiceIdentification', 'ServiceProvider', 'OperationsMetadata', 'FeatureTypeList', 'Filter_Capabilities']]]),
    owsOperation('DescribeFeatureType', u, [['outputFormat', [DESCRIBE_TYPES['2.0.0']]]]),
    owsOperation('GetPropertyValue', u, [['resolve', ['none']], ['outputFormat', [FORMAT_NAMES.gml32]]]),
    owsOperation('ListStoredQueries', u, []),
    owsOperation('DescribeStoredQueries', u, []),
    owsOperation('GetFeature', u, [['resultType', ['results', 'hits']], ['outputFormat', OUTPUT_FORMATS], ['resolve', ['none']]]),
    ...(c.locking ? [owsOperation('LockFeature', u, [['lockAction', ['ALL', 'SOME']]]), owsOperation('GetFeatureWithLock', u, [['resultType', ['results']], ['outputFormat', OUTPUT_FORMATS], ['lockAction', ['ALL', 'SOME']]])] : []),
    ...(c.transactional ? [owsOperation('Transaction', u, [['inputFormat', [FORMAT_NAMES.gml32]], ['releaseAction', ['ALL', 'SOME']]], false)] : []),
    '<ows:Parameter name="version"><ows:AllowedValues><ows:Value>2.0.0</ows:Value><ows:Value>1.1.0</ows:Value><ows:Value>1.0.0</ows:Value></ows:AllowedValues></ows:Parameter>',
    constraint('ows', 'ImplementsBasicWFS', 'TRUE'),
    constraint('ows', 'ImplementsTransactionalWFS', c.transactional ? 'TRUE' : 'FALSE'),
    constraint('ows', 'ImplementsLockingWFS', c.locking ? 'TRUE' : 'FALSE'),
    constraint('ows', 'KVPEncoding', 'TRUE'),
    constraint('ows', 'XMLEncoding', 'TRUE'),
    constraint('ows', 'SOAPEncoding', 'FALSE'),
    constraint('ows', 'ImplementsInheritance', 'FALSE'),
    constraint('ows', 'ImplementsRemoteResolve', 'FALSE'),
    constraint('ows', 'ImplementsResultPaging', 'TRUE'),
    constraint('ows', 'ImplementsStandardJoins', 'FALSE'),
    constraint('ows', 'ImplementsSpatialJoins', 'FALSE'),
    constraint('ows', 'ImplementsTemporalJoins', 'FALSE'),
    constraint('ows', 'ImplementsFeatureVersioning', 'FALSE'),
    constraint('ows', 'ManageStoredQueries', 'FALSE'),
    constraint('ows', 'CountDefault', String(c.maxFeatures)),
    '<ows:Constraint name="QueryExpressions"><ows:AllowedValues><ows:Value>wfs:Query</ows:Value><ows:Value>wfs:StoredQuery</ows:Value></ows:AllowedValues></ows:Constraint>',
    '</ows:OperationsMetadata>',
    '<wfs:FeatureTypeList>'
  ]
  for (const t of c.types) {
    const b = wgs84(t)
    out.push(`<wfs:FeatureType xmlns:${t.prefix}="${x(t.uri)}"><wfs:Name>${x(t.qualified)}</wfs:Name><wfs:Title>${x(t.ft.title)}</wfs:Title>` +
      `<wfs:Abstract>${x(t.ft.config.abstract ?? '')}</wfs:Abstract>${keywords(t, 'ows:Keywords', 'ows:Keyword')}` +
      `<wfs:DefaultCRS>urn:ogc:def:crs:EPSG::${epsg(t)}</wfs:DefaultCRS>` +
      `<ows:WGS84BoundingBox><ows:LowerCorner>${b[0]} ${b[1]}</ows:LowerCorner><ows:UpperCorner>${b[2]} ${b[3]}</ows:UpperCorner></ows:WGS84BoundingBox></wfs:FeatureType>`)
  }
  out.push('</wfs:FeatureTypeList>',
    '<fes:Filter_Capabilities><fes:Conformance>',
    constraint('fes', 'ImplementsQuery', 'TRUE'), constraint('fes', 'ImplementsAdHocQuery', 'TRUE'), constraint('fes', 'ImplementsFunctions', 'FALSE'),
    constraint('fes', 'ImplementsResourceId', 'TRUE'), constraint('fes', 'ImplementsMinStandardFilter', 'TRUE'), constraint('fes', 'ImplementsStandardFilter', 'TRUE'),
    constraint('fes', 'ImplementsMinSpatialFilter', 'TRUE'), constraint('fes', 'ImplementsSpatialFilter', 'TRUE'), constraint('fes', 'ImplementsMinTemporalFilter', 'FALSE'),
    constraint('fes', 'ImplementsTemporalFilter', 'FALSE'), constraint('fes', 'ImplementsVersionNav', 'FALSE'), constraint('fes', 'ImplementsSorting', 'TRUE'),
    constraint('fes', 'ImplementsExtendedOperators', 'FALSE'), constraint('fes', 'ImplementsMinimumXPath', 'FALSE'), constraint('fes', 'ImplementsSchemaElementFunc', 'FALSE'),
    '</fes:Conformance>',
    '<fes:Id_Capabilities><fes:ResourceIdentifier name="fes:ResourceId"/></fes:Id_Capabilities>',
    `<fes:Scalar_Capabilities><fes:LogicalOperators/><fes:ComparisonOperators>${COMPARISONS.map((o) => `<fes:ComparisonOperator name="${o}"/>`).join('')}</fes:ComparisonOperators></fes:Scalar_Capabilities>`,
    `<fes:Spatial_Capabilities><fes:GeometryOperands>${OPERANDS_32.map((o) => `<fes:GeometryOperand name="gml:${o}"/>`).join('')}</fes:GeometryOperands><fes:SpatialOperators>${SPATIAL_OPERATORS.map((o) => `<fes:SpatialOperator name="${o}"/>`).join('')}</fes:SpatialOperators></fes:Spatial_Capabilities>`,
    '</fes:Filter_Capabilities>',
    '</wfs:WFS_Capabilities>')
  return out.join('\n') + '\n'
}

function capabilities11 (c: CapabilitiesInput): string {
  const u = c.url
  const formats = OUTPUT_FORMATS
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<wfs:WFS_Capabilities version="1.1.0" xmlns:wfs="http://www.opengis.net/wfs" xmlns:ows="http://www.opengis.net/ows" ' +
    'xmlns:gml="http://www.opengis.net/gml" xmlns:ogc="http://www.opengis.net/ogc" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
    `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"${namespaces(c.types)} ` +
    'xsi:schemaLocation="http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.1.0/wfs.xsd" updateSequence="0">',
    serviceIdentification(c, ['1.1.0']),
    '<ows:OperationsMetadata>',
    owsOperation('GetCapabilities', u, [['AcceptVersions', VERSIONS], ['AcceptFormats', ['text/xml']]]),
    owsOperation('DescribeFeatureType', u, [['outputFormat', [DESCRIBE_TYPES['1.1.0']]]]),
    owsOperation('GetFeature', u, [['resultType', ['results', 'hits']], ['outputFormat', formats]]),
    ...(c.locking ? [owsOperation('GetFeatureWithLock', u, [['resultType', ['results']], ['outputFormat', formats]]), owsOperation('LockFeature', u, [['lockAction', ['ALL', 'SOME']]])] : []),
    ...(c.transactional ? [owsOperation('Transaction', u, [['inputFormat', [FORMAT_NAMES.gml31]], ['idgen', ['GenerateNew']], ['releaseAction', ['ALL', 'SOME']]], false)] : []),
    '</ows:OperationsMetadata>',
    `<wfs:FeatureTypeList><wfs:Operations>${(c.transactional ? ['Query', 'Insert', 'Update', 'Delete', ...(c.locking ? ['Lock'] : [])] : ['Query']).map((o) => `<wfs:Operation>${o}</wfs:Operation>`).join('')}</wfs:Operations>`
  ]
  for (const t of c.types) {
    const b = wgs84(t)
    out.push(`<wfs:FeatureType xmlns:${t.prefix}="${x(t.uri)}"><wfs:Name>${x(t.qualified)}</wfs:Name><wfs:Title>${x(t.ft.title)}</wfs:Title>` +
      `<wfs:Abstract>${x(t.ft.config.abstract ?? '')}</wfs:Abstract>${keywords(t, 'ows:Keywords', 'ows:Keyword')}` +
      `<wfs:DefaultSRS>urn:x-ogc:def:crs:EPSG:${epsg(t)}</wfs:DefaultSRS>` +
      `<wfs:OutputFormats><wfs:Format>${FORMAT_NAMES.gml31}</wfs:Format></wfs:OutputFormats>` +
      `<ows:WGS84BoundingBox><ows:LowerCorner>${b[0]} ${b[1]}</ows:LowerCorner><ows:UpperCorner>${b[2]} ${b[3]}</ows:UpperCorner></ows:WGS84BoundingBox></wfs:FeatureType>`)
  }
  const cmp = ['LessThan', 'GreaterThan', 'LessThanEqualTo', 'GreaterThanEqualTo', 'EqualTo', 'NotEqualTo', 'Like', 'Between', 'NullCheck']
  out.push('</wfs:FeatureTypeList>',
    '<ogc:Filter_Capabilities>',
    `<ogc:Spatial_Capabilities><ogc:GeometryOperands>${OPERANDS_311.map((o) => `<ogc:GeometryOperand>gml:${o}</ogc:GeometryOperand>`).join('')}</ogc:GeometryOperands>` +
    `<ogc:SpatialOperators>${SPATIAL_OPERATORS.map((o) => `<ogc:SpatialOperator name="${o}"/>`).join('')}</ogc:SpatialOperators></ogc:Spatial_Capabilities>`,
    `<ogc:Scalar_Capabilities><ogc:LogicalOperators/><ogc:ComparisonOperators>${cmp.map((o) => `<ogc:ComparisonOperator>${o}</ogc:ComparisonOperator>`).join('')}</ogc:ComparisonOperators></ogc:Scalar_Capabilities>`,
    '<ogc:Id_Capabilities><ogc:FID/><ogc:EID/></ogc:Id_Capabilities>',
    '</ogc:Filter_Capabilities>',
    '</wfs:WFS_Capabilities>')
  return out.join('\n') + '\n'
}

function capabilities10 (c: CapabilitiesInput): string {
  const u = c.url
  const dcp = `<DCPType><HTTP><Get onlineResource="${x(u)}"/></HTTP></DCPType><DCPType><HTTP><Post onlineResource="${x(u.replace(/\?$/, ''))}"/></HTTP></DCPType>`
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<WFS_Capabilities version="1.0.0" xmlns="http://www.opengis.net/wfs" xmlns:ogc="http://www.opengis.net/ogc" ' +
    `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"${namespaces(c.types)} ` +
    'xsi:schemaLocation="http://www.opengis.net/wfs http://schemas.opengis.net/wfs/1.0.0/WFS-capabilities.xsd">',
    `<Service><Name>WFS</Name><Title>${x(c.service.title)}</Title><Abstract>${x(c.service.abstract ?? '')}</Abstract><Keywords>${x(c.service.keywords.join(', '))}</Keywords>` +
    `<OnlineResource>${x(c.service.onlineResource ?? u.replace(/\?$/, ''))}</OnlineResource><Fees>${x(c.service.fees ?? '')}</Fees><AccessConstraints>${x(c.service.accessConstraints ?? '')}</AccessConstraints></Service>`,
    '<Capability><Request>',
    `<GetCapabilities>${dcp}</GetCapabilities>`,
    `<DescribeFeatureType><SchemaDescriptionLanguage><XMLSCHEMA/></SchemaDescriptionLanguage>${dcp}</DescribeFeatureType>`,
    `<GetFeature><ResultFormat><GML2/><GML3/><JSON/><CSV/></ResultFormat>${dcp}</GetFeature>`,
    ...(c.transactional ? [`<Transaction><DCPType><HTTP><Post onlineResource="${x(u.replace(/\?$/, ''))}"/></HTTP></DCPType></Transaction>`] : []),
    ...(c.locking ? [`<LockFeature>${dcp}</LockFeature>`, `<GetFeatureWithLock><ResultFormat><GML2/><GML3/></ResultFormat>${dcp}</GetFeatureWithLock>`] : []),
    '</Request></Capability>',
    `<FeatureTypeList><Operations><Query/>${c.transactional ? '<Insert/><Update/><Delete/>' : ''}${c.locking ? '<Lock/>' : ''}</Operations>`
  ]
  for (const t of c.types) {
    const b = wgs84(t)
    out.push(`<FeatureType><Name>${x(t.qualified)}</Name><Title>${x(t.ft.title)}</Title><Abstract>${x(t.ft.config.abstract ?? '')}</Abstract>` +
      `<Keywords>${x(t.ft.config.keywords.join(', '))}</Keywords><SRS>EPSG:${epsg(t)}</SRS>` +
      `<LatLongBoundingBox minx="${b[0]}" miny="${b[1]}" maxx="${b[2]}" maxy="${b[3]}"/></FeatureType>`)
  }
  out.push('</FeatureTypeList>',
    `<ogc:Filter_Capabilities><ogc:Spatial_Capabilities><ogc:Spatial_Operators>${SPATIAL_OPERATORS.map((o) => `<ogc:${o}/>`).join('')}</ogc:Spatial_Operators></ogc:Spatial_Capabilities>` +
    '<ogc:Scalar_Capabilities><ogc:Logical_Operators/><ogc:Comparison_Operators><ogc:Simple_Comparisons/><ogc:Between/><ogc:Like/><ogc:NullCheck/></ogc:Comparison_Operators></ogc:Scalar_Capabilities></ogc:Filter_Capabilities>',
    '</WFS_Capabilities>')
  return out.join('\n') + '\n'
}

/** ListStoredQueries: GetFeatureById, returning every type the caller may read. */
export function listStoredQueries (types: ServedType[]): string {
  return '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<wfs:ListStoredQueriesResponse xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"${namespaces(types)} ` +
    'xsi:schemaLocation="http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd">' +
    `<wfs:StoredQuery id="${GET_FEATURE_ID}"><wfs:Title>Get feature by identifier</wfs:Title>` +
    types.map((t) => `<wfs:ReturnFeatureType>${x(t.qualified)}</wfs:ReturnFeatureType>`).join('') +
    '</wfs:StoredQuery></wfs:ListStoredQueriesResponse>\n'
}

export function describeStoredQueries (types: ServedType[]): string {
  return '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<wfs:DescribeStoredQueriesResponse xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:xs="http://www.w3.org/2001/XMLSchema" ' +
    `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"${namespaces(types)} xsi:schemaLocation="http://www.opengis.net/wfs/2.0 http://schemas.opengis.net/wfs/2.0/wfs.xsd">` +
    `<wfs:StoredQueryDescription id="${GET_FEATURE_ID}"><wfs:Title>Get feature by identifier</wfs:Title>` +
    '<wfs:Abstract>Returns the single feature whose GML identifier is ID.</wfs:Abstract>' +
    '<wfs:Parameter name="ID" type="xs:string"/>' +
    `<wfs:QueryExpressionText isPrivate="true" language="urn:ogc:def:queryLanguage:OGC-WFS::WFS_QueryExpression" returnFeatureTypes="${types.map((t) => x(t.qualified)).join(' ')}"/>` +
    '</wfs:StoredQueryDescription></wfs:DescribeStoredQueriesResponse>\n'
}
