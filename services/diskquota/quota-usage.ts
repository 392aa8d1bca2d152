// What the quota knows of the cache's usage: the start (and the rebuild from the files on disk
// when the store cannot be trusted), the usage report and the per-quota figures of the metrics,
// and forgetting the usage of a removed layer or workspace.
import type { QuotaContext } from './quota-context.js'

export function usageOperations (ctx: QuotaContext) {
  const { store, recorder } = ctx

  return {
    /**
     * Usage starts from the files on disk when the usage store is new or was lost, or when the
     * last run did not close (kill -9, power loss): its last flush window never reached the store.
     * On a shared database (`crashed` known) only a node starting alone rebuilds, when an
     * instance died since the last such start: while other instances write, a rebuild would count
     * their writes twice.
     */
    async start ({ alone = true, crashed }: { alone?: boolean, crashed?: boolean } = {}) {
      const unclean = crashed ?? await store.getState('open') === '1'
      await store.setState('open', '1')
      if (alone && (await store.getState('usageBuiltAt') === undefined || unclean)) void ctx.startRebuild()
    },
    rebuild: () => ctx.startRebuild(),
    rebuildProgress: () => ({ ...ctx.rebuild }),
    /** Every tile event so far is in the store (after the rebuild in progress, if any). */
    flush: () => ctx.flush(),

    async usage () {
      await recorder.flush()
      const c = ctx.config
      const sets = await store.tileSets()
      const own = c.layerQuotas.map((q) => q.layer)
      return {
        config: c,
        usedBytes: sets.reduce((n, s) => n + s.bytes, 0),
        globalUsedBytes: await store.usedBytes({ except: own }),
        tileSets: sets,
        lastCleanUp: await store.getState('lastCleanUp'),
        rebuild: { ...ctx.rebuild }
      }
    },

    /** Bytes used by each quota (global: the layers without one of their own) as last flushed, at
     *  most flushMs behind; no flush, so a scrape never writes (metrics). */
    async usedByQuota (): Promise<Array<{ quota: string, usedBytes: number }>> {
      const own = ctx.config.layerQuotas.map((q) => q.layer)
      const out = [{ quota: 'global', usedBytes: await store.usedBytes({ except: own }) }]
      for (const layer of own) out.push({ quota: layer, usedBytes: await store.usedBytes({ layers: [layer] }) })
      return out
    },

    // Events the flush kept (the database away) go with the usage they would have added to.
    forgetWorkspace: async (ws: string) => {
      await recorder.flush(async () => { await store.forgetWorkspace(ws); recorder.discard((e) => e.layer.startsWith(`${ws}:`)) })
    },
    forgetLayer: async (layer: string) => {
      await recorder.flush(async () => { await store.forgetLayer(layer); recorder.discard((e) => e.layer === layer) })
    }
  }
}
