// The seeding side of the facade: the single entry point of cache writes (seed, reseed, truncate:
// the request validated, its area counted, pyramid or not decided, then handed to services/seed's
// breeder) and what the seed API reads and does with tasks (lists, one task, kills, progress), so
// the plugins never reach the breeder itself.
import type { Principal } from '../auth/authenticator.js'
import { UnknownTileLayer } from '../errors.js'
import { countAreaTilesAsync } from '../seed/area.js'
import { parseAreaRequest, parseSeedRequest, type SeedSpec } from '../seed/seed-request.js'
import { pyramidFits } from '../seed/pyramid.js'
import { viewOf, type Task, type TaskView } from '../seed/task.js'
import type { Breeder, KillCode, KilledTask } from '../seed/breeder.js'
import { tileRange } from './tile-range.js'
import { parameterId } from './parameters.js'
import type { TileCacheContext } from './tile-cache-context.js'

export type { KillCode, KilledTask }

/** What a task's record keeps of its request (a restart rebuilds the task from it). */
export interface StoredRequest { layer: string, body: Record<string, unknown>, area?: { olderThan?: string } }

/** The area's exact tile count (made without holding the event loop, area.ts) and whether the
 *  seed is built as a pyramid (pyramid.ts). */
async function complete (ctx: TileCacheContext, spec: SeedSpec): Promise<SeedSpec> {
  if (spec.area) spec.areaTiles = await countAreaTilesAsync(tileRange(spec.subset, spec.zoomStart, spec.zoomStop, spec.bounds), spec.area)
  const linear = ctx.deps.linearStyle
  spec.pyramid = linear !== undefined && await pyramidFits(spec, () => linear(spec.layer))
  return spec
}

/** A recorded request validated again (its layer may have gone or changed since). */
export async function storedSpec (ctx: TileCacheContext, req: StoredRequest): Promise<SeedSpec> {
  const layer = await ctx.findLayer(req.layer)
  if (!layer) throw UnknownTileLayer(req.layer)
  const { maxSeedThreads } = ctx.deps
  return await complete(ctx, req.area ? parseAreaRequest(req.body, layer, maxSeedThreads, req.area.olderThan, ctx.gridsOf(layer), ctx.settingsOf(layer).parameterFilters) : parseSeedRequest(req.body, layer, maxSeedThreads, ctx.gridsOf(layer), ctx.settingsOf(layer).parameterFilters))
}

export function seedingOperations (ctx: TileCacheContext, breeder: Breeder) {
  const { deps, invalidation } = ctx
  return {
    /**
     * The single entry point of cache writes (seed, reseed, truncate). With `area`, `body` is the
     * area resource's `{ seedRequest, geometry, olderThan }` (area.ts), `olderThan` its query parameter.
     */
    async submitSeed (layerName: string, body: Record<string, unknown>, principal?: Principal, area?: { olderThan?: string }): Promise<Task[]> {
      const layer = await ctx.seedLayer(layerName)
      await ctx.authorize('write', layer, principal)
      ctx.checkStoreEnabled(layer)
      const spec = await complete(ctx, area
        ? parseAreaRequest(body, layer, deps.maxSeedThreads, area.olderThan, ctx.gridsOf(layer), ctx.settingsOf(layer).parameterFilters)
        : parseSeedRequest(body, layer, deps.maxSeedThreads, ctx.gridsOf(layer), ctx.settingsOf(layer).parameterFilters))
      if (spec.parameters) await invalidation.recordSet(layer.qualifiedName, parameterId(spec.parameters), spec.parameters)
      const request: StoredRequest = { layer: layer.qualifiedName, body, area }
      return await breeder.submit(spec, JSON.stringify(request))
    },

    /** Pending and running tasks (killed ones leave at once), by id; of one layer or all. */
    tasks: (layer?: string): Task[] => breeder.list(layer),
    /** One task as its resource shows it: live, or from its record (kept an hour after it ends). */
    async taskView (id: number): Promise<TaskView | undefined> {
      const task = breeder.task(id)
      return task ? viewOf(task, ctx.now()) : await breeder.record(id)
    },
    /** Kills the running, pending or all tasks, of one layer or all (GWC's kill_all). */
    killTasks: async (code: KillCode, layer?: string): Promise<KilledTask[]> => await breeder.kill(code, layer),
    /** Kills one task, only if it is of `layer` (GWC's kill_thread). */
    killTask: async (id: number, layer?: string): Promise<KilledTask | undefined> => await breeder.killTask(id, layer),
    /**
     * Task progress for a stream: first the tasks that ended within the hour (oldest first, at most
     * `recent`), then the pending and running ones, then every change until the returned function
     * is called.
     */
    followTasks (listener: (view: TaskView) => void, recent = 20): () => void {
      for (const t of breeder.recent(recent).reverse()) listener(viewOf(t, ctx.now()))
      for (const t of breeder.list()) listener(viewOf(t, ctx.now()))
      breeder.events.on('task', listener)
      return () => { breeder.events.off('task', listener) }
    },

    /** Once the HTTP layer is ready: the breeder takes up the tasks of a previous run (Breeder.start). */
    async start ({ alone }: { alone: boolean }): Promise<{ resumed: number, aborted: number }> {
      return await breeder.start({ alone })
    }
  }
}
