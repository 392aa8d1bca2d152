// What a coverage's representation shows (coverageView) and how a PUT of it applies (editCoverage).
// GeoServer's CoverageController PUT copies every field the body carries onto the coverage
// (CatalogBuilder.updateCoverage); here every field GET shows is either applied or, when mapwarden
// cannot honour a change (a rename, another CRS, another extent), refused with a 400 naming it, so
// a 200 always means the change took. Read-only fields sent back unchanged (GET-modify-PUT) pass.
import { checkFields, sameValue, unifyShape } from '../body-fields.js'
import { InvalidCoverage } from '../errors.js'
import type { CoverageConfig, CoverageRow, MosaicRecord } from './store.js'
import { isoInstant } from '../filters/ecql.js'

const DIMENSION_TYPES: Record<string, string> = {
  Byte: 'UNSIGNED_8BITS', Int8: 'SIGNED_8BITS', UInt16: 'UNSIGNED_16BITS', Int16: 'SIGNED_16BITS',
  UInt32: 'UNSIGNED_32BITS', Int32: 'SIGNED_32BITS', Float32: 'REAL_32BITS', Float64: 'REAL_64BITS'
}

/** GeoServer's ProjectionPolicy values. With the declared CRS equal to the native one (the only
 *  case mapwarden serves) the three render alike, so each is kept as chosen. */
export const PROJECTION_POLICIES = ['REPROJECT_TO_DECLARED', 'FORCE_DECLARED', 'NONE'] as const
export const PRESENTATIONS = ['LIST', 'CONTINUOUS_INTERVAL', 'DISCRETE_INTERVAL']
export const MAX_METADATA_ENTRIES = 100
export const MAX_TEXT = 4096

/**
 * What of a coverage's settings a render reads: the dimensions switched on, their default values
 * and nearest match (which granules a tile draws) and the band names (a style may select bands by
 * name). An edit that changes it makes the cached tiles stale.
 */
export function renderedBy (config: CoverageConfig): string {
  const dims = Object.fromEntries(Object.entries(config.dimensionInfo ?? {}).map(([dim, info]) =>
    [dim, [info.defaultValue ?? null, info.nearestMatchEnabled ?? null, info.acceptableInterval ?? null]]))
  return JSON.stringify([config.dimensions, dims, config.bandNames ?? null])
}

/** GeoServer's default band names for a GeoTIFF of n bands (GridSampleDimension descriptions). */
export function defaultBandNames (n: number): string[] {
  if (n === 1) return ['GRAY_INDEX']
  if (n === 3) return ['RED_BAND', 'GREEN_BAND', 'BLUE_BAND']
  if (n === 4) return ['RED_BAND', 'GREEN_BAND', 'BLUE_BAND', 'ALPHA_BAND']
  return Array.from({ length: n }, (_, i) => `Band${i + 1}`)
}

type Dim = 'time' | 'elevation'
type Box = { minx: number, maxx: number, miny: number, maxy: number, crs?: string } | undefined

export interface BandView { name: string, description: string, range?: { min: number, max: number }, dimensionType: { name: string } }
export interface DimensionView {
  enabled: boolean, attribute: string, presentation: string, resolution?: number, units: string, unitSymbol?: string,
  defaultValue: DefaultValue
  nearestMatchEnabled?: boolean
  acceptableInterval?: string
}

const DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/

/** An ISO 8601 duration in milliseconds (weeks to seconds; years and months have no fixed length). */
function durationMs (s: string): number | undefined {
  const m = DURATION.exec(s)
  if (!m || s === 'P' || s.endsWith('T')) return undefined
  const [w, d, h, min, sec] = m.slice(1).map((x) => Number(x ?? 0))
  return ((((w * 7 + d) * 24 + h) * 60 + min) * 60 + sec) * 1000
}

/**
 * GeoServer's acceptableInterval: how far from the requested value a nearest match may be, one
 * value for both sides or "before/after"; a duration for time (PT1H), a number for elevation.
 */
export function acceptableWindow (dim: 'time' | 'elevation', text: string, field = 'acceptableInterval'): [number, number] {
  const parts = text.split('/')
  const one = (p: string): number => {
    const v = dim === 'time' ? durationMs(p.trim()) : (p.trim() !== '' && Number(p) >= 0 ? Number(p) : undefined)
    if (v === undefined || !Number.isFinite(v)) {
      throw InvalidCoverage(`${field} ${JSON.stringify(text.slice(0, 40))} must be ${dim === 'time' ? 'an ISO 8601 duration in weeks, days, hours, minutes or seconds (PT1H), or two of them as before/after' : 'a non-negative number, or two as before/after'}`)
    }
    return v
  }
  if (parts.length > 2) one('')
  return parts.length === 2 ? [one(parts[0]), one(parts[1])] : [one(parts[0]), one(parts[0])]
}

/** GeoServer's DimensionDefaultValueSetting: which value a request without TIME/ELEVATION gets. */
export interface DefaultValue { strategy: 'MINIMUM' | 'MAXIMUM' | 'FIXED', referenceValue?: string }
export const STRATEGIES = ['MINIMUM', 'MAXIMUM', 'FIXED']

/** The stored default of a dimension, else GeoServer's (latest time, lowest elevation). */
export function defaultValueOf (dim: 'time' | 'elevation', info: Record<string, unknown> | undefined): DefaultValue {
  const d = info?.defaultValue as DefaultValue | undefined
  if (d && STRATEGIES.includes(d.strategy)) return d.referenceValue === undefined ? { strategy: d.strategy } : { strategy: d.strategy, referenceValue: d.referenceValue }
  return { strategy: dim === 'time' ? 'MAXIMUM' : 'MINIMUM' }
}

/** A coverage as its GET shows it, in plain values (the plugin adds links). */
export interface CoverageView {
  name: string, nativeName: string, workspace: string, store: string, title: string, abstract?: string, keywords: string[],
  nativeCRS?: string, srs?: string, nativeBoundingBox: Box, latLonBoundingBox: Box, projectionPolicy: string, enabled: boolean,
  dimensionInfo: Array<[Dim, DimensionView]>, metadata: Array<[string, string]>, nativeFormat: string, bands: BandView[]
}

function bbox (b: [number, number, number, number] | null, crs: string | null): Box {
  return b ? { minx: b[0], maxx: b[2], miny: b[1], maxy: b[3], crs: crs ?? undefined } : undefined
}

/** The coverage's band names: as a PUT renamed them, else GeoServer's defaults (REST, WMS GetFeatureInfo). */
export function coverageBandNames (c: CoverageRow): string[] {
  return c.config.bandNames?.length === c.config.bands ? c.config.bandNames : defaultBandNames(c.config.bands)
}

function bandsOf (c: CoverageRow): BandView[] {
  const names = coverageBandNames(c)
  const descriptions = c.config.bandDescriptions?.length === c.config.bands ? c.config.bandDescriptions : undefined
  return names.map((name, i) => ({
    name,
    description: descriptions?.[i] ?? `${name} of ${c.config.dataType}`,
    range: c.config.ranges[i] ? { min: c.config.ranges[i].min, max: c.config.ranges[i].max } : undefined,
    dimensionType: { name: DIMENSION_TYPES[c.config.dataType] ?? c.config.dataType }
  }))
}

export function coverageView (c: CoverageRow, mosaic: MosaicRecord): CoverageView {
  const dimensionInfo: Array<[Dim, DimensionView]> = []
  const dims: Array<[Dim, string | undefined]> = [['time', mosaic.settings.timeAttribute], ['elevation', mosaic.settings.elevationAttribute]]
  for (const [dim, attr] of dims) {
    if (!attr) continue
    const info = c.config.dimensionInfo?.[dim] ?? {}
    dimensionInfo.push([dim, {
      enabled: c.config.dimensions[dim],
      attribute: attr,
      presentation: String(info.presentation ?? 'LIST'),
      resolution: info.resolution === undefined ? undefined : Number(info.resolution),
      units: String(info.units ?? (dim === 'time' ? 'ISO8601' : 'EPSG:5030')),
      unitSymbol: dim === 'elevation' ? String(info.unitSymbol ?? 'm') : (info.unitSymbol === undefined ? undefined : String(info.unitSymbol)),
      // What the renderer draws without TIME/ELEVATION (services/render/raster/render-plan.ts reads it).
      defaultValue: defaultValueOf(dim, info),
      nearestMatchEnabled: info.nearestMatchEnabled === true ? true : undefined,
      acceptableInterval: typeof info.acceptableInterval === 'string' ? info.acceptableInterval : undefined
    }])
  }
  return {
    name: c.name,
    nativeName: c.nativeName,
    workspace: c.workspace,
    store: c.store,
    title: c.title ?? c.name,
    abstract: c.config.abstract || undefined,
    keywords: c.config.keywords ?? [],
    nativeCRS: c.srs ?? undefined,
    srs: c.srs ?? undefined,
    nativeBoundingBox: bbox(c.config.nativeBbox, c.srs),
    latLonBoundingBox: bbox(c.bbox, 'EPSG:4326'),
    projectionPolicy: c.config.projectionPolicy ?? 'REPROJECT_TO_DECLARED',
    enabled: c.config.enabled !== false,
    dimensionInfo,
    metadata: Object.entries(c.config.metadata ?? {}),
    nativeFormat: c.config.nativeFormat ?? 'ImageMosaic',
    bands: bandsOf(c)
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === '' || v === null ? [] : [v])

function bool (v: unknown, field: string): boolean {
  if (v === true || v === 'true') return true
  if (v === false || v === 'false') return false
  throw InvalidCoverage(`${field} must be true or false, got ${JSON.stringify(String(v).slice(0, 20))}`)
}

/** A text field: a string (JSON numbers and booleans read as their text), at most MAX_TEXT long. */
function text (v: unknown, field: string, { allowEmpty = true } = {}): string {
  if (v === null) v = ''
  if (typeof v === 'number' || typeof v === 'boolean') v = String(v)
  if (typeof v !== 'string') throw InvalidCoverage(`${field} must be text`)
  if (v.length > MAX_TEXT) throw InvalidCoverage(`${field} is longer than ${MAX_TEXT} characters`)
  if (!allowEmpty && v.trim() === '') throw InvalidCoverage(`${field} must not be empty`)
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(v)) throw InvalidCoverage(`${field} holds a control character`)
  return v
}

/** keywords: GeoServer's {"string": [...]} (XML <keywords><string>..</string></keywords>), "" for none. */
function keywords (v: unknown): string[] {
  if (v === '' || v === null) return []
  if (!isObject(v)) throw InvalidCoverage('keywords must hold string elements (<keywords><string>...</string></keywords>, {"string":[...]})')
  checkFields(v, 'coverage.keywords', ['string'])
  const list = asList(v.string).map((k, i) => text(k, `keywords.string[${i}]`, { allowEmpty: false }))
  if (list.length > MAX_METADATA_ENTRIES) throw InvalidCoverage(`keywords: more than ${MAX_METADATA_ENTRIES}`)
  return list
}

function editBands (v: unknown, view: CoverageView, config: CoverageConfig): void {
  if (v === '' || v === null) throw InvalidCoverage(`dimensions: the coverage has ${view.bands.length} band(s); the list cannot be emptied`)
  if (!isObject(v)) throw InvalidCoverage('dimensions must hold coverageDimension elements')
  checkFields(v, 'coverage.dimensions', ['coverageDimension'])
  const sent = asList(v.coverageDimension)
  // GeoServer replaces the whole list; one entry per band keeps names tied to the right band.
  if (sent.length !== view.bands.length) {
    throw InvalidCoverage(`dimensions.coverageDimension lists ${sent.length} band(s), the coverage has ${view.bands.length}: send one entry per band, in band order`)
  }
  const names: string[] = []
  const descriptions: string[] = []
  sent.forEach((d, i) => {
    const where = `coverage.dimensions.coverageDimension[${i}]`
    const band = view.bands[i]
    if (!isObject(d)) throw InvalidCoverage(`${where.slice('coverage.'.length)} must be an object`)
    checkFields(d, where, ['name', 'description'], { range: band.range, dimensionType: band.dimensionType })
    const name = d.name === undefined ? band.name : text(d.name, `dimensions.coverageDimension[${i}].name`, { allowEmpty: false }).trim()
    if (name.length > 256) throw InvalidCoverage(`dimensions.coverageDimension[${i}].name is longer than 256 characters`)
    if (names.includes(name)) throw InvalidCoverage(`dimensions.coverageDimension[${i}].name ${JSON.stringify(name)} names two bands`)
    names.push(name)
    // A description left out follows the (new) name, as the default one does.
    const defaulted = band.description === `${band.name} of ${config.dataType}`
    descriptions.push(d.description !== undefined
      ? text(d.description, `dimensions.coverageDimension[${i}].description`)
      : defaulted ? `${name} of ${config.dataType}` : band.description)
  })
  const defaults = defaultBandNames(config.bands)
  config.bandNames = names.every((n, i) => n === defaults[i]) ? undefined : names
  config.bandDescriptions = descriptions.every((d, i) => d === `${names[i]} of ${config.dataType}`) ? undefined : descriptions
}

function editDimension (dim: Dim, info: unknown, view: CoverageView, config: CoverageConfig): void {
  const where = `coverage.metadata.entry[${dim}].dimensionInfo`
  if (!isObject(info)) throw InvalidCoverage(`metadata entry ${dim}: dimensionInfo must be an object`)
  const current = view.dimensionInfo.find(([d]) => d === dim)?.[1]
  if (!current) {
    // No attribute to read the dimension from: only "off", which it is, can be accepted.
    const attr = dim === 'time' ? 'TimeAttribute' : 'ElevationAttribute'
    if (Object.keys(info).length === 1 && info.enabled !== undefined && !bool(info.enabled, `${dim} enabled`)) return
    throw InvalidCoverage(`the mosaic has no ${attr}, so ${dim} cannot be enabled or configured (metadata entry ${dim})`)
  }
  // rawNearestMatchEnabled is WCS's (mapwarden serves no WCS), so only "off" is accepted for it.
  checkFields(info, where, ['enabled', 'presentation', 'resolution', 'units', 'unitSymbol', 'defaultValue', 'nearestMatchEnabled', 'acceptableInterval'], {
    attribute: current.attribute, rawNearestMatchEnabled: false
  })
  if (info.enabled !== undefined) config.dimensions[dim] = bool(info.enabled, `metadata entry ${dim}: enabled`)
  const next: Record<string, unknown> = { ...(config.dimensionInfo?.[dim] ?? {}) }
  if (info.presentation !== undefined) {
    const p = text(info.presentation, `metadata entry ${dim}: presentation`)
    if (!PRESENTATIONS.includes(p)) throw InvalidCoverage(`metadata entry ${dim}: presentation ${JSON.stringify(p.slice(0, 40))} is not one of ${PRESENTATIONS.join(', ')}`)
    next.presentation = p
  }
  // Kept whatever the presentation, as GeoServer keeps it (it describes DISCRETE_INTERVAL lists).
  if (info.resolution !== undefined) {
    const r = text(info.resolution, `metadata entry ${dim}: resolution`).trim()
    if (r === '') delete next.resolution
    else if (!(Number(r) > 0)) throw InvalidCoverage(`metadata entry ${dim}: resolution must be a positive number, got ${JSON.stringify(r.slice(0, 40))}`)
    else next.resolution = r
  }
  for (const k of ['units', 'unitSymbol'] as const) {
    if (info[k] === undefined) continue
    const s = text(info[k], `metadata entry ${dim}: ${k}`)
    if (s === '') delete next[k]
    else next[k] = s
  }
  if (info.nearestMatchEnabled !== undefined) {
    if (bool(info.nearestMatchEnabled, `metadata entry ${dim}: nearestMatchEnabled`)) next.nearestMatchEnabled = true
    else delete next.nearestMatchEnabled
  }
  if (info.acceptableInterval !== undefined) {
    const a = text(info.acceptableInterval, `metadata entry ${dim}: acceptableInterval`).trim()
    if (a === '') delete next.acceptableInterval
    else { acceptableWindow(dim, a, `metadata entry ${dim}: acceptableInterval`); next.acceptableInterval = a }
  }
  if (info.defaultValue !== undefined) {
    const d = editDefaultValue(dim, info.defaultValue)
    if (d) next.defaultValue = d
    else delete next.defaultValue
  }
  config.dimensionInfo = { ...(config.dimensionInfo ?? {}), [dim]: next }
}

/** defaultValue: MINIMUM or MAXIMUM of the values, or FIXED at a referenceValue; "" for GeoServer's default. */
function editDefaultValue (dim: Dim, v: unknown): DefaultValue | undefined {
  const where = `metadata entry ${dim}: defaultValue`
  if (v === '' || v === null) return undefined
  if (!isObject(v)) throw InvalidCoverage(`${where} must hold a strategy`)
  checkFields(v, `coverage.metadata.entry[${dim}].dimensionInfo.defaultValue`, ['strategy', 'referenceValue'])
  const strategy = text(v.strategy ?? '', `${where}.strategy`).trim()
  if (strategy === 'NEAREST') throw InvalidCoverage(`${where}.strategy NEAREST is not supported; use MINIMUM, MAXIMUM or FIXED`)
  if (!STRATEGIES.includes(strategy)) throw InvalidCoverage(`${where}.strategy ${JSON.stringify(strategy.slice(0, 40))} is not one of ${STRATEGIES.join(', ')}`)
  const ref = v.referenceValue === undefined ? '' : text(v.referenceValue, `${where}.referenceValue`).trim()
  if (strategy !== 'FIXED') {
    if (ref !== '') throw InvalidCoverage(`${where}.referenceValue applies to the FIXED strategy only`)
    return { strategy: strategy as DefaultValue['strategy'] }
  }
  if (ref === '') throw InvalidCoverage(`${where}: the FIXED strategy needs a referenceValue`)
  if (dim === 'time') {
    try { isoInstant(ref) } catch { throw InvalidCoverage(`${where}.referenceValue ${JSON.stringify(ref.slice(0, 40))} is not an ISO 8601 time`) }
  } else if (!Number.isFinite(Number(ref))) throw InvalidCoverage(`${where}.referenceValue ${JSON.stringify(ref.slice(0, 40))} is not a number`)
  return { strategy: 'FIXED', referenceValue: ref }
}

function editMetadata (v: unknown, view: CoverageView, config: CoverageConfig): void {
  if (v === '' || v === null) return // an empty map changes nothing (entries are merged, as in GeoServer)
  if (!isObject(v)) throw InvalidCoverage('metadata must hold entry elements')
  checkFields(v, 'coverage.metadata', ['entry'])
  const custom: Record<string, string> = { ...(config.metadata ?? {}) }
  const entries = asList(v.entry)
  for (const [i, e] of entries.entries()) {
    if (!isObject(e) || typeof e['@key'] !== 'string' || e['@key'] === '') throw InvalidCoverage(`metadata entry ${i + 1} needs a key attribute (<entry key="...">, "@key")`)
    const key = e['@key']
    if (key.length > 256) throw InvalidCoverage(`metadata entry key longer than 256 characters: ${JSON.stringify(key.slice(0, 40))}...`)
    const where = `coverage.metadata.entry[${key}]`
    if (key === 'time' || key === 'elevation') {
      checkFields(e, where, ['@key', 'dimensionInfo'])
      if (e.dimensionInfo === undefined) throw InvalidCoverage(`metadata entry ${key} must hold a dimensionInfo`)
      editDimension(key, e.dimensionInfo, view, config)
      continue
    }
    if (e.dimensionInfo !== undefined) throw InvalidCoverage(`metadata entry ${JSON.stringify(key)}: custom dimensions are not supported, only time and elevation`)
    // Any other entry is a plain value that GeoServer keeps in the coverage's metadata map: kept and echoed.
    checkFields(e, where, ['@key', '$'])
    const value = e.$
    if (value === undefined || value === '' || value === null) delete custom[key]
    else if (isObject(value) || Array.isArray(value)) throw InvalidCoverage(`metadata entry ${JSON.stringify(key)}: only text values are supported`)
    else custom[key] = text(value, `metadata entry ${JSON.stringify(key)}`)
  }
  if (Object.keys(custom).length > MAX_METADATA_ENTRIES) throw InvalidCoverage(`metadata: more than ${MAX_METADATA_ENTRIES} entries`)
  config.metadata = Object.keys(custom).length ? custom : undefined
}

/**
 * Applies a PUT body (the object under `coverage`, XML or JSON) to a coverage: the row to store.
 * Fields left out keep their value. Throws (naming the field) before anything is changed.
 */
export function editCoverage (body: Record<string, unknown>, c: CoverageRow, mosaic: MosaicRecord): CoverageRow {
  const b = unifyShape(body) as Record<string, unknown>
  const view = coverageView(c, mosaic)
  // Read-only: what GET shows, accepted back unchanged. The CRS and extents come from the granules,
  // and mapwarden serves a coverage in its native CRS only (so srs is the native one).
  const readOnly: Record<string, unknown> = {
    name: view.name,
    nativeName: view.nativeName,
    nativeCoverageName: view.nativeName,
    namespace: { name: view.workspace },
    nativeCRS: view.nativeCRS,
    srs: view.srs,
    nativeBoundingBox: view.nativeBoundingBox,
    latLonBoundingBox: view.latLonBoundingBox,
    store: { '@class': 'coverageStore', name: `${view.workspace}:${view.store}` },
    nativeFormat: view.nativeFormat
  }
  if (b.srs !== undefined && !sameValue(b.srs, view.srs)) {
    throw InvalidCoverage(`srs ${JSON.stringify(String(b.srs).slice(0, 40))} cannot be declared: mapwarden serves a coverage in the CRS of its granules (${view.srs ?? 'none yet'})`)
  }
  checkFields(b, 'coverage', ['title', 'abstract', 'keywords', 'projectionPolicy', 'enabled', 'metadata', 'dimensions'], readOnly)

  const config: CoverageConfig = { ...c.config, dimensions: { ...c.config.dimensions }, dimensionInfo: { ...(c.config.dimensionInfo ?? {}) } }
  let title = c.title
  if (b.title !== undefined) title = text(b.title, 'title').trim() === '' ? null : text(b.title, 'title')
  if (b.abstract !== undefined) {
    const a = text(b.abstract, 'abstract')
    if (a === '') delete config.abstract
    else config.abstract = a
  }
  if (b.keywords !== undefined) {
    const k = keywords(b.keywords)
    if (k.length) config.keywords = k
    else delete config.keywords
  }
  if (b.projectionPolicy !== undefined) {
    const p = text(b.projectionPolicy, 'projectionPolicy')
    if (!(PROJECTION_POLICIES as readonly string[]).includes(p)) {
      throw InvalidCoverage(`projectionPolicy ${JSON.stringify(p.slice(0, 40))} is not one of ${PROJECTION_POLICIES.join(', ')}`)
    }
    config.projectionPolicy = p as CoverageConfig['projectionPolicy']
  }
  if (b.enabled !== undefined) config.enabled = bool(b.enabled, 'enabled')
  if (b.metadata !== undefined) editMetadata(b.metadata, view, config)
  if (b.dimensions !== undefined) editBands(b.dimensions, view, config)
  return { ...c, title, config }
}
