// Filters on a mapped type's XPaths (`gml:name = 'x'`, BBOX(gsml:shape, ...), resource ids), read
// by the WFS's own parsers (ECQL and OGC/FES XML) against the mapping's filterable properties: each
// AttributeMapping whose sourceExpression is a plain source attribute. The tree is then renamed to
// the source's columns, so it reaches the source's SQL (PostGIS, GeoPackage) or is evaluated on the
// rows of a property file. XPaths into chained features or computed values are not filterable yet:
// they are refused with the list of those that are, never ignored.
import { parseEcql, type FilterAttribute } from '../filters/ecql.js'
import { parseOgcFilter } from '../filters/ogc-xml.js'
import { allOf, type Expression, type Filter } from '../filters/tree.js'
import type { XmlElement } from '../files/xml.js'
import { plainAttribute } from './ocql.js'
import type { RowSource } from './row-sources.js'
import type { TypeMapping } from './type-mapping.js'

export type MappedQueryFilter = { kind: 'cql', text: string } | { kind: 'xml', el: XmlElement }

/** The mapped XPaths that are a plain source attribute: XPath -> column, and the column's filter type. */
export async function mappedColumns (m: TypeMapping, source: RowSource): Promise<{ columns: Map<string, string>, kinds: Map<string, string>, column: (name: string) => string | undefined }> {
  const kinds = await source.kinds(m.sourceType)
  const column = (name: string) => [...kinds.keys()].find((c) => c === name) ?? [...kinds.keys()].find((c) => c.toLowerCase() === name.toLowerCase())
  const columns = new Map<string, string>()
  for (const am of m.attributes) {
    const src = am.sourceExpression && !am.link && am.target.length > 0 ? plainAttribute(am.sourceExpression) : undefined
    const col = src ? column(src) : undefined
    const name = am.targetText.trim()
    if (col && !columns.has(name)) columns.set(name, col)
  }
  return { columns, kinds, column }
}

export async function mappedFilter (m: TypeMapping, source: RowSource, filters: MappedQueryFilter[], ids: string[] | undefined, crs: string): Promise<Filter | undefined> {
  if (filters.length === 0 && !ids) return undefined
  const { columns, kinds, column } = await mappedColumns(m, source)
  const attributes: FilterAttribute[] = [...columns].map(([name, col]) => ({ name, type: kinds.get(col) ?? 'String' }))
  const idColumn = m.idExpression && plainAttribute(m.idExpression) ? column(plainAttribute(m.idExpression)!) : undefined
  const schema = { attributes, crs }
  const parsed: Filter[] = filters.map((f) => f.kind === 'cql' ? parseEcql(f.text, schema) : parseOgcFilter(f.el, { ...schema, localId: (id) => id, xpaths: true }))
  if (ids) parsed.push({ k: 'fid', ids })
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
      // A feature's id is its idExpression's column where it is one, else the source row's own id.
      case 'fid': return idColumn ? (f.ids.length === 0 ? { k: 'const', v: false } : { k: 'in', e: { k: 'property', name: idColumn }, list: f.ids.map((v) => ({ k: 'value', v })) }) : f
      default: return f
    }
  }
  return allOf(parsed.map(walk))
}
