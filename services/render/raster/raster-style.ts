// Turns band values into RGBA. Without a style: three or more bands are shown as RGB (stretched
// from the band range to 0..255 unless already 8-bit), one or two bands as grey stretched over the
// first band's range. Nodata and uncovered pixels are transparent.
//
// With a style (a compiled SLD RasterSymbolizer, services/styles/sld.ts), in GeoTools' order:
// channel selection, contrast enhancement, colour map, opacity
// (https://docs.geoserver.org/latest/en/user/styling/sld/reference/rastersymbolizer.html):
// - ChannelSelection: a gray channel shows one band; red/green/blue pick three. Without one, a
//   colour map reads band 1 and the rest follows the default rendering's choice of bands.
// - ContrastEnhancement: Normalize (and Histogram, approximated by it) stretches the band's range
//   to 0..255; GammaValue then brightens (> 1) or dims (< 1): out = in^(1/gamma).
// - ColorMap: ramp interpolates colour and opacity between entries (values beyond the ends take the
//   end colours); intervals paint a value with the first entry whose quantity is above it (nothing
//   past the last); values paint exact matches only. Colour maps read the raw value, or the
//   0..255 value when a contrast enhancement is given.
// - Opacity multiplies every pixel's alpha.
import os from 'node:os'
import type { BandData, RasterStyle } from '../render-types.js'

function stretch (v: number, min: number, max: number): number {
  if (max <= min) return v >= max ? 255 : 0
  const s = Math.round(((v - min) / (max - min)) * 255)
  return s < 0 ? 0 : s > 255 ? 255 : s
}

export function defaultRendering (data: BandData, out: Uint8Array = new Uint8Array(data.width * data.height * 4)): Uint8Array {
  const { width, height, bands, valid, ranges } = data
  const n = width * height
  const rgb = bands.length >= 3
  const [r, g, b] = rgb ? [bands[0], bands[1], bands[2]] : [bands[0], bands[0], bands[0]]
  const [rr, rg, rb] = rgb ? [ranges[0], ranges[1], ranges[2]] : [ranges[0], ranges[0], ranges[0]]
  if (r instanceof Uint8Array && g instanceof Uint8Array && b instanceof Uint8Array) {
    return byteLookup(r, g, b, valid, table((v) => stretch(v, rr.min, rr.max)), table((v) => stretch(v, rg.min, rg.max)), table((v) => stretch(v, rb.min, rb.max)), out)
  }
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

type Enhance = (v: number) => number

const LITTLE_ENDIAN = os.endianness() === 'LE'

/** The 256 results of a function of a byte. */
function table (f: Enhance): Uint8Array {
  const t = new Uint8Array(256)
  for (let v = 0; v < 256; v++) t[v] = f(v)
  return t
}

/** Whether a table maps every byte to itself. */
function identity (t: Uint8Array): boolean {
  for (let v = 0; v < 256; v++) if (t[v] !== v) return false
  return true
}

/** RGBA of byte bands through one table per channel; invalid pixels stay transparent. */
function byteLookup (r: Uint8Array, g: Uint8Array, b: Uint8Array, valid: Uint8Array, tr: Uint8Array, tg: Uint8Array, tb: Uint8Array, out: Uint8Array): Uint8Array {
  // One 32-bit store per pixel in the machine's byte order (R first in memory). Int32, not
  // Uint32: stores of negative small integers stay on V8's fast path.
  const px = new Int32Array(out.buffer, out.byteOffset, out.length >> 2)
  const n = px.length
  if (LITTLE_ENDIAN && identity(tr) && identity(tg) && identity(tb)) {
    // 8-bit bands shown as they are (the default rendering of RGB imagery): no lookups.
    for (let i = 0; i < n; i++) {
      if (valid[i]) px[i] = r[i] | (g[i] << 8) | (b[i] << 16) | -16777216
    }
  } else if (LITTLE_ENDIAN) {
    for (let i = 0; i < n; i++) {
      if (valid[i]) px[i] = tr[r[i]] | (tg[g[i]] << 8) | (tb[b[i]] << 16) | -16777216
    }
  } else {
    for (let i = 0; i < n; i++) {
      if (valid[i]) px[i] = (tr[r[i]] << 24) | (tg[g[i]] << 16) | (tb[b[i]] << 8) | 0xff
    }
  }
  return out
}

/** 0..255 value of a band sample under a contrast enhancement (or the default stretch). */
function enhancer (range: { min: number, max: number }, contrast: RasterStyle['contrast']): Enhance {
  const { min, max } = range
  const eightBit = min >= 0 && max <= 255
  const method = contrast?.method === 'histogram' ? 'normalize' : contrast?.method
  const scale: Enhance = method === 'normalize' || !eightBit
    ? (v) => max <= min ? (v >= max ? 1 : 0) : (v - min) / (max - min)
    : (v) => v / 255
  const gamma = contrast?.gamma
  return (v) => {
    let x = scale(v)
    x = x < 0 ? 0 : x > 1 ? 1 : x
    if (gamma !== undefined && gamma !== 1) x = Math.pow(x, 1 / gamma)
    return Math.round(x * 255)
  }
}

/** Writes the colour of `v` under the colour map at out[o..o+3]; alpha 0 when not painted. */
type Paint = (v: number, out: Uint8Array, o: number) => void

function painter (cm: NonNullable<RasterStyle['colorMap']>): Paint {
  const e = cm.entries
  const set = (out: Uint8Array, o: number, c: [number, number, number], a: number) => {
    out[o] = c[0]; out[o + 1] = c[1]; out[o + 2] = c[2]; out[o + 3] = Math.round(a * 255)
  }
  if (e.length === 0) return () => {}
  if (cm.type === 'values') {
    return (v, out, o) => { for (const x of e) if (x.quantity === v) { set(out, o, x.color, x.opacity); return } }
  }
  if (cm.type === 'intervals') {
    return (v, out, o) => { for (const x of e) if (v < x.quantity) { set(out, o, x.color, x.opacity); return } }
  }
  const last = e[e.length - 1]
  return (v, out, o) => {
    if (v <= e[0].quantity) return set(out, o, e[0].color, e[0].opacity)
    if (v >= last.quantity) return set(out, o, last.color, last.opacity)
    let k = 1
    while (e[k].quantity < v) k++
    const a = e[k - 1]
    const b = e[k]
    const t = (v - a.quantity) / (b.quantity - a.quantity)
    out[o] = Math.round(a.color[0] + (b.color[0] - a.color[0]) * t)
    out[o + 1] = Math.round(a.color[1] + (b.color[1] - a.color[1]) * t)
    out[o + 2] = Math.round(a.color[2] + (b.color[2] - a.color[2]) * t)
    out[o + 3] = Math.round((a.opacity + (b.opacity - a.opacity) * t) * 255)
  }
}

/**
 * RGBA pixels of the band data under a style (or the default rendering when there is none), into
 * `out` when given (zeroed, width x height x 4).
 */
export function applyRasterStyle (data: BandData, style: RasterStyle | undefined, out: Uint8Array = new Uint8Array(data.width * data.height * 4)): Uint8Array {
  if (!style || data.bands.length === 0) return defaultRendering(data, out)
  const { width, height, bands, valid, ranges } = data
  const n = width * height
  const band = (b: number) => Math.min(Math.max(1, b), bands.length) - 1
  const ch = style.channels
  let picked: number[]
  if (ch?.gray !== undefined) picked = [band(ch.gray)]
  else if (ch?.red !== undefined && ch.green !== undefined && ch.blue !== undefined) picked = [band(ch.red), band(ch.green), band(ch.blue)]
  else if (style.colorMap || bands.length < 3) picked = [0]
  else picked = [0, 1, 2]

  const alpha = style.opacity ?? 1
  if (style.colorMap) {
    const paint = painter(style.colorMap)
    const src = bands[picked[0]]
    const enhance = style.contrast ? enhancer(ranges[picked[0]], style.contrast) : undefined
    if (src instanceof Uint8Array) {
      // The colour of each of the 256 byte values, painted once.
      const colours = new Uint8Array(256 * 4)
      for (let v = 0; v < 256; v++) paint(enhance ? enhance(v) : v, colours, v * 4)
      const c32 = new Int32Array(colours.buffer)
      const px = new Int32Array(out.buffer, out.byteOffset, n)
      for (let i = 0; i < n; i++) if (valid[i]) px[i] = c32[src[i]]
    } else {
      for (let i = 0; i < n; i++) {
        if (!valid[i]) continue
        const v = src[i]
        if (Number.isNaN(v)) continue
        paint(enhance ? enhance(v) : v, out, i * 4)
      }
    }
  } else {
    const [r, g, b] = picked.length === 3 ? picked : [picked[0], picked[0], picked[0]]
    const [er, eg, eb] = [r, g, b].map((k) => enhancer(ranges[k], style.contrast))
    const [sr, sg, sb] = [bands[r], bands[g], bands[b]]
    if (sr instanceof Uint8Array && sg instanceof Uint8Array && sb instanceof Uint8Array) {
      byteLookup(sr, sg, sb, valid, table(er), table(eg), table(eb), out)
    } else {
      for (let i = 0; i < n; i++) {
        if (!valid[i]) continue
        const o = i * 4
        out[o] = er(sr[i]); out[o + 1] = eg(sg[i]); out[o + 2] = eb(sb[i]); out[o + 3] = 255
      }
    }
  }
  if (alpha < 1) for (let o = 3; o < out.length; o += 4) out[o] = Math.round(out[o] * alpha)
  return out
}
