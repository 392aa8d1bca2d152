// Executes FeatureTypeMappings (GeoTools' AppSchemaDataAccess): the rows of a mapping's sourceType
// are read ordered by the feature id's source attribute (after a query's sortBy) and grouped into
// features (several rows of one id: a denormalised source, whose isMultiple attributes repeat); each
// AttributeMapping's sourceExpression is evaluated and set at its targetAttribute XPath, with its
// ClientProperty attributes (one a propertyName leaves out and the schema does not require is not,
// nor are its chained features read); chained features (linkElement/linkField) are read for the
// whole page of parents in one statement per chained mapping (chainsWithin: a subquery on the
// parents' own read), else for a batch of parents at once (never one per feature), and nested to
// any depth. Filters the source cannot answer are evaluated on the built features. Features are
// written as GML elements of the mapping's namespaces; a feature met twice in one document is
// written the second time as an xlink:href to the first (gml:id must be unique in a document).
import { escapeXml } from '../xml-escape.js'
import { gml3, envelopeOf, type Geo } from '../wfs/geometry.js'
import { allOf, type Filter } from '../filters/tree.js'
import { matches, recordView } from '../filters/evaluate.js'
import { namesOf, type Selection } from './mapped-filter.js'
import { evaluate, plainAttribute, type Expr, type Row } from './ocql.js'
import type { RowQuery, RowSource, SortKeys } from './row-sources.js'
import { localName, prefixOf, type AttributeMapping, type LoadedMapping, type Step, type TypeMapping } from './type-mapping.js'

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
export type Properties = Step[][] | undefined

/** What a read of features asks beyond the filter: the order (source columns) and the properties. */
export interface FeatureQuery {
  sortBy?: SortKeys
  properties?: Properties
  /** GetPropertyValue: the values at this XPath are written instead of the features. */
  values?: Step[]
}

/** An element of a built feature: its text and the values it was written from (what filters compare),
 *  a geometry (written as GML with its gml:id), `feature`: the gml:id of a feature element. */
export interface Node { name: string, attrs: Array<[string, string]>, children: Node[], text?: string, values?: unknown[], geo?: { g: Geo, id: string }, feature?: string }

const x = (s: string) => escapeXml(s)
// eslint-disable-next-line no-control-regex
const clean = (s: string) => x(s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '?'))
const isGeo = (v: unknown): v is Geo => typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string' &&
  ('coordinates' in (v as object) || 'geometries' in (v as object))
const textOf = (v: unknown): string => v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v)

/** The column of `m`'s source an attribute name of its expressions is, matched case-insensitively. */
async function columnOf (ctx: ExecContext, m: TypeMapping, name: string | undefined): Promise<string | undefined> {
  if (!name) return undefined
  const cols = await ctx.sourceOf(m).attributes(m.sourceType)
  return cols.find((c) => c === name) ?? cols.find((c) => c.toLowerCase() === name.toLowerCase())
}

/** The source column a mapping's ids come from, when the idExpression is one (rows are ordered by it). */
const idColumn = (ctx: ExecContext, m: TypeMapping) => columnOf(ctx, m, m.idExpression ? plainAttribute(m.idExpression) : undefined)

export function featureId (m: TypeMapping, row: Row): string {
  const v = m.idExpression ? evaluate(m.idExpression, row) : row.id
  return v === null || v === undefined || v === '' ? row.id : textOf(v)
}

/** A page of a mapping's features: skip `offset`, at most `limit` (Infinity: all). */
export interface Page { offset: number, limit: number }

/** The id column compared with a value of it (keyset paging: every row of those features). */
const idCmp = (col: string, op: '>=' | '<=', v: unknown): Filter => ({ k: 'cmp', op, l: { k: 'property', name: col }, r: { k: 'value', v: v as string } })

/**
 * The features of a mapping (rows grouped by id), in the order of `sortBy` where given (source
 * columns, the id breaking ties), else in id order where the id is a column. A filter on a
 * denormalised source selects rows; the features are those ids with all their rows (a filter on
 * the id column itself, as a chained read's, already selects whole features). Where the source has
 * SQL and the id is a column, a page is a range of ids (keyset): its first id is found by
 * SELECT DISTINCT id ... OFFSET n LIMIT 1 and the rows are read from there (to the page's last id
 * where features have several rows), never the features before it. A sorted page is no range of
 * ids: one row a feature, it is the sorted rows' OFFSET and LIMIT; several, the page's ids are
 * found with the sort in the same statement (each id at its first row under the sort), as for a
 * filtered denormalised source (the page's ids in one DISTINCT statement), then their rows are
 * read, BATCH ids a statement, and handed on in the page's order.
 */
export async function * groupedFeatures (ctx: ExecContext, m: TypeMapping, filter?: Filter, page: Page = { offset: 0, limit: Infinity }, sortBy?: SortKeys): AsyncGenerator<Grouped> {
  yield * readPlan(ctx, m, await planRead(ctx, m, filter, page, sortBy))
}

/** How a page of a mapping's features is read: the rows of one query grouped by id (then `page` of
 *  those groups), or the features of known ids (values of the id column `column`), or none. */
type ReadPlan = { kind: 'rows', query: RowQuery, page: Page } | { kind: 'ids', column: string, ids: unknown[] } | { kind: 'none' }

async function * readPlan (ctx: ExecContext, m: TypeMapping, plan: ReadPlan): AsyncGenerator<Grouped> {
  if (plan.kind === 'rows') yield * grouped(ctx, m, ctx.sourceOf(m).rows(m.sourceType, plan.query), plan.page)
  else if (plan.kind === 'ids') yield * byIds(ctx, m, plan.column, plan.ids)
}

/** groupedFeatures' read of a page (see there): the statements finding where the page starts and ends are sent here. */
async function planRead (ctx: ExecContext, m: TypeMapping, filter: Filter | undefined, page: Page, sortBy: SortKeys | undefined): Promise<ReadPlan> {
  if (page.limit <= 0) return { kind: 'none' }
  const source = ctx.sourceOf(m)
  const orderBy = await idColumn(ctx, m)
  const limit = Number.isFinite(page.limit) ? page.limit : undefined
  const sorted = sortBy !== undefined && sortBy.length > 0
  const all: Page = { offset: 0, limit: page.limit }
  // Whether the rows the source selects, in their order, are whole features one after another.
  const whole = !m.isDenormalised || (!sorted && (!filter || (filter.k === 'in' && filter.e.k === 'property' && filter.e.name === orderBy)))
  if (orderBy && source.distinct) {
    if (!whole) {
      const ids = await source.distinct(m.sourceType, { column: orderBy, ...(filter ? { filter } : {}), ...(sorted ? { sortBy } : {}), offset: page.offset, ...(limit !== undefined ? { limit } : {}) })
      return { kind: 'ids', column: orderBy, ids }
    }
    // One row a feature, in the requested order: the page is the sorted rows' (OFFSET, LIMIT).
    if (sorted) return { kind: 'rows', query: { ...(filter ? { filter } : {}), orderBy, sortBy, offset: page.offset, ...(limit !== undefined ? { limit } : {}) }, page: all }
    /** The id of the page's n-th feature (from 0), undefined past the last. */
    const idAt = async (n: number) => (await source.distinct!(m.sourceType, { column: orderBy, ...(filter ? { filter } : {}), offset: n, limit: 1 }))[0]
    const range: Filter[] = filter ? [filter] : []
    if (page.offset > 0) {
      const first = await idAt(page.offset)
      if (first === undefined) return { kind: 'none' }
      range.push(idCmp(orderBy, '>=', first))
    }
    // Several rows a feature: the rows up to the page's last id (none past the last feature).
    if (m.isDenormalised && limit !== undefined) {
      const last = await idAt(page.offset + limit - 1)
      if (last !== undefined) range.push(idCmp(orderBy, '<=', last))
    }
    const from = allOf(range)
    // One row a feature unless denormalised: the page's rows are its features'.
    return { kind: 'rows', query: { ...(from ? { filter: from } : {}), orderBy, ...(limit !== undefined && !m.isDenormalised ? { limit } : {}) }, page: all }
  }
  if (!whole && orderBy) {
    // The ids in the order of their first row (rows of one feature may sort apart), then a page of them.
    const ids: unknown[] = []
    const seen = new Set<string>()
    for await (const row of source.rows(m.sourceType, { ...(filter ? { filter } : {}), orderBy, ...(sorted ? { sortBy } : {}) })) {
      const id = featureId(m, row)
      if (!seen.has(id)) { seen.add(id); ids.push(row.values[orderBy]) }
    }
    return { kind: 'ids', column: orderBy, ids: ids.slice(page.offset, limit !== undefined ? page.offset + limit : undefined) }
  }
  return { kind: 'rows', query: { ...(filter ? { filter } : {}), ...(orderBy ? { orderBy } : {}), ...(sorted ? { sortBy } : {}) }, page }
}

/** The whole features of these ids (values of the id column), BATCH ids a statement, in the ids' order. */
async function * byIds (ctx: ExecContext, m: TypeMapping, orderBy: string, ids: unknown[]): AsyncGenerator<Grouped> {
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = ids.slice(i, i + BATCH)
    const byKey = new Map<string, Grouped>()
    for await (const g of groupedFeatures(ctx, m, { k: 'in', e: { k: 'property', name: orderBy }, list: batch.map((v) => ({ k: 'value', v: v as string })) })) byKey.set(String(g.rows[0].values[orderBy]), g)
    for (const v of batch) { const g = byKey.get(String(v)); if (g) yield g }
  }
}

/** Consecutive rows of one id as one feature, a page of them. */
async function * grouped (ctx: ExecContext, m: TypeMapping, rows: AsyncIterable<Row>, page: Page): AsyncGenerator<Grouped> {
  let current: Grouped | undefined
  let n = 0
  for await (const row of rows) {
    const id = featureId(m, row)
    if (current && current.id === id) { current.rows.push(row); continue }
    if (current && n++ >= page.offset) yield current
    if (n >= page.offset + page.limit) { current = undefined; break }
    current = { id, rows: [row] }
  }
  if (current && n >= page.offset) yield current
}

/** The source column of a chained mapping's link field. */
const linkColumn = (ctx: ExecContext, m: TypeMapping, field: string) => { const e = m.linkFields.get(field); return columnOf(ctx, m, e ? plainAttribute(e) : undefined) }

/** Chained features of the parents' link values: mapping key + link field -> value -> features. */
type Chains = Map<string, Map<string, Grouped[]>>

/** The chained properties of `m` the selection keeps (a chained property left out is not read),
 *  each with its link, source expression, chained mapping and the selection within it. */
function * chainedProperties (ctx: ExecContext, m: TypeMapping, sel: Properties): Generator<{ am: AttributeMapping, link: NonNullable<AttributeMapping['link']>, source: Expr, child: TypeMapping, sub: Properties }> {
  for (const am of m.attributes) {
    if (!am.link || !am.sourceExpression) continue
    const { keep, sub } = selected(ctx, m, am, sel)
    if (!keep) continue
    const child = ctx.mapping.byKey.get(am.link.element)
    if (child) yield { am, link: am.link, source: am.sourceExpression, child, sub }
  }
}

async function resolveChains (ctx: ExecContext, m: TypeMapping, parents: Grouped[], depth: number, into: Chains, stats: { queries: number }, sel?: Properties): Promise<void> {
  if (depth > MAX_CHAIN_DEPTH) return
  for (const { am, link, source, child, sub } of chainedProperties(ctx, m, sel)) {
    const values = new Set<string>()
    for (const p of parents) for (const r of rowsFor(m, am, p)) {
      const v = evaluate(source, r)
      if (v !== null && v !== undefined && v !== '') values.add(textOf(v))
    }
    const key = `${child.key}\u0000${link.field}`
    const byValue = into.get(key) ?? new Map<string, Grouped[]>()
    into.set(key, byValue)
    const wanted = [...values].filter((v) => !byValue.has(v))
    if (wanted.length === 0) continue
    const wantedSet = new Set(wanted)
    const col = await linkColumn(ctx, child, link.field)
    const linkExpr = child.linkFields.get(link.field)
    // One query for the whole batch: the link column IN (values) where it is a column, else every row.
    const filter: Filter | undefined = col ? { k: 'in', e: { k: 'property', name: col }, list: wanted.map((v) => ({ k: 'value', v })) } : undefined
    stats.queries++
    const found: Grouped[] = []
    for await (const g of groupedFeatures(ctx, child, filter)) {
      const v = linkExpr ? evaluate(linkExpr, g.rows[0]) : g.id
      if (v === null || v === undefined) continue
      const k = textOf(v)
      if (!wantedSet.has(k)) continue
      byValue.set(k, [...(byValue.get(k) ?? []), g])
      found.push(g)
    }
    for (const v of wanted) if (!byValue.has(v)) byValue.set(v, [])
    if (found.length > 0) await resolveChains(ctx, child, found, depth + 1, into, stats, sub)
  }
}

/** How deep chained reads nest as subqueries; deeper chains are read per batch of parents. */
const WITHIN_DEPTH = 4

/**
 * The chained features of every parent a read selects, one statement per chained mapping whatever
 * the number of parents: the chained mapping's rows whose link column is among the parents' link
 * column values of the parents' own read (`link IN (SELECT parent_link FROM parent WHERE <the same
 * filter> <the same page>)`), nested for a chain's chains. Undefined where a chained property of
 * the selection cannot be read so (its link or the parent's value not a column, another data
 * store, a denormalised chained type linked by another column than its id, or deeper than
 * WITHIN_DEPTH): those are read per batch of parents (resolveChains).
 */
async function chainsWithin (ctx: ExecContext, m: TypeMapping, parent: RowQuery, stats: { queries: number }, sel: Properties): Promise<Chains | undefined> {
  interface Step { am: AttributeMapping, child: TypeMapping, query: RowQuery, linkExpr: Expr | undefined, next: Step[] }
  const plan = async (m: TypeMapping, parent: RowQuery, sel: Properties, path: string[]): Promise<Step[] | undefined> => {
    const steps: Step[] = []
    for (const { am, link, source, child, sub } of chainedProperties(ctx, m, sel)) {
      if (path.length >= WITHIN_DEPTH || path.includes(child.key) || ctx.sourceOf(child) !== ctx.sourceOf(m)) return undefined
      const value = await columnOf(ctx, m, plainAttribute(source))
      const column = await linkColumn(ctx, child, link.field)
      const childId = await idColumn(ctx, child)
      if (!value || !column || (child.isDenormalised && column !== childId)) return undefined
      const query: RowQuery = { within: { column, type: m.sourceType, value, query: parent }, ...(childId ? { orderBy: childId } : {}) }
      const next = await plan(child, query, sub, [...path, child.key])
      if (!next) return undefined
      steps.push({ am, child, query, linkExpr: child.linkFields.get(link.field), next })
    }
    return steps
  }
  const steps = await plan(m, parent, sel, [m.key])
  if (!steps) return undefined
  const into: Chains = new Map()
  const read = async (steps: Step[]): Promise<void> => {
    for (const st of steps) {
      const key = `${st.child.key}\u0000${st.am.link!.field}`
      const byValue = into.get(key) ?? new Map<string, Grouped[]>()
      into.set(key, byValue)
      stats.queries++
      for await (const g of grouped(ctx, st.child, ctx.sourceOf(st.child).rows(st.child.sourceType, st.query), { offset: 0, limit: Infinity })) {
        const v = st.linkExpr ? evaluate(st.linkExpr, g.rows[0]) : g.id
        if (v === null || v === undefined) continue
        const list = byValue.get(textOf(v)) ?? []
        if (!list.some((h) => h.id === g.id)) byValue.set(textOf(v), [...list, g])
      }
      await read(st.next)
    }
  }
  await read(steps)
  return into
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
}

export const sameStep = (a: Step, b: Step) => a.local === b.local && (a.prefix === '' || b.prefix === '' || a.prefix === b.prefix)

/**
 * Whether an attribute mapping is written under a propertyName selection, and the selection its
 * chained feature then gets, as GeoTools' app-schema selects them (AppSchemaDataAccess.matchProperty,
 * GeoServer asking for mandatory properties): a mapping is kept when its XPath and a requested one
 * are the same as far as the shorter goes (a parent or a part of what was asked), or when the schema
 * requires its property (minOccurs >= 1), so the answer stays valid. A chained feature asked for
 * below its property (`gsml:specification/gsml:GeologicUnit/gml:name`) keeps what was asked of it.
 */
function selected (ctx: ExecContext, m: TypeMapping, am: AttributeMapping, sel: Properties): { keep: boolean, sub: Properties } {
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
  const el = child?.targetElement ?? ''
  const sub = subs.map((r) => r.length > 0 && sameStep(r[0], { prefix: prefixOf(el), local: localName(el) }) ? r.slice(1) : r)
  return { keep, sub: sub.some((r) => r.length === 0) ? undefined : sub }
}

const builtOnce = new WeakMap<Grouped, Node>()

/**
 * One feature of mapping `m` as its element tree, the properties of `sel` (all when undefined):
 * values kept beside their text (what a filter compares), chained features nested whole below
 * their property (written as an xlink:href where the document already holds them, see write), an
 * xlink:href to a feature that contains itself.
 */
function buildFeature (ctx: ExecContext, m: TypeMapping, f: Grouped, chains: Chains, sel?: Properties, ancestors: string[] = []): Node {
  const root: Node = { name: m.targetElement, attrs: [['gml:id', f.id]], children: [], feature: f.id }
  for (const am of m.attributes) {
    const { keep, sub } = selected(ctx, m, am, sel)
    if (!keep) continue
    for (const row of rowsFor(m, am, f)) {
      if (am.link) {
        const child = ctx.mapping.byKey.get(am.link.element)
        const v = am.sourceExpression ? evaluate(am.sourceExpression, row) : undefined
        if (!child || v === null || v === undefined) continue
        for (const g of chains.get(`${child.key}\u0000${am.link.field}`)?.get(textOf(v)) ?? []) {
          const n = nodeAt(root, am.target, true)
          if (g.id === f.id || ancestors.includes(g.id) || ancestors.length >= MAX_CHAIN_DEPTH) { n.attrs.push(['xlink:href', `#${g.id}`]); continue }
          // A chained feature several parents share is built once (trees are not changed after);
          // one asked for in part (propertyName below its property) is built for that request.
          if (sub) { n.children.push(buildFeature(ctx, child, g, chains, sub, [...ancestors, f.id])); continue }
          let built = builtOnce.get(g)
          if (!built) { built = buildFeature(ctx, child, g, chains, undefined, [...ancestors, f.id]); builtOnce.set(g, built) }
          n.children.push(built)
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
        n.values = [value]
        n.geo = { g: ctx.project(value), id: `${f.id}.${am.target.map((s) => s.local).join('.')}` }
      } else if (am.isList && Array.isArray(value)) { n.values = value; n.text = value.map(textOf).join(' ') } else { n.values = [value]; n.text = textOf(value) }
    }
  }
  const order = ctx.order(m.targetElement)
  if (order) {
    const rank = (n: Node) => {
      const local = localName(n.name)
      const g = n.name.startsWith('gml:') ? GML_FIRST.indexOf(local) : -1
      if (g >= 0) return g
      const i = order.indexOf(local)
      return i >= 0 ? GML_FIRST.length + i : Number.MAX_SAFE_INTEGER
    }
    root.children = root.children.map((n, i) => ({ n, i })).sort((a, b) => rank(a.n) - rank(b.n) || a.i - b.i).map((e) => e.n)
  }
  return root
}

/** The GML of a built feature; a chained feature the document already holds is an xlink:href to it. */
function write (ctx: ExecContext, n: Node, w: Writer): string {
  if (n.feature !== undefined) w.written.add(n.feature)
  const attrs = n.attrs.map(([k, v]) => ` ${k}="${clean(v)}"`).join('')
  const nested = n.children.length === 1 ? n.children[0].feature : undefined
  if (nested !== undefined && w.written.has(nested)) return `<${n.name}${attrs} xlink:href="${clean(`#${nested}`)}"/>`
  const inner = (n.geo ? gml3(n.geo.g, ctx.srsName, ctx.v32, n.geo.id) : '') + n.children.map((c) => write(ctx, c, w)).join('') + (n.text !== undefined ? clean(n.text) : '')
  return inner === '' ? `<${n.name}${attrs}/>` : `<${n.name}${attrs}>${inner}</${n.name}>`
}

/**
 * The values at an XPath of one built feature (GetPropertyValue's valueReference) as wfs:member
 * elements, one per element the XPath names: its content (a nested feature, a geometry, child
 * elements) or its text; a feature written earlier in the document by reference (wfs:member
 * xlink:href, WFS 2.0's MemberPropertyType).
 */
function propertyValues (ctx: ExecContext, root: Node, steps: Step[], w: Writer): string[] {
  let at = [root]
  for (const s of steps) {
    at = at.flatMap((n) => {
      const same = n.children.filter((c) => sameStep({ prefix: prefixOf(c.name), local: localName(c.name) }, s))
      return s.index !== undefined ? same.slice(s.index - 1, s.index) : same
    })
  }
  return at.map((n) => {
    const nested = n.children.length === 1 ? n.children[0].feature : undefined
    const href = nested !== undefined && w.written.has(nested) ? `#${nested}` : n.geo || n.children.length > 0 ? undefined : n.attrs.find(([k]) => k === 'xlink:href')?.[1]
    if (href !== undefined) return `<wfs:member xlink:href="${clean(href)}"/>`
    const content = (n.geo ? gml3(n.geo.g, ctx.srsName, ctx.v32, n.geo.id) : '') + n.children.map((c) => write(ctx, c, w)).join('')
    return `<wfs:member>${content !== '' ? content : clean(n.text ?? '')}</wfs:member>`
  })
}

/** The values at an XPath of a built feature (`gml:name`, `a/b[2]/c`, `gml:name/@codeSpace`, a chained
 *  `gsml:specification/gsml:GeologicUnit/gml:name`): every node the path reaches, each value of each. */
function valuesAt (root: Node, path: string): unknown[] {
  const steps = path.split('/')
  let nodes = [root]
  let i = 0
  if (steps[0] === root.name) i = 1
  for (; i < steps.length; i++) {
    const s = steps[i]
    if (s.startsWith('@')) {
      const name = s.slice(1)
      return i === steps.length - 1 ? nodes.flatMap((n) => n.attrs.filter(([k]) => k === name).map(([, v]) => v)) : []
    }
    const m = /^(.*?)(?:\[(\d+)\])?$/.exec(s)!
    nodes = nodes.flatMap((n) => {
      const same = n.children.filter((c) => c.name === m[1])
      return m[2] ? same.slice(Number(m[2]) - 1, Number(m[2])) : same
    })
    if (nodes.length === 0) return []
  }
  return nodes.flatMap((n) => n.values ?? (n.text !== undefined ? [n.text] : []))
}

/** The first geometry among a feature's own properties (what a BBOX without a column tests). */
function firstGeometry (n: Node): Geo | undefined {
  for (const c of n.children) {
    if (c.feature !== undefined) continue
    if (c.geo) return c.values![0] as Geo
    const g = firstGeometry(c)
    if (g) return g
  }
  return undefined
}

/**
 * Whether a built feature matches a filter on its XPaths. Each comparison is made with every value
 * of the properties it names and holds where one of them does (GeoTools' MatchAction ANY); a
 * property the feature lacks is null (unknown, as in SQL: not a match, also under NOT).
 */
function postMatches (filter: Filter, root: Node): boolean {
  const ev = (n: Filter): boolean | null => {
    switch (n.k) {
      case 'and': { const a = ev(n.a); if (a === false) return false; const b = ev(n.b); return b === false ? false : a === null || b === null ? null : true }
      case 'or': { const a = ev(n.a); if (a === true) return true; const b = ev(n.b); return b === true ? true : a === null || b === null ? null : false }
      case 'not': { const a = ev(n.a); return a === null ? null : !a }
      case 'fid': return n.ids.includes(root.feature ?? '')
      case 'bbox': {
        const g = firstGeometry(root)
        return g ? leaf(n, {}, g) : null
      }
      default: {
        const names = [...new Set(namesOf(n))]
        // Every combination of the named properties' values (most filters name one).
        let combos: Array<Record<string, unknown>> = [{}]
        for (const name of names) {
          const vs = valuesAt(root, name)
          const values = vs.length === 0 ? [null] : vs
          combos = combos.flatMap((c) => values.map((v) => ({ ...c, [name]: v })))
          if (combos.length > 10_000) combos = combos.slice(0, 10_000)
        }
        let unknown = false
        for (const c of combos) {
          const r = leaf(n, c, n.k === 'spatial' ? c[n.name] as Geo | undefined : undefined)
          if (r === true) return true
          if (r === null) unknown = true
        }
        return unknown ? null : false
      }
    }
  }
  return ev(filter) === true
}

/** One comparison on one set of values: true, false or unknown (neither it nor its negation holds). */
function leaf (n: Filter, values: Record<string, unknown>, geo: Geo | null | undefined): boolean | null {
  const g = geo && isGeo(geo) ? geo : undefined
  const view = recordView(values, g ? envelopeOf(g) : undefined, '', g)
  if (matches(n, view)) return true
  return matches({ k: 'not', a: n }, view) ? false : null
}

/**
 * The built features of `m` that match the selection, a page of them in the order of `q.sortBy`
 * (else the id's), their properties those of `q.properties` (or of the XPath of `q.values`), in
 * batches: the chained features of the page read first in one statement per chained mapping
 * (chainsWithin), else each batch's together (one per chained mapping and batch), none for a
 * chained property left out, before a batch is built. Without a filter left for after
 * the read, the page is the source's (SQL where it has it); with one, every feature the source
 * selects is built whole and tested, the page taken after, and its features built again with the
 * properties asked for. `stats.queries` counts the chained reads.
 */
export async function * selectedFeatures (ctx: ExecContext, m: TypeMapping, sel: Selection, page: Page, stats: { queries: number }, q: FeatureQuery = {}): AsyncGenerator<Node[]> {
  if (page.limit <= 0) return
  const post = sel.post
  const props = q.values ? [q.values] : q.properties
  let skipped = 0
  let taken = 0
  let batch: Grouped[] = []
  const plan = await planRead(ctx, m, sel.sql, post ? { offset: 0, limit: Infinity } : page, q.sortBy)
  // The chained features of the whole page in one statement per chained mapping where they can be.
  const within = plan.kind === 'rows' ? await chainsWithin(ctx, m, plan.query, stats, post ? undefined : props) : undefined
  const flush = async (): Promise<Node[]> => {
    const chains: Chains = within ?? new Map()
    if (!within) await resolveChains(ctx, m, batch, 0, chains, stats, post ? undefined : props)
    const features = batch
    batch = []
    if (!post) return features.map((f) => buildFeature(ctx, m, f, chains, props))
    // Built whole to be tested (the filter may name properties left out), again where some are.
    const kept = features.map((f) => ({ f, n: buildFeature(ctx, m, f, chains) })).filter((e) => postMatches(post, e.n))
    const skip = Math.min(kept.length, page.offset - skipped)
    skipped += skip
    const wanted = kept.slice(skip, skip + page.limit - taken)
    taken += wanted.length
    return wanted.map((e) => props ? buildFeature(ctx, m, e.f, chains, props) : e.n)
  }
  for await (const f of readPlan(ctx, m, plan)) {
    batch.push(f)
    if (batch.length >= BATCH) {
      const out = await flush()
      if (out.length > 0) yield out
      if (post && taken >= page.limit) return
    }
  }
  if (batch.length > 0) {
    const out = await flush()
    if (out.length > 0) yield out
  }
}

/** The features of `m` from `offset`, at most `limit`, encoded (or their values at `q.values`, as wfs:member elements). */
export async function * encodedFeatures (ctx: ExecContext, m: TypeMapping, offset: number, limit: number, w: Writer, stats: { queries: number }, sel: Selection = {}, q: FeatureQuery = {}): AsyncGenerator<string> {
  for await (const batch of selectedFeatures(ctx, m, sel, { offset, limit }, stats, q)) {
    for (const n of batch) {
      if (q.values) yield * propertyValues(ctx, n, q.values, w)
      else yield write(ctx, n, w)
    }
  }
}

/** How many features a mapping has that match (distinct ids): COUNT(DISTINCT id) where the source
 *  has SQL, the id is a column and the filter is all the source's; else by reading them. */
export async function countFeatures (ctx: ExecContext, m: TypeMapping, sel: Selection = {}, stats: { queries: number } = { queries: 0 }): Promise<number> {
  const source = ctx.sourceOf(m)
  const orderBy = await idColumn(ctx, m)
  if (!sel.post && orderBy && source.countDistinct) return await source.countDistinct(m.sourceType, { column: orderBy, ...(sel.sql ? { filter: sel.sql } : {}) })
  let n = 0
  if (!sel.post) {
    for await (const g of groupedFeatures(ctx, m, sel.sql)) if (g) n++
    return n
  }
  for await (const batch of selectedFeatures(ctx, m, sel, { offset: 0, limit: Infinity }, stats)) n += batch.length
  return n
}
