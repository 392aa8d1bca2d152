// GetFeatureInfo: the values under one pixel of each queried layer, read by a 1x1 render of the
// map's pixel (the render entry's pixelValues), named by the coverage's bands (feature-info.ts
// writes the answer).
import type { Principal } from '../auth/authenticator.js'
import { coverageBandNames, defaultBandNames } from '../mosaics/coverage-fields.js'
import { isMapwardenError, WmsInvalidFormat, WmsInvalidParameter, WmsLayerNotDefined, WmsLayerNotQueryable } from '../errors.js'
import { isCascaded, type LayerInfo } from '../catalog/layers.js'
import type { PixelResult } from '../render/map.js'
import { INFO_FORMATS } from './capabilities.js'
import { list, parsePoint, required, type Kvp } from './request.js'
import { featureInfo, type LayerValues } from './feature-info.js'
import { mapSpec } from './map-spec.js'
import type { WmsContext, Where } from './wms-context.js'
import { parseViewParams } from '../vector/virtual-table.js'

/** Pixels around the queried one whose features are found when BUFFER is not given. */
export const DEFAULT_BUFFER = 3

export function featureInfoOperations (ctx: WmsContext) {
  const { deps } = ctx
  return {
    async getFeatureInfo (q: Kvp, principal: Principal | undefined, where: Where = {}): Promise<{ body: string, contentType: string }> {
      const s = await mapSpec(ctx, q, principal, where)
      const infoFormat = (q.INFO_FORMAT ?? 'text/plain').trim()
      if (!INFO_FORMATS.includes(infoFormat)) throw WmsInvalidFormat('INFO_FORMAT', JSON.stringify(infoFormat.slice(0, 60)), INFO_FORMATS.join(', '))
      const queryNames = list(required(q, 'QUERY_LAYERS'))
      const [i, j] = parsePoint(q, s.version, s.width, s.height)
      // A raster layer has one "feature" under a point; a vector layer up to FEATURE_COUNT.
      const count = q.FEATURE_COUNT === undefined ? 1 : Number(q.FEATURE_COUNT)
      if (!Number.isInteger(count) || count < 1) throw WmsInvalidParameter('FEATURE_COUNT', JSON.stringify(q.FEATURE_COUNT), 'a positive integer is expected')
      const dx = (s.bbox[2] - s.bbox[0]) / s.width
      const dy = (s.bbox[3] - s.bbox[1]) / s.height
      const pixel: [number, number, number, number] = [s.bbox[0] + i * dx, s.bbox[3] - (j + 1) * dy, s.bbox[0] + (i + 1) * dx, s.bbox[3] - j * dy]
      const results: LayerValues[] = []
      // A layer group in QUERY_LAYERS is queried as the layers of it the caller may read.
      const queried: Array<[string, LayerInfo]> = []
      for (const name of queryNames) {
        try { queried.push([name, await ctx.readable(name, principal, where)]) } catch (err) {
          const group = isMapwardenError(err) && err.code === WmsLayerNotDefined.code ? await ctx.readableGroup(name, principal, where) : undefined
          if (!group) throw err
          if (!s.groups.includes(name)) throw WmsLayerNotQueryable(name)
          for (const m of group) queried.push([name, m.layer])
        }
      }
      // BUFFER: the search radius around the pixel, in pixels (GeoServer's vendor parameter).
      const buffer = q.BUFFER === undefined ? DEFAULT_BUFFER : Number(q.BUFFER)
      if (!Number.isInteger(buffer) || buffer < 0 || buffer > 1000) throw WmsInvalidParameter('BUFFER', JSON.stringify(q.BUFFER), 'a whole number of pixels from 0 to 1000 is expected')
      // A cascaded layer is answered by its remote (the same map and pixel; its answer as it came),
      // alone: an answer of one server's format cannot be merged with this one's.
      const cascaded = queried.filter(([, l]) => isCascaded(l))
      if (cascaded.length > 0) {
        // A cascaded WMTS layer has no feature info (GeoServer's WMTS store neither).
        if (queried.length > 1 || !deps.cascadedInfo || cascaded[0][1].type === 'WMTS') throw WmsLayerNotQueryable(cascaded[0][0])
        const crs = s.crs.code
        const out = await deps.cascadedInfo(cascaded[0][1].qualifiedName, { crs, bbox: s.bbox, width: s.width, height: s.height, i, j, infoFormat, featureCount: count })
        return { body: out.data.toString('utf8'), contentType: out.contentType }
      }
      for (const [name, layer] of queried) {
        const k = s.layers.findIndex((l) => l.qualifiedName === layer.qualifiedName)
        if (k < 0) throw WmsLayerNotQueryable(name)
        if (layer.type === 'VECTOR') {
          const area: [number, number, number, number] = [pixel[0] - buffer * dx, pixel[1] - buffer * dy, pixel[2] + buffer * dx, pixel[3] + buffer * dy]
          const found = deps.featuresAt ? await deps.featuresAt(layer.qualifiedName, area, s.crs.code, s.crs.proj4Defs, count, parseViewParams(q.VIEWPARAMS, s.layers.length)[k]) : { features: [], dataCrs: s.crs.code }
          results.push({ layer, bandNames: [], features: found.features, dataCrs: found.dataCrs })
          continue
        }
        const out = await deps.renderer.draw<PixelResult>({ name: 'pixelValues', priority: 'interactive', payload: () => ctx.plan(layer, undefined, s, pixel, 1, 1) }, layer.qualifiedName)
        let names: string[] | undefined
        try { names = coverageBandNames((await deps.mosaics.getWorkspaceCoverage(layer.workspace, layer.name)).coverage) } catch { /* names by count */ }
        if (!names || names.length < (out.values?.length ?? 0)) names = defaultBandNames(out.values?.length ?? 1)
        results.push({ layer, bandNames: names, values: out.values })
      }
      return featureInfo(results, infoFormat)
    }
  }
}
