// The filter tree (tree.ts) evaluated on one feature's attributes, for readers that filter after
// the read (an SLD rule choosing the features it draws). Comparisons follow GeoTools: numbers when
// both sides read as numbers, text otherwise; a null attribute matches no comparison.
import type { Envelope, Expression, Filter, Value } from './tree.js'

type Props = Record<string, unknown>

function valueOf (e: Expression, props: Props): unknown {
  if (e.k === 'value') return e.v
  if (e.name in props) return props[e.name]
  const lower = e.name.toLowerCase()
  for (const k of Object.keys(props)) if (k.toLowerCase() === lower) return props[k]
  return null
}

const asNumber = (v: unknown): number | undefined => {
  if (typeof v === 'number') return v
  if (typeof v === 'bigint') return Number(v)
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'string' && v.trim() !== '') { const n = Number(v); return Number.isFinite(n) ? n : undefined }
  return undefined
}
const asText = (v: unknown): string => v instanceof Date ? v.toISOString() : String(v)

/** -1, 0 or 1; undefined when either side is null. */
function compare (a: unknown, b: unknown): number | undefined {
  if (a === null || a === undefined || b === null || b === undefined) return undefined
  const na = asNumber(a); const nb = asNumber(b)
  if (na !== undefined && nb !== undefined) return na < nb ? -1 : na > nb ? 1 : 0
  if (typeof a === 'boolean' || typeof b === 'boolean') { const ta = asText(a).toLowerCase(); const tb = asText(b).toLowerCase(); return ta === tb ? 0 : ta < tb ? -1 : 1 }
  const ta = asText(a); const tb = asText(b)
  return ta === tb ? 0 : ta < tb ? -1 : 1
}

const likeCache = new Map<string, RegExp>()
function likeRegExp (pattern: string, ci: boolean): RegExp {
  const key = `${ci ? 'i' : 's'}${pattern}`
  let re = likeCache.get(key)
  if (re) return re
  let src = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\' && i + 1 < pattern.length) src += pattern[++i].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
    else if (c === '%') src += '[\\s\\S]*'
    else if (c === '_') src += '[\\s\\S]'
    else src += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  }
  re = new RegExp(`^${src}$`, ci ? 'i' : '')
  if (likeCache.size > 500) likeCache.clear()
  likeCache.set(key, re)
  return re
}

/** Whether the feature with these attributes (and footprint envelope, for BBOX) passes the filter. */
export function matches (f: Filter, props: Props, envelope?: Envelope): boolean {
  switch (f.k) {
    case 'const': return f.v
    case 'and': return matches(f.a, props, envelope) && matches(f.b, props, envelope)
    case 'or': return matches(f.a, props, envelope) || matches(f.b, props, envelope)
    case 'not': return !matches(f.a, props, envelope)
    case 'cmp': {
      const c = compare(valueOf(f.l, props), valueOf(f.r, props))
      if (c === undefined) return false
      switch (f.op) {
        case '=': return c === 0
        case '<>': return c !== 0
        case '<': return c < 0
        case '<=': return c <= 0
        case '>': return c > 0
        case '>=': return c >= 0
      }
      return false
    }
    case 'between': {
      const v = valueOf(f.e, props)
      const lo = compare(v, valueOf(f.lo, props)); const hi = compare(v, valueOf(f.hi, props))
      return lo !== undefined && hi !== undefined && lo >= 0 && hi <= 0
    }
    case 'like': {
      const v = valueOf(f.e, props)
      return v !== null && v !== undefined && likeRegExp(f.pattern, f.ci).test(asText(v))
    }
    case 'in': {
      const v = valueOf(f.e, props)
      return f.list.some((e) => compare(v, valueOf(e, props)) === 0)
    }
    case 'null': { const v = valueOf(f.e, props); return v === null || v === undefined }
    case 'bbox': {
      if (!envelope) return true
      return envelope[0] <= f.env[2] && envelope[2] >= f.env[0] && envelope[1] <= f.env[3] && envelope[3] >= f.env[1]
    }
  }
}

export type { Value }
