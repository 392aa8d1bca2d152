// The Web Map Service (WMS 1.1.1 and 1.3.0) over the same catalog, access rules, renderer and tile
// cache as the tile services:
// - every layer is read through the tile cache's tileLayer/tileLayers, whose authorizer applies the
//   layer rules and the catalog mode (HIDE: LayerNotDefined; MIXED/CHALLENGE: challenged);
// - maps are rendered on the render pool (services/render/map.ts, in strips) behind the render
//   queue's interactive lane, from the RenderJobs the mosaic service plans;
// - a GetMap that is exactly one tile of a grid set (TILED=true, GeoServer's direct integration,
//   or any request at {base}/gwc/service/wms) is answered from the tile cache, filling it on a miss.
import type { Principal } from '../auth/authenticator.js'
import type { LayerInfo } from '../catalog/layers.js'
import type { TileCache } from '../seed/tile-cache.js'
import type { RenderQueue } from '../seed/render-queue.js'
import { GRID_SETS, type GridSet } from '../seed/grid-sets.js'
import { allowedStyles, defaultStyleOf, layerDimensions } from '../seed/parameters.js'
import type { CoverageRow } from '../mosaics/store.js'
import { coverageBandNames, defaultBandNames } from '../mosaics/coverage-fields.js'
import { parseSld, rasterStyleOf } from '../styles/sld.js'
import { children, text } from '../files/xml-nodes.js'
import {
  GranuleDamaged, GranulesChanged, WmsInvalidDimension, WmsInvalidFormat, WmsInvalidParameter,
  WmsLayerNotDefined, WmsLayerNotQueryable, WmsMissingParameter, WmsNotTileAligned, WmsOperationNotSupported, WmsStyleNotDefined
} from '../errors.js'
import type { RasterStyle, RenderRequest } from '../render/render-types.js'
import type { RenderJob } from '../render/mosaic-types.js'
import type { MapFormat, MapPayload, MapResult, PixelResult, ExceptionImagePayload } from '../render/map.js'
import { CAPABILITIES_TYPES, INFO_FORMATS, wmsCapabilities, type WmsLayerDescription } from './capabilities.js'
import {
  list, parseBbox, parseBoolean, parseColor, parseExceptions, parseFormat, parsePoint, parseSize, required, resolveCrs, versionOf,
  type ExceptionsMode, type Kvp, type ResolvedCrs, type WmsVersion
} from './request.js'
import { featureInfo, type LayerValues } from './feature-info.js'

/** Largest SLD_BODY accepted (characters): a raster style is a few kilobytes. */
export const SLD_BODY_LIMIT = 64 * 1024

export interface WmsDeps {
  tileCache: Pick<TileCache, 'tileLayer' | 'tileLayers' | 'readTile'>
  mosaics: {
    prepareRender (req: RenderRequest): Promise<RenderJob>
    dimensionValues (workspace: string, store: string, coverage: string, limit?: number): Promise<{ time?: string[], elevation?: number[] }>
    getWorkspaceCoverage (ws: string, coverage: string): Promise<{ coverage: CoverageRow }>
    markDamaged (path: string, reason: string): Promise<string>
  }
  styles: { rasterStyleFor (workspace: string | undefined, styleName: string): Promise<RasterStyle | undefined> }
  queue: Pick<RenderQueue, 'run'>
  run (payload: unknown, opts: { name: string }): Promise<unknown>
  maxSize: number
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

interface MapSpec {
  version: WmsVersion
  layers: LayerInfo[]
  styles: Array<RasterStyle | undefined>
  styleNames: string[]
  crs: ResolvedCrs
  bbox: [number, number, number, number]
  width: number
  height: number
  q: Kvp
}

const CONTENT_TYPES: Record<MapFormat, string> = { 'image/png': 'image/png', 'image/png8': 'image/png', 'image/jpeg': 'image/jpeg', 'image/webp': 'image/webp' }

/** The grid set a CRS is tiled in, for the tile-cache path. */
function gridSetOf (code: string): GridSet | undefined {
  if (code === 'EPSG:4326') return GRID_SETS['EPSG:4326']
  if (code === 'EPSG:3857') return GRID_SETS['EPSG:900913']
  return undefined
}

/**
 * The tile (z, x, y from the bottom) a map is, or why it is not one. Tolerances as GeoWebCache's
 * GridSet.closestIndex: the resolution within 1 %, the corner within a tenth of a tile, so clients
 * whose grid differs in the last digits (OpenLayers' EPSG:3857 extent is ±20037508.342789244,
 * GWC's ±20037508.34) hit the same tiles.
 */
export function tileOf (gs: GridSet, bbox: [number, number, number, number], width: number, height: number): { z: number, x: number, y: number } | string {
  if (width !== gs.tileWidth || height !== gs.tileHeight) return `WIDTH and HEIGHT must be ${gs.tileWidth}x${gs.tileHeight}, got ${width}x${height}`
  const rx = (bbox[2] - bbox[0]) / width
  const ry = (bbox[3] - bbox[1]) / height
  const z = gs.resolutions.findIndex((r) => Math.abs(rx - r) / r < 0.01 && Math.abs(ry - r) / r < 0.01)
  if (z < 0) return `the resolution ${rx} is not one of grid set ${gs.id}`
  const span = gs.resolutions[z] * gs.tileWidth
  const fx = (bbox[0] - gs.extent[0]) / span
  const fy = (bbox[1] - gs.extent[1]) / (gs.resolutions[z] * gs.tileHeight)
  const x = Math.round(fx)
  const y = Math.round(fy)
  if (Math.abs(fx - x) > 0.1 || Math.abs(fy - y) > 0.1) return `BBOX is not aligned with the tiles of grid set ${gs.id} at level ${z}`
  return { z, x, y }
}

export function createWmsService (deps: WmsDeps) {
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
    if (layer.type !== 'RASTER') throw WmsLayerNotDefined(name)
    return layer
  }

  /** Styles from SLD_BODY, by layer name: a RasterStyle, or the name of a catalog style (NamedStyle). */
  async function sldStyles (sld: string): Promise<Map<string, { style?: RasterStyle, named?: string }>> {
    if (sld.length > SLD_BODY_LIMIT) throw WmsInvalidParameter('SLD_BODY', `of ${sld.length} characters`, `the limit is ${SLD_BODY_LIMIT}`)
    const parsed = await parseSld(sld)
    const out = new Map<string, { style?: RasterStyle, named?: string }>()
    for (const kind of ['NamedLayer', 'UserLayer']) {
      for (const node of children(parsed.root, kind)) {
        const name = text(children(node, 'Name')[0])?.trim()
        if (!name) throw WmsInvalidParameter('SLD_BODY', kind, 'every layer of the SLD needs a Name')
        const named = text(children(children(node, 'NamedStyle')[0], 'Name')[0])?.trim()
        if (named && children(node, 'UserStyle').length === 0) out.set(name, { named })
        else out.set(name, { style: rasterStyleOf({ ...parsed, root: { [kind]: node } }) })
      }
    }
    return out
  }

  async function mapSpec (q: Kvp, principal: Principal | undefined, where: Where): Promise<MapSpec> {
    const version = versionOf(q, q.CRS !== undefined ? '1.3.0' : '1.1.1')
    const sld = q.SLD_BODY !== undefined && q.SLD_BODY.trim() !== '' ? await sldStyles(q.SLD_BODY) : undefined
    let names = list(q.LAYERS)
    if (names.length === 0 && sld) names = [...sld.keys()]
    if (names.length === 0 || names.some((n) => n === '')) throw WmsMissingParameter('LAYERS')
    const styleNames = list(q.STYLES)
    if (styleNames.length > 0 && styleNames.length !== names.length && !(styleNames.length === 1 && styleNames[0] === '')) {
      throw WmsInvalidParameter('STYLES', JSON.stringify(q.STYLES), `${styleNames.length} styles for ${names.length} layers`)
    }
    const crsName = version === '1.3.0' ? 'CRS' : 'SRS'
    const crs = resolveCrs(q[crsName] ?? q.CRS ?? q.SRS ?? required(q, crsName), version)
    const bbox = parseBbox(required(q, 'BBOX'), crs)
    const width = parseSize(q, 'WIDTH', deps.maxSize)
    const height = parseSize(q, 'HEIGHT', deps.maxSize)
    const layers: LayerInfo[] = []
    const styles: Array<RasterStyle | undefined> = []
    const resolvedNames: string[] = []
    for (const [i, name] of names.entries()) {
      const layer = await readable(name, principal, where)
      let styleName = styleNames[i] ?? ''
      const fromSld = sld?.get(name) ?? sld?.get(layer.qualifiedName)
      if (fromSld?.named) styleName = fromSld.named
      // A style of the layer's workspace may be named without its prefix (GeoServer resolves it there first).
      if (styleName !== '' && !allowedStyles(layer).includes(styleName) && allowedStyles(layer).includes(`${layer.workspace}:${styleName}`)) {
        styleName = `${layer.workspace}:${styleName}`
      }
      if (styleName !== '' && !allowedStyles(layer).includes(styleName)) {
        throw WmsStyleNotDefined(styleName, layer.qualifiedName, allowedStyles(layer).join(', ') || '(default only)')
      }
      const effective = styleName || defaultStyleOf(layer) || ''
      layers.push(layer)
      resolvedNames.push(effective)
      styles.push(fromSld && !fromSld.named ? fromSld.style : await deps.styles.rasterStyleFor(layer.workspace, effective))
    }
    return { version, layers, styles, styleNames: resolvedNames, crs, bbox, width, height, q }
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
    try { return await deps.mosaics.prepareRender(req) } catch (err) {
      const m = /^Invalid render request: bad (TIME|ELEVATION) (.*)$/.exec((err as Error).message ?? '')
      if ((err as { code?: string }).code === 'MW_MOSAIC_INVALID_RENDER' && m) throw WmsInvalidDimension(m[1], m[2], m[1] === 'TIME' ? 'an ISO 8601 instant, a list or a start/end period is expected' : 'a number, a list or a min/max range is expected')
      throw err
    }
  }

  /** Runs a pool task behind the interactive lane; a granule that vanished is planned again once. */
  async function onPool<T extends object> (name: string, payload: () => Promise<unknown>, layerName: string): Promise<T> {
    const once = async () => deps.queue.run('interactive', async () => deps.run(await payload(), { name }) as Promise<T | { granuleGone?: boolean }>)
    let out = await once()
    if ('granuleGone' in out && out.granuleGone) out = await once()
    if ('granuleGone' in out && out.granuleGone) throw GranulesChanged(layerName)
    const damaged = (out as { damaged?: { path: string, reason: string } }).damaged
    if (damaged) throw GranuleDamaged(await deps.mosaics.markDamaged(damaged.path, damaged.reason), layerName, damaged.reason)
    return out as T
  }

  async function fromCache (s: MapSpec, format: MapFormat, principal: Principal | undefined, where: Where): Promise<MapAnswer | string> {
    if (s.layers.length !== 1) return 'a tiled request must name exactly one layer'
    if (format === 'image/png8') return 'the tile cache holds image/png, image/jpeg and image/webp'
    if (s.q.SLD_BODY) return 'SLD_BODY maps are not cached'
    if (!where.cacheOnly && s.q.BGCOLOR) return 'BGCOLOR maps are not cached'
    if (!where.cacheOnly && format === 'image/png' && !parseBoolean(s.q, 'TRANSPARENT', false)) return 'cached PNG tiles are transparent: TRANSPARENT=true is needed'
    const gs = gridSetOf(s.crs.code)
    if (!gs) return `no grid set in ${s.crs.asked}: EPSG:4326 and EPSG:900913 are cached`
    const t = tileOf(gs, s.bbox, s.width, s.height)
    if (typeof t === 'string') return t
    const parameters: Record<string, string> = {}
    const dims = layerDimensions(s.layers[0])
    if (s.styleNames[0] && s.styleNames[0] !== defaultStyleOf(s.layers[0])) parameters.STYLES = s.styleNames[0]
    if (s.q.CQL_FILTER) parameters.CQL_FILTER = s.q.CQL_FILTER
    if (s.q.TIME && dims.has('time')) parameters.TIME = s.q.TIME
    if (s.q.ELEVATION && dims.has('elevation')) parameters.ELEVATION = s.q.ELEVATION
    let tile
    try {
      tile = await tileCache.readTile({ layer: s.layers[0].qualifiedName, gridSet: gs, format, parameters, z: t.z, x: t.x, y: t.y, asked: `WMS BBOX ${s.q.BBOX}` }, principal)
    } catch (err) {
      // Outside the layer's coverage the cache has no tile; a map of it is empty, drawn as any map.
      if ((err as { code?: string }).code === 'MW_TILES_OUT_OF_RANGE') return (err as Error).message
      throw err
    }
    return { data: tile.data, contentType: format, cacheResult: tile.cached ? 'HIT' : 'MISS' }
  }

  return {
    /** GetCapabilities: the layers the caller may see listed, in the version asked for. */
    async capabilities (q: Kvp, principal: Principal | undefined, where: Where, onlineResource: string): Promise<{ body: string, contentType: string }> {
      const version = versionOf(q)
      const layers: WmsLayerDescription[] = []
      for (const l of await tileCache.tileLayers(principal)) {
        if (l.type !== 'RASTER' || (where.workspace && l.workspace !== where.workspace)) continue
        let coverage: CoverageRow | undefined
        try { coverage = (await deps.mosaics.getWorkspaceCoverage(l.workspace, l.name)).coverage } catch { coverage = undefined }
        const values = await deps.mosaics.dimensionValues(l.workspace, l.store, l.name)
        const styles = allowedStyles(l)
        const def = defaultStyleOf(l)
        layers.push({
          name: where.workspace ? l.name : l.qualifiedName,
          title: coverage?.title ?? l.name,
          abstract: coverage?.config.abstract,
          keywords: ['WCS', 'ImageMosaic', l.name],
          bbox: l.bbox ?? [-180, -90, 180, 90],
          nativeCrs: l.srs,
          styles: def ? [def, ...styles.filter((s) => s !== def)] : styles,
          time: values.time ? { values: values.time, default: [...values.time].sort().at(-1) } : undefined,
          elevation: values.elevation ? { values: values.elevation, default: values.elevation.length ? Math.min(...values.elevation) : undefined } : undefined
        })
      }
      return { body: wmsCapabilities(layers, { version, onlineResource, maxSize: deps.maxSize, workspace: where.workspace }), contentType: CAPABILITIES_TYPES[version] }
    },

    async getMap (q: Kvp, principal: Principal | undefined, where: Where = {}): Promise<MapAnswer> {
      const format = parseFormat(required(q, 'FORMAT'))
      parseExceptions(q.EXCEPTIONS)
      const s = await mapSpec(q, principal, where)
      const transparent = parseBoolean(q, 'TRANSPARENT', false)
      const bgcolor = parseColor(q.BGCOLOR)
      let missReason: string | undefined
      if (where.cacheOnly || parseBoolean(q, 'TILED', false)) {
        const cached = await fromCache(s, format, principal, where)
        if (typeof cached !== 'string') return cached
        if (where.cacheOnly) throw WmsNotTileAligned(cached)
        missReason = cached
      }
      const payload = async (): Promise<MapPayload> => ({
        jobs: await Promise.all(s.layers.map((l, i) => plan(l, s.styles[i], s, s.bbox, s.width, s.height))),
        width: s.width,
        height: s.height,
        format,
        transparent,
        bgcolor
      })
      const data = await onPool<Exclude<MapResult, { granuleGone: true }>>('renderMap', payload, s.layers.map((l) => l.qualifiedName).join(','))
      return { data: data as Uint8Array, contentType: CONTENT_TYPES[format], missReason }
    },

    async getFeatureInfo (q: Kvp, principal: Principal | undefined, where: Where = {}): Promise<{ body: string, contentType: string }> {
      const s = await mapSpec(q, principal, where)
      const infoFormat = (q.INFO_FORMAT ?? 'text/plain').trim()
      if (!INFO_FORMATS.includes(infoFormat)) throw WmsInvalidFormat('INFO_FORMAT', JSON.stringify(infoFormat.slice(0, 60)), INFO_FORMATS.join(', '))
      const queryNames = list(required(q, 'QUERY_LAYERS'))
      const [i, j] = parsePoint(q, s.version, s.width, s.height)
      // A raster layer has one "feature" under a point; FEATURE_COUNT is checked, never needed.
      const count = q.FEATURE_COUNT === undefined ? 1 : Number(q.FEATURE_COUNT)
      if (!Number.isInteger(count) || count < 1) throw WmsInvalidParameter('FEATURE_COUNT', JSON.stringify(q.FEATURE_COUNT), 'a positive integer is expected')
      const dx = (s.bbox[2] - s.bbox[0]) / s.width
      const dy = (s.bbox[3] - s.bbox[1]) / s.height
      const pixel: [number, number, number, number] = [s.bbox[0] + i * dx, s.bbox[3] - (j + 1) * dy, s.bbox[0] + (i + 1) * dx, s.bbox[3] - j * dy]
      const results: LayerValues[] = []
      for (const name of queryNames) {
        const layer = await readable(name, principal, where)
        const k = s.layers.findIndex((l) => l.qualifiedName === layer.qualifiedName)
        if (k < 0) throw WmsLayerNotQueryable(name)
        const out = await onPool<PixelResult>('pixelValues', () => plan(layer, undefined, s, pixel, 1, 1), layer.qualifiedName)
        let names: string[] | undefined
        try { names = coverageBandNames((await deps.mosaics.getWorkspaceCoverage(layer.workspace, layer.name)).coverage) } catch { /* names by count */ }
        if (!names || names.length < (out.values?.length ?? 0)) names = defaultBandNames(out.values?.length ?? 1)
        results.push({ layer, bandNames: names, values: out.values })
      }
      return featureInfo(results, infoFormat)
    },

    /** EXCEPTIONS=INIMAGE or BLANK: the image that replaces the error, or undefined when the
     *  request cannot say how it should look (then the XML report is sent). */
    async exceptionImage (q: Kvp, message: string): Promise<MapAnswer | undefined> {
      let mode: ExceptionsMode
      let payload: ExceptionImagePayload
      try {
        mode = parseExceptions(q.EXCEPTIONS)
        if (mode === 'xml') return undefined
        const format = parseFormat(required(q, 'FORMAT'))
        payload = {
          width: parseSize(q, 'WIDTH', deps.maxSize),
          height: parseSize(q, 'HEIGHT', deps.maxSize),
          format,
          transparent: parseBoolean(q, 'TRANSPARENT', false),
          bgcolor: parseColor(q.BGCOLOR),
          message: mode === 'inimage' ? message : undefined
        }
      } catch { return undefined }
      const data = await deps.queue.run('interactive', () => deps.run(payload, { name: 'exceptionImage' })) as Uint8Array
      return { data, contentType: CONTENT_TYPES[payload.format] }
    },

    /** The request's operation, checked. */
    operation (q: Kvp): 'GetCapabilities' | 'GetMap' | 'GetFeatureInfo' {
      const r = required(q, 'REQUEST').trim().toLowerCase()
      if (r === 'getcapabilities' || r === 'capabilities') return 'GetCapabilities'
      if (r === 'getmap' || r === 'map') return 'GetMap'
      if (r === 'getfeatureinfo' || r === 'feature_info') return 'GetFeatureInfo'
      throw WmsOperationNotSupported(JSON.stringify(q.REQUEST.slice(0, 60)))
    }
  }
}

export type WmsService = ReturnType<typeof createWmsService>
export type { Kvp, WmsVersion }
