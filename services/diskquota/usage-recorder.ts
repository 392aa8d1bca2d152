// Accounting off the request path: blob-store events are queued as they happen (a push, nothing
// more) and a flush, every `flushMs` or when the queue is long, folds them into per-page deltas
// and commits them in one transaction. Sizes are rounded up to the disk block size. A flush the
// database refuses for a while (a PostgreSQL restart, SQLite busy or full) keeps its events for
// the next one: accounted usage must not end below what is on disk.
import type { TileEvent } from '../tilecache/blob-store.js'
import type { Rect } from '../tilecache/grid-sets.js'
import type { PageDelta, QuotaStore } from './quota-store.js'
import { noFaults, type FaultPoint } from '../faults.js'
import { isTransientDbError } from '../errors.js'
import { blockRound, geometryFor, maxTilesInPage, pageOf, tileSetId, type PageGeometry } from './tile-page.js'

export interface RecorderDeps {
  store: QuotaStore
  /** The layer's tile coverage at z in the grid set; undefined = unknown (the full level is paged). */
  coverage: (layer: string, gridSet: string, z: number) => Promise<Rect | undefined>
  blockSize: () => number
  now: () => number
  /** 0: no timer (tests and the cleaner flush explicitly). */
  flushMs?: number
  maxQueue?: number
  /** Events kept while flushes are held (a rebuild) or refused (the database away): past it, reads are dropped first. */
  maxKept?: number
  log?: { info?: (obj: object, msg: string) => void, warn: (obj: object, msg: string) => void }
  fault?: FaultPoint
}

const WRITE = 0
const DELETE = 1
const READ = 2
interface Queued { kind: 0 | 1 | 2, e: TileEvent, t: number, seq?: number }

export function createUsageRecorder (deps: RecorderDeps) {
  const maxQueue = deps.maxQueue ?? 20_000
  const maxKept = deps.maxKept ?? 1_000_000
  let queue: Queued[] = []
  let chain: Promise<void> = Promise.resolve()
  let scheduled = false
  let held = 0
  let seq = 0
  /** The last flush was refused for a while (the database away): its events wait in the queue. */
  let waiting = false
  /** Writes and deletes dropped past maxKept: the usage stays below the disk until a rebuild. */
  let lost = 0
  const geometries = new Map<string, PageGeometry>()
  const timer = deps.flushMs ? setInterval(() => { void flush() }, deps.flushMs) : undefined
  timer?.unref()

  let enabled = true
  function push (kind: 0 | 1 | 2, e: TileEvent) {
    if (!enabled) return
    // While a rebuild holds flushes or the database is away, reads are what may be dropped to bound memory (hits only).
    if ((held || waiting) && kind === READ && queue.length >= maxKept) return
    queue.push({ kind, e, t: deps.now(), seq: ++seq })
    // While the database is away only the timer tries again (no flush per event past maxQueue).
    if (queue.length >= maxQueue && !scheduled && !held && !waiting) {
      scheduled = true
      setImmediate(() => { scheduled = false; void flush() })
    }
  }

  async function geometry (layer: string, gridSet: string, z: number): Promise<PageGeometry> {
    const key = `${layer}\n${gridSet}\n${z}`
    let g = geometries.get(key) ?? await deps.store.geometry(layer, gridSet, z)
    if (!g) {
      const cov = await deps.coverage(layer, gridSet, z)
      const side = 2 ** Math.min(z + 1, 30)
      g = await deps.store.saveGeometry(layer, gridSet, z, geometryFor(cov ?? [0, 0, side - 1, side - 1])) // first writer wins
    }
    geometries.set(key, g)
    return g
  }

  /** Folds events into page deltas (exported for the rebuild, which folds a scan the same way). */
  async function fold (events: Iterable<Queued>): Promise<PageDelta[]> {
    const block = deps.blockSize()
    const pages = new Map<string, PageDelta>()
    for (const { kind, e, t } of events) {
      const g = geometries.get(`${e.layer}\n${e.gridSet}\n${e.z}`) ?? await geometry(e.layer, e.gridSet, e.z)
      const { px, py } = pageOf(g, e.x, e.y)
      const key = `${tileSetId(e)}@${e.z}/${px}/${py}`
      let d = pages.get(key)
      if (!d) {
        d = { tileSet: { layer: e.layer, gridSet: e.gridSet, format: e.format, parameterId: e.parameterId }, z: e.z, px, py, tiles: 0, bytes: 0, hits: 0, accessMs: 0, firstMs: t, maxTiles: maxTilesInPage(g) }
        pages.set(key, d)
      }
      d.firstMs = Math.min(d.firstMs, t)
      if (kind === WRITE) {
        if (e.replacedBytes === undefined) d.tiles++
        d.bytes += blockRound(e.bytes, block) - (e.replacedBytes === undefined ? 0 : blockRound(e.replacedBytes, block))
        d.accessMs = Math.max(d.accessMs, t)
      } else if (kind === DELETE) {
        d.tiles--
        d.bytes -= blockRound(e.bytes, block)
      } else {
        d.hits++
        d.accessMs = Math.max(d.accessMs, t)
      }
    }
    return [...pages.values()]
  }

  async function doFlush () {
    if (held || queue.length === 0) return
    const batch = queue
    queue = []
    const fault = deps.fault ?? noFaults
    try {
      const deltas = await fold(batch)
      fault('quota.beforeFlush')
      await deps.store.applyBatch(deltas, deps.now())
      fault('quota.afterFlush')
    } catch (err) {
      if (!isTransientDbError(err)) {
        deps.log?.warn({ err, events: batch.length }, 'disk quota: could not record tile usage')
        return
      }
      // Kept, in order, before the events queued meanwhile; the next flush (the timer's) tries
      // again. A commit whose answer was lost (the connection cut after PostgreSQL committed) is
      // counted twice then: usage above the disk, so a clean-up evicts early rather than late, and
      // the cleaner settles each page it truncates against the files (cache-cleaner.ts); a rebuild
      // counts afresh. Not knowing is rare (one round trip per flush) and errs on the safe side.
      keep(batch)
      if (!waiting) deps.log?.warn({ err, events: batch.length }, 'disk quota: the usage store is unavailable; tile usage is kept until it is back')
      waiting = true
      return
    }
    if (waiting) deps.log?.info?.({ events: batch.length }, 'disk quota: the usage store is back; the tile usage kept meanwhile is recorded')
    waiting = false
  }
  /** Puts a refused batch back at the front, within maxKept: the oldest reads go first, then the oldest writes and deletes (logged, counted in `lost`). */
  function keep (batch: Queued[]) {
    queue = batch.concat(queue)
    let over = queue.length - maxKept
    if (over <= 0) return
    const reads = Math.min(over, queue.reduce((n, q) => n + (q.kind === READ ? 1 : 0), 0))
    let skip = reads
    if (skip) queue = queue.filter((q) => !(q.kind === READ && skip-- > 0))
    over -= reads
    if (over > 0) { queue = queue.slice(over); lost += over }
    deps.log?.warn({ reads, writesAndDeletes: Math.max(0, over), kept: queue.length },
      over > 0 ? 'disk quota: tile usage dropped while the usage store is unavailable; usage is below the disk until it is rebuilt' : 'disk quota: tile reads dropped while the usage store is unavailable')
  }
  /** Commits the queued events; `after` runs next, before any later flush. */
  function flush (after?: () => Promise<void>): Promise<void> {
    const run = after ? chain.then(doFlush).then(after) : chain.then(doFlush)
    chain = run.catch(() => {})
    return run
  }

  return {
    written: (e: TileEvent) => push(WRITE, e),
    deleted: (e: TileEvent) => push(DELETE, e),
    read: (e: TileEvent) => push(READ, e),
    flush,
    fold,
    /** Benchmarks only: accounting off measures what it costs on the request path. */
    setEnabled (on: boolean) { enabled = on },
    pending: () => queue.length,
    /** The number of the last event recorded (orders events against a rebuild's scan). */
    seq: () => seq,
    /** Holds flushes while usage is rebuilt from the disk; the scan sees what queued writes and deletes did. */
    hold () {
      held++
      queue = queue.filter((q) => q.kind === READ)
    },
    /** Ends a hold; `keep` says which writes and deletes made meanwhile the scan did not see. */
    release (keep?: (q: Queued) => boolean) {
      held = Math.max(0, held - 1)
      if (keep) queue = queue.filter((q) => q.kind === READ || keep(q))
    },
    /** Drops the queued events `match` names (their tile set was forgotten). */
    discard (match: (e: TileEvent) => boolean) { queue = queue.filter((q) => !match(q.e)) },
    /** Writes and deletes not recorded: dropped while the database was away, or still queued after close(). */
    lost: () => lost,
    /** One last flush; what the database still refuses is not recorded (counted in `lost`, logged). */
    async close () {
      if (timer) clearInterval(timer)
      held = 0
      await flush()
      if (!queue.length) return
      const unrecorded = queue.filter((q) => q.kind !== READ).length
      lost += unrecorded
      deps.log?.warn({ events: queue.length, writesAndDeletes: unrecorded }, 'disk quota: tile usage not recorded at shutdown (the usage store is unavailable); usage is below the disk until it is rebuilt')
      queue = []
    }
  }
}

export type UsageRecorder = ReturnType<typeof createUsageRecorder>
export type { Queued }
