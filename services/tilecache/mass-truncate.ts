// GeoWebCache's mass truncation (MassTruncateController and its requests, org.geowebcache.seed):
// truncateLayer drops every tile of a layer (all grid sets, formats and parameter sets: GeoNode's call
// when a style changes), truncateParameters one parameter set, truncateExtent the tiles of one grid
// set over a box in its CRS, truncateOrphans the parameter sets the layer's filters no longer allow.
// Every drop goes through the blob store, which reports each deleted tile to the disk quota.
import type { Principal } from '../auth/authenticator.js'
import { MassTruncateInvalid } from '../errors.js'
import type { TileCacheContext } from './tile-cache-context.js'
import { closestRectangle, fullRect, intersectRect, maxZoom, type BBox } from './grid-sets.js'
import { normaliseParameters, parameterId, type ParameterSet } from './parameters.js'

/** The request types, in the order GWC lists them (MassTruncateController.DEFAULT_REQUEST_TYPES). */
export const MASS_TRUNCATE_TYPES = ['truncateLayer', 'truncateParameters', 'truncateOrphans', 'truncateExtent'] as const
export type MassTruncateType = typeof MASS_TRUNCATE_TYPES[number]

export type MassTruncateRequest =
  | { type: 'truncateLayer', layerName: string }
  | { type: 'truncateParameters', layerName: string, parameters: ParameterSet }
  | { type: 'truncateOrphans', layerName: string }
  | { type: 'truncateExtent', layerName: string, gridSetId: string, bounds: BBox }

export function massTruncateOperations (ctx: TileCacheContext) {
  const invalid = (field: string, name: string, reason: string) => MassTruncateInvalid(`${field} ${name}: ${reason}`)
  return {
    /** Runs one mass truncation; answers once the tiles are gone. Returns how many tiles went. */
    async massTruncate (req: MassTruncateRequest, principal?: Principal): Promise<number> {
      const layer = await ctx.seedLayer(req.layerName)
      await ctx.authorize('write', layer, principal)
      const name = layer.qualifiedName
      switch (req.type) {
        case 'truncateLayer':
          return await ctx.invalidation.truncate(name, 'mass truncation: truncateLayer')
        case 'truncateParameters': {
          const id = parameterId(normaliseParameters(layer, req.parameters, 'parameters', invalid, ctx.settingsOf(layer).parameterFilters))
          return await ctx.invalidation.truncate(name, 'mass truncation: truncateParameters', id)
        }
        case 'truncateOrphans': {
          // A recorded set is an orphan when the layer's filters (styles, dimensions) no longer
          // reach it: its parameters are refused, or now normalise to another set.
          let n = 0
          for (const set of await ctx.invalidation.recordedSets(name)) {
            let reachable: boolean
            try { reachable = parameterId(normaliseParameters(layer, set.parameters, undefined, undefined, ctx.settingsOf(layer).parameterFilters)) === set.parameterId } catch { reachable = false }
            if (!reachable) n += await ctx.invalidation.truncate(name, 'mass truncation: truncateOrphans', set.parameterId)
          }
          return n
        }
        case 'truncateExtent': {
          const gs = ctx.gridSetsOf(layer).find((g) => g.id === req.gridSetId)
          if (!gs) throw MassTruncateInvalid(`gridSetId ${JSON.stringify(req.gridSetId)} is not a grid set of layer ${name}`)
          const area = req.bounds
          return await ctx.store.truncate({
            layer: name,
            gridSet: gs.id,
            zoomStart: 0,
            zoomStop: maxZoom(gs),
            rectAt: (z) => intersectRect(closestRectangle(gs, z, area), fullRect(gs, z))
          })
        }
      }
    }
  }
}
