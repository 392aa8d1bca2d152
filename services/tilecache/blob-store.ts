// The file blob store: <root>/<workspace>/<layer>/<gridset>/<format>/<parameter-set>/<z>/<x>/<y>.<ext>
// (tile row y counted from the bottom, as the grid sets). A tile is written to a temp file under
// <dataDir>/tmp (wiped at start) and renamed into place (services/render/tile-files.ts), so a reader sees the old
// tile or the new one, never half of one. Tiles are a cache: no fsync per tile (a kill -9 cannot
// tear a renamed file; a power loss may lose recent tiles, which a reseed rebuilds).
// Rendered metatiles are written by the render workers to the paths of `metatileTarget`, and
// reported back through `recordMetatile`; `put` writes one tile on the calling thread, `writeMetatile`
// the tiles encoded on it through the thread pool.
// Listeners report every write, delete and read per tile set for the disk quota.
// Each layer's tiles live under the root of its blob store (`rootOf`, blob-store-registry.ts: the
// built-in `root` unless a file blob store of GWC's REST holds them); a store's temp files go to its
// own .mapwarden-tmp, so the rename stays on its file system.
import fs from 'node:fs/promises'
import path from 'node:path'
import { checkName } from '../files/names.js'
import { readTileFile, writeTileFile, writeTileFileAsync, type TileWrite } from '../render/tile-files.js'
import { FORMATS, formatOfExtension, tileRowOfFileName, type TileFormat } from './formats.js'
import type { Rect } from './grid-sets.js'
import { noFaults, type FaultPoint } from '../faults.js'

export interface TileSet { layer: string, gridSet: string, format: TileFormat, parameterId: string }
export interface TileKey extends TileSet { z: number, x: number, y: number }
export interface TileEvent extends TileKey {
  bytes: number
  /** Writes only: size of the tile this write replaced, undefined for a new tile (disk quota). */
  replacedBytes?: number
}
export type TileListener = (e: TileEvent) => void
/** Where a metatile's tiles go: `paths` in image order (top-left first, row by row). */
export interface MetatileTarget { tmpDir: string, paths: string[] }
export interface StoredTile { data: Buffer, size: number, mtimeMs: number, etag: string }

/** A tile's bytes with its file's time, and the ETag every read of that file answers. */
export function storedTile (data: Buffer, mtimeMs: number): StoredTile {
  return { data, size: data.length, mtimeMs, etag: `"${data.length.toString(16)}-${Math.floor(mtimeMs).toString(16)}"` }
}

export interface TruncateSelection {
  layer: string
  gridSet: string
  /** Undefined: every format. */
  formats?: TileFormat[]
  /** Undefined: every parameter set. */
  parameterId?: string
  zoomStart: number
  zoomStop: number
  /** Tiles to delete at z; undefined = none at that level. */
  rectAt: (z: number) => Rect | undefined
  signal?: AbortSignal
  /** Only tiles it accepts are deleted (truncate by area); undefined: every tile of rectAt. */
  keep?: (z: number, x: number, y: number) => boolean
  /** Called after each deleted tile (task progress). */
  onDeleted?: () => void
  /** Only tiles last written before this time (ms since the epoch); undefined: every tile. */
  olderThan?: number
}

const gridDir = (id: string) => id.replace(':', '_')
const PARAM_ID = /^(default|[0-9a-f]{40})$/

/** The folder of the global layer groups' tiles ('@' is in no workspace name, files/names.ts). */
export const GLOBAL_GROUPS = '@groups'

export interface BlobStoreOptions {
  /** The built-in tile cache. */
  root: string
  tmpDir: string
  fault?: FaultPoint
  /** The directory of a layer's tiles; absent: `root` for every layer. */
  rootOf?: (layer: string) => string
  /** Every directory tiles may be in (the built-in one first); absent: `root`. */
  roots?: () => string[]
}

/** The temp folder of a store's directory (a '.' name is no workspace, files/names.ts). */
const STORE_TMP = '.mapwarden-tmp'

export function createBlobStore ({ root, tmpDir, fault = noFaults, rootOf = () => root, roots = () => [root] }: BlobStoreOptions) {
  const written: TileListener[] = []
  const deleted: TileListener[] = []
  const read: TileListener[] = []
  const emit = (list: TileListener[], e: TileEvent) => { for (const fn of list) { try { fn(e) } catch { /* a listener never breaks the store */ } } }

  function layerDir (layer: string, at = rootOf(layer)): string {
    const i = layer.indexOf(':')
    // A global layer group has no workspace: its tiles go under '@groups', which no workspace name can be.
    if (i < 0) return path.join(at, GLOBAL_GROUPS, checkName(layer, 'layer group'))
    return path.join(at, checkName(layer.slice(0, i), 'workspace'), checkName(layer.slice(i + 1), 'layer'))
  }
  function setDir (s: TileSet, at?: string): string {
    if (!PARAM_ID.test(s.parameterId)) throw new Error(`bad parameter set id ${s.parameterId}`)
    return path.join(layerDir(s.layer, at), gridDir(s.gridSet), FORMATS[s.format].ext, s.parameterId)
  }
  const tmpOf = (layer: string): string => { const at = rootOf(layer); return at === root ? tmpDir : path.join(at, STORE_TMP) }
  function tilePath (k: TileKey): string {
    return path.join(setDir(k), String(k.z), String(k.x), `${k.y}.${FORMATS[k.format].ext}`)
  }
  const eventOf = (key: TileKey, w: TileWrite): TileEvent => ({ ...key, bytes: w.bytes, replacedBytes: w.replacedBytes < 0 ? undefined : w.replacedBytes })
  /** The tiles of a metatile in image order: top row (highest y) first, left to right. */
  function eachInImageOrder (rect: Rect, fn: (x: number, y: number, i: number) => void): void {
    let i = 0
    for (let y = rect[3]; y >= rect[1]; y--) for (let x = rect[0]; x <= rect[2]; x++) fn(x, y, i++)
  }

  async function remove (file: string, key: TileKey, olderThan?: number): Promise<boolean> {
    let size = 0
    try {
      const st = await fs.stat(file)
      if (olderThan !== undefined && st.mtimeMs >= olderThan) return false
      size = st.size
      await fs.unlink(file)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false
      throw err
    }
    emit(deleted, { ...key, bytes: size })
    return true
  }

  async function numericEntries (dir: string): Promise<number[]> {
    try {
      return (await fs.readdir(dir)).filter((n) => /^\d+$/.test(n)).map(Number)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw err
    }
  }

  /** The tile sets of a layer present on disk under `at`. */
  async function tileSetsAt (layer: string, at: string): Promise<TileSet[]> {
    const out: TileSet[] = []
    const ld = layerDir(layer, at)
    for (const g of await fs.readdir(ld).catch(() => [] as string[])) {
      for (const f of await fs.readdir(path.join(ld, g)).catch(() => [] as string[])) {
        const format = formatOfExtension(f)
        if (!format) continue
        for (const p of await fs.readdir(path.join(ld, g, f)).catch(() => [] as string[])) {
          if (PARAM_ID.test(p)) out.push({ layer, gridSet: g.replace('_', ':'), format, parameterId: p })
        }
      }
    }
    return out
  }

  /** Deletes every tile of a layer under `at`, each reported (the disk quota), then its folder. */
  async function dropLayerAt (layer: string, at: string): Promise<number> {
    let n = 0
    for (const s of await tileSetsAt(layer, at)) {
      const base = setDir(s, at)
      for (const z of await numericEntries(base)) {
        for (const x of await numericEntries(path.join(base, String(z)))) {
          const xdir = path.join(base, String(z), String(x))
          for (const name of await fs.readdir(xdir).catch(() => [] as string[])) {
            const y = tileRowOfFileName(name, s.format)
            if (y !== undefined && await remove(path.join(xdir, name), { ...s, z, x, y })) n++
          }
        }
      }
    }
    await fs.rm(layerDir(layer, at), { recursive: true, force: true })
    return n
  }
  /** A tile and its time from one open file, not reported as read: a reader that serves it calls `served`. */
  async function peek (key: TileKey): Promise<StoredTile | undefined> {
    const file = await readTileFile(tilePath(key))
    return file && storedTile(file.data, file.mtimeMs)
  }
  /** Reports a tile (a `peek` read, a render's) as served: the disk quota's hit. */
  const served = (key: TileKey, tile: StoredTile): StoredTile => { emit(read, { ...key, bytes: tile.size }); return tile }

  return {
    root,
    rootOf,
    roots,
    tilePath,
    /** The folder of a tile set (its zoom levels below). */
    tileSetDir (s: TileSet): string { return setDir(s) },
    onTileWritten (fn: TileListener) { written.push(fn) },
    onTileDeleted (fn: TileListener) { deleted.push(fn) },
    onTileRead (fn: TileListener) { read.push(fn) },

    async get (key: TileKey): Promise<StoredTile | undefined> {
      const tile = await peek(key)
      if (tile) served(key, tile)
      return tile
    },
    peek,
    served,

    async exists (key: TileKey): Promise<boolean> {
      try { await fs.access(tilePath(key)); return true } catch { return false }
    },

    /** Modification time of a tile (ms), undefined when it is not cached. */
    async mtime (key: TileKey): Promise<number | undefined> {
      try { return (await fs.stat(tilePath(key))).mtimeMs } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw err
      }
    },

    /** Writes one tile on the calling thread (tools and tests; seeding writes in the workers). */
    async put (key: TileKey, data: Uint8Array): Promise<void> {
      emit(written, eventOf(key, writeTileFile(tmpOf(key.layer), tilePath(key), data, fault)))
    },

    /** The files a render worker writes a metatile's tiles to. */
    metatileTarget (set: TileSet, z: number, rect: Rect): MetatileTarget {
      const base = `${setDir(set)}${path.sep}${z}${path.sep}`
      const ext = FORMATS[set.format].ext
      const paths: string[] = []
      eachInImageOrder(rect, (x, y) => { paths.push(`${base}${x}${path.sep}${y}.${ext}`) })
      return { tmpDir: tmpOf(set.layer), paths }
    },
    /**
     * Writes a metatile's tiles encoded on the event loop's thread (in image order) through the
     * thread pool, each file's time `mtimeMs` (writeTileFileAsync), and reports those written; the
     * first failure ends the writes and is thrown.
     */
    async writeMetatile (set: TileSet, z: number, rect: Rect, tiles: Uint8Array[], mtimeMs: number): Promise<void> {
      const target = this.metatileTarget(set, z, rect)
      const writes: TileWrite[] = []
      try {
        for (const [i, data] of tiles.entries()) writes.push(await writeTileFileAsync(target.tmpDir, target.paths[i], data, mtimeMs, fault))
      } finally { this.recordMetatile(set, z, rect, writes) }
    },
    /** Reports the tiles written to `metatileTarget(set, z, rect)`: the first `writes.length`. */
    recordMetatile (set: TileSet, z: number, rect: Rect, writes: TileWrite[]): void {
      eachInImageOrder(rect, (x, y, i) => { if (i < writes.length) emit(written, eventOf({ ...set, z, x, y }, writes[i])) })
    },

    async delete (key: TileKey): Promise<boolean> { return remove(tilePath(key), key) },

    /** Deletes a set of tiles (the disk quota's clean-up); returns how many existed. */
    async deleteTiles (keys: Iterable<TileKey>): Promise<number> {
      let n = 0
      for (const k of keys) if (await remove(tilePath(k), k)) n++
      return n
    },

    /** The tile sets of a layer present on disk. */
    async tileSets (layer: string): Promise<TileSet[]> { return await tileSetsAt(layer, rootOf(layer)) },

    /**
     * After a layer's store changed (its blobStoreId, the default store, a store's directory): the
     * tiles each directory in `before` holds of a layer whose tiles now live elsewhere are deleted
     * (reported, so the disk quota follows). GWC never moves tiles to a new store; they are dropped
     * rather than left where nothing serves, counts or truncates them. Returns the tiles deleted.
     */
    async dropMoved (before: string[]): Promise<number> {
      let n = 0
      for (const at of new Set(before)) {
        for (const ws of await fs.readdir(at).catch(() => [] as string[])) {
          if (ws.startsWith('.')) continue
          for (const l of await fs.readdir(path.join(at, ws)).catch(() => [] as string[])) {
            const layer = ws === GLOBAL_GROUPS ? l : `${ws}:${l}`
            let now: string
            try { now = rootOf(layer); layerDir(layer, at) } catch { continue } // not a tile folder
            if (path.resolve(now) !== path.resolve(at)) n += await dropLayerAt(layer, at)
          }
        }
      }
      return n
    },

    /**
     * Deletes the cached tiles of a range by walking what exists on disk (bounded by the cache,
     * never by the size of the range). Returns the number of tiles deleted.
     */
    async truncate (sel: TruncateSelection): Promise<number> {
      let n = 0
      const sets = (await this.tileSets(sel.layer)).filter((s) => s.gridSet === sel.gridSet &&
        (!sel.formats || sel.formats.includes(s.format)) && (sel.parameterId === undefined || s.parameterId === sel.parameterId))
      for (const s of sets) {
        const base = setDir(s)
        for (const z of await numericEntries(base)) {
          const r = z >= sel.zoomStart && z <= sel.zoomStop ? sel.rectAt(z) : undefined
          if (!r) continue
          for (const x of await numericEntries(path.join(base, String(z)))) {
            if (x < r[0] || x > r[2]) continue
            if (sel.signal?.aborted) return n
            const xdir = path.join(base, String(z), String(x))
            for (const name of await fs.readdir(xdir).catch(() => [] as string[])) {
              const y = tileRowOfFileName(name, s.format)
              if (y === undefined) continue
              if (y < r[1] || y > r[3]) continue
              if (sel.keep && !sel.keep(z, x, y)) continue
              if (sel.signal?.aborted) return n
              if (await remove(path.join(xdir, name), { ...s, z, x, y }, sel.olderThan)) { n++; sel.onDeleted?.() }
            }
            await fs.rmdir(xdir).catch(() => {}) // only when empty
          }
        }
      }
      return n
    },

    /** Removes every tile of a layer (layer or workspace deleted). Reports no per-tile events. */
    async removeLayer (layer: string): Promise<void> {
      for (const at of new Set([rootOf(layer), ...roots()])) await fs.rm(layerDir(layer, at), { recursive: true, force: true })
    },
    async removeWorkspace (workspace: string): Promise<void> {
      for (const at of new Set(roots())) await fs.rm(path.join(at, checkName(workspace, 'workspace')), { recursive: true, force: true })
    }
  }
}

export type BlobStore = ReturnType<typeof createBlobStore>
