// What an operator watches (GET {base}/metrics, Prometheus text format): the only module that
// imports prom-client. Each app instance owns a Registry of its own (two apps in one process never
// share a series). The default Node.js and process metrics (event-loop lag, heap, GC, CPU, open
// file descriptors) describe the process, whichever app asks: they are collected once per process
// into a registry of ours (not prom-client's global one, which a host may use), because
// collectDefaultMetrics starts an event-loop delay monitor and a GC observer that nothing can stop
// again; one per app would pile up with every app a process builds and closes (the tests build
// hundreds). The services report through the plain callbacks below, wired in create-services.ts;
// gauges are read from the services at scrape time. Series are per process: Prometheus's
// `instance` label tells the nodes of a cluster apart. Names follow
// https://prometheus.io/docs/practices/naming/ (base units, _total for counters).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { RenderPriority } from './render/render-queue.js'
import type { TaskState } from './seed/task.js'
import type { PoolStats } from './storage/stores.js'

/** The protocol a tile (or map) was asked through. */
export type TileService = 'wmts' | 'tms' | 'xyz' | 'wms-c' | 'wms'
/** hit/miss as geowebcache-cache-result says; placeholder: a cached-only layer's blank stand-in;
 *  uncached: a WMS map drawn without the tile cache. */
export type CacheResult = 'hit' | 'miss' | 'placeholder' | 'uncached'

export interface MetricSources {
  /** Renders in the pool and waiting in each lane of the render queue. */
  renderQueue (): { running: number, interactive: number, seed: number }
  /** Seed tasks on record by state (finished ones are kept an hour, at most 1000). */
  taskStates (): Promise<Record<TaskState, number>>
  /** Bytes used by each disk quota (the global one and each layer's), as last accounted. */
  diskQuotaUsed (): Promise<Array<{ quota: string, usedBytes: number }>>
  /** The quotas' limits and whether they are enforced, from the configuration in force. */
  diskQuotaLimits (): { enabled: boolean, limits: Array<{ quota: string, limitBytes: number }> }
  /** PostgreSQL connection pools; absent on SQLite (one in-process connection: nothing to wait for). */
  dbPools?: () => PoolStats[]
}

interface Log { warn: (obj: object, msg: string) => void }

type Labels = Record<string, string>
type Reading = Array<[Labels, number]>

let processRegistry: Registry | undefined
/** The default metrics of this process, collected from the first call on. */
function processMetrics (): Registry {
  if (!processRegistry) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry })
  }
  return processRegistry
}

export function createMetrics ({ log }: { log: Log }) {
  const registry = new Registry()
  const registers = [registry]
  const shared = processMetrics()

  const tileRequests = new Counter({
    name: 'mapwarden_tile_requests_total',
    help: 'Tiles (and WMS maps) served, by service and cache result',
    labelNames: ['service', 'result'] as const,
    registers
  })
  const tilesRendered = new Counter({
    name: 'mapwarden_tiles_rendered_total',
    help: 'Tiles this process rendered and wrote to the tile cache, by kind (on_demand: a request missed the cache; seed: seed and reseed tasks)',
    labelNames: ['kind'] as const,
    registers
  })
  const renderWait = new Histogram({
    name: 'mapwarden_render_queue_wait_seconds',
    help: 'Time a render waited in the render queue for a render thread, by priority (interactive: on-demand tiles and WMS maps)',
    labelNames: ['priority'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers
  })
  const renderRefused = new Counter({
    name: 'mapwarden_render_queue_refused_total',
    help: 'On-demand renders refused with 503 because the interactive render queue was full (MAPWARDEN_TILE_QUEUE)',
    registers
  })
  const metatileWaits = new Counter({
    name: 'mapwarden_metatile_waits_total',
    help: 'On-demand renders that found their metatile being rendered by another instance (several on one database) or a seed, by outcome (waited: waited for it; timed_out: drawn here without its lock after MAPWARDEN_METATILE_WAIT)',
    labelNames: ['outcome'] as const,
    registers
  })
  const collectFailures = new Counter({
    name: 'mapwarden_metrics_collect_failures_total',
    help: 'Scrape-time reads that failed (the database away...); their series are left out of that scrape',
    labelNames: ['metric'] as const,
    registers
  })

  /**
   * A gauge read at scrape time. A read that fails is logged and counted, and the gauge is left
   * out of this scrape (no stale value), so the rest of the scrape still answers. The reads run
   * before the registry writes anything (not in prom-client's `collect`, which the registry runs
   * beside the other metrics' reads), so this scrape's failures are in this scrape's count.
   */
  const reads: Array<() => Promise<void>> = []
  function gauge (name: string, help: string, labelNames: string[], read: () => Reading | Promise<Reading>) {
    const g = new Gauge({ name, help, labelNames, registers })
    reads.push(async () => {
      try {
        const values = await read()
        g.reset()
        for (const [labels, value] of values) g.set(labels, value)
      } catch (err) {
        g.reset()
        collectFailures.inc({ metric: name })
        log.warn({ err, metric: name }, 'metrics: could not read a gauge; left out of this scrape')
      }
    })
  }

  return {
    /** The Content-Type of `render()`: text/plain; version=0.0.4. */
    contentType: registry.contentType,
    /** This app's series, then the process's (each registry's text ends with a newline). */
    async render (): Promise<string> {
      await Promise.all(reads.map((read) => read()))
      return await registry.metrics() + await shared.metrics()
    },

    tileServed (service: TileService, result: CacheResult) { tileRequests.inc({ service, result }) },
    tilesRendered (priority: RenderPriority, tiles: number) { if (tiles > 0) tilesRendered.inc({ kind: priority === 'interactive' ? 'on_demand' : 'seed' }, tiles) },
    renderWaited (priority: RenderPriority, seconds: number) { renderWait.observe({ priority }, seconds) },
    renderRefused () { renderRefused.inc() },
    metatileWait (event: 'waited' | 'timedOut') { metatileWaits.inc({ outcome: event === 'waited' ? 'waited' : 'timed_out' }) },

    /** The gauges, read from the services at every scrape (once they are built). */
    readFrom (sources: MetricSources) {
      gauge('mapwarden_render_queue_depth', 'Renders waiting for a render thread, by priority', ['priority'], () => {
        const s = sources.renderQueue()
        return [[{ priority: 'interactive' }, s.interactive], [{ priority: 'seed' }, s.seed]]
      })
      gauge('mapwarden_render_running', 'Renders handed to the render threads', [], () => [[{}, sources.renderQueue().running]])
      gauge('mapwarden_seed_tasks', 'Seed, reseed and truncate tasks on record, by state (done and aborted ones are kept an hour, at most 1000)', ['state'],
        async () => Object.entries(await sources.taskStates()).map(([state, n]) => [{ state }, n]))
      gauge('mapwarden_diskquota_used_bytes', 'Bytes of tiles counted against each disk quota (global: layers without a quota of their own), as last accounted (at most a second behind)', ['quota'],
        async () => (await sources.diskQuotaUsed()).map((q) => [{ quota: q.quota }, q.usedBytes]))
      gauge('mapwarden_diskquota_limit_bytes', 'Limit of each disk quota, in bytes (enforced while mapwarden_diskquota_enabled is 1)', ['quota'],
        () => sources.diskQuotaLimits().limits.map((q) => [{ quota: q.quota }, q.limitBytes]))
      gauge('mapwarden_diskquota_enabled', '1 while the disk quota is enforced, 0 while it only accounts', [], () => [[{}, sources.diskQuotaLimits().enabled ? 1 : 0]])
      const pools = sources.dbPools
      if (pools) {
        gauge('mapwarden_db_pool_connections', 'PostgreSQL connections of each pool, in use or idle', ['pool', 'state'],
          () => pools().flatMap((p): Reading => [[{ pool: p.pool, state: 'in_use' }, p.total - p.idle], [{ pool: p.pool, state: 'idle' }, p.idle]]))
        gauge('mapwarden_db_pool_waiting', 'Queries waiting for a connection of each PostgreSQL pool', ['pool'],
          () => pools().map((p): [Labels, number] => [{ pool: p.pool }, p.waiting]))
      }
    }
  }
}

export type Metrics = ReturnType<typeof createMetrics>
