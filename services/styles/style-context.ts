// What the parts of the style service share: the store and the folders, the one queue every
// change runs in (so two concurrent POSTs of one name give one 201 and one 403), the lookups that
// turn a missing workspace or style into its error, the listeners told which layers a change
// affects, and the settling of recorded file intents.
import fs from 'node:fs/promises'
import path from 'node:path'
import { writeFileAtomic, within } from '../files/atomic.js'
import type { ZipLimits } from '../files/zip.js'
import { StyleHasNoContent, StyleNotFound, StyleNotFoundInWorkspace, StyleWorkspaceNotFound } from '../errors.js'
import { noFaults, type FaultPoint } from '../faults.js'
import type { StyleUse } from '../tilecache/tile-invalidation.js'
import type { StyleRow, StyleStore } from './store.js'
import { styleClash } from './store-rows.js'
import { styleReferences } from './style-refs.js'
import { exists, folderOf } from './style-files.js'

export interface StyleServiceDeps {
  store: StyleStore
  dataDir: string
  zipLimits: ZipLimits
  /** Crash-harness fault points (services/faults.ts). */
  fault?: FaultPoint
}

export type ChangedHook = (uses: StyleUse[], reason: string) => Promise<void> | void

export type StyleContext = ReturnType<typeof createStyleContext>

export function createStyleContext ({ store, dataDir, zipLimits, fault = noFaults }: StyleServiceDeps) {
  let queue: Promise<unknown> = Promise.resolve()
  // Bumped after every change that can alter a list, so callers may cache rendered lists.
  let generation = 0
  // Told after a change of what a style draws or is called, with the layers that used it (the tile
  // cache drops the tile sets drawn with it).
  const changedHooks: ChangedHook[] = []

  /** Folder of a workspace's (or the global) styles; the workspace is known to exist. */
  const dirOf = (workspace?: string) => workspace === undefined
    ? path.join(dataDir, 'styles')
    : within(dataDir, 'workspaces', workspace, 'styles')

  const requireWorkspace = async (workspace?: string) => {
    if (workspace !== undefined && !(await store.workspaceExists(workspace))) throw StyleWorkspaceNotFound(workspace)
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

  return {
    store,
    dataDir,
    zipLimits,
    fault,
    changedHooks,
    ...styleReferences(store),
    dirOf,
    requireWorkspace,
    settle,
    generation: () => generation,
    bumpGeneration () { generation++ },
    writeSld: (file: string, text: string | Uint8Array) => writeFileAtomic(file, text, (s) => fault(`style.${s}`)),

    /** Runs a change after the ones before it; lists change with it. */
    serial<T> (fn: () => Promise<T>): Promise<T> {
      const run = queue.then(fn, fn).finally(() => { generation++ })
      queue = run.catch(() => {})
      return run
    },

    async get (workspace: string | undefined, name: string): Promise<StyleRow> {
      await requireWorkspace(workspace)
      const s = await store.get(workspace, name)
      if (!s) throw workspace === undefined ? StyleNotFound(name) : StyleNotFoundInWorkspace(name, workspace)
      return s
    },

    // Awaited before the change is answered: what the listeners record (stale tile marks) is in force
    // by then, on every instance of a shared database too.
    // Told also when no layer uses the style: a layer group may draw with it (tilecache/group-tiles.ts).
    async changed (uses: StyleUse[], reason: string) {
      for (const hook of changedHooks) { try { await hook(uses, reason) } catch { /* a listener never undoes a committed change */ } }
    },

    // Names that differ only in case are the same style: their files would be one file on a
    // case-insensitive file system (macOS, Windows volumes, some NAS shares).
    async checkNewName (workspace: string | undefined, name: string, filename: string) {
      const clash = styleClash({ name, filename }, await store.getFolded(workspace, name), await store.byFilenameFolded(workspace, filename))
      if (clash) throw clash
    },

    /** Runs the writes of a change; when they fail, the files it recorded and wrote go again. */
    async undoOnFailure<T> (ids: number[], fn: () => Promise<T>): Promise<T> {
      try { return await fn() } catch (err) {
        await settle(ids).catch(() => {})
        throw err
      }
    },

    async readText (s: StyleRow): Promise<string> {
      if (!s.file) throw StyleHasNoContent(s.name)
      try {
        return await fs.readFile(within(dirOf(s.workspace), s.file), 'utf8')
      } catch (err) {
        // Removed by hand from the data directory: the entry has no content again.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw StyleHasNoContent(s.name)
        throw err
      }
    }
  }
}
