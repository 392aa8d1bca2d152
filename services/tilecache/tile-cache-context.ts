// What the parts of the tile cache share: their collaborators, the blob store and the invalidation
// of tile sets, the one `authorize` check, the lookups that turn an unknown or undrawable layer into
// the error of the API that asked (400 for the seed API, 404 for the tile services), and a layer's
// settings in force.
import path from 'node:path'
import type { LayerInfo, LayerCatalog } from '../catalog/layers.js'
import { isLayerGroup, isTileLayer, splitLayerName } from '../catalog/layers.js'
import { groupRef, type LayerGroup, type LayerGroupService } from '../catalog/layer-groups.js'
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
import { BUILT_IN_LOOKUP, GRID_SETS, gridSubset, type GridSet, type GridSetLookup, type GridSubset, type LayerGrids } from './grid-sets.js'
import type { GridSetRegistry } from './grid-set-registry.js'
import type { BlobStoreRegistry } from './blob-store-registry.js'
import { BlobStoreDisabled } from '../errors.js'

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
  /** A request waits for metatile `key` (its lock): its render, a seed's maybe, goes ahead of seeding
   *  until the returned release is called (render-queue.ts's hurry). */
  hurry?: (key: string) => () => void
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
  /** How long a request waits for a metatile another node renders before drawing it itself (ms: MAPWARDEN_METATILE_WAIT). */
  metatileWaitMs: number
  /** A request found its metatile's lock held ('waited'), or gave up waiting ('timedOut'): metrics. */
  onMetatileWait?: (event: 'waited' | 'timedOut') => void
  /** Metatiles of the seed queue this node renders at once (its render threads). */
  seedWorkers?: number
  /** The file blob stores of GWC's REST and the store of each layer (blob-store-registry.ts); absent: the built-in one only. */
  blobStores?: BlobStoreRegistry
  /** Layer groups: tile layers too (drawn as their members); absent: none. */
  groups?: Pick<LayerGroupService, 'byRef' | 'layersOf' | 'all'>
}

/** A layer group as a tile layer: its name (groupRef: 'name' global, 'ws:name'), its bounds when
 *  they are lon/lat; no styles of its own (its members are drawn with the group's). */
export function groupTileLayer (g: LayerGroup): LayerInfo {
  const b = g.bounds
  const lonLat = b && (b.crs === 'EPSG:4326' || b.crs === 'CRS:84') && [b.minx, b.miny, b.maxx, b.maxy].every(Number.isFinite)
  return {
    workspace: g.workspace ?? '',
    name: g.name,
    qualifiedName: groupRef(g),
    type: 'GROUP',
    store: '',
    styles: [],
    enabled: g.enabled,
    ...(lonLat ? { bbox: [b.minx, b.miny, b.maxx, b.maxy] as [number, number, number, number] } : {}),
    config: {}
  }
}

export type TileCacheContext = ReturnType<typeof createTileCacheContext>

export function createTileCacheContext (deps: TileCacheDeps) {
  const blobStores = deps.blobStores
  const store = createBlobStore({
    root: path.join(deps.dataDir, 'tiles'),
    tmpDir: path.join(deps.dataDir, 'tmp', 'tiles'),
    fault: deps.fault ?? noFaults,
    ...(blobStores ? { rootOf: blobStores.rootOf, roots: blobStores.roots } : {})
  })
  const gridSets: GridSetLookup = deps.gridSets ?? BUILT_IN_LOOKUP
  const invalidation = createTileInvalidation({ sets: deps.tileSets, store, gridSets, log: deps.log, now: deps.now })

  /** An enabled layer mapwarden draws: a mosaic, or a feature type drawn with its SLD (vector); else
   *  a layer group of that name (a layer shadows a group, as on WMS), enabled and not a CONTAINER. */
  async function findLayer (name: string): Promise<LayerInfo | undefined> {
    const parts = splitLayerName(name)
    const layer = parts ? await deps.layers.get(parts.workspace, parts.name) : undefined
    if (layer) return layer.enabled && isTileLayer(layer) ? layer : undefined
    const g = await deps.groups?.byRef(name)
    return g && g.enabled && g.mode !== 'CONTAINER' && groupRef(g) === name ? groupTileLayer(g) : undefined
  }

  /** The layers of a group tile layer (enabled, in drawing order, nested groups expanded). */
  async function membersOf (layer: LayerInfo): Promise<LayerInfo[]> {
    const g = await deps.groups?.byRef(layer.qualifiedName)
    return g ? (await deps.groups!.layersOf(g, async () => true)).map((m) => m.layer) : []
  }

  const settingsOf = (layer: LayerInfo): TileLayerSettings => deps.settings?.get(layer.workspace, layer.name) ?? DEFAULT_TILE_SETTINGS
  /**
   * The grid sets a layer offers: those its grid subsets name (GWC's REST layers resource), else
   * the built-in ones and each custom grid set whose extent its bounds meet (a layer without
   * bounds: every one). GeoServer adds a custom grid set to a layer by hand; here, until a
   * layer's subsets say otherwise, it serves every grid set it lies in, as it serves both built-ins.
   */
  function gridSetsOf (layer: LayerInfo): GridSet[] {
    const subsets = settingsOf(layer).gridSubsets
    if (subsets) return subsets.map((s) => gridSets.get(s.gridSetName)).filter((gs): gs is GridSet => gs !== undefined)
    return defaultGridSetsOf(layer)
  }
  function defaultGridSetsOf (layer: LayerInfo): GridSet[] {
    const custom = deps.gridSets?.custom() ?? []
    return [...Object.values(GRID_SETS), ...custom.filter((gs) => !layer.bbox || gridSubset(gs, layer.bbox).coverage(0) !== undefined)]
  }
  /** The layer's subset of a grid set (its levels and extent); undefined when it does not offer that grid set. */
  function subsetOf (layer: LayerInfo, gs: GridSet): GridSubset | undefined {
    const subsets = settingsOf(layer).gridSubsets
    if (!subsets) return gridSubset(gs, layer.bbox)
    const s = subsets.find((v) => v.gridSetName === gs.id)
    return s && gridSubset(gs, layer.bbox, s)
  }
  /**
   * The one check: a layer by the rules; a layer group's tiles are shared by every reader, so the
   * caller must be allowed the action on each of its layers (one hidden member hides the group's
   * tiles, answered as the group unknown), never a tile drawn without the layers one may not see.
   */
  const authorize: TileAuthorizer = async (action, layer, principal) => {
    if (!isLayerGroup(layer)) return await deps.authorize(action, layer, principal)
    try {
      for (const m of await membersOf(layer)) await deps.authorize(action, m, principal)
    } catch (err) {
      if (!isMapwardenError(err) || action === 'list') throw err
      throw action === 'write' ? UnknownTileLayer(layer.qualifiedName) : TileLayerNotFound(layer.qualifiedName)
    }
  }

  return {
    deps,
    store,
    invalidation,
    authorize,
    now: deps.now ?? Date.now,
    findLayer,
    membersOf,
    gridSets,
    gridSetsOf,
    /** The grid sets a layer offers while it has no grid subsets of its own. */
    defaultGridSetsOf,
    subsetOf,
    /** Both of the above, for the seed requests. */
    gridsOf: (layer: LayerInfo): LayerGrids => ({ gridSets: gridSetsOf(layer), subsetOf: (gs) => subsetOf(layer, gs) }),
    settingsOf,
    blobStores,
    /** Tiles of a layer whose blob store is disabled are neither read nor written (CompositeBlobStore's StorageException). */
    checkStoreEnabled (layer: LayerInfo): void {
      const s = blobStores?.storeOf(layer.qualifiedName)
      if (s && !s.enabled) throw BlobStoreDisabled(s.id)
    },

    /** A tile layer for the seed API: unknown layers are 400, not 404 (the seed resource exists; its body names a layer that does not). */
    async seedLayer (name: string): Promise<LayerInfo> {
      const layer = await findLayer(name)
      if (!layer) throw UnknownTileLayer(name)
      return layer
    },
    /** A tile layer for the tile services (and the WMS): unknown layers are 404. */
    async tileLayer (name: string, principal?: Principal, action: 'read' | 'metadata' = 'read'): Promise<LayerInfo> {
      const layer = await findLayer(name)
      if (!layer) {
        // A feature type that is served as features only (app-schema) is named as such to a caller
        // who may see it (after the same access check, so a hidden one stays unknown); 404 still.
        const parts = splitLayerName(name)
        const other = parts ? await deps.layers.get(parts.workspace, parts.name) : undefined
        if (other && other.enabled && !isTileLayer(other)) {
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
