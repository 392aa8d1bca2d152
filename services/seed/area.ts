// Seeding by area (GWC issue #106, "more than one bounding box"): a GeoJSON Polygon or
// MultiPolygon in the grid set's CRS or EPSG:4326 restricts a seed, reseed or truncate to the
// metatiles whose tiles of the request touch the shape. Counting and walking go band by band (one
// metatile row at a time) with a sweep over the shape's edges, so the cost is rows x edges that
// cross them, never the number of metatiles: a world polygon to zoom 20 is counted exactly.
// A metatile touches the shape when an edge passes through its box, or when its box lies inside
// the shape (no edge in the gap around it: one point-in-polygon test per gap).
import { SeedFieldInvalid } from '../errors.js'
import { normalizeCrs } from '../render/crs.js'
import { fromLonLat, intersectRect, type BBox, type GridSet, type Rect } from '../tilecache/grid-sets.js'
import type { TileRange } from '../tilecache/tile-range.js'
import type { MetaTile } from '../tilecache/tile-range.js'
import { rectAt } from '../tilecache/tile-range.js'

type Ring = Array<[number, number]>
interface Edge { x1: number, y1: number, x2: number, y2: number, ymin: number, ymax: number }

export interface Area {
  /** Rings of every polygon (outer and holes alike: the even-odd rule), in the grid set's CRS. */
  rings: Ring[]
  bbox: BBox
  edges: Edge[]
}

export const MAX_AREA_VERTICES = 100_000

/** GeoJSON 2008 named CRSs clients send (GeoServer, OpenLayers); RFC 7946 has none: EPSG:4326 lon/lat. */
const CRS_NAMES: Record<string, 'EPSG:4326' | 'EPSG:900913'> = {
  'EPSG:4326': 'EPSG:4326',
  'urn:ogc:def:crs:OGC:1.3:CRS84': 'EPSG:4326',
  'urn:ogc:def:crs:OGC::CRS84': 'EPSG:4326',
  'urn:ogc:def:crs:EPSG::4326': 'EPSG:4326',
  'EPSG:900913': 'EPSG:900913',
  'EPSG:3857': 'EPSG:900913',
  'urn:ogc:def:crs:EPSG::3857': 'EPSG:900913',
  'urn:ogc:def:crs:EPSG::900913': 'EPSG:900913'
}

const bad = (what: string, why: string) => SeedFieldInvalid('geometry', what.length > 80 ? what.slice(0, 77) + '...' : what, why)

function position (p: unknown): [number, number] {
  if (!Array.isArray(p) || p.length < 2 || p.length > 3 || !p.every((n) => typeof n === 'number' && Number.isFinite(n))) {
    throw bad(JSON.stringify(p) ?? String(p), 'a position is an array of two (or three) finite numbers')
  }
  return [p[0], p[1]]
}

function ring (r: unknown): Ring {
  if (!Array.isArray(r) || r.length < 4) throw bad(JSON.stringify(r)?.slice(0, 80) ?? String(r), 'a linear ring holds at least four positions')
  const pts = r.map(position)
  const [a, b] = [pts[0], pts[pts.length - 1]]
  if (a[0] !== b[0] || a[1] !== b[1]) throw bad(JSON.stringify(r).slice(0, 80), 'a linear ring ends where it starts (RFC 7946 3.1.6)')
  return pts
}

function polygon (p: unknown): Ring[] {
  if (!Array.isArray(p) || p.length === 0) throw bad(JSON.stringify(p) ?? String(p), 'a Polygon holds one or more linear rings')
  return p.map(ring)
}

/**
 * Reads a GeoJSON Polygon or MultiPolygon (also wrapped in a Feature), in EPSG:4326 (lon, lat: RFC
 * 7946) unless a `crs` member names the grid set's CRS; returns it in the grid set's CRS.
 */
export function parseArea (geometry: unknown, gs: GridSet): Area {
  if (geometry === undefined || geometry === null) throw bad(String(geometry), 'a GeoJSON Polygon or MultiPolygon is required')
  if (typeof geometry !== 'object' || Array.isArray(geometry)) throw bad(JSON.stringify(geometry), 'must be a GeoJSON object')
  let g = geometry as Record<string, unknown>
  if (g.type === 'Feature') g = (g.geometry ?? {}) as Record<string, unknown>
  for (const k of Object.keys(g)) if (!['type', 'coordinates', 'crs', 'bbox'].includes(k)) throw bad(k, 'unknown member of a GeoJSON geometry')
  let crs: string = 'EPSG:4326'
  if (g.crs !== undefined) {
    const name = (g.crs as { properties?: { name?: unknown } } | null)?.properties?.name
    // A custom grid set's own CRS by its code or URN (EPSG:27700, urn:ogc:def:crs:EPSG::27700).
    const known = typeof name === 'string' ? CRS_NAMES[name] ?? (normalizeCrs(name) === gs.srs ? gs.srs : undefined) : undefined
    if (!known) throw bad(JSON.stringify(g.crs), `crs must be {"type":"name","properties":{"name":...}} naming EPSG:4326 or ${gs.srs}`)
    if (known !== 'EPSG:4326' && known !== gs.srs) throw bad(String(name), `the grid set is ${gs.id}: use its CRS or EPSG:4326`)
    crs = known
  }
  let polygons: Ring[][]
  if (g.type === 'Polygon') polygons = [polygon(g.coordinates)]
  else if (g.type === 'MultiPolygon') {
    if (!Array.isArray(g.coordinates) || g.coordinates.length === 0) throw bad(JSON.stringify(g.coordinates) ?? 'undefined', 'a MultiPolygon holds one or more polygons')
    polygons = g.coordinates.map(polygon)
  } else throw bad(String(g.type), 'type must be Polygon or MultiPolygon')
  let rings = polygons.flat()
  const vertices = rings.reduce((n, r) => n + r.length, 0)
  if (vertices > MAX_AREA_VERTICES) throw bad(`${vertices} positions`, `at most ${MAX_AREA_VERTICES} positions`)
  if (crs === 'EPSG:4326') {
    for (const r of rings) for (const [x, y] of r) if (x < -180 || x > 180 || y < -90 || y > 90) throw bad(`${x},${y}`, 'EPSG:4326 positions are longitude, latitude within -180..180, -90..90')
    // Vertices are projected; edges are straight lines in the grid set's CRS.
    if (gs.srs !== 'EPSG:4326') rings = rings.map((r) => r.map(([x, y]) => { const b = fromLonLat(gs, [x, y, x, y]); return [b[0], b[1]] as [number, number] }))
  }
  const bbox: BBox = [Infinity, Infinity, -Infinity, -Infinity]
  const edges: Edge[] = []
  for (const r of rings) {
    for (let i = 0; i < r.length; i++) {
      const [x, y] = r[i]
      bbox[0] = Math.min(bbox[0], x); bbox[1] = Math.min(bbox[1], y); bbox[2] = Math.max(bbox[2], x); bbox[3] = Math.max(bbox[3], y)
      if (i === 0) continue
      const [px, py] = r[i - 1]
      if (px === x && py === y) continue
      edges.push({ x1: px, y1: py, x2: x, y2: y, ymin: Math.min(py, y), ymax: Math.max(py, y) })
    }
  }
  if (!(bbox[0] < bbox[2]) || !(bbox[1] < bbox[3])) throw bad(bbox.join(','), 'the shape has no area')
  edges.sort((a, b) => a.ymin - b.ymin)
  return { rings, bbox, edges }
}

/** Even-odd point in polygon over every ring (holes included). */
function inside (x: number, y: number, edges: Edge[]): boolean {
  let odd = false
  for (const e of edges) {
    if ((e.y1 > y) !== (e.y2 > y) && x < e.x1 + (y - e.y1) * (e.x2 - e.x1) / (e.y2 - e.y1)) odd = !odd
  }
  return odd
}

/** The x extent of an edge within the band ya..yb (closed), or undefined. */
function clipEdge (e: Edge, ya: number, yb: number): [number, number] | undefined {
  if (e.ymax < ya || e.ymin > yb) return undefined
  if (e.y1 === e.y2) return [Math.min(e.x1, e.x2), Math.max(e.x1, e.x2)]
  const xAt = (y: number) => e.x1 + (y - e.y1) * (e.x2 - e.x1) / (e.y2 - e.y1)
  const xa = xAt(Math.max(ya, e.ymin))
  const xb = xAt(Math.min(yb, e.ymax))
  return [Math.min(xa, xb), Math.max(xa, xb)]
}

export interface AreaWalker {
  /**
   * The metatiles of one band (metatile row `my`, wanted tiles `r`) that touch the area: runs
   * [first, last] of the metatiles' first tile columns. Ask a zoom level's bands by increasing row.
   */
  band (z: number, my: number, r: Rect): Array<[number, number]>
}

export function areaWalker (area: Area, gs: GridSet, metaX = 4, metaY = 4): AreaWalker {
  let zNow = -1
  let next = 0 // first edge not yet active (edges sorted by ymin)
  let active: Edge[] = []
  return {
    band (z, my, r) {
      const rows: [number, number] = [Math.max(my, r[1]), Math.min(my + metaY - 1, r[3])]
      const sx = gs.resolutions[z] * gs.tileWidth
      const sy = gs.resolutions[z] * gs.tileHeight
      const [ox, oy] = [gs.extent[0], gs.extent[1]]
      const ya = oy + rows[0] * sy
      const yb = oy + (rows[1] + 1) * sy
      if (z !== zNow) { zNow = z; next = 0; active = [] }
      while (next < area.edges.length && area.edges[next].ymin <= yb) active.push(area.edges[next++])
      active = active.filter((e) => e.ymax >= ya)
      // Metatile columns (index m: tile columns m*metaX..) of the band whose wanted part an edge touches.
      const firstM = Math.floor(r[0] / metaX)
      const lastM = Math.floor(r[2] / metaX)
      const hit: Array<[number, number]> = []
      for (const e of active) {
        const c = clipEdge(e, ya, yb)
        if (!c) continue
        // Tile columns whose closed box meets [c0, c1].
        const c0 = Math.max(r[0], Math.ceil((c[0] - ox) / sx) - 1)
        const c1 = Math.min(r[2], Math.floor((c[1] - ox) / sx))
        if (c0 > c1) continue
        hit.push([Math.floor(c0 / metaX), Math.floor(c1 / metaX)])
      }
      hit.sort((a, b) => a[0] - b[0])
      const merged: Array<[number, number]> = []
      for (const h of hit) {
        const last = merged[merged.length - 1]
        if (last && h[0] <= last[1] + 1) last[1] = Math.max(last[1], h[1])
        else merged.push([h[0], h[1]])
      }
      // Gaps between the touched runs lie wholly inside or outside: test one point of each.
      const out: Array<[number, number]> = []
      const ymid = (ya + yb) / 2
      const gapInside = (m0: number, m1: number) => {
        const x0 = Math.max(r[0], m0 * metaX)
        return inside(ox + (x0 + 0.5) * sx, ymid, active)
      }
      let m = firstM
      const push = (a: number, b: number) => {
        const last = out[out.length - 1]
        if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b)
        else out.push([a, b])
      }
      for (const [a, b] of merged) {
        if (a > m && gapInside(m, a - 1)) push(m, a - 1)
        push(a, b)
        m = b + 1
      }
      if (m <= lastM && gapInside(m, lastM)) push(m, lastM)
      return out.map(([a, b]) => [a * metaX, b * metaX])
    }
  }
}

/** Exact tiles of the range in the metatiles that touch the area. */
export function countAreaTiles (range: TileRange, area: Area, metaX = 4, metaY = 4): bigint {
  const walker = areaWalker(area, range.subset.gridSet, metaX, metaY)
  let n = 0n
  for (let z = range.zoomStart; z <= range.zoomStop; z++) {
    const r = rectAt(range, z)
    if (!r) continue
    for (let my = r[1] - (r[1] % metaY); my <= r[3]; my += metaY) n += bandTiles(walker, z, my, r, metaX, metaY)
  }
  return n
}

/**
 * The same count, giving the event loop back every `every` bands: a shape to zoom 25 has millions
 * of metatile rows, which would hold every request for seconds.
 */
export async function countAreaTilesAsync (range: TileRange, area: Area, every = 4096, metaX = 4, metaY = 4): Promise<bigint> {
  const walker = areaWalker(area, range.subset.gridSet, metaX, metaY)
  let n = 0n
  let bands = 0
  for (let z = range.zoomStart; z <= range.zoomStop; z++) {
    const r = rectAt(range, z)
    if (!r) continue
    for (let my = r[1] - (r[1] % metaY); my <= r[3]; my += metaY) {
      n += bandTiles(walker, z, my, r, metaX, metaY)
      if (++bands % every === 0) await new Promise((resolve) => setImmediate(resolve))
    }
  }
  return n
}

function bandTiles (walker: AreaWalker, z: number, my: number, r: Rect, metaX: number, metaY: number): bigint {
  let n = 0n
  const rows = Math.min(my + metaY - 1, r[3]) - Math.max(my, r[1]) + 1
  for (const [a, b] of walker.band(z, my, r)) {
    const cols = Math.min(b + metaX - 1, r[2]) - Math.max(a, r[0]) + 1
    n += BigInt(cols) * BigInt(rows)
  }
  return n
}

/** The metatiles of the range that touch the area, in the order of metaTileIterator. */
export function areaMetaTileIterator (range: TileRange, area: Area, metaX = 4, metaY = 4) {
  const walker = areaWalker(area, range.subset.gridSet, metaX, metaY)
  let z = range.zoomStart
  let my = NaN
  let runs: Array<[number, number]> = []
  let run = 0
  let mx = 0
  return {
    next (): MetaTile | undefined {
      for (;;) {
        if (z > range.zoomStop) return undefined
        const r = rectAt(range, z)
        if (!r) { z++; my = NaN; continue }
        if (Number.isNaN(my)) { my = r[1] - (r[1] % metaY); runs = walker.band(z, my, r); run = 0; mx = runs[0]?.[0] ?? 0 }
        if (run >= runs.length) {
          my += metaY
          if (my > r[3]) { z++; my = NaN; continue }
          runs = walker.band(z, my, r); run = 0; mx = runs[0]?.[0] ?? 0
          continue
        }
        const block: Rect = [mx, my, mx + metaX - 1, my + metaY - 1]
        const out = { z, render: intersectRect(block, range.subset.coverage(z)!)!, wanted: intersectRect(block, r)! }
        mx += metaX
        if (mx > runs[run][1]) { run++; mx = runs[run]?.[0] ?? 0 }
        return out
      }
    }
  }
}

/**
 * Whether the tile (z, x, y) lies in a metatile that touches the area (truncate by area). Bands
 * are computed once per zoom level and metatile row, and kept for the truncate's lifetime.
 */
export function areaTileFilter (range: TileRange, area: Area, metaX = 4, metaY = 4): (z: number, x: number, y: number) => boolean {
  const cache = new Map<string, Array<[number, number]>>()
  return (z, x, y) => {
    const r = rectAt(range, z)
    if (!r) return false
    const my = y - (y % metaY)
    const key = `${z}/${my}`
    let runs = cache.get(key)
    if (!runs) {
      // A fresh walker per band: truncate visits bands in directory order, not by increasing row.
      runs = areaWalker(area, range.subset.gridSet, metaX, metaY).band(z, my, r)
      if (cache.size > 100_000) cache.clear()
      cache.set(key, runs)
    }
    const mx = x - (x % metaX)
    return runs.some(([a, b]) => mx >= a && mx <= b)
  }
}
