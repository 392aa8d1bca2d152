// A seed request's tiles: one rectangle per zoom level (request box intersected with the layer's
// coverage), counted arithmetically and walked metatile by metatile with O(1) state, so a world
// seed to zoom 20 never enumerates tiles into memory (GWC's TileRange + TileRangeIterator).
import { closestRectangle, intersectRect, rectArea, tilesHigh, tilesWide, type BBox, type GridSubset, type Rect } from './grid-sets.js'

export interface TileRange {
  subset: GridSubset
  zoomStart: number
  zoomStop: number
  /** Per level from zoomStart: the tiles to process, or undefined when the level has none. */
  rects: Array<Rect | undefined>
}

export function tileRange (subset: GridSubset, zoomStart: number, zoomStop: number, bounds?: BBox): TileRange {
  const rects: Array<Rect | undefined> = []
  for (let z = zoomStart; z <= zoomStop; z++) {
    const cov = subset.coverage(z)
    rects.push(cov && bounds ? intersectRect(cov, closestRectangle(subset.gridSet, z, bounds)) : cov)
  }
  return { subset, zoomStart, zoomStop, rects }
}

export function rectAt (range: TileRange, z: number): Rect | undefined {
  return z < range.zoomStart || z > range.zoomStop ? undefined : range.rects[z - range.zoomStart]
}

/**
 * Exact number of tiles, no metatile padding. A BigInt because
 * EPSG:900913 to zoom 30 has more tiles than a double counts exactly.
 */
export function countTiles (range: TileRange): bigint {
  let n = 0n
  for (const r of range.rects) if (r) n += BigInt(r[2] - r[0] + 1) * BigInt(r[3] - r[1] + 1)
  return n
}

export interface MetaTile {
  z: number
  /** Tiles to render: the metatile block clipped to the layer's coverage at z. */
  render: Rect
  /** Tiles of the request inside it (what the progress counts). */
  wanted: Rect
}

/**
 * Metatile origins aligned to multiples of the metatile factor, row by row (x fastest), bottom to
 * top, level by level, as GWC's TileRangeIterator. Shared by the tasks of one request: each
 * `next()` hands out a different metatile.
 */
export function metaTileIterator (range: TileRange, metaX = 4, metaY = 4, descending = false) {
  // Levels in order, or from the deepest up (a pyramid builds each level from the one below).
  const step = descending ? -1 : 1
  const last = descending ? range.zoomStart : range.zoomStop
  const inRange = (v: number) => descending ? v >= last : v <= last
  let z = descending ? range.zoomStop : range.zoomStart
  let mx = 0
  let my = 0
  let started = false
  const start = (): boolean => {
    for (; inRange(z); z += step) {
      const r = rectAt(range, z)
      if (r) { mx = r[0] - (r[0] % metaX); my = r[1] - (r[1] % metaY); return true }
    }
    return false
  }
  return {
    next (): MetaTile | undefined {
      if (!started) { started = true; if (!start()) return undefined }
      while (inRange(z)) {
        const r = rectAt(range, z)!
        if (my > r[3]) { z += step; if (!start()) return undefined; continue }
        const block: Rect = [mx, my, mx + metaX - 1, my + metaY - 1]
        const cov = range.subset.coverage(z)!
        const out = { z, render: intersectRect(block, cov)!, wanted: intersectRect(block, r)! }
        mx += metaX
        if (mx > r[2]) { mx = r[0] - (r[0] % metaX); my += metaY }
        return out
      }
      return undefined
    }
  }
}

/** The metatile that holds one tile, clipped to the coverage (on-demand rendering). */
export function metaTileOf (subset: GridSubset, z: number, x: number, y: number, metaX = 4, metaY = 4): Rect | undefined {
  const cov = subset.coverage(z)
  if (!cov || x < cov[0] || x > cov[2] || y < cov[1] || y > cov[3]) return undefined
  const mx = x - (x % metaX)
  const my = y - (y % metaY)
  return intersectRect([mx, my, mx + metaX - 1, my + metaY - 1], cov)
}

export { rectArea, tilesWide, tilesHigh }
