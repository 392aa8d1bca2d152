// Literal values of an SLD's symbolizer parameters as geostyler-sld-parser hands them over (or as
// read from the document), checked: a value that cannot be drawn is refused naming it.
import { InvalidStyle } from '../errors.js'
import type { Stroke } from '../render/vector/vector-style.js'

export function colour (v: unknown, what: string, dflt?: string): string | undefined {
  if (v === undefined || v === null) return dflt
  if (typeof v !== 'string') throw InvalidStyle(` ${what} must be a colour #RRGGBB or an expression, found ${JSON.stringify(v)}`)
  const m = /^\s*#?([0-9a-f]{6}|[0-9a-f]{3})\s*$/i.exec(v)
  if (!m) throw InvalidStyle(` ${what} must be a colour #RRGGBB, found ${JSON.stringify(v)}`)
  const h = m[1].length === 3 ? m[1].split('').map((c) => c + c).join('') : m[1]
  return `#${h.toUpperCase()}`
}

export function number (v: unknown, what: string, dflt: number, min = -Infinity, max = Infinity): number {
  if (v === undefined || v === null) return dflt
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN
  if (!Number.isFinite(n) || n < min || n > max) throw InvalidStyle(` ${what} must be a number${Number.isFinite(min) ? ` from ${min}` : ''}${Number.isFinite(max) ? ` to ${max}` : ''} or an expression, found ${JSON.stringify(v)}`)
  return n
}

function dashes (v: unknown, what: string): number[] | undefined {
  if (v === undefined || v === null) return undefined
  if (!Array.isArray(v) || v.some((d) => typeof d !== 'number' || !Number.isFinite(d) || d < 0)) throw InvalidStyle(` ${what} must be non-negative numbers, found ${JSON.stringify(v)}`)
  return v.length === 0 || v.every((d) => d === 0) ? undefined : v as number[]
}

export function oneOf<T extends string> (v: unknown, allowed: readonly T[], what: string): T | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string' || !allowed.includes(v.toLowerCase() as T)) throw InvalidStyle(` ${what} must be one of ${allowed.join(', ')}, found ${JSON.stringify(v)}`)
  return v.toLowerCase() as T
}

/** GeoTools' reading of a boolean vendor option: true or yes. */
export function flag (v: string | undefined, what: string): boolean {
  if (v === undefined) return false
  if (/^(true|yes)$/i.test(v)) return true
  if (/^(false|no)$/i.test(v)) return false
  throw InvalidStyle(` the vendor option ${what} must be true or false, found ${JSON.stringify(v)}`)
}

export function stroke (color: unknown, width: unknown, opacity: unknown, dash: unknown, cap: unknown, join: unknown, what: string): Stroke {
  const s: Stroke = {
    color: colour(color, `${what} stroke`, '#000000')!,
    width: number(width, `${what} stroke-width`, 1, 0, 1000),
    opacity: number(opacity, `${what} stroke-opacity`, 1, 0, 1)
  }
  const d = dashes(dash, `${what} stroke-dasharray`)
  if (d) s.dasharray = d
  const c = oneOf(cap, ['butt', 'round', 'square'] as const, `${what} stroke-linecap`)
  if (c) s.linecap = c
  const j = oneOf(join, ['miter', 'round', 'bevel', 'mitre'] as const, `${what} stroke-linejoin`)
  if (j) s.linejoin = j === 'mitre' ? 'miter' : j
  return s
}
