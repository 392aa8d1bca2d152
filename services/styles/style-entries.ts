// A style's catalog entry: the two-step create (POST the entry, then PUT its content), the edit
// that renames it, gives it a new file name or moves it to another workspace (rewriting the layer
// references to it), and DELETE. Each field of a body is applied or refused by name (issue 16).
import fs from 'node:fs/promises'
import path from 'node:path'
import { within } from '../files/atomic.js'
import { checkName } from '../files/names.js'
import { DefaultStyleNotDeletable, InvalidStyleEntry, StyleExists, StyleInUse, StyleResourceExists, StyleToDeleteNotFound } from '../errors.js'
import { builtInRow, isBuiltIn } from './built-in.js'
import { checkFields, unchanged, unifyShape } from '../body-fields.js'
import { parseSld } from './sld.js'
import { checkStyleGraphics } from './style-graphics.js'
import { styleRef, type StyleRow } from './store.js'
import { checkFilename, copyFiles, exists, fileForRevision, folderOf, inFolder, sameBytes } from './style-files.js'
import type { StyleContext } from './style-context.js'

export interface EntryInput { name?: unknown, filename?: unknown, workspace?: unknown, format?: unknown, languageVersion?: unknown }

/** A style entry body in one shape (XML or JSON), its workspace as { name } either way. */
function entryShape (input: EntryInput): Record<string, unknown> {
  const b = unifyShape(input) as Record<string, unknown>
  return typeof b.workspace === 'string' && b.workspace !== '' ? { ...b, workspace: { name: b.workspace } } : b
}

export function styleEntries (ctx: StyleContext) {
  const { store, fault, get, requireWorkspace, serial, dirOf, settle, usersOf, usesOf, rewriteRefs, changed } = ctx

  return {
    /** POST of a catalog entry: the row only; the content follows by PUT (two-step create). */
    async createEntry (workspace: string | undefined, input: EntryInput): Promise<StyleRow> {
      await requireWorkspace(workspace)
      // The workspace is the path's.
      checkFields(entryShape(input), 'style', ['name', 'filename', 'format', 'languageVersion'], { workspace: workspace === undefined ? undefined : { name: workspace } })
      const name = checkName(input.name, 'style')
      if (input.format !== undefined && input.format !== 'sld') throw InvalidStyleEntry(`format ${JSON.stringify(input.format)} is not supported; only sld`)
      const filename = checkFilename(input.filename === undefined || input.filename === '' ? `${name}.sld` : input.filename)
      return serial(async () => {
        await ctx.checkNewName(workspace, name, filename)
        // A file of that name already in the folder is adopted, as GeoServer links an entry to its
        // file; it must be a valid SLD.
        const onDisk = path.join(dirOf(workspace), filename)
        let languageVersion = '1.0.0'
        let file: string | undefined
        let revision = 0
        if (await exists(onDisk)) {
          const parsed = await parseSld(await fs.readFile(onDisk, 'utf8'))
          checkStyleGraphics(parsed.root)
          languageVersion = parsed.version
          file = filename
          revision = 1
        }
        // The SLD version comes from the file (1.0.0 for an entry without one yet).
        unchanged(entryShape(input).languageVersion, { version: languageVersion }, 'languageVersion', 'style')
        await store.insert({ workspace, name, format: 'sld', languageVersion, filename, file, revision, images: [] })
        return (await store.get(workspace, name))!
      })
    },

    /** PUT of a catalog entry: rename, new filename, or a move to another workspace ('' = global). */
    async updateEntry (workspace: string | undefined, name: string, input: EntryInput): Promise<StyleRow> {
      const builtIn = isBuiltIn(workspace, name)
      const current = builtIn ? await store.get(workspace, name) ?? builtInRow(name) : await get(workspace, name)
      // Format and version follow the SLD content (PUT the SLD to change them); each other field is applied.
      const b = entryShape(input)
      checkFields(b, 'style', ['name', 'workspace', 'filename'], { format: current.format, languageVersion: { version: current.languageVersion } })
      if (builtIn) {
        // GeoServer's catalog validation of a default style, with or without an SLD of its own.
        if (b.name !== undefined && b.name !== name) throw InvalidStyleEntry('Cannot rename default styles')
        const w = b.workspace
        if (w !== undefined && w !== null && w !== '' && (w as { name?: unknown }).name !== undefined && (w as { name?: unknown }).name !== '') throw InvalidStyleEntry('Cannot change the workspace of default styles')
        if (current.id === 0) {
          // No row: the built-in's SLD is no file to point elsewhere; its SLD replaced by PUT has one.
          if (b.filename !== undefined && b.filename !== '' && b.filename !== current.filename) {
            throw InvalidStyleEntry(`filename of default style ${name} is ${current.filename} until its SLD is replaced (PUT the SLD to .../styles/${name})`)
          }
          return current
        }
      }
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
          await ctx.writeSld(within(to, file!), await fs.readFile(within(from, s.file)))
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
      // GeoServer's catalog refuses to remove its default styles (a global style of their names).
      if (isBuiltIn(workspace, name)) throw DefaultStyleNotDeletable()
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
    }
  }
}
