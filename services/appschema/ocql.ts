// The OCQL expressions of a mapping's sourceExpression, idExpression and ClientProperty (GeoTools'
// CQL expressions, as GeoServer's app-schema "mapping-file" page describes them): attribute names of
// the source row, literals, + - * /, and functions: strConcat, if_then_else, Recode, equalTo and the
// common string and math functions; getId() (and an attribute named ID the row lacks) is the row's
// feature id. Tokens are the ECQL tokenizer's (services/filters/ecql-parser.ts) with `*` added.
import { tokenize } from '../filters/ecql-parser.js'
import { InvalidMapping } from '../errors.js'

export type Expr =
  | { k: 'attr', name: string }
  | { k: 'lit', v: string | number | boolean | null }
  | { k: 'fn', name: string, args: Expr[] }
  | { k: 'bin', op: '+' | '-' | '*' | '/', a: Expr, b: Expr }

/** A source row: its feature id and its values by attribute name (a geometry as GeoJSON). */
export interface Row { id: string, values: Record<string, unknown> }

const MAX_LENGTH = 10_000

export class OcqlError extends Error {}

/** Parses an OCQL expression; throws OcqlError with the problem. */
export function parseOcql (text: string): Expr {
  if (text.length > MAX_LENGTH) throw new OcqlError(`expression longer than ${MAX_LENGTH} characters`)
  // `*` is not an ECQL filter operator: the pieces between are tokenized and it is put back.
  const toks: Array<{ t: string, v: string, pos: number }> = []
  let offset = 0
  for (const part of text.split('*')) {
    if (offset > 0) toks.push({ t: 'op', v: '*', pos: offset - 1 })
    try {
      for (const tk of tokenize(part)) toks.push({ ...tk, pos: tk.pos + offset })
    } catch (err) { throw new OcqlError((err as Error).message) }
    offset += part.length + 1
  }
  let i = 0
  const peek = () => toks[i]
  const isOp = (v: string) => toks[i]?.t === 'op' && toks[i].v === v
  const where = () => toks[i] ? `at position ${toks[i].pos} (${JSON.stringify(toks[i].v)})` : 'at the end'
  const expect = (v: string) => { if (!isOp(v)) throw new OcqlError(`expected "${v}" ${where()}`); i++ }
  const primary = (): Expr => {
    const t = peek()
    if (!t) throw new OcqlError('expression expected at the end')
    if (isOp('(')) { i++; const e = sum(); expect(')'); return e }
    if (isOp('-')) { i++; return { k: 'bin', op: '-', a: { k: 'lit', v: 0 }, b: primary() } }
    i++
    if (t.t === 'str' || t.t === 'date') return { k: 'lit', v: t.v }
    if (t.t === 'num') return { k: 'lit', v: Number(t.v) }
    if (t.t === 'qid') return { k: 'attr', name: t.v }
    if (t.t === 'id') {
      if (isOp('(')) {
        i++
        const args: Expr[] = []
        if (!isOp(')')) {
          args.push(sum())
          while (isOp(',')) { i++; args.push(sum()) }
        }
        expect(')')
        return { k: 'fn', name: t.v, args }
      }
      const up = t.v.toUpperCase()
      if (up === 'TRUE' || up === 'FALSE') return { k: 'lit', v: up === 'TRUE' }
      if (up === 'NULL') return { k: 'lit', v: null }
      return { k: 'attr', name: t.v }
    }
    throw new OcqlError(`unexpected ${JSON.stringify(t.v)} at position ${t.pos}`)
  }
  const product = (): Expr => {
    let e = primary()
    while (isOp('*') || isOp('/')) { const op = toks[i++].v as '*' | '/'; e = { k: 'bin', op, a: e, b: primary() } }
    return e
  }
  const sum = (): Expr => {
    let e = product()
    while (isOp('+') || isOp('-')) { const op = toks[i++].v as '+' | '-'; e = { k: 'bin', op, a: e, b: product() } }
    return e
  }
  const e = sum()
  if (i < toks.length) throw new OcqlError(`unexpected ${JSON.stringify(toks[i].v)} at position ${toks[i].pos}`)
  checkFunctions(e)
  return e
}

/** Parses an expression of a mapping file; a bad one is an InvalidMapping naming file and element. */
export function mappingExpression (text: string, file: string, element: string): Expr {
  try { return parseOcql(text) } catch (err) {
    if (!(err instanceof OcqlError)) throw err
    throw InvalidMapping(1, '', `- ${file}: ${element}: OCQL ${JSON.stringify(text.slice(0, 80))}: ${err.message}`)
  }
}

const str = (v: unknown): string => v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : String(v)
const num = (v: unknown): number => typeof v === 'number' ? v : Number(v)
const eq = (a: unknown, b: unknown): boolean => {
  if (a === null || a === undefined || b === null || b === undefined) return a === b || (a == null && b == null)
  if (typeof a === 'number' || typeof b === 'number') return num(a) === num(b)
  return str(a) === str(b)
}

type Fn = (args: unknown[]) => unknown
const FUNCTIONS: Record<string, { min: number, max: number, fn: Fn }> = {
  strconcat: { min: 2, max: 64, fn: (a) => a.some((v) => v === null || v === undefined) ? null : a.map(str).join('') },
  concatenate: { min: 1, max: 64, fn: (a) => a.map(str).join('') },
  strtouppercase: { min: 1, max: 1, fn: ([s]) => s == null ? null : str(s).toUpperCase() },
  strtolowercase: { min: 1, max: 1, fn: ([s]) => s == null ? null : str(s).toLowerCase() },
  strtrim: { min: 1, max: 1, fn: ([s]) => s == null ? null : str(s).trim() },
  strlength: { min: 1, max: 1, fn: ([s]) => s == null ? null : str(s).length },
  strsubstring: { min: 3, max: 3, fn: ([s, b, e]) => s == null ? null : str(s).substring(num(b), num(e)) },
  strsubstringstart: { min: 2, max: 2, fn: ([s, b]) => s == null ? null : str(s).substring(num(b)) },
  strreplace: { min: 4, max: 4, fn: ([s, f, r, all]) => s == null ? null : (all === true || str(all) === 'true') ? str(s).split(str(f)).join(str(r)) : str(s).replace(str(f), str(r)) },
  strindexof: { min: 2, max: 2, fn: ([s, f]) => s == null ? null : str(s).indexOf(str(f)) },
  strstartswith: { min: 2, max: 2, fn: ([s, f]) => str(s).startsWith(str(f)) },
  strendswith: { min: 2, max: 2, fn: ([s, f]) => str(s).endsWith(str(f)) },
  strequalsignorecase: { min: 2, max: 2, fn: ([a, b]) => str(a).toLowerCase() === str(b).toLowerCase() },
  equalto: { min: 2, max: 2, fn: ([a, b]) => eq(a, b) },
  notequalto: { min: 2, max: 2, fn: ([a, b]) => !eq(a, b) },
  isnull: { min: 1, max: 1, fn: ([a]) => a === null || a === undefined },
  not: { min: 1, max: 1, fn: ([a]) => !(a === true || str(a) === 'true') },
  if_then_else: { min: 3, max: 3, fn: ([c, a, b]) => (c === true || str(c) === 'true') ? a : b },
  recode: {
    min: 3,
    max: 201,
    fn: ([v, ...pairs]) => {
      // GeoTools' Recode: (value, from1, to1, from2, to2...); no match is null. String keys match without case.
      for (let j = 0; j + 1 < pairs.length; j += 2) {
        const k = pairs[j]
        if (eq(v, k) || (typeof v === 'string' && typeof k === 'string' && v.toLowerCase() === k.toLowerCase())) return pairs[j + 1]
      }
      return null
    }
  },
  abs: { min: 1, max: 1, fn: ([a]) => Math.abs(num(a)) },
  ceil: { min: 1, max: 1, fn: ([a]) => Math.ceil(num(a)) },
  floor: { min: 1, max: 1, fn: ([a]) => Math.floor(num(a)) },
  round: { min: 1, max: 1, fn: ([a]) => Math.round(num(a)) },
  sqrt: { min: 1, max: 1, fn: ([a]) => Math.sqrt(num(a)) },
  pow: { min: 2, max: 2, fn: ([a, b]) => Math.pow(num(a), num(b)) },
  min: { min: 2, max: 2, fn: ([a, b]) => Math.min(num(a), num(b)) },
  max: { min: 2, max: 2, fn: ([a, b]) => Math.max(num(a), num(b)) },
  tostring: { min: 1, max: 1, fn: ([a]) => a == null ? null : str(a) },
  getid: { min: 0, max: 0, fn: () => undefined } // evaluated in evaluate(): needs the row
}

function checkFunctions (e: Expr): void {
  if (e.k === 'bin') { checkFunctions(e.a); checkFunctions(e.b); return }
  if (e.k !== 'fn') return
  const f = FUNCTIONS[e.name.toLowerCase()]
  if (!f) throw new OcqlError(`unknown function ${e.name} (known: ${Object.keys(FUNCTIONS).join(', ')})`)
  if (e.args.length < f.min || e.args.length > f.max) throw new OcqlError(`${e.name} takes ${f.min === f.max ? f.min : `${f.min} to ${f.max}`} arguments, not ${e.args.length}`)
  e.args.forEach(checkFunctions)
}

/** A row's value of an attribute: the exact name, else the name without regard to case (PostGIS
 *  columns are lower case where property files write upper case); `ID` the row lacks is its id. */
export function rowValue (row: Row, name: string): unknown {
  if (name in row.values) return row.values[name]
  // The rows of a source share their attribute names: the one found for a name is tried first.
  const known = foundNames.get(name)
  if (known !== undefined && known in row.values) return row.values[known]
  const lower = name.toLowerCase()
  for (const k in row.values) {
    if (k.toLowerCase() !== lower) continue
    if (foundNames.size > 10_000) foundNames.clear()
    foundNames.set(name, k)
    return row.values[k]
  }
  if (lower === 'id') return row.id
  return undefined
}
const foundNames = new Map<string, string>()

export function evaluate (e: Expr, row: Row): unknown {
  switch (e.k) {
    case 'lit': return e.v
    case 'attr': return rowValue(row, e.name)
    case 'bin': {
      const a = evaluate(e.a, row)
      const b = evaluate(e.b, row)
      if (a == null || b == null) return null
      if (e.op === '+') return typeof a === 'number' && typeof b === 'number' ? a + b : Number.isFinite(num(a)) && Number.isFinite(num(b)) ? num(a) + num(b) : str(a) + str(b)
      if (e.op === '-') return num(a) - num(b)
      if (e.op === '*') return num(a) * num(b)
      return num(a) / num(b)
    }
    case 'fn': {
      const name = e.name.toLowerCase()
      if (name === 'getid') return row.id
      return FUNCTIONS[name].fn(e.args.map((x) => evaluate(x, row)))
    }
  }
}

/** The source attribute an expression is, when it is one plainly (a filter on it can go to SQL). */
export function plainAttribute (e: Expr): string | undefined {
  return e.k === 'attr' ? e.name : undefined
}
