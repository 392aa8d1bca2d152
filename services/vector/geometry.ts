// Geometry helpers of the file sources: the GeoPackage binary header (magic GP, version, flags,
// srs_id, optional envelope) taken off to reach the WKB, envelopes of WKB and GeoJSON geometries,
// and whether a geometry meets an envelope exactly (a vertex inside, an edge crossing it, or the
// envelope inside a polygon), as PostGIS' ST_Intersects answers for a bounding box.
import wkx from 'wkx'
import type { Envelope } from '../filters/tree.js'

export interface GpkgBlob {
  /** The WKB after the header; undefined for an empty geometry. */
  wkb?: Buffer
  /** The header's envelope, when it carries one. */
  envelope?: Envelope
}

const ENVELOPE_BYTES = [0, 32, 48, 48, 64]

/** The parts of a GeoPackage geometry blob; throws on a blob that is not one. */
export function readGpkgBlob (blob: Buffer): GpkgBlob {
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50) throw new Error('not a GeoPackage geometry (no GP magic)')
  const flags = blob[3]
  const indicator = (flags >> 1) & 7
  if (indicator > 4) throw new Error(`GeoPackage geometry with an invalid envelope indicator ${indicator}`)
  const little = (flags & 1) === 1
  const start = 8 + ENVELOPE_BYTES[indicator]
  if (blob.length < start) throw new Error('truncated GeoPackage geometry header')
  const d = (i: number) => little ? blob.readDoubleLE(8 + i * 8) : blob.readDoubleBE(8 + i * 8)
  const out: GpkgBlob = {}
  // The header's envelope is minx, maxx, miny, maxy.
  if (indicator > 0) out.envelope = [d(0), d(2), d(1), d(3)]
  const empty = (flags & 0x10) !== 0
  if (!empty && blob.length > start) out.wkb = blob.subarray(start)
  return out
}

type Position = number[]

function positions (g: any, out: (p: Position) => void): void {
  switch (g.type) {
    case 'Point': if (g.coordinates.length > 0) out(g.coordinates); break
    case 'MultiPoint': case 'LineString': for (const p of g.coordinates) out(p); break
    case 'MultiLineString': case 'Polygon': for (const l of g.coordinates) for (const p of l) out(p); break
    case 'MultiPolygon': for (const poly of g.coordinates) for (const l of poly) for (const p of l) out(p); break
    case 'GeometryCollection': for (const x of g.geometries) positions(x, out); break
  }
}

/** The envelope of a GeoJSON geometry, undefined when it is empty. */
export function geojsonEnvelope (g: any): Envelope | undefined {
  let minx = Infinity; let miny = Infinity; let maxx = -Infinity; let maxy = -Infinity
  positions(g, (p) => {
    if (p[0] < minx) minx = p[0]
    if (p[0] > maxx) maxx = p[0]
    if (p[1] < miny) miny = p[1]
    if (p[1] > maxy) maxy = p[1]
  })
  return minx === Infinity ? undefined : [minx, miny, maxx, maxy]
}

/** A WKB geometry as GeoJSON (object). */
export const wkbToGeojson = (wkb: Buffer): any => wkx.Geometry.parse(wkb).toGeoJSON()
/** A GeoJSON geometry as WKB. */
export const geojsonToWkb = (g: any): Buffer => wkx.Geometry.parseGeoJSON(g).toWkb()

/** The envelope of a GeoPackage blob: its header's, else read from the WKB. */
export function blobEnvelope (blob: Buffer): Envelope | undefined {
  const b = readGpkgBlob(blob)
  if (b.envelope) return b.envelope
  return b.wkb ? geojsonEnvelope(wkbToGeojson(b.wkb)) : undefined
}

/** A column value's envelope when it is a readable GeoPackage blob; undefined otherwise (SQL's null). */
export function envelopeOfValue (value: unknown): Envelope | undefined {
  if (!Buffer.isBuffer(value)) return undefined
  try { return blobEnvelope(value) } catch { return undefined }
}

export const envelopesMeet = (a: Envelope, b: Envelope) => a[2] >= b[0] && a[0] <= b[2] && a[3] >= b[1] && a[1] <= b[3]

const inside = (p: Position, e: Envelope) => p[0] >= e[0] && p[0] <= e[2] && p[1] >= e[1] && p[1] <= e[3]

/** Whether segment a-b meets the envelope (Liang-Barsky clipping). */
function segmentMeets (a: Position, b: Position, e: Envelope): boolean {
  let t0 = 0; let t1 = 1
  const dx = b[0] - a[0]; const dy = b[1] - a[1]
  const clip = (p: number, q: number): boolean => {
    if (p === 0) return q >= 0
    const r = q / p
    if (p < 0) { if (r > t1) return false; if (r > t0) t0 = r } else { if (r < t0) return false; if (r < t1) t1 = r }
    return true
  }
  return clip(-dx, a[0] - e[0]) && clip(dx, e[2] - a[0]) && clip(-dy, a[1] - e[1]) && clip(dy, e[3] - a[1])
}

/** Even-odd test of a point in a polygon's rings. */
function pointInPolygon (p: Position, rings: Position[][]): boolean {
  let c = false
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const a = ring[i]; const b = ring[j]
      if ((a[1] > p[1]) !== (b[1] > p[1]) && p[0] < (b[0] - a[0]) * (p[1] - a[1]) / (b[1] - a[1]) + a[0]) c = !c
    }
  }
  return c
}

const linesMeet = (line: Position[], e: Envelope) => line.some((p) => inside(p, e)) || line.some((p, i) => i > 0 && segmentMeets(line[i - 1], p, e))
const polygonMeets = (rings: Position[][], e: Envelope) => rings.some((r) => linesMeet(r, e)) || pointInPolygon([e[0], e[1]], rings)

/** Whether a GeoJSON geometry meets the envelope (touching counts, as ST_Intersects). */
export function geometryMeets (g: any, e: Envelope): boolean {
  switch (g.type) {
    case 'Point': return g.coordinates.length > 0 && inside(g.coordinates, e)
    case 'MultiPoint': return g.coordinates.some((p: Position) => inside(p, e))
    case 'LineString': return linesMeet(g.coordinates, e)
    case 'MultiLineString': return g.coordinates.some((l: Position[]) => linesMeet(l, e))
    case 'Polygon': return polygonMeets(g.coordinates, e)
    case 'MultiPolygon': return g.coordinates.some((p: Position[][]) => polygonMeets(p, e))
    case 'GeometryCollection': return g.geometries.some((x: any) => geometryMeets(x, e))
  }
  return false
}

export function checkEnvelope (env: Envelope): boolean {
  return env.every(Number.isFinite) && env[0] <= env[2] && env[1] <= env[3]
}

/**
 * A GeoPackage geometry blob of a WKB geometry (GeoPackage 1.2, 2.1.3): GP, version 0, flags (little
 * endian, an xy envelope; the empty bit and no envelope for an empty geometry), srs_id, the WKB.
 */
export function writeGpkgBlob (wkb: Buffer, srsId: number): Buffer {
  const env = geojsonEnvelope(wkbToGeojson(wkb))
  const head = Buffer.alloc(env ? 40 : 8)
  head.write('GP', 0, 'latin1')
  head[3] = env ? 0b00000011 : 0b00010001
  head.writeInt32LE(srsId, 4)
  if (env) {
    head.writeDoubleLE(env[0], 8); head.writeDoubleLE(env[2], 16); head.writeDoubleLE(env[1], 24); head.writeDoubleLE(env[3], 32)
  }
  return Buffer.concat([head, wkb])
}
