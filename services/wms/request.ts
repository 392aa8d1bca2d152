// WMS 1.1.1 / 1.3.0 KVP parameters, read and validated (OGC 06-042 section 7.3 and 7.4; WMS 1.1.1
// section 7.2 and 7.3). Names arrive upper-cased (the plugin folds them: KVP names are
// case-insensitive); values are case-sensitive except where the specification says otherwise.
// Everything that is wrong is refused with the OGC exception code a client expects.
import { builtinProj4Def, isGeographic, isNorthingFirst, normalizeCrs } from '../render/crs.js'
import type { MapFormat } from '../render/map.js'
import {
  WmsInvalidCrs, WmsInvalidFormat, WmsInvalidParameter, WmsInvalidPoint, WmsMissingParameter, WmsTooLarge
} from '../errors.js'

export type Kvp = Record<string, string>
export type WmsVersion = '1.1.1' | '1.3.0'
export type ExceptionsMode = 'xml' | 'inimage' | 'blank'

/** The version asked for; what a client that names another gets (OGC version negotiation). */
export function versionOf (q: Kvp, fallback: WmsVersion = '1.3.0'): WmsVersion {
  const v = (q.VERSION ?? q.WMTVER ?? '').trim()
  if (v === '') return fallback
  if (/^1\.3(\.\d+)?$/.test(v)) return '1.3.0'
  if (/^1\.[01](\.\d+)?$/.test(v)) return '1.1.1'
  // Negotiation: higher than ours gets our highest, lower gets our lowest.
  return v.localeCompare('1.3.0', undefined, { numeric: true }) > 0 ? '1.3.0' : '1.1.1'
}

export function required (q: Kvp, name: string): string {
  const v = q[name]
  if (v === undefined || v.trim() === '') throw WmsMissingParameter(name)
  return v
}

export interface ResolvedCrs {
  /** As the client named it (for messages and GML). */
  asked: string
  /** Canonical code the renderer understands (EPSG:4326, EPSG:3857, EPSG:326xx...). */
  code: string
  /** Definitions the render job needs for codes outside the built-in set. */
  proj4Defs?: Record<string, string>
  /** Whether BBOX lists northing (latitude) first: EPSG's axis order, in WMS 1.3.0 and for URNs. */
  latFirst: boolean
  geographic: boolean
}

/** CRS (1.3.0) or SRS (1.1.1): CRS:84, the mercator codes, and every code of the EPSG registry. */
export function resolveCrs (value: string, version: WmsVersion): ResolvedCrs {
  const asked = value.trim()
  if (/^CRS:84$/i.test(asked)) return { asked, code: 'EPSG:4326', latFirst: false, geographic: true }
  const code = normalizeCrs(asked)
  const urn = /^urn:/i.test(asked)
  if (code === 'EPSG:4326') return { asked, code, latFirst: version === '1.3.0' || urn, geographic: true }
  if (code === 'EPSG:3857') return { asked, code, latFirst: false, geographic: false }
  if (!/^EPSG:\d+$/.test(code) || !builtinProj4Def(code)) throw WmsInvalidCrs(JSON.stringify(asked), 'not a CRS this server can render (CRS:84, EPSG:900913 and the horizontal coordinate systems of the EPSG registry)')
  // WMS 1.3.0 takes EPSG's axis order, as GeoServer does: latitude first for geographic systems,
  // northing first for the projected ones EPSG writes so (EPSG:3035, 31467...).
  const geographic = isGeographic(code)
  return { asked, code, latFirst: isNorthingFirst(code) && (version === '1.3.0' || urn), geographic }
}

/** BBOX in the request's axis order, returned as minx, miny, maxx, maxy (easting first). */
export function parseBbox (value: string, crs: ResolvedCrs): [number, number, number, number] {
  const parts = value.split(',')
  const n = parts.map((s) => s.trim() === '' ? NaN : Number(s))
  if (n.length !== 4 || !n.every(Number.isFinite)) throw WmsInvalidParameter('BBOX', JSON.stringify(value.slice(0, 100)), 'four comma-separated numbers are expected')
  const b = (crs.latFirst ? [n[1], n[0], n[3], n[2]] : n) as [number, number, number, number]
  if (b[0] >= b[2] || b[1] >= b[3]) throw WmsInvalidParameter('BBOX', JSON.stringify(value.slice(0, 100)), 'the minimum must be below the maximum on both axes')
  return b
}

export function parseSize (q: Kvp, name: 'WIDTH' | 'HEIGHT', max: number): number {
  const v = required(q, name).trim()
  if (!/^\d{1,9}$/.test(v) || Number(v) < 1) throw WmsInvalidParameter(name, JSON.stringify(v.slice(0, 30)), 'a positive integer is expected')
  const n = Number(v)
  if (n > max) throw WmsTooLarge(name, n, max)
  return n
}

const FORMATS: Record<string, MapFormat> = {
  'image/png': 'image/png',
  png: 'image/png',
  'image/png8': 'image/png8',
  png8: 'image/png8',
  'image/png; mode=8bit': 'image/png8',
  'image/png;mode=8bit': 'image/png8',
  'image/jpeg': 'image/jpeg',
  'image/jpg': 'image/jpeg',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  'image/webp': 'image/webp',
  webp: 'image/webp'
}
export const MAP_FORMATS: MapFormat[] = ['image/png', 'image/png8', 'image/jpeg', 'image/webp']

export function parseFormat (value: string): MapFormat {
  const f = FORMATS[value.trim().toLowerCase().replace(/\s*;\s*/g, '; ')] ?? FORMATS[value.trim().toLowerCase()]
  if (!f) throw WmsInvalidFormat('FORMAT', JSON.stringify(value.slice(0, 60)), MAP_FORMATS.join(', '))
  return f
}

export function parseBoolean (q: Kvp, name: string, fallback: boolean): boolean {
  const v = q[name]
  if (v === undefined || v.trim() === '') return fallback
  if (/^true$/i.test(v.trim())) return true
  if (/^false$/i.test(v.trim())) return false
  throw WmsInvalidParameter(name, JSON.stringify(v.slice(0, 30)), 'TRUE or FALSE is expected')
}

/** BGCOLOR: 0xRRGGBB (the specification's form) or #RRGGBB; default white. */
export function parseColor (value: string | undefined): [number, number, number] {
  if (value === undefined || value.trim() === '') return [255, 255, 255]
  const m = /^(?:0x|#)([0-9a-f]{6})$/i.exec(value.trim())
  if (!m) throw WmsInvalidParameter('BGCOLOR', JSON.stringify(value.slice(0, 30)), 'a colour 0xRRGGBB is expected')
  const n = parseInt(m[1], 16)
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255]
}

/** EXCEPTIONS: XML (default), INIMAGE or BLANK, under either version's names. */
export function parseExceptions (value: string | undefined): ExceptionsMode {
  const v = (value ?? '').trim().toLowerCase()
  if (v === '' || v === 'xml' || v === 'application/vnd.ogc.se_xml' || v === 'text/xml') return 'xml'
  if (v === 'inimage' || v === 'application/vnd.ogc.se_inimage') return 'inimage'
  if (v === 'blank' || v === 'application/vnd.ogc.se_blank') return 'blank'
  throw WmsInvalidParameter('EXCEPTIONS', JSON.stringify(value!.slice(0, 60)), 'XML, INIMAGE or BLANK is expected')
}

export function list (value: string | undefined): string[] {
  if (value === undefined || value.trim() === '') return []
  return value.split(',').map((s) => s.trim())
}

/** I/J (1.3.0) or X/Y (1.1.1): a pixel of the map, counted from its top-left corner. */
export function parsePoint (q: Kvp, version: WmsVersion, width: number, height: number): [number, number] {
  const [xName, yName] = version === '1.3.0' && (q.I !== undefined || q.X === undefined) ? ['I', 'J'] : ['X', 'Y']
  const coord = (name: string, size: number) => {
    const v = required(q, name).trim()
    if (!/^-?\d{1,9}(\.0+)?$/.test(v)) throw WmsInvalidPoint(name, JSON.stringify(v.slice(0, 30)), size)
    const n = Math.trunc(Number(v))
    if (n < 0 || n >= size) throw WmsInvalidPoint(name, v, size)
    return n
  }
  return [coord(xName, width), coord(yName, height)]
}
