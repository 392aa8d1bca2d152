// Per-layer tile-cache settings, named as GeoWebCache's layer configuration names them
// (GeoServerTileLayerInfo / wmsLayer `expireCache`, `expireClients`; GWCVars for the special
// values), plus the cached-only switch tile-cache users asked GWC for (GWC issue #58):
// - expireCache: seconds a cached tile is served before it is rendered again; 0 (unset) and -2
//   never expire, -1 disables the cache (every request renders);
// - expireClients: the Cache-Control max-age sent with the layer's tiles; 0 (unset) sends the
//   server's MAPWARDEN_TILE_MAX_AGE, -1 sends no-cache, -2 "never expires" (one year, RFC 9111 5.3);
// - cachedOnly: a missing tile is never rendered on request; it answers 404 (`cachedOnlyMissing`
//   notFound) or a transparent tile (`transparent`; white for JPEG, which has no alpha).
// - gridSubsets: the grid sets the layer is cached in, each narrowed to levels and an extent
//   (GWC's gridSubsets, written through GWC's REST layers resource); absent: every grid set the
//   layer lies in, all its levels, the layer's bounds.
// - blobStoreId: the file blob store its tiles live in (blob-store-registry.ts); absent: the default.
// - parameterFilters: the administrator's filters on CQL_FILTER, TIME, ELEVATION (parameters.ts);
//   absent: those the layer has by itself (any CQL_FILTER, any value of its dimensions).
// Rows exist only for layers that changed a default; they go with their layer (foreign key).
import type { TileSettingsStore } from './store.js'
import type { SubsetLimits } from './grid-sets.js'
import { TileSettingInvalid } from '../errors.js'
import { createKeyedQueue } from '../keyed-queue.js'
import type { ParameterFilterSetting } from './parameters.js'

export type MissingTile = 'notFound' | 'transparent'
export interface TileLayerSettings {
  expireCache: number
  expireClients: number
  cachedOnly: boolean
  cachedOnlyMissing: MissingTile
  gridSubsets?: GridSubsetSetting[]
  /** The file blob store of the layer's tiles (GWC's blobStoreId); absent: the default one. */
  blobStoreId?: string
  /** The administrator's parameter filters (GWC's string, regex, float, integer filters). */
  parameterFilters?: ParameterFilterSetting[]
}
export interface GridSubsetSetting extends SubsetLimits { gridSetName: string }
export const DEFAULT_TILE_SETTINGS: Readonly<TileLayerSettings> = Object.freeze({ expireCache: 0, expireClients: 0, cachedOnly: false, cachedOnlyMissing: 'notFound' })
export const TILE_SETTING_FIELDS = ['expireCache', 'expireClients', 'cachedOnly', 'cachedOnlyMissing'] as const
/** What expireClients -2 ("never expires") sends: one year. */
export const NEVER_EXPIRES_SECONDS = 31_536_000

/** XML gives text, JSON numbers or text: the value of a field as one trimmed string. */
function scalar (v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim()
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return undefined
}

function seconds (layer: string, field: 'expireCache' | 'expireClients', v: unknown): number {
  const s = scalar(v)
  if (s === undefined || !/^-?\d{1,10}$/.test(s) || Number(s) > 2_147_483_647) {
    throw TileSettingInvalid(layer, field, `${JSON.stringify(v)} is not a whole number of seconds`)
  }
  const n = Number(s)
  if (n < 0 && n !== -1 && n !== -2) {
    const why = n === -4 ? 'there is no WMS backend whose value -4 would use' : 'negative values are -1 (no cache) and -2 (never expire)'
    throw TileSettingInvalid(layer, field, `${n}: ${why}`)
  }
  return n
}

/**
 * The settings that a layer PUT body changes (only the fields present), validated whole; throws
 * TileSettingInvalid naming the field. Undefined when the body names none of them.
 */
export function parseTileSettings (layer: string, body: Record<string, unknown>, current: TileLayerSettings): TileLayerSettings | undefined {
  if (!TILE_SETTING_FIELDS.some((f) => body[f] !== undefined)) return undefined
  const next = { ...current }
  if (body.expireCache !== undefined) next.expireCache = seconds(layer, 'expireCache', body.expireCache)
  if (body.expireClients !== undefined) next.expireClients = seconds(layer, 'expireClients', body.expireClients)
  if (body.cachedOnly !== undefined) {
    const s = scalar(body.cachedOnly)
    if (s !== 'true' && s !== 'false') throw TileSettingInvalid(layer, 'cachedOnly', `${JSON.stringify(body.cachedOnly)} is not true or false`)
    next.cachedOnly = s === 'true'
  }
  if (body.cachedOnlyMissing !== undefined) {
    const s = scalar(body.cachedOnlyMissing)
    if (s !== 'notFound' && s !== 'transparent') throw TileSettingInvalid(layer, 'cachedOnlyMissing', `${JSON.stringify(body.cachedOnlyMissing)} is not notFound or transparent`)
    next.cachedOnlyMissing = s
  }
  return next
}

export function isDefault (s: TileLayerSettings): boolean {
  return TILE_SETTING_FIELDS.every((f) => s[f] === DEFAULT_TILE_SETTINGS[f]) && s.gridSubsets === undefined && s.blobStoreId === undefined && s.parameterFilters === undefined
}

/**
 * The settings, read on every tile request: loaded once into memory, written through the store
 * (persisted before the memory copy changes). Only the layer resource writes them. A write and a
 * reload run one at a time: a reload that read the rows before a write committed must not install
 * them after it (the write's own value would be lost until the next change).
 */
export async function loadTileSettings (store: TileSettingsStore) {
  const byLayer = new Map<string, TileLayerSettings>()
  for (const r of await store.all()) byLayer.set(`${r.workspace}:${r.name}`, r.settings)
  const serialized = createKeyedQueue()
  const oneAtATime = <T>(fn: () => Promise<T>): Promise<T> => serialized('settings', fn)
  return {
    get (workspace: string, name: string): TileLayerSettings {
      return byLayer.get(`${workspace}:${name}`) ?? DEFAULT_TILE_SETTINGS
    },
    set: (workspace: string, name: string, s: TileLayerSettings): Promise<void> => oneAtATime(async () => {
      if (isDefault(s)) {
        await store.remove(workspace, name)
        byLayer.delete(`${workspace}:${name}`)
      } else {
        await store.put(workspace, name, s)
        byLayer.set(`${workspace}:${name}`, { ...s })
      }
    }),
    /** Another instance changed settings (a shared database): read them all again. */
    reload: (): Promise<void> => oneAtATime(async () => {
      const rows = await store.all()
      byLayer.clear()
      for (const r of rows) byLayer.set(`${r.workspace}:${r.name}`, r.settings)
    }),
    /** A layer went away (its row went with it, by the foreign key). */
    forget (qualifiedName: string): void { byLayer.delete(qualifiedName) },
    forgetWorkspace (workspace: string): void { for (const k of byLayer.keys()) if (k.startsWith(`${workspace}:`)) byLayer.delete(k) }
  }
}

export type TileSettings = Awaited<ReturnType<typeof loadTileSettings>>
