// The style catalog: SLD files under dataDir/styles/ (global) and dataDir/workspaces/<ws>/styles/,
// one row per style in the StyleStore. The service is assembled from its parts by job: reads and
// the renderer's compiled styles (style-reads.ts), content by SLD or ZIP (style-content.ts) and
// catalog entries (style-entries.ts). The parts share one context (style-context.ts): the store,
// the single queue every change runs in, and the listeners told which layers a change affects.
import fs from 'node:fs/promises'
import { within } from '../files/atomic.js'
import { createStyleContext, type ChangedHook, type StyleServiceDeps } from './style-context.js'
import { styleReads } from './style-reads.js'
import { styleContent } from './style-content.js'
import { styleEntries } from './style-entries.js'

export type { StyleImage, StyleRow } from './store.js'
export { styleRef } from './store.js'
export type { StyleServiceDeps } from './style-context.js'
export type { EntryInput } from './style-entries.js'
export { BUILT_IN } from './built-in.js'

export function createStyleService (deps: StyleServiceDeps) {
  const ctx = createStyleContext(deps)
  return {
    /** Registers a listener for changes of styles that layers use (after each commit). */
    onChanged (hook: ChangedHook): void { ctx.changedHooks.push(hook) },
    /** Changes whenever a style is created, changed or removed. */
    generation: ctx.generation,
    ...styleReads(ctx),
    ...styleContent(ctx),
    ...styleEntries(ctx),

    /** Another instance changed styles (a shared database): lists cached by generation are stale. */
    changedElsewhere (): void { ctx.bumpGeneration() },

    /** For app.workspaces.onRemoved: the workspace's rows went with it (FK cascade); its folder goes now. */
    async removeWorkspaceFiles (workspace: string): Promise<void> {
      ctx.bumpGeneration()
      await fs.rm(within(deps.dataDir, 'workspaces', workspace, 'styles'), { recursive: true, force: true })
    },

    /**
     * Start-up: finishes what a crash interrupted. Every recorded intent whose file no style points
     * to is removed (or kept as .bak for a DELETE without purge); files a style points to stay.
     * Returns how many files were cleaned.
     */
    reconcile: () => ctx.settle()
  }
}
export type StyleService = ReturnType<typeof createStyleService>
