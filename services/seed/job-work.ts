// The work of this node's workers (job-breeder.ts): one chunk from the queue, its metatiles
// rendered (or found fresh) or its truncate run, counted once in the job tables; a chunk left
// unfinished (a kill, a shutdown, the database away) is given back and redone. And the chunks of
// nodes that died, handed to the live ones.
import { GranuleDamaged, TileCacheClosing, isConnectionError, isMapwardenError } from '../errors.js'
import { chunkMetaTiles } from './chunks.js'
import type { ChunkRef, ChunkWork } from './job-store.js'
import { rectArea } from '../tilecache/grid-sets.js'
import type { MetaTile } from '../tilecache/tile-range.js'
import { metatileKey } from '../tilecache/metatile-renderer.js'
import { abortReason, seedMetatile, truncateJob } from './seed-work.js'
import type { BreederContext, JobContext } from './job-context.js'

export function createChunkWork (ctx: BreederContext) {
  const { deps } = ctx

  /** Releases the chunks of nodes that died; their queue jobs are retried at once on live nodes. */
  async function reclaim (): Promise<void> {
    const ids = await ctx.seeds.orphans(await deps.queue.liveNodes())
    if (ids.length === 0) return
    await ctx.queue!.fail(ids)
    deps.log?.warn({ chunks: ids.length }, 'seed chunks of a node that stopped answering handed to the live nodes')
  }

  /**
   * Ends a job that cannot go on (its request no longer valid, a failure): its tasks ABORTED with
   * the reason. Refused by the stores, the end is kept here (the copy shows it) and written again
   * by recordEnds, and the chunk fails; its retries stop before their first metatile.
   */
  async function endJob (jobId: number, reason: string): Promise<void> {
    try { await ctx.seeds.abortJob(jobId, reason, ctx.dispatch()) } catch (err) {
      ctx.unrecorded.set(jobId, { reason, at: ctx.now() })
      ctx.stopJob(jobId)
      throw err
    }
  }

  /** Writes the ends the stores refused before (on a timer, and at a graceful stop). */
  async function recordEnds (): Promise<void> {
    for (const [jobId, { reason }] of ctx.unrecorded) {
      await ctx.seeds.abortJob(jobId, reason, ctx.dispatch())
      ctx.unrecorded.delete(jobId)
    }
  }

  async function truncate (job: JobContext, chunk: ChunkWork): Promise<void> {
    const stop = new AbortController()
    ctx.truncating.set(chunk.job, stop)
    if (ctx.ended.has(chunk.job) || ctx.closing) stop.abort()
    let deleted = 0
    let saved = ctx.now()
    try {
      deleted = await truncateJob(deps.store, job, stop.signal, () => {
        deleted++
        if (ctx.now() - saved >= 1000) {
          saved = ctx.now()
          ctx.seeds.progress(chunk.task, chunk.taskDone + deleted).catch((err) => deps.log?.warn({ err }, 'could not record a truncate\'s progress'))
        }
      })
    } finally { ctx.truncating.delete(chunk.job) }
    // Killed or stopped by a shutdown, what it deleted is on record (after a shutdown another node
    // deletes the rest and goes on counting).
    await ctx.seeds.progress(chunk.task, chunk.taskDone + deleted)
    stopping(chunk.job)
    await ctx.seeds.complete(chunk, ctx.nodeId, { metatiles: 0, tiles: 0 }, ctx.dispatch())
  }

  /**
   * Leaves a chunk unfinished when its job was stopped or this node stops: the chunk is given back
   * and its queue job failed, so it is retried: skipped if the job did stop, run elsewhere if not.
   */
  function stopping (jobId: number): void {
    if (ctx.closing) throw TileCacheClosing()
    if (ctx.ended.has(jobId)) throw new Error(`seed job ${jobId} stopped`)
  }

  /** One chunk from the queue: its metatiles rendered (or found fresh), then counted once. */
  async function work (ref: ChunkRef, bossId: string): Promise<void> {
    if (ctx.closing) throw TileCacheClosing() // failed: retried at once on a node that is not stopping
    const chunk = await ctx.seeds.begin(ref, ctx.nodeId, bossId)
    if (!chunk) return // counted already, or its job stopped
    const held = ctx.working.get(ref.job) ?? { layer: chunk.layer, taskIds: chunk.taskIds, chunks: 0 }
    held.chunks++
    ctx.working.set(ref.job, held)
    try {
      let job: JobContext
      try { job = await ctx.jobContext(ref.job) } catch (err) {
        if (!isMapwardenError(err)) throw err
        // The layer went, or the request no longer validates: the job cannot go on anywhere.
        await endJob(ref.job, `aborted: its request is no longer valid: ${err.message}`)
        return
      }
      if (chunk.z === -1) return await truncate(job, chunk)
      // A reseed leaves alone what was drawn since it started: a chunk done again (its node died or
      // stopped) does not redraw the metatiles it had finished.
      if (job.type === 'reseed') job = { ...job, spec: { ...job.spec, olderThan: Math.min(job.spec.olderThan ?? Infinity, chunk.startedAt) } }
      const format = job.spec.formats[0]
      let metatiles = 0
      let tiles = 0
      let failed = 0
      let failure: string | undefined
      for (const mt of chunkMetaTiles(job.range, chunk, job.spec.area)) {
        stopping(ref.job)
        try {
          await deps.lock.run(metatileKey(job.spec, format, job.parameterId, mt.z, mt.render[0], mt.render[1]),
            () => seedMetatile(deps, job, job.type, mt as MetaTile, ctx.aborter.signal))
        } catch (err) {
          // The database away (its lock, the catalog) is no fault of the job: the chunk is failed
          // and retried, here or on another node, once the database answers again.
          if (ctx.closing || isConnectionError(err)) throw err
          // Bad data in one granule spoils only the metatiles that read it: say so and go on.
          if ((err as { code?: string }).code !== GranuleDamaged.code) {
            deps.log?.warn({ err, job: ref.job, layer: job.spec.layer.qualifiedName }, 'seed task failed')
            await endJob(ref.job, abortReason(err))
            return
          }
          failed++
          failure = (err as Error).message
          deps.log?.warn({ job: ref.job, layer: job.spec.layer.qualifiedName, z: mt.z, reason: failure }, 'metatile skipped')
        }
        metatiles++
        tiles += rectArea(mt.wanted)
      }
      await ctx.seeds.complete(ref, ctx.nodeId, { metatiles, tiles, failed, failure }, ctx.dispatch())
    } catch (err) {
      // Not counted: another node takes it (the queue retries a failed job at once).
      await ctx.seeds.release(ref, ctx.nodeId).catch(() => {})
      throw err
    } finally {
      if (--held.chunks === 0) ctx.working.delete(ref.job)
    }
  }

  return { work, reclaim, recordEnds }
}
