// Parameter filters of a tile layer (GWC ParameterFilter): STYLES and CQL_FILTER always, TIME and
// ELEVATION when the mosaic has those dimensions, VIEWPARAMS on an SQL view layer. Each distinct normalised set of values is its
// own tile set, named by a stable hash (GWC ParametersUtils.getId is a SHA-1 of the sorted KVP).
// An administrator narrows CQL_FILTER, TIME and ELEVATION with GWC's own filters (GeoServerLayer
// parameterFilters, kept in the layer's tile settings): string (a list of values), regex, float and
// integer (the closest listed value within a threshold); a value a filter refuses is refused as GWC
// refuses it ("<value> violates filter for parameter <key>").
import { createHash } from 'node:crypto'
import type { LayerInfo } from '../catalog/layers.js'
import { remoteStylesOf, type CascadeLayerConfig } from '../cascade/store.js'
import { normalViewParams, parseViewParams, type VirtualTable } from '../vector/virtual-table.js'
import { isMapwardenError, SeedFieldInvalid } from '../errors.js'

export type ParameterSet = Record<string, string>
export type FilterKind = 'stringParameterFilter' | 'regexParameterFilter' | 'floatParameterFilter' | 'integerParameterFilter'
export const FILTER_KINDS: readonly FilterKind[] = ['stringParameterFilter', 'regexParameterFilter', 'floatParameterFilter', 'integerParameterFilter']
/** GWC's CaseNormalizer (string and regex filters): the value's case before it is matched. */
export interface CaseNormalize { case: 'NONE' | 'UPPER' | 'LOWER', locale?: string }
/** A filter an administrator set (GWC's ParameterFilter subclasses, field for field). */
export interface ParameterFilterSetting {
  kind: FilterKind
  key: string
  defaultValue: string
  /** string: the legal values; float/integer: the values as numbers' text. */
  values?: string[]
  regex?: string
  normalize?: CaseNormalize
  /** float/integer: how far a value may be from the closest listed one. */
  threshold?: number
}
/** The keys the render uses, so the only ones a filter may narrow (STYLES has its style filter;
 *  VIEWPARAMS only on an SQL view layer). */
export const FILTERABLE_KEYS = ['CQL_FILTER', 'TIME', 'ELEVATION', 'VIEWPARAMS']
export const DEFAULT_PARAMETER_ID = 'default'
const MAX_VALUE_LENGTH = 4096

export function layerDimensions (layer: LayerInfo): Set<string> {
  const dims = layer.config.dimensions as unknown
  const out = new Set<string>()
  if (Array.isArray(dims)) for (const d of dims) out.add(String(typeof d === 'object' && d ? (d as any).name ?? '' : d).toLowerCase())
  else if (dims && typeof dims === 'object') {
    for (const [k, v] of Object.entries(dims)) if (v && (v as any).enabled !== false) out.add(k.toLowerCase())
  }
  return out
}

/** GWC's Float.toString: 2 is "2.0". */
export const javaFloat = (n: number) => Number.isInteger(n) ? n.toFixed(1) : String(n)

function normalised (n: CaseNormalize | undefined, v: string): string {
  if (!n || n.case === 'NONE') return v
  return n.case === 'UPPER' ? v.toLocaleUpperCase(n.locale || undefined) : v.toLocaleLowerCase(n.locale || undefined)
}

/** A compiled regex filter, matched against the whole value (Java's Matcher.matches). */
export function filterRegex (regex: string): RegExp { return new RegExp(`^(?:${regex})$`, 'u') }

/**
 * The value a filter turns a request's value into (GWC ParameterFilter.apply): an empty value is the
 * filter's default; `refused` says why a value is not allowed, in GWC's words.
 */
export function applyFilter (f: ParameterFilterSetting, value: string): { value: string } | { refused: string } {
  if (value === '') return { value: f.defaultValue }
  const violates = { refused: `${value} violates filter for parameter ${f.key}` }
  switch (f.kind) {
    case 'stringParameterFilter': {
      const v = normalised(f.normalize, value)
      return (f.values ?? []).map((l) => normalised(f.normalize, l)).includes(v) ? { value: v } : violates
    }
    case 'regexParameterFilter': {
      const v = normalised(f.normalize, value)
      return filterRegex(f.regex ?? '.*').test(v) ? { value: v } : violates
    }
    case 'floatParameterFilter':
    case 'integerParameterFilter': {
      const int = f.kind === 'integerParameterFilter'
      const show = (n: number) => int ? String(n) : javaFloat(n)
      if (!(int ? /^[+-]?\d{1,10}$/ : /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/).test(value)) return violates
      const n = Number(value)
      const values = (f.values ?? []).map(Number)
      if (values.length === 0) return { value: show(n) }
      let best = values[0]
      for (const c of values) if (Math.abs(c - n) < Math.abs(best - n)) best = c
      const threshold = f.threshold ?? (int ? 1 : 1e-6)
      if (threshold > 0 && Math.abs(best - n) < threshold) return { value: show(best) }
      return { refused: `Closest match for ${f.key}=${value} is ${show(best)}, but this exceeds the threshold of ${show(threshold)}` }
    }
  }
}

/** The SQL view of a layer published from GeoServer's JDBC_VIRTUAL_TABLE, if it is one. */
export function virtualTableOf (layer: LayerInfo): VirtualTable | undefined {
  return layer.type === 'VECTOR' ? layer.config.virtualTable as VirtualTable | undefined : undefined
}

export function allowedParameters (layer: LayerInfo): string[] {
  const names = ['STYLES', 'CQL_FILTER']
  const dims = layerDimensions(layer)
  if (dims.has('time')) names.push('TIME')
  if (dims.has('elevation')) names.push('ELEVATION')
  if (virtualTableOf(layer)) names.push('VIEWPARAMS')
  return names
}

/** GeoServer's built-in default for raster layers, when the catalog names none. */
export function defaultStyleOf (layer: LayerInfo): string | undefined {
  return layer.defaultStyle ?? (layer.type === 'RASTER' ? 'raster' : undefined)
}

/** The layer's styles a client may name: its default style and its `styles`. */
export function allowedStyles (layer: LayerInfo): string[] {
  return [...new Set([defaultStyleOf(layer), ...layer.styles].filter((s): s is string => !!s))]
}

/**
 * The styles a tile request may name in STYLES and the one drawn without it. A cascaded WMS layer's
 * are the remote's (selectedRemoteStyles, else all the remote offers), drawn by default with its
 * forcedRemoteStyle (else the remote's default, ''): each other one is asked of the remote and cached
 * as its own tile set. A cascaded WMTS layer has none; other layers have their catalog styles.
 */
export function tileStyles (layer: LayerInfo): { allowed: string[], default: string | undefined } {
  if (layer.type === 'WMS') {
    const c = layer.config as unknown as CascadeLayerConfig
    return { allowed: remoteStylesOf(c), default: c.forcedRemoteStyle }
  }
  if (layer.type === 'WMTS') return { allowed: [], default: undefined }
  return { allowed: allowedStyles(layer), default: defaultStyleOf(layer) }
}

/**
 * Validates and normalises raw parameter values (names case-insensitive). Defaults are dropped
 * so that `STYLES=<default>` and no STYLES share one tile set. A key an administrator's filter
 * narrows goes through it; its default value (when not empty) is the value of a request without
 * the key, so it is drawn and names the tile set as GWC does.
 */
export function normaliseParameters (layer: LayerInfo, raw: Record<string, unknown>, field = 'parameters',
  invalid: (field: string, name: string, reason: string) => Error = SeedFieldInvalid, filters: readonly ParameterFilterSetting[] = []): ParameterSet {
  const allowed = allowedParameters(layer)
  const out: ParameterSet = {}
  const given = new Set<string>()
  for (const [k, v] of Object.entries(raw)) {
    const name = k.toUpperCase()
    if (!allowed.includes(name)) throw invalid(field, k, `not a parameter filter of layer ${layer.qualifiedName}; allowed: ${allowed.join(', ')}`)
    if (v === undefined || v === null) continue
    if (typeof v !== 'string' && typeof v !== 'number') throw invalid(field, k, 'value must be a string')
    const value = String(v).trim()
    if (value.length > MAX_VALUE_LENGTH) throw invalid(field, k, `value longer than ${MAX_VALUE_LENGTH} characters`)
    if (/[\u0000-\u001f]/.test(value)) throw invalid(field, k, 'value holds control characters')
    given.add(name)
    const filter = filters.find((f) => f.key === name)
    if (filter) {
      const applied = applyFilter(filter, value)
      if ('refused' in applied) throw invalid(field, name, applied.refused)
      if (applied.value !== '') out[name] = applied.value
      continue
    }
    if (value === '') continue
    if (name === 'VIEWPARAMS') continue // normalised below, after any filter's default
    if (name === 'STYLES') {
      const styles = tileStyles(layer)
      if (!styles.allowed.includes(value)) throw invalid(field, `STYLES=${value}`, `not a style of layer ${layer.qualifiedName}; allowed: ${styles.allowed.join(', ') || '(default only)'}`)
      if (value === styles.default) continue
    }
    out[name] = value
  }
  for (const f of filters) if (!given.has(f.key) && f.defaultValue !== '' && allowed.includes(f.key)) out[f.key] = f.defaultValue
  // An SQL view's VIEWPARAMS (what a filter let through, or the value sent) checked with the view's
  // regexpValidators and in one canonical form, so each distinct set of values is one tile set and
  // the defaults are the default tiles.
  const vt = virtualTableOf(layer)
  const views = out.VIEWPARAMS ?? (filters.some((f) => f.key === 'VIEWPARAMS') ? undefined : Object.entries(raw).find(([k]) => k.toUpperCase() === 'VIEWPARAMS')?.[1])
  delete out.VIEWPARAMS
  if (vt && typeof views === 'string' && views.trim() !== '') {
    let normal: string
    try { normal = normalViewParams(vt, views.trim()) } catch (err) {
      if (isMapwardenError(err)) throw invalid(field, 'VIEWPARAMS', err.message)
      throw err
    }
    if (normal !== '') out.VIEWPARAMS = normal
  }
  return out
}

/** The viewparams a tile set of an SQL view is drawn with (its normalised VIEWPARAMS). */
export function viewParamsOf (params: ParameterSet): Record<string, string> | undefined {
  return params.VIEWPARAMS === undefined ? undefined : parseViewParams(params.VIEWPARAMS, 1)[0]
}

export function parameterId (params: ParameterSet): string {
  const keys = Object.keys(params).sort()
  if (keys.length === 0) return DEFAULT_PARAMETER_ID
  const kvp = keys.map((k) => `${k}=${params[k]}`).join('&')
  return createHash('sha1').update(kvp).digest('hex')
}
