// OGC Filter 1.0 / 1.1 (ogc:Filter) and FES 2.0 (fes:Filter) XML to the filter tree (tree.ts), the
// same nodes ECQL parses to: And/Or/Not, the six comparisons (matchCase="false" on text: a
// case-insensitive match), PropertyIsLike (the request's wildCard, singleChar and escape characters
// turned into the tree's % _ \ form), PropertyIsNull/PropertyIsNil, PropertyIsBetween, BBOX (a
// gml:Envelope or gml:Box, taken to the source's CRS with the axis order its srsName says), and the
// id filters (fes:ResourceId rid, ogc:FeatureId fid, ogc:GmlObjectId gml:id) as one `fid` node.
// Property names are resolved against the source's schema (a namespace prefix and a leading
// feature-type step dropped); literals are typed for the attribute they meet. Anything else
// (functions, arithmetic, temporal operators) is refused naming the operator: never ignored.
// An SLD rule's ogc:Filter is read here too, before the layer it draws is known (no `attributes`,
// no `crs`): names are kept as written, a literal that reads as a number is one (evaluate.ts
// compares as GeoTools does), functions and arithmetic are read by the context's `expression`
// (styles/sld-expression.ts) and evaluated per feature, BBOX is the Intersects of its envelope
// (GeoTools evaluates it so in memory), and spatial literals wait in the CRS their srsName names
// (spatial.ts inCrs takes them to the layer's when a map is planned).
import { InvalidCql, InvalidXmlFilter, isMapwardenError, UnsupportedFilterOperator } from '../errors.js'
import { builtinProj4Def, isNorthingFirst, normalizeCrs, transformBbox } from '../render/crs.js'
import { parseGml } from '../wfs/gml-input.js'
import { envelopeOf, reprojector, type Geo } from '../wfs/geometry.js'
import type { XmlElement } from '../files/xml.js'
import { isoInstant, type FilterSchema } from './ecql.js'
import type { Expr } from '../render/vector/expression.js'
import { distanceInCrsUnits, envelopePolygon } from './spatial.js'
import { allOf, anyOf, not, type ComparisonOp, type Envelope, type Expression, type Filter, type SpatialOp, type Value } from './tree.js'

export type OgcFilterContext = WfsFilterContext | SldFilterContext

export interface WfsFilterContext extends FilterSchema {
  /** The local id of a resource id (`places.12` → `12`); undefined when it names another type. */
  localId (id: string): string | undefined
  /** Attribute names are whole XPaths (an app-schema type's `gsml:specification/gml:name`): matched as written. */
  xpaths?: boolean
  expression?: undefined
}

/** An SLD rule's filter: no schema, no CRS, no ids; functions and arithmetic read by `expression`. */
export interface SldFilterContext {
  attributes?: undefined
  crs?: undefined
  localId?: undefined
  xpaths?: undefined
  expression (el: XmlElement): Expr
}

const EXPRESSIONS = new Set(['Function', 'Add', 'Sub', 'Mul', 'Div'])
const NUMBER = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/

const COMPARISONS: Record<string, ComparisonOp> = {
  PropertyIsEqualTo: '=', PropertyIsNotEqualTo: '<>', PropertyIsLessThan: '<', PropertyIsGreaterThan: '>',
  PropertyIsLessThanOrEqualTo: '<=', PropertyIsGreaterThanOrEqualTo: '>='
}
const SPATIAL = new Set(['Equals', 'Disjoint', 'Touches', 'Within', 'Overlaps', 'Crosses', 'Intersects', 'Contains', 'DWithin', 'Beyond'])
const TEMPORAL = new Set(['After', 'Before', 'Begins', 'BegunBy', 'TContains', 'During', 'TEquals', 'TOverlaps', 'Meets', 'OverlappedBy', 'MetBy', 'EndedBy', 'Ends', 'AnyInteracts'])
const ID_ELEMENTS = new Set(['ResourceId', 'FeatureId', 'GmlObjectId'])
const MAX_DEPTH = 64

/** The filter tree of a <Filter> element (or of the operator inside one). */
export function parseOgcFilter (el: XmlElement, ctx: OgcFilterContext): Filter {
  const root = el.local === 'Filter' ? el : { ...el, local: 'Filter', children: [el] }
  const ops = root.children
  if (ops.length === 0) throw InvalidXmlFilter('an empty Filter element')
  // Several id elements side by side make one id filter (Filter 1.x and FES 2.0 alike).
  if (ops.every((c) => ID_ELEMENTS.has(c.local))) return ids(ops, ctx)
  if (ops.length > 1) throw InvalidXmlFilter(`a Filter holds one operator, not ${ops.map((o) => o.local).join(', ')}`)
  try {
    return operator(ops[0], ctx, 0)
  } catch (err) {
    // ECQL's typing helpers speak of cql syntax: the same failure, worded for XML.
    if (isMapwardenError(err) && err.code === InvalidCql.code) throw InvalidXmlFilter(String(err.args[0]))
    throw err
  }
}

function ids (els: XmlElement[], ctx: OgcFilterContext): Filter {
  const out: string[] = []
  if (!ctx.localId) throw UnsupportedFilterOperator(els[0].local, 'an SLD rule chooses features by their attributes and geometry')
  for (const e of els) {
    const id = e.attrs.rid ?? e.attrs.fid ?? e.attrs['gml:id'] ?? e.attrs.id ?? Object.entries(e.attrs).find(([k]) => k.endsWith(':id'))?.[1]
    if (id === undefined || id === '') throw InvalidXmlFilter(`${e.local} without an id`)
    const local = ctx.localId(id)
    if (local !== undefined) out.push(local)
  }
  return { k: 'fid', ids: out }
}

/** The attribute's type; undefined in an SLD rule (no schema). */
function typeOf (ctx: OgcFilterContext, name: string): string | undefined {
  return ctx.attributes?.find((a) => a.name === name)!.type
}

function propertyName (ctx: OgcFilterContext, raw: string): string {
  // vx:name, places/name, vx:places/vx:name, @name: the last step, without its prefix.
  if (ctx.xpaths === true) {
    const a = ctx.attributes.find((x) => x.name === raw.trim())
    if (!a) throw InvalidXmlFilter(`unknown property ${JSON.stringify(raw.trim().slice(0, 80))}; the type has ${ctx.attributes.map((x) => x.name).join(', ')}`)
    return a.name
  }
  const step = raw.trim().split('/').filter((s) => s !== '').pop() ?? ''
  const local = step.replace(/^@/, '').slice(step.indexOf(':') + 1)
  if (!ctx.attributes) {
    if (local === '') throw InvalidXmlFilter('an empty property name')
    return local
  }
  const a = ctx.attributes.find((x) => x.name === local) ?? ctx.attributes.find((x) => x.name.toLowerCase() === local.toLowerCase())
  if (!a) throw InvalidXmlFilter(`unknown property ${JSON.stringify(raw.trim().slice(0, 80))}; the type has ${ctx.attributes.map((x) => x.name).join(', ')}`)
  return a.name
}

function literal (text: string, type: string | undefined, ctx: OgcFilterContext): Value {
  if (!ctx.attributes) return NUMBER.test(text) ? Number(text) : text
  if (type === 'Integer' || type === 'Double') {
    const n = Number(text.trim())
    if (text.trim() === '' || !Number.isFinite(n)) throw InvalidXmlFilter(`${JSON.stringify(text.slice(0, 40))} is not a number`)
    return n
  }
  if (type === 'Boolean') {
    const t = text.trim().toLowerCase()
    if (t === 'true' || t === '1') return true
    if (t === 'false' || t === '0') return false
    throw InvalidXmlFilter(`${JSON.stringify(text.slice(0, 40))} is not true or false`)
  }
  if (type === 'Date') return isoInstant(text)
  return text
}

const isProperty = (e: XmlElement) => e.local === 'ValueReference' || e.local === 'PropertyName'
/** A property or, in an SLD rule, a function or arithmetic: what an operator's subject may be. */
const isSubject = (e: XmlElement, ctx: OgcFilterContext) => isProperty(e) || (ctx.expression !== undefined && EXPRESSIONS.has(e.local))

/** A function or arithmetic of an SLD rule; refused in a WFS filter. */
function expressionOf (e: XmlElement, ctx: OgcFilterContext): Expression {
  if (!ctx.expression || !EXPRESSIONS.has(e.local)) throw UnsupportedFilterOperator(e.local, 'operands are property names and literals (no functions or arithmetic)')
  return { k: 'expr', e: ctx.expression(e) }
}

/** The operands of a binary operator: a property and a literal (either order), typed together. */
function operands (el: XmlElement, ctx: OgcFilterContext): [Expression, Expression] {
  const args = el.children
  if (args.length !== 2) throw InvalidXmlFilter(`${el.local} needs two operands, found ${args.length}`)
  const prop = args.find(isProperty)
  const type = prop ? typeOf(ctx, propertyName(ctx, prop.text)) : undefined
  const expr = (e: XmlElement): Expression => {
    if (isProperty(e)) {
      const name = propertyName(ctx, e.text)
      if (typeOf(ctx, name) === 'Geometry') throw InvalidXmlFilter(`geometry property ${name} can only be used in spatial operators (BBOX, Intersects, DWithin...)`)
      return { k: 'property', name }
    }
    if (e.local === 'Literal') return { k: 'value', v: literal(e.text, type, ctx) }
    return expressionOf(e, ctx)
  }
  return [expr(args[0]), expr(args[1])]
}

function single (el: XmlElement, ctx: OgcFilterContext): Expression {
  const p = el.children.find((c) => isSubject(c, ctx))
  if (!p) throw InvalidXmlFilter(`${el.local} needs a property name`)
  return isProperty(p) ? { k: 'property', name: propertyName(ctx, p.text) } : expressionOf(p, ctx)
}

/** A filter LIKE pattern with the request's characters as the tree's (% any run, _ one, \ escape). */
export function likeFromOgc (pattern: string, wild: string, single: string, escape: string): string {
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (escape !== '' && c === escape && i + 1 < pattern.length) {
      const next = pattern[++i]
      out += /[%_\\]/.test(next) ? '\\' + next : next
    } else if (c === wild) out += '%'
    else if (c === single) out += '_'
    else if (c === '%' || c === '_' || c === '\\') out += '\\' + c
    else out += c
  }
  return out
}

function operator (el: XmlElement, ctx: OgcFilterContext, depth: number): Filter {
  if (depth > MAX_DEPTH) throw InvalidXmlFilter(`filter nested deeper than ${MAX_DEPTH} levels`)
  const name = el.local
  if (name === 'And' || name === 'Or') {
    if (el.children.length < 2) throw InvalidXmlFilter(`${name} needs at least two operands`)
    const parts = el.children.map((c) => operator(c, ctx, depth + 1))
    return (name === 'And' ? allOf(parts) : anyOf(parts))!
  }
  if (name === 'Not') {
    if (el.children.length !== 1) throw InvalidXmlFilter('Not holds one operand')
    return not(operator(el.children[0], ctx, depth + 1))
  }
  const op = COMPARISONS[name]
  if (op) {
    const [l, r] = operands(el, ctx)
    // Text compared: a String attribute, or in an SLD rule (no schema) a literal that is no number.
    const text = ctx.attributes
      ? (l.k === 'property' && typeOf(ctx, l.name) === 'String') || (r.k === 'property' && typeOf(ctx, r.name) === 'String')
      : [l, r].some((x) => x.k === 'value' && typeof x.v === 'string')
    if (text && /^false$/i.test(el.attrs.matchCase ?? '') && (op === '=' || op === '<>')) {
      // matchCase="false": a case-insensitive equality, as an ILIKE of the literal quoted.
      const [p, v] = l.k !== 'value' ? [l, r] : [r, l]
      if (v.k === 'value') {
        const f: Filter = { k: 'like', e: p, pattern: String(v.v).replace(/[%_\\]/g, (c) => '\\' + c), ci: true }
        return op === '=' ? f : not(f)
      }
    }
    return { k: 'cmp', op, l, r }
  }
  if (name === 'PropertyIsLike') {
    const e = single(el, ctx)
    const lit = el.children.find((c) => c.local === 'Literal')
    if (!lit) throw InvalidXmlFilter('PropertyIsLike needs a Literal pattern')
    const wild = el.attrs.wildCard ?? '*'
    const one = el.attrs.singleChar ?? '.'
    const escape = el.attrs.escapeChar ?? el.attrs.escape ?? '!'
    const ci = /^false$/i.test(el.attrs.matchCase ?? '')
    return { k: 'like', e, pattern: likeFromOgc(lit.text, wild, one, escape), ci }
  }
  if (name === 'PropertyIsNull' || name === 'PropertyIsNil') return { k: 'null', e: single(el, ctx) }
  if (name === 'PropertyIsBetween') {
    const e = single(el, ctx)
    const type = e.k === 'property' ? typeOf(ctx, e.name) : undefined
    const bound = (which: string): Expression => {
      const b = el.children.find((c) => c.local === which)
      const lit = b?.children.find((c) => c.local === 'Literal')
      // An SLD rule's bound may be an expression too (GeoTools reads any there).
      const other = lit ? undefined : b?.children.find((c) => isSubject(c, ctx) && ctx.expression)
      if (other) return isProperty(other) ? { k: 'property', name: propertyName(ctx, other.text) } : expressionOf(other, ctx)
      if (!lit) throw InvalidXmlFilter(`PropertyIsBetween needs a ${which} with a Literal`)
      return { k: 'value' as const, v: literal(lit.text, type, ctx) }
    }
    return { k: 'between', e, lo: bound('LowerBoundary'), hi: bound('UpperBoundary') }
  }
  if (name === 'BBOX') {
    const prop = el.children.find(isProperty)
    if (prop) geometryName(ctx, prop.text)
    const { env, crs } = envelope(el, ctx)
    // An SLD rule: the Intersects of the envelope, in its CRS until the layer's is known.
    if (!ctx.crs) return { k: 'spatial', op: 'intersects', name: prop ? propertyName(ctx, prop.text) : '', geo: envelopePolygon(env), distance: 0, unresolved: { ...(crs ? { crs } : {}), box: true } }
    return { k: 'bbox', env }
  }
  if (name === 'Function' && ctx.expression) return functionFilter(el, ctx, depth)
  if (ID_ELEMENTS.has(name)) return ids([el], ctx)
  if (SPATIAL.has(name)) return spatial(el, ctx)
  if (TEMPORAL.has(name)) throw UnsupportedFilterOperator(name, 'temporal operators are not supported; compare the time property instead')
  throw UnsupportedFilterOperator(name, 'not a filter operator this server evaluates')
}

const FUNCTION_COMPARISONS: Record<string, ComparisonOp> = {
  equalto: '=', notequalto: '<>', lessthan: '<', lessequalthan: '<=', greaterthan: '>', greaterequalthan: '>='
}
/** A LIKE pattern matching `text` literally. */
const quoteLike = (text: string) => text.replace(/[%_\\]/g, (c) => '\\' + c)

/**
 * An SLD rule's filter that is a function call alone (GeoServer reads it as the function equal to
 * true). GeoServer's boolean functions become the tree's nodes where they map to one (in and in2..
 * in10, between, the comparisons, isNull, not/and/or of such calls, strStartsWith, strEndsWith and
 * strEqualsIgnoreCase of a literal), so a source compiles them to SQL; any other call is kept
 * whole, evaluated per feature, selecting where its result is true (expression.ts truthy).
 */
function functionFilter (el: XmlElement, ctx: OgcFilterContext, depth: number): Filter {
  if (depth > MAX_DEPTH) throw InvalidXmlFilter(`filter nested deeper than ${MAX_DEPTH} levels`)
  const whole = expressionOf(el, ctx) // checks the name and the arguments
  const fn = (el.attrs.name ?? '').trim().toLowerCase()
  const args = el.children
  const operand = (x: XmlElement): Expression => isProperty(x) ? { k: 'property', name: propertyName(ctx, x.text) }
    : x.local === 'Literal' ? { k: 'value', v: literal(x.text, undefined, ctx) } : expressionOf(x, ctx)
  const text = (x: XmlElement | undefined): string | undefined => x?.local === 'Literal' ? x.text : undefined
  const op = FUNCTION_COMPARISONS[fn]
  if (op) return { k: 'cmp', op, l: operand(args[0]), r: operand(args[1]) }
  if (fn === 'between') return { k: 'between', e: operand(args[0]), lo: operand(args[1]), hi: operand(args[2]) }
  if (/^in([2-9]|10)?$/.test(fn)) return { k: 'in', e: operand(args[0]), list: args.slice(1).map(operand) }
  if (fn === 'isnull') return { k: 'null', e: operand(args[0]) }
  if ((fn === 'not' || fn === 'and' || fn === 'or') && args.every((a) => a.local === 'Function')) {
    const parts = args.map((a) => functionFilter(a, ctx, depth + 1))
    return fn === 'not' ? not(parts[0]) : { k: fn, a: parts[0], b: parts[1] }
  }
  const lit = text(args[1])
  if (lit !== undefined) {
    if (fn === 'strstartswith') return { k: 'like', e: operand(args[0]), pattern: quoteLike(lit) + '%', ci: false }
    if (fn === 'strendswith') return { k: 'like', e: operand(args[0]), pattern: '%' + quoteLike(lit), ci: false }
    if (fn === 'strequalsignorecase') return { k: 'like', e: operand(args[0]), pattern: quoteLike(lit), ci: true }
  }
  return { k: 'cmp', op: '=', l: whole, r: { k: 'value', v: true } }
}

/** A geometry property named in a spatial operator: checked against the schema (an SLD rule keeps it as written). */
function geometryName (ctx: OgcFilterContext, raw: string): string {
  const name = propertyName(ctx, raw)
  if (ctx.attributes && typeOf(ctx, name) !== 'Geometry') throw InvalidXmlFilter(`${name} is not a geometry property`)
  return name
}

/**
 * A spatial operator (Intersects, Within, Contains, Disjoint, Touches, Overlaps, Crosses, Equals,
 * DWithin, Beyond): the geometry property (else the type's default geometry), a GML geometry (GML
 * 2, 3.1.1 or 3.2; a gml:Envelope as its polygon) taken to the source's CRS, and for DWithin and
 * Beyond the Distance (uom in FES 2.0, units in Filter 1.x). In an SLD rule the default geometry
 * is named '' and the literal stays in its srsName's CRS (`unresolved`).
 */
function spatial (el: XmlElement, ctx: OgcFilterContext): Filter {
  const op = el.local.toLowerCase() as SpatialOp
  const prop = el.children.find(isProperty)
  let name = ''
  if (prop) name = geometryName(ctx, prop.text)
  else if (ctx.attributes) {
    const g = ctx.attributes.find((a) => a.type === 'Geometry')
    if (!g) throw InvalidXmlFilter(`${el.local}: the type has no geometry`)
    name = g.name
  }
  const literal = el.children.find((c) => !isProperty(c) && c.local !== 'Distance')
  if (!literal) throw InvalidXmlFilter(`${el.local} needs a GML geometry`)
  if (literal.local === 'Literal' || EXPRESSIONS.has(literal.local)) {
    throw UnsupportedFilterOperator(literal.local, `${el.local} compares a property with a GML geometry`)
  }
  let geo: Geo
  let from: string | undefined
  let box = false
  if (literal.local === 'Envelope' || literal.local === 'Box') {
    const e = envelope({ ...el, children: [literal] }, ctx)
    geo = envelopePolygon(e.env)
    from = e.crs
    box = true
  } else {
    let g
    try { g = parseGml(literal, 'filter') } catch (err) {
      if (isMapwardenError(err)) throw InvalidXmlFilter(`${el.local}: ${String(err.args[err.args.length - 1])}`)
      throw err
    }
    geo = g.geo
    from = g.crs ?? (el.attrs.srsName ? crsName(el.attrs.srsName)?.code : undefined)
    if (ctx.crs && from && from !== normalizeCrs(ctx.crs)) {
      try { geo = reprojector(from, ctx.crs)(geo) } catch { throw InvalidXmlFilter(`the geometry cannot be taken from ${from} to ${ctx.crs}`) }
    }
    const e = envelopeOf(geo)
    if (!e || !e.every(Number.isFinite)) throw InvalidXmlFilter(`the geometry cannot be taken from ${from ?? ctx.crs ?? 'its CRS'} to ${ctx.crs ?? 'the layer\'s'}`)
  }
  let distance = 0
  let unit: string | undefined
  if (op === 'dwithin' || op === 'beyond') {
    const d = el.children.find((c) => c.local === 'Distance')
    if (!d) throw InvalidXmlFilter(`${el.local} needs a Distance`)
    const n = Number(d.text.trim())
    if (d.text.trim() === '' || !Number.isFinite(n) || n < 0) throw InvalidXmlFilter(`${el.local}: distance ${JSON.stringify(d.text.slice(0, 40))} is not a number of at least 0`)
    unit = d.attrs.uom ?? d.attrs.units
    distance = ctx.crs ? distanceInCrsUnits(n, unit, ctx.crs) : n
  }
  if (ctx.crs) return { k: 'spatial', op, name, geo, distance }
  return { k: 'spatial', op, name, geo, distance, unresolved: { ...(from ? { crs: from } : {}), ...(unit ? { unit } : {}), ...(box ? { box } : {}) } }
}

/** An envelope's corners (a gml:Envelope or gml:Box child of `el`), minx, miny, maxx, maxy: in the
 *  source's CRS; in an SLD rule (no CRS yet) easting first in the CRS its srsName names, `crs`. */
function envelope (el: XmlElement, ctx: OgcFilterContext): { env: Envelope, crs?: string } {
  const g = el.children.find((c) => c.local === 'Envelope' || c.local === 'Box')
  if (!g) throw InvalidXmlFilter(`${el.local} needs a gml:Envelope or gml:Box`)
  const nums = (s: string | undefined, what: string, count: number) => {
    const v = (s ?? '').trim().split(/[\s,]+/).filter((x) => x !== '').map(Number)
    if (v.length !== count || !v.every(Number.isFinite)) throw InvalidXmlFilter(`${what} must hold ${count} numbers`)
    return v
  }
  let c: number[]
  if (g.local === 'Envelope') {
    const lower = g.children.find((x) => x.local === 'lowerCorner')
    const upper = g.children.find((x) => x.local === 'upperCorner')
    c = [...nums(lower?.text, 'lowerCorner', 2), ...nums(upper?.text, 'upperCorner', 2)]
  } else {
    const coords = g.children.find((x) => x.local === 'coordinates')
    const coord = g.children.filter((x) => x.local === 'coord')
    c = coords ? nums(coords.text, 'gml:coordinates', 4)
      : coord.flatMap((k) => ['X', 'Y'].map((a) => Number(k.children.find((x) => x.local === a)?.text)))
    if (c.length !== 4 || !c.every(Number.isFinite)) throw InvalidXmlFilter('gml:Box needs two corners')
  }
  const srs = g.attrs.srsName ?? el.attrs.srsName
  let env: Envelope = [c[0], c[1], c[2], c[3]]
  let from: string | undefined
  if (srs) {
    const crs = crsName(srs)
    if (!crs) throw InvalidXmlFilter(`unknown CRS ${JSON.stringify(srs.slice(0, 80))}`)
    if (crs.latFirst) env = [c[1], c[0], c[3], c[2]]
    if (!ctx.crs) from = crs.code
    else if (crs.code !== normalizeCrs(ctx.crs)) {
      try { env = transformBbox(env, crs.code, ctx.crs) } catch { throw InvalidXmlFilter(`unsupported CRS ${JSON.stringify(srs.slice(0, 80))}`) }
      if (!env.every(Number.isFinite)) throw InvalidXmlFilter(`the envelope cannot be taken from ${srs.slice(0, 80)} to ${ctx.crs}`)
    }
  }
  if (env[0] > env[2] || env[1] > env[3]) throw InvalidXmlFilter(`the envelope's lower corner is above its upper corner: ${c.join(' ')}`)
  return from ? { env, crs: from } : { env }
}

/**
 * A CRS name as OGC services write it, with the axis order it implies: `EPSG:n` and
 * `http://www.opengis.net/gml/srs/epsg.xml#n` are easting first; `urn:ogc:def:crs:EPSG::n`,
 * `urn:x-ogc:def:crs:EPSG:n` and `http://www.opengis.net/def/crs/EPSG/0/n` follow EPSG's axis order
 * (services/render/crs.ts isNorthingFirst: latitude first for a geographic CRS, northing first for
 * EPSG:3035, the Gauss-Krüger zones...); CRS:84 is EPSG:4326 longitude first. Undefined: not a CRS we know.
 */
export function crsName (name: string): { code: string, latFirst: boolean } | undefined {
  const s = name.trim()
  if (/^(CRS:84|urn:ogc:def:crs:OGC:[0-9.]*:CRS84|https?:\/\/www\.opengis\.net\/def\/crs\/OGC\/[0-9.]+\/CRS84)$/i.test(s)) return { code: 'EPSG:4326', latFirst: false }
  let m = /^(?:EPSG:|https?:\/\/www\.opengis\.net\/gml\/srs\/epsg\.xml#)(\d{1,9})$/i.exec(s)
  let epsgOrder = false
  if (!m) {
    m = /^(?:urn:(?:x-)?ogc:def:crs:EPSG:(?:[0-9.]*:)?|https?:\/\/www\.opengis\.net\/def\/crs\/EPSG\/[0-9.]+\/)(\d{1,9})$/i.exec(s)
    epsgOrder = true
  }
  if (!m) return undefined
  const code = normalizeCrs(`EPSG:${m[1]}`)
  if (code !== 'EPSG:4326' && code !== 'EPSG:3857' && !builtinProj4Def(code)) return undefined
  return { code, latFirst: epsgOrder && isNorthingFirst(code) }
}
