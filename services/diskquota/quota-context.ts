// What the parts of the disk quota service share: the store and the blob store, the configuration
// in force (read at each use: an admin may change it while a clean-up runs), the queue its changes
// run in, the accounting recorder fed by the blob store's events, the rebuild of usage from the
// files on disk (nothing is counted or evicted while it runs), and the clean-up jobs in progress.
import type { BlobStore } from '../tilecache/blob-store.js'
import type { Rect } from '../tilecache/grid-sets.js'
import type { QuotaStore } from './quota-store.js'
import { fromStored, type QuotaConfig, type ParseContext } from './quota-config.js'
import { createUsageRecorder } from './usage-recorder.js'
import { rebuildUsage, type RebuildProgress } from './rebuild.js'
import { noFaults, type FaultPoint } from '../faults.js'

export interface Logger { info: (obj: object, msg: string) => void, warn: (obj: object, msg: string) => void }

export interface DiskQuotaDeps {
  store: QuotaStore
  blobStore: Pick<BlobStore, 'root' | 'roots' | 'rootOf' | 'tilePath' | 'truncate' | 'onTileWritten' | 'onTileDeleted' | 'onTileRead'>
  coverage: (layer: string, gridSet: string, z: number) => Promise<Rect | undefined>
  layerExists: ParseContext['layerExists']
  now?: () => number
  /** Accounting flush period; 0 = only explicit flushes (tests). */
  flushMs?: number
  log: Logger
  /** Crash-harness fault points (services/faults.ts). */
  fault?: FaultPoint
}

export type QuotaContext = Awaited<ReturnType<typeof createQuotaContext>>

export async function createQuotaContext (deps: DiskQuotaDeps) {
  const { store, log } = deps
  const now = deps.now ?? Date.now
  let config: QuotaConfig = fromStored(await store.readConfig())
  let updating: Promise<unknown> = Promise.resolve()
  const abort = new AbortController()
  const rebuild: RebuildProgress = { state: 'idle', filesScanned: 0, bytesScanned: 0 }
  let rebuilding: Promise<void> | undefined
  const changeListeners: Array<(c: QuotaConfig) => void> = []

  const recorder = createUsageRecorder({ store, coverage: deps.coverage, blockSize: () => config.diskBlockSize, now, flushMs: deps.flushMs, log, fault: deps.fault })
  deps.blobStore.onTileWritten(recorder.written)
  deps.blobStore.onTileDeleted(recorder.deleted)
  deps.blobStore.onTileRead(recorder.read)

  return {
    deps,
    store,
    log,
    now,
    fault: deps.fault ?? noFaults,
    recorder,
    rebuild,
    changeListeners,
    signal: abort.signal,
    abort: () => abort.abort(),
    /** quota name -> its clean-up job in progress (close waits for them). */
    running: new Map<string, Promise<unknown>>(),
    get config (): QuotaConfig { return config },
    get rebuilding (): Promise<void> | undefined { return rebuilding },
    /** Configuration changes run one after the other (a failed one does not stop the next). */
    serial<T> (fn: () => Promise<T>): Promise<T> {
      const run = updating.then(fn)
      updating = run.catch(() => {})
      return run
    },
    idle: () => updating,

    /** Puts a configuration in force; true when its block size differs from the one before. */
    install (next: QuotaConfig): boolean {
      const blockChanged = next.diskBlockSize !== config.diskBlockSize
      config = next
      for (const fn of changeListeners) fn(next)
      return blockChanged
    },

    startRebuild (): Promise<void> {
      rebuilding ??= rebuildUsage({ roots: deps.blobStore.roots(), rootOf: deps.blobStore.rootOf, store, recorder, now, progress: rebuild, signal: abort.signal })
        .then(() => log.info({ files: rebuild.filesScanned, bytes: rebuild.bytesScanned },
          rebuild.filesScanned === 0 ? 'disk quota: the tile cache is empty' : 'disk quota: usage rebuilt from the tiles on disk'))
        .catch((err) => { if (!abort.signal.aborted) log.warn({ err }, 'disk quota: usage rebuild failed') })
        .finally(() => { rebuilding = undefined })
      return rebuilding
    },

    /** Every tile event so far is in the store (after the rebuild in progress, if any). */
    async flush (after?: () => Promise<void>): Promise<void> {
      if (rebuilding) await rebuilding
      await recorder.flush(after)
    }
  }
}
