// Parameter filters of a tile layer (GWC ParameterFilter): STYLES and CQL_FILTER always, TIME and
// ELEVATION when the mosaic has those dimensions. Each distinct normalised set of values is its
// own tile set, named by a stable hash (GWC ParametersUtils.getId is a SHA-1 of the sorted KVP).
import { createHash } from 'node:crypto'
import type { LayerInfo } from '../catalog/layers.js'
import { SeedFieldInvalid } from '../errors.js'

export type ParameterSet = Record<string, string>
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

export function allowedParameters (layer: LayerInfo): string[] {
  const names = ['STYLES', 'CQL_FILTER']
  const dims = layerDimensions(layer)
  if (dims.has('time')) names.push('TIME')
  if (dims.has('elevation')) names.push('ELEVATION')
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
 * Validates and normalises raw parameter values (names case-insensitive). Defaults are dropped
 * so that `STYLES=<default>` and no STYLES share one tile set.
 */
export function normaliseParameters (layer: LayerInfo, raw: Record<string, unknown>, field = 'parameters',
  invalid: (field: string, name: string, reason: string) => Error = SeedFieldInvalid): ParameterSet {
  const allowed = allowedParameters(layer)
  const out: ParameterSet = {}
  for (const [k, v] of Object.entries(raw)) {
    const name = k.toUpperCase()
    if (!allowed.includes(name)) throw invalid(field, k, `not a parameter filter of layer ${layer.qualifiedName}; allowed: ${allowed.join(', ')}`)
    if (v === undefined || v === null) continue
    if (typeof v !== 'string' && typeof v !== 'number') throw invalid(field, k, 'value must be a string')
    const value = String(v).trim()
    if (value.length > MAX_VALUE_LENGTH) throw invalid(field, k, `value longer than ${MAX_VALUE_LENGTH} characters`)
    if (/[\u0000-\u001f]/.test(value)) throw invalid(field, k, 'value holds control characters')
    if (value === '') continue
    if (name === 'STYLES') {
      const styles = allowedStyles(layer)
      if (!styles.includes(value)) throw invalid(field, `STYLES=${value}`, `not a style of layer ${layer.qualifiedName}; allowed: ${styles.join(', ') || '(default only)'}`)
      if (value === defaultStyleOf(layer)) continue
    }
    out[name] = value
  }
  return out
}

export function parameterId (params: ParameterSet): string {
  const keys = Object.keys(params).sort()
  if (keys.length === 0) return DEFAULT_PARAMETER_ID
  const kvp = keys.map((k) => `${k}=${params[k]}`).join('&')
  return createHash('sha1').update(kvp).digest('hex')
}
