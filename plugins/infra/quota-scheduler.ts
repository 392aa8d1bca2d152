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

const MIN_PERIOD_MS = 100
const MAX_TIMER_MS = 2 ** 31 - 1

async function quotaScheduler (app: FastifyInstance, opts: QuotaSchedulerOptions) {
  const dq = createDiskQuota({
    store: createSqliteQuotaStore(app.db),
    blobStore: app.tileCache.store,
    flushMs: opts.flushMs ?? 1000,
    log: app.log,
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

  let timer: NodeJS.Timeout | undefined
  let closed = false
  let dueAt = 0
  function schedule () {
    if (closed || opts.manual) return
    clearTimeout(timer)
    const wait = Math.max(MIN_PERIOD_MS, Math.min(MAX_TIMER_MS, dueAt - Date.now()))
    timer = setTimeout(tick, wait)
    timer.unref()
  }
  function tick () {
    if (Date.now() < dueAt) return schedule() // periods longer than a timer can wait
    dueAt = Date.now() + Math.max(MIN_PERIOD_MS, periodMs(dq.config))
    schedule()
    dq.runCleanUp().catch((err) => app.log.warn({ err }, 'disk quota: clean-up failed'))
  }
  dueAt = Date.now() + Math.max(MIN_PERIOD_MS, periodMs(dq.config))
  schedule()

  dq.start()
  app.addHook('onClose', async () => {
    closed = true
    clearTimeout(timer)
    await dq.close()
  })
}

export default fp(quotaScheduler, { name: 'quota-scheduler' })
