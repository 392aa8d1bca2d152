// The file blob store: <root>/<workspace>/<layer>/<gridset>/<format>/<parameter-set>/<z>/<x>/<y>.<ext>
// (tile row y counted from the bottom, as the grid sets). A tile is written to a temp file under
// <dataDir>/tmp (wiped at start) and renamed into place, so a reader sees the old tile or the new
// one, never half of one. Tiles are a cache: no fsync per tile (a kill -9 cannot tear a renamed
// file; a power loss may lose recent tiles, which a reseed rebuilds).
// Listeners report every write, delete and read per tile set for the disk quota.
import fs from 'node:fs/promises'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { checkName } from '../files/names.js'
import { FORMATS, formatOfExtension, type TileFormat } from './formats.js'
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
export interface StoredTile { data: Buffer, size: number, mtimeMs: number, etag: string }

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
  /** Called after each deleted tile (task progress). */
  onDeleted?: () => void
}

const gridDir = (id: string) => id.replace(':', '_')
const PARAM_ID = /^(default|[0-9a-f]{40})$/

export function createBlobStore ({ root, tmpDir, fault = noFaults }: { root: string, tmpDir: string, fault?: FaultPoint }) {
  const written: TileListener[] = []
  const deleted: TileListener[] = []
  const read: TileListener[] = []
  const knownDirs = new Set<string>()
  let tmpReady: Promise<unknown> | undefined

  const emit = (list: TileListener[], e: TileEvent) => { for (const fn of list) { try { fn(e) } catch { /* a listener never breaks the store */ } } }

  function layerDir (layer: string): string {
    const i = layer.indexOf(':')
    return path.join(root, checkName(layer.slice(0, i), 'workspace'), checkName(layer.slice(i + 1), 'layer'))
  }
  function setDir (s: TileSet): string {
    if (!PARAM_ID.test(s.parameterId)) throw new Error(`bad parameter set id ${s.parameterId}`)
    return path.join(layerDir(s.layer), gridDir(s.gridSet), FORMATS[s.format].ext, s.parameterId)
  }
  function tilePath (k: TileKey): string {
    return path.join(setDir(k), String(k.z), String(k.x), `${k.y}.${FORMATS[k.format].ext}`)
  }
  const etagOf = (size: number, mtimeMs: number) => `"${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`

  async function remove (file: string, key: TileKey): Promise<boolean> {
    let size = 0
    try { size = (await fs.stat(file)).size; await fs.unlink(file) } catch (err) {
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

  return {
    root,
    tilePath,
    onTileWritten (fn: TileListener) { written.push(fn) },
    onTileDeleted (fn: TileListener) { deleted.push(fn) },
    onTileRead (fn: TileListener) { read.push(fn) },

    async get (key: TileKey): Promise<StoredTile | undefined> {
      let fh
      try { fh = await fs.open(tilePath(key), 'r') } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw err
      }
      try {
        // open + fstat + one read + close: the fewest system calls for a small file.
        const st = await fh.stat()
        const data = Buffer.allocUnsafe(st.size)
        let off = 0
        while (off < st.size) {
          const { bytesRead } = await fh.read(data, off, st.size - off, off)
          if (bytesRead === 0) break
          off += bytesRead
        }
        emit(read, { ...key, bytes: off })
        return { data: off === st.size ? data : data.subarray(0, off), size: off, mtimeMs: st.mtimeMs, etag: etagOf(st.size, st.mtimeMs) }
      } finally { await fh.close() }
    },

    async exists (key: TileKey): Promise<boolean> {
      try { await fs.access(tilePath(key)); return true } catch { return false }
    },

    async put (key: TileKey, data: Uint8Array): Promise<void> {
      const target = tilePath(key)
      const dir = path.dirname(target)
      if (!knownDirs.has(dir)) {
        await fs.mkdir(dir, { recursive: true })
        if (knownDirs.size > 10_000) knownDirs.clear()
        knownDirs.add(dir)
      }
      tmpReady ??= fs.mkdir(tmpDir, { recursive: true })
      await tmpReady
      const tmp = path.join(tmpDir, `${randomBytes(8).toString('hex')}.tile`)
      await fs.writeFile(tmp, data)
      const replacedBytes = await fs.stat(target).then((st) => st.size, () => undefined)
      fault('tile.beforeRename')
      try { await fs.rename(tmp, target) } catch (err) {
        await fs.rm(tmp, { force: true })
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
        knownDirs.delete(dir) // the directory was truncated away meanwhile: recreate once
        await fs.mkdir(dir, { recursive: true })
        await fs.writeFile(tmp, data)
        await fs.rename(tmp, target)
      }
      fault('tile.afterRename')
      emit(written, { ...key, bytes: data.length, replacedBytes })
    },

    async delete (key: TileKey): Promise<boolean> { return remove(tilePath(key), key) },

    /** Deletes a set of tiles (the disk quota's clean-up); returns how many existed. */
    async deleteTiles (keys: Iterable<TileKey>): Promise<number> {
      let n = 0
      for (const k of keys) if (await remove(tilePath(k), k)) n++
      return n
    },

    /** The tile sets of a layer present on disk. */
    async tileSets (layer: string): Promise<TileSet[]> {
      const out: TileSet[] = []
      const ld = layerDir(layer)
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
              const m = /^(\d+)\.(\w+)$/.exec(name)
              if (!m || m[2] !== FORMATS[s.format].ext) continue
              const y = Number(m[1])
              if (y < r[1] || y > r[3]) continue
              if (sel.signal?.aborted) return n
              if (await remove(path.join(xdir, name), { ...s, z, x, y })) { n++; sel.onDeleted?.() }
            }
            knownDirs.delete(xdir)
            await fs.rmdir(xdir).catch(() => {}) // only when empty
          }
        }
      }
      return n
    },

    /** Removes every tile of a layer (layer or workspace deleted). Reports no per-tile events. */
    async removeLayer (layer: string): Promise<void> {
      knownDirs.clear()
      await fs.rm(layerDir(layer), { recursive: true, force: true })
    },
    async removeWorkspace (workspace: string): Promise<void> {
      knownDirs.clear()
      await fs.rm(path.join(root, checkName(workspace, 'workspace')), { recursive: true, force: true })
    }
  }
}

export type BlobStore = ReturnType<typeof createBlobStore>
