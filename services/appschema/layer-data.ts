// Where the renderer reads a layer's features when the layer is an app-schema feature type whose
// mapping maps a geometry (its catalog config names the XPath, recorded at upload): the mapping's
// sources, through serving.ts's layerData; any other layer is the vector stores' (vector/layer-data.ts).
import { splitLayerName, type LayerInfo } from '../catalog/layers.js'
import { DataStoreDisabled, WmsLayerNotDefined } from '../errors.js'
import type { VectorLayerData } from '../render/vector/vector-plan.js'
import type { AppSchemaStore } from './store.js'
import type { ComplexServing } from './serving.js'

export function appSchemaLayerData ({ layers, rows, complex }: {
  layers: { get (ws: string, name: string): Promise<LayerInfo | undefined> }
  rows: Pick<AppSchemaStore, 'getStore' | 'featureType'>
  complex: Pick<ComplexServing, 'layerData'>
}, others: (qualified: string, viewParams?: Record<string, string>) => Promise<VectorLayerData>) {
  return async (qualified: string, viewParams?: Record<string, string>): Promise<VectorLayerData> => {
    const p = splitLayerName(qualified)
    const layer = p ? await layers.get(p.workspace, p.name) : undefined
    if (!layer || typeof layer.config.mappedGeometry !== 'string') return await others(qualified, viewParams)
    const store = await rows.getStore(layer.workspace, layer.store)
    const ft = store ? await rows.featureType(layer.workspace, layer.store, layer.name) : undefined
    if (!store || !ft) throw WmsLayerNotDefined(qualified)
    if (!store.enabled) throw DataStoreDisabled(store.name)
    return await complex.layerData(store.config, ft.nativeName, ft.srs)
  }
}
