// The export operation: an MBTiles or GeoPackage file of a layer's cached tiles (export.ts writes
// it), under the layer's read rule; the caller streams and removes it. Nothing is rendered: it
// holds what the cache holds.
import path from 'node:path'
import type { Principal } from '../auth/authenticator.js'
import { ExportInvalid, GridSetNotOffered } from '../errors.js'
import { gridSet, maxZoom } from './grid-sets.js'
import { exportTiles, highestCachedZoom, parseExportQuery, tableName, type ExportKind } from './export.js'
import { isTileFormat } from './formats.js'
import { normaliseParameters, parameterId } from './parameters.js'
import type { TileCacheContext } from './tile-cache-context.js'

export function exportOperations (ctx: TileCacheContext) {
  const { store } = ctx
  return {
    async exportTiles (layerName: string, kind: ExportKind, query: Record<string, unknown>, principal?: Principal, signal?: AbortSignal) {
      const layer = await ctx.tileLayer(layerName, principal)
      const q = parseExportQuery(kind, query, { gridSet, maxZoom, isFormat: isTileFormat, invalid: ExportInvalid })
      const params = normaliseParameters(layer, q.parameters, 'parameter', (_f, name, why) => ExportInvalid('parameter', name, why), ctx.settingsOf(layer).parameterFilters)
      const set = { layer: layer.qualifiedName, gridSet: q.gridSet.id, format: q.format, parameterId: parameterId(params) }
      const subset = ctx.subsetOf(layer, q.gridSet)
      if (!subset) throw GridSetNotOffered(layer.qualifiedName, q.gridSet.id, ctx.gridSetsOf(layer).map((g) => g.id).join(', '))
      if (q.bounds) {
        const e = subset.extent
        if (q.bounds[2] <= e[0] || q.bounds[0] >= e[2] || q.bounds[3] <= e[1] || q.bounds[1] >= e[3]) {
          throw ExportInvalid('bounds', q.bounds.join(','), `do not intersect the layer's extent ${e.join(',')} in grid set ${q.gridSet.id}`)
        }
      }
      const zoomStop = q.zoomStop ?? Math.max(q.zoomStart, (await highestCachedZoom(store, set)) ?? q.zoomStart)
      const out = await exportTiles(store, path.join(ctx.deps.dataDir, 'tmp', 'exports'), {
        kind, layer: layer.qualifiedName, set, subset, zoomStart: q.zoomStart, zoomStop, bounds: q.bounds
      }, signal)
      return { ...out, name: `${tableName(layer.qualifiedName)}.${kind}` }
    }
  }
}
