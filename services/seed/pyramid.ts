// A seed over several zoom levels builds each level above the deepest from the tiles of the level
// below (each tile from its four children, 2x2 averaged), as gdal2tiles does, instead of reading
// the granules again: the deepest level is rendered, the others cost a decode and an encode.
// Averaging after styling equals styling after averaging only for styles that are linear in the
// band values, and a level can be drawn from the one below only when that one is complete; other
// seeds render every level directly.
import type { SeedSpec } from './seed-request.js'
import { MVT_FORMAT } from '../tilecache/formats.js'

/** What of a raster style decides whether it is linear (the renderer's RasterStyle has these). */
export interface StyleShape { colorMap?: unknown, contrast?: { method?: string, gamma?: number } }

/** Whether a style commutes with averaging: no colour map, no gamma, no histogram equalisation. */
export function isLinearStyle (style: StyleShape | undefined): boolean {
  if (!style) return true
  if (style.colorMap) return false
  const c = style.contrast
  return !c || (c.method !== 'histogram' && (c.gamma === undefined || c.gamma === 1))
}

/**
 * Whether a seed request may be built as a pyramid: a seed or reseed of more than one level of
 * the whole layer (no bounds, area or date: part of a level leaves the level below incomplete),
 * the default tile set (no parameter filters), of image tiles, drawn with a linear style (`linear`).
 */
export async function pyramidFits (spec: SeedSpec, linear: () => Promise<boolean>): Promise<boolean> {
  if (spec.type === 'truncate' || spec.zoomStop <= spec.zoomStart) return false
  // A vector tile is encoded from the features, never from the tiles below it.
  if (spec.formats.includes(MVT_FORMAT)) return false
  if (spec.bounds || spec.area || spec.olderThan !== undefined) return false
  if (spec.parameters && Object.keys(spec.parameters).length > 0) return false
  return linear()
}
