// Tile files. Writing: a temp file under the blob store's temp folder, renamed into place, so a
// reader sees the old tile or the new one, never half of one; synchronous on purpose: the render
// workers call it (the encoded tiles never travel back to the event loop, whose garbage collector
// they would feed), and the blob store's own `put` uses it for single tiles; writeTileFileAsync is
// the same through the thread pool, for the vector tiles the database encoded, written after they
// are answered. Reading: the blob store's `get`, on the event loop (the open on it, the rest
// asynchronous). Imports nothing but node: modules and the fault
// points, so a worker can load it.
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { threadId } from 'node:worker_threads'
import { noFaults, type FaultPoint } from '../faults.js'

/** Result of a write: the size of the new tile, of the tile it replaced (-1: none), and its time. */
export interface TileWrite { bytes: number, replacedBytes: number, mtimeMs: number }

const madeDirs = new Set<string>()
let seq = 0

function ensureDir (dir: string): void {
  if (madeDirs.has(dir)) return
  fs.mkdirSync(dir, { recursive: true })
  if (madeDirs.size > 10_000) madeDirs.clear()
  madeDirs.add(dir)
}

/**
 * Writes one tile atomically. A folder removed since it was made (a truncate or a layer removal
 * between two writes, a restart on the same data directory) is made again, once. On failure
 * (ENOSPC...) the temp file is removed and the error thrown with its `code`.
 */
export function writeTileFile (tmpDir: string, target: string, data: Uint8Array, fault: FaultPoint = noFaults): TileWrite {
  const dir = path.dirname(target)
  // Unique within the process (pid, thread, counter); the temp folder is emptied at every start.
  const tmp = path.join(tmpDir, `${process.pid}.${threadId}.${++seq}.tile`)
  for (let attempt = 0; ; attempt++) {
    try {
      ensureDir(tmpDir)
      ensureDir(dir)
      const fd = fs.openSync(tmp, 'w')
      let mtimeMs: number
      try {
        for (let off = 0; off < data.length;) off += fs.writeSync(fd, data, off)
        mtimeMs = fs.fstatSync(fd).mtimeMs
      } finally { fs.closeSync(fd) }
      const replacedBytes = fs.statSync(target, { throwIfNoEntry: false })?.size ?? -1
      fault('tile.beforeRename')
      fs.renameSync(tmp, target)
      fault('tile.afterRename')
      return { bytes: data.length, replacedBytes, mtimeMs }
    } catch (err) {
      fs.rmSync(tmp, { force: true })
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt > 0) throw err
      madeDirs.delete(tmpDir)
      madeDirs.delete(dir)
    }
  }
}

// node:fs's callbacks as promises: no FileHandle (fs/promises), whose object, promise and close
// tracking cost a tile write twice the event loop's CPU of these calls.
const fsMkdir = promisify(fs.mkdir)
const fsOpen = promisify(fs.open)
const fsWrite = promisify(fs.write)
const fsFutimes = promisify(fs.futimes)
const fsClose = promisify(fs.close)
const fsStat = promisify(fs.stat)
const fsRename = promisify(fs.rename)
const fsRm = promisify(fs.rm)

/**
 * Writes one tile atomically as writeTileFile does, through the thread pool (the event loop's thread
 * is not held by the file system), the file's time set to `mtimeMs`: a tile answered from the bytes
 * in hand before it is on disk names that time in its validators, and a later read of the file
 * finds the same (`mtimeMs` in the middle of a millisecond, so the file system's rounding of it
 * keeps the millisecond). node:fs's callbacks, not fs/promises (above).
 */
export async function writeTileFileAsync (tmpDir: string, target: string, data: Uint8Array, mtimeMs: number, fault: FaultPoint = noFaults): Promise<TileWrite> {
  const dir = path.dirname(target)
  const tmp = path.join(tmpDir, `${process.pid}.${threadId}.${++seq}.tile`)
  for (let attempt = 0; ; attempt++) {
    try {
      if (!madeDirs.has(tmpDir)) ensureDir(tmpDir)
      if (!madeDirs.has(dir)) { await fsMkdir(dir, { recursive: true }); madeDirs.add(dir) }
      const fd = await fsOpen(tmp, 'w')
      try {
        for (let off = 0; off < data.length;) off += (await fsWrite(fd, data, off, data.length - off, null)).bytesWritten
        await fsFutimes(fd, mtimeMs / 1000, mtimeMs / 1000)
      } finally { await fsClose(fd) }
      const replacedBytes = (await fsStat(target).catch(() => undefined))?.size ?? -1
      fault('tile.beforeRename')
      await fsRename(tmp, target)
      fault('tile.afterRename')
      return { bytes: data.length, replacedBytes, mtimeMs }
    } catch (err) {
      await fsRm(tmp, { force: true })
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt > 0) throw err
      madeDirs.delete(tmpDir)
      madeDirs.delete(dir)
    }
  }
}

/**
 * Writes encoded tiles to their paths (temp file and rename each); a failed write ends the list and
 * comes back as its code and message (a thrown error would lose its code between threads).
 */
export function writeTiles (tiles: Uint8Array[], target: { tmpDir: string, paths: string[] }, fault: FaultPoint = noFaults): { writes: TileWrite[], failed?: { code?: string, message: string } } {
  if (tiles.length !== target.paths.length) throw new Error(`${tiles.length} tiles rendered for ${target.paths.length} paths`)
  const writes: TileWrite[] = []
  try {
    tiles.forEach((data, i) => { writes.push(writeTileFile(target.tmpDir, target.paths[i], data, fault)) })
    return { writes }
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    return { writes, failed: { code: e.code, message: e.message } }
  }
}

/**
 * A whole tile file and its modification time; undefined when there is none. fstat, read and
 * close through fs's callbacks: half the CPU of a FileHandle (fs/promises) for a cached tile, which
 * a cached GET spends most of its time on.
 */
export function readTileFile (file: string): Promise<{ data: Buffer, mtimeMs: number } | undefined> {
  return new Promise((resolve, reject) => {
    // Opened on this thread: a directory lookup, microseconds, where a trip through the thread pool
    // cost a miss a millisecond or more on a loaded machine (most reads of a cold cache find nothing).
    let fd: number
    try { fd = fs.openSync(file, 'r') } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') resolve(undefined); else reject(err)
      return
    }
    const done = (err: Error | null, result?: { data: Buffer, mtimeMs: number }) => {
      fs.close(fd, (closeErr) => { if (err ?? closeErr) reject(err ?? closeErr); else resolve(result) })
    }
    fs.fstat(fd, (err, st) => {
      if (err) { done(err); return }
      const data = Buffer.allocUnsafe(st.size)
      const readFrom = (off: number) => {
        fs.read(fd, data, off, st.size - off, off, (err, n) => {
          if (err) { done(err); return }
          // A file cut short under the read (a truncate racing it): what was there.
          if (n === 0 || off + n === st.size) { done(null, { data: data.subarray(0, off + n), mtimeMs: st.mtimeMs }); return }
          readFrom(off + n)
        })
      }
      if (st.size === 0) done(null, { data, mtimeMs: st.mtimeMs }); else readFrom(0)
    })
  })
}
