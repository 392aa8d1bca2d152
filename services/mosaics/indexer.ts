// The mosaic definition: indexer.properties or indexer.xml (GeoTools ImageMosaic), regex sidecars,
// datastore.properties. Parsed into plain settings that are stored with the mosaic, so a restart or
// a harvest never has to re-read the uploaded files.
import { parseProperties } from './properties.js'
import { InvalidMosaicConfig } from '../errors.js'
import { asArray, parseXml } from '../files/xml.js'

export type AttrType = 'Geometry' | 'String' | 'Date' | 'Integer' | 'Double' | 'Boolean'

export interface SchemaAttribute {
  name: string
  type: AttrType
  /** Java binding shown by the index schema resource. */
  binding: string
}

export interface Collector {
  /** GeoTools SPI name, e.g. TimestampFileNameExtractorSPI. */
  spi: string
  attribute: string
  regex?: string
  format?: string
}

export interface MosaicSettings {
  name?: string
  schema: SchemaAttribute[]
  collectors: Collector[]
  timeAttribute?: string
  elevationAttribute?: string
  canBeEmpty: boolean
  absolutePath: boolean
  recursive: boolean
  wildcard: string
  locationAttribute: string
  /** Attribute holding each granule's native CRS (GeoTools' HeterogeneousCRS + CrsAttribute); set
   *  by the indexer, or added when a granule in another CRS than the mosaic's is first indexed. */
  crsAttribute?: string
  /** What datastore.properties named, for the record; the index is always the embedded one. */
  indexStore: string
  /** Set for a single-file coverage store (GeoServer's GeoTIFF and WorldImage formats): served as a
   *  mosaic of its one granule, with no harvests; absent for an ImageMosaic. */
  format?: 'GeoTIFF' | 'WorldImage'
}

const GEOMETRY_TYPES: Record<string, string> = {
  polygon: 'org.locationtech.jts.geom.Polygon',
  multipolygon: 'org.locationtech.jts.geom.MultiPolygon',
  geometry: 'org.locationtech.jts.geom.Geometry'
}

const TYPES: Record<string, [AttrType, string]> = {
  string: ['String', 'java.lang.String'],
  date: ['Date', 'java.util.Date'],
  timestamp: ['Date', 'java.sql.Timestamp'],
  integer: ['Integer', 'java.lang.Integer'],
  int: ['Integer', 'java.lang.Integer'],
  short: ['Integer', 'java.lang.Short'],
  byte: ['Integer', 'java.lang.Byte'],
  long: ['Integer', 'java.lang.Long'],
  double: ['Double', 'java.lang.Double'],
  float: ['Double', 'java.lang.Float'],
  boolean: ['Boolean', 'java.lang.Boolean']
}

const ATTR_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/

export function parseSchema (spec: string, locationAttribute = 'location'): SchemaAttribute[] {
  const attrs: SchemaAttribute[] = []
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^\*?([^:]+):(.+)$/.exec(part)
    if (!m) throw InvalidMosaicConfig(`bad Schema entry ${JSON.stringify(part)}, expected name:Type`)
    const name = m[1].trim()
    if (!ATTR_NAME.test(name)) throw InvalidMosaicConfig(`bad attribute name ${JSON.stringify(name)} in Schema`)
    if (attrs.some((a) => a.name === name)) throw InvalidMosaicConfig(`attribute ${name} appears twice in Schema`)
    const typeName = m[2].trim()
    const short = typeName.split('.').pop()!.toLowerCase()
    if (GEOMETRY_TYPES[short]) {
      attrs.push({ name, type: 'Geometry', binding: GEOMETRY_TYPES[short] })
      continue
    }
    const t = TYPES[short]
    if (!t) throw InvalidMosaicConfig(`unsupported attribute type ${JSON.stringify(typeName)} for ${name}`)
    attrs.push({ name, type: t[0], binding: typeName.includes('.') && /^java\./.test(typeName) ? typeName : t[1] })
  }
  if (!attrs.some((a) => a.type === 'Geometry')) attrs.unshift({ name: 'the_geom', type: 'Geometry', binding: GEOMETRY_TYPES.polygon })
  const geomIndex = attrs.findIndex((a) => a.type === 'Geometry')
  if (geomIndex > 0) attrs.unshift(...attrs.splice(geomIndex, 1))
  if (attrs.filter((a) => a.type === 'Geometry').length > 1) throw InvalidMosaicConfig('Schema has more than one geometry')
  if (!attrs.some((a) => a.name === locationAttribute)) attrs.splice(1, 0, { name: locationAttribute, type: 'String', binding: 'java.lang.String' })
  return attrs
}

const COLLECTOR_TYPES: Record<string, AttrType[]> = {
  TimestampFileNameExtractorSPI: ['Date'],
  DateExtractorSPI: ['Date'],
  CurrentDateExtractorSPI: ['Date'],
  FSDateExtractorSPI: ['Date'],
  ByteFileNameExtractorSPI: ['Integer', 'Double'],
  ShortFileNameExtractorSPI: ['Integer', 'Double'],
  IntegerFileNameExtractorSPI: ['Integer', 'Double'],
  LongFileNameExtractorSPI: ['Integer', 'Double'],
  FloatFileNameExtractorSPI: ['Double', 'Integer'],
  DoubleFileNameExtractorSPI: ['Double', 'Integer'],
  StringFileNameExtractorSPI: ['String']
}

/** Files of the mosaic definition, by lower-cased name, as text. */
export type DefinitionFiles = Map<string, string>

function sidecar (files: DefinitionFiles, ref: string): { regex?: string, format?: string } {
  const text = files.get(`${ref.toLowerCase()}.properties`)
  if (text === undefined) return { regex: ref } // indexer.xml may give the regex itself
  const props = parseProperties(text)
  let regex = props.get('regex')
  let format = props.get('format')
  if (regex !== undefined) {
    const i = regex.indexOf(',format=')
    if (i >= 0 && format === undefined) { format = regex.slice(i + 8); regex = regex.slice(0, i) }
  }
  if (regex === undefined) throw InvalidMosaicConfig(`${ref}.properties has no regex`)
  return { regex, format }
}

function checkRegex (regex: string | undefined, where: string): void {
  if (regex === undefined) return
  if (regex.length > 500) throw InvalidMosaicConfig(`regex of ${where} is longer than 500 characters`)
  try { new RegExp(regex) } catch { throw InvalidMosaicConfig(`invalid regex ${JSON.stringify(regex)} in ${where}`) }
}

function parseCollectors (spec: string, files: DefinitionFiles): Collector[] {
  const out: Collector[] = []
  for (const part of spec.split(/,(?![^[]*\])/).map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9_.]+)(?:\[([^\]]*)\])?\(([^)]+)\)$/.exec(part)
    if (!m) throw InvalidMosaicConfig(`bad PropertyCollectors entry ${JSON.stringify(part)}`)
    const spi = m[1].split('.').pop()!
    const c: Collector = { spi, attribute: m[3].trim() }
    if (m[2]) Object.assign(c, sidecar(files, m[2].trim()))
    out.push(c)
  }
  return out
}

function bool (v: string | undefined, dflt: boolean): boolean {
  if (v === undefined || v.trim() === '') return dflt
  return /^true$/i.test(v.trim())
}

// hostile-inputs row 31: the definition may not point the index anywhere else.
function checkDatastore (files: DefinitionFiles): string {
  const text = files.get('datastore.properties')
  if (text === undefined) return 'embedded'
  if (/\$\{/.test(text)) throw InvalidMosaicConfig('datastore.properties may not use ${...} substitutions')
  const props = parseProperties(text)
  for (const key of ['jndiReferenceName', 'StoreName', 'url']) {
    if (props.has(key)) throw InvalidMosaicConfig(`datastore.properties key ${key} is not supported: the index is kept in the embedded catalog database`)
  }
  const spi = props.get('SPI') ?? ''
  const dbtype = (props.get('dbtype') ?? '').toLowerCase()
  if (/postgis|oracle|jndi|jdbc/i.test(spi) || (dbtype !== '' && dbtype !== 'h2')) {
    throw InvalidMosaicConfig(`datastore.properties names ${spi || dbtype}; only the embedded index (H2 or shapefile settings) is supported`)
  }
  const host = props.get('host')
  if (host !== undefined && host !== '' && host !== 'localhost') throw InvalidMosaicConfig('datastore.properties may not name a database host')
  const database = props.get('database') ?? ''
  if (/[\\/:]/.test(database)) throw InvalidMosaicConfig('datastore.properties database must be a plain name')
  return spi ? `embedded (in place of ${spi.split('.').pop()})` : 'embedded'
}

// hostile-inputs row 31: GeoTools reads these as paths (IndexingDirectories may list several,
// separated by commas or semicolons). Granules are only ever read from the upload or the harvest
// roots, so a value that names anything outside the upload is refused rather than ignored.
const PATH_KEYS = ['IndexingDirectories', 'AuxiliaryFile', 'AuxiliaryDatastoreFile']
function checkIndexerPaths (props: Map<string, string>): void {
  for (const key of PATH_KEYS) {
    const value = props.get(key)
    if (value === undefined) continue
    for (const part of value.split(/[,;]/).map((p) => p.trim()).filter(Boolean)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(part) || /^[\\/]/.test(part) || part.split(/[\\/]/).includes('..')) {
        throw InvalidMosaicConfig(`${key} must name a path inside the upload, found ${JSON.stringify(part.slice(0, 100))}`)
      }
    }
  }
}

async function parseIndexerXml (text: string): Promise<Map<string, string>> {
  const doc = await parseXml(text)
  const root = (doc.Indexer ?? doc.indexer) as any
  if (!root || typeof root !== 'object') throw InvalidMosaicConfig('indexer.xml has no Indexer root element')
  const props = new Map<string, string>()
  for (const p of asArray(root.parameters?.parameter)) {
    const a = (p as any)?.$
    if (a?.name !== undefined) props.set(String(a.name), String(a.value ?? ''))
  }
  const schemas = [...asArray(root.schemas?.schema), ...asArray(root.coverages?.coverage).map((c: any) => c?.schema)]
  for (const s of schemas) {
    const attrs = typeof s === 'object' ? (s as any).attributes : undefined
    if (typeof attrs === 'string' && !props.has('Schema')) props.set('Schema', attrs)
  }
  const collectors: string[] = []
  for (const c of asArray(root.collectors?.collector)) {
    const spi = (c as any)?.$?.spi ?? (c as any)?.$?.name
    const value = typeof (c as any)?.value === 'string' ? (c as any).value : ''
    const mapped = (c as any)?.mapped
    if (spi && mapped) collectors.push(`${spi}${value ? `[${value}]` : ''}(${mapped})`)
  }
  if (collectors.length && !props.has('PropertyCollectors')) props.set('PropertyCollectors', collectors.join(','))
  for (const d of asArray(root.domains?.domain)) {
    const name = String((d as any)?.$?.name ?? '').toLowerCase()
    const ref = asArray((d as any)?.attributes?.attribute).map((a: any) => a?.$?.ref).filter(Boolean)
    if (ref.length && name === 'time' && !props.has('TimeAttribute')) props.set('TimeAttribute', ref.join(';'))
    if (ref.length && name === 'elevation' && !props.has('ElevationAttribute')) props.set('ElevationAttribute', ref.join(';'))
  }
  return props
}

/** Reads the definition files (indexer.properties wins over indexer.xml, as in GeoTools). */
export async function parseMosaicDefinition (files: DefinitionFiles): Promise<MosaicSettings & { hasIndexer: boolean }> {
  let props = new Map<string, string>()
  let hasIndexer = false
  if (files.has('indexer.properties')) { props = parseProperties(files.get('indexer.properties')!); hasIndexer = true } else if (files.has('indexer.xml')) { props = await parseIndexerXml(files.get('indexer.xml')!); hasIndexer = true }
  for (const v of props.values()) if (/\$\{/.test(v)) throw InvalidMosaicConfig('indexer settings may not use ${...} substitutions')
  checkIndexerPaths(props)
  const locationAttribute = props.get('LocationAttribute')?.trim() || 'location'
  const schema = parseSchema(props.get('Schema') ?? '*the_geom:Polygon,location:String', locationAttribute)
  const collectors = parseCollectors(props.get('PropertyCollectors') ?? '', files)
  for (const c of collectors) {
    checkRegex(c.regex, `collector ${c.spi}(${c.attribute})`)
    const attr = schema.find((a) => a.name === c.attribute)
    if (!attr) throw InvalidMosaicConfig(`collector ${c.spi} fills ${c.attribute}, which is not in the Schema`)
    const types = COLLECTOR_TYPES[c.spi]
    if (!types) throw InvalidMosaicConfig(`unsupported property collector ${c.spi}`)
    if (!types.includes(attr.type)) throw InvalidMosaicConfig(`collector ${c.spi} cannot fill ${c.attribute} of type ${attr.type}`)
  }
  const dimension = (key: string) => {
    const v = props.get(key)?.trim()
    if (!v) return undefined
    const first = v.split(';')[0].trim()
    if (!schema.some((a) => a.name === first)) throw InvalidMosaicConfig(`${key} ${first} is not in the Schema`)
    return first
  }
  const crsAttribute = bool(props.get('HeterogeneousCRS'), false) ? (props.get('CrsAttribute')?.trim() || 'crs') : undefined
  if (crsAttribute !== undefined) {
    const existing = schema.find((a) => a.name === crsAttribute)
    if (existing && existing.type !== 'String') throw InvalidMosaicConfig(`CrsAttribute ${crsAttribute} must be a String attribute`)
    if (!existing) schema.push({ name: crsAttribute, type: 'String', binding: 'java.lang.String' })
  }
  const wildcard = props.get('Wildcard')?.trim() || '*.*'
  const name = props.get('Name')?.trim() || props.get('TypeName')?.trim() || undefined
  if (name !== undefined && !/^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/.test(name)) throw InvalidMosaicConfig(`bad Name ${JSON.stringify(name)}`)
  return {
    hasIndexer,
    name,
    schema,
    collectors,
    timeAttribute: dimension('TimeAttribute'),
    elevationAttribute: dimension('ElevationAttribute'),
    canBeEmpty: bool(props.get('CanBeEmpty'), false),
    absolutePath: bool(props.get('AbsolutePath'), false),
    recursive: bool(props.get('Recursive'), true),
    wildcard,
    locationAttribute,
    ...(crsAttribute !== undefined ? { crsAttribute } : {}),
    indexStore: checkDatastore(files)
  }
}

/** The settings of a mosaic that has just become heterogeneous: a String attribute `crs` holds
 *  each granule's native CRS. Undefined when the schema already uses that name for something else
 *  (the CRS is then kept in the index only). */
export function withCrsAttribute (settings: MosaicSettings): MosaicSettings | undefined {
  if (settings.crsAttribute !== undefined || settings.schema.some((a) => a.name === 'crs')) return undefined
  return { ...settings, schema: [...settings.schema, { name: 'crs', type: 'String', binding: 'java.lang.String' }], crsAttribute: 'crs' }
}

/** Whether a file name matches the Wildcard setting ('*.tif', '*.*', comma lists). */
export function matchesWildcard (fileName: string, wildcard: string): boolean {
  return wildcard.split(',').map((w) => w.trim()).filter(Boolean).some((w) => {
    const re = new RegExp('^' + w.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$', 'i')
    return re.test(fileName)
  })
}
