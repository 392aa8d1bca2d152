// Image mosaics: the service the mosaics routes and the tile cache call, assembled from its parts by
// job: coverage stores and coverages (coverage-stores.ts), single-file stores (file-stores.ts), url.*
// uploads (url-uploads.ts), granules and harvests (granule-changes.ts),
// the start's crash recovery (recovery.ts) and render preparation (the render plan,
// services/render/raster/render-plan.ts, on this service's index, its reads cached by plan-cache.ts). The parts share one context
// (mosaic-context.ts) and reach the database only through the MosaicStore they are given.
import path from 'node:path'
import type { RenderRequest } from '../render/render-types.js'
import type { RenderJob } from '../render/raster/mosaic-types.js'
import { createMosaicContext, type DataHook, type MosaicServiceDeps } from './mosaic-context.js'
import { coverageStoreOperations } from './coverage-stores.js'
import { granuleOperations } from './granule-changes.js'
import { fileStoreOperations } from './file-stores.js'
import { urlUploadOperations } from './url-uploads.js'
import { reconcile } from './recovery.js'
import { prepareRenderJob } from '../render/raster/render-plan.js'
import { createPlanCache } from './plan-cache.js'

export type { StoreInfo } from './coverage-stores.js'

export function createMosaicService (deps: MosaicServiceDeps) {
  // Every part writes through the plan cache's store, so that each write drops what renders read.
  const plans = createPlanCache(deps.store)
  const ctx = createMosaicContext({ ...deps, store: plans.store })
  const coverageStores = coverageStoreOperations(ctx)
  const fileStores = fileStoreOperations(ctx)
  return {
    ...coverageStores,
    ...granuleOperations(ctx),
    ...fileStores,
    ...urlUploadOperations(ctx, { upload: coverageStores.upload, uploadSingle: fileStores.uploadSingle }),

    /** Registers a listener for changes of what mosaic layers draw (after each commit). */
    onDataChanged (hook: DataHook): void { ctx.dataHooks.push(hook) },

    /** Records that a render could not decode a granule; returns the location to report. */
    async markDamaged (file: string, reason: string): Promise<string> {
      const [location] = await ctx.store.markDamaged(file, reason)
      deps.log?.warn({ granule: file, reason }, 'a granule cannot be decoded')
      return location ?? path.basename(file)
    },

    /** Builds the worker job for a render request (tile cache, WMS-like calls). */
    async prepareRender (req: RenderRequest): Promise<RenderJob> {
      return await prepareRenderJob(req, { store: plans.reads, compile: ctx.compile })
    },

    /** What renders read of the index was changed elsewhere (another node, a layer or workspace removed): read it again. */
    changedElsewhere (): void { plans.invalidate() },

    /**
     * Startup check that index, catalog and files agree: a granule whose file inside the mosaic
     * folder is gone (a crash between a file operation and its transaction) loses its index row.
     */
    async reconcile (): Promise<number> { return await reconcile(ctx) }
  }
}

export type MosaicService = ReturnType<typeof createMosaicService>
