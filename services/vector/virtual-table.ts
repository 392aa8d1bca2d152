// SQL views: GeoServer's JDBC_VIRTUAL_TABLE metadata entry of a feature type (GeoTools' VirtualTable:
// a name, the administrator's SELECT, escapeSql, key columns, geometry columns with type and SRID,
// parameters with a default and a validating regular expression), read through the request's
// `viewparams`. The SELECT is the administrator's; a `%name%` placeholder of a declared parameter is
// never pasted: compileViewSql turns each one into a bound parameter ($n), a placeholder that is the
// whole of a quoted literal ('%name%') into the parameter itself and one inside a literal
// ('%%name%%') into the literal's text concatenated with it. bindView checks each value against its
// expression (the whole value must match, as Java's Pattern.matches) and applies the defaults.
import { InvalidViewParams, InvalidVirtualTable } from '../errors.js'
import { asArray } from '../files/xml.js'
import type { TypeSchema } from './source.js'

export const VIRTUAL_TABLE_KEY = 'JDBC_VIRTUAL_TABLE'

export interface ViewParameter { name: string, defaultValue?: string, regexpValidator?: string }
export interface ViewGeometry { name: string, type: string, srid: number }

export interface VirtualTable {
  name: string
  sql: string
  escapeSql: boolean
  keyColumns: string[]
  geometries: ViewGeometry[]
  parameters: ViewParameter[]
}

/** A view's SELECT with its values bound, and what its rows hold (the feature type's attributes). */
export interface SqlView {
  /** The SELECT, its placeholders as $1..$n. */
  sql: string
  values: string[]
  schema: TypeSchema
  keys: string[]
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const shown = (v: unknown) => { const s = JSON.stringify(v) ?? String(v); return s.length > 80 ? s.slice(0, 80) + '...' : s }

/** GeoTools' geometry type names of a virtual table's geometry (JTS class simple names). */
const GEOMETRY_TYPES = ['Geometry', 'Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection', 'LinearRing']
const PARAM_NAME = /^[A-Za-z0-9_]{1,64}$/
/** The longest value of a parameter a request may send. */
const MAX_VALUE = 1024

function textOf (v: unknown, field: string, required: boolean, max = 256): string | undefined {
  if (v === undefined || v === null || v === '') {
    if (required) throw InvalidVirtualTable(`${field} is required`)
    return undefined
  }
  if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw InvalidVirtualTable(`${field} must be text`)
  const s = String(v)
  if (s.length > max) throw InvalidVirtualTable(`${field} is longer than ${max} characters`)
  return s
}

function only (v: Record<string, unknown>, where: string, keys: string[]): void {
  for (const k of Object.keys(v)) if (!keys.includes(k)) throw InvalidVirtualTable(`${where} has no field ${shown(k)} (fields: ${keys.join(', ')})`)
}

/** A `<virtualTable>` of a body (either wire form, after unifyShape), checked field by field. */
export function parseVirtualTable (v: unknown): VirtualTable {
  if (!isObject(v)) throw InvalidVirtualTable(`the ${VIRTUAL_TABLE_KEY} entry must hold a virtualTable`)
  only(v, 'virtualTable', ['name', 'sql', 'escapeSql', 'keyColumn', 'geometry', 'parameter'])
  const name = textOf(v.name, 'virtualTable name', true)!
  const sql = textOf(v.sql, 'virtualTable sql', true, 65536)!
  const esc = textOf(v.escapeSql, 'escapeSql', false)
  if (esc !== undefined && !/^(true|false)$/i.test(esc)) throw InvalidVirtualTable(`escapeSql must be true or false: ${shown(esc)}`)
  const keyColumns = asArray(v.keyColumn as unknown[]).map((k, i) => textOf(k, `keyColumn ${i + 1}`, true)!)
  const geometries = asArray(v.geometry as unknown[]).map((g, i): ViewGeometry => {
    const where = `geometry ${i + 1}`
    if (!isObject(g)) throw InvalidVirtualTable(`${where} must hold name, type and srid`)
    only(g, where, ['name', 'type', 'srid'])
    const type = textOf(g.type, `${where} type`, false) ?? 'Geometry'
    const known = GEOMETRY_TYPES.find((t) => t.toLowerCase() === type.toLowerCase())
    if (!known) throw InvalidVirtualTable(`${where} type ${shown(type)} is not one of ${GEOMETRY_TYPES.join(', ')}`)
    const sridText = textOf(g.srid, `${where} srid`, false) ?? '-1'
    const srid = Number(sridText)
    if (!Number.isSafeInteger(srid) || srid < -1) throw InvalidVirtualTable(`${where} srid must be an EPSG code: ${shown(sridText)}`)
    return { name: textOf(g.name, `${where} name`, true)!, type: known, srid }
  })
  if (geometries.length === 0) throw InvalidVirtualTable('a layer needs a geometry: give <geometry><name>..</name><type>..</type><srid>..</srid></geometry>')
  const parameters = asArray(v.parameter as unknown[]).map((p, i): ViewParameter => {
    const where = `parameter ${i + 1}`
    if (!isObject(p)) throw InvalidVirtualTable(`${where} must hold name, defaultValue and regexpValidator`)
    only(p, where, ['name', 'defaultValue', 'regexpValidator'])
    const pname = textOf(p.name, `${where} name`, true)!
    if (!PARAM_NAME.test(pname)) throw InvalidVirtualTable(`parameter name ${shown(pname)} must be letters, digits and _`)
    const defaultValue = textOf(p.defaultValue, `parameter ${pname} defaultValue`, false, MAX_VALUE)
    const regexpValidator = textOf(p.regexpValidator, `parameter ${pname} regexpValidator`, false, 1024)
    if (regexpValidator !== undefined) {
      const re = validatorOf(regexpValidator, pname)
      if (defaultValue !== undefined && !re.test(defaultValue)) throw InvalidVirtualTable(`the defaultValue ${shown(defaultValue)} of parameter ${pname} does not match its regexpValidator ${regexpValidator}`)
    }
    return { name: pname, ...(defaultValue !== undefined ? { defaultValue } : {}), ...(regexpValidator !== undefined ? { regexpValidator } : {}) }
  })
  const names = new Set<string>()
  for (const p of parameters) { if (names.has(p.name)) throw InvalidVirtualTable(`parameter ${p.name} is declared twice`); names.add(p.name) }
  compileViewSql(sql, parameters.map((p) => p.name))
  return { name, sql, escapeSql: esc !== undefined && esc.toLowerCase() === 'true', keyColumns, geometries, parameters }
}

/** The virtual table as GeoServer's XStreamPersister writes it (element order: name, sql, escapeSql,
 *  keyColumn, geometry, parameter). */
export function virtualTableValue (vt: VirtualTable): Record<string, unknown> {
  return {
    name: vt.name,
    sql: vt.sql,
    escapeSql: vt.escapeSql,
    keyColumn: vt.keyColumns.length ? vt.keyColumns : undefined,
    geometry: vt.geometries.map((g) => ({ name: g.name, type: g.type, srid: g.srid })),
    parameter: vt.parameters.length ? vt.parameters.map((p) => ({ name: p.name, defaultValue: p.defaultValue, regexpValidator: p.regexpValidator })) : undefined
  }
}

/** A parameter's validator as a whole-value match (Java's Pattern.matcher(value).matches()). */
function validatorOf (pattern: string, name: string): RegExp {
  try { return new RegExp(`^(?:${pattern})$`, 'u') } catch (err) {
    throw InvalidVirtualTable(`the regexpValidator of parameter ${name} is not a regular expression: ${(err as Error).message}`)
  }
}

type Part = string | { param: string, cast: boolean }
const DOLLAR = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/

/**
 * The view's SELECT in parts: SQL text and the parameters standing where a placeholder was. Outside
 * quotes `%p%` is a parameter; a single-quoted literal that is only `'%p%'` is the parameter; one
 * with text around it is the concatenation ('a' || $n::text || 'b'). A placeholder inside a quoted
 * identifier or a dollar-quoted string cannot be bound and is refused, as is a `$n` of the SQL's own.
 */
export function compileViewSql (sql: string, names: string[]): Part[] {
  const placeholder = names.length ? new RegExp(`%(${names.map((n) => n.replace(/[^A-Za-z0-9_]/g, '')).join('|')})%`, 'g') : undefined
  const parts: Part[] = []
  let text = ''
  const plain = (s: string) => {
    if (!placeholder) { text += s; return }
    let at = 0
    for (const m of s.matchAll(placeholder)) {
      text += s.slice(at, m.index)
      parts.push(text); text = ''
      parts.push({ param: m[1], cast: false })
      at = m.index! + m[0].length
    }
    text += s.slice(at)
  }
  let i = 0
  let from = 0
  while (i < sql.length) {
    const c = sql[i]
    if (c === '\'') {
      plain(sql.slice(from, i))
      const escaped = i > 0 && /[eE]/.test(sql[i - 1]) && (i < 2 || !/[A-Za-z0-9_]/.test(sql[i - 2]))
      let j = i + 1
      let body = ''
      for (;;) {
        if (j >= sql.length) throw InvalidVirtualTable('the SQL has a quoted literal without its closing quote')
        if (escaped && sql[j] === '\\') { body += sql.slice(j, j + 2); j += 2; continue }
        if (sql[j] === '\'') { if (sql[j + 1] === '\'') { body += '\'\''; j += 2; continue } break }
        body += sql[j++]
      }
      literal(body, parts, placeholder, (s) => { text += s }, () => { parts.push(text); text = '' }, escaped)
      i = from = j + 1
      continue
    }
    // Quoted identifiers, dollar-quoted strings and comments are kept as they are.
    let end = -1
    if (c === '"' || (c === '$' && DOLLAR.test(sql.slice(i, i + 66)))) {
      const close = c === '"' ? '"' : DOLLAR.exec(sql.slice(i, i + 66))![0]
      const stop = sql.indexOf(close, i + close.length)
      if (stop < 0) throw InvalidVirtualTable(`the SQL has a ${c === '"' ? 'quoted identifier' : 'dollar-quoted string'} without its end`)
      const inner = sql.slice(i + close.length, stop)
      if (placeholder && inner.match(placeholder)) throw InvalidVirtualTable(`a parameter placeholder inside ${c === '"' ? 'a quoted identifier' : 'a dollar-quoted string'} cannot be bound: ${shown(inner)}`)
      end = stop + close.length
    } else if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i)
      end = nl < 0 ? sql.length : nl
    } else if (c === '/' && sql[i + 1] === '*') {
      const stop = sql.indexOf('*/', i + 2)
      if (stop < 0) throw InvalidVirtualTable('the SQL has a comment without its end')
      end = stop + 2
    } else if (c === '$' && /[0-9]/.test(sql[i + 1] ?? '')) {
      throw InvalidVirtualTable('the SQL may not hold positional parameters ($1...): declare parameters and write %name%')
    }
    if (end >= 0) {
      plain(sql.slice(from, i))
      text += sql.slice(i, end)
      i = from = end
      continue
    }
    i++
  }
  plain(sql.slice(from))
  parts.push(text)
  return parts.filter((p) => p !== '')
}

function literal (body: string, parts: Part[], placeholder: RegExp | undefined, add: (s: string) => void, flush: () => void, escaped: boolean): void {
  const quote = (s: string) => `${escaped ? 'E' : ''}'${s}'`
  const ms = placeholder ? [...body.matchAll(placeholder)] : []
  if (ms.length === 0) { add(quote(body)); return }
  if (ms.length === 1 && ms[0][0] === body) { flush(); parts.push({ param: ms[0][1], cast: false }); return }
  add('(')
  let at = 0
  const pieces: string[] = []
  for (const m of ms) {
    if (m.index! > at) pieces.push(quote(body.slice(at, m.index)))
    pieces.push('\u0000' + m[1])
    at = m.index! + m[0].length
  }
  if (at < body.length) pieces.push(quote(body.slice(at)))
  pieces.forEach((p, k) => {
    if (k > 0) add(' || ')
    if (p.startsWith('\u0000')) { flush(); parts.push({ param: p.slice(1), cast: true }) } else add(p)
  })
  add(')')
}

/**
 * The view's SELECT with the request's values bound: each value checked against its parameter's
 * expression, a missing one taken from the default (a parameter with neither is refused, naming it).
 * Values for parameters the view does not declare are ignored, as GeoServer does.
 */
export function bindView (vt: VirtualTable, given: Record<string, string> | undefined): { sql: string, values: string[] } {
  const valueOf = viewValues(vt, given)
  const values: string[] = []
  const sql = compileViewSql(vt.sql, vt.parameters.map((p) => p.name)).map((part) => {
    if (typeof part === 'string') return part
    values.push(valueOf.get(part.param)!)
    return part.cast ? `$${values.length}::text` : `$${values.length}`
  }).join('')
  return { sql, values }
}

/** Each declared parameter's value: the one sent (checked against its regexpValidator) or its default. */
function viewValues (vt: VirtualTable, given: Record<string, string> | undefined): Map<string, string> {
  const valueOf = new Map<string, string>()
  for (const p of vt.parameters) {
    const sent = given?.[p.name]
    const v = sent ?? p.defaultValue
    if (v === undefined) throw InvalidViewParams(`parameter ${p.name} of ${vt.name} has no value and no default: give viewparams=${p.name}:<value>`)
    if (sent !== undefined) {
      if (sent.length > MAX_VALUE) throw InvalidViewParams(`the value of parameter ${p.name} is longer than ${MAX_VALUE} characters`)
      if (p.regexpValidator !== undefined && !validatorOf(p.regexpValidator, p.name).test(sent)) throw InvalidViewParams(`the value ${shown(sent)} of parameter ${p.name} does not match its regexpValidator ${p.regexpValidator}`)
    }
    valueOf.set(p.name, v)
  }
  return valueOf
}

/**
 * A tile request's VIEWPARAMS for one SQL view, as the tile set is named and drawn by (its parameter
 * filter's value): parsed as viewparams of one layer, each declared parameter checked as a read checks
 * it (bindView), parameters the view does not declare and values equal to their default left out,
 * the rest sorted by name and escaped. '' is the defaults: the same tiles as no VIEWPARAMS.
 */
export function normalViewParams (vt: VirtualTable, v: string): string {
  const given = parseViewParams(v, 1)[0]
  const values = viewValues(vt, given)
  const esc = (s: string) => s.replace(/[\\,;:]/g, (c) => `\\${c}`)
  return vt.parameters.filter((p) => given?.[p.name] !== undefined && values.get(p.name) !== p.defaultValue)
    .map((p) => p.name).sort().map((n) => `${esc(n)}:${esc(values.get(n)!)}`).join(';')
}

/** Splits on `sep` where it is not escaped by a backslash; the escapes of `sep` are kept for the next split. */
function splitEscaped (s: string, sep: string): string[] {
  const out: string[] = []
  let cur = ''
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length) { cur += s[i] + s[i + 1]; i++; continue }
    if (s[i] === sep) { out.push(cur); cur = '' } else cur += s[i]
  }
  out.push(cur)
  return out
}
const unescape = (s: string) => s.replace(/\\(.)/g, '$1')

/**
 * `viewparams` as GeoServer's ViewParamsKvpParser reads it: `k1:v1;k2:v2` for every layer, or
 * one such list per layer separated by commas (`a:1,a:2`; an empty item leaves that layer's
 * defaults); `\` escapes `,`, `;` and `:` in values. Returns the parameters of each of `layers`.
 */
export function parseViewParams (v: string | undefined, layers: number): Array<Record<string, string> | undefined> {
  if (v === undefined || v === '') return new Array(layers).fill(undefined)
  if (v.length > 65536) throw InvalidViewParams('longer than 65536 characters')
  const lists = splitEscaped(v, ',').map((item): Record<string, string> | undefined => {
    if (item === '') return undefined
    const out: Record<string, string> = {}
    for (const pair of splitEscaped(item, ';')) {
      if (pair === '') continue
      const kv = splitEscaped(pair, ':')
      if (kv.length < 2) throw InvalidViewParams(`${shown(unescape(pair))} is not name:value`)
      out[unescape(kv[0])] = unescape(kv.slice(1).join(':'))
    }
    return out
  })
  if (lists.length === 1) return new Array(layers).fill(lists[0])
  if (lists.length !== layers) throw InvalidViewParams(`${lists.length} parameter lists for ${layers} layers: give one list for all layers or one per layer`)
  return lists
}

/** The read of a feature type published from a virtual table: its SELECT with the request's
 *  parameters bound, its attributes and geometry as the feature type holds them. */
export function sqlViewOf (vt: VirtualTable, schema: Omit<TypeSchema, 'name'>, given: Record<string, string> | undefined): SqlView {
  const b = bindView(vt, given)
  return { sql: b.sql, values: b.values, schema: { ...schema, name: vt.name }, keys: vt.keyColumns }
}

/**
 * The virtual table of a feature type body's `metadata` (`<entry key="JDBC_VIRTUAL_TABLE">`);
 * undefined when the body has none. Another entry is refused by name: mapwarden keeps no other
 * metadata of a feature type.
 */
export function virtualTableOfMetadata (v: unknown): VirtualTable | undefined {
  if (v === undefined || v === null || v === '') return undefined
  if (!isObject(v)) throw InvalidVirtualTable('metadata must hold entry elements')
  only(v, 'metadata', ['entry'])
  let vt: VirtualTable | undefined
  for (const [i, e] of asArray(v.entry as unknown[]).entries()) {
    if (!isObject(e) || typeof e['@key'] !== 'string') throw InvalidVirtualTable(`metadata entry ${i + 1} needs a key attribute (<entry key="...">, "@key")`)
    if (e['@key'] !== VIRTUAL_TABLE_KEY) throw InvalidVirtualTable(`metadata entry ${shown(e['@key'])} is not kept by mapwarden: a feature type's metadata holds ${VIRTUAL_TABLE_KEY} only`)
    only(e, `metadata entry ${VIRTUAL_TABLE_KEY}`, ['@key', 'virtualTable'])
    if (vt) throw InvalidVirtualTable(`metadata holds ${VIRTUAL_TABLE_KEY} twice`)
    vt = parseVirtualTable(e.virtualTable)
  }
  return vt
}
