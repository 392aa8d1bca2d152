// Renders a mosaic RenderJob to RGBA, in a Piscina worker or inline: a pure function of its
// payload (no app imports). Each granule is drawn in turn (draw.ts), later granules over earlier
// ones; the band values then go through applyRasterStyle. Band values of all-8-bit mosaics are kept
// as bytes, so styling is a table lookup.
import type { BandData } from '../render-types.js'
import type { RenderJob, RenderResult, GranuleRef } from './mosaic-types.js'
import { applyRasterStyle } from './raster-style.js'
import { WORLD_IMAGE } from './granule-files.js'
import { closeTiffs, openTiff } from './tiff-source.js'
import { clearSynthetics } from './overviews.js'
import { clearVipsChecks } from './vips-window.js'
import { drawGranule } from './draw.js'

/** Closes the files this thread holds open and drops its decoded levels (tests, shutdown). */
export async function closeRenderCache (): Promise<void> {
  clearSynthetics()
  clearVipsChecks()
  await closeTiffs()
}

/** Code of the error a render throws when a granule's data cannot be decoded (it names the granule). */
export const GRANULE_DAMAGED = 'MW_GRANULE_DAMAGED'

/** Why a render drew nothing: a granule file has gone, or a granule's data cannot be decoded. */
export type RenderFailure = { granuleGone: true } | { damaged: { path: string, reason: string } }

/** The RenderFailure an error of a render stands for; undefined for any other error. */
export function renderFailure (err: unknown): RenderFailure | undefined {
  const e = err as NodeJS.ErrnoException & { granule?: string }
  if (e.code === 'ENOENT') return { granuleGone: true }
  if (e.code === GRANULE_DAMAGED) return { damaged: { path: e.granule!, reason: e.message } }
  return undefined
}

/** Runs fn on a granule; a failure other than the file having gone becomes GRANULE_DAMAGED. */
async function reading<T> (g: GranuleRef, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err
    const reason = String((err as Error)?.message ?? err).split('\n')[0].slice(0, 200)
    throw Object.assign(new Error(reason), { code: GRANULE_DAMAGED, granule: g.path })
  }
}

/**
 * The arrays of one render of 8-bit data (byte bands, the valid mask, the RGBA output), kept from
 * one render to the next of the same size: a render worker holds one per metatile in hand, so a
 * seed allocates (and the garbage collector frees) no 8 MB per metatile, which in a worker with
 * two metatiles in hand kept the heap's garbage past the seeding memory budget.
 */
export function createRenderScratch () {
  let n = -1
  let bands: Uint8Array[] = []
  let valid = new Uint8Array(0)
  let rgba = new Uint8Array(0)
  return {
    /** Band arrays (values undefined where not valid), a zeroed mask and zeroed RGBA for n pixels. */
    take (pixels: number, bandCount: number): { bands: Uint8Array[], valid: Uint8Array, rgba: Uint8Array } {
      if (pixels !== n) {
        n = pixels
        bands = []
        valid = new Uint8Array(n)
        rgba = new Uint8Array(n * 4)
      } else {
        valid.fill(0)
        rgba.fill(0)
      }
      while (bands.length < bandCount) bands.push(new Uint8Array(n))
      return { bands: bands.slice(0, bandCount), valid, rgba }
    }
  }
}
export type RenderScratch = ReturnType<typeof createRenderScratch>

/** Band values of the job's area before styling; `scratch` lends the arrays of 8-bit data. */
export async function renderBands (job: RenderJob, scratch?: RenderScratch): Promise<BandData & { rgba?: Uint8Array }> {
  const n = job.width * job.height
  const bandCount = Math.max(1, job.bands)
  // Bytes when every granule holds unsigned 8-bit samples (the values fit exactly), else floats.
  let bytes = job.granules.length > 0
  for (const g of job.granules) {
    if (!bytes) break
    if (WORLD_IMAGE.test(g.path)) continue // decoded as 8-bit samples
    const { images } = await reading(g, () => openTiff(g.path))
    for (let b = 0; b < images[0].getSamplesPerPixel(); b++) {
      if (images[0].getBitsPerSample(b) !== 8 || images[0].getSampleFormat(b) !== 1) { bytes = false; break }
    }
  }
  const lent = bytes && scratch ? scratch.take(n, bandCount) : undefined
  const out: BandData & { rgba?: Uint8Array } = {
    width: job.width,
    height: job.height,
    bands: lent?.bands ?? Array.from({ length: bandCount }, () => bytes ? new Uint8Array(n) : new Float32Array(n)),
    valid: lent?.valid ?? new Uint8Array(n),
    ranges: job.ranges.length ? job.ranges : Array.from({ length: bandCount }, () => ({ min: 0, max: 255 })),
    rgba: lent?.rgba
  }
  for (const g of job.granules) await reading(g, () => drawGranule(job, g, out))
  return out
}

/** The job's RGBA image; with `scratch`, in its array (valid until the scratch's next render). */
export async function renderMosaic (job: RenderJob, scratch?: RenderScratch): Promise<RenderResult> {
  const bands = await renderBands(job, scratch)
  return { width: job.width, height: job.height, rgba: applyRasterStyle(bands, job.style, bands.rgba) }
}

