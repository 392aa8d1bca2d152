// The last step of every upload that creates or replaces a coverage store's folder (a mosaic ZIP,
// a GeoTIFF): the staged folder takes the place of <dataDir>/data/<ws>/<store>, the old one waits
// aside, and the catalog and index change in one unit of work. A failure before the commit puts
// the old folder back; a crash is undone at the next start (recovery.ts, the replace record).
import fs from 'node:fs'
import { fsyncTree, renameDurable } from '../files/atomic.js'
import type { MosaicContext } from './mosaic-context.js'
import type { UploadCommit } from './store.js'

export interface Install extends UploadCommit {
  /** The staged folder, moved to the store's folder (ctx.storeDir; empty for a store that reads
   *  its files in place). */
  root: string
  /** Whether the store existed before: its layers' cached tiles are dropped once committed. */
  existed?: boolean
}

/** Installs the staged folder and commits; returns the coverages configured. */
export async function installStore (ctx: MosaicContext, ws: string, name: string, { root, existed, ...commit }: Install): Promise<string[]> {
  const { store, fault } = ctx
  const final = ctx.storeDir(ws, name)
  await fsyncTree(root)
  fault('mosaic.afterStage')
  const old = ctx.asideDir(ws, name)
  const hadOld = fs.existsSync(final)
  await fs.promises.rm(old, { recursive: true, force: true })
  await store.beginReplace(ws, name, hadOld)
  if (hadOld) await renameDurable(final, old)
  fault('mosaic.afterAside')
  await renameDurable(root, final)
  fault('mosaic.afterFileBeforeIndex')
  let configured: string[]
  try {
    configured = await store.commitUpload(ws, name, commit)
  } catch (err) {
    await fs.promises.rm(final, { recursive: true, force: true })
    if (hadOld) await renameDurable(old, final)
    await store.endReplace(ws, name)
    throw err
  }
  fault('mosaic.afterIndex')
  if (hadOld || existed) await ctx.dataChanged(commit.record, undefined, `store ${ws}:${name} replaced`)
  await fs.promises.rm(old, { recursive: true, force: true })
  return configured
}

/** GeoServer's url of a file or folder under the store's folder: file:data/<ws>/<store>[/<file>]. */
export function dataUrl (ws: string, name: string, file?: string): string {
  return `file:data/${ws}/${name}${file !== undefined ? '/' + file : ''}`.replace(/\+/g, '%2B').replace(/ /g, '%20')
}
