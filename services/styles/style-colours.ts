// The plain colours of a vector style, for the admin page's vector-tile preview, which draws the
// features in the browser: per rule of the style (filters and scales left out), the first fill,
// stroke and point mark of each geometry kind, as CSS colours. Graphic fills, images, labels and
// values given by expressions are the renderer's alone: the preview draws their defaults.
import type { Paint, Stroke, VectorStyle } from '../render/vector/vector-style.js'

export interface StyleColours {
  /** The geometries a rule is for (the built-in generic style's), or undefined: any. */
  geometry?: 'point' | 'line' | 'polygon'
  fill?: string
  stroke?: string
  strokeWidth?: number
  /** A point's mark: its fill and stroke above, its size in pixels. */
  size?: number
}

const css = (p: Paint | undefined): string | undefined => {
  if (!p) return undefined
  const hex = /^#?([0-9a-f]{6})$/i.exec(p.color)?.[1]
  if (!hex) return undefined
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16))
  return p.opacity >= 1 ? `#${hex.toLowerCase()}` : `rgba(${r},${g},${b},${p.opacity})`
}
const width = (s: Stroke | undefined) => s ? { strokeWidth: s.width } : {}

export function styleColours (style: VectorStyle): StyleColours[] {
  const out: StyleColours[] = []
  for (const fts of style.featureTypeStyles) {
    for (const rule of fts.rules) {
      const geometry = rule.geometry ? { geometry: rule.geometry } : {}
      for (const s of rule.symbolizers) {
        let c: StyleColours | undefined
        if (s.kind === 'polygon') c = { geometry: 'polygon', fill: css(s.fill), stroke: css(s.stroke), ...width(s.stroke) }
        else if (s.kind === 'line') c = { geometry: 'line', stroke: css(s.stroke), ...width(s.stroke) }
        else if (s.kind === 'point') c = { geometry: 'point', fill: css(s.fill), stroke: css(s.stroke), ...width(s.stroke), size: s.size }
        if (!c) continue
        // The symbolizer's own kind, unless the rule says which geometries it is for.
        const entry = Object.fromEntries(Object.entries({ ...c, ...geometry }).filter(([, v]) => v !== undefined)) as StyleColours
        if (!out.some((o) => JSON.stringify(o) === JSON.stringify(entry))) out.push(entry)
      }
    }
  }
  return out
}
