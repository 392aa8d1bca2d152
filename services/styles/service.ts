// The style catalog: SLD files under dataDir/styles/ (global) and dataDir/workspaces/<ws>/styles/,
// one row per style in the StyleStore. Every change writes its new files first and then switches
// the catalog row in one unit of work: a crash
// leaves the old version or the new one, never a row without its file. Mutations run one at a
// time (a single queue), so two concurrent POSTs of one name give one 201 and one 403.
import fs from 'node:fs/promises'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import type { RasterStyle } from '../render/render-types.js'
import { withStaging, writeFileAtomic, within } from '../files/atomic.js'
import { checkName, MAX_FILE_NAME_BYTES } from '../files/names.js'
import type { ZipLimits } from '../files/zip.js'
import {
  InvalidStyleEntry, StyleExists, StyleHasNoContent, StyleInUse, StyleNotFound,
  StyleNotFoundInWorkspace, StyleResourceExists, StyleToDeleteNotFound, StyleWorkspaceNotFound
} from '../errors.js'
import { parseSld, rasterStyleOf } from './sld.js'
import { styleRef, type LayerRef, type StyleImage, type StyleRow, type StyleStore } from './store.js'
import { unpackStylePackage } from './package.js'
import { styleClash } from './store-rows.js'
import { checkFields, unchanged, unifyShape } from '../body-fields.js'
import { noFaults, type FaultPoint } from '../faults.js'
import type { StyleUse } from '../seed/tile-invalidation.js'

export type { StyleImage, StyleRow } from './store.js'
export { styleRef } from './store.js'

export interface StyleServiceDeps {
  store: StyleStore
  dataDir: string
  zipLimits: ZipLimits
  /** Crash-harness fault points (services/faults.ts). */
  fault?: FaultPoint
}

export interface EntryInput { name?: unknown, filename?: unknown, workspace?: unknown, format?: unknown, languageVersion?: unknown }

/** A style entry body in one shape (XML or JSON), its workspace as { name } either way. */
function entryShape (input: EntryInput): Record<string, unknown> {
  const b = unifyShape(input) as Record<string, unknown>
  return typeof b.workspace === 'string' && b.workspace !== '' ? { ...b, workspace: { name: b.workspace } } : b
}

/**
 * GeoServer's built-in default styles. Unless a style of that name was created, they name the
 * default rendering (the tile cache uses 'raster' for a raster layer without a default style).
 */
export const BUILT_IN = ['raster', 'point', 'line', 'polygon', 'generic']

/** The file that holds revision `rev` of a style: the client's filename first, then name~rev.sld. */
function fileForRevision (filename: string, rev: number): string {
  if (rev <= 1) return filename
  const ext = path.extname(filename)
  return `${filename.slice(0, filename.length - ext.length)}~${rev}${ext}`
}

function checkFilename (value: unknown): string {
  const filename = checkName(value, 'style file', MAX_FILE_NAME_BYTES)
  if (!/\.sld$/i.test(filename)) throw InvalidStyleEntry(`filename ${JSON.stringify(filename)} must end with .sld`)
  return filename
}

async function exists (p: string): Promise<boolean> {
  try { await fs.lstat(p); return true } catch { return false }
}

async function sameBytes (a: string, b: string): Promise<boolean> {
  const [sa, sb] = await Promise.all([fs.stat(a), fs.stat(b)])
  return sa.size === sb.size && (await fs.readFile(a)).equals(await fs.readFile(b))
}

/** The sub-folder of a style's files ('' for the style folder itself). */
const folderOf = (file: string | undefined) => file === undefined || !file.includes('/') ? '' : file.slice(0, file.lastIndexOf('/'))
const inFolder = (folder: string, name: string) => folder === '' ? name : `${folder}/${name}`

export function createStyleService ({ store, dataDir, zipLimits, fault = noFaults }: StyleServiceDeps) {
  const writeSld = (file: string, text: string | Uint8Array) => writeFileAtomic(file, text, (s) => fault(`style.${s}`))
  const compiled = new Map<string, RasterStyle | undefined>()
  let queue: Promise<unknown> = Promise.resolve()
  // Bumped after every change that can alter a list, so callers may cache rendered lists.
  let generation = 0
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn).finally(() => { generation++ })
    queue = run.catch(() => {})
    return run
  }

  /** Folder of a workspace's (or the global) styles; the workspace is known to exist. */
  const dirOf = (workspace?: string) => workspace === undefined
    ? path.join(dataDir, 'styles')
    : within(dataDir, 'workspaces', workspace, 'styles')

  const requireWorkspace = async (workspace?: string) => {
    if (workspace !== undefined && !(await store.workspaceExists(workspace))) throw StyleWorkspaceNotFound(workspace)
  }

  const get = async (workspace: string | undefined, name: string): Promise<StyleRow> => {
    await requireWorkspace(workspace)
    const s = await store.get(workspace, name)
    if (!s) throw workspace === undefined ? StyleNotFound(name) : StyleNotFoundInWorkspace(name, workspace)
    return s
  }

  /** GeoServer's resolution of a layer's style reference: 'ws:name', or a bare name in the layer's workspace, then global. */
  const resolve = async (workspace: string | undefined, ref: string): Promise<StyleRow | undefined> => {
    const i = ref.indexOf(':')
    if (i > 0) return await store.get(ref.slice(0, i), ref.slice(i + 1))
    return (workspace !== undefined ? await store.get(workspace, ref) : undefined) ?? await store.get(undefined, ref)
  }
  /** The references among `refs` that resolve to style `s` in the layer's workspace. */
  const refsTo = async (s: StyleRow, workspace: string, refs: Array<string | undefined>): Promise<Set<string>> => {
    const out = new Set<string>()
    for (const ref of refs) if (ref !== undefined && (await resolve(workspace, ref))?.id === s.id) out.add(ref)
    return out
  }

  /** Layers that use a style (their references resolve to it). */
  const usersOf = async (s: StyleRow): Promise<LayerRef[]> => {
    const users: LayerRef[] = []
    for (const l of await store.layersNaming(styleRef(s), s.name)) {
      if ((await refsTo(s, l.workspace, [l.defaultStyle, ...l.styles])).size > 0) users.push(l)
    }
    return users
  }

  // Told after a change of what a style draws or is called, with the layers that used it (the tile
  // cache drops the tile sets drawn with it).
  const changedHooks: Array<(uses: StyleUse[], reason: string) => Promise<void> | void> = []
  /** How each user layer named the style before a change (computed while the references still resolve). */
  const usesOf = async (s: StyleRow, users: LayerRef[]): Promise<StyleUse[]> => {
    const uses: StyleUse[] = []
    for (const l of users) uses.push({ layer: `${l.workspace}:${l.name}`, defaultStyle: l.defaultStyle, refs: [...await refsTo(s, l.workspace, [l.defaultStyle, ...l.styles])] })
    return uses
  }
  // Awaited before the change is answered: what the listeners record (stale tile marks) is in force
  // by then, on every instance of a shared database too.
  const changed = async (uses: StyleUse[], reason: string) => {
    if (uses.length === 0) return
    for (const hook of changedHooks) { try { await hook(uses, reason) } catch { /* a listener never undoes a committed change */ } }
  }

  /** The layers with their references to a style rewritten (rename, move, detach), matched while
   *  they still resolve to the old name and place. */
  const rewriteRefs = async (users: LayerRef[], s: StyleRow, to: string | undefined): Promise<LayerRef[]> => {
    const out: LayerRef[] = []
    for (const l of users) {
      const hits = await refsTo(s, l.workspace, [l.defaultStyle, ...l.styles])
      const styles = l.styles.flatMap((ref) => hits.has(ref) ? (to === undefined ? [] : [to]) : [ref])
      out.push({ ...l, defaultStyle: l.defaultStyle !== undefined && hits.has(l.defaultStyle) ? to : l.defaultStyle, styles })
    }
    return out
  }

  // Names that differ only in case are the same style: their files would be one file on a
  // case-insensitive file system (macOS, Windows volumes, some NAS shares).
  const checkNewName = async (workspace: string | undefined, name: string, filename: string) => {
    const clash = styleClash({ name, filename }, await store.getFolded(workspace, name), await store.byFilenameFolded(workspace, filename))
    if (clash) throw clash
  }

  /**
   * Where a package's files go. Images sit next to the SLD under the names it uses, so its relative
   * xlink:href keeps naming them (GeoServer's layout); one file holding identical bytes serves every
   * style that uses it. When a name is taken by other bytes that another style uses (icon names such
   * as arrow.png are common to many packages), the style gets a sub-folder of its own for its SLD
   * and images, where its hrefs resolve to its own bytes. `s` is the style being replaced.
   */
  const placeImages = async (workspace: string | undefined, dir: string, stage: string, images: string[], s?: StyleRow): Promise<{ folder: string, placed: StyleImage[] }> => {
    let folder = folderOf(s?.file)
    if (folder === '') {
      for (const name of images) {
        const flat = within(dir, name)
        if (!(await exists(flat)) || await sameBytes(flat, path.join(stage, name))) continue
        if ((await store.imageUsers(workspace, name)).every((id) => id === s?.id)) continue // its own: replaced in place
        folder = `packages/${randomUUID()}`
        break
      }
    }
    return { folder, placed: images.map((name) => ({ name, file: inFolder(folder, name) })) }
  }

  /** Moves staged images into place; a file already holding the same bytes is left as it is. */
  const moveImages = async (stage: string, dir: string, placed: StyleImage[]) => {
    for (const img of placed) {
      const from = path.join(stage, img.name)
      const to = within(dir, img.file)
      if (await exists(to) && await sameBytes(to, from)) continue
      await fs.mkdir(path.dirname(to), { recursive: true })
      const fh = await fs.open(from, 'r')
      try { await fh.sync() } finally { await fh.close() }
      await fs.rename(from, to)
    }
  }

  /** Copies files of a style to another folder (a move between workspaces, a switch to a sub-folder). */
  const copyFiles = async (from: string, to: string, files: Array<[string, string]>) => {
    for (const [src, dst] of files) {
      if (await exists(within(from, src))) await writeFileAtomic(within(to, dst), await fs.readFile(within(from, src)))
    }
  }

  /**
   * Settles recorded intents: a file no style points to is removed (or kept as .bak for a DELETE
   * without purge); a file a style points to stays. Used at start and when a change fails midway.
   */
  const settle = async (ids?: number[]): Promise<number> => {
    let cleaned = 0
    for (const i of await store.intents()) {
      if (ids && !ids.includes(i.id)) continue
      if (i.workspace !== undefined && !(await store.workspaceExists(i.workspace))) { await store.clearIntents([i.id]); continue }
      if (!(await store.referenced(i.workspace, i.file))) {
        let p: string | undefined
        try { p = within(dirOf(i.workspace), i.file) } catch { p = undefined }
        if (p && await exists(p)) {
          if (i.backupTo) await fs.rename(p, within(dirOf(i.workspace), i.backupTo)).catch(() => {})
          else await fs.rm(p, { force: true })
          if (folderOf(i.file) !== '') await fs.rmdir(path.dirname(p)).catch(() => {}) // a style's own sub-folder, once empty
          cleaned++
        }
      }
      await store.clearIntents([i.id])
    }
    return cleaned
  }
  /** Runs the writes of a change; when they fail, the files it recorded and wrote go again. */
  const undoOnFailure = async <T>(ids: number[], fn: () => Promise<T>): Promise<T> => {
    try { return await fn() } catch (err) {
      await settle(ids).catch(() => {})
      throw err
    }
  }

  const readText = async (s: StyleRow): Promise<string> => {
    if (!s.file) throw StyleHasNoContent(s.name)
    try {
      return await fs.readFile(within(dirOf(s.workspace), s.file), 'utf8')
    } catch (err) {
      // Removed by hand from the data directory: the entry has no content again.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw StyleHasNoContent(s.name)
      throw err
    }
  }

  /** Creates a style from SLD text and staged images; everything is validated before the first write. */
  const create = async (workspace: string | undefined, sld: string, opts: { name?: string, stage?: string, images?: string[] }) => {
    await requireWorkspace(workspace)
    const parsed = await parseSld(sld)
    const name = checkName(opts.name ?? parsed.styleName ?? `style-${randomUUID().slice(0, 7)}`, 'style')
    const filename = checkFilename(`${name}.sld`)
    const images = opts.images ?? []
    return serial(async () => {
      await checkNewName(workspace, name, filename)
      const dir = dirOf(workspace)
      if (await exists(path.join(dir, filename))) throw StyleResourceExists(filename)
      const { folder, placed } = opts.stage ? await placeImages(workspace, dir, opts.stage, images) : { folder: '', placed: [] }
      const file = inFolder(folder, filename)
      const intents = await store.addIntents(workspace, [...placed.map((i) => i.file), file])
      await undoOnFailure(intents, async () => {
        if (opts.stage) await moveImages(opts.stage, dir, placed)
        fault('style.afterImages')
        await writeSld(within(dir, file), sld)
        await store.insert({ workspace, name, format: 'sld', languageVersion: parsed.version, filename, file, revision: 1, images: placed }, intents)
      })
      fault('style.afterRow')
      return (await store.get(workspace, name))!
    })
  }

  /** Writes a new revision of a style's SLD, then switches the catalog pointer to it. */
  const replace = async (workspace: string | undefined, name: string, sld: string, pkg?: { stage: string, images: string[] }) => {
    await get(workspace, name)
    const parsed = await parseSld(sld)
    return serial(async () => {
      const s = await get(workspace, name) // again: it may have changed while we waited
      const dir = dirOf(workspace)
      const revision = s.revision + 1
      const { folder, placed } = pkg ? await placeImages(workspace, dir, pkg.stage, pkg.images, s) : { folder: folderOf(s.file), placed: [] }
      const file = inFolder(folder, fileForRevision(s.filename, revision))
      // Images the package does not carry stay; in a new sub-folder they are copied next to the SLD.
      const moved = folder !== folderOf(s.file)
      const kept = s.images.filter((i) => !placed.some((p) => p.name === i.name))
        .map((i) => moved ? { name: i.name, file: inFolder(folder, i.name), from: i.file } : { ...i, from: i.file })
      const images = [...kept.map(({ name, file }) => ({ name, file })), ...placed]
      // Images the style alone uses are replaced in place (each old or new); new files and the new
      // revision are recorded first, so a crash before the switch leaves no file nobody owns.
      const uses = await usesOf(s, await usersOf(s))
      const had = new Set(s.images.map((i) => i.file))
      const intents = await store.addIntents(workspace, [...images.map((i) => i.file).filter((f) => !had.has(f)), file])
      const stale = [s.file, ...s.images.map((i) => i.file)].filter((f): f is string => f !== undefined && f !== file && !images.some((i) => i.file === f))
      const staleIntents = await undoOnFailure(intents, async () => {
        if (moved) await copyFiles(dir, dir, kept.map((i) => [i.from, i.file]))
        if (pkg) await moveImages(pkg.stage, dir, placed)
        fault('style.afterImages')
        await writeSld(within(dir, file), sld)
        return await store.update({ ...s, file, revision, languageVersion: parsed.version, images }, { settled: intents, stale: { workspace, files: stale } })
      })
      fault('style.afterRow')
      await changed(uses, `style ${styleRef(s)} changed`)
      await settle(staleIntents) // files no style points to any more (a shared image stays)
      return (await store.get(workspace, name))!
    })
  }

  const withPackage = async <T>(zipPath: string, fn: (sld: string, stage: string, images: string[]) => Promise<T>): Promise<T> => {
    return withStaging(dataDir, 'style', async (stage) => {
      const pkg = await unpackStylePackage(zipPath, stage, zipLimits)
      return await fn(pkg.sld, stage, pkg.images)
    })
  }

  return {
    /** Registers a listener for changes of styles that layers use (after each commit). */
    onChanged (hook: (uses: StyleUse[], reason: string) => Promise<void> | void): void { changedHooks.push(hook) },
    /** Changes whenever a style is created, changed or removed. */
    generation: () => generation,
    /** Names of the global styles (no workspace) or of one workspace's styles, sorted. */
    async list (workspace?: string): Promise<string[]> {
      await requireWorkspace(workspace)
      return await store.names(workspace)
    },
    get,
    /** Like get, but undefined for an unknown style (an unknown workspace still throws). */
    async find (workspace: string | undefined, name: string): Promise<StyleRow | undefined> {
      await requireWorkspace(workspace)
      return await store.get(workspace, name)
    },
    resolve,
    usersOf,
    /** The files of a style's package (GET .zip): its SLD and its images under the names the SLD uses. */
    async packageFiles (workspace: string | undefined, name: string): Promise<Array<{ name: string, path: string }>> {
      const s = await get(workspace, name)
      if (!s.file) throw StyleHasNoContent(s.name)
      const dir = dirOf(workspace)
      return [{ name: s.filename, path: within(dir, s.file) }, ...s.images.map((i) => ({ name: i.name, path: within(dir, i.file) }))]
    },
    /** The SLD text of a style. */
    async sld (workspace: string | undefined, name: string): Promise<string> {
      return await readText(await get(workspace, name))
    },

    /** POST of a catalog entry: the row only; the content follows by PUT (two-step create). */
    async createEntry (workspace: string | undefined, input: EntryInput): Promise<StyleRow> {
      await requireWorkspace(workspace)
      // Each field is applied or refused by name (issue 16); the workspace is the path's.
      checkFields(entryShape(input), 'style', ['name', 'filename', 'format', 'languageVersion'], { workspace: workspace === undefined ? undefined : { name: workspace } })
      const name = checkName(input.name, 'style')
      if (input.format !== undefined && input.format !== 'sld') throw InvalidStyleEntry(`format ${JSON.stringify(input.format)} is not supported; only sld`)
      const filename = checkFilename(input.filename === undefined || input.filename === '' ? `${name}.sld` : input.filename)
      return serial(async () => {
        await checkNewName(workspace, name, filename)
        // A file of that name already in the folder is adopted, as GeoServer links an entry to its
        // file; it must be a valid SLD.
        const onDisk = path.join(dirOf(workspace), filename)
        let languageVersion = '1.0.0'
        let file: string | undefined
        let revision = 0
        if (await exists(onDisk)) {
          languageVersion = (await parseSld(await fs.readFile(onDisk, 'utf8'))).version
          file = filename
          revision = 1
        }
        // The SLD version comes from the file (1.0.0 for an entry without one yet).
        unchanged(entryShape(input).languageVersion, { version: languageVersion }, 'languageVersion', 'style')
        await store.insert({ workspace, name, format: 'sld', languageVersion, filename, file, revision, images: [] })
        return (await store.get(workspace, name))!
      })
    },

    /** POST of an SLD body: name from ?name, else the first UserStyle's Name, else generated. */
    createFromSld: (workspace: string | undefined, sld: string, name?: string) => create(workspace, sld, { name }),

    /** POST of a ZIP package: one SLD and the images it references, created in one step. */
    async createFromZip (workspace: string | undefined, zipPath: string, name?: string): Promise<StyleRow> {
      await requireWorkspace(workspace)
      if (name !== undefined) checkName(name, 'style')
      return await withPackage(zipPath, (sld, stage, images) => create(workspace, sld, { name, stage, images }))
    },

    /** PUT of an SLD body: a new revision of the content. */
    replaceSld: (workspace: string | undefined, name: string, sld: string) => replace(workspace, name, sld),

    /** PUT of a ZIP package: new SLD, images added or overwritten next to it. */
    async replaceZip (workspace: string | undefined, name: string, zipPath: string): Promise<StyleRow> {
      await get(workspace, name)
      return await withPackage(zipPath, (sld, stage, images) => replace(workspace, name, sld, { stage, images }))
    },

    /** PUT of a catalog entry: rename, new filename, or a move to another workspace ('' = global). */
    async updateEntry (workspace: string | undefined, name: string, input: EntryInput): Promise<StyleRow> {
      const current = await get(workspace, name)
      // Format and version follow the SLD content (PUT the SLD to change them); each other field is applied.
      checkFields(entryShape(input), 'style', ['name', 'workspace', 'filename'], { format: current.format, languageVersion: { version: current.languageVersion } })
      return serial(async () => {
        const s = await get(workspace, name)
        let target = s.workspace
        if (input.workspace !== undefined) {
          const w = typeof input.workspace === 'object' && input.workspace !== null ? (input.workspace as { name?: unknown }).name : input.workspace
          if (w === '' || w === null || w === undefined) target = undefined
          else if (typeof w !== 'string') throw InvalidStyleEntry('workspace must be a workspace name')
          else { await requireWorkspace(w); target = w }
        }
        const newName = input.name === undefined ? s.name : checkName(input.name, 'style')
        const moving = target !== s.workspace
        const filename = input.filename === undefined || input.filename === '' ? s.filename : checkFilename(input.filename)
        const other = await store.getFolded(target, newName)
        if (other && other.id !== s.id) throw StyleExists(newName)
        const owner = await store.byFilenameFolded(target, filename)
        if (owner && owner.id !== s.id) throw StyleResourceExists(filename)
        const users = await usersOf(s)
        const uses = await usesOf(s, users)
        const [from, to] = [dirOf(s.workspace), dirOf(target)]
        let file = s.file
        let revision = s.revision
        let intents: number[] = []
        if (s.file && (moving || filename !== s.filename)) {
          // New files in the target folder first; the old ones go after the switch.
          revision = Math.max(1, s.revision) + (moving ? 0 : 1)
          file = moving ? s.file : inFolder(folderOf(s.file), fileForRevision(filename, revision))
          if (moving) {
            if (await exists(within(to, s.file))) throw StyleResourceExists(s.file)
            // An image file of the same name in the target folder must hold the same bytes.
            for (const img of s.images) {
              const there = within(to, img.file)
              if (await exists(there) && await exists(within(from, img.file)) && !(await sameBytes(there, within(from, img.file)))) throw StyleResourceExists(img.file)
            }
          }
          intents = await store.addIntents(target, [file!, ...(moving ? s.images.map((i) => i.file) : [])])
          await writeSld(within(to, file!), await fs.readFile(within(from, s.file)))
          if (moving) await copyFiles(from, to, s.images.map((i) => [i.file, i.file]))
        }
        const next: StyleRow = { ...s, workspace: target, name: newName, filename, file, revision }
        const dropOld = !!s.file && (file !== s.file || moving)
        const layers = moving || newName !== s.name ? await rewriteRefs(users, s, styleRef(next)) : []
        const staleIntents = await store.update(next, {
          layers,
          settled: intents,
          ...(dropOld ? { stale: { workspace: s.workspace, files: [s.file!, ...(moving ? s.images.map((i) => i.file) : [])] } } : {})
        })
        fault('style.afterRow')
        if (moving || newName !== s.name) await changed(uses, `style ${styleRef(s)} renamed to ${styleRef(next)}`)
        await settle(staleIntents) // what no style of the old folder points to any more
        return (await store.get(target, newName))!
      })
    },

    /**
     * DELETE: without purge the SLD is kept as <filename>.bak (as GeoServer); with purge it and the
     * images the style owns are deleted. A style that layers use needs recurse, which detaches it.
     */
    async remove (workspace: string | undefined, name: string, { purge = false, recurse = false } = {}): Promise<void> {
      await requireWorkspace(workspace)
      return serial(async () => {
        const s = await store.get(workspace, name)
        if (!s) throw StyleToDeleteNotFound(name)
        const users = await usersOf(s)
        if (users.length > 0 && !recurse) throw StyleInUse()
        const uses = await usesOf(s, users)
        const stale = !s.file ? undefined
          : purge ? { workspace, files: [s.file, ...s.images.map((i) => i.file)] } : { workspace, files: [s.file], backupTo: `${s.filename}.bak` }
        const intents = await store.remove(s.id, { layers: await rewriteRefs(users, s, undefined), ...(stale ? { stale } : {}) })
        await changed(uses, `style ${styleRef(s)} deleted`)
        // Removes (or keeps as .bak) what no other style points to: an image another style uses stays.
        await settle(intents)
      })
    },

    /**
     * The RasterSymbolizer of a style compiled for the renderer, or undefined when the style has
     * none (the default raster rendering applies). `styleName` is 'ws:name' or a bare name,
     * resolved in `workspace` first and then among the global styles, as GeoServer does.
     */
    async rasterStyleFor (workspace: string | undefined, styleName: string): Promise<RasterStyle | undefined> {
      if (styleName === '') return undefined
      const s = await resolve(workspace, styleName)
      if (!s && BUILT_IN.includes(styleName)) return undefined
      if (!s) throw StyleNotFound(styleName)
      if (!s.file) return undefined
      const key = `${s.id}:${s.revision}`
      if (compiled.has(key)) return compiled.get(key)
      const style = rasterStyleOf(await parseSld(await readText(s)))
      if (compiled.size >= 1000) compiled.clear()
      compiled.set(key, style)
      return style
    },

    /** Another instance changed styles (a shared database): lists cached by generation are stale. */
    changedElsewhere (): void { generation++ },

    /** For app.workspaces.onRemoved: the workspace's rows went with it (FK cascade); its folder goes now. */
    async removeWorkspaceFiles (workspace: string): Promise<void> {
      generation++
      await fs.rm(within(dataDir, 'workspaces', workspace, 'styles'), { recursive: true, force: true })
    },

    /**
     * Start-up: finishes what a crash interrupted. Every recorded intent whose file no style points
     * to is removed (or kept as .bak for a DELETE without purge); files a style points to stay.
     * Returns how many files were cleaned.
     */
    reconcile: () => settle(),

    /** Where a workspace's (or the global) style files live. */
    folder: dirOf
  }
}
export type StyleService = ReturnType<typeof createStyleService>
