// A symbolizer's parameters given by expressions (vector-style.ts `dynamic`) evaluated on one
// feature: the symbolizer with its values for that feature. A value that is no colour or no number
// in the parameter's range leaves the literal default, as GeoTools falls back to the default.
import { asNumber, evaluate, rgb } from './expression.js'
import type { Dynamic, DynamicField, Paint, Stroke, Symbolizer } from './vector-style.js'

const hex = (c: number[]) => '#' + c.map((v) => v.toString(16).padStart(2, '0')).join('').toUpperCase()

export function resolved<S extends Symbolizer> (s: S, props: Record<string, unknown>): S {
  const d: Dynamic | undefined = s.dynamic
  if (d === undefined) return s
  const num = (f: DynamicField, dflt: number, min: number, max: number): number => {
    const e = d[f]
    if (e === undefined) return dflt
    const n = asNumber(evaluate(e, props))
    return n === null || n < min || n > max ? dflt : n
  }
  const colour = (f: DynamicField, dflt: string): string => {
    const e = d[f]
    if (e === undefined) return dflt
    const c = rgb(evaluate(e, props))
    return c ? hex(c) : dflt
  }
  const paint = (p: Paint | undefined): Paint | undefined => p && { color: colour('fill', p.color), opacity: num('fill-opacity', p.opacity, 0, 1) }
  const stroke = (p: Stroke | undefined): Stroke | undefined => p && { ...p, color: colour('stroke', p.color), width: num('stroke-width', p.width, 0, 1000), opacity: num('stroke-opacity', p.opacity, 0, 1) }
  switch (s.kind) {
    case 'point': return { ...s, size: num('size', s.size, 0, 1000), rotation: num('rotation', s.rotation, -Infinity, Infinity), opacity: num('opacity', s.opacity, 0, 1), fill: paint(s.fill), stroke: stroke(s.stroke) }
    case 'line': return { ...s, stroke: stroke(s.stroke)! }
    case 'polygon': return { ...s, fill: paint(s.fill), stroke: stroke(s.stroke) }
    case 'text': return {
      ...s,
      fill: paint(s.fill)!,
      font: { ...s.font, size: num('font-size', s.font.size, 1, 500) },
      rotation: num('rotation', s.rotation, -Infinity, Infinity),
      ...(s.halo ? { halo: { ...s.halo, radius: num('halo-radius', s.halo.radius, 0, 100) } } : {})
    }
  }
}
