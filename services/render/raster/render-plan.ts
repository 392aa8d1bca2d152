// RenderRequest -> RenderJob: finds the layer's mosaic, queries the index for the granules that
// intersect the request's bbox (in the granules' CRS), honouring TIME and ELEVATION (when absent,
// the coverage's defaultValue: GeoServer's latest time and lowest elevation unless a PUT set
// another) and CQL_FILTER.
import type { RasterStyle, RenderRequest } from '../render-types.js'
import type { RenderJob } from './mosaic-types.js'
import { isSupportedCrs, normalizeCrs, transformBbox } from '../crs.js'
import { splitLayerName } from '../../catalog/layers.js'
import { InvalidCql, InvalidDimensionValue, InvalidRenderRequest, MosaicLayerNotFound } from '../../errors.js'
import type { CoverageConfig, MosaicRecord, MosaicStore } from '../../mosaics/store.js'
import { isoInstant } from '../../filters/ecql.js'
import { allOf, anyOf, compare, type Filter, type Value } from '../../filters/tree.js'
import { acceptableWindow, defaultBandNames, defaultValueOf } from '../../mosaics/coverage-fields.js'

const MAX_SIZE = 8192
const MAX_GRANULES = 5000

interface Deps {
  store: MosaicStore
  compile: (mosaic: MosaicRecord, filter: string) => Filter
}

/** TIME: instant, start/end, comma list, or 'current'. */
/** A requested instant or elevation mapped to the value to select (nearest match), else itself. */
type Nearest = (value: string | number) => Promise<Value>

async function timeFilter (value: string, attr: string, latest: () => Promise<Value>, nearest?: Nearest): Promise<Filter> {
  const parts = value.split(',').map((s) => s.trim()).filter(Boolean)
  if (parts.length === 0 || parts.length > 100) throw InvalidDimensionValue('TIME', JSON.stringify(value.slice(0, 60)))
  const any: Filter[] = []
  const instant = async (s: string): Promise<Value> => {
    if (s.toLowerCase() === 'current' || s.toLowerCase() === 'present') return await latest()
    try { return isoInstant(s) } catch { throw InvalidDimensionValue('TIME', JSON.stringify(s.slice(0, 60))) }
  }
  for (const p of parts) {
    const range = p.split('/')
    if (range.length === 2 || range.length === 3) {
      any.push(allOf([compare('>=', attr, await instant(range[0])), compare('<=', attr, await instant(range[1]))])!)
    } else {
      const t = await instant(p)
      any.push(compare('=', attr, nearest && typeof t === 'string' ? await nearest(t) : t))
    }
  }
  return anyOf(any)!
}

async function elevationFilter (value: string, attr: string, nearest?: Nearest): Promise<Filter> {
  const parts = value.split(',').map((s) => s.trim()).filter(Boolean)
  if (parts.length === 0 || parts.length > 100) throw InvalidDimensionValue('ELEVATION', JSON.stringify(value.slice(0, 60)))
  const num = (s: string) => {
    const n = Number(s)
    if (s === '' || !Number.isFinite(n)) throw InvalidDimensionValue('ELEVATION', JSON.stringify(value.slice(0, 60)))
    return n
  }
  const any: Filter[] = []
  for (const p of parts) {
    const range = p.split('/')
    if (range.length >= 2) any.push(allOf([compare('>=', attr, num(range[0])), compare('<=', attr, num(range[1]))])!)
    else any.push(compare('=', attr, nearest ? await nearest(num(p)) : num(p)))
  }
  return anyOf(any)!
}

/**
 * GeoServer's nearest match (dimensionInfo nearestMatchEnabled): a requested instant or elevation
 * without granules selects the closest value the index holds, within acceptableInterval when set
 * (before/after); past it, the requested value stands (and selects nothing).
 */
function nearestMatch (store: MosaicStore, ws: string, storeName: string, attr: string, dim: 'time' | 'elevation', info: Record<string, unknown> | undefined): Nearest | undefined {
  if (info?.nearestMatchEnabled !== true) return undefined
  const window = typeof info.acceptableInterval === 'string' ? acceptableWindow(dim, info.acceptableInterval) : [Infinity, Infinity]
  const measure = (v: Value): number => (dim === 'time' ? Date.parse(String(v)) : Number(v))
  const side = async (op: '<=' | '>=', v: string | number) => {
    const mm = await store.minMax(ws, storeName, attr, compare(op, attr, v))
    return op === '<=' ? mm.max : mm.min
  }
  return async (v) => {
    const below = await side('<=', v)
    const above = await side('>=', v)
    const at = measure(v)
    const dBelow = below === null ? Infinity : at - measure(below)
    const dAbove = above === null ? Infinity : measure(above) - at
    const okBelow = dBelow <= window[0]
    const okAbove = dAbove <= window[1]
    if (okBelow && (!okAbove || dBelow <= dAbove)) return below
    if (okAbove) return above
    return v
  }
}

/** A style that selects bands by name, with the names turned into this coverage's band indexes. */
function withBandIndexes (style: RasterStyle, config: CoverageConfig, layer: string): RasterStyle {
  if (!style.channelNames) return style
  const names = config.bandNames?.length === config.bands ? config.bandNames : defaultBandNames(config.bands ?? 1)
  const index = (name: string): number => {
    let i = names.indexOf(name)
    if (i < 0) i = names.findIndex((n) => n.toLowerCase() === name.toLowerCase())
    if (i < 0) throw InvalidRenderRequest(`the style selects band ${JSON.stringify(name.slice(0, 60))}, which ${layer} does not have (its bands: ${names.join(', ').slice(0, 200)})`)
    return i + 1
  }
  const channels = { ...style.channels }
  for (const [key, name] of Object.entries(style.channelNames) as Array<[keyof typeof channels, string | undefined]>) {
    if (name !== undefined) channels[key] = index(name)
  }
  const { channelNames: _, ...rest } = style
  return { ...rest, channels }
}

export async function prepareRenderJob (req: RenderRequest, deps: Deps): Promise<RenderJob> {
  const { width, height, bbox } = req
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || width > MAX_SIZE || height > MAX_SIZE) {
    throw InvalidRenderRequest(`width and height must be integers from 1 to ${MAX_SIZE}`)
  }
  if (!Array.isArray(bbox) || bbox.length !== 4 || !bbox.every(Number.isFinite) || bbox[2] <= bbox[0] || bbox[3] <= bbox[1]) {
    throw InvalidRenderRequest('bbox must be four finite numbers minx, miny, maxx, maxy with min < max')
  }
  const crs = normalizeCrs(req.crs)
  if (!isSupportedCrs(crs, req.proj4Defs)) throw InvalidRenderRequest(`unsupported CRS ${req.crs}`)
  const name = splitLayerName(req.layer)
  if (!name) throw MosaicLayerNotFound(req.layer)
  const row = await deps.store.layerCoverage(name.workspace, name.name)
  const mosaic = row ? await deps.store.getMosaic(name.workspace, row.store) : undefined
  if (!row || !mosaic) throw MosaicLayerNotFound(req.layer)
  const config = row.config
  const job: RenderJob = {
    crs,
    bbox: [...bbox] as [number, number, number, number],
    width,
    height,
    granules: [],
    bands: config.bands ?? 1,
    ranges: config.ranges ?? []
  }
  if (req.style !== undefined) job.style = withBandIndexes(req.style, config, req.layer)
  if (req.proj4Defs !== undefined) job.proj4Defs = { ...req.proj4Defs }
  if (!mosaic.crs) return job
  if (!isSupportedCrs(mosaic.crs)) throw InvalidRenderRequest(`unsupported CRS ${mosaic.crs} of the granules`)

  const filters: Filter[] = []
  const { timeAttribute, elevationAttribute } = mosaic.settings
  if (config.dimensions?.time && timeAttribute) {
    const latest = async () => (await deps.store.minMax(name.workspace, row.store, timeAttribute)).max
    if (req.time !== undefined && req.time !== '') {
      filters.push(await timeFilter(req.time, timeAttribute, latest, nearestMatch(deps.store, name.workspace, row.store, timeAttribute, 'time', config.dimensionInfo?.time)))
    } else {
      // The dimension's default (coverage PUT defaultValue): latest unless set otherwise.
      const d = defaultValueOf('time', config.dimensionInfo?.time)
      const t = d.strategy === 'FIXED' ? isoInstant(d.referenceValue!)
        : d.strategy === 'MINIMUM' ? (await deps.store.minMax(name.workspace, row.store, timeAttribute)).min : await latest()
      if (t !== null) filters.push(compare('=', timeAttribute, t))
    }
  }
  if (config.dimensions?.elevation && elevationAttribute) {
    if (req.elevation !== undefined && req.elevation !== '') {
      filters.push(await elevationFilter(req.elevation, elevationAttribute, nearestMatch(deps.store, name.workspace, row.store, elevationAttribute, 'elevation', config.dimensionInfo?.elevation)))
    } else {
      // The lowest (or highest) elevation among the granules of the selected time, so that the two
      // defaults never select nothing when that time has no granule at the overall lowest elevation.
      const d = defaultValueOf('elevation', config.dimensionInfo?.elevation)
      const range = d.strategy === 'FIXED' ? undefined : await deps.store.minMax(name.workspace, row.store, elevationAttribute, allOf(filters))
      const e = d.strategy === 'FIXED' ? Number(d.referenceValue) : d.strategy === 'MAXIMUM' ? range!.max : range!.min
      if (e !== null) filters.push(compare('=', elevationAttribute, e))
    }
  }
  if (req.cqlFilter !== undefined && req.cqlFilter !== '') {
    try { filters.push(deps.compile(mosaic, req.cqlFilter)) } catch (err) { throw err instanceof Error && 'code' in err ? err : InvalidCql(String(err)) }
  }
  // Requests past the mercator latitude limit are clamped by the transform.
  const searchBox = transformBbox(job.bbox, crs, mosaic.crs, req.proj4Defs)
  if (!searchBox.every(Number.isFinite)) return job
  const granules = await deps.store.query(name.workspace, row.store, { bbox: searchBox, filter: allOf(filters), limit: MAX_GRANULES })
  job.granules = granules.map((g) => ({
    path: g.path, crs: g.crs, bbox: g.nativeBbox, width: g.width, height: g.height, bands: g.bands, nodata: g.nodata
  }))
  if (job.ranges.length === 0) job.ranges = granules[0]?.ranges ?? []
  return job
}
