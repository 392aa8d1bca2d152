// Turns band values into RGBA. Without a style: three or more bands are shown as RGB (stretched
// from the band range to 0..255 unless already 8-bit), one or two bands as grey stretched over the
// first band's range. Nodata and uncovered pixels are transparent.
import type { BandData, RasterStyle } from './render-types.js'

function stretch (v: number, min: number, max: number): number {
  if (max <= min) return v >= max ? 255 : 0
  const s = Math.round(((v - min) / (max - min)) * 255)
  return s < 0 ? 0 : s > 255 ? 255 : s
}

export function defaultRendering (data: BandData): Uint8Array {
  const { width, height, bands, valid, ranges } = data
  const n = width * height
  const out = new Uint8Array(n * 4)
  const rgb = bands.length >= 3
  const [r, g, b] = rgb ? [bands[0], bands[1], bands[2]] : [bands[0], bands[0], bands[0]]
  const [rr, rg, rb] = rgb ? [ranges[0], ranges[1], ranges[2]] : [ranges[0], ranges[0], ranges[0]]
  for (let i = 0; i < n; i++) {
    if (!valid[i]) continue
    const o = i * 4
    out[o] = stretch(r[i], rr.min, rr.max)
    out[o + 1] = stretch(g[i], rg.min, rg.max)
    out[o + 2] = stretch(b[i], rb.min, rb.max)
    out[o + 3] = 255
  }
  return out
}

/** RGBA pixels of the band data under a style (or the default rendering when there is none). */
export function applyRasterStyle (data: BandData, style: RasterStyle | undefined): Uint8Array {
  if (!style) return defaultRendering(data)
  // RasterSymbolizer support (ChannelSelection, ColorMap, ContrastEnhancement, Opacity) is the
  // styles area's work (issue 6); until it lands a style renders as the default.
  return defaultRendering(data)
}
