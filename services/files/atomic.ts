// Durable file changes: write a temp file beside the target, fsync it, rename it over the target,
// fsync the directory. A crash leaves the old file or the new one, never a torn one.
import fs from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import path from 'node:path'

export const TEMP_SUFFIX = '.mwtmp'

export function tempNameFor (target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`)
}

export async function fsyncDir (dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r')
  try { await fh.sync() } finally { await fh.close() }
}

/** Stages of a durable write, for the crash harness's fault points (services/faults.ts). */
export type WriteStage = 'afterTempWrite' | 'beforeRename' | 'afterRename'

export async function writeFileAtomic (target: string, data: string | Uint8Array, stage?: (s: WriteStage) => void): Promise<void> {
  await fs.mkdir(path.dirname(target), { recursive: true })
  const tmp = tempNameFor(target)
  const fh = await fs.open(tmp, 'wx', 0o644)
  try {
    await fh.writeFile(data)
    stage?.('afterTempWrite')
    await fh.sync()
  } catch (err) {
    await fh.close()
    await fs.rm(tmp, { force: true })
    throw err
  }
  await fh.close()
  stage?.('beforeRename')
  try {
    await fs.rename(tmp, target)
  } catch (err) {
    await fs.rm(tmp, { force: true })
    throw err
  }
  await fsyncDir(path.dirname(target))
  stage?.('afterRename')
}

/** Copies a file over `target` durably: a temp copy beside it, fsynced, renamed over it. */
export async function copyFileAtomic (source: string, target: string): Promise<void> {
  await fs.mkdir(path.dirname(target), { recursive: true })
  const tmp = tempNameFor(target)
  try {
    await fs.copyFile(source, tmp, fs.constants.COPYFILE_EXCL)
    const fh = await fs.open(tmp, 'r+')
    try { await fh.sync() } finally { await fh.close() }
    await fs.rename(tmp, target)
  } catch (err) {
    await fs.rm(tmp, { force: true })
    throw err
  }
  await fsyncDir(path.dirname(target))
}

/** Moves a finished file or directory into place durably (same filesystem). */
export async function renameDurable (from: string, to: string): Promise<void> {
  await fs.mkdir(path.dirname(to), { recursive: true })
  await fs.rename(from, to)
  await fsyncDir(path.dirname(to))
}

/** fsyncs every file under a directory tree and the directories themselves. */
export async function fsyncTree (dir: string): Promise<void> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name)
    if (entry.isDirectory()) await fsyncTree(p)
    else if (entry.isFile()) { const fh = await fs.open(p, 'r'); try { await fh.sync() } finally { await fh.close() } }
  }
  await fsyncDir(dir)
}

/**
 * Removes leftover temp files (from a crash mid-write) under a directory tree, skipping the
 * top-level folders named in `skip` (the tile cache stages its writes under tmp/, which is wiped
 * at start, so its millions of files need no walk).
 */
export async function removeTempFiles (dir: string, skip: string[] = []): Promise<number> {
  let removed = 0
  let entries
  try { entries = await fs.readdir(dir, { withFileTypes: true }) } catch { return 0 }
  for (const entry of entries) {
    const p = path.join(dir, entry.name)
    if (entry.isDirectory() && skip.includes(entry.name)) continue
    if (entry.isDirectory()) removed += await removeTempFiles(p)
    else if (entry.name.endsWith(TEMP_SUFFIX)) { await fs.rm(p, { force: true }); removed++ }
  }
  return removed
}

/** Resolves `name` under `root` and proves the result stays inside it. */
export function within (root: string, ...parts: string[]): string {
  const resolved = path.resolve(root, ...parts)
  const rel = path.relative(root, resolved)
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`path escapes its root: ${parts.join('/')}`)
  return resolved
}

/**
 * Runs `fn` with a fresh staging folder under `<dataDir>/tmp` (same filesystem as the data, so it
 * can be renamed into place; wiped at every start) and removes whatever is left of it afterwards,
 * so a failed request leaves nothing behind.
 */
export async function withStaging<T> (dataDir: string, prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const tmp = path.join(dataDir, 'tmp')
  await fs.mkdir(tmp, { recursive: true })
  const dir = await fs.mkdtemp(path.join(tmp, `${prefix}-`))
  try { return await fn(dir) } finally { await fs.rm(dir, { recursive: true, force: true }) }
}
