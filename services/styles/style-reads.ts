// Reading the catalog: style lists and rows, a style's SLD and package files, and the compiled
// RasterSymbolizer the renderer asks for on every tile (kept per style revision).
import path from 'node:path'
import { within } from '../files/atomic.js'
import type { RasterStyle } from '../render/render-types.js'
import { StyleHasNoContent, StyleNotFound } from '../errors.js'
import { parseSld, rasterStyleOf } from './sld.js'
import { vectorStyleOf } from './vector-sld.js'
import { embedGraphics } from './style-graphics.js'
import { folderOf } from './style-files.js'
import { BUILT_IN_VECTOR_STYLES, type VectorStyle } from '../render/vector/vector-style.js'
import type { StyleRow } from './store.js'
import type { StyleContext } from './style-context.js'
import { BUILT_IN, builtInRow, builtInSld, isBuiltIn } from './built-in.js'

export function styleReads (ctx: StyleContext) {
  const { store, get, resolve, requireWorkspace, readText, dirOf } = ctx
  const compiled = new Map<string, RasterStyle | undefined>()
  const compiledVector = new Map<string, VectorStyle>()

  return {
    /** Names of the global styles (no workspace: with the built-in ones) or of one workspace's styles, sorted. */
    async list (workspace?: string): Promise<string[]> {
      await requireWorkspace(workspace)
      const names = await store.names(workspace)
      if (workspace !== undefined) return names
      const own = new Set(names)
      return [...names, ...BUILT_IN.filter((n) => !own.has(n))].sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
    },
    /** A style's row; a built-in style without a row of its own: its entry. */
    async get (workspace: string | undefined, name: string): Promise<StyleRow> {
      try { return await get(workspace, name) } catch (err) {
        if ((err as { code?: string }).code === StyleNotFound.code && isBuiltIn(workspace, name)) return builtInRow(name)
        throw err
      }
    },
    /** Like get, but undefined for an unknown style (an unknown workspace still throws). */
    async find (workspace: string | undefined, name: string): Promise<StyleRow | undefined> {
      await requireWorkspace(workspace)
      return await store.get(workspace, name) ?? (isBuiltIn(workspace, name) ? builtInRow(name) : undefined)
    },
    resolve,
    usersOf: ctx.usersOf,
    /** The files of a style's package (GET .zip): its SLD and its images under the names the SLD uses. */
    async packageFiles (workspace: string | undefined, name: string): Promise<Array<{ name: string, path: string }>> {
      const s = await get(workspace, name)
      if (!s.file) throw StyleHasNoContent(s.name)
      const dir = dirOf(workspace)
      return [{ name: s.filename, path: within(dir, s.file) }, ...s.images.map((i) => ({ name: i.name, path: within(dir, i.file) }))]
    },
    /** The SLD text of a style. */
    async sld (workspace: string | undefined, name: string): Promise<string> {
      try { return await readText(await get(workspace, name)) } catch (err) {
        const text = (err as { code?: string }).code === StyleNotFound.code && isBuiltIn(workspace, name) ? builtInSld(name) : undefined
        if (text === undefined) throw err
        return text
      }
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

    /**
     * The vector symbolizers of a style compiled for the renderer (rules, filters, scales), resolved
     * as rasterStyleFor; '' and the built-in names without a style of theirs are GeoServer's
     * default point, line, polygon and generic styles.
     */
    async vectorStyleFor (workspace: string | undefined, styleName: string): Promise<VectorStyle> {
      if (styleName === '') return BUILT_IN_VECTOR_STYLES.generic
      const s = await resolve(workspace, styleName)
      if (!s && BUILT_IN_VECTOR_STYLES[styleName]) return BUILT_IN_VECTOR_STYLES[styleName]
      if (!s) throw StyleNotFound(styleName)
      if (!s.file) return BUILT_IN_VECTOR_STYLES.generic
      const key = `${s.id}:${s.revision}`
      const had = compiledVector.get(key)
      if (had) return had
      // Its images embedded, read from the style's own folder (a package's sub-folder when it has one).
      const style = await embedGraphics(await vectorStyleOf(await readText(s)), path.join(dirOf(s.workspace), folderOf(s.file)))
      if (compiledVector.size >= 1000) compiledVector.clear()
      compiledVector.set(key, style)
      return style
    },

    /** Where a workspace's (or the global) style files live. */
    folder: dirOf
  }
}
