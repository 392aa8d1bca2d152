// A Mapbox Vector Tile (vector-tile-spec 2.1) written with pbf, for the sources the database does
// not encode (GeoPackage, shapefiles): each feature's geometry taken to the tile's integer grid
// (`extent` units across, y down), clipped to the tile and a buffer around it, simplified to that
// grid (Douglas-Peucker at one unit, repeated and collinear points dropped, rings too small to
// see left out), polygons wound as the spec asks (exterior clockwise on screen); its attributes
// as the layer's keys and values. One encoded Tile per layer: Tiles concatenated are one Tile with
// all their layers, so a group's tile is its members' layers, whoever encoded each.
import { PbfWriter } from 'pbf'
import { douglasPeucker } from '../../vector/simplify.js'
import { clipLine, clipRing, type Box, type Xy } from './pixel-geometry.js'

export type { Xy }
/** A geometry in tile units: points, lines or polygons (rings, the first of each the exterior). */
export type TileGeometry = { type: 1, points: Xy[] } | { type: 2, lines: Xy[][] } | { type: 3, polygons: Xy[][][] }
export interface TileFeature { geometry: TileGeometry, properties: Record<string, unknown> }

/** Douglas-Peucker with a tolerance in tile units, then rounded to the grid without repeated points. */
export function simplify (pts: Xy[], tolerance: number): Xy[] {
  const keep = douglasPeucker(pts, tolerance)
  const out: Xy[] = []
  for (let i = 0; i < pts.length; i++) {
    if (!keep[i]) continue
    const p: Xy = [Math.round(pts[i][0]), Math.round(pts[i][1])]
    const last = out[out.length - 1]
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p)
  }
  return out
}

/** Twice the signed area on screen (y down): positive for a clockwise ring. */
function ringArea (r: Xy[]): number {
  let s = 0
  for (let i = 0, j = r.length - 1; i < r.length; j = i++) s += (r[j][0] * r[i][1]) - (r[i][0] * r[j][1])
  return s
}

/**
 * A feature's geometry clipped to [-buffer, extent + buffer] and simplified; undefined when
 * nothing of it is left in the tile.
 */
export function fitToTile (g: TileGeometry, extent: number, buffer: number): TileGeometry | undefined {
  const lo = -buffer
  const hi = extent + buffer
  const box: Box = [lo, lo, hi, hi]
  if (g.type === 1) {
    const points = g.points.filter((p) => p[0] >= lo && p[0] <= hi && p[1] >= lo && p[1] <= hi).map((p): Xy => [Math.round(p[0]), Math.round(p[1])])
    return points.length > 0 ? { type: 1, points } : undefined
  }
  if (g.type === 2) {
    const lines = g.lines.flatMap((l) => clipLine(l, box)).map((l) => simplify(l, 1)).filter((l) => l.length > 1)
    return lines.length > 0 ? { type: 2, lines } : undefined
  }
  const polygons: Xy[][][] = []
  for (const poly of g.polygons) {
    const rings: Xy[][] = []
    for (let i = 0; i < poly.length; i++) {
      const open = poly[i].length > 1 && poly[i][0][0] === poly[i][poly[i].length - 1][0] && poly[i][0][1] === poly[i][poly[i].length - 1][1] ? poly[i].slice(0, -1) : poly[i]
      const clipped = clipRing(open, box)
      if (clipped.length < 3) { if (i === 0) break; continue }
      let r = simplify([...clipped, clipped[0]], 1).slice(0, -1)
      const area = ringArea(r)
      if (r.length < 3 || area === 0) { if (i === 0) break; continue }
      // Exterior clockwise (positive), holes counter-clockwise.
      if ((i === 0) !== (area > 0)) r = r.reverse()
      rings.push(r)
    }
    if (rings.length > 0) polygons.push(rings)
  }
  return polygons.length > 0 ? { type: 3, polygons } : undefined
}

const command = (id: number, count: number) => (id & 0x7) | (count << 3)
const zigzag = (n: number) => (n << 1) ^ (n >> 31)

/** The geometry's command integers (MoveTo, LineTo, ClosePath with zigzag deltas). */
export function geometryCommands (g: TileGeometry): number[] {
  const out: number[] = []
  let cx = 0
  let cy = 0
  const to = (p: Xy) => { out.push(zigzag(p[0] - cx), zigzag(p[1] - cy)); cx = p[0]; cy = p[1] }
  const path = (pts: Xy[], close: boolean) => {
    out.push(command(1, 1)); to(pts[0])
    out.push(command(2, pts.length - 1)); for (let i = 1; i < pts.length; i++) to(pts[i])
    if (close) out.push(command(7, 1))
  }
  if (g.type === 1) { out.push(command(1, g.points.length)); for (const p of g.points) to(p) } else if (g.type === 2) { for (const l of g.lines) path(l, false) } else { for (const poly of g.polygons) for (const r of poly) path(r, true) }
  return out
}

type Tagged = { kind: 'string', v: string } | { kind: 'double', v: number } | { kind: 'uint', v: number } | { kind: 'sint', v: number } | { kind: 'bool', v: boolean }

/** An attribute as an MVT value; undefined (left out) for null. */
function tagValue (v: unknown): Tagged | undefined {
  if (v === null || v === undefined) return undefined
  if (typeof v === 'boolean') return { kind: 'bool', v }
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return { kind: 'double', v }
    if (Number.isSafeInteger(v)) return v >= 0 ? { kind: 'uint', v } : { kind: 'sint', v }
    return { kind: 'double', v }
  }
  if (typeof v === 'bigint') return { kind: 'string', v: v.toString() }
  if (v instanceof Date) return { kind: 'string', v: v.toISOString() }
  if (typeof v === 'string') return { kind: 'string', v }
  return { kind: 'string', v: JSON.stringify(v) }
}

/** One Tile message holding one layer of these features (already fitted to the tile); empty bytes when none. */
export function encodeLayer (name: string, features: TileFeature[], extent: number): Uint8Array {
  if (features.length === 0) return new Uint8Array(0)
  const keys = new Map<string, number>()
  const values = new Map<string, number>()
  const valueList: Tagged[] = []
  const encoded = features.map((f) => {
    const tags: number[] = []
    for (const [k, raw] of Object.entries(f.properties)) {
      const t = tagValue(raw)
      if (!t) continue
      let ki = keys.get(k)
      if (ki === undefined) { ki = keys.size; keys.set(k, ki) }
      const vk = `${t.kind}:${String(t.v)}`
      let vi = values.get(vk)
      if (vi === undefined) { vi = valueList.length; values.set(vk, vi); valueList.push(t) }
      tags.push(ki, vi)
    }
    return { tags, type: f.geometry.type, geometry: geometryCommands(f.geometry) }
  })
  const pbf = new PbfWriter()
  pbf.writeMessage(3, (_: unknown, p: PbfWriter) => {
    p.writeVarintField(15, 2)
    p.writeStringField(1, name)
    for (const f of encoded) {
      p.writeMessage(2, (_x: unknown, q: PbfWriter) => {
        if (f.tags.length > 0) q.writePackedVarint(2, f.tags)
        q.writeVarintField(3, f.type)
        q.writePackedVarint(4, f.geometry)
      }, undefined)
    }
    for (const k of keys.keys()) p.writeStringField(3, k)
    for (const v of valueList) {
      p.writeMessage(4, (_x: unknown, q: PbfWriter) => {
        if (v.kind === 'string') q.writeStringField(1, v.v)
        else if (v.kind === 'double') q.writeDoubleField(3, v.v)
        else if (v.kind === 'uint') q.writeVarintField(5, v.v)
        else if (v.kind === 'sint') q.writeSVarintField(6, v.v)
        else q.writeBooleanField(7, v.v)
      }, undefined)
    }
    p.writeVarintField(5, extent)
  }, undefined)
  return pbf.finish()
}
