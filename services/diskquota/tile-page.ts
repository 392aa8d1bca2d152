// GeoWebCache's tile-page model (PagePyramid, TilePage, PageStats; wire-formats section 3.4):
// the tiles of a tile set at one zoom level are grouped into rectangular pages, so that usage
// statistics (tiles, bytes, hits, last access, fill factor, frequency of use) stay a few rows per
// level however many tiles there are; eviction truncates one page at a time.
import type { Rect } from '../tilecache/grid-sets.js'

/** How the tiles of one (layer, grid set, zoom) are paged; fixed once recorded. */
export interface PageGeometry { minX: number, minY: number, tilesX: number, tilesY: number }

/** PagePyramid.calculateNumTilesPerPage: n tiles along an axis -> tiles per page along it. */
export function tilesPerPage (n: number): number {
  if (n <= 1) return 1
  return Math.max(1, Math.ceil(n / (Math.log(n) / Math.log(1.1))))
}

/** The paging of a level whose coverage is `cov` (tile indexes, inclusive). */
export function geometryFor (cov: Rect): PageGeometry {
  return { minX: cov[0], minY: cov[1], tilesX: tilesPerPage(cov[2] - cov[0] + 1), tilesY: tilesPerPage(cov[3] - cov[1] + 1) }
}

export function pageOf (g: PageGeometry, x: number, y: number): { px: number, py: number } {
  return { px: Math.floor((x - g.minX) / g.tilesX), py: Math.floor((y - g.minY) / g.tilesY) }
}

export function pageRect (g: PageGeometry, px: number, py: number): Rect {
  const x0 = g.minX + px * g.tilesX
  const y0 = g.minY + py * g.tilesY
  return [x0, y0, x0 + g.tilesX - 1, y0 + g.tilesY - 1]
}

export const maxTilesInPage = (g: PageGeometry) => g.tilesX * g.tilesY

/** A tile's size on disk: rounded up to whole blocks. */
export function blockRound (bytes: number, blockSize: number): number {
  return Math.ceil(bytes / blockSize) * blockSize
}

/**
 * PageStats.frequencyOfUse: hits per minute of the page's life, weighted by how full it is.
 * Times in milliseconds; GWC counts whole minutes.
 */
export function frequencyOfUse (hits: number, createdMs: number, lastAccessMs: number, fill: number): number {
  const minutes = 1 + Math.floor(lastAccessMs / 60_000) - Math.floor(createdMs / 60_000)
  return hits / Math.max(1, minutes) * fill
}

/** GWC TileSet.computeId: layer#gridset#format[#parametersId]. */
export function tileSetId (s: { layer: string, gridSet: string, format: string, parameterId: string }): string {
  return `${s.layer}#${s.gridSet}#${s.format}#${s.parameterId}`
}
