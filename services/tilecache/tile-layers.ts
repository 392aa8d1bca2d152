// The tile layers as the tile services, the WMS, the seed API and the admin page see them (each
// lookup through the one `authorize`), and a layer's expiry and cached-only settings.
import type { LayerInfo } from '../catalog/layers.js'
import { isLayerGroup, isTileLayer } from '../catalog/layers.js'
import { GwcLayerUnsupported, isMapwardenError } from '../errors.js'
import type { Principal } from '../auth/authenticator.js'
import type { TileLayerSettings } from './layer-settings.js'
import { groupTileLayer, type TileAction, type TileCacheContext } from './tile-cache-context.js'
import { geoServerLayerView, type GeoServerLayerView, type GridChoice } from './geoserver-layer.js'
import { applyGeoServerLayer } from './geoserver-layer-update.js'

export function layerOperations (ctx: TileCacheContext) {
  const { deps } = ctx
  const grids = (layer: LayerInfo): GridChoice => ({ defaults: ctx.defaultGridSetsOf(layer), find: (n) => ctx.gridSets.get(n), blobStoreExists: (id) => ctx.blobStores?.has(id) ?? false })
  return {
    seedLayer: ctx.seedLayer,
    tileLayer: ctx.tileLayer,
    isPublic: ctx.isPublic,

    /** A tile layer as GeoWebCache's REST shows it (GeoServerLayer); unknown layers are 404. */
    async geoServerLayer (name: string, principal?: Principal): Promise<GeoServerLayerView> {
      const layer = await ctx.tileLayer(name, principal, 'metadata')
      return geoServerLayerView(layer, ctx.settingsOf(layer), grids(layer))
    },

    /** A GeoServerLayer written (PUT/POST): its expiry goes to the layer's tile settings; the rest must match. */
    async updateGeoServerLayer (name: string, body: Record<string, unknown>, principal?: Principal): Promise<GeoServerLayerView> {
      const layer = await ctx.tileLayer(name, principal, 'metadata')
      const current = ctx.settingsOf(layer)
      const next = applyGeoServerLayer(layer, body, current, grids(layer))
      // A group's tile settings have no layer row to live with: a write that would change them is refused.
      if (isLayerGroup(layer)) {
        if (JSON.stringify(next) !== JSON.stringify(current)) throw GwcLayerUnsupported('of a layer group', 'its tile settings (expiry, grid subsets) are not kept; set them on its layers')
        return geoServerLayerView(layer, current, grids(layer))
      }
      const before = ctx.store.rootOf(layer.qualifiedName)
      await deps.settings?.set(layer.workspace, layer.name, next)
      // A new blob store: the tiles in the old one go (GWC does not move them; blob-store.ts dropMoved).
      if (ctx.store.rootOf(layer.qualifiedName) !== before) await ctx.store.dropMoved([before])
      return geoServerLayerView(layer, ctx.settingsOf(layer), grids(layer))
    },

    /**
     * The tile layers: enabled, drawn (isTileLayer: a mosaic or a vector layer; an app-schema
     * feature type is no map) and those the
     * principal may `list` (capabilities), or may also read, etc. Every list of layers offered as
     * a map (WMTS, TMS, WMS, the admin page) comes from here.
     */
    async tileLayers (principal?: Principal, actions: TileAction[] = ['list'], opts: { groups?: boolean } = {}): Promise<LayerInfo[]> {
      const out: LayerInfo[] = []
      const layers = await deps.layers.list()
      // `opts.groups`: the layer groups too (WMTS, TMS); the WMS lists its groups itself.
      const named = new Set(layers.map((l) => l.qualifiedName))
      const groups = opts.groups === true && deps.groups ? (await deps.groups.all()).filter((g) => g.enabled && g.mode !== 'CONTAINER').map(groupTileLayer) : []
      for (const l of [...layers, ...groups.filter((g) => !named.has(g.qualifiedName))]) {
        if (!l.enabled || !(isTileLayer(l) || isLayerGroup(l))) continue
        try {
          for (const action of actions) await ctx.authorize(action, l, principal)
          out.push(l)
        } catch (err) {
          if (!isMapwardenError(err)) throw err // a refusal hides the layer; any other fault surfaces
        }
      }
      return out
    },

    /** A layer's expiry and cached-only settings (layer-settings.ts), as the layer resource shows and
     *  changes them: `change`, validated whole by the caller, is stored before it is in force. */
    async layerSettings (layer: LayerInfo, change?: TileLayerSettings): Promise<TileLayerSettings> {
      if (change) await deps.settings?.set(layer.workspace, layer.name, change)
      return ctx.settingsOf(layer)
    }
  }
}
