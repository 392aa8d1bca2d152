// One run of the clean-up task over every quota (GWC CacheCleanerTask): a job per layer with a
// quota of its own and one for the global quota (the other layers), each evicting pages by its
// policy (cache-cleaner.ts) until its usage is under the limit read at that moment.
import type { Scope } from './quota-store.js'
import type { QuotaConfig } from './quota-config.js'
import { createCacheCleaner, type ExpireResult, type Limit } from './cache-cleaner.js'
import { pageFiles } from './page-files.js'
import type { QuotaContext } from './quota-context.js'

export interface CleanUpRun { skipped: boolean, results: Array<ExpireResult & { quota: string }> }

interface Job { name: string, scope: Scope, layers: string[], limit: () => Limit }

export function cleanUpOperations (ctx: QuotaContext) {
  const { store, log, now, running } = ctx
  const busyLayers = new Set<string>()
  const cleaner = createCacheCleaner({ store, flush: (after) => ctx.flush(after), log, now, ...pageFiles(ctx) })

  async function jobs (c: QuotaConfig): Promise<Job[]> {
    const own = c.layerQuotas.map((q) => q.layer)
    const out = c.layerQuotas.map((q): Job => ({
      name: q.layer,
      scope: { layers: [q.layer] },
      layers: [q.layer],
      limit: (): Limit => {
        const config = ctx.config
        const lq = config.enabled ? config.layerQuotas.find((x) => x.layer === q.layer) : undefined
        return lq ? { limitBytes: lq.quotaBytes, policy: lq.expirationPolicyName } : { limitBytes: Infinity, policy: q.expirationPolicyName }
      }
    }))
    const shared = [...new Set((await store.tileSets()).map((s) => s.layer))].filter((l) => !own.includes(l))
    out.push({
      name: 'global',
      scope: { except: own },
      layers: shared,
      limit: (): Limit => ({ limitBytes: ctx.config.enabled ? ctx.config.globalQuotaBytes : Infinity, policy: ctx.config.globalExpirationPolicyName })
    })
    return out
  }

  /**
   * Settles the pages this instance truncated that have been quiet long enough (cache-cleaner.ts),
   * after a flush: every clean-up run does it first, and a cluster's node does it alone in the
   * rounds another node's clean-up runs.
   */
  async function settle (): Promise<void> {
    if (!ctx.config.enabled || ctx.signal.aborted || ctx.rebuilding) return
    await ctx.recorder.flush()
    await cleaner.settle(ctx.signal)
  }

  return {
    settle,

    /**
     * One run of the clean-up task: every quota whose layers are not being cleaned already, up to
     * maxConcurrentCleanUps at once; resolves when the jobs it started are done. Nothing is
     * evicted while the quota is disabled (accounting goes on).
     */
    async runCleanUp (): Promise<CleanUpRun> {
      const c = ctx.config
      if (!c.enabled || ctx.signal.aborted || ctx.rebuilding) return { skipped: true, results: [] }
      await settle()
      const started: Array<Promise<ExpireResult & { quota: string }>> = []
      const free = (job: { name: string, layers: string[] }) => !running.has(job.name) && !job.layers.some((l) => busyLayers.has(l))
      for (const job of await jobs(c)) {
        if (running.size >= c.maxConcurrentCleanUps) break
        if (!free(job)) continue
        if (await store.usedBytes(job.scope) <= job.limit().limitBytes) continue
        // Checked again: another run may have started this job while the usage was read.
        if (running.size >= c.maxConcurrentCleanUps || !free(job)) continue
        for (const l of job.layers) busyLayers.add(l)
        const p = cleaner.expire(job.name, job.scope, job.limit, ctx.signal)
          .then((r) => ({ ...r, quota: job.name }))
          .finally(() => { running.delete(job.name); for (const l of job.layers) busyLayers.delete(l) })
        running.set(job.name, p)
        started.push(p)
      }
      const results = await Promise.all(started)
      await store.setState('lastCleanUp', new Date(now()).toISOString())
      for (const r of results) {
        if (r.pages) log.info({ quota: r.quota, pages: r.pages, tiles: r.tiles, bytesBefore: r.bytesBefore, bytesAfter: r.bytesAfter, limitBytes: r.limitBytes }, 'disk quota: clean-up done')
      }
      return { skipped: false, results }
    }
  }
}
