// What the WMS operations share: their collaborators, how a layer name of the request becomes a
// layer the caller may read (through the tile cache's authorizer), and the render job of one layer.
import type { Principal } from '../auth/authenticator.js'
import { isCascaded, isLayerGroup, type LayerInfo } from '../catalog/layers.js'
import type { GroupLayer, LayerGroup, LayerGroupService } from '../catalog/layer-groups.js'
import type { TileCache } from '../tilecache/tile-cache.js'
import type { Renderer } from '../render/renderer.js'
import { layerDimensions } from '../tilecache/parameters.js'
import type { CoverageRow } from '../mosaics/store.js'
import { InvalidDimensionValue, isMapwardenError, WmsInvalidDimension, WmsLayerNotDefined } from '../errors.js'
import type { RasterStyle, RenderRequest } from '../render/render-types.js'
import type { RenderJob } from '../render/raster/mosaic-types.js'
import type { MapFormat } from '../render/map.js'
import type { VectorJob } from '../render/vector/draw-vector.js'
import type { ImageJob } from '../render/image-job.js'
import type { VectorStyle } from '../render/vector/vector-style.js'
import type { Feature } from '../vector/source.js'
import { parseViewParams } from '../vector/virtual-table.js'
import type { MapSpec } from './map-spec.js'
import type { ServiceSettingsService } from '../settings/service-settings.js'

export interface WmsDeps {
  tileCache: Pick<TileCache, 'tileLayer' | 'tileLayers' | 'readTile'>
  mosaics: {
    dimensionValues (workspace: string, store: string, coverage: string, limit?: number): Promise<{ time?: string[], elevation?: number[] }>
    getWorkspaceCoverage (ws: string, coverage: string): Promise<{ coverage: CoverageRow }>
  }
  styles: {
    rasterStyleFor (workspace: string | undefined, styleName: string): Promise<RasterStyle | undefined>
    /** The vector style of a style name ('' : the generic style); built-in point, line, polygon, generic. */
    vectorStyleFor (workspace: string | undefined, styleName: string): Promise<VectorStyle>
  }
  /** Every picture (maps, pixel values, exception images) is drawn through the render entry. */
  renderer: Pick<Renderer, 'plan' | 'planVector' | 'planImage' | 'run' | 'draw'>
  /** Layer groups: found by the name a request gives them, drawn as their layers. */
  layerGroups: Pick<LayerGroupService, 'byRef' | 'layersOf' | 'all'>
  /** The WMS settings: the capabilities' Service section and whether the service answers. */
  serviceSettings: Pick<ServiceSettingsService, 'get' | 'local'>
  maxSize: number
  /** A vector layer's features that meet an area of the map (GetFeatureInfo); absent: none are read. */
  /** GetFeatureInfo of a cascaded WMS layer: the remote's answer (services/cascade's featureInfo). */
  cascadedInfo?: (layer: string, q: { crs: string, bbox: [number, number, number, number], width: number, height: number, i: number, j: number, infoFormat: string, featureCount: number }) => Promise<{ data: Buffer, contentType: string }>
  featuresAt?: (layer: string, area: [number, number, number, number], crs: string, proj4Defs: Record<string, string> | undefined, limit: number, viewParams?: Record<string, string>) => Promise<{ features: Feature[], dataCrs: string }>
}

export interface Where {
  /** Virtual service of one workspace ({base}/<ws>/wms): only its layers, names may be unqualified. */
  workspace?: string
  /** {base}/gwc/service/wms: maps come from the tile cache only. */
  cacheOnly?: boolean
}

export interface MapAnswer {
  data: Uint8Array
  contentType: string
  /** Set when the tile cache was consulted: HIT or MISS (header geowebcache-cache-result). */
  cacheResult?: 'HIT' | 'MISS'
  /** Why a TILED=true request was rendered instead (header geowebcache-miss-reason). */
  missReason?: string
}

export const CONTENT_TYPES: Record<MapFormat, string> = { 'image/png': 'image/png', 'image/png8': 'image/png', 'image/jpeg': 'image/jpeg', 'image/webp': 'image/webp' }

export type WmsContext = ReturnType<typeof createWmsContext>

export function createWmsContext (deps: WmsDeps) {
  const { tileCache } = deps

  /** A layer the caller may read, by its name in this service; a hidden or unknown one is LayerNotDefined. */
  async function readable (name: string, principal: Principal | undefined, where: Where): Promise<LayerInfo> {
    let qualified = name
    if (where.workspace) {
      const i = name.indexOf(':')
      if (i < 0) qualified = `${where.workspace}:${name}`
      else if (name.slice(0, i) !== where.workspace) throw WmsLayerNotDefined(name)
    }
    let layer: LayerInfo
    try { layer = await tileCache.tileLayer(qualified, principal, 'read') } catch (err) {
      if ((err as { code?: string }).code === 'MW_TILES_LAYER_NOT_FOUND') throw WmsLayerNotDefined(name)
      throw err
    }
    // A layer group is a tile layer too; the WMS draws it as its layers (readableGroup).
    if (isLayerGroup(layer)) throw WmsLayerNotDefined(name)
    return layer // drawable: the tile cache offers no other
  }

  /** Whether the caller may read (and so see drawn) a layer: the same check as `readable`. */
  async function mayRead (layer: LayerInfo, principal: Principal | undefined): Promise<boolean> {
    try { await tileCache.tileLayer(layer.qualifiedName, principal, 'read'); return true } catch { return false }
  }

  /** A group by the name a request gives it ('name' global, 'ws:name'; in a workspace's service
   *  its own groups by bare name), enabled and requestable (a CONTAINER group has no name in WMS). */
  async function group (name: string, where: Where): Promise<LayerGroup | undefined> {
    let ref = name
    if (where.workspace) {
      const i = name.indexOf(':')
      if (i < 0) ref = `${where.workspace}:${name}`
      else if (name.slice(0, i) !== where.workspace) return undefined
    }
    const g = await deps.layerGroups.byRef(ref)
    if (!g || !g.enabled || g.mode === 'CONTAINER') return undefined
    if (where.workspace && g.workspace !== where.workspace) return undefined
    return g
  }

  /** The layers of a group the caller may read, in drawing order; undefined when there is no such
   *  group, or none of its layers is readable (then it is as hidden as they are). */
  async function readableGroup (name: string, principal: Principal | undefined, where: Where): Promise<GroupLayer[] | undefined> {
    const g = await group(name, where)
    if (!g) return undefined
    const members = await deps.layerGroups.layersOf(g, (l) => mayRead(l, principal))
    return members.length === 0 ? undefined : members
  }

  /** The render job of one layer; a TIME or ELEVATION the index cannot read is InvalidDimensionValue. */
  async function plan (layer: LayerInfo, style: RasterStyle | undefined, s: MapSpec, bbox: [number, number, number, number], width: number, height: number): Promise<RenderJob> {
    const dims = layerDimensions(layer)
    const req: RenderRequest = {
      layer: layer.qualifiedName,
      crs: s.crs.code,
      bbox,
      width,
      height,
      time: dims.has('time') ? s.q.TIME : undefined,
      elevation: dims.has('elevation') ? s.q.ELEVATION : undefined,
      cqlFilter: s.q.CQL_FILTER,
      style
    }
    if (s.crs.proj4Defs) req.proj4Defs = s.crs.proj4Defs
    try { return await deps.renderer.plan(req) } catch (err) {
      if (isMapwardenError(err) && err.code === InvalidDimensionValue.code) {
        const [dimension, value] = err.args as [string, string]
        throw WmsInvalidDimension(dimension, value, dimension === 'TIME' ? 'an ISO 8601 instant, a list or a start/end period is expected' : 'a number, a list or a min/max range is expected')
      }
      throw err
    }
  }

  /** The drawing job of the map's i-th layer: a vector layer's features and style, or a raster render plan. */
  async function planLayer (s: MapSpec, i: number): Promise<RenderJob | VectorJob | ImageJob> {
    const layer = s.layers[i]
    if (isCascaded(layer)) {
      const req: RenderRequest = { layer: layer.qualifiedName, crs: s.crs.code, bbox: s.bbox, width: s.width, height: s.height, remote: { ...(s.styleNames[i] ? { style: s.styleNames[i] } : {}), ...(s.q.FORMAT ? { format: s.q.FORMAT } : {}) } }
      if (s.crs.proj4Defs) req.proj4Defs = s.crs.proj4Defs
      return await deps.renderer.planImage(req)
    }
    if (layer.type !== 'VECTOR') return await plan(layer, s.styles[i], s, s.bbox, s.width, s.height)
    const req: RenderRequest = { layer: layer.qualifiedName, crs: s.crs.code, bbox: s.bbox, width: s.width, height: s.height, cqlFilter: s.q.CQL_FILTER }
    const viewParams = parseViewParams(s.q.VIEWPARAMS, s.layers.length)[i]
    if (viewParams) req.viewParams = viewParams
    if (s.crs.proj4Defs) req.proj4Defs = s.crs.proj4Defs
    return await deps.renderer.planVector(req, s.vectorStyles[i] ?? { featureTypeStyles: [] })
  }

  return { deps, tileCache, readable, readableGroup, mayRead, plan, planLayer }
}
