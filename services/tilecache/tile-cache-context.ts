// What the parts of the tile cache share: their collaborators, the blob store and the invalidation
// of tile sets, the one `authorize` check, the lookups that turn an unknown or undrawable layer into
// the error of the API that asked (400 for the seed API, 404 for the tile services), and a layer's
// settings in force.
import path from 'node:path'
import type { LayerInfo, LayerCatalog } from '../catalog/layers.js'
import { isDrawable, isDrawnAsVector, splitLayerName } from '../catalog/layers.js'
import { isMapwardenError, TileLayerNotDrawable, TileLayerNotFound, UnknownTileLayer } from '../errors.js'
import type { Principal } from '../auth/authenticator.js'
import { noFaults, type FaultPoint } from '../faults.js'
import type { MetatileLock, SeedQueue } from '../seed/seed-queue.js'
import type { TaskRecords } from '../seed/task-records.js'
import type { TileSetStore } from './store.js'
import { createBlobStore } from './blob-store.js'
import type { MetatileRenderer } from './metatile-renderer.js'
import { createTileInvalidation } from './tile-invalidation.js'
import { DEFAULT_TILE_SETTINGS, type TileLayerSettings, type TileSettings } from './layer-settings.js'
import { BUILT_IN_LOOKUP, GRID_SETS, gridSubset, type GridSet, type GridSetLookup } from './grid-sets.js'
import type { GridSetRegistry } from './grid-set-registry.js'

/** 'list': whether a capabilities document shows the layer; 'metadata': a description of one layer
 *  (TMS TileMap). The catalog mode may list and describe layers whose tiles it refuses. */
export type TileAction = 'read' | 'list' | 'metadata' | 'write'
/** Throws (e.g. AccessDenied) to refuse; the default allows (GeoServer's default rules). */
export type TileAuthorizer = (action: TileAction, layer: LayerInfo, principal: Principal | undefined) => void | Promise<void>

export interface TileCacheDeps {
  dataDir: string
  /** The recorded tile sets and drop marks (tile-invalidation.ts). */
  tileSets: TileSetStore
  layers: LayerCatalog
  render: MetatileRenderer
  /** The one check of every tile read, listing, metadata read and seed (the security area's rules). */
  authorize: TileAuthorizer
  taskSlots: number
  maxPendingTasks: number
  maxSeedThreads: number
  log?: { info: (obj: object, msg: string) => void, warn: (obj: object, msg: string) => void }
  now?: () => number
  records?: TaskRecords
  fault?: FaultPoint
  /** Tasks stopped by a shutdown go on at the next start (MAPWARDEN_RESUME_TASKS; seed/job-breeder.ts). */
  resume?: boolean
  /** Whether the layer's default style is linear, so its seeds may be built as a pyramid
   *  (pyramid.ts); absent: every level is rendered directly (MAPWARDEN_SEED_PYRAMID=false). */
  linearStyle?: (layer: LayerInfo) => Promise<boolean>
  /** Every grid set known, built-in and custom (grid-set-registry.ts); the built-in ones when absent. */
  gridSets?: GridSetRegistry
  /** Per-layer expiry and cached-only settings (layer-settings.ts); defaults when absent. */
  settings?: TileSettings
  /** Where seed tasks wait and are worked, and the lock of a metatile being rendered (the stores'). */
  seedQueue: SeedQueue
  metatileLock: MetatileLock
  /** Metatiles of the seed queue this node renders at once (its render threads). */
  seedWorkers?: number
}

export type TileCacheContext = ReturnType<typeof createTileCacheContext>

export function createTileCacheContext (deps: TileCacheDeps) {
  const store = createBlobStore({ root: path.join(deps.dataDir, 'tiles'), tmpDir: path.join(deps.dataDir, 'tmp', 'tiles'), fault: deps.fault ?? noFaults })
  const gridSets: GridSetLookup = deps.gridSets ?? BUILT_IN_LOOKUP
  const invalidation = createTileInvalidation({ sets: deps.tileSets, store, gridSets, log: deps.log, now: deps.now })
  const { authorize } = deps

  async function findLayer (name: string, vector = false): Promise<LayerInfo | undefined> {
    const parts = splitLayerName(name)
    if (!parts) return undefined
    const layer = await deps.layers.get(parts.workspace, parts.name)
    return layer && layer.enabled && (isDrawable(layer) || (vector && isDrawnAsVector(layer))) ? layer : undefined
  }

  return {
    deps,
    store,
    invalidation,
    authorize,
    now: deps.now ?? Date.now,
    findLayer,
    gridSets,
    /**
     * The grid sets a layer offers: the built-in ones, and each custom grid set whose extent its
     * bounds meet (a layer without bounds: every one). GeoServer adds a custom grid set to a layer by
     * hand; here every layer serves every grid set it lies in, as every layer serves both built-ins.
     */
    gridSetsOf (layer: LayerInfo): GridSet[] {
      const custom = deps.gridSets?.custom() ?? []
      return [...Object.values(GRID_SETS), ...custom.filter((gs) => !layer.bbox || gridSubset(gs, layer.bbox).coverage(0) !== undefined)]
    },
    settingsOf: (layer: LayerInfo): TileLayerSettings => deps.settings?.get(layer.workspace, layer.name) ?? DEFAULT_TILE_SETTINGS,

    /** A tile layer for the seed API: unknown layers are 400, not 404 (the seed resource exists; its body names a layer that does not). */
    async seedLayer (name: string): Promise<LayerInfo> {
      const layer = await findLayer(name)
      if (!layer) throw UnknownTileLayer(name)
      return layer
    },
    /**
     * A tile layer for the tile services: unknown layers are 404. `opts.vector`: a vector layer
     * is found too (the WMS draws vector layers; their tiles are not cached yet).
     */
    async tileLayer (name: string, principal?: Principal, action: 'read' | 'metadata' = 'read', opts: { vector?: boolean } = {}): Promise<LayerInfo> {
      const layer = await findLayer(name, opts.vector === true)
      if (!layer) {
        // A vector layer the caller may see is named as such (after the same access check, so a
        // hidden one stays unknown); its tiles answer 404 as an unknown layer's do.
        const parts = splitLayerName(name)
        const other = parts ? await deps.layers.get(parts.workspace, parts.name) : undefined
        if (other && other.enabled && !isDrawable(other)) {
          await authorize(action, other, principal)
          throw TileLayerNotDrawable(name)
        }
        throw TileLayerNotFound(name)
      }
      await authorize(action, layer, principal)
      return layer
    },
    /** Whether anyone may read the layer's tiles without logging in (shared caches may keep them). */
    async isPublic (layer: LayerInfo): Promise<boolean> {
      try { await authorize('read', layer, undefined); return true } catch (err) {
        if (isMapwardenError(err)) return false
        throw err
      }
    }
  }
}
