// What the render plan (services/render/raster/render-plan.ts) reads of the index, kept in memory:
// a layer's coverage row, its mosaic's record, the latest/lowest dimension values, and the
// granules a filter selects (the whole list of a mosaic of at most `granules` granules; a metatile's
// bbox then picks from it here). Seeding asked the database three times per metatile for the same
// answers. The cache is dropped whole by every write of the mosaic store (before it and once it
// committed), by the removal of a layer or workspace, and by a change another node announces
// ('mosaics', 'catalog', a resync: create-services.ts follows them). A read that began before a
// write answers its caller as it was, but is not kept.
import type { Granule, MosaicStore } from './store.js'

/** Store methods that only read: every other method is a write and drops the cache. */
const READS = new Set<keyof MosaicStore>(['getMosaic', 'listMosaics', 'query', 'count', 'getBySeq', 'extent', 'minMax', 'distinct', 'store', 'checkNewStoreName',
  'coverages', 'workspaceCoverages', 'workspaceStores', 'coverage', 'resourceExists', 'layerCoverage', 'openReplaces', 'pendingPurges'])

type Bbox = [number, number, number, number]

/**
 * Whether a footprint intersects a box, touching included, as the index compares them: with a
 * little slack (float precision), since PostGIS and SQLite's R*Tree compare single-precision
 * boxes rounded outwards. A granule kept by the slack only touches the box: it draws nothing.
 */
function intersects (g: Bbox, q: Bbox): boolean {
  const slack = (a: number, b: number) => (Math.abs(a) + Math.abs(b)) * 2 ** -22
  return g[0] - slack(g[0], q[2]) <= q[2] && g[2] + slack(g[2], q[0]) >= q[0] &&
    g[1] - slack(g[1], q[3]) <= q[3] && g[3] + slack(g[3], q[1]) >= q[1]
}

export interface PlanCacheLimits {
  /** Granules of one mosaic (and filter) kept; a larger mosaic is queried per render. */
  granules: number
  /** Answers kept in all; past it, the cache starts again. */
  entries: number
}

export function createPlanCache (store: MosaicStore, limits: PlanCacheLimits = { granules: 1000, entries: 512 }) {
  const entries = new Map<string, Promise<unknown>>()
  const invalidate = () => { entries.clear() }

  function cached<T> (key: string, load: () => Promise<T>): Promise<T> {
    const hit = entries.get(key) as Promise<T> | undefined
    if (hit) return hit
    const p = load()
    if (entries.size >= limits.entries) entries.clear()
    entries.set(key, p)
    p.catch(() => { if (entries.get(key) === p) entries.delete(key) })
    return p
  }

  // The store every part of the mosaic service writes through: each write drops the cache.
  const writing = { ...store }
  for (const name of Object.keys(store) as Array<keyof MosaicStore>) {
    if (READS.has(name) || typeof store[name] !== 'function') continue
    const write = store[name] as (...args: unknown[]) => Promise<unknown>
    ;(writing as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      invalidate()
      try { return await write(...args) } finally { invalidate() }
    }
  }

  const key = (...parts: unknown[]) => JSON.stringify(parts)
  // What the render plan reads, answered from memory once read.
  const reads: MosaicStore = {
    ...writing,
    layerCoverage: (ws, layer) => cached(key('layer', ws, layer), () => store.layerCoverage(ws, layer)),
    getMosaic: (ws, name) => cached(key('mosaic', ws, name), () => store.getMosaic(ws, name)),
    minMax: (ws, name, attribute, filter) => cached(key('minMax', ws, name, attribute, filter ?? null), () => store.minMax(ws, name, attribute, filter)),
    async query (ws, name, q = {}) {
      if (!q.bbox || q.offset) return await store.query(ws, name, q)
      const all = await cached<Granule[]>(key('granules', ws, name, q.filter ?? null), () => store.query(ws, name, { filter: q.filter, limit: limits.granules + 1 }))
      if (all.length > limits.granules) return await store.query(ws, name, q)
      const box = q.bbox
      const hits = all.filter((g) => intersects(g.bbox, box))
      return q.limit !== undefined && q.limit >= 0 ? hits.slice(0, q.limit) : hits
    }
  }

  return {
    /** The store to write through (every write drops the cache). */
    store: writing as MosaicStore,
    /** The store the render plan reads (cached). */
    reads,
    /** Drops everything kept: a change made elsewhere (another node, the catalog). */
    invalidate
  }
}
