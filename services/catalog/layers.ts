// Published layers as the tile cache and the styles area see them: name, type, bounds and styles.
// Coverages and feature types create the rows (mosaics, app-schema); styles assign them. The
// layer catalog reads and writes them through the layer store and tells the areas what changed.
import type { LayerStore } from './store.js'

/** GeoServer's AttributionInfo: who provides a layer, with a link and a logo. */
export interface LayerAttribution {
  title?: string
  href?: string
  logoURL?: string
  logoWidth?: number
  logoHeight?: number
  logoType?: string
}

export interface LayerInfo {
  workspace: string
  name: string
  /** <workspace>:<name> */
  qualifiedName: string
  /** GROUP: a layer group as the tile cache serves it (tile-cache-context.ts), never a catalog row. */
  /** WMS, WMTS: a remote layer of a cascaded store (services/cascade), drawn from the remote's maps. */
  type: 'RASTER' | 'VECTOR' | 'WMS' | 'WMTS' | 'GROUP'
  store: string
  defaultStyle?: string
  styles: string[]
  enabled: boolean
  /** GeoServer's AttributionInfo, when the layer has one (WMS capabilities show it). */
  attribution?: LayerAttribution
  /** Lon/lat bounds (EPSG:4326, lon first) when known. */
  bbox?: [number, number, number, number]
  srs?: string
  /** Area-specific resource configuration (dimensions of a mosaic, feature type attributes...). */
  config: Record<string, unknown>
}

/**
 * Whether mapwarden can draw a layer: only such a layer is offered as a map (WMTS, TMS and WMS
 * capabilities, tiles, seeding, the admin page's map, seed form and legend). Today the mosaic
 * (coverage) layers; a feature type (app-schema) is served as features, not drawn.
 */
export function isDrawable (layer: Pick<LayerInfo, 'type'>): boolean {
  return layer.type === 'RASTER'
}

/**
 * Whether the WMS draws a layer as vector features: a feature type of a PostGIS, GeoPackage or
 * Shapefile store (its resource names the kind of source that reads it), or an app-schema feature
 * type whose mapping maps a geometry (`mappedGeometry`, recorded at upload); one without a geometry
 * is served as features only.
 */
export function isDrawnAsVector (layer: Pick<LayerInfo, 'type' | 'config'>): boolean {
  return layer.type === 'VECTOR' && (['postgis', 'geopackage', 'shapefile'].includes(layer.config.source as string) || typeof layer.config.mappedGeometry === 'string')
}

/** Whether a layer has cached tiles (WMTS, TMS, XYZ, seeding) and is drawn by the WMS: a mosaic, a cascaded WMS or
 *  WMTS layer, or a feature type drawn with its SLD. */
export function isTileLayer (layer: Pick<LayerInfo, 'type' | 'config'>): boolean {
  return isDrawable(layer) || isDrawnAsVector(layer) || isCascaded(layer)
}

/** Whether a layer is a cascaded store's remote layer (type WMS or WMTS): its pictures are the remote's. */
export function isCascaded (layer: Pick<LayerInfo, 'type'>): boolean {
  return layer.type === 'WMS' || layer.type === 'WMTS'
}

/** Whether a tile layer is a layer group (drawn as its members, in order, with the group's styles). */
export function isLayerGroup (layer: Pick<LayerInfo, 'type'>): boolean {
  return layer.type === 'GROUP'
}

export function splitLayerName (qualified: string): { workspace: string, name: string } | undefined {
  const i = qualified.indexOf(':')
  if (i <= 0 || i === qualified.length - 1) return undefined
  return { workspace: qualified.slice(0, i), name: qualified.slice(i + 1) }
}

export type StylesChangedHook = (before: LayerInfo, after: LayerInfo) => Promise<void> | void
export type LayerRemovedHook = (qualifiedName: string) => Promise<void> | void

export function createLayerCatalog (store: LayerStore) {
  const removedHooks: LayerRemovedHook[] = []
  const stylesHooks: StylesChangedHook[] = []
  return {
    list: (workspace?: string) => store.list(workspace),
    get: (workspace: string, name: string) => store.get(workspace, name),
    async setStyles (workspace: string, name: string, defaultStyle: string | undefined, styles: string[]): Promise<void> {
      const change = await store.setStyles(workspace, name, defaultStyle, styles)
      if (!change) return
      // Awaited: the stale marks are in force before the change is answered.
      for (const hook of stylesHooks) { try { await hook(change.before, change.after) } catch { /* a listener never undoes a committed change */ } }
    },
    /** Sets (or, undefined, removes) a layer's attribution; false when there is no such layer. */
    setAttribution: (workspace: string, name: string, attribution: LayerAttribution | undefined) => store.setAttribution(workspace, name, attribution),
    /** Told after a layer's default or allowed styles changed (the tile cache drops what they drew). */
    onStylesChanged (hook: StylesChangedHook) { stylesHooks.push(hook) },
    /** Areas that keep files per layer (tiles, quota usage) register their clean-up here. */
    onRemoved (hook: LayerRemovedHook) { removedHooks.push(hook) },
    /** Called by the area that deleted published layers (a store deleted with recurse), after the commit. */
    async removed (names: string[]) { for (const name of names) for (const hook of removedHooks) await hook(name) }
  }
}
export type LayerCatalog = ReturnType<typeof createLayerCatalog>
