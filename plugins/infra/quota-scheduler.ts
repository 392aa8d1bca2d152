// The disk quota service and its clean-up scheduler: runs every cacheCleanUpFrequency
// cacheCleanUpUnits (re-read before each wait, so a PUT applies from the next run), evicts only
// while enabled, and stops in onClose (after the tile cache's preClose, before the database closes)
// with a last accounting flush.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { MapwardenConfig } from './config.js'
import { createSqliteQuotaStore } from '../../services/diskquota/sqlite-quota-store.js'
import { createDiskQuota, type DiskQuota } from '../../services/diskquota/disk-quota.js'
import { periodMs } from '../../services/diskquota/quota-config.js'
import { createCleanupScheduler } from '../../services/diskquota/scheduler.js'
import { splitLayerName } from '../../services/catalog/layers.js'
import { gridSet, gridSubset } from '../../services/seed/grid-sets.js'

declare module 'fastify' {
  interface FastifyInstance {
    diskQuota: DiskQuota
  }
}

export interface QuotaSchedulerOptions {
  config: MapwardenConfig
  /** Accounting flush period in ms (default 1000). */
  flushMs?: number
  /** Test hook: no timer at all; runs happen through `app.diskQuota.runCleanUp()`. */
  manual?: boolean
}

async function quotaScheduler (app: FastifyInstance, opts: QuotaSchedulerOptions) {
  const dq = createDiskQuota({
    store: createSqliteQuotaStore(app.db),
    blobStore: app.tileCache.store,
    flushMs: opts.flushMs ?? 1000,
    log: app.log,
    fault: app.faults,
    async layerExists (name) {
      const p = splitLayerName(name)
      return !!p && !!(await app.layers.get(p.workspace, p.name))
    },
    async coverage (layer, gridSetId, z) {
      const gs = gridSet(gridSetId)
      const p = splitLayerName(layer)
      if (!gs || !p) return undefined
      const info = await app.layers.get(p.workspace, p.name)
      return gridSubset(gs, info?.bbox).coverage(z)
    }
  })
  app.decorate('diskQuota', dq)
  app.workspaces.onRemoved((ws) => dq.forgetWorkspace(ws))
  app.layers.onRemoved((layer) => dq.forgetLayer(layer))

  const scheduler = createCleanupScheduler({
    periodMs: () => periodMs(dq.config),
    run: () => dq.runCleanUp().catch((err) => app.log.warn({ err }, 'disk quota: clean-up failed'))
  })
  dq.onChange(() => scheduler.reschedule())
  if (!opts.manual) scheduler.start()

  dq.start()
  app.addHook('onClose', async () => {
    scheduler.stop()
    await dq.close()
  })
}

export default fp(quotaScheduler, { name: 'quota-scheduler' })
