// Executes FeatureTypeMappings (GeoTools' AppSchemaDataAccess): the rows of a mapping's sourceType
// are read ordered by the feature id's source attribute and grouped into features (several rows of
// one id: a denormalised source, whose isMultiple attributes repeat); each AttributeMapping's
// sourceExpression is evaluated and set at its targetAttribute XPath, with its ClientProperty
// attributes; chained features (linkElement/linkField) are read for a batch of parents at once, one
// query per chained mapping and batch (never one per feature), and nested to any depth. Features
// are written as GML elements of the mapping's namespaces; a feature met twice in one document is
// written the second time as an xlink:href to the first (gml:id must be unique in a document).
import { escapeXml } from '../xml-escape.js'
import { gml3, type Geo } from '../wfs/geometry.js'
import type { Filter } from '../filters/tree.js'
import { evaluate, plainAttribute, type Row } from './ocql.js'
import type { RowSource } from './row-sources.js'
import type { AttributeMapping, LoadedMapping, Step, TypeMapping } from './type-mapping.js'

export const BATCH = 500
const MAX_CHAIN_DEPTH = 16
const GML_FIRST = ['metaDataProperty', 'description', 'descriptionReference', 'identifier', 'name', 'boundedBy', 'location']

export interface Grouped { id: string, rows: Row[] }

export interface ExecContext {
  mapping: LoadedMapping
  sourceOf (m: TypeMapping): RowSource
  /** The schema's order of a target element's properties (local names), when known. */
  order (targetElement: string): string[] | undefined
  /** The properties of a target element the schema requires (minOccurs >= 1, local names): kept whatever propertyName asks. */
  mandatory (targetElement: string): Set<string>
  /** GML 3.2 (else 3.1.1), the srsName geometries are written with, and the reprojection (with the
   *  answer's axis order) from the data's CRS to the answer's. */
  v32: boolean
  srsName?: string
  project: (g: Geo) => Geo
}

/** The properties a query asks for (WFS propertyName) as XPath steps; undefined: all of them. */
export type Selection = Step[][] | undefined

/** What a read of features asks beyond the filter: the order (source columns) and the properties. */
export interface FeatureQuery {
  sortBy?: Array<{ name: string, descending: boolean }>
  properties?: Selection
  /** GetPropertyValue: the values at this XPath are written instead of the features. */
  values?: Step[]
}

interface Node { name: string, attrs: Array<[string, string]>, children: Node[], text?: string, raw?: string }

const x = (s: string) => escapeXml(s)
// eslint-disable-next-line no-control-regex
const clean = (s: string) => x(s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '?'))
const isGeo = (v: unknown): v is Geo => typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string' &&
  ('coordinates' in (v as object) || 'geometries' in (v as object))
const textOf = (v: unknown): string => v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v)

/** The source column a mapping's ids come from, when the idExpression is one (rows are ordered by it). */
async function idColumn (ctx: ExecContext, m: TypeMapping): Promise<string | undefined> {
  const name = m.idExpression ? plainAttribute(m.idExpression) : undefined
  if (!name) return undefined
  const cols = await ctx.sourceOf(m).attributes(m.sourceType)
  return cols.find((c) => c === name) ?? cols.find((c) => c.toLowerCase() === name.toLowerCase())
}

export function featureId (m: TypeMapping, row: Row): string {
  const v = m.idExpression ? evaluate(m.idExpression, row) : row.id
  return v === null || v === undefined || v === '' ? row.id : textOf(v)
}

/**
 * The features of a mapping (rows grouped by id), in id order where the id is a column. A filter on
 * a denormalised source selects rows; the features are those ids with all their rows, read for a
 * batch of ids at a time.
 */
export async function * groupedFeatures (ctx: ExecContext, m: TypeMapping, filter?: Filter, sortBy?: FeatureQuery['sortBy']): AsyncGenerator<Grouped> {
  const orderBy = await idColumn(ctx, m)
  const sorted = sortBy !== undefined && sortBy.length > 0
  if (m.isDenormalised && orderBy && (filter || sorted)) {
    // The ids first (in the requested order: rows of one feature may sort apart), then the whole
    // features a batch of ids at a time, written in that order.
    const ids: unknown[] = []
    const seen = new Set<string>()
    for await (const row of ctx.sourceOf(m).rows(m.sourceType, { ...(filter ? { filter } : {}), orderBy, ...(sorted ? { sortBy } : {}) })) {
      const id = featureId(m, row)
      if (!seen.has(id)) { seen.add(id); ids.push(row.values[orderBy]) }
    }
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH)
      const byKey = new Map<string, Grouped>()
      for await (const g of groupedFeatures(ctx, { ...m, isDenormalised: false }, { k: 'in', e: { k: 'property', name: orderBy }, list: batch.map((v) => ({ k: 'value', v: v as string })) })) byKey.set(String(g.rows[0].values[orderBy]), g)
      for (const v of batch) { const g = byKey.get(String(v)); if (g) yield g }
    }
    return
  }
  let current: Grouped | undefined
  for await (const row of ctx.sourceOf(m).rows(m.sourceType, { ...(filter ? { filter } : {}), ...(orderBy ? { orderBy } : {}), ...(sorted ? { sortBy } : {}) })) {
    const id = featureId(m, row)
    if (current && current.id === id) { current.rows.push(row); continue }
    if (current) yield current
    current = { id, rows: [row] }
  }
  if (current) yield current
}

/** The source column of a chained mapping's link field, matched case-insensitively. */
async function linkColumn (ctx: ExecContext, m: TypeMapping, field: string): Promise<string | undefined> {
  const e = m.linkFields.get(field)
  const name = e ? plainAttribute(e) : undefined
  if (!name) return undefined
  const cols = await ctx.sourceOf(m).attributes(m.sourceType)
  return cols.find((c) => c === name) ?? cols.find((c) => c.toLowerCase() === name.toLowerCase())
}

/** Chained features of the parents' link values: mapping key + link field -> value -> features. */
type Chains = Map<string, Map<string, Grouped[]>>

async function resolveChains (ctx: ExecContext, m: TypeMapping, parents: Grouped[], depth: number, into: Chains, stats: { queries: number }, sel?: Selection): Promise<void> {
  if (depth > MAX_CHAIN_DEPTH) return
  for (const am of m.attributes) {
    if (!am.link || !am.sourceExpression) continue
    // A chained property the request leaves out is not read.
    const { keep, sub } = selected(ctx, m, am, sel)
    if (!keep) continue
    const child = ctx.mapping.byKey.get(am.link.element)
    if (!child) continue
    const values = new Set<string>()
    for (const p of parents) for (const r of rowsFor(m, am, p)) {
      const v = evaluate(am.sourceExpression, r)
      if (v !== null && v !== undefined && v !== '') values.add(textOf(v))
    }
    const key = `${child.key}\u0000${am.link.field}`
    const byValue = into.get(key) ?? new Map<string, Grouped[]>()
    into.set(key, byValue)
    const wanted = [...values].filter((v) => !byValue.has(v))
    if (wanted.length === 0) continue
    const col = await linkColumn(ctx, child, am.link.field)
    const linkExpr = child.linkFields.get(am.link.field)
    // One query for the whole batch: the link column IN (values) where it is a column, else every row.
    const filter: Filter | undefined = col ? { k: 'in', e: { k: 'property', name: col }, list: wanted.map((v) => ({ k: 'value', v })) } : undefined
    stats.queries++
    const found: Grouped[] = []
    for await (const g of groupedFeatures(ctx, child, filter)) {
      const v = linkExpr ? evaluate(linkExpr, g.rows[0]) : g.id
      if (v === null || v === undefined) continue
      const k = textOf(v)
      if (!wanted.includes(k)) continue
      byValue.set(k, [...(byValue.get(k) ?? []), g])
      found.push(g)
    }
    for (const v of wanted) if (!byValue.has(v)) byValue.set(v, [])
    if (found.length > 0) await resolveChains(ctx, child, found, depth + 1, into, stats, sub)
  }
}

/** The rows an attribute takes values from: every row when it repeats, else the feature's first. */
function rowsFor (m: TypeMapping, am: AttributeMapping, f: Grouped): Row[] {
  return am.isMultiple || am.link ? distinctRows(am, f.rows) : f.rows.slice(0, 1)
}

function distinctRows (am: AttributeMapping, rows: Row[]): Row[] {
  if (!am.sourceExpression || rows.length < 2) return rows
  const seen = new Set<string>()
  return rows.filter((r) => {
    const k = textOf(evaluate(am.sourceExpression!, r))
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

const nameOf = (s: Step) => s.prefix ? `${s.prefix}:${s.local}` : s.local

/** The node at `steps` below `root`, made where missing; the last step new when `fresh`. */
function nodeAt (root: Node, steps: Step[], fresh: boolean): Node {
  let at = root
  steps.forEach((s, i) => {
    const name = nameOf(s)
    const same = at.children.filter((c) => c.name === name)
    const last = i === steps.length - 1
    if (last && fresh && s.index === undefined) { const n: Node = { name, attrs: [], children: [] }; at.children.push(n); at = n; return }
    const want = s.index ?? 1
    while (same.length < want) { const n: Node = { name, attrs: [], children: [] }; at.children.push(n); same.push(n) }
    at = same[want - 1]
  })
  return at
}

export interface Writer {
  /** gml:ids written so far in this document. */
  written: Set<string>
  chains: Chains
}

const sameStep = (a: Step, b: Step) => a.local === b.local && (a.prefix === '' || b.prefix === '' || a.prefix === b.prefix)

/**
 * Whether an attribute mapping is written under a propertyName selection, and the selection its
 * chained feature then gets, as GeoTools' app-schema selects them (AppSchemaDataAccess.matchProperty,
 * GeoServer asking for mandatory properties): a mapping is kept when its XPath and a requested one
 * are the same as far as the shorter goes (a parent or a part of what was asked), or when the schema
 * requires its property (minOccurs >= 1), so the answer stays valid. A chained feature asked for
 * below its property (`gsml:specification/gsml:GeologicUnit/gml:name`) keeps what was asked of it.
 */
export function selected (ctx: ExecContext, m: TypeMapping, am: AttributeMapping, sel: Selection): { keep: boolean, sub: Selection } {
  if (!sel || am.target.length === 0) return { keep: true, sub: undefined }
  let keep = ctx.mandatory(m.targetElement).has(am.target[0].local)
  let whole = false
  const subs: Step[][] = []
  for (const r of sel) {
    const n = Math.min(r.length, am.target.length)
    if (!r.slice(0, n).every((s, i) => sameStep(s, am.target[i]))) continue
    keep = true
    if (r.length > am.target.length) subs.push(r.slice(am.target.length))
    else whole = true
  }
  if (!keep || whole || subs.length === 0 || !am.link) return { keep, sub: undefined }
  const child = ctx.mapping.byKey.get(am.link.element)
  const [p, local] = child && child.targetElement.includes(':') ? child.targetElement.split(':') : ['', child?.targetElement ?? '']
  const sub = subs.map((r) => r.length > 0 && sameStep(r[0], { prefix: p, local }) ? r.slice(1) : r)
  return { keep, sub: sub.some((r) => r.length === 0) ? undefined : sub }
}

/** The feature's tree: one feature of mapping `m`, its properties under `sel`. */
function featureNode (ctx: ExecContext, m: TypeMapping, f: Grouped, w: Writer, depth: number, sel: Selection): Node {
  w.written.add(f.id)
  const root: Node = { name: m.targetElement, attrs: [['gml:id', f.id]], children: [] }
  for (const am of m.attributes) {
    const { keep, sub } = selected(ctx, m, am, sel)
    if (!keep) continue
    for (const row of rowsFor(m, am, f)) {
      if (am.link) {
        const child = ctx.mapping.byKey.get(am.link.element)
        const v = am.sourceExpression ? evaluate(am.sourceExpression, row) : undefined
        if (!child || v === null || v === undefined) continue
        for (const g of w.chains.get(`${child.key}\u0000${am.link.field}`)?.get(textOf(v)) ?? []) {
          const n = nodeAt(root, am.target, true)
          if (w.written.has(g.id) || depth >= MAX_CHAIN_DEPTH) n.attrs.push(['xlink:href', `#${g.id}`])
          else n.raw = write(featureNode(ctx, child, g, w, depth + 1, sub))
        }
        continue
      }
      const value = am.sourceExpression ? evaluate(am.sourceExpression, row) : undefined
      const props = am.clientProperties.map((c) => [c.name, evaluate(c.expr, row)] as const).filter(([, v]) => v !== null && v !== undefined && v !== '')
      const empty = value === null || value === undefined || value === ''
      if (empty && props.length === 0 && !am.encodeIfEmpty) continue
      if (am.target.length === 0) { for (const [k, v] of props) root.attrs.push([k, textOf(v)]); continue }
      const n = nodeAt(root, am.target, am.isMultiple)
      for (const [k, v] of props) n.attrs.push([k, textOf(v)])
      // targetAttributeNode (GeoServer's manual, mapping file): the type the property is encoded
      // with where its declared type cannot say (xs:anyType, an abstract content). A property type
      // (…PropertyType) only chooses the structure the following mappings fill; any other type
      // (gml:MeasureType on om:result) is named on the element, as xsi:type, unless the mapping
      // sets xsi:type itself.
      if (am.targetAttributeNode && !/PropertyType$/.test(am.targetAttributeNode) && !n.attrs.some(([k]) => k === 'xsi:type')) n.attrs.push(['xsi:type', am.targetAttributeNode])
      if (empty) continue
      if (isGeo(value)) {
        n.raw = gml3(ctx.project(value), ctx.srsName, ctx.v32, `${f.id}.${am.target.map((s) => s.local).join('.')}`)
      } else if (am.isList && Array.isArray(value)) n.text = value.map(textOf).join(' ')
      else n.text = textOf(value)
    }
  }
  const order = ctx.order(m.targetElement)
  if (order) {
    const rank = (n: Node) => {
      const local = n.name.slice(n.name.indexOf(':') + 1)
      const g = n.name.startsWith('gml:') ? GML_FIRST.indexOf(local) : -1
      if (g >= 0) return g
      const i = order.indexOf(local)
      return i >= 0 ? GML_FIRST.length + i : Number.MAX_SAFE_INTEGER
    }
    root.children = root.children.map((n, i) => ({ n, i })).sort((a, b) => rank(a.n) - rank(b.n) || a.i - b.i).map((e) => e.n)
  }
  return root
}

/** One feature of mapping `m` as its GML element (the properties of `sel`, all when undefined). */
export function encodeFeature (ctx: ExecContext, m: TypeMapping, f: Grouped, w: Writer, sel?: Selection): string {
  return write(featureNode(ctx, m, f, w, 0, sel))
}

/**
 * The values at an XPath of one feature (GetPropertyValue's valueReference) as wfs:member elements,
 * one per element the XPath names: its content (a nested feature, a geometry, child elements) or its
 * text; a feature written earlier in the document by reference (wfs:member xlink:href, WFS 2.0's
 * MemberPropertyType).
 */
export function propertyValues (ctx: ExecContext, m: TypeMapping, f: Grouped, w: Writer, steps: Step[]): string[] {
  let at = [featureNode(ctx, m, f, w, 0, [steps])]
  for (const s of steps) {
    at = at.flatMap((n) => {
      const same = n.children.filter((c) => sameStep(c.name.includes(':') ? { prefix: c.name.split(':')[0], local: c.name.split(':')[1] } : { prefix: '', local: c.name }, s))
      return s.index !== undefined ? same.slice(s.index - 1, s.index) : same
    })
  }
  return at.map((n) => {
    const href = n.attrs.find(([k]) => k === 'xlink:href')?.[1]
    if (href !== undefined && n.raw === undefined && n.children.length === 0) return `<wfs:member xlink:href="${clean(href)}"/>`
    return `<wfs:member>${n.raw !== undefined || n.children.length > 0 ? (n.raw ?? '') + n.children.map(write).join('') : clean(n.text ?? '')}</wfs:member>`
  })
}

function write (n: Node): string {
  const attrs = n.attrs.map(([k, v]) => ` ${k}="${clean(v)}"`).join('')
  const inner = (n.raw ?? '') + n.children.map(write).join('') + (n.text !== undefined ? clean(n.text) : '')
  return inner === '' ? `<${n.name}${attrs}/>` : `<${n.name}${attrs}>${inner}</${n.name}>`
}

/**
 * The features of `m` from `offset`, at most `limit`, encoded (or their values at `q.values`), in
 * batches: each batch's chained features are read together before it is written. `stats.queries`
 * counts the chained reads.
 */
export async function * encodedFeatures (ctx: ExecContext, m: TypeMapping, offset: number, limit: number, w: Writer, stats: { queries: number }, filter?: Filter, q: FeatureQuery = {}): AsyncGenerator<string> {
  if (limit <= 0) return
  let skipped = 0
  let n = 0
  let batch: Grouped[] = []
  const flush = async function * () {
    await resolveChains(ctx, m, batch, 0, w.chains, stats, q.values ? [q.values] : q.properties)
    for (const f of batch) {
      if (q.values) yield * propertyValues(ctx, m, f, w, q.values)
      else yield encodeFeature(ctx, m, f, w, q.properties)
    }
    batch = []
    w.chains.clear()
  }
  for await (const f of groupedFeatures(ctx, m, filter, q.sortBy)) {
    if (skipped < offset) { skipped++; continue }
    batch.push(f)
    n++
    if (batch.length >= BATCH) yield * flush()
    if (n >= limit) break
  }
  if (batch.length > 0) yield * flush()
}

/** How many features a mapping has (distinct ids). */
export async function countFeatures (ctx: ExecContext, m: TypeMapping, filter?: Filter): Promise<number> {
  let n = 0
  for await (const g of groupedFeatures(ctx, m, filter)) if (g) n++
  return n
}
