// The start's check that the index, the catalog and the files agree after a crash: interrupted
// replaces are undone, recorded purges finished, store folders the catalog does not know removed,
// and index rows of granule files that are gone dropped.
import fs from 'node:fs'
import path from 'node:path'
import { renameDurable } from '../files/atomic.js'
import { isUnder, removeFiles } from './mosaic-files.js'
import type { MosaicContext } from './mosaic-context.js'

/** Returns how many index rows it removed. */
export async function reconcile (ctx: MosaicContext): Promise<number> {
  const { store, dataDir, deps } = ctx
  let removed = 0
  // 1. Replaces a crash interrupted: the new index was not committed, so the old store returns.
  for (const r of await store.openReplaces()) {
    const final = ctx.storeDir(r.workspace, r.store)
    const aside = ctx.asideDir(r.workspace, r.store)
    if (fs.existsSync(aside)) {
      await fs.promises.rm(final, { recursive: true, force: true })
      await renameDurable(aside, final)
    } else if (!r.hadOld) await fs.promises.rm(final, { recursive: true, force: true })
    await store.endReplace(r.workspace, r.store)
    deps.log?.warn({ workspace: r.workspace, store: r.store }, 'undid a mosaic replace interrupted by a crash')
  }
  // Committed replaces whose old folder was not removed yet.
  await fs.promises.rm(path.join(dataDir, 'aside'), { recursive: true, force: true })
  // 2. Purges recorded with their row deletions.
  const purges = await store.pendingPurges()
  for (const p of purges) await removeFiles([p.path], p.purge, p.dir, deps.harvestRoots, deps.log)
  if (purges.length) await store.purgesDone(purges[0].id, purges[purges.length - 1].id)
  // 3. Store folders without a store row (a crash between a delete's transaction and its rm,
  //    or a workspace removed with recurse): nothing refers to them.
  const dataRoot = path.join(dataDir, 'data')
  for (const ws of await fs.promises.readdir(dataRoot, { withFileTypes: true }).catch(() => [] as fs.Dirent[])) {
    if (!ws.isDirectory()) continue
    const wsDir = path.join(dataRoot, ws.name)
    for (const st of await fs.promises.readdir(wsDir, { withFileTypes: true }).catch(() => [] as fs.Dirent[])) {
      if (!st.isDirectory() || (await store.store(ws.name, st.name))) continue
      await fs.promises.rm(path.join(wsDir, st.name), { recursive: true, force: true })
      deps.log?.warn({ workspace: ws.name, store: st.name }, 'removed a store folder the catalog does not know')
    }
    await fs.promises.rmdir(wsDir).catch(() => {}) // only when empty
  }
  // 4. Granules whose file inside the mosaic folder is gone lose their index row.
  for (const { workspace, store: name } of await store.listMosaics()) {
    const mosaic = (await store.getMosaic(workspace, name))!
    const missing: number[] = []
    for (const g of await store.query(workspace, name)) {
      if (isUnder(mosaic.dir, g.path) && !fs.existsSync(g.path)) missing.push(g.seq)
    }
    if (missing.length === 0) continue
    await store.removeGranules(workspace, name, { seqs: missing })
    deps.log?.warn({ workspace, store: name, granules: missing.length }, 'removed index rows of granule files that are missing')
    removed += missing.length
  }
  return removed
}
