// The single entry point of tile reads: the stored tile while it is fresh (not stale after a style
// or data change, younger than expireCache), else the metatile rendered into the blob store on
// demand, once per metatile however many reads ask at once (here, and across nodes by the metatile
// lock; a vector tile takes none, renderVectorTile); a cached-only layer answers a missing tile
// with a blank or a 404 instead.
import type { Principal } from '../auth/authenticator.js'
import { GridSetNotOffered, TileNotCached, TileOutOfRange, TileParameterInvalid, TileRequestInvalid } from '../errors.js'
import { storedTile, type StoredTile, type TileKey } from './blob-store.js'
import { metatileKey, renderIntoStore, type RenderedMetatile } from './metatile-renderer.js'
import { formatsOf, MVT_FORMAT, type TileFormat } from './formats.js'
import { metaTileOf } from './tile-range.js'
import { normaliseParameters, parameterId } from './parameters.js'
import type { TileLayerSettings } from './layer-settings.js'
import { blankTile } from './blank-tile.js'
import type { TileCacheContext } from './tile-cache-context.js'
import type { LayerInfo } from '../catalog/layers.js'
import type { GridSet, Rect } from './grid-sets.js'
import type { ParameterSet } from './parameters.js'

/** A rendered metatile; `stampMs`: the time its deferred tiles' files get (renderVectorTile). */
type Rendered = RenderedMetatile & { stampMs?: number }

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

export function readOperations (ctx: TileCacheContext) {
  const { deps, store, invalidation } = ctx
  const inflight = new Map<string, Promise<Rendered | undefined>>()
  /** Vector tiles answered and not yet on disk (their write under way), by key: a read of one meanwhile is a hit. */
  const unwritten = new Map<string, StoredTile>()
  const tileId = (k: TileKey) => `${k.layer}/${k.gridSet}/${k.format}/${k.parameterId}/${k.z}/${k.x}/${k.y}`

  /**
   * A vector tile's miss: one tile (GWC's 1x1 metatile for MVT) taking no metatile lock. The lock
   * keeps two renders of a metatile from running at once across nodes; a vector tile's render
   * replaces the whole file atomically (temp file and rename), so a second one at once (a seed,
   * another node) costs its query again and no harm, less than the lock's round trips and the stat
   * under it on every miss. Tiles the database encoded are answered from the bytes in hand and
   * written after (through the thread pool, the file's time the one their validators name: taken
   * before the query, so a data change while it ran marks the tile stale); a failed write is
   * logged, the tile was answered. Tiles a render thread encoded are written by it, as image tiles.
   */
  async function renderVectorTile (req: TileRequest, layer: LayerInfo, key: TileKey, rect: Rect, params: ParameterSet): Promise<Rendered> {
    const stampMs = Date.now() + 0.5
    const out = await renderIntoStore(deps.render, store, key, { layer, gridSet: req.gridSet, z: req.z, rect, format: req.format, parameters: params, priority: 'interactive', deferWrite: true })
    if (out.deferred && out.tiles) {
      const id = tileId(key)
      unwritten.set(id, storedTile(Buffer.from(out.tiles[0].buffer, out.tiles[0].byteOffset, out.tiles[0].byteLength), stampMs))
      store.writeMetatile(key, req.z, rect, out.tiles, stampMs)
        .catch((err: unknown) => { deps.log?.warn({ err, tile: id }, 'a vector tile was answered and not written to the tile cache') })
        .finally(() => unwritten.delete(id))
    }
    return { ...out, stampMs }
  }

  return {
    /** The stored tile, or the metatile rendered on a miss; `public` when the layer is readable anonymously. */
    async readTile (req: TileRequest, principal?: Principal): Promise<ServedTile> {
      const layer = await ctx.tileLayer(req.layer, principal)
      if (!formatsOf(layer).includes(req.format)) throw TileRequestInvalid(`Format ${req.format} is not offered by layer ${layer.qualifiedName}: vector tiles are for vector layers and layer groups`)
      ctx.checkStoreEnabled(layer)
      const isPublic = principal === undefined || await ctx.isPublic(layer)
      const settings = ctx.settingsOf(layer)
      const params = normaliseParameters(layer, req.parameters, 'parameter', TileParameterInvalid, settings.parameterFilters)
      const key: TileKey = { layer: layer.qualifiedName, gridSet: req.gridSet.id, format: req.format, parameterId: parameterId(params), z: req.z, x: req.x, y: req.y }
      const marks = invalidation.inForce(key.layer)
      // The tile and its time from one open file (no stat before the read): served when fresh, and
      // reported as read (one hit for the disk quota) only then; a rendered miss counts as a hit.
      const stored = settings.expireCache === -1 && !settings.cachedOnly ? undefined : await store.peek(key) ?? unwritten.get(tileId(key))
      const storedMs = stored?.mtimeMs
      // A tile of a set whose style or data changed after it was written is not served (tile-invalidation.ts).
      const usable = storedMs !== undefined && !invalidation.isStale(key.layer, key.parameterId, storedMs, marks)
      // expireCache: a tile older than that is rendered again (a cached-only layer serves it still).
      const fresh = usable && (settings.cachedOnly || settings.expireCache <= 0 || ctx.now() - storedMs < settings.expireCache * 1000)
      if (fresh && stored) {
        store.served(key, stored)
        return { ...stored, cached: true, public: isPublic, settings }
      }
      await invalidation.recordSet(key.layer, key.parameterId, params)
      const subset = ctx.subsetOf(layer, req.gridSet)
      if (!subset) throw GridSetNotOffered(layer.qualifiedName, req.gridSet.id, ctx.gridSetsOf(layer).map((g) => g.id).join(', '))
      // A vector tile is encoded alone (GWC's 1x1 metatile for MVT), an image tile in its 4x4 metatile.
      const meta = req.format === MVT_FORMAT ? 1 : 4
      const rect = metaTileOf(subset, req.z, req.x, req.y, meta, meta)
      if (!rect) throw TileOutOfRange(req.asked ?? `${req.z}/${req.x}/${req.y}`, layer.qualifiedName, req.gridSet.id)
      if (settings.cachedOnly) {
        if (settings.cachedOnlyMissing === 'notFound') throw TileNotCached(req.asked ?? `${req.z}/${req.x}/${req.y}`, layer.qualifiedName, req.gridSet.id)
        const data = await blankTile(req.format, req.gridSet.tileWidth, req.gridSet.tileHeight)
        return { data, size: data.length, mtimeMs: ctx.now(), etag: `"blank-${data.length.toString(16)}"`, cached: false, public: isPublic, settings, placeholder: true }
      }
      const mkey = tileId({ ...key, x: rect[0], y: rect[1] }) // the metatile's first tile names it
      let p = inflight.get(mkey)
      if (!p && req.format === MVT_FORMAT) {
        p = renderVectorTile(req, layer, key, rect, params).finally(() => inflight.delete(mkey))
        inflight.set(mkey, p)
      } else if (!p) {
        // What was on disk before the render was asked for: another render (a seed, another node)
        // may write the metatile while this one waits for its lock; then it is not drawn again.
        p = (async () => {
          const before = storedMs ?? (settings.expireCache === -1 ? await store.mtime(key) : undefined)
          const lockKey = metatileKey({ layer, gridSet: req.gridSet }, req.format, key.parameterId, req.z, rect[0], rect[1])
          // A seed render holding the lock must not wait behind the requests that come after this one.
          const release = deps.hurry?.(lockKey) ?? (() => {})
          // Another node rendering it: waited for holding no connection, and past metatileWaitMs
          // drawn here without the lock (seed-queue.ts MetatileLock.claim).
          const waitMs = deps.metatileWaitMs
          try {
            return await deps.metatileLock.claim(lockKey, { waitMs, onWait: deps.onMetatileWait }, async (held) => {
              release()
              // Written by the holder meanwhile: every tile of it is, once its lock is free. Without
              // the lock its holder may be writing still: drawn again rather than half read.
              const written = held ? await store.mtime(key) : undefined
              if (written !== undefined && written !== before && !invalidation.isStale(key.layer, key.parameterId, written, invalidation.inForce(key.layer))) return undefined
              if (!held) deps.log?.warn({ metatile: lockKey, waitMs }, 'metatile rendered without its lock: another instance held it past the wait')
              return await renderIntoStore(deps.render, store, key, { layer, gridSet: req.gridSet, z: req.z, rect, format: req.format, parameters: params, priority: 'interactive' })
            })
          } finally { release() }
        })().finally(() => inflight.delete(mkey))
        inflight.set(mkey, p)
      }
      // Tiles encoded on this thread are served as rendered; those a render thread wrote are read back.
      const out = await p
      const i = (rect[3] - req.y) * (rect[2] - rect[0] + 1) + req.x - rect[0]
      const data = out?.tiles?.[i]
      const mtimeMs = out?.deferred ? out.stampMs : out?.writes[i]?.mtimeMs
      const tile = data && mtimeMs !== undefined ? store.served(key, storedTile(Buffer.from(data.buffer, data.byteOffset, data.byteLength), mtimeMs)) : await store.get(key)
      if (!tile) throw TileOutOfRange(req.asked ?? `${req.z}/${req.x}/${req.y}`, layer.qualifiedName, req.gridSet.id)
      return { ...tile, cached: false, public: isPublic, settings }
    }
  }
}
