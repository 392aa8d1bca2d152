// The disk quota service: the configuration (read, partial update validated whole, persisted
// before it is returned), the accounting recorder, usage reports, the rebuild from disk and one
// clean-up run over every quota (GWC DiskQuotaMonitor + CacheCleanerTask). When runs happen is
// scheduler.ts, wired with the service in services/create-services.ts.
import fs from 'node:fs'
import path from 'node:path'
import type { BlobStore, TileKey } from '../seed/blob-store.js'
import type { Rect } from '../seed/grid-sets.js'
import type { PageRef, QuotaStore, Scope } from './quota-store.js'
import { applyPartial, fromStored, type QuotaConfig, type ParseContext } from './quota-config.js'
import { createUsageRecorder } from './usage-recorder.js'
import { createCacheCleaner, type ExpireResult, type Limit } from './cache-cleaner.js'
import { noFaults, type FaultPoint } from '../faults.js'
import { rebuildUsage, type RebuildProgress } from './rebuild.js'
import { blockRound } from './tile-page.js'

/** Tile positions unlinked or looked at synchronously between two turns of the event loop (about a millisecond). */
const UNLINK_SLICE = 64

export interface Logger { info: (obj: object, msg: string) => void, warn: (obj: object, msg: string) => void }

export interface DiskQuotaDeps {
  store: QuotaStore
  blobStore: Pick<BlobStore, 'root' | 'tilePath' | 'truncate' | 'onTileWritten' | 'onTileDeleted' | 'onTileRead'>
  coverage: (layer: string, gridSet: string, z: number) => Promise<Rect | undefined>
  layerExists: ParseContext['layerExists']
  now?: () => number
  /** Accounting flush period; 0 = only explicit flushes (tests). */
  flushMs?: number
  log: Logger
  /** Crash-harness fault points (services/faults.ts). */
  fault?: FaultPoint
}

export interface CleanUpRun { skipped: boolean, results: Array<ExpireResult & { quota: string }> }

export async function createDiskQuota (deps: DiskQuotaDeps) {
  const { store, log } = deps
  const now = deps.now ?? Date.now
  let config: QuotaConfig = fromStored(await store.readConfig())
  let updating: Promise<unknown> = Promise.resolve()
  const abort = new AbortController()
  const running = new Map<string, Promise<unknown>>() // quota name -> job
  const busyLayers = new Set<string>()
  const rebuild: RebuildProgress = { state: 'idle', filesScanned: 0, bytesScanned: 0 }
  let rebuilding: Promise<void> | undefined
  const changeListeners: Array<(c: QuotaConfig) => void> = []
  /** Puts a configuration in force; true when its block size differs from the one before. */
  const install = (next: QuotaConfig): boolean => {
    const blockChanged = next.diskBlockSize !== config.diskBlockSize
    config = next
    for (const fn of changeListeners) fn(next)
    return blockChanged
  }

  const recorder = createUsageRecorder({ store, coverage: deps.coverage, blockSize: () => config.diskBlockSize, now, flushMs: deps.flushMs, log, fault: deps.fault })
  deps.blobStore.onTileWritten(recorder.written)
  deps.blobStore.onTileDeleted(recorder.deleted)
  deps.blobStore.onTileRead(recorder.read)

  const cleaner = createCacheCleaner({
    store,
    /** Every tile event so far is in the store (after the rebuild in progress, if any). */
    async flush (after) {
      if (rebuilding) await rebuilding
      await recorder.flush(after)
    },
    log,
    truncatePage: (page, rect) => truncatePage(page, rect),
    scanPage: (page, rect) => scanPage(page, rect),
    now
  })

  /**
   * Deletes a page's tiles. A page that is mostly full is unlinked tile by tile, synchronously in
   * short slices (no directory listing, no stat, no thread-pool round trip: as fast as `rm`); its
   * accounting is settled by markTruncated, which zeroes the page. A sparse page (pages are large
   * at deep levels) is truncated through the blob store, which walks only what exists.
   */
  async function truncatePage (page: PageRef, rect: Rect): Promise<number> {
    const area = (rect[2] - rect[0] + 1) * (rect[3] - rect[1] + 1)
    if (area > Math.max(4096, 8 * page.tiles)) {
      return deps.blobStore.truncate({
        layer: page.layer, gridSet: page.gridSet, formats: [page.format], parameterId: page.parameterId,
        zoomStart: page.z, zoomStop: page.z, rectAt: () => rect, signal: abort.signal
      })
    }
    let n = 0
    await eachPosition(page, rect, (file) => {
      try { fs.unlinkSync(file); n++ } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      }
    }, (dir) => {
      // An emptied column directory goes too, as the blob store's truncate does (it recreates
      // a directory that vanished under a write).
      try { fs.rmdirSync(dir) } catch { /* not empty, or gone */ }
    })
    return n
  }

  /** The page's tiles on disk, counted position by position (the cleaner settles a truncated page with it). */
  async function scanPage (page: PageRef, rect: Rect): Promise<{ tiles: number, bytes: number }> {
    let tiles = 0
    let bytes = 0
    await eachPosition(page, rect, (file) => {
      const st = fs.statSync(file, { throwIfNoEntry: false })
      if (st) { tiles++; bytes += blockRound(st.size, config.diskBlockSize) }
    })
    return { tiles, bytes }
  }

  /**
   * Calls `tile` with the path of every tile position of a page's rectangle, synchronously in short
   * slices (no directory listing, no thread-pool round trip), and `column` with each column's folder.
   */
  async function eachPosition (page: PageRef, rect: Rect, tile: (file: string) => void, column: (dir: string) => void = () => {}): Promise<void> {
    let slice = 0
    const key: TileKey = { layer: page.layer, gridSet: page.gridSet, format: page.format, parameterId: page.parameterId, z: page.z, x: 0, y: 0 }
    for (let x = rect[0]; x <= rect[2]; x++) {
      for (let y = rect[1]; y <= rect[3]; y++) {
        key.x = x
        key.y = y
        tile(deps.blobStore.tilePath(key))
        if (++slice === UNLINK_SLICE) { slice = 0; await new Promise((resolve) => setImmediate(resolve)) }
      }
      column(path.dirname(deps.blobStore.tilePath(key)))
    }
  }

  /**
   * Settles the pages this instance truncated that have been quiet long enough (cache-cleaner.ts),
   * after a flush: every clean-up run does it first, and a cluster's node does it alone in the
   * rounds another node's clean-up runs.
   */
  async function settle (): Promise<void> {
    if (!config.enabled || abort.signal.aborted || rebuilding) return
    await recorder.flush()
    await cleaner.settle(abort.signal)
  }

  function startRebuild (): Promise<void> {
    rebuilding ??= rebuildUsage({ root: deps.blobStore.root, store, recorder, now, progress: rebuild, signal: abort.signal })
      .then(() => log.info({ files: rebuild.filesScanned, bytes: rebuild.bytesScanned },
        rebuild.filesScanned === 0 ? 'disk quota: the tile cache is empty' : 'disk quota: usage rebuilt from the tiles on disk'))
      .catch((err) => { if (!abort.signal.aborted) log.warn({ err }, 'disk quota: usage rebuild failed') })
      .finally(() => { rebuilding = undefined })
    return rebuilding
  }

  async function jobs (c: QuotaConfig): Promise<Array<{ name: string, scope: Scope, layers: string[], limit: () => Limit }>> {
    const own = c.layerQuotas.map((q) => q.layer)
    const out = c.layerQuotas.map((q): { name: string, scope: Scope, layers: string[], limit: () => Limit } => ({
      name: q.layer,
      scope: { layers: [q.layer] },
      layers: [q.layer],
      limit: (): Limit => {
        const lq = config.enabled ? config.layerQuotas.find((x) => x.layer === q.layer) : undefined
        return lq ? { limitBytes: lq.quotaBytes, policy: lq.expirationPolicyName } : { limitBytes: Infinity, policy: q.expirationPolicyName }
      }
    }))
    const shared = [...new Set((await store.tileSets()).map((s) => s.layer))].filter((l) => !own.includes(l))
    out.push({
      name: 'global',
      scope: { except: own },
      layers: shared,
      limit: (): Limit => ({ limitBytes: config.enabled ? config.globalQuotaBytes : Infinity, policy: config.globalExpirationPolicyName })
    })
    return out
  }

  return {
    recorder,
    get config (): QuotaConfig { return config },
    onChange (fn: (c: QuotaConfig) => void) { changeListeners.push(fn) },

    /** Another instance changed the configuration (a shared database): apply the stored one. */
    reload (): Promise<QuotaConfig> {
      const run = updating.then(async () => {
        // The instance that changed it recounts usage if the block size changed (one shared store).
        install(fromStored(await store.readConfig()))
        return config
      })
      updating = run.catch(() => {})
      return run
    },

    /** Partial update: validated whole, then persisted, then applied; concurrent PUTs queue. */
    update (body: Record<string, unknown>): Promise<QuotaConfig> {
      const run = updating.then(async () => {
        const next = await applyPartial(config, body, { layerExists: deps.layerExists })
        const fault = deps.fault ?? noFaults
        fault('quota.beforeConfigWrite')
        await store.writeConfig(JSON.stringify(next))
        fault('quota.afterConfigWrite')
        // Recorded sizes are rounded to the old block size: count again from the files.
        if (install(next)) void startRebuild()
        return next
      })
      updating = run.catch(() => {})
      return run
    },

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
      if (alone && (await store.getState('usageBuiltAt') === undefined || unclean)) void startRebuild()
    },
    rebuild: () => startRebuild(),
    rebuildProgress: () => ({ ...rebuild }),
    /** Every tile event so far is in the store (after the rebuild in progress, if any). */
    async flush () {
      if (rebuilding) await rebuilding
      await recorder.flush()
    },

    async usage () {
      await recorder.flush()
      const c = config
      const sets = await store.tileSets()
      const own = c.layerQuotas.map((q) => q.layer)
      return {
        config: c,
        usedBytes: sets.reduce((n, s) => n + s.bytes, 0),
        globalUsedBytes: await store.usedBytes({ except: own }),
        tileSets: sets,
        lastCleanUp: await store.getState('lastCleanUp'),
        rebuild: { ...rebuild }
      }
    },

    settle,

    /**
     * One run of the clean-up task: every quota whose layers are not being cleaned already, up to
     * maxConcurrentCleanUps at once; resolves when the jobs it started are done. Nothing is
     * evicted while the quota is disabled (accounting goes on).
     */
    async runCleanUp (): Promise<CleanUpRun> {
      const c = config
      if (!c.enabled || abort.signal.aborted || rebuilding) return { skipped: true, results: [] }
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
        const p = cleaner.expire(job.name, job.scope, job.limit, abort.signal)
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
    },

    forgetWorkspace: async (ws: string) => { await recorder.flush(() => store.forgetWorkspace(ws)) },
    forgetLayer: async (layer: string) => { await recorder.flush(() => store.forgetLayer(layer)) },

    async close () {
      abort.abort()
      await Promise.allSettled([...running.values(), rebuilding])
      await updating
      await recorder.close()
      await store.setState('open', '0')
    }
  }
}

export type DiskQuota = Awaited<ReturnType<typeof createDiskQuota>>
