// The Web Map Service (WMS 1.1.1 and 1.3.0) over the same catalog, access rules, renderer and tile
// cache as the tile services, assembled from its operations: GetCapabilities (get-capabilities.ts),
// GetMap and exception images (get-map.ts, with the tile-aligned path in cached-map.ts) and
// GetFeatureInfo (get-feature-info.ts) and GetLegendGraphic (get-legend.ts). They share one context (wms-context.ts): every layer is read
// through the tile cache's tileLayer/tileLayers, whose authorizer applies the layer rules and the
// catalog mode (HIDE: LayerNotDefined; MIXED/CHALLENGE: challenged), and every map is planned and
// drawn through the render entry (services/render/renderer.ts).
import { WmsOperationNotSupported, WmsServiceDisabled } from '../errors.js'
import { required, type Kvp, type WmsVersion } from './request.js'
import { createWmsContext, type WmsDeps, type Where } from './wms-context.js'
import { capabilitiesOperations } from './get-capabilities.js'
import { mapOperations } from './get-map.js'
import { featureInfoOperations } from './get-feature-info.js'
import { legendOperations } from './get-legend.js'

export type { MapAnswer, WmsDeps, Where } from './wms-context.js'
export { SLD_BODY_LIMIT } from './map-spec.js'
export { tileOf } from './cached-map.js'

export function createWmsService (deps: WmsDeps) {
  const ctx = createWmsContext(deps)
  return {
    ...capabilitiesOperations(ctx),
    ...mapOperations(ctx),
    ...featureInfoOperations(ctx),
    ...legendOperations(ctx),

    /** Refuses every request while the WMS (of this workspace, when it has its own settings) is disabled, as GeoServer's DisabledServiceCheck. */
    checkEnabled (where: Where): void {
      const s = deps.serviceSettings.get('wms', where.workspace)
      if (!s.enabled) throw WmsServiceDisabled(s.name)
    },

    /** The request's operation, checked. */
    operation (q: Kvp): 'GetCapabilities' | 'GetMap' | 'GetFeatureInfo' | 'GetLegendGraphic' {
      const r = required(q, 'REQUEST').trim().toLowerCase()
      if (r === 'getcapabilities' || r === 'capabilities') return 'GetCapabilities'
      if (r === 'getmap' || r === 'map') return 'GetMap'
      if (r === 'getfeatureinfo' || r === 'feature_info') return 'GetFeatureInfo'
      if (r === 'getlegendgraphic') return 'GetLegendGraphic'
      throw WmsOperationNotSupported(JSON.stringify(q.REQUEST.slice(0, 60)))
    }
  }
}

export type WmsService = ReturnType<typeof createWmsService>
export type { Kvp, WmsVersion }
