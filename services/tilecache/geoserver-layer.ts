// A tile layer as GeoWebCache's REST shows it (GeoServerLayer, GeoServerTileLayerInfo in GeoServer's
// gwc module): read from the settings mapwarden keeps (the catalog layer, its tile settings and
// parameter filters), never a copy of them. Key order is GWC's XStream order.
import type { LayerInfo } from '../catalog/layers.js'
import { GRID_SETS, gridSet, maxZoom, type GridSet } from './grid-sets.js'
import { formatsOf } from './formats.js'
import type { TileLayerSettings } from './layer-settings.js'
import { layerDimensions, tileStyles, type ParameterFilterSetting } from './parameters.js'

/** The metatile factor every render uses (tile-range.ts metaTileIterator, metaTileOf). */
export const META_WIDTH_HEIGHT = [4, 4]

export interface GeoServerLayerView {
  id: string
  enabled: boolean
  name: string
  /** The file blob store of its tiles; absent: the default one (GeoServerTileLayerInfoImpl's order). */
  blobStoreId?: string
  mimeFormats: string[]
  gridSubsets: Array<{ gridSetName: string, extent?: { coords: number[] }, zoomStart: number, zoomStop: number }>
  metaWidthHeight: number[]
  expireCache: number
  expireClients: number
  parameterFilters: Array<ParameterFilterView>
  gutter: number
}

/** A filter as GWC shows it: the layer's own (STYLES, its dimensions) or the administrator's (parameters.ts). */
export type ParameterFilterView = { kind: 'styleParameterFilter', key: string, defaultValue: string, allowedStyles?: string[] } | ParameterFilterSetting

/** The grid sets of a layer while its settings name none (tile-cache-context.ts defaultGridSetsOf), and every grid set by name. */
export interface GridChoice {
  defaults: GridSet[]
  find (name: string): GridSet | undefined
  /** Whether a blob store of that id exists (blobStoreId); absent: none does. */
  blobStoreExists? (id: string): boolean
}
const BUILT_IN: GridChoice = { defaults: Object.values(GRID_SETS), find: gridSet }

export function geoServerLayerView (layer: LayerInfo, settings: TileLayerSettings, grids: GridChoice = BUILT_IN): GeoServerLayerView {
  const filters: GeoServerLayerView['parameterFilters'] = [
    { kind: 'styleParameterFilter', key: 'STYLES', defaultValue: '', allowedStyles: tileStyles(layer).allowed.filter((s) => s !== tileStyles(layer).default) }
  ]
  const dims = layerDimensions(layer)
  // GeoServer's default filters for dimensions: any value (a regex filter on ".*").
  if (dims.has('time')) filters.push({ kind: 'regexParameterFilter', key: 'TIME', defaultValue: '', regex: '.*' })
  if (dims.has('elevation')) filters.push({ kind: 'regexParameterFilter', key: 'ELEVATION', defaultValue: '', regex: '.*' })
  // The administrator's filters, in place of the layer's own for the same key.
  for (const f of settings.parameterFilters ?? []) {
    const at = filters.findIndex((g) => g.key === f.key)
    if (at >= 0) filters[at] = f
    else filters.push(f)
  }
  return {
    id: layer.qualifiedName,
    enabled: layer.enabled,
    name: layer.qualifiedName,
    ...(settings.blobStoreId !== undefined ? { blobStoreId: settings.blobStoreId } : {}),
    mimeFormats: formatsOf(layer),
    // A configured grid set deleted since (gridsets DELETE) is left out, as GWC drops its subsets.
    gridSubsets: settings.gridSubsets?.flatMap((s) => {
      const gs = grids.find(s.gridSetName)
      return gs ? [{ gridSetName: gs.id, ...(s.extent ? { extent: { coords: s.extent } } : {}), zoomStart: s.zoomStart ?? 0, zoomStop: s.zoomStop ?? maxZoom(gs) }] : []
    }) ?? grids.defaults.map((gs) => ({ gridSetName: gs.id, zoomStart: 0, zoomStop: maxZoom(gs) })),
    metaWidthHeight: META_WIDTH_HEIGHT,
    expireCache: settings.expireCache,
    expireClients: settings.expireClients,
    parameterFilters: filters,
    gutter: 0
  }
}
