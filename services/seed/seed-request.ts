// Reads a GWC seed request (XML via xml2js or JSON as Jettison writes it) and validates all of it
// synchronously: a bad field is a 400 naming the field and the
// value, and nothing is created. GWC answers 200 and lets the task die instead.
import type { LayerInfo } from '../catalog/layers.js'
import { SeedFieldInvalid, SeedFieldMissing, SeedUnknownField } from '../errors.js'
import { builtInGrids, maxZoom, type BBox, type GridSet, type GridSubset, type LayerGrids } from '../tilecache/grid-sets.js'
import { formatsOf, isTileFormat, type TileFormat } from '../tilecache/formats.js'
import { normaliseParameters, type ParameterFilterSetting, type ParameterSet } from '../tilecache/parameters.js'
import { parseArea, type Area } from './area.js'

export type TaskType = 'seed' | 'reseed' | 'truncate'

export interface SeedSpec {
  layer: LayerInfo
  type: TaskType
  gridSet: GridSet
  subset: GridSubset
  zoomStart: number
  zoomStop: number
  /** In the grid set's CRS; undefined = the whole grid subset. */
  bounds?: BBox
  /** One format for seed/reseed; truncate without a format covers every format. */
  formats: TileFormat[]
  /** Undefined only for a truncate without parameters: every parameter set. */
  parameters?: ParameterSet
  threadCount: number
  /** Area resource: only metatiles touching this shape (grid set CRS). */
  area?: Area
  /** Area resource: the exact tile count, counted before the tasks are made (countAreaTilesAsync). */
  areaTiles?: bigint
  /** Area resource, reseed: metatiles whose tiles all exist and are at least this recent (ms) are left alone. */
  olderThan?: number
  /** Build each level below zoomStop from the tiles of the level under it (tile-cache.ts decides). */
  pyramid?: boolean
}

const KNOWN = new Set(['name', 'srs', 'gridSetId', 'bounds', 'zoomStart', 'zoomStop', 'format', 'type', 'threadCount',
  'parameters', 'filterUpdate', 'tileFailureRetryCount', 'tileFailureRetryWaitTime', 'totalFailuresBeforeAborting'])

function text (v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v === 'string' || typeof v === 'number') return String(v).trim()
  if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && '_' in (v as object)) return String((v as any)._).trim()
  return undefined
}

function integer (field: string, v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined
  const s = text(v)
  if (s === undefined || !/^[+-]?\d{1,9}$/.test(s)) throw SeedFieldInvalid(field, JSON.stringify(v), 'must be an integer')
  return Number(s)
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/
function coords (v: unknown): BBox {
  let list: unknown = v
  if (list && typeof list === 'object' && !Array.isArray(list)) list = (list as any).coords
  if (list && typeof list === 'object' && !Array.isArray(list)) list = (list as any).double
  if (!Array.isArray(list) || list.length !== 4) throw SeedFieldInvalid('bounds', JSON.stringify(v), 'must hold four numbers under coords/double (minx, miny, maxx, maxy)')
  const nums = list.map((x) => {
    const s = text(x)
    const n = s !== undefined && NUMBER.test(s) ? Number(s) : NaN
    if (!Number.isFinite(n)) throw SeedFieldInvalid('bounds', JSON.stringify(x), 'must be a finite number')
    return n
  }) as BBox
  if (!(nums[0] < nums[2]) || !(nums[1] < nums[3])) throw SeedFieldInvalid('bounds', nums.join(','), 'need minx < maxx and miny < maxy')
  return nums
}

/** `parameters`: GWC's map form (entry/string pairs) or a plain JSON object. */
function parameterMap (v: unknown): Record<string, unknown> {
  if (v === undefined || v === null || v === '') return {}
  if (typeof v !== 'object' || Array.isArray(v)) throw SeedFieldInvalid('parameters', JSON.stringify(v), 'must be a list of entry elements')
  const obj = v as Record<string, unknown>
  if (!('entry' in obj)) return obj
  const out: Record<string, unknown> = {}
  const entries = Array.isArray(obj.entry) ? obj.entry : [obj.entry]
  for (const e of entries) {
    const pair = e && typeof e === 'object' ? (e as any).string : undefined
    if (!Array.isArray(pair) || pair.length !== 2 || text(pair[0]) === undefined) {
      throw SeedFieldInvalid('parameters', JSON.stringify(e), 'each entry holds two string elements, name and value')
    }
    out[text(pair[0])!] = text(pair[1]) ?? ''
  }
  return out
}

/** `grids`: the grid sets the layer offers and its subsets of them (the built-in ones unless told). */
export function parseSeedRequest (body: Record<string, unknown>, layer: LayerInfo, maxThreads: number, grids: LayerGrids = builtInGrids(layer.bbox),
  filters: readonly ParameterFilterSetting[] = []): SeedSpec {
  const { gridSets } = grids
  for (const k of Object.keys(body)) {
    if (k === '$') throw SeedUnknownField(`attribute ${Object.keys(body.$ as object).join(', ')}`)
    if (!KNOWN.has(k)) throw SeedUnknownField(k)
  }
  // Every field is applied or refused by name (issue 16). The layer is the path's (GWC ignores the
  // body's name): a name of another layer is refused, so a truncate meant for it never runs here.
  const nameText = text(body.name)
  if (body.name !== undefined && nameText !== '' && nameText !== layer.qualifiedName && nameText !== layer.name) {
    throw SeedFieldInvalid('name', JSON.stringify(nameText ?? body.name), `names another layer than the path's ${layer.qualifiedName}`)
  }
  // GWC's failure tolerance: mapwarden neither retries a tile nor aborts after a count of failures;
  // a metatile over a damaged granule is skipped and counted (failedMetatiles).
  for (const k of ['tileFailureRetryCount', 'tileFailureRetryWaitTime', 'totalFailuresBeforeAborting']) {
    const v = text(body[k])
    if (body[k] !== undefined && v !== '') throw SeedFieldInvalid(k, JSON.stringify(v ?? body[k]), 'is not supported: a failed metatile is skipped and counted in failedMetatiles, never retried, and never aborts the task')
  }
  const filterUpdate = typeof body.filterUpdate === 'boolean' ? String(body.filterUpdate) : text(body.filterUpdate)
  if (body.filterUpdate !== undefined && filterUpdate !== '' && filterUpdate !== 'false') {
    throw SeedFieldInvalid('filterUpdate', JSON.stringify(filterUpdate ?? body.filterUpdate), 'is not supported (parameter filters are fixed per layer); only false')
  }
  const typeText = text(body.type)
  if (typeText === undefined) throw SeedFieldMissing('type (seed, reseed or truncate)')
  const type = typeText.toLowerCase()
  if (type !== 'seed' && type !== 'reseed' && type !== 'truncate') throw SeedFieldInvalid('type', typeText, 'must be seed, reseed or truncate')

  let gs: GridSet | undefined
  const gridSetId = text(body.gridSetId)
  if (gridSetId !== undefined) {
    gs = gridSets.find((g) => g.id === gridSetId)
    if (!gs) throw SeedFieldInvalid('gridSetId', gridSetId, `unknown grid set; the layer has ${gridSets.map((g) => g.id).join(', ')}`)
  } else if (body.srs !== undefined) {
    const n = integer('srs', typeof body.srs === 'object' && body.srs !== null ? (body.srs as any).number : body.srs)
    gs = gridSets.find((g) => n !== undefined && g.srsNumbers.includes(n))
    if (!gs) throw SeedFieldInvalid('srs', String(n), 'no grid set of the layer has this SRS')
  } else {
    gs = gridSets.find((g) => g.id === 'EPSG:4326')
    if (!gs) throw SeedFieldMissing(`gridSetId: the layer is not cached in EPSG:4326; its grid sets are ${gridSets.map((g) => g.id).join(', ')}`)
  }

  const zoomStart = integer('zoomStart', body.zoomStart)
  const zoomStop = integer('zoomStop', body.zoomStop)
  if (zoomStart === undefined) throw SeedFieldMissing('zoomStart')
  if (zoomStop === undefined) throw SeedFieldMissing('zoomStop')
  const top = maxZoom(gs)
  if (zoomStart < 0 || zoomStart > top) throw SeedFieldInvalid('zoomStart', String(zoomStart), `must be from 0 to ${top} in grid set ${gs.id}`)
  if (zoomStop < 0 || zoomStop > top) throw SeedFieldInvalid('zoomStop', String(zoomStop), `must be from 0 to ${top} in grid set ${gs.id}`)
  if (zoomStart > zoomStop) throw SeedFieldInvalid('zoomStart', String(zoomStart), `is greater than zoomStop ${zoomStop}`)

  const subset = grids.subsetOf(gs)! // (gs is one of grids.gridSets)
  let bounds: BBox | undefined
  if (body.bounds !== undefined && body.bounds !== '') {
    bounds = coords(body.bounds)
    const e = subset.extent
    if (bounds[2] <= e[0] || bounds[0] >= e[2] || bounds[3] <= e[1] || bounds[1] >= e[3]) {
      throw SeedFieldInvalid('bounds', bounds.join(','), `do not intersect the layer's extent ${e.join(',')} in grid set ${gs.id}`)
    }
  }

  const formatText = text(body.format)
  let formats: TileFormat[]
  if (formatText === undefined || formatText === '') formats = type === 'truncate' ? formatsOf(layer) : ['image/png']
  else if (isTileFormat(formatText) && formatsOf(layer).includes(formatText)) formats = [formatText]
  else throw SeedFieldInvalid('format', formatText, `must be one of ${formatsOf(layer).join(', ')}${isTileFormat(formatText) ? ' (vector tiles are for vector layers and layer groups)' : ''}`)

  const threadCount = integer('threadCount', body.threadCount) ?? 1
  if (threadCount < 1 || threadCount > maxThreads) throw SeedFieldInvalid('threadCount', String(threadCount), `must be from 1 to ${maxThreads}`)

  const rawParams = parameterMap(body.parameters)
  const parameters = type === 'truncate' && body.parameters === undefined ? undefined : normaliseParameters(layer, rawParams, undefined, undefined, filters)
  return { layer, type, gridSet: gs, subset, zoomStart, zoomStop, bounds, formats, parameters, threadCount }
}

const AREA_FIELDS = new Set(['seedRequest', 'geometry', 'olderThan'])

/** A date-time with a time zone (RFC 3339) or a date (midnight UTC), as milliseconds. */
function dateField (field: string, v: unknown): number {
  const s = typeof v === 'string' ? v.trim() : ''
  const ok = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(s)
  const ms = ok ? Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s) : NaN
  if (!Number.isFinite(ms)) throw SeedFieldInvalid(field, JSON.stringify(v), 'must be an ISO 8601 date or date-time with a time zone, e.g. 2026-11-24T10:00:00Z')
  return ms
}

/**
 * The area resource (POST seed/<layer>/area.json): `{ seedRequest, geometry, olderThan }`, the
 * seed request as on seed/<layer>.json plus a GeoJSON Polygon or MultiPolygon (required) and, for
 * a reseed, `olderThan` (also as a query parameter). The request's bounds, when given, still apply.
 */
export function parseAreaRequest (body: unknown, layer: LayerInfo, maxThreads: number, olderThanQuery?: string, grids?: LayerGrids, filters: readonly ParameterFilterSetting[] = []): SeedSpec {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw SeedFieldMissing('seedRequest (a JSON object with seedRequest and geometry)')
  const b = body as Record<string, unknown>
  for (const k of Object.keys(b)) if (!AREA_FIELDS.has(k)) throw SeedUnknownField(k)
  if (b.seedRequest === null || typeof b.seedRequest !== 'object' || Array.isArray(b.seedRequest)) throw SeedFieldMissing('seedRequest')
  const spec = parseSeedRequest(b.seedRequest as Record<string, unknown>, layer, maxThreads, grids, filters)
  const area = parseArea(b.geometry, spec.gridSet)
  if (b.olderThan !== undefined && olderThanQuery !== undefined) throw SeedFieldInvalid('olderThan', olderThanQuery, 'is given both in the body and as a query parameter')
  const older = b.olderThan ?? olderThanQuery
  let olderThan: number | undefined
  if (older !== undefined) {
    if (spec.type !== 'reseed') throw SeedFieldInvalid('olderThan', String(older), `applies to a reseed, not a ${spec.type}`)
    olderThan = dateField('olderThan', older)
  }
  const e = spec.subset.extent
  let bounds: BBox = [Math.max(e[0], area.bbox[0]), Math.max(e[1], area.bbox[1]), Math.min(e[2], area.bbox[2]), Math.min(e[3], area.bbox[3])]
  if (spec.bounds) bounds = [Math.max(bounds[0], spec.bounds[0]), Math.max(bounds[1], spec.bounds[1]), Math.min(bounds[2], spec.bounds[2]), Math.min(bounds[3], spec.bounds[3])]
  if (!(bounds[0] < bounds[2]) || !(bounds[1] < bounds[3])) {
    throw SeedFieldInvalid('geometry', area.bbox.join(','), `does not intersect the layer's extent ${e.join(',')}${spec.bounds ? ' within the request bounds' : ''} in grid set ${spec.gridSet.id}`)
  }
  return { ...spec, bounds, area, olderThan }
}
