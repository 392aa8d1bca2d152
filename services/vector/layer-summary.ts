// What the admin page shows of a vector layer: its geometry type (as the source declares it), its
// feature count and its bounds (the feature type's lat/lon bounding box). The count is the
// source's own count (PostGIS and GeoPackage: COUNT in SQL; a shapefile: its .shx).
import type { Envelope } from '../filters/tree.js'
import type { VectorSource } from './source.js'
import type { VectorFeatureType } from './store.js'
import type { DataStoreService } from '../datastores/service.js'
import type { FeatureTypeService } from './feature-types.js'
import type { SourceRegistry } from './sources.js'
import { DataStoreDisabled } from '../errors.js'

export interface VectorLayerSummary {
  title: string
  geometryType: string | null
  /** null when the store cannot be read now (disabled, unreachable): the page says so, the list stays. */
  featureCount: number | null
  /** Lon/lat [west, south, east, north], null when not known. */
  bounds: Envelope | null
  srs: string | null
}


export async function summarizeVectorLayer (ft: VectorFeatureType, source: (() => Promise<Pick<VectorSource, 'count'>>)): Promise<VectorLayerSummary> {
  let featureCount: number | null = null
  try { featureCount = await (await source()).count({ type: ft.nativeName }) } catch { featureCount = null }
  return { title: ft.title, geometryType: ft.config.geometry?.type ?? null, featureCount, bounds: ft.latLonBbox ?? null, srs: ft.srs ?? null }
}

/** The summary of a workspace's layer by name; undefined when it is no feature type of a vector store. */
export function createVectorLayerSummary ({ featureTypes, datastores, sources }: { featureTypes: FeatureTypeService, datastores: DataStoreService, sources: SourceRegistry }) {
  return async (workspace: string, name: string): Promise<VectorLayerSummary | undefined> => {
    const ft = await featureTypes.find(workspace, name)
    if (!ft) return undefined
    return await summarizeVectorLayer(ft, async () => {
      const store = await datastores.get(workspace, ft.store)
      if (!store.enabled) throw DataStoreDisabled(store.name)
      return sources.forStore(store)
    })
  }
}
