// GeoServer's resource API over mapwarden's data directory: list, read, describe, write and delete
// the files under the areas GeoServer's layout shares with ours (styles/, workspaces/, templates/).
// Everything else in the data directory (the catalog database, security/ with the master key, tmp/,
// tiles/, indexes, granules) is answered as absent, as are dot-files and temp files, and so is any
// path whose real location (symlinks resolved) is outside the data directory or in a hidden place.
// Style files belong to the style catalog: they can be read here, never written or deleted.
import fs from 'node:fs/promises'
import type { Stats } from 'node:fs'
import path from 'node:path'
import { TEMP_SUFFIX, copyFileAtomic, fsyncDir, within, writeFileAtomic } from '../files/atomic.js'
import {
  ResourceCopyDirectory, ResourceIsDirectory, ResourceMoveIntoItself, ResourceNotFound, ResourceOwnedByCatalog, ResourceParentIsFile,
  ResourcePathInvalid, ResourceSamePath, ResourceSourceNotFound, ResourceTargetExists
} from '../errors.js'

/** The top-level folders of the data directory the resource API shows. */
export const EXPOSED_AREAS = ['styles', 'templates', 'workspaces'] as const

export type ResourceKind = 'directory' | 'resource'

export interface ResourceChild { name: string, kind: ResourceKind }

export interface ResourceInfo {
  /** '/'-joined segments; '' for the root. */
  path: string
  name: string
  /** The parent's path ('' for a top-level entry); undefined for the root. */
  parent?: string
  kind: ResourceKind
  lastModified: Date
  size: number
}

export interface ResourceServiceDeps { dataDir: string }

const MAX_SEGMENT_BYTES = 255

/** Splits a request path into checked segments: '.', '..', NUL, backslashes and over-long names are refused. */
export function parseResourcePath (raw: string): string[] {
  const segments = raw.split('/').filter((s) => s !== '')
  for (const s of segments) {
    if (s === '.' || s === '..') throw ResourcePathInvalid(JSON.stringify(raw.slice(0, 200)), 'it may not contain . or .. segments')
    if (/[\u0000-\u001f\\]/.test(s)) throw ResourcePathInvalid(JSON.stringify(raw.slice(0, 200)), 'it may not contain control characters or backslashes')
    if (Buffer.byteLength(s) > MAX_SEGMENT_BYTES) throw ResourcePathInvalid(JSON.stringify(s.slice(0, 60) + '...'), `a name is at most ${MAX_SEGMENT_BYTES} bytes`)
  }
  return segments
}

/** Whether a path (as segments under the data directory) is one the API shows. The root is. */
export function isVisible (segments: string[]): boolean {
  if (segments.length === 0) return true
  if (!(EXPOSED_AREAS as readonly string[]).includes(segments[0])) return false
  return segments.every((s) => !s.startsWith('.') && !s.endsWith(TEMP_SUFFIX))
}

/** A style file or folder the style catalog keeps (styles/**, workspaces/<ws>/styles/**). */
export function ownedByCatalog (segments: string[]): boolean {
  return segments[0] === 'styles' || (segments[0] === 'workspaces' && segments.length >= 3 && segments[2] === 'styles')
}

/** A folder holding catalog-owned folders: deleting it would delete them. */
function holdsOwned (segments: string[]): boolean {
  return segments.length === 0 || (segments[0] === 'workspaces' && segments.length <= 2)
}

const display = (segments: string[]) => '/' + segments.join('/')

/** Whether two stats name the same file (a copy or move onto itself). */
const sameFile = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino

/** Whether `p` is `dir` or inside it. */
const isUnder = (dir: string, p: string) => { const rel = path.relative(dir, p); return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel)) }

export function createResourceService ({ dataDir }: ResourceServiceDeps) {
  let realRoot: string | undefined
  const root = async () => (realRoot ??= await fs.realpath(dataDir))

  /** The segments of a real path under the data directory, or undefined when it is outside. */
  const realSegments = async (abs: string): Promise<string[] | undefined> => {
    const r = await root()
    const rel = path.relative(r, abs)
    if (rel === '') return []
    if (rel.startsWith('..') || path.isAbsolute(rel)) return undefined
    return rel.split(path.sep)
  }

  /**
   * Resolves an existing visible path to its file's stats; undefined when it does not exist, or
   * when it (or where its symlinks lead) is hidden or outside the data directory.
   */
  const locate = async (segments: string[]): Promise<{ abs: string, stat: Stats } | undefined> => {
    if (!isVisible(segments)) return undefined
    const abs = path.join(await root(), ...segments)
    let real: string
    try { real = await fs.realpath(abs) } catch { return undefined }
    const realSegs = await realSegments(real)
    if (realSegs === undefined || !isVisible(realSegs)) return undefined
    try { return { abs: real, stat: await fs.stat(real) } } catch { return undefined }
  }

  const infoOf = (segments: string[], stat: Stats): ResourceInfo => ({
    path: segments.join('/'),
    name: segments.length === 0 ? '' : segments[segments.length - 1],
    parent: segments.length === 0 ? undefined : segments.slice(0, -1).join('/'),
    kind: stat.isDirectory() ? 'directory' : 'resource',
    lastModified: stat.mtime,
    size: stat.size
  })

  const require = async (segments: string[]) => {
    const found = await locate(segments)
    if (!found || !(found.stat.isDirectory() || found.stat.isFile())) throw ResourceNotFound(display(segments))
    return found
  }

  /** Refuses a write or delete of a path the style catalog owns, naming where to make the change. */
  const refuseOwned = (segments: string[], verb: string) => {
    if (ownedByCatalog(segments)) {
      const ws = segments[0] === 'workspaces' ? segments[1] : undefined
      throw ResourceOwnedByCatalog(verb, display(segments), `style files belong to the style catalog; change them through /rest/${ws !== undefined ? `workspaces/${ws}/` : ''}styles, which also drops the tiles drawn with them`)
    }
  }

  /**
   * Where a PUT, copy or move writes `segments`: every existing ancestor a visible directory that
   * really is where it seems (a symlink may not carry the write elsewhere), never a style file, a
   * top-level area or a workspace's folder; `existing` is what is there now (a link: what it names).
   */
  const writableTarget = async (segments: string[]): Promise<{ target: string, existing?: Stats }> => {
    if (!isVisible(segments)) throw ResourceNotFound(display(segments))
    if (segments.length === 0) throw ResourceIsDirectory('/')
    // A top-level area and a workspace's folder are always directories (styles are written there).
    if (segments.length === 1 || (segments[0] === 'workspaces' && segments.length === 2)) throw ResourceIsDirectory(display(segments))
    refuseOwned(segments, 'write')
    const r = await root()
    let dir = r
    for (let i = 0; i < segments.length - 1; i++) {
      const next = path.join(dir, segments[i])
      let st: Stats
      try { st = await fs.lstat(next) } catch { break }
      if (st.isSymbolicLink()) {
        const real = await fs.realpath(next).catch(() => undefined)
        const realSegs = real === undefined ? undefined : await realSegments(real)
        if (realSegs === undefined || !isVisible(realSegs)) throw ResourceNotFound(display(segments))
        if (ownedByCatalog(realSegs)) refuseOwned(realSegs, 'write')
        st = await fs.stat(real!)
      }
      if (!st.isDirectory()) throw ResourceParentIsFile(display(segments), display(segments.slice(0, i + 1)))
      dir = next
    }
    const target = path.join(r, ...segments)
    let existing: Stats | undefined
    try { existing = await fs.lstat(target) } catch { existing = undefined }
    if (existing?.isSymbolicLink()) {
      // Writing through a link replaces the link itself (rename), never the file it points to.
      const found = await locate(segments)
      if (!found) throw ResourceNotFound(display(segments))
      const realSegs = (await realSegments(found.abs))!
      refuseOwned(realSegs, 'write')
      existing = found.stat
    }
    if (existing?.isDirectory()) throw ResourceIsDirectory(display(segments))
    return { target, existing }
  }

  /** The source path of a copy or move, sent as the body: GeoServer's form is '/mydir/myres'. */
  const sourceSegments = (body: string): string[] => {
    const text = body.trim()
    if (text === '') throw ResourcePathInvalid('""', 'the body names the source path of the copy or move (e.g. /templates/header.ftl)')
    return parseResourcePath(text)
  }

  /** The existing source file or directory (404 as GeoServer words it otherwise). */
  const requireSource = async (segments: string[], shown: string) => {
    const found = await locate(segments)
    if (!found || !(found.stat.isDirectory() || found.stat.isFile()) || segments.length === 0) throw ResourceSourceNotFound(JSON.stringify(shown.trim().slice(0, 200)))
    return found
  }

  /** The real path of the folder a target goes into (its nearest existing ancestor). */
  const realParent = async (target: string): Promise<string> => {
    let dir = path.dirname(target)
    for (;;) {
      try { return await fs.realpath(dir) } catch { dir = path.dirname(dir) }
    }
  }

  return {
    /** What a path is: its kind, parent, modification time and size. */
    async info (raw: string): Promise<ResourceInfo> {
      const segments = parseResourcePath(raw)
      return infoOf(segments, (await require(segments)).stat)
    },

    /** A directory's visible children, by name; a file answers ResourceNotFound's sibling: undefined. */
    async list (raw: string): Promise<{ info: ResourceInfo, children: ResourceChild[] }> {
      const segments = parseResourcePath(raw)
      const found = await require(segments)
      const info = infoOf(segments, found.stat)
      if (info.kind !== 'directory') return { info, children: [] }
      const names = (await fs.readdir(found.abs)).sort()
      const children: ResourceChild[] = []
      for (const name of names) {
        const child = await locate([...segments, name])
        if (child && (child.stat.isDirectory() || child.stat.isFile())) children.push({ name, kind: child.stat.isDirectory() ? 'directory' : 'resource' })
      }
      return { info, children }
    },

    /** A file's real location and stats, for the caller to stream; a directory is ResourceIsDirectory's caller's concern. */
    async open (raw: string): Promise<{ info: ResourceInfo, file: string }> {
      const segments = parseResourcePath(raw)
      const found = await require(segments)
      return { info: infoOf(segments, found.stat), file: found.abs }
    },

    /** Writes a file durably (temp + fsync + rename), creating its folders; `created` when it was new. */
    async write (raw: string, data: Uint8Array): Promise<{ created: boolean }> {
      const { target, existing } = await writableTarget(parseResourcePath(raw))
      await writeFileAtomic(target, data)
      return { created: existing === undefined }
    },

    /**
     * PUT ?operation=copy (GeoServer's ResourceController): the file at `source` is copied to `raw`
     * (temp + fsync + rename). The source may be any visible file, style files included (a read);
     * the target follows PUT's rules. A directory cannot be copied (405, as GeoServer).
     */
    async copy (raw: string, source: string): Promise<{ created: boolean }> {
      const from = sourceSegments(source)
      const to = parseResourcePath(raw)
      const found = await requireSource(from, source)
      if (found.stat.isDirectory()) throw ResourceCopyDirectory(display(from))
      const { target, existing } = await writableTarget(to)
      if (existing !== undefined && sameFile(existing, found.stat)) throw ResourceSamePath('copy', display(from), display(to))
      await copyFileAtomic(found.abs, target)
      return { created: existing === undefined }
    },

    /**
     * PUT ?operation=move: renames `source` (a file, or a directory with everything in it) to `raw`
     * in one rename, both folders fsynced. The source is deleted from where it was, so it follows
     * DELETE's rules (never a style file or a folder holding them); the target follows PUT's, and a
     * directory moves only to a path that does not exist yet, never into itself.
     */
    async move (raw: string, source: string): Promise<{ created: boolean }> {
      const from = sourceSegments(source)
      const to = parseResourcePath(raw)
      const found = await requireSource(from, source)
      if (holdsOwned(from)) throw ResourceOwnedByCatalog('move', display(from), 'it holds style folders the style catalog owns')
      refuseOwned(from, 'move')
      const { target, existing } = await writableTarget(to)
      const r = await root()
      const origin = path.join(r, ...from)
      // The link itself moves when the source is a symlink (as DELETE removes the link).
      const originReal = (await fs.lstat(origin)).isSymbolicLink() ? origin : found.abs
      if (path.resolve(originReal) === path.resolve(target) || (existing !== undefined && sameFile(existing, found.stat))) throw ResourceSamePath('move', display(from), display(to))
      if (found.stat.isDirectory()) {
        if (existing !== undefined) throw ResourceTargetExists(display(from), display(to))
        if (isUnder(found.abs, await realParent(target))) throw ResourceMoveIntoItself(display(from), display(to))
      }
      await fs.mkdir(path.dirname(target), { recursive: true })
      await fs.rename(origin, target)
      await fsyncDir(path.dirname(target))
      if (path.dirname(target) !== path.dirname(origin)) await fsyncDir(path.dirname(origin))
      return { created: existing === undefined }
    },

    /** For workspaces.onRemoved: whatever was put under workspaces/<ws>/ goes with the workspace. */
    async removeWorkspaceFolder (workspace: string): Promise<void> {
      const dir = within(dataDir, 'workspaces', workspace)
      await fs.rm(dir, { recursive: true, force: true })
    },

    /** Removes a file, or a directory and everything in it. */
    async remove (raw: string): Promise<void> {
      const segments = parseResourcePath(raw)
      const found = await require(segments)
      if (holdsOwned(segments)) throw ResourceOwnedByCatalog('delete', display(segments), 'it holds style folders the style catalog owns')
      refuseOwned(segments, 'delete')
      const target = path.join(await root(), ...segments)
      // A symlinked entry is removed as a link; what it points to stays.
      if (found.stat.isDirectory() && !(await fs.lstat(target)).isSymbolicLink()) await fs.rm(target, { recursive: true })
      else await fs.unlink(target)
      await fsyncDir(path.dirname(target))
    }
  }
}

export type ResourceService = ReturnType<typeof createResourceService>
