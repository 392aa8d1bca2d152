// Loads the XML schemas a mapping names (targetTypes/FeatureType/schemaUri) and everything they
// pull in by xs:include, xs:redefine and xs:import, from the upload or the schema cache only.
// Schemas may include each other (legal in XSD): each document is read once. The result indexes
// global elements and named types by {namespace}local, which is what a targetElement must match.
import { parseXml, type XmlValue } from '../files/xml.js'
import { isMapwardenError } from '../errors.js'
import { attrs, child, children, rootOf, localName, prefixOf, xmlnsOf } from '../files/xml-nodes.js'
import { locKey, readLoc, resolveRef, showLoc, type CatalogRules, type Loc } from './references.js'

export const XSD_NS = 'http://www.w3.org/2001/XMLSchema'
export const MAX_SCHEMAS = 500

export interface SchemaDoc {
  loc: Loc
  targetNamespace: string
  /** prefix -> namespace URI, as declared on the schema element */
  prefixes: Map<string, string>
  /** prefixes bound to the XSD namespace */
  xs: Set<string>
  root: XmlValue
}

export interface Declaration { doc: SchemaDoc, node: XmlValue }

export interface SchemaSet {
  docs: Map<string, SchemaDoc>
  elements: Map<string, Declaration>
  types: Map<string, Declaration>
}

export interface SchemaProblem { file: string, element: string, message: string }

export function qkey (ns: string, local: string): string { return `{${ns}}${local}` }

export function emptySchemaSet (): SchemaSet {
  return { docs: new Map(), elements: new Map(), types: new Map() }
}

export interface LoadContext {
  uploadRoot: string
  cacheDir: string
  catalog?: CatalogRules
  set: SchemaSet
  problems: SchemaProblem[]
}

/**
 * Loads one schema (and its graph). `chameleonNs` is the includer's namespace for an included
 * schema without a targetNamespace. `from` names the referencing file and element for messages.
 */
export async function loadSchema (ctx: LoadContext, loc: Loc, from: { file: string, element: string }, chameleonNs?: string): Promise<void> {
  // A schema with a targetNamespace is read once; one without (a chameleon) once per includer namespace.
  const plain = locKey(loc)
  if (ctx.set.docs.has(plain) || ctx.set.docs.has(`${plain}#${chameleonNs ?? ''}`)) return
  if (ctx.set.docs.size >= MAX_SCHEMAS) {
    ctx.problems.push({ ...from, message: `more than ${MAX_SCHEMAS} schema documents; refusing to load ${showLoc(loc)}` })
    return
  }
  const read = await readLoc(loc, ctx.uploadRoot, ctx.cacheDir)
  if (read.problem !== undefined) { ctx.problems.push({ ...from, message: `schema ${read.problem}` }); return }
  let root: XmlValue
  let rootName: string
  try {
    [rootName, root] = rootOf(await parseXml(read.text!))
  } catch (err) {
    if (!isMapwardenError(err)) throw err
    ctx.problems.push({ file: showLoc(loc), element: '(document)', message: err.message })
    return
  }
  const prefixes = xmlnsOf(root)
  const xs = new Set([...prefixes].filter(([, uri]) => uri === XSD_NS).map(([p]) => p))
  if (localName(rootName) !== 'schema' || !xs.has(prefixOf(rootName))) {
    ctx.problems.push({ file: showLoc(loc), element: rootName, message: `not an XML schema (root element ${rootName})` })
    return
  }
  const declared = attrs(root).targetNamespace
  const doc: SchemaDoc = { loc, targetNamespace: declared ?? chameleonNs ?? '', prefixes, xs, root }
  ctx.set.docs.set(declared !== undefined ? plain : `${plain}#${chameleonNs ?? ''}`, doc)
  for (const el of children(root, 'element', xs)) {
    const name = attrs(el).name
    if (name && !ctx.set.elements.has(qkey(doc.targetNamespace, name))) ctx.set.elements.set(qkey(doc.targetNamespace, name), { doc, node: el })
  }
  for (const kind of ['complexType', 'simpleType']) {
    for (const t of children(root, kind, xs)) {
      const name = attrs(t).name
      if (name && !ctx.set.types.has(qkey(doc.targetNamespace, name))) ctx.set.types.set(qkey(doc.targetNamespace, name), { doc, node: t })
    }
  }
  const file = showLoc(loc)
  for (const kind of ['include', 'redefine', 'import']) {
    for (const ref of children(root, kind, xs)) {
      const at = attrs(ref).schemaLocation
      const element = `xs:${kind}${at ? ` schemaLocation="${at}"` : ''}`
      if (!at) {
        if (kind !== 'import') ctx.problems.push({ file, element, message: `xs:${kind} without schemaLocation` })
        continue // an import by namespace only: nothing to read
      }
      const r = resolveRef(at, loc, ctx.catalog)
      if (!r.loc) { ctx.problems.push({ file, element, message: r.problem! }); continue }
      await loadSchema(ctx, r.loc, { file, element }, kind === 'import' ? undefined : doc.targetNamespace)
    }
  }
}

/** Resolves a QName written in a schema document through its prefixes. */
export function resolveQName (doc: SchemaDoc, qname: string): { ns: string, local: string } | undefined {
  const p = prefixOf(qname)
  const ns = doc.prefixes.get(p)
  if (ns === undefined) return p === '' ? { ns: '', local: qname } : undefined
  return { ns, local: localName(qname) }
}

export interface AttributeInfo {
  name: string
  minOccurs: number
  maxOccurs: number
  nillable: boolean
  binding?: string
}

const BINDINGS: Record<string, string> = {
  string: 'java.lang.String',
  normalizedString: 'java.lang.String',
  token: 'java.lang.String',
  anyURI: 'java.net.URI',
  boolean: 'java.lang.Boolean',
  int: 'java.lang.Integer',
  integer: 'java.math.BigInteger',
  long: 'java.lang.Long',
  short: 'java.lang.Short',
  decimal: 'java.math.BigDecimal',
  double: 'java.lang.Double',
  float: 'java.lang.Float',
  date: 'java.sql.Date',
  dateTime: 'java.sql.Timestamp',
  time: 'java.sql.Time'
}
const GML_NS = /^http:\/\/www\.opengis\.net\/gml(\/3\.2)?$/
const GEOMETRY_TYPES = /^(Geometry|Point|MultiPoint|Curve|LineString|MultiCurve|MultiLineString|Surface|Polygon|MultiSurface|MultiPolygon|MultiGeometry)PropertyType$/

function bindingOf (doc: SchemaDoc, type: string | undefined): string | undefined {
  if (!type) return undefined
  const q = resolveQName(doc, type)
  if (!q) return undefined
  if (q.ns === XSD_NS) return BINDINGS[q.local]
  if (GML_NS.test(q.ns) && GEOMETRY_TYPES.test(q.local)) return 'org.locationtech.jts.geom.Geometry'
  return undefined
}

function occurs (v: string | undefined, dflt: number): number {
  if (v === undefined) return dflt
  if (v === 'unbounded') return 2147483647
  const n = Number(v)
  return Number.isInteger(n) && n >= 0 ? n : dflt
}

/**
 * The properties of a global element as the schema declares them: the element particles of its
 * complex type, after those of the base types that resolve (gml:AbstractFeatureType usually does
 * not, as only a stand-in is cached; that is fine, its gml properties are not listed).
 */
export function attributesOf (set: SchemaSet, decl: Declaration): AttributeInfo[] {
  const { doc, node } = decl
  const out: AttributeInfo[] = []
  const typeName = attrs(node).type
  let typeDecl: Declaration | undefined
  const anonymous = child(node, 'complexType', doc.xs)
  if (anonymous !== undefined) typeDecl = { doc, node: anonymous }
  else if (typeName) {
    const q = resolveQName(doc, typeName)
    if (q) typeDecl = set.types.get(qkey(q.ns, q.local))
  }
  if (typeDecl) collectType(set, typeDecl, out, 0)
  return out
}

function collectType (set: SchemaSet, t: Declaration, out: AttributeInfo[], depth: number): void {
  if (depth > 16) return
  const { doc, node } = t
  const content = child(node, 'complexContent', doc.xs)
  if (content !== undefined) {
    for (const kind of ['extension', 'restriction']) {
      for (const ext of children(content, kind, doc.xs)) {
        const base = attrs(ext).base
        const q = base ? resolveQName(doc, base) : undefined
        const baseDecl = q ? set.types.get(qkey(q.ns, q.local)) : undefined
        if (baseDecl && kind === 'extension') collectType(set, baseDecl, out, depth + 1)
        collectParticles(doc, ext, out, depth)
      }
    }
    return
  }
  collectParticles(doc, node, out, depth)
}

function collectParticles (doc: SchemaDoc, node: XmlValue, out: AttributeInfo[], depth: number): void {
  if (depth > 32) return
  for (const group of ['sequence', 'choice', 'all']) {
    for (const g of children(node, group, doc.xs)) {
      for (const el of children(g, 'element', doc.xs)) {
        const a = attrs(el)
        const name = a.name ?? (a.ref ? localName(a.ref) : undefined)
        if (!name) continue
        const info: AttributeInfo = {
          name,
          minOccurs: occurs(a.minOccurs, 1),
          maxOccurs: occurs(a.maxOccurs, 1),
          nillable: a.nillable === 'true'
        }
        const binding = bindingOf(doc, a.type)
        if (binding) info.binding = binding
        out.push(info)
      }
      collectParticles(doc, g, out, depth + 1)
    }
  }
}
