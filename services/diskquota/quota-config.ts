// The disk quota configuration (GWC DiskQuotaConfig): defaults, the partial update validated
// whole before anything is applied, and the one wire form (root tilecacheQuotaConfiguration,
// quotas as {value, units} in the largest unit where the value is at least 1, value a string in JSON).
import { QuotaFieldInvalid, QuotaUnknownLayer } from '../errors.js'
import { onlyFields } from '../body-fields.js'

export type ExpirationPolicy = 'LRU' | 'LFU'
export const POLICIES: ExpirationPolicy[] = ['LRU', 'LFU']
/** java.util.concurrent.TimeUnit names. */
export const TIME_UNITS = ['NANOSECONDS', 'MICROSECONDS', 'MILLISECONDS', 'SECONDS', 'MINUTES', 'HOURS', 'DAYS'] as const
export type TimeUnit = typeof TIME_UNITS[number]
const UNIT_MS: Record<TimeUnit, number> = {
  NANOSECONDS: 1e-6, MICROSECONDS: 1e-3, MILLISECONDS: 1, SECONDS: 1000, MINUTES: 60_000, HOURS: 3_600_000, DAYS: 86_400_000
}
/** GWC StorageUnit: binary multiples, case-sensitive names. */
export const STORAGE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB'] as const
export type StorageUnit = typeof STORAGE_UNITS[number]
const unitBytes = (u: StorageUnit) => 1024 ** STORAGE_UNITS.indexOf(u)

export interface LayerQuota { layer: string, expirationPolicyName: ExpirationPolicy, quotaBytes: number }
export interface QuotaConfig {
  enabled: boolean
  diskBlockSize: number
  cacheCleanUpFrequency: number
  cacheCleanUpUnits: TimeUnit
  maxConcurrentCleanUps: number
  globalExpirationPolicyName: ExpirationPolicy
  globalQuotaBytes: number
  layerQuotas: LayerQuota[]
}

export const MIB = 1024 * 1024
export function defaultConfig (): QuotaConfig {
  return {
    enabled: false,
    diskBlockSize: 4096,
    cacheCleanUpFrequency: 10,
    cacheCleanUpUnits: 'SECONDS',
    maxConcurrentCleanUps: 2,
    globalExpirationPolicyName: 'LFU',
    globalQuotaBytes: 500 * MIB,
    layerQuotas: []
  }
}

/** The clean-up period in milliseconds. */
export function periodMs (c: Pick<QuotaConfig, 'cacheCleanUpFrequency' | 'cacheCleanUpUnits'>): number {
  return c.cacheCleanUpFrequency * UNIT_MS[c.cacheCleanUpUnits]
}

/** StorageUnit.bestFit: the largest unit in which the value is at least 1 (B for 0). */
export function bestFit (bytes: number): { value: string, units: StorageUnit } {
  let i = 0
  while (i < STORAGE_UNITS.length - 1 && bytes / unitBytes(STORAGE_UNITS[i + 1]) >= 1) i++
  const units = STORAGE_UNITS[i]
  return { value: decimal(bytes / unitBytes(units)), units }
}
/** BigDecimal.toString-like: no exponent. Dividing by powers of two is exact in binary floats. */
function decimal (n: number): string {
  const s = String(n)
  if (!/e/i.test(s)) return s
  return n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 })
}

// --- parsing a partial body -------------------------------------------------------------------

const show = (v: unknown) => typeof v === 'string' ? v : JSON.stringify(v)
const fail = (msg: string): never => { throw QuotaFieldInvalid(msg) }

function positiveInt (name: string, v: unknown, max = 2 ** 31 - 1): number {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : ''
  if (!/^[+]?\d+$/.test(s) || Number(s) < 1 || Number(s) > max) fail(`${name} shall be a positive integer: ${show(v)}`)
  return Number(s)
}
function bool (name: string, v: unknown): boolean {
  const s = typeof v === 'string' ? v.trim() : v
  if (s === true || s === 'true') return true
  if (s === false || s === 'false') return false
  return fail(`${name} shall be true or false: ${show(v)}`)
}
function policy (name: string, v: unknown): ExpirationPolicy {
  if (typeof v === 'string' && (POLICIES as string[]).includes(v.trim())) return v.trim() as ExpirationPolicy
  return fail(`${name} shall be LRU or LFU: ${show(v)}`)
}
function timeUnit (v: unknown): TimeUnit {
  if (typeof v === 'string' && (TIME_UNITS as readonly string[]).includes(v.trim())) return v.trim() as TimeUnit
  return fail(`cacheCleanUpUnits shall be one of ${TIME_UNITS.join(', ')}: ${show(v)}`)
}

/** `{value, units}` (GWC's input form) or `{bytes}` (what GWC's own GET emits). */
export function parseQuota (name: string, q: unknown): number {
  if (q === null || typeof q !== 'object' || Array.isArray(q)) return fail(`${name} shall be an object with value and units: ${show(q)}`)
  const o = q as Record<string, unknown>
  // id: GWC's storage key of the quota row, in its own GET; it identifies nothing to change here.
  onlyFields(o, name, ['value', 'units', 'bytes'], ['id'])
  if (o.value !== undefined && o.bytes !== undefined) return fail(`${name}: give value and units, or bytes, not both`)
  let bytes: bigint
  if (o.value === undefined && o.bytes !== undefined) {
    bytes = wholeBytes(`${name}.bytes`, o.bytes, 1n)
  } else {
    const units = typeof o.units === 'string' ? o.units.trim() : o.units
    if (units === undefined) return fail(`${name}.units is required; valid units: ${STORAGE_UNITS.join(', ')}`)
    if (typeof units !== 'string' || !(STORAGE_UNITS as readonly string[]).includes(units)) {
      return fail(`Unknown storage unit ${show(units)} in ${name}.units; valid units: ${STORAGE_UNITS.join(', ')}`)
    }
    if (o.value === undefined) return fail(`${name}.value is required`)
    bytes = wholeBytes(`${name}.value`, o.value, BigInt(unitBytes(units as StorageUnit)))
  }
  if (bytes > BigInt(Number.MAX_SAFE_INTEGER)) {
    return fail(`${name} is too large: ${show(o.value ?? o.bytes)} ${o.value === undefined ? 'bytes' : String(o.units).trim()}; the largest quota is ${Number.MAX_SAFE_INTEGER} bytes (8 PiB)`)
  }
  return Number(bytes)
}

/**
 * A decimal number of `unit`-byte units as whole bytes, computed exactly (no float rounding:
 * 0.0000001 GiB is 107 bytes, not 107.3741824; a value past 2^53 bytes is refused, not rounded).
 * Double.parseDouble's plain forms: digits, a point, an exponent; no hex, Infinity or NaN.
 * A fraction of a byte is dropped: a quota holds whole bytes.
 */
function wholeBytes (name: string, v: unknown, unit: bigint): bigint {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : ''
  const m = /^[+]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$/.exec(s)
  if (!m || (m[1] + (m[2] ?? '')) === '') return fail(`${name} shall be a non-negative number: ${show(v)}`)
  const digits = BigInt((m[1] || '0') + (m[2] ?? ''))
  const exp = Number(m[3] ?? 0) - (m[2] ?? '').length
  if (digits === 0n) return 0n
  if (exp > 40) return fail(`${name.replace(/\.(value|bytes)$/, '')} is too large: ${show(v)}`)
  return exp >= 0 ? digits * unit * 10n ** BigInt(exp) : (digits * unit) / 10n ** BigInt(-exp)
}

/** Layer quota items: XML `<layerQuotas><LayerQuota>..`, JSON a list or `{LayerQuota: [...]}`. */
function layerQuotaItems (v: unknown): unknown[] {
  if (v === '' || v === null || v === undefined) return []
  if (Array.isArray(v)) return v
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>
    const inner = o.LayerQuota ?? o['org.geowebcache.diskquota.storage.LayerQuota']
    if (inner === undefined) return Object.keys(o).length === 0 ? [] : [o]
    return Array.isArray(inner) ? inner : [inner]
  }
  return fail(`layerQuotas shall be a list of LayerQuota: ${show(v)}`)
}

export interface ParseContext {
  /** True when a layer with this qualified name exists. */
  layerExists: (name: string) => Promise<boolean>
}

/**
 * Applies a partial body to a copy of `current` and returns the whole result, validated; throws
 * before anything is applied. Unknown properties are refused by name (GWC's reader ignores them,
 * which turns a typo into a 200 that changes nothing); quotaStore is accepted only as the embedded
 * store it is, since mapwarden cannot switch to another.
 */
const QUOTA_FIELDS = ['enabled', 'diskBlockSize', 'cacheCleanUpFrequency', 'cacheCleanUpUnits', 'maxConcurrentCleanUps',
  'globalExpirationPolicyName', 'globalQuota', 'quotaStore', 'layerQuotas', 'jdbcConfiguration', 'JDBCConfiguration', 'dialect', 'jndiSource', 'connectionPool']

export async function applyPartial (current: QuotaConfig, body: Record<string, unknown>, ctx: ParseContext): Promise<QuotaConfig> {
  // GWC's computed fields (lastCleanUpTime, globalUsedQuota) are not shown by GET and not taken:
  // a field that is accepted is applied, so they are refused by name (issue 16).
  onlyFields(body, 'the disk quota configuration', QUOTA_FIELDS)
  const next: QuotaConfig = { ...current, layerQuotas: [...current.layerQuotas] }
  const has = (k: string) => body[k] !== undefined
  if (has('enabled')) next.enabled = bool('enabled', body.enabled)
  if (has('diskBlockSize')) next.diskBlockSize = positiveInt('diskBlockSize', body.diskBlockSize, 1 << 30)
  if (has('cacheCleanUpFrequency')) next.cacheCleanUpFrequency = positiveInt('cacheCleanUpFrequency', body.cacheCleanUpFrequency)
  if (has('cacheCleanUpUnits')) next.cacheCleanUpUnits = timeUnit(body.cacheCleanUpUnits)
  if (has('maxConcurrentCleanUps')) next.maxConcurrentCleanUps = positiveInt('maxConcurrentCleanUps', body.maxConcurrentCleanUps)
  if (has('globalExpirationPolicyName')) next.globalExpirationPolicyName = policy('globalExpirationPolicyName', body.globalExpirationPolicyName)
  if (has('globalQuota')) next.globalQuotaBytes = parseQuota('globalQuota', body.globalQuota)
  if (has('quotaStore') && !/^(sqlite|embedded)$/i.test(String(body.quotaStore).trim())) {
    fail(`quotaStore ${show(body.quotaStore)}: only the embedded store (sqlite) is supported`)
  }
  for (const k of ['jdbcConfiguration', 'JDBCConfiguration', 'dialect', 'jndiSource', 'connectionPool']) {
    if (has(k)) fail(`${k}: only the embedded quota store (sqlite) is supported`)
  }
  if (has('layerQuotas')) {
    const seen = new Set<string>()
    next.layerQuotas = []
    for (const [i, item] of layerQuotaItems(body.layerQuotas).entries()) {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) fail(`layerQuotas[${i}] shall be an object: ${show(item)}`)
      const o = item as Record<string, unknown>
      onlyFields(o, `layerQuotas[${i}]`, ['layer', 'expirationPolicyName', 'quota'])
      const layer = typeof o.layer === 'string' ? o.layer.trim() : ''
      if (!layer) fail(`layerQuotas[${i}].layer is required`)
      if (seen.has(layer)) fail(`layerQuotas: layer ${layer} appears twice`)
      seen.add(layer)
      const expirationPolicyName = o.expirationPolicyName === undefined
        ? next.globalExpirationPolicyName
        : policy(`layerQuotas[${i}].expirationPolicyName`, o.expirationPolicyName)
      if (o.quota === undefined) fail(`layerQuotas[${i}].quota is required`)
      const quotaBytes = parseQuota(`layerQuotas[${i}].quota`, o.quota)
      next.layerQuotas.push({ layer, expirationPolicyName, quotaBytes })
    }
    // Checked last, so that a malformed body is refused without catalog look-ups.
    for (const q of next.layerQuotas) if (!(await ctx.layerExists(q.layer))) throw QuotaUnknownLayer(q.layer)
  }
  return next
}

// --- the wire form ------------------------------------------------------------------------------

const ROOT = 'tilecacheQuotaConfiguration'

function ordered (c: QuotaConfig) {
  return {
    enabled: c.enabled,
    diskBlockSize: c.diskBlockSize,
    cacheCleanUpFrequency: c.cacheCleanUpFrequency,
    cacheCleanUpUnits: c.cacheCleanUpUnits,
    maxConcurrentCleanUps: c.maxConcurrentCleanUps,
    globalExpirationPolicyName: c.globalExpirationPolicyName,
    globalQuota: bestFit(c.globalQuotaBytes)
  }
}
const layerItem = (q: LayerQuota) => ({ layer: q.layer, expirationPolicyName: q.expirationPolicyName, quota: bestFit(q.quotaBytes) })

/** XML: `<layerQuotas/>` when empty, else `<layerQuotas><LayerQuota>...` (GWC ConfigLoader aliases). */
export function configDocument (c: QuotaConfig): Record<string, unknown> {
  return { [ROOT]: { ...ordered(c), layerQuotas: { LayerQuota: c.layerQuotas.map(layerItem) } } }
}
/** JSON: layerQuotas is always a list (`[]` when empty), as GWC's JSON form. */
export function configJson (c: QuotaConfig): string {
  return JSON.stringify({ [ROOT]: { ...ordered(c), layerQuotas: c.layerQuotas.map(layerItem) } })
}

/** Stored form: plain JSON of QuotaConfig; anything unreadable falls back to the defaults. */
export function fromStored (text: string | undefined): QuotaConfig {
  if (!text) return defaultConfig()
  try { return { ...defaultConfig(), ...JSON.parse(text) } } catch { return defaultConfig() }
}
