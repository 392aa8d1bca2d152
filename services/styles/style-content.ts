// A style's content: POST and PUT of an SLD body or of a ZIP package (one SLD and the images it
// references). Every change writes its new files first and then switches the catalog row in one
// unit of work: a crash leaves the old version or the new one, never a row without its file.
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { withStaging, within } from '../files/atomic.js'
import { checkName } from '../files/names.js'
import { StyleExists, StyleResourceExists } from '../errors.js'
import { isBuiltIn } from './built-in.js'
import { parseSld } from './sld.js'
import { vectorStyleOf } from './vector-sld.js'
import { styleRef, type StyleImage, type StyleRow } from './store.js'
import { unpackStylePackage } from './package.js'
import { checkStyleGraphics } from './style-graphics.js'
import { checkFilename, copyFiles, exists, fileForRevision, folderOf, inFolder, moveImages, sameBytes } from './style-files.js'
import type { StyleContext } from './style-context.js'

/**
 * The SLD read and checked: its ExternalGraphics (a remote or out-of-folder href) and its vector
 * symbolizers too (an unknown function, a vendor option not applied, a mark not drawn is a 400
 * when the style is saved, not a blank map later).
 */
async function checkedSld (sld: string): Promise<Awaited<ReturnType<typeof parseSld>>> {
  const parsed = await parseSld(sld)
  checkStyleGraphics(parsed.root)
  if (/<(?:[\w.-]+:)?(?:Point|Line|Polygon|Text)Symbolizer\b/.test(sld)) await vectorStyleOf(sld, undefined, { every: true })
  return parsed
}

export function styleContent (ctx: StyleContext) {
  const { store, fault, get, requireWorkspace, serial, dirOf, settle, undoOnFailure, writeSld } = ctx

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

  /** Creates a style from SLD text and staged images; everything is validated before the first write. */
  const create = async (workspace: string | undefined, sld: string, opts: { name?: string, filename?: string, stage?: string, images?: string[] }) => {
    await requireWorkspace(workspace)
    const parsed = await checkedSld(sld)
    const name = checkName(opts.name ?? parsed.styleName ?? `style-${randomUUID().slice(0, 7)}`, 'style')
    const filename = checkFilename(opts.filename ?? `${name}.sld`)
    const images = opts.images ?? []
    return serial(async () => {
      await ctx.checkNewName(workspace, name, filename)
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

  /**
   * PUT of a built-in style that has no row yet (GeoServer lets an administrator replace a default
   * style's SLD): its first row, under GeoServer's file name default_<name>.sld, takes the built-in's
   * place from then on; the layers using it draw with it, so their tile sets drawn with it go.
   * A PUT that raced it to the row finds one and is a new revision of it.
   */
  const replaceBuiltIn = async (name: string, sld: string, pkg?: { stage: string, images: string[] }) => {
    let s: StyleRow
    try {
      s = await create(undefined, sld, { name, filename: `default_${name}.sld`, ...pkg })
    } catch (err) {
      if ((err as { code?: string }).code === StyleExists.code) return await replace(undefined, name, sld, pkg)
      throw err
    }
    await ctx.changed(await ctx.usesOf(s, await ctx.usersOf(s)), `default style ${name} replaced`)
    return s
  }

  /** Writes a new revision of a style's SLD, then switches the catalog pointer to it. */
  const replace = async (workspace: string | undefined, name: string, sld: string, pkg?: { stage: string, images: string[] }): Promise<StyleRow> => {
    if (isBuiltIn(workspace, name) && !(await store.get(workspace, name))) return await replaceBuiltIn(name, sld, pkg)
    await get(workspace, name)
    const parsed = await checkedSld(sld)
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
      const uses = await ctx.usesOf(s, await ctx.usersOf(s))
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
      await ctx.changed(uses, `style ${styleRef(s)} changed`)
      await settle(staleIntents) // files no style points to any more (a shared image stays)
      return (await store.get(workspace, name))!
    })
  }

  const withPackage = async <T>(zipPath: string, fn: (sld: string, stage: string, images: string[]) => Promise<T>): Promise<T> => {
    return withStaging(ctx.dataDir, 'style', async (stage) => {
      const pkg = await unpackStylePackage(zipPath, stage, ctx.zipLimits)
      return await fn(pkg.sld, stage, pkg.images)
    })
  }

  return {
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
      if (!isBuiltIn(workspace, name)) await get(workspace, name)
      return await withPackage(zipPath, (sld, stage, images) => replace(workspace, name, sld, { stage, images }))
    }
  }
}
