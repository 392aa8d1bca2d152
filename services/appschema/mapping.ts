// The offline check of an app-schema mapping (GeoTools' AppSchemaDataAccess configuration, see
// GeoServer's manual "app-schema/mapping-file"). The main file and its includedTypes are parsed
// recursively (cycles refused), every schemaUri and the schemas they include or import are
// resolved inside the upload or the schema cache, each targetElement must be a global element of
// those schemas and each sourceDataStore a data store declared in the same file. Every problem is
// collected with its file and element, so one 400 lists them all.
import path from 'node:path'
import fs from 'node:fs/promises'
import { parseXml, type XmlValue } from '../files/xml.js'
import { isSafeName } from '../files/names.js'
import { InvalidMapping, isMapwardenError } from '../errors.js'
import { child, childText, children, attrs, rootOf, localName, prefixOf, text, xmlnsOf } from '../files/xml-nodes.js'
import { emptyCatalog, readLoc, resolveRef, showLoc, type CatalogRules, type Loc } from './references.js'
import { attributesOf, emptySchemaSet, loadSchema, qkey, type AttributeInfo, type SchemaProblem } from './schemas.js'
import { lonLatBounds, parsePropertyFile, type Bbox } from './properties.js'

export const MAX_MAPPING_FILES = 200

export type Problem = SchemaProblem

export type SourceKind = 'property' | 'database' | 'file' | 'other'

export interface SourceStore {
  id: string
  file: string
  kind: SourceKind
  /** Upload-relative directory of a property-file store. */
  directory?: string
  dbtype?: string
  /** False for sources whose contents cannot be checked offline (databases, JNDI...). */
  checked: boolean
}

export interface FeatureTypeReport {
  name: string
  targetElement: string
  namespaceUri: string
  mappingName?: string
  sourceDataStore: string
  sourceType: string
  sourceKind: SourceKind
  srs?: string
  nativeBbox?: Bbox
  latLonBbox?: Bbox
  /** The mapped geometry's XPath, when the mapping maps one (known once the sources are read). */
  geometry?: string
  attributes: AttributeInfo[]
}

export interface MappingReport {
  mainFile: string
  files: string[]
  schemas: string[]
  sources: SourceStore[]
  /** One per FeatureTypeMapping of the main file, in document order. */
  featureTypes: FeatureTypeReport[]
}

interface RawMapping {
  file: string
  element: string
  mappingName?: string
  targetElement?: string
  sourceDataStore?: string
  sourceType?: string
}

interface MappingDoc {
  rel: string
  root: XmlValue
  namespaces: Map<string, string>
  stores: Map<string, SourceStore>
  mappings: RawMapping[]
}

// Parameters whose value is a file or directory of the source; `file:` values are paths anywhere.
const PATH_PARAMS = new Set(['directory', 'url', 'file', 'filename', 'path'])

export interface CheckOptions {
  /** The staged upload; every relative reference must stay inside it. */
  uploadRoot: string
  /** Upload-relative path of the main mapping file. */
  mainFile: string
  /** `<dataDir>/app-schema-cache`. */
  cacheDir: string
}

export async function checkMapping (opts: CheckOptions): Promise<MappingReport> {
  const problems: Problem[] = []
  const docs = new Map<string, MappingDoc>()
  const order: string[] = []

  const visit = async (rel: string, stack: string[], from?: { file: string, element: string }): Promise<void> => {
    if (stack.includes(rel)) {
      problems.push({ ...from!, message: `include cycle: ${[...stack.slice(stack.indexOf(rel)), rel].join(' -> ')}` })
      return
    }
    if (docs.has(rel)) return
    if (docs.size >= MAX_MAPPING_FILES) { problems.push({ ...from!, message: `more than ${MAX_MAPPING_FILES} mapping files` }); return }
    const read = await readLoc({ kind: 'upload', rel }, opts.uploadRoot, opts.cacheDir)
    if (read.problem !== undefined) { problems.push({ ...(from ?? { file: rel, element: '(document)' }), message: `mapping file ${read.problem}` }); return }
    let rootName: string
    let root: XmlValue
    try {
      [rootName, root] = rootOf(await parseXml(read.text!))
    } catch (err) {
      if (!isMapwardenError(err)) throw err
      problems.push({ file: rel, element: '(document)', message: err.message })
      return
    }
    if (localName(rootName) !== 'AppSchemaDataAccess') {
      problems.push({ file: rel, element: rootName, message: `not an app-schema mapping (root element ${rootName}, expected as:AppSchemaDataAccess)` })
      return
    }
    const doc = parseDoc(rel, root, problems)
    docs.set(rel, doc)
    order.push(rel)
    const includes = children(child(root, 'includedTypes'), 'Include')
    for (let i = 0; i < includes.length; i++) {
      const ref = text(includes[i]) ?? ''
      const element = `includedTypes/Include[${i + 1}] "${ref}"`
      const r = resolveRef(ref, { kind: 'upload', rel })
      if (!r.loc) { problems.push({ file: rel, element, message: r.problem! }); continue }
      if (r.loc.kind !== 'upload') { problems.push({ file: rel, element, message: 'included mapping files must be files of the upload' }); continue }
      await visit(r.loc.rel, [...stack, rel], { file: rel, element })
    }
  }
  await visit(opts.mainFile, [])
  const main = docs.get(opts.mainFile)
  if (!main) throw invalid(problems)

  // OASIS catalogs map remote schema URIs onto files of the upload.
  const catalog = emptyCatalog()
  for (const rel of order) {
    const doc = docs.get(rel)!
    const cat = childText(doc.root, 'catalog')
    if (cat === undefined || cat === '') continue
    const element = `catalog "${cat}"`
    const r = resolveRef(cat, { kind: 'upload', rel })
    if (!r.loc) { problems.push({ file: rel, element, message: r.problem! }); continue }
    if (r.loc.kind !== 'upload') { problems.push({ file: rel, element, message: 'the catalog must be a file of the upload' }); continue }
    await readCatalog(r.loc, opts, catalog, problems)
  }

  // Schemas named by every file's targetTypes, with their includes and imports.
  const set = emptySchemaSet()
  for (const rel of order) {
    const doc = docs.get(rel)!
    const uris = children(child(doc.root, 'targetTypes'), 'FeatureType').map((ft) => childText(ft, 'schemaUri'))
    for (let i = 0; i < uris.length; i++) {
      const uri = uris[i] ?? ''
      const element = `targetTypes/FeatureType[${i + 1}]/schemaUri "${uri}"`
      const r = resolveRef(uri, { kind: 'upload', rel }, catalog)
      if (!r.loc) { problems.push({ file: rel, element, message: r.problem! }); continue }
      await loadSchema({ uploadRoot: opts.uploadRoot, cacheDir: opts.cacheDir, catalog, set, problems }, r.loc, { file: rel, element })
    }
  }

  // Type mappings: target elements, source stores, feature type names (main file only).
  const featureTypes: FeatureTypeReport[] = []
  const names = new Set<string>()
  for (const rel of order) {
    const doc = docs.get(rel)!
    if (rel === opts.mainFile && doc.mappings.length === 0) {
      problems.push({ file: rel, element: 'typeMappings', message: 'the main mapping file declares no FeatureTypeMapping' })
    }
    for (const m of doc.mappings) {
      const where = { file: m.file, element: m.element }
      if (!m.sourceType) problems.push({ ...where, message: 'sourceType is missing' })
      const store = m.sourceDataStore ? doc.stores.get(m.sourceDataStore) : undefined
      if (!m.sourceDataStore) problems.push({ ...where, message: 'sourceDataStore is missing' })
      else if (!store) problems.push({ ...where, message: `sourceDataStore "${m.sourceDataStore}" is not a data store declared in ${rel} (declared: ${[...doc.stores.keys()].join(', ') || 'none'})` })
      if (!m.targetElement) { problems.push({ ...where, message: 'targetElement is missing' }); continue }
      const prefix = prefixOf(m.targetElement)
      const ns = doc.namespaces.get(prefix) ?? main.namespaces.get(prefix)
      if (ns === undefined) {
        problems.push({ ...where, message: `targetElement ${m.targetElement}: namespace prefix "${prefix}" is not declared in namespaces` })
        continue
      }
      const local = localName(m.targetElement)
      const decl = set.elements.get(qkey(ns, local))
      if (!decl) {
        problems.push({ ...where, message: `targetElement ${m.targetElement} ({${ns}}${local}) is not a global element of the resolved schemas` })
        continue
      }
      if (rel !== opts.mainFile) continue // included files hold non-feature types
      const name = m.mappingName ?? local
      if (!isSafeName(name)) { problems.push({ ...where, message: `feature type name ${JSON.stringify(name)} is not a valid name` }); continue }
      if (names.has(name)) { problems.push({ ...where, message: `feature type ${name} is exposed by two mappings; give one a distinct mappingName` }); continue }
      names.add(name)
      const ft: FeatureTypeReport = {
        name,
        targetElement: m.targetElement,
        namespaceUri: ns,
        ...(m.mappingName !== undefined ? { mappingName: m.mappingName } : {}),
        sourceDataStore: m.sourceDataStore ?? '',
        sourceType: m.sourceType ?? '',
        sourceKind: store?.kind ?? 'other',
        attributes: attributesOf(set, decl)
      }
      if (store?.kind === 'property' && m.sourceType) await readPropertySource(opts.uploadRoot, store, m, ft, problems)
      featureTypes.push(ft)
    }
  }

  if (problems.length > 0) throw invalid(problems)
  return {
    mainFile: opts.mainFile,
    files: order,
    schemas: [...new Set([...set.docs.values()].map((d) => showLoc(d.loc)))],
    sources: order.flatMap((rel) => [...docs.get(rel)!.stores.values()]),
    featureTypes
  }
}

function invalid (problems: Problem[]) {
  const lines = problems.map((p) => `- ${p.file}: ${p.element}: ${p.message}`)
  return InvalidMapping(problems.length, problems.length === 1 ? '' : 's', lines.join('\n'))
}

function parseDoc (rel: string, root: XmlValue, problems: Problem[]): MappingDoc {
  const namespaces = new Map<string, string>()
  for (const [p, uri] of xmlnsOf(root)) namespaces.set(p, uri)
  for (const ns of children(child(root, 'namespaces'), 'Namespace')) {
    const prefix = childText(ns, 'prefix')
    const uri = childText(ns, 'uri')
    if (prefix === undefined || !uri) { problems.push({ file: rel, element: 'namespaces/Namespace', message: 'a Namespace needs a prefix and a uri' }); continue }
    namespaces.set(prefix, uri)
  }
  const stores = new Map<string, SourceStore>()
  const declared = children(child(root, 'sourceDataStores'), 'DataStore')
  for (let i = 0; i < declared.length; i++) {
    const ds = declared[i]
    const id = childText(ds, 'id')
    const element = `sourceDataStores/DataStore[${i + 1}]${id ? ` "${id}"` : ''}`
    if (!id) { problems.push({ file: rel, element, message: 'a DataStore needs an id' }); continue }
    if (stores.has(id)) { problems.push({ file: rel, element, message: `data store id "${id}" declared twice` }); continue }
    stores.set(id, classifyStore(rel, id, element, ds, problems))
  }
  const mappings: RawMapping[] = children(child(root, 'typeMappings'), 'FeatureTypeMapping').map((m, i) => {
    const targetElement = childText(m, 'targetElement')
    const mappingName = childText(m, 'mappingName')
    return {
      file: rel,
      element: `typeMappings/FeatureTypeMapping[${i + 1}]${targetElement ? ` (${targetElement})` : ''}`,
      ...(mappingName ? { mappingName } : {}),
      targetElement: targetElement || undefined,
      sourceDataStore: childText(m, 'sourceDataStore') || undefined,
      sourceType: childText(m, 'sourceType') || undefined
    }
  })
  return { rel, root, namespaces, stores, mappings }
}

function classifyStore (rel: string, id: string, element: string, ds: XmlValue, problems: Problem[]): SourceStore {
  const params = new Map<string, string>()
  for (const p of children(child(ds, 'parameters'), 'Parameter')) {
    const name = childText(p, 'name')
    if (name) params.set(name, childText(p, 'value') ?? '')
  }
  let directory: string | undefined
  let pathOk = true
  for (const [name, value] of params) {
    if (!PATH_PARAMS.has(name.toLowerCase()) && !/^file:/i.test(value)) continue
    const where = { file: rel, element: `${element}/parameters/Parameter "${name}"` }
    if (value.includes('${')) { problems.push({ ...where, message: `${JSON.stringify(value)}: placeholders cannot be checked offline; give a path inside the upload` }); pathOk = false; continue }
    const r = resolveRef(value, { kind: 'upload', rel })
    if (!r.loc) { problems.push({ ...where, message: r.problem! }); pathOk = false; continue }
    if (r.loc.kind !== 'upload') { problems.push({ ...where, message: `${JSON.stringify(value)}: source data must be files of the upload` }); pathOk = false; continue }
    if (name.toLowerCase() === 'directory') directory = r.loc.rel
  }
  const dbtype = params.get('dbtype')
  if (directory !== undefined && pathOk) return { id, file: rel, kind: 'property', directory, checked: true }
  if (dbtype !== undefined || params.has('jndiReferenceName')) return { id, file: rel, kind: 'database', dbtype: dbtype ?? 'jndi', checked: false }
  if ([...params.keys()].some((k) => PATH_PARAMS.has(k.toLowerCase()))) return { id, file: rel, kind: 'file', checked: false }
  return { id, file: rel, kind: 'other', checked: false }
}

async function readPropertySource (root: string, store: SourceStore, m: RawMapping, ft: FeatureTypeReport, problems: Problem[]): Promise<void> {
  const where = { file: m.file, element: m.element }
  if (!isSafeName(m.sourceType)) { problems.push({ ...where, message: `sourceType ${JSON.stringify(m.sourceType)} is not a valid property file name` }); return }
  const rel = path.posix.join(store.directory!, `${m.sourceType}.properties`)
  const file = path.join(root, rel)
  const st = await fs.lstat(file).catch(() => undefined)
  if (!st || !st.isFile()) { problems.push({ ...where, message: `sourceType ${m.sourceType}: ${rel} is not a file of the upload (data store "${store.id}")` }); return }
  const info = parsePropertyFile(await fs.readFile(file, 'utf8'))
  if (info.problem) { problems.push({ file: rel, element: '(document)', message: info.problem }); return }
  if (info.srid !== undefined) {
    ft.srs = `EPSG:${info.srid}`
    if (info.bbox) {
      ft.nativeBbox = info.bbox
      const ll = lonLatBounds(info.srid, info.bbox)
      if (ll) ft.latLonBbox = ll
    }
  }
}

async function readCatalog (loc: Loc, opts: CheckOptions, catalog: CatalogRules, problems: Problem[]): Promise<void> {
  const file = showLoc(loc)
  const read = await readLoc(loc, opts.uploadRoot, opts.cacheDir)
  if (read.problem !== undefined) { problems.push({ file, element: '(document)', message: `catalog ${read.problem}` }); return }
  let root: XmlValue
  try {
    [, root] = rootOf(await parseXml(read.text!))
  } catch (err) {
    if (!isMapwardenError(err)) throw err
    problems.push({ file, element: '(document)', message: err.message })
    return
  }
  const target = (ref: string, element: string): Loc | undefined => {
    const r = resolveRef(ref, loc)
    if (!r.loc) { problems.push({ file, element, message: r.problem! }); return undefined }
    return r.loc
  }
  const walk = (node: XmlValue, depth: number) => {
    if (depth > 8) return
    for (const u of [...children(node, 'uri'), ...children(node, 'system')]) {
      const a = attrs(u)
      const from = a.name ?? a.systemId
      const to = a.uri && target(a.uri, `uri "${from}"`)
      if (from && to) catalog.exact.set(from, to)
    }
    for (const u of [...children(node, 'rewriteURI'), ...children(node, 'rewriteSystem')]) {
      const a = attrs(u)
      const from = a.uriStartString ?? a.systemIdStartString
      const to = a.rewritePrefix && target(a.rewritePrefix.endsWith('/') ? a.rewritePrefix : a.rewritePrefix + '/', `rewrite "${from}"`)
      if (from && to) catalog.prefixes.push({ from, to })
    }
    for (const g of children(node, 'group')) walk(g, depth + 1)
  }
  walk(root, 0)
}
