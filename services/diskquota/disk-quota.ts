// The disk quota service (GWC DiskQuotaMonitor), assembled from its parts by job: usage, its
// rebuild from disk and its reports (quota-usage.ts), and one clean-up run over every quota
// (clean-up.ts, evicting through cache-cleaner.ts and page-files.ts). The parts share one context
// (quota-context.ts): the configuration in force, the accounting recorder and the rebuild. When
// runs happen is scheduler.ts, wired with the service in services/create-services.ts.
import { applyPartial, fromStored, type QuotaConfig } from './quota-config.js'
import { createQuotaContext, type DiskQuotaDeps } from './quota-context.js'
import { cleanUpOperations } from './clean-up.js'
import { usageOperations } from './quota-usage.js'

export type { DiskQuotaDeps, Logger } from './quota-context.js'
export type { CleanUpRun } from './clean-up.js'

export async function createDiskQuota (deps: DiskQuotaDeps) {
  const ctx = await createQuotaContext(deps)
  const { store } = ctx
  return {
    recorder: ctx.recorder,
    get config (): QuotaConfig { return ctx.config },
    onChange (fn: (c: QuotaConfig) => void) { ctx.changeListeners.push(fn) },

    /** Another instance changed the configuration (a shared database): apply the stored one. */
    reload: (): Promise<QuotaConfig> => ctx.serial(async () => {
      // The instance that changed it recounts usage if the block size changed (one shared store).
      ctx.install(fromStored(await store.readConfig()))
      return ctx.config
    }),

    /** Partial update: validated whole, then persisted, then applied; concurrent PUTs queue. */
    update: (body: Record<string, unknown>): Promise<QuotaConfig> => ctx.serial(async () => {
      const next = await applyPartial(ctx.config, body, { layerExists: deps.layerExists })
      ctx.fault('quota.beforeConfigWrite')
      await store.writeConfig(JSON.stringify(next))
      ctx.fault('quota.afterConfigWrite')
      // Recorded sizes are rounded to the old block size: count again from the files.
      if (ctx.install(next)) void ctx.startRebuild()
      return next
    }),

    ...usageOperations(ctx),
    ...cleanUpOperations(ctx),

    async close () {
      ctx.abort()
      await Promise.allSettled([...ctx.running.values(), ctx.rebuilding])
      await ctx.idle()
      await ctx.recorder.close()
      // Tile usage lost (the database away too long) leaves the run unclean: SQLite rebuilds at the next start.
      if (ctx.recorder.lost() === 0) await store.setState('open', '0')
    }
  }
}

export type DiskQuota = Awaited<ReturnType<typeof createDiskQuota>>
