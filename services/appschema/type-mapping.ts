// A stored mapping read for execution (GeoServer's manual, app-schema "mapping-file"): the
// namespaces, the source data stores with their parameters, and every FeatureTypeMapping of the
// main file and its includes, with each AttributeMapping's targetAttribute as XPath steps
// (`gsml:eventAge/gsml:CGI_TermValue/gsml:value`, indexed `gml:name[2]`), its OCQL expressions
// parsed, its ClientProperty list, isMultiple, isList, encodeIfEmpty and feature-chaining link.
// The upload was checked offline (mapping.ts) before it was stored, so paths here stay inside it.
import fs from 'node:fs/promises'
import path from 'node:path'
import { parseXml, type XmlValue } from '../files/xml.js'
import { child, childText, children, rootOf, localName, prefixOf, text, xmlnsOf } from '../files/xml-nodes.js'
import { InvalidMapping } from '../errors.js'
import { resolveRef } from './references.js'
import { mappingExpression, type Expr } from './ocql.js'

export interface Step { prefix: string, local: string, index?: number }

export interface AttributeMapping {
  /** XPath steps below the feature element; empty for the feature element itself. */
  target: Step[]
  targetText: string
  idExpression?: Expr
  sourceExpression?: Expr
  /** Feature chaining: the nested feature's mapping (its targetElement or mappingName) and the
   *  field of that mapping matched against sourceExpression (`FEATURE_LINK`, `FEATURE_LINK[2]`). */
  link?: { element: string, field: string }
  clientProperties: Array<{ name: string, expr: Expr }>
  isMultiple: boolean
  isList: boolean
  encodeIfEmpty: boolean
  targetAttributeNode?: string
}

export interface TypeMapping {
  file: string
  /** mappingName, else targetElement: how chaining names it. */
  key: string
  mappingName?: string
  targetElement: string
  sourceDataStore: string
  sourceType: string
  isDenormalised: boolean
  /** The feature id (idExpression of the AttributeMapping of the targetElement itself). */
  idExpression?: Expr
  attributes: AttributeMapping[]
  /** Source fields a chained parent links by: FEATURE_LINK[n] -> expression. */
  linkFields: Map<string, Expr>
}

export interface DataStoreDecl { id: string, file: string, params: Map<string, string> }

export interface LoadedMapping {
  /** Upload-relative directory of the stored files. */
  root: string
  namespaces: Map<string, string>
  stores: Map<string, DataStoreDecl>
  mappings: TypeMapping[]
  /** targetElement and mappingName -> mapping. */
  byKey: Map<string, TypeMapping>
  /** schemaUri values of the main file (resolved later against the upload or cache). */
  schemaUris: string[]
}

const bool = (v: string | undefined, dflt: boolean) => v === undefined || v === '' ? dflt : v.trim().toLowerCase() === 'true'

export function parseSteps (xpath: string): Step[] {
  const out: Step[] = []
  for (const raw of xpath.trim().split('/')) {
    const s = raw.trim()
    if (s === '' || s === '.') continue
    const m = /^([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)(?:\[(\d+)\])?$/.exec(s)
    if (!m) throw new Error(`"${s}" is not a step of an XPath (prefix:name or prefix:name[n])`)
    out.push({ prefix: m[1] ? m[1].slice(0, -1) : '', local: m[2], ...(m[3] ? { index: Number(m[3]) } : {}) })
  }
  return out
}

const ocql = (node: XmlValue | undefined): string | undefined => {
  const t = childText(node, 'OCQL')
  return t === undefined || t === '' ? undefined : t
}

/** Reads the stored mapping at `<dir>/<mainFile>` and its includes. */
export async function loadMapping (dir: string, mainFile: string): Promise<LoadedMapping> {
  const namespaces = new Map<string, string>()
  const stores = new Map<string, DataStoreDecl>()
  const mappings: TypeMapping[] = []
  const schemaUris: string[] = []
  const seen = new Set<string>()
  const problems: string[] = []
  const visit = async (rel: string) => {
    if (seen.has(rel)) return
    seen.add(rel)
    const [, root] = rootOf(await parseXml(await fs.readFile(path.join(dir, rel), 'utf8')))
    for (const [p, uri] of xmlnsOf(root)) if (!namespaces.has(p)) namespaces.set(p, uri)
    for (const ns of children(child(root, 'namespaces'), 'Namespace')) {
      const prefix = childText(ns, 'prefix')
      const uri = childText(ns, 'uri')
      if (prefix !== undefined && uri) namespaces.set(prefix, uri)
    }
    for (const ds of children(child(root, 'sourceDataStores'), 'DataStore')) {
      const id = childText(ds, 'id')
      if (!id) continue
      const params = new Map<string, string>()
      for (const p of children(child(ds, 'parameters'), 'Parameter')) {
        const name = childText(p, 'name')
        if (name) params.set(name, childText(p, 'value') ?? '')
      }
      // Store ids are per file in GeoTools; the first declaration of an id wins here.
      if (!stores.has(id)) stores.set(id, { id, file: rel, params })
    }
    if (rel === mainFile) for (const ft of children(child(root, 'targetTypes'), 'FeatureType')) schemaUris.push(childText(ft, 'schemaUri') ?? '')
    children(child(root, 'typeMappings'), 'FeatureTypeMapping').forEach((m, i) => {
      const element = `typeMappings/FeatureTypeMapping[${i + 1}]`
      try { mappings.push(typeMapping(rel, element, m)) } catch (err) {
        if ((err as { code?: string }).code === 'MW_APPSCHEMA_INVALID_MAPPING') throw err
        problems.push(`- ${rel}: ${element}: ${(err as Error).message}`)
      }
    })
    for (const inc of children(child(root, 'includedTypes'), 'Include')) {
      const r = resolveRef(text(inc) ?? '', { kind: 'upload', rel })
      if (r.loc?.kind === 'upload') await visit(r.loc.rel)
    }
  }
  await visit(mainFile)
  if (problems.length > 0) throw InvalidMapping(problems.length, problems.length === 1 ? '' : 's', problems.join('\n'))
  const byKey = new Map<string, TypeMapping>()
  for (const m of mappings) {
    if (!byKey.has(m.targetElement)) byKey.set(m.targetElement, m)
    if (m.mappingName) byKey.set(m.mappingName, m)
  }
  return { root: dir, namespaces, stores, mappings, byKey, schemaUris }
}

function typeMapping (file: string, element: string, m: XmlValue): TypeMapping {
  const targetElement = childText(m, 'targetElement') ?? ''
  const mappingName = childText(m, 'mappingName') || undefined
  const attributes: AttributeMapping[] = []
  const linkFields = new Map<string, Expr>()
  let idExpression: Expr | undefined
  children(child(m, 'attributeMappings'), 'AttributeMapping').forEach((a, j) => {
    const targetText = childText(a, 'targetAttribute') ?? ''
    const where = `${element}/attributeMappings/AttributeMapping[${j + 1}] (${targetText})`
    let target: Step[]
    try { target = parseSteps(targetText) } catch (err) { throw new Error(`${where}: ${(err as Error).message}`) }
    // The feature element itself (or an XPath naming it first) is dropped from the steps.
    if (target.length > 0 && `${target[0].prefix}:${target[0].local}` === targetElement) target = target.slice(1)
    const idText = ocql(child(a, 'idExpression'))
    const source = child(a, 'sourceExpression')
    const sourceText = ocql(source)
    const linkElement = childText(source, 'linkElement')
    const linkField = childText(source, 'linkField')
    const expr = (t: string, what: string) => mappingExpression(t, file, `${where} ${what}`)
    if (target.length > 0 && /^FEATURE_LINK(\[\d+\])?$/.test(targetText.trim())) {
      // A chained type's link field: `<targetAttribute>FEATURE_LINK[1]</targetAttribute>`.
      if (sourceText) linkFields.set(targetText.trim().replace(/\[1\]$/, ''), expr(sourceText, 'sourceExpression'))
      return
    }
    const am: AttributeMapping = {
      target,
      targetText,
      ...(idText ? { idExpression: expr(idText, 'idExpression') } : {}),
      ...(sourceText ? { sourceExpression: expr(sourceText, 'sourceExpression') } : {}),
      ...(linkElement ? { link: { element: linkElement, field: (linkField ?? 'FEATURE_LINK').replace(/\[1\]$/, '') } } : {}),
      clientProperties: children(a, 'ClientProperty').map((c) => {
        const name = childText(c, 'name') ?? ''
        const value = childText(c, 'value') ?? ''
        if (!/^([A-Za-z_][\w.-]*:)?[A-Za-z_][\w.-]*$/.test(name)) throw new Error(`${where}: ClientProperty name ${JSON.stringify(name)} is not an attribute name`)
        return { name, expr: expr(value, `ClientProperty ${name}`) }
      }),
      isMultiple: bool(childText(a, 'isMultiple'), false),
      isList: bool(childText(a, 'isList'), false),
      encodeIfEmpty: bool(childText(a, 'encodeIfEmpty'), false),
      ...(childText(a, 'targetAttributeNode') ? { targetAttributeNode: childText(a, 'targetAttributeNode') } : {})
    }
    if (target.length === 0 && am.idExpression) { idExpression = am.idExpression; if (am.clientProperties.length === 0 && !am.sourceExpression) return }
    attributes.push(am)
  })
  return {
    file,
    key: mappingName ?? targetElement,
    ...(mappingName ? { mappingName } : {}),
    targetElement,
    sourceDataStore: childText(m, 'sourceDataStore') ?? '',
    sourceType: childText(m, 'sourceType') ?? '',
    isDenormalised: bool(childText(m, 'isDenormalised'), false),
    ...(idExpression ? { idExpression } : {}),
    attributes,
    linkFields
  }
}

export { localName, prefixOf }
