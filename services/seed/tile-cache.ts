// The tile cache as the plugins see it: tile layers (one per published layer), the blob store,
// the breeder, and exactly one function for tile reads (`readTile`) and one for cache writes
// (`submitSeed`), so the security area's per-layer check (`authorize`) is applied in one place.
import path from 'node:path'
import type { LayerInfo, LayerCatalog } from '../catalog/layers.js'
import { splitLayerName } from '../catalog/layers.js'
import { ExportInvalid, isMapwardenError, TileLayerNotFound, TileNotCached, TileOutOfRange, TileParameterInvalid, UnknownTileLayer } from '../errors.js'
import { createBlobStore, type StoredTile, type TileKey } from './blob-store.js'
import { createTileBreeder, renderIntoStore, type Breeder, type MetatileRenderer } from './tile-breeder.js'
import { createClusterBreeder, metatileKey, type SeedCluster } from './cluster-breeder.js'
import { gridSet, gridSubset, maxZoom, type GridSet } from './grid-sets.js'
import { exportTiles, highestCachedZoom, parseExportQuery, tableName, type ExportKind } from './export.js'
import { isTileFormat } from './formats.js'
import { metaTileOf, tileRange } from './tile-range.js'
import { countAreaTilesAsync } from './area.js'
import { normaliseParameters, parameterId } from './parameters.js'
import { parseAreaRequest, parseSeedRequest, type SeedSpec } from './seed-request.js'
import type { TileFormat } from './formats.js'
import type { Principal } from '../auth/authenticator.js'
import { RESTART_REASON, type TaskRecords } from './task-records.js'
import { noFaults, type FaultPoint } from '../faults.js'
import type { TileSetStore, UnfinishedTask } from './store.js'
import { createTileInvalidation } from './tile-invalidation.js'
import { pyramidFits } from './pyramid.js'
import { DEFAULT_TILE_SETTINGS, type TileLayerSettings, type TileSettings } from './layer-settings.js'
import { blankTile } from './blank-tile.js'

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
  /** Tasks stopped by a shutdown keep their records for resumeTasks at the next start. */
  resume?: boolean
  /** Whether the layer's default style is linear, so its seeds may be built as a pyramid
   *  (pyramid.ts); absent: every level is rendered directly (MAPWARDEN_SEED_PYRAMID=false). */
  linearStyle?: (layer: LayerInfo) => Promise<boolean>
  /** Per-layer expiry and cached-only settings (layer-settings.ts); defaults when absent. */
  settings?: TileSettings
  /** Several instances on one PostgreSQL: tasks and their work shared by the cluster (cluster-breeder.ts). */
  cluster?: SeedCluster
  /** Chunks of cluster seeds this node renders at once (its render threads). */
  seedWorkers?: number
}

/** A tile as readTile answers it. */
export interface ServedTile extends StoredTile {
  cached: boolean
  public: boolean
  /** The layer's settings: expireClients decides the Cache-Control max-age. */
  settings: TileLayerSettings
  /** A transparent stand-in for a missing tile of a cached-only layer (never stored). */
  placeholder?: boolean
}

export interface TileRequest {
  layer: string
  gridSet: GridSet
  format: TileFormat
  /** Raw parameter values (STYLES, CQL_FILTER, TIME, ELEVATION), validated here. */
  parameters: Record<string, unknown>
  z: number
  x: number
  /** Row counted from the bottom (grid set origin). */
  y: number
  /** The tile as the request named it (its own axis order and row origin), for messages. */
  asked?: string
}

/** An area's exact tile count, made without holding the event loop (area.ts). */
async function countArea (spec: SeedSpec): Promise<void> {
  if (spec.area) spec.areaTiles = await countAreaTilesAsync(tileRange(spec.subset, spec.zoomStart, spec.zoomStop, spec.bounds), spec.area)
}

/** What a task's record keeps of its request (resumeTasks). */
interface StoredRequest { layer: string, body: Record<string, unknown>, area?: { olderThan?: string } }

export function createTileCache (deps: TileCacheDeps) {
  const store = createBlobStore({ root: path.join(deps.dataDir, 'tiles'), tmpDir: path.join(deps.dataDir, 'tmp', 'tiles'), fault: deps.fault ?? noFaults })
  const invalidation = createTileInvalidation({ sets: deps.tileSets, store, log: deps.log, now: deps.now })
  const cluster = deps.cluster && createClusterBreeder({
    cluster: deps.cluster, store, render: deps.render, isStale: invalidation.isStale, taskSlots: deps.taskSlots, maxPendingTasks: deps.maxPendingTasks,
    workers: deps.seedWorkers ?? 1, records: deps.records, log: deps.log, now: deps.now,
    specOf: async (request) => await specOf(JSON.parse(request) as StoredRequest)
  })
  const local = cluster ? undefined : createTileBreeder({
    store, render: deps.render, taskSlots: deps.taskSlots, maxPendingTasks: deps.maxPendingTasks, log: deps.log, now: deps.now, records: deps.records,
    resume: deps.resume, isStale: invalidation.isStale
  })
  const breeder: Breeder = (cluster ?? local)!
  const inflight = new Map<string, Promise<void>>()
  const authorize = deps.authorize

  async function decidePyramid (spec: SeedSpec): Promise<void> {
    const linear = deps.linearStyle
    spec.pyramid = linear !== undefined && await pyramidFits(spec, () => linear(spec.layer))
  }

  /** A recorded request validated again (its layer may have gone or changed since). */
  async function specOf (req: StoredRequest): Promise<SeedSpec> {
    const layer = await findLayer(req.layer)
    if (!layer) throw UnknownTileLayer(req.layer)
    const spec = req.area ? parseAreaRequest(req.body, layer, deps.maxSeedThreads, req.area.olderThan) : parseSeedRequest(req.body, layer, deps.maxSeedThreads)
    await countArea(spec)
    await decidePyramid(spec)
    return spec
  }

  async function findLayer (name: string): Promise<LayerInfo | undefined> {
    const parts = splitLayerName(name)
    if (!parts) return undefined
    const layer = await deps.layers.get(parts.workspace, parts.name)
    return layer && layer.enabled ? layer : undefined
  }

  return {
    store,
    breeder,
    invalidation,
    /** Per-layer expiry and cached-only settings (the layer resource reads and writes them). */
    settings: deps.settings,

    /** A tile layer for the seed API: unknown layers are 400, not 404 (the seed resource exists; its body names a layer that does not). */
    async seedLayer (name: string): Promise<LayerInfo> {
      const layer = await findLayer(name)
      if (!layer) throw UnknownTileLayer(name)
      return layer
    },
    /** A tile layer for the tile services: unknown layers are 404. */
    async tileLayer (name: string, principal?: Principal, action: 'read' | 'metadata' = 'read'): Promise<LayerInfo> {
      const layer = await findLayer(name)
      if (!layer) throw TileLayerNotFound(name)
      await authorize(action, layer, principal)
      return layer
    },
    /** The enabled tile layers the principal may `list` (capabilities), or may also read, etc. */
    async tileLayers (principal?: Principal, actions: TileAction[] = ['list']): Promise<LayerInfo[]> {
      const out: LayerInfo[] = []
      for (const l of await deps.layers.list()) {
        if (!l.enabled) continue
        try {
          for (const action of actions) await authorize(action, l, principal)
          out.push(l)
        } catch (err) {
          if (!isMapwardenError(err)) throw err // a refusal hides the layer; any other fault surfaces
        }
      }
      return out
    },

    /**
     * The single entry point of cache writes (seed, reseed, truncate). With `area`, `body` is the
     * area resource's `{ seedRequest, geometry, olderThan }` (area.ts), `olderThan` its query parameter.
     */
    async submitSeed (layerName: string, body: Record<string, unknown>, principal?: Principal, area?: { olderThan?: string }) {
      const layer = await this.seedLayer(layerName)
      await authorize('write', layer, principal)
      const spec = area
        ? parseAreaRequest(body, layer, deps.maxSeedThreads, area.olderThan)
        : parseSeedRequest(body, layer, deps.maxSeedThreads)
      await countArea(spec)
      await decidePyramid(spec)
      if (spec.parameters) await invalidation.recordSet(layer.qualifiedName, parameterId(spec.parameters), spec.parameters)
      const request: StoredRequest = { layer: layer.qualifiedName, body, area }
      return breeder.submit(spec, JSON.stringify(request))
    },

    /**
     * At start (MAPWARDEN_RESUME_TASKS): the tasks of the previous run that were pending or running
     * go back in the queue with their ids, their job rebuilt from the recorded request and checked
     * again. A seed walks its range again (metatiles on disk are skipped and count as done); a
     * reseed leaves alone the metatiles written since it started; a truncate deletes what is left
     * and keeps its count. Killed tasks end ABORTED; a request no longer valid (layer removed...)
     * ends ABORTED with the reason.
     */
    async resumeTasks (): Promise<{ resumed: number, aborted: number }> {
      const records = deps.records
      if (!records || !local) return { resumed: 0, aborted: 0 }
      const jobs = new Map<number, UnfinishedTask[]>()
      for (const r of await records.unfinished()) {
        const key = r.job ?? r.id
        jobs.set(key, [...(jobs.get(key) ?? []), r])
      }
      let resumed = 0
      let aborted = 0
      for (const rows of jobs.values()) {
        const live = rows.filter((r) => !r.killed)
        for (const r of rows) if (r.killed) { await records.abort(r.id, null); aborted++ }
        if (live.length === 0) continue
        let spec
        try {
          if (!live[0].request) throw new Error('no request on record')
          spec = await specOf(JSON.parse(live[0].request) as StoredRequest)
        } catch (err) {
          const why = isMapwardenError(err) ? `${RESTART_REASON}, and its request is no longer valid: ${err.message}` : RESTART_REASON
          for (const r of live) { await records.abort(r.id, why); aborted++ }
          continue
        }
        const started = live.map((r) => r.startedAt).filter((v): v is number => v !== undefined)
        if (spec.type === 'reseed' && started.length > 0) spec.olderThan = Math.min(spec.olderThan ?? Infinity, ...started)
        local.resume(spec, live.map((r) => ({ id: r.id, baseDone: spec.type === 'truncate' && r.view.tilesDone > 0 ? r.view.tilesDone : undefined })))
        resumed += live.length
      }
      return { resumed, aborted }
    },

    /** Whether anyone may read the layer's tiles without logging in (shared caches may keep them). */
    async isPublic (layer: LayerInfo): Promise<boolean> {
      try { await authorize('read', layer, undefined); return true } catch (err) {
        if (isMapwardenError(err)) return false
        throw err
      }
    },

    /** The single entry point of tile reads: the stored tile, or the metatile rendered on a miss;
     *  `public` when the layer is readable anonymously. */
    async readTile (req: TileRequest, principal?: Principal): Promise<ServedTile> {
      const layer = await this.tileLayer(req.layer, principal)
      const isPublic = principal === undefined || await this.isPublic(layer)
      const settings = deps.settings?.get(layer.workspace, layer.name) ?? DEFAULT_TILE_SETTINGS
      const params = normaliseParameters(layer, req.parameters, 'parameter', TileParameterInvalid)
      const key: TileKey = { layer: layer.qualifiedName, gridSet: req.gridSet.id, format: req.format, parameterId: parameterId(params), z: req.z, x: req.x, y: req.y }
      const marks = invalidation.inForce(key.layer)
      const cached = settings.expireCache === -1 && !settings.cachedOnly ? undefined : await store.get(key)
      // A tile of a set whose style or data changed after it was written is not served (tile-invalidation.ts).
      const hit = cached && !invalidation.isStale(key.layer, key.parameterId, cached.mtimeMs, marks) ? cached : undefined
      // expireCache: a tile older than that is rendered again (a cached-only layer serves it still).
      const fresh = hit && (settings.cachedOnly || settings.expireCache <= 0 || (deps.now ?? Date.now)() - hit.mtimeMs < settings.expireCache * 1000)
      if (hit && fresh) return { ...hit, cached: true, public: isPublic, settings }
      await invalidation.recordSet(key.layer, key.parameterId, params)
      const subset = gridSubset(req.gridSet, layer.bbox)
      const rect = metaTileOf(subset, req.z, req.x, req.y)
      if (!rect) throw TileOutOfRange(req.asked ?? `${req.z}/${req.x}/${req.y}`, layer.qualifiedName, req.gridSet.id)
      if (settings.cachedOnly) {
        if (settings.cachedOnlyMissing === 'notFound') throw TileNotCached(req.asked ?? `${req.z}/${req.x}/${req.y}`, layer.qualifiedName, req.gridSet.id)
        const data = await blankTile(req.format, req.gridSet.tileWidth, req.gridSet.tileHeight)
        const now = (deps.now ?? Date.now)()
        return { data, size: data.length, mtimeMs: now, etag: `"blank-${data.length.toString(16)}"`, cached: false, public: isPublic, settings, placeholder: true }
      }
      const mkey = `${key.layer}/${key.gridSet}/${key.format}/${key.parameterId}/${req.z}/${rect[0]}/${rect[1]}`
      let p = inflight.get(mkey)
      if (!p) {
        const render = () => renderIntoStore(deps.render, store, key, { layer, gridSet: req.gridSet, z: req.z, rect, format: req.format, parameters: params, priority: 'interactive' })
        // In a cluster another node may be rendering the same metatile: one renders, the other
        // finds the tile written (changed since it looked) once it holds the lock.
        p = (deps.cluster
          ? deps.cluster.withMetatileLock(metatileKey({ layer, gridSet: req.gridSet }, req.format, key.parameterId, req.z, rect[0], rect[1]), async () => {
            const current = invalidation.inForce(key.layer)
            const written = await store.get(key)
            if (written && written.mtimeMs !== cached?.mtimeMs && !invalidation.isStale(key.layer, key.parameterId, written.mtimeMs, current)) return
            await render()
          })
          : render()).finally(() => inflight.delete(mkey))
        inflight.set(mkey, p)
      }
      await p
      const tile = await store.get(key)
      if (!tile) throw TileOutOfRange(req.asked ?? `${req.z}/${req.x}/${req.y}`, layer.qualifiedName, req.gridSet.id)
      return { ...tile, cached: false, public: isPublic, settings }
    },

    /**
     * An MBTiles or GeoPackage file of the layer's cached tiles (export.ts), under the layer's read
     * rule; the caller streams and removes it. Nothing is rendered: it holds what the cache holds.
     */
    async exportTiles (layerName: string, kind: ExportKind, query: Record<string, unknown>, principal?: Principal, signal?: AbortSignal) {
      const layer = await this.tileLayer(layerName, principal)
      const q = parseExportQuery(kind, query, { gridSet, maxZoom, isFormat: isTileFormat, invalid: ExportInvalid })
      const params = normaliseParameters(layer, q.parameters, 'parameter', (_f, name, why) => ExportInvalid('parameter', name, why))
      const set = { layer: layer.qualifiedName, gridSet: q.gridSet.id, format: q.format, parameterId: parameterId(params) }
      const subset = gridSubset(q.gridSet, layer.bbox)
      if (q.bounds) {
        const e = subset.extent
        if (q.bounds[2] <= e[0] || q.bounds[0] >= e[2] || q.bounds[3] <= e[1] || q.bounds[1] >= e[3]) {
          throw ExportInvalid('bounds', q.bounds.join(','), `do not intersect the layer's extent ${e.join(',')} in grid set ${q.gridSet.id}`)
        }
      }
      const zoomStop = q.zoomStop ?? Math.max(q.zoomStart, (await highestCachedZoom(store, set)) ?? q.zoomStart)
      const out = await exportTiles(store, path.join(deps.dataDir, 'tmp', 'exports'), {
        kind, layer: layer.qualifiedName, set, subset, zoomStart: q.zoomStart, zoomStop, bounds: q.bounds
      }, signal)
      return { ...out, name: `${tableName(layer.qualifiedName)}.${kind}` }
    },

    /**
     * Once the HTTP layer is ready. A cluster's seed workers start (after a stop of every node, the
     * unfinished tasks go on, or with resuming off end ABORTED); a single node started on its data
     * alone resumes the tasks of its previous run (MAPWARDEN_RESUME_TASKS, resumeTasks).
     */
    async start ({ alone }: { alone: boolean }): Promise<{ resumed: number, aborted: number }> {
      if (cluster) {
        await cluster.start({ alone, resume: deps.resume === true })
        return { resumed: 0, aborted: 0 }
      }
      return deps.resume && alone ? await this.resumeTasks() : { resumed: 0, aborted: 0 }
    },

    async close () { await breeder.close(); await invalidation.idle() }
  }
}

export type TileCache = ReturnType<typeof createTileCache>
