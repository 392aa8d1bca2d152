// The work every breeder does on a request's tiles, whichever queue handed it out: one metatile of
// a seed or reseed drawn (or found fresh) into the blob store, a truncate's tiles deleted, and the
// reason a task shows when it stopped on a failure.
import type { BlobStore, TileSet } from '../tilecache/blob-store.js'
import { renderIntoStore } from '../tilecache/metatile-renderer.js'
import { rectAt, type MetaTile } from '../tilecache/tile-range.js'
import type { Rect } from '../tilecache/grid-sets.js'
import { areaTileFilter } from './area.js'
import type { Task } from './task.js'
import type { JobContext } from './job-context.js'
import type { BreederDeps } from './breeder.js'
import { MapwardenError, StorageFull, isStorageFull } from '../errors.js'

/** What seeding one metatile needs: the blob store, the render function and the stale check. */
export type SeedWork = Pick<BreederDeps, 'store' | 'render' | 'isStale'>

/** The files of the tiles under a metatile's tiles, in image order of the level below (2 cols x 2 rows each). */
function childPaths (store: BlobStore, set: TileSet, z: number, rect: Rect): string[] {
  const out: string[] = []
  for (let y = 2 * rect[3] + 1; y >= 2 * rect[1]; y--) {
    for (let x = 2 * rect[0]; x <= 2 * rect[2] + 1; x++) out.push(store.tilePath({ ...set, z: z + 1, x, y }))
  }
  return out
}

async function everyTile (mt: MetaTile, ok: (x: number, y: number) => Promise<boolean>): Promise<boolean> {
  for (let y = mt.wanted[1]; y <= mt.wanted[3]; y++) for (let x = mt.wanted[0]; x <= mt.wanted[2]; x++) if (!(await ok(x, y))) return false
  return true
}

/**
 * One metatile of a seed, reseed (truncates delete instead): a seed fills what is missing (or was
 * drawn before its style or data changed); a reseed with a date redraws what is older than it; a
 * metatile's tiles are one image, so one such tile renders it. A pyramid draws each level above
 * the deepest from the four tiles under each of its tiles.
 */
export async function seedMetatile (deps: SeedWork, job: Pick<JobContext, 'spec' | 'parameterId'>, type: Task['type'], mt: MetaTile, signal?: AbortSignal): Promise<void> {
  const { spec } = job
  const format = spec.formats[0]
  const set = { layer: spec.layer.qualifiedName, gridSet: spec.gridSet.id, format, parameterId: job.parameterId! }
  const keep = type === 'seed' ? (at: number) => !deps.isStale?.(set.layer, set.parameterId, at)
    : type === 'reseed' && spec.olderThan !== undefined ? (at: number) => at >= spec.olderThan! : undefined
  if (keep && await everyTile(mt, async (x, y) => {
    const at = await deps.store.mtime({ ...set, z: mt.z, x, y })
    return at !== undefined && keep(at)
  })) return
  const children = spec.pyramid && mt.z < spec.zoomStop ? childPaths(deps.store, set, mt.z, mt.render) : undefined
  await renderIntoStore(deps.render, deps.store, set, {
    layer: spec.layer, gridSet: spec.gridSet, z: mt.z, rect: mt.render, format,
    parameters: spec.parameters ?? {}, signal, children
  })
}

/** Deletes a truncate's tiles (every format of the request, its levels, range or area); returns how many. */
export async function truncateJob (store: BlobStore, job: Pick<JobContext, 'spec' | 'parameterId' | 'range'>, signal: AbortSignal, onDeleted: () => void): Promise<number> {
  const { spec } = job
  return await store.truncate({
    layer: spec.layer.qualifiedName, gridSet: spec.gridSet.id, formats: spec.formats,
    parameterId: job.parameterId, zoomStart: spec.zoomStart, zoomStop: spec.zoomStop,
    rectAt: (z) => rectAt(job.range, z),
    keep: spec.area ? areaTileFilter(job.range, spec.area) : undefined,
    signal, onDeleted
  })
}

/** Why a task stopped, as its resource shows it: no file path or stack (the log has the detail). */
export function abortReason (err: unknown): string {
  if (isStorageFull(err)) return `aborted: ${StorageFull().message}`
  if (err instanceof MapwardenError) return `aborted: ${err.message}`
  const code = (err as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && /^E[A-Z]+$/.test(code)
    ? `aborted: ${code} while rendering or writing tiles (details in the server log)`
    : 'aborted: unexpected failure (details in the server log)'
}

