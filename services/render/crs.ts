// Coordinate reference systems for mosaics: EPSG:4326 and EPSG:3857 (alias 900913) in closed form,
// anything else through proj4 with the EPSG registry's definition (epsg.ts) or one carried by the job.
// Pure module: used by the render worker and by the mosaic service.
import proj4 from 'proj4'
import { epsgEntry } from './epsg.js'
import { EAST_FIRST_GEOGRAPHIC, NORTHING_FIRST_RUNS } from './epsg-axes.js'

const R = 6378137
/** Metres in a degree along the equator of the WGS 84 sphere (OGC scale on geographic CRSs, distances in degrees). */
export const METRES_PER_DEGREE = R * Math.PI / 180
const MAX_LAT = 85.0511287798066
const MERCATOR_ALIASES = new Set(['EPSG:3857', 'EPSG:900913', 'EPSG:3785', 'EPSG:102100', 'EPSG:102113'])

/** Canonical code: mercator aliases become EPSG:3857; 'epsg:4326' becomes 'EPSG:4326'. */
export function normalizeCrs (code: string): string {
  const up = code.trim().toUpperCase()
  const m = /^(?:EPSG:|URN:OGC:DEF:CRS:EPSG:[^:]*:|HTTP:\/\/WWW\.OPENGIS\.NET\/GML\/SRS\/EPSG\.XML#)(\d+)$/.exec(up)
  const canon = m ? `EPSG:${m[1]}` : up
  return MERCATOR_ALIASES.has(canon) ? 'EPSG:3857' : canon
}

export function isMercator (code: string): boolean { return normalizeCrs(code) === 'EPSG:3857' }
export function isWgs84 (code: string): boolean { return normalizeCrs(code) === 'EPSG:4326' }

export function lonToX (lon: number): number { return lon * Math.PI / 180 * R }
export function latToY (lat: number): number {
  const l = lat > MAX_LAT ? MAX_LAT : lat < -MAX_LAT ? -MAX_LAT : lat
  return R * Math.log(Math.tan(Math.PI / 4 + l * Math.PI / 360))
}
export function xToLon (x: number): number { return x / R * 180 / Math.PI }
export function yToLat (y: number): number { return (2 * Math.atan(Math.exp(y / R)) - Math.PI / 2) * 180 / Math.PI }

/** proj4 definition of a code we know: WGS84 UTM zones in closed form, then every code of the EPSG registry. */
export function builtinProj4Def (code: string): string | undefined {
  const c = normalizeCrs(code)
  const m = /^EPSG:(32[67])(\d\d)$/.exec(c)
  const zone = m ? Number(m[2]) : 0
  if (m && zone >= 1 && zone <= 60) return `+proj=utm +zone=${zone}${m[1] === '327' ? ' +south' : ''} +datum=WGS84 +units=m +no_defs`
  const e = /^EPSG:(\d+)$/.exec(c)
  return e ? epsgEntry(Number(e[1]))?.proj4 : undefined
}

/** Whether a code is geographic (longitude/latitude): EPSG orders its axes latitude first. */
export function isGeographic (code: string): boolean {
  const c = normalizeCrs(code)
  if (c === 'EPSG:4326') return true
  const e = /^EPSG:(\d+)$/.exec(c)
  return e ? epsgEntry(Number(e[1]))?.geographic === true : false
}

let northingFirst: Set<number> | undefined
/**
 * Whether EPSG orders the code's axes northing (or latitude) first, as WMS 1.3.0 and GeoServer take
 * them: every geographic system but the few EPSG writes longitude first, and the projected ones whose
 * coordinate system starts with a north or south axis (EPSG:3035, the Gauss-Krüger zones 31466-31469,
 * EPSG:2180, 3006...), from the registry's axes (epsg-axes.ts). A geographic code newer than that table
 * is taken as latitude first.
 */
export function isNorthingFirst (code: string): boolean {
  const c = normalizeCrs(code)
  const e = /^EPSG:(\d+)$/.exec(c)
  if (!e) return false
  const n = Number(e[1])
  if (!northingFirst) {
    northingFirst = new Set()
    for (const run of NORTHING_FIRST_RUNS.split(' ')) {
      const [start, extra] = run.split('+').map((v) => parseInt(v, 36))
      for (let i = 0; i <= (extra || 0); i++) northingFirst.add(start + i)
    }
  }
  if (northingFirst.has(n)) return true
  return isGeographic(c) && !EAST_FIRST_GEOGRAPHIC.includes(n)
}

export function isSupportedCrs (code: string, defs?: Record<string, string>): boolean {
  const c = normalizeCrs(code)
  return c === 'EPSG:4326' || c === 'EPSG:3857' || builtinProj4Def(c) !== undefined || defs?.[c] !== undefined
}

/** Whether x and y transform independently (then a render maps columns and rows separately). */
export function isSeparable (from: string, to: string): boolean {
  const a = normalizeCrs(from)
  const b = normalizeCrs(to)
  if (a === b) return true
  return (a === 'EPSG:4326' || a === 'EPSG:3857') && (b === 'EPSG:4326' || b === 'EPSG:3857')
}

export interface AxisTransform { x (v: number): number, y (v: number): number }

/** Per-axis transform for separable pairs (see isSeparable). */
export function axisTransform (from: string, to: string): AxisTransform {
  const a = normalizeCrs(from)
  const b = normalizeCrs(to)
  if (a === b) return { x: (v) => v, y: (v) => v }
  if (a === 'EPSG:4326' && b === 'EPSG:3857') return { x: lonToX, y: latToY }
  if (a === 'EPSG:3857' && b === 'EPSG:4326') return { x: xToLon, y: yToLat }
  throw new Error(`not a separable transform: ${from} -> ${to}`)
}

function proj4Def (code: string, defs?: Record<string, string>): string {
  const c = normalizeCrs(code)
  if (c === 'EPSG:4326') return '+proj=longlat +datum=WGS84 +no_defs'
  if (c === 'EPSG:3857') return '+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +no_defs'
  const given = defs?.[c]
  // A job may carry the code itself as its definition (the worker knows the registry too).
  const d = given !== undefined && given !== c ? given : builtinProj4Def(c) ?? given
  if (!d) throw new Error(`unsupported CRS ${code}`)
  return d
}

/** Point transform between any two supported CRSs; returns [NaN, NaN] outside the domain. */
export function pointTransform (from: string, to: string, defs?: Record<string, string>): (x: number, y: number) => [number, number] {
  if (isSeparable(from, to)) {
    const t = axisTransform(from, to)
    return (x, y) => [t.x(x), t.y(y)]
  }
  const conv = proj4(proj4Def(from, defs), proj4Def(to, defs))
  return (x, y) => {
    try {
      const [px, py] = conv.forward([x, y])
      return Number.isFinite(px) && Number.isFinite(py) ? [px, py] : [NaN, NaN]
    } catch { return [NaN, NaN] }
  }
}

/** Envelope of a bbox after transformation, densifying its edges (21 points per edge). */
export function transformBbox (bbox: [number, number, number, number], from: string, to: string,
  defs?: Record<string, string>): [number, number, number, number] {
  const f = pointTransform(from, to, defs)
  const [x0, y0, x1, y1] = bbox
  let minx = Infinity; let miny = Infinity; let maxx = -Infinity; let maxy = -Infinity
  const n = isSeparable(from, to) ? 1 : 20
  for (let i = 0; i <= n; i++) {
    const tx = x0 + (x1 - x0) * i / n
    const ty = y0 + (y1 - y0) * i / n
    for (const [x, y] of [[tx, y0], [tx, y1], [x0, ty], [x1, ty]]) {
      const [px, py] = f(x, y)
      if (!Number.isFinite(px) || !Number.isFinite(py)) continue
      if (px < minx) minx = px
      if (px > maxx) maxx = px
      if (py < miny) miny = py
      if (py > maxy) maxy = py
    }
  }
  return [minx, miny, maxx, maxy]
}

/** The EPSG number of a canonical code, for GML srsName. */
export function epsgNumber (code: string): string {
  const m = /^EPSG:(\d+)$/.exec(normalizeCrs(code))
  return m ? m[1] : code
}
