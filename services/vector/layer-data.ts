// Where a vector layer's features are read, for the renderer's vector plan and GetFeatureInfo: the
// feature type's store (enabled), its table, the CRS its data is in and its attributes typed for filters.
import { splitLayerName } from '../catalog/layers.js'
import { DataStoreDisabled, WmsLayerNotDefined } from '../errors.js'
import { filterType } from '../filters/bindings.js'
import type { VectorLayerData } from '../render/vector/vector-plan.js'
import type { DataStoreService } from '../datastores/service.js'
import type { FeatureTypeService } from './feature-types.js'
import type { SourceRegistry } from './sources.js'
import { sqlViewOf } from './virtual-table.js'

export function createVectorLayerData ({ featureTypes, datastores, sources }: { featureTypes: FeatureTypeService, datastores: DataStoreService, sources: SourceRegistry }) {
  return async (qualified: string, viewParams?: Record<string, string>): Promise<VectorLayerData> => {
    const p = splitLayerName(qualified)
    const ft = p ? await featureTypes.find(p.workspace, p.name) : undefined
    if (!p || !ft) throw WmsLayerNotDefined(qualified)
    const store = await datastores.get(p.workspace, ft.store)
    if (!store.enabled) throw DataStoreDisabled(store.name)
    const cfg = ft.config
    const dataCrs = (cfg.projectionPolicy === 'FORCE_DECLARED' ? ft.srs : undefined) ?? cfg.nativeCRS ?? ft.srs ?? 'EPSG:4326'
    const schema = { attributes: cfg.attributes.map((a) => ({ name: a.name, type: filterType(a.binding) })), crs: dataCrs }
    // An SQL view: its SELECT with the request's viewparams (else the defaults) checked and bound.
    const view = cfg.virtualTable ? sqlViewOf(cfg.virtualTable, { attributes: cfg.attributes, ...(cfg.geometry ? { geometry: cfg.geometry } : {}) }, viewParams) : undefined
    return { source: sources.forStore(store), type: ft.nativeName, dataCrs, schema, ...(view ? { view } : {}) }
  }
}
