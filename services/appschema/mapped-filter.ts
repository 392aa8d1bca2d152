// Filters on a mapped type's XPaths (`gml:name = 'x'`, BBOX(gsml:shape, ...), resource ids,
// `gsml:specification/gsml:GeologicUnit/gml:name = 'x'`, `gml:name/@codeSpace`), read by the WFS's
// own parsers (ECQL with XPath attribute paths, OGC/FES XML) against every XPath the mapping writes:
// its AttributeMappings, their ClientProperty attributes (`.../@name`) and, through feature
// chaining, the XPaths of the chained features below the linking property (three levels deep).
// The filter is then split: the AND-ed parts that name only XPaths mapped to a plain column of the
// mapping's own source are renamed to the columns and go to the source (SQL on PostGIS/GeoPackage,
// evaluated on the rows of a property file); the rest (chained XPaths, computed values, client
// properties, ORs mixing both) is evaluated after the read on the built feature (complex-features.ts
// `postMatches`), a property with several values matching where any of them does (GeoTools' ANY).
import { parseEcql, type FilterAttribute } from '../filters/ecql.js'
import { parseOgcFilter } from '../filters/ogc-xml.js'
import { allOf, type Expression, type Filter } from '../filters/tree.js'
import type { XmlElement } from '../files/xml.js'
import { plainAttribute } from './ocql.js'
import type { RowSource } from './row-sources.js'
import type { AttributeMapping, LoadedMapping, Step, TypeMapping } from './type-mapping.js'

export type MappedQueryFilter = { kind: 'cql', text: string } | { kind: 'xml', el: XmlElement }

/** A query's filter split: `sql` on the source's columns, `post` on the built feature's XPaths. */
export interface Selection { sql?: Filter, post?: Filter }

/** How deep chained features' XPaths are offered to filters. */
const CHAIN_DEPTH = 3

const stepName = (s: Step) => `${s.prefix ? `${s.prefix}:` : ''}${s.local}${s.index !== undefined ? `[${s.index}]` : ''}`

export interface FilterContext {
  mapping: LoadedMapping
  sourceOf (m: TypeMapping): RowSource
}

/** Every XPath of `m` a filter may name with its filter type, chained features' below their link. */
async function xpathsOf (ctx: FilterContext, m: TypeMapping, prefix: string, depth: number, chain: Set<string>, out: Map<string, string>): Promise<void> {
  const kinds = await ctx.sourceOf(m).kinds(m.sourceType)
  const kindOf = (name: string | undefined) => {
    if (!name) return 'String'
    for (const [k, v] of kinds) if (k === name || k.toLowerCase() === name.toLowerCase()) return v
    return 'String'
  }
  for (const am of m.attributes) {
    if (am.target.length === 0) continue
    const path = prefix + am.target.map(stepName).join('/')
    if (am.link) {
      const child = ctx.mapping.byKey.get(am.link.element)
      if (child && depth < CHAIN_DEPTH && !chain.has(child.key)) {
        await xpathsOf(ctx, child, `${path}/${child.targetElement}/`, depth + 1, new Set([...chain, child.key]), out)
      }
      continue
    }
    if (!out.has(path)) out.set(path, kindOf(am.sourceExpression ? plainAttribute(am.sourceExpression) : undefined))
    for (const c of am.clientProperties) if (!out.has(`${path}/@${c.name}`)) out.set(`${path}/@${c.name}`, kindOf(plainAttribute(c.expr)))
  }
}

/** The properties a filter node names (spatial ones by their geometry's name). */
export function namesOf (f: Filter): string[] {
  const e = (x: Expression) => x.k === 'property' ? [x.name] : []
  switch (f.k) {
    case 'and': case 'or': return [...namesOf(f.a), ...namesOf(f.b)]
    case 'not': return namesOf(f.a)
    case 'cmp': return [...e(f.l), ...e(f.r)]
    case 'between': return [...e(f.e), ...e(f.lo), ...e(f.hi)]
    case 'like': case 'null': return e(f.e)
    case 'in': return [...e(f.e), ...f.list.flatMap(e)]
    case 'spatial': return [f.name]
    default: return []
  }
}

/** The conjuncts of an AND tree. */
const conjuncts = (f: Filter): Filter[] => f.k === 'and' ? [...conjuncts(f.a), ...conjuncts(f.b)] : [f]

/** The XPath a filter, a sortBy or a propertyName names an attribute mapping by (`gml:name`, `a/b[2]/c`). */
export const xpathOf = (am: AttributeMapping): string => am.target.map(stepName).join('/')

/** What a mapping's plain columns are: XPath -> column, each column's filter type, a lookup of a
 *  source attribute's column (case-insensitive) and the first mapped geometry (XPath and column). */
export interface MappedColumns {
  columns: Map<string, string>
  kinds: Map<string, string>
  column: (name: string) => string | undefined
  geometry?: { xpath: string, column: string }
}

/** The mapped XPaths that are a plain source attribute: XPath -> column, and the column's filter type. */
export async function mappedColumns (m: TypeMapping, source: RowSource): Promise<MappedColumns> {
  const kinds = await source.kinds(m.sourceType)
  const column = (name: string) => [...kinds.keys()].find((c) => c === name) ?? [...kinds.keys()].find((c) => c.toLowerCase() === name.toLowerCase())
  const columns = new Map<string, string>()
  for (const am of m.attributes) {
    const src = am.sourceExpression && !am.link && am.target.length > 0 ? plainAttribute(am.sourceExpression) : undefined
    const col = src ? column(src) : undefined
    const name = xpathOf(am)
    if (col && !columns.has(name)) columns.set(name, col)
  }
  const g = [...columns].find(([, c]) => kinds.get(c) === 'Geometry')
  return { columns, kinds, column, ...(g ? { geometry: { xpath: g[0], column: g[1] } } : {}) }
}

export async function mappedFilter (m: TypeMapping, ctx: FilterContext, filters: MappedQueryFilter[], ids: string[] | undefined, crs: string, mapped?: MappedColumns): Promise<Selection> {
  if (filters.length === 0 && !ids) return {}
  // XPaths mapped to a plain column of this mapping's own source: what SQL can answer.
  const { columns, column, geometry } = mapped ?? await mappedColumns(m, ctx.sourceOf(m))
  const xpaths = new Map<string, string>()
  await xpathsOf(ctx, m, '', 0, new Set([m.key]), xpaths)
  const attributes: FilterAttribute[] = [...xpaths].map(([name, type]) => ({ name, type }))
  const idColumn = m.idExpression && plainAttribute(m.idExpression) ? column(plainAttribute(m.idExpression)!) : undefined
  const schema = { attributes, crs, paths: true }
  const parsed: Filter[] = filters.map((f) => f.kind === 'cql' ? parseEcql(f.text, schema) : parseOgcFilter(f.el, { ...schema, localId: (id) => id, xpaths: true }))
  if (ids) parsed.push({ k: 'fid', ids })

  // XPaths with several values a feature (isMultiple on a denormalised source): a comparison holds
  // where one value matches (ANY) on the built feature as on the rows, but its negation holds where
  // no value matches, which rows cannot say (a row that does not match is not a feature none of
  // whose rows does): a NOT naming one is evaluated after the read, as GeoTools evaluates it.
  const multiple = new Set(m.isDenormalised ? m.attributes.filter((am) => am.isMultiple).map(xpathOf) : [])
  /** Whether the source can answer the node: every name a column, ids on the id column. */
  const sqlable = (f: Filter): boolean => {
    if (f.k === 'and' || f.k === 'or') return sqlable(f.a) && sqlable(f.b)
    if (f.k === 'not') return !namesOf(f.a).some((n) => multiple.has(n)) && sqlable(f.a)
    if (f.k === 'fid') return idColumn !== undefined
    if (f.k === 'bbox') return geometry !== undefined
    return namesOf(f).every((n) => columns.has(n))
  }
  const rename = (e: Expression): Expression => e.k === 'property' ? { k: 'property', name: columns.get(e.name) ?? e.name } : e
  const walk = (f: Filter): Filter => {
    switch (f.k) {
      case 'and': case 'or': return { k: f.k, a: walk(f.a), b: walk(f.b) }
      case 'not': return { k: 'not', a: walk(f.a) }
      case 'cmp': return { ...f, l: rename(f.l), r: rename(f.r) }
      case 'between': return { ...f, e: rename(f.e), lo: rename(f.lo), hi: rename(f.hi) }
      case 'like': return { ...f, e: rename(f.e) }
      case 'in': return { ...f, e: rename(f.e), list: f.list.map(rename) }
      case 'null': return { ...f, e: rename(f.e) }
      case 'spatial': return { ...f, name: columns.get(f.name) ?? f.name }
      // A feature's id is its idExpression's column.
      case 'fid': return f.ids.length === 0 ? { k: 'const', v: false } : { k: 'in', e: { k: 'property', name: idColumn! }, list: f.ids.map((v) => ({ k: 'value', v })) }
      default: return f
    }
  }
  const all = parsed.flatMap(conjuncts)
  const sql = allOf(all.filter(sqlable).map(walk))
  const post = allOf(all.filter((f) => !sqlable(f)))
  return { ...(sql ? { sql } : {}), ...(post ? { post } : {}) }
}
