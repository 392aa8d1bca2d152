// SLD expressions as the render workers evaluate them on one feature: literals, property names,
// mixed content (a Label's text between PropertyNames, concatenated), arithmetic and the filter
// functions GeoServer's styles reach for, with GeoTools' semantics:
// - strConcat(a, b) and Concatenate(a, ...): the texts joined (a null reads as "null" in
//   strConcat, as Java's String.concat of String.valueOf; Concatenate skips nulls);
// - strToUpperCase, strToLowerCase;
// - Recode(value, key1, value1, ...): the value of the first key equal to value (numbers as
//   numbers), else null;
// - Categorize(value, class0, threshold1, class1, ..., [succeeding|preceding]): class0 below
//   threshold1, class i from threshold i; "preceding" puts a threshold in the class below it;
// - Interpolate(value, data1, value1, ..., [linear|cosine|cubic], [numeric|color]): clamped to the
//   first and last values, colours interpolated per channel (cubic is drawn as linear);
// - in(value, candidate, ...) and in2 .. in10: whether value equals a candidate;
// - GeoServer's boolean functions, true or false (a rule's ogc:Filter may be one alone, matching
//   where it is true): equalTo, notEqualTo, lessThan, lessEqualThan, greaterThan,
//   greaterEqualThan (numbers as numbers, else text; a null compares false), between(value, low,
//   high) inclusive, isNull, not, and, or, strStartsWith, strEndsWith, strEqualsIgnoreCase,
//   strMatches (a regular expression matching the whole text).
// A result that does not fit where it is used (not a colour, not a number) leaves the symbolizer's
// default, as GeoTools does.
export type Expr =
  | { lit: string }
  | { prop: string }
  | { fn: string, args: Expr[] }
  | { op: '+' | '-' | '*' | '/', args: [Expr, Expr] }
  | { cat: Expr[] }

/** Function names (lower case, as GeoTools matches them) to their arity [min, max]. */
export const FUNCTIONS: Record<string, [number, number]> = {
  strconcat: [2, 2],
  concatenate: [1, Infinity],
  strtouppercase: [1, 1],
  strtolowercase: [1, 1],
  recode: [3, Infinity],
  categorize: [1, Infinity],
  interpolate: [3, Infinity],
  in: [2, Infinity],
  ...Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`in${i + 2}`, [i + 3, i + 3]])),
  equalto: [2, 2],
  notequalto: [2, 2],
  lessthan: [2, 2],
  lessequalthan: [2, 2],
  greaterthan: [2, 2],
  greaterequalthan: [2, 2],
  between: [3, 3],
  isnull: [1, 1],
  not: [1, 1],
  and: [2, 2],
  or: [2, 2],
  strstartswith: [2, 2],
  strendswith: [2, 2],
  strequalsignorecase: [2, 2],
  strmatches: [2, 2]
}

/** The boolean functions (a rule's filter may be one of them alone). */
export const BOOLEAN_FUNCTIONS = new Set(['in', ...Array.from({ length: 9 }, (_, i) => `in${i + 2}`), 'equalto', 'notequalto', 'lessthan', 'lessequalthan',
  'greaterthan', 'greaterequalthan', 'between', 'isnull', 'not', 'and', 'or', 'strstartswith', 'strendswith', 'strequalsignorecase', 'strmatches'])

/** Whether a function's result selects a feature when it is a rule's whole filter: true, as GeoTools
 *  compares it with the literal true (the text true or 1, the number 1). */
export function truthy (v: unknown): boolean {
  if (typeof v === 'boolean') return v
  if (typeof v === 'number') return v === 1
  if (typeof v === 'string') return /^\s*(true|1)\s*$/i.test(v)
  return false
}

type Props = Record<string, unknown>

function property (props: Props, name: string): unknown {
  if (name in props) return props[name]
  const lower = name.toLowerCase()
  return Object.entries(props).find(([k]) => k.toLowerCase() === lower)?.[1]
}

/** A value as text, as GeoTools converts it for a label. */
export function asText (v: unknown): string | null {
  if (v === null || v === undefined) return null
  if (v instanceof Date) return v.toISOString()
  return String(v)
}

export function asNumber (v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null
  if (typeof v === 'bigint') return Number(v)
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'string' && v.trim() !== '') { const n = Number(v); return Number.isFinite(n) ? n : null }
  return null
}

function equal (a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return false
  const x = asNumber(a); const y = asNumber(b)
  if (x !== null && y !== null && (typeof a === 'number' || typeof b === 'number')) return x === y
  return asText(a) === asText(b)
}

/** #RRGGBB (or #RGB) as [r, g, b], else undefined. */
export function rgb (v: unknown): [number, number, number] | undefined {
  const m = typeof v === 'string' ? /^\s*#?([0-9a-f]{6}|[0-9a-f]{3})\s*$/i.exec(v) : null
  if (!m) return undefined
  const h = m[1].length === 3 ? m[1].split('').map((c) => c + c).join('') : m[1]
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number]
}

const hex = (c: number[]) => '#' + c.map((v) => Math.round(Math.min(255, Math.max(0, v))).toString(16).padStart(2, '0')).join('').toUpperCase()

function categorize (value: number | null, rest: unknown[]): unknown {
  let args = rest
  let preceding = false
  const last = asText(args[args.length - 1])?.toLowerCase()
  if (args.length % 2 === 0 && (last === 'succeeding' || last === 'preceding')) { preceding = last === 'preceding'; args = args.slice(0, -1) }
  if (value === null) return null
  let out = args[0]
  for (let i = 1; i + 1 < args.length; i += 2) {
    const t = asNumber(args[i])
    if (t === null) continue
    if (preceding ? value > t : value >= t) out = args[i + 1]
    else break
  }
  return out
}

function interpolate (value: number | null, rest: unknown[]): unknown {
  let args = rest
  let color = false
  let mode = 'linear'
  for (let k = 0; k < 2 && args.length > 0; k++) {
    const w = asText(args[args.length - 1])?.toLowerCase()
    if (w === 'color' || w === 'numeric') color = w === 'color'
    else if (w === 'linear' || w === 'cosine' || w === 'cubic') mode = w
    else break
    args = args.slice(0, -1)
  }
  if (value === null || args.length < 2) return null
  const points: Array<[number, unknown]> = []
  for (let i = 0; i + 1 < args.length; i += 2) { const d = asNumber(args[i]); if (d !== null) points.push([d, args[i + 1]]) }
  if (points.length === 0) return null
  if (value <= points[0][0]) return points[0][1]
  if (value >= points[points.length - 1][0]) return points[points.length - 1][1]
  const j = points.findIndex(([d]) => d > value)
  const [d0, v0] = points[j - 1]; const [d1, v1] = points[j]
  let t = (value - d0) / (d1 - d0)
  if (mode === 'cosine') t = (1 - Math.cos(t * Math.PI)) / 2
  const c0 = color || rgb(v0) !== undefined ? rgb(v0) : undefined
  const c1 = c0 ? rgb(v1) : undefined
  if (c0 && c1) return hex(c0.map((c, i) => c + (c1[i] - c) * t))
  const n0 = asNumber(v0); const n1 = asNumber(v1)
  return n0 === null || n1 === null ? null : n0 + (n1 - n0) * t
}

/** a compared with b: numbers as numbers when both read as one, else text; null when either is null. */
function order (a: unknown, b: unknown): number | null {
  if (a === null || a === undefined || b === null || b === undefined) return null
  const x = asNumber(a); const y = asNumber(b)
  if (x !== null && y !== null) return x < y ? -1 : x > y ? 1 : 0
  const s = String(asText(a)); const t = String(asText(b))
  return s < t ? -1 : s > t ? 1 : 0
}

const regExps = new Map<string, RegExp | null>()
/** Whether the regular expression matches the whole text (Java's String.matches); one that does not compile matches nothing. */
function matchesRegExp (text: string | null, re: string | null): boolean {
  if (text === null || re === null) return false
  let r = regExps.get(re)
  if (r === undefined) {
    try { r = new RegExp(`^(?:${re})$`, 'u') } catch { r = null }
    if (regExps.size > 256) regExps.clear()
    regExps.set(re, r)
  }
  return r !== null && r.test(text)
}

function call (name: string, a: unknown[]): unknown {
  const cmp = () => order(a[0], a[1])
  switch (name) {
    case 'equalto': return equal(a[0], a[1])
    case 'notequalto': return a[0] !== null && a[0] !== undefined && a[1] !== null && a[1] !== undefined && !equal(a[0], a[1])
    case 'lessthan': { const c = cmp(); return c !== null && c < 0 }
    case 'lessequalthan': { const c = cmp(); return c !== null && c <= 0 }
    case 'greaterthan': { const c = cmp(); return c !== null && c > 0 }
    case 'greaterequalthan': { const c = cmp(); return c !== null && c >= 0 }
    case 'between': { const lo = order(a[0], a[1]); const hi = order(a[0], a[2]); return lo !== null && hi !== null && lo >= 0 && hi <= 0 }
    case 'isnull': return a[0] === null || a[0] === undefined
    case 'not': return !truthy(a[0])
    case 'and': return truthy(a[0]) && truthy(a[1])
    case 'or': return truthy(a[0]) || truthy(a[1])
    case 'strstartswith': { const s = asText(a[0]); const p = asText(a[1]); return s !== null && p !== null && s.startsWith(p) }
    case 'strendswith': { const s = asText(a[0]); const p = asText(a[1]); return s !== null && p !== null && s.endsWith(p) }
    case 'strequalsignorecase': { const s = asText(a[0]); const p = asText(a[1]); return s !== null && p !== null && s.toLowerCase() === p.toLowerCase() }
    case 'strmatches': return matchesRegExp(asText(a[0]), asText(a[1]))
    case 'strconcat': return String(asText(a[0])) + String(asText(a[1]))
    case 'concatenate': return a.map(asText).filter((s) => s !== null).join('')
    case 'strtouppercase': return asText(a[0])?.toUpperCase() ?? null
    case 'strtolowercase': return asText(a[0])?.toLowerCase() ?? null
    case 'recode': {
      for (let i = 1; i + 1 < a.length; i += 2) if (equal(a[0], a[i])) return a[i + 1]
      return null
    }
    case 'categorize': return categorize(asNumber(a[0]), a.slice(1))
    case 'interpolate': return interpolate(asNumber(a[0]), a.slice(1))
    default: // in, in2 .. in10
      return a.slice(1).some((c) => equal(a[0], c))
  }
}

/** The value of an expression on a feature's properties (null when missing). */
export function evaluate (e: Expr, props: Props): unknown {
  return evaluateWith(e, (name) => property(props, name))
}

/** The value of an expression with the feature's properties read by `get` (an SLD rule's filter's view). */
export function evaluateWith (e: Expr, get: (name: string) => unknown): unknown {
  if ('lit' in e) return e.lit
  if ('prop' in e) return get(e.prop) ?? null
  if ('cat' in e) return e.cat.map((p) => asText(evaluateWith(p, get)) ?? '').join('')
  if ('op' in e) {
    const x = asNumber(evaluateWith(e.args[0], get)); const y = asNumber(evaluateWith(e.args[1], get))
    if (x === null || y === null) return null
    return e.op === '+' ? x + y : e.op === '-' ? x - y : e.op === '*' ? x * y : x / y
  }
  return call(e.fn, e.args.map((x) => evaluateWith(x, get)))
}
