// Cached tiles follow their style and their data. GeoServer's tile cache truncates a layer when a
// style it uses changes; here exactly the tile sets rendered with the changed style go, and a
// granule harvest or delete drops only the tiles over the changed footprints.
//
// - A style change (an edit, rename or delete of a style a layer uses, a layer's default or allowed
//   styles changed) marks the tile sets concerned stale as of now, in the same database as the
//   catalog: from that moment a cached tile of such a set older than the mark is a miss (rendered
//   again), and a background drop deletes the old files through the blob store, which reports each
//   to the disk quota. The mark goes when the drop is done; a drop cut short by a stop is taken up
//   again at the next start.
// - A data change drops the tiles over the changed footprints in every grid set, format, parameter
//   set and zoom level before the change is answered; its mark only carries it over a crash.
//
// Which style a tile set was rendered with needs its parameters, which a set's directory name (a
// hash) does not tell: each non-default set is recorded here when it is first rendered.
import type { Db } from '../storage/database.js'
import type { LayerInfo } from '../catalog/layers.js'
import type { BlobStore } from './blob-store.js'
import { closestRectangle, fromLonLat, fullRect, gridSet, intersectRect, maxZoom, type BBox } from './grid-sets.js'
import { defaultStyleOf, DEFAULT_PARAMETER_ID, type ParameterSet } from './parameters.js'

export interface InvalidationDeps {
  db: Db
  store: BlobStore
  log?: { info: (obj: object, msg: string) => void, warn: (obj: object, msg: string) => void }
  now?: () => number
}

/** A change of the styles a layer's tiles are drawn with. */
export interface StyleUse {
  layer: string
  /** The layer's default style reference before the change (undefined: the built-in one). */
  defaultStyle?: string
  /** Style references that changed (as the layer names them); a set drawn with one of them is stale. */
  refs: string[]
}

interface Mark { id: number, layer: string, parameterId?: string, area?: BBox, before: number, reason: string }

export function createTileInvalidation ({ db, store, log, now = Date.now }: InvalidationDeps) {
  const q = {
    addSet: db.prepare('INSERT OR IGNORE INTO tile_parameter_sets (layer, parameter_id, parameters) VALUES (?, ?, ?)'),
    sets: db.prepare('SELECT parameter_id, parameters FROM tile_parameter_sets WHERE layer = ?'),
    dropSets: db.prepare('DELETE FROM tile_parameter_sets WHERE layer = ?'),
    addMark: db.prepare('INSERT INTO tile_drops (layer, parameter_id, area, before_ms, reason) VALUES (?, ?, ?, ?, ?)'),
    clearMark: db.prepare('DELETE FROM tile_drops WHERE id = ?'),
    marks: db.prepare('SELECT id, layer, parameter_id, area, before_ms, reason FROM tile_drops ORDER BY id')
  }
  const known = new Set<string>()
  /** Set marks per layer, for the read path (area marks are dropped before their change is answered). */
  const stale = new Map<string, Mark[]>()
  const running = new Set<Promise<void>>()

  const markOf = (r: any): Mark => ({
    id: r.id, layer: r.layer, parameterId: r.parameter_id ?? undefined, area: r.area ? JSON.parse(r.area) : undefined, before: r.before_ms, reason: r.reason
  })
  const remember = (m: Mark) => { if (!m.area) stale.set(m.layer, [...(stale.get(m.layer) ?? []), m]) }
  const forget = (m: Mark) => {
    const left = (stale.get(m.layer) ?? []).filter((x) => x.id !== m.id)
    if (left.length) stale.set(m.layer, left)
    else stale.delete(m.layer)
    q.clearMark.run(m.id)
  }

  /** Deletes the tiles a mark names, older than the mark, from every grid set, format and level. */
  async function drop (m: Mark): Promise<number> {
    let n = 0
    const sets = (await store.tileSets(m.layer)).filter((s) => m.parameterId === undefined || s.parameterId === m.parameterId)
    for (const gridSetId of new Set(sets.map((s) => s.gridSet))) {
      const gs = gridSet(gridSetId)
      if (!gs) continue
      const area = m.area ? fromLonLat(gs, m.area) : undefined
      n += await store.truncate({
        layer: m.layer,
        gridSet: gridSetId,
        parameterId: m.parameterId,
        zoomStart: 0,
        zoomStop: maxZoom(gs),
        olderThan: m.before,
        rectAt: (z) => area ? intersectRect(closestRectangle(gs, z, area), fullRect(gs, z)) : fullRect(gs, z)
      })
    }
    forget(m)
    log?.info({ layer: m.layer, parameterId: m.parameterId ?? '(all)', area: m.area, tiles: n, reason: m.reason }, 'tile cache: dropped tiles of a changed layer')
    return n
  }

  function mark (layer: string, reason: string, opts: { parameterId?: string, area?: BBox } = {}): Mark {
    const before = now()
    const id = Number(q.addMark.run(layer, opts.parameterId ?? null, opts.area ? JSON.stringify(opts.area) : null, before, reason).lastInsertRowid)
    const m: Mark = { id, layer, ...opts, before, reason }
    remember(m)
    return m
  }

  function inBackground (m: Mark): void {
    const p = drop(m).then(() => {}, (err) => log?.warn({ err, layer: m.layer }, 'tile cache: a drop of stale tiles failed; stale tiles stay misses'))
      .finally(() => running.delete(p))
    running.add(p)
  }

  /** The recorded parameter sets of a layer, the default set included. */
  function setsOf (layer: string): Array<{ parameterId: string, parameters: ParameterSet }> {
    const rows = (q.sets.all(layer) as any[]).map((r) => ({ parameterId: r.parameter_id as string, parameters: JSON.parse(r.parameters) as ParameterSet }))
    return [{ parameterId: DEFAULT_PARAMETER_ID, parameters: {} }, ...rows]
  }

  return {
    /** Records the parameters of a tile set when it is first rendered (once per process and set). */
    recordSet (layer: string, parameterId: string, parameters: ParameterSet): void {
      if (parameterId === DEFAULT_PARAMETER_ID) return
      const key = `${layer}\u0000${parameterId}`
      if (known.has(key)) return
      q.addSet.run(layer, parameterId, JSON.stringify(parameters))
      known.add(key)
    },

    /** Whether a cached tile must be rendered again: its set was marked stale after it was written. */
    isStale (layer: string, parameterId: string, mtimeMs: number): boolean {
      const marks = stale.get(layer)
      return marks !== undefined && marks.some((m) => (m.parameterId === undefined || m.parameterId === parameterId) && mtimeMs < m.before)
    },

    /** Styles changed: the tile sets drawn with them go (marked now, deleted in the background). */
    stylesChanged (uses: StyleUse[], reason: string): number {
      let marked = 0
      for (const use of uses) {
        const refs = new Set(use.refs)
        for (const set of setsOf(use.layer)) {
          const drawnWith = set.parameters.STYLES ?? use.defaultStyle
          if (drawnWith === undefined || !refs.has(drawnWith)) continue
          inBackground(mark(use.layer, reason, { parameterId: set.parameterId }))
          marked++
        }
      }
      return marked
    },

    /** A layer's default or allowed styles changed: sets drawn with a default or a style it lost go. */
    layerStylesChanged (before: LayerInfo, after: LayerInfo): number {
      const was = defaultStyleOf(before)
      const is = defaultStyleOf(after)
      let marked = 0
      for (const set of setsOf(before.qualifiedName)) {
        const named = set.parameters.STYLES
        const gone = named === undefined ? was !== is : named === is || !after.styles.includes(named)
        if (!gone) continue
        inBackground(mark(before.qualifiedName, 'the layer\'s styles changed', { parameterId: set.parameterId }))
        marked++
      }
      return marked
    },

    /** Data changed under `areas` (lon/lat boxes; none: the whole layer): the tiles over them go now. */
    async dataChanged (layers: string[], areas: BBox[] | undefined, reason: string): Promise<number> {
      let n = 0
      for (const layer of layers) {
        if (areas === undefined) n += await drop(mark(layer, reason))
        else for (const area of areas) n += await drop(mark(layer, reason, { area }))
      }
      return n
    },

    /** A layer removed: its recorded sets go with its tiles. */
    layerRemoved (layer: string): void {
      q.dropSets.run(layer)
      for (const k of [...known]) if (k.startsWith(`${layer}\u0000`)) known.delete(k)
    },

    /** Start: marks a stop left behind stay in force, and their drops run again. */
    resume (): number {
      const marks = (q.marks.all() as any[]).map(markOf)
      for (const m of marks) { remember(m); inBackground(m) }
      return marks.length
    },

    /** Waits for the background drops (tests, shutdown). */
    async idle (): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running])
    }
  }
}

export type TileInvalidation = ReturnType<typeof createTileInvalidation>
