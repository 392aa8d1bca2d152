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
import type { LayerInfo } from '../catalog/layers.js'
import type { BlobStore } from './blob-store.js'
import type { DropMark, TileSetStore } from './store.js'
import { BUILT_IN_LOOKUP, closestRectangle, fromLonLat, fullRect, intersectRect, maxZoom, type BBox, type GridSetLookup } from './grid-sets.js'
import { defaultStyleOf, DEFAULT_PARAMETER_ID, type ParameterSet } from './parameters.js'
import { createKeyedQueue } from '../keyed-queue.js'

export interface InvalidationDeps {
  sets: TileSetStore
  store: BlobStore
  /** The grid sets whose tiles may be on disk (built-in and custom). */
  gridSets?: GridSetLookup
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

/** A drop in force; `id` is its record's (0 until recorded). */
export interface Mark extends DropMark { id: number }

export function createTileInvalidation ({ sets, store, gridSets = BUILT_IN_LOOKUP, log, now = Date.now }: InvalidationDeps) {
  const known = new Set<string>()
  /** Set marks per layer, for the read path (area marks are dropped before their change is answered). */
  const stale = new Map<string, Mark[]>()
  const running = new Set<Promise<void>>()

  /** Marks this instance made and has not lifted yet: a reload keeps them, recorded or not. */
  const own = new Set<Mark>()
  // A reload and the lifting of a mark run one at a time: a reload that read the marks before a lift
  // must not install the lifted mark again.
  const serialized = createKeyedQueue()
  const oneAtATime = <T>(fn: () => Promise<T>): Promise<T> => serialized('marks', fn)
  const remember = (m: Mark) => { if (!m.area) stale.set(m.layer, [...(stale.get(m.layer) ?? []), m]) }
  const forget = (m: Mark) => oneAtATime(async () => {
    await sets.clearMark(m.id)
    own.delete(m)
    const left = (stale.get(m.layer) ?? []).filter((x) => x !== m)
    if (left.length) stale.set(m.layer, left)
    else stale.delete(m.layer)
  })

  /** Deletes the tiles a mark names, older than the mark, from every grid set, format and level. */
  async function drop (m: Mark): Promise<number> {
    let n = 0
    const onDisk = (await store.tileSets(m.layer)).filter((s) => m.parameterId === undefined || s.parameterId === m.parameterId)
    for (const gridSetId of new Set(onDisk.map((s) => s.gridSet))) {
      const gs = gridSets.get(gridSetId)
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
    await forget(m)
    log?.info({ layer: m.layer, parameterId: m.parameterId ?? '(all)', area: m.area, tiles: n, reason: m.reason }, 'tile cache: dropped tiles of a changed layer')
    return n
  }

  /** A set mark is in force for reads at once, before its record is written. */
  async function mark (layer: string, reason: string, opts: { parameterId?: string, area?: BBox } = {}): Promise<Mark> {
    const m: Mark = { id: 0, layer, ...opts, before: now(), reason }
    own.add(m)
    remember(m)
    m.id = await sets.addMark(m)
    return m
  }

  /** Drops the mark's tiles in the background; returns the mark once it is on record. */
  function inBackground (layer: string, m: Mark | Promise<Mark>): Promise<Mark> {
    const p = Promise.resolve(m).then(drop).then(() => {}, (err) => log?.warn({ err, layer }, 'tile cache: a drop of stale tiles failed; stale tiles stay misses'))
      .finally(() => running.delete(p))
    running.add(p)
    return Promise.resolve(m)
  }

  /** Work that leads to background drops (the lookup of the sets to mark): idle() waits for it too,
   *  as the lookup is a database round trip on PostgreSQL. */
  function tracked<T> (work: Promise<T>): Promise<T> {
    const p: Promise<void> = work.then(() => {}, () => {}).finally(() => running.delete(p))
    running.add(p)
    return work
  }

  /** The recorded parameter sets of some layers, the default set of each included. */
  async function setsOf (layers: string[]): Promise<Array<{ layer: string, parameterId: string, parameters: ParameterSet }>> {
    return [...layers.map((layer) => ({ layer, parameterId: DEFAULT_PARAMETER_ID, parameters: {} })), ...await sets.sets(layers)]
  }

  /** Styles changed: the tile sets drawn with them go (marked now, deleted in the background). */
  async function stylesChangedNow (uses: StyleUse[], reason: string): Promise<number> {
    const recorded: Array<Promise<Mark>> = []
    const all = await setsOf([...new Set(uses.map((u) => u.layer))])
    for (const use of uses) {
      const refs = new Set(use.refs)
      for (const set of all) {
        if (set.layer !== use.layer) continue
        const drawnWith = set.parameters.STYLES ?? use.defaultStyle
        if (drawnWith === undefined || !refs.has(drawnWith)) continue
        recorded.push(inBackground(use.layer, mark(use.layer, reason, { parameterId: set.parameterId })))
      }
    }
    // Resolves once the marks are on record: in force for every instance of a shared database.
    await Promise.all(recorded)
    return recorded.length
  }

  /** A layer's default or allowed styles changed: sets drawn with a default or a style it lost go. */
  async function layerStylesChangedNow (before: LayerInfo, after: LayerInfo): Promise<number> {
    const was = defaultStyleOf(before)
    const is = defaultStyleOf(after)
    const recorded: Array<Promise<Mark>> = []
    for (const set of await setsOf([before.qualifiedName])) {
      const named = set.parameters.STYLES
      const gone = named === undefined ? was !== is : named === is || !after.styles.includes(named)
      if (!gone) continue
      recorded.push(inBackground(before.qualifiedName, mark(before.qualifiedName, 'the layer\'s styles changed', { parameterId: set.parameterId })))
    }
    await Promise.all(recorded)
    return recorded.length
  }

  return {
    /** Records the parameters of a tile set when it is first rendered (once per process and set). */
    async recordSet (layer: string, parameterId: string, parameters: ParameterSet): Promise<void> {
      if (parameterId === DEFAULT_PARAMETER_ID) return
      const key = `${layer}\u0000${parameterId}`
      if (known.has(key)) return
      await sets.addSet(layer, parameterId, parameters)
      known.add(key)
    },

    /**
     * The marks in force for a layer now. A read takes them before it reads the tile and hands them
     * to isStale: a drop that ends (and lifts its mark) while the read is in flight may have deleted
     * the file after the read had its bytes, and its mark must still rule them.
     */
    inForce (layer: string): readonly Mark[] {
      return stale.get(layer) ?? []
    },

    /** Whether a cached tile must be rendered again: its set was marked stale after it was written
     *  (by a mark in force now or among `before`, those in force when its read began). */
    isStale (layer: string, parameterId: string, mtimeMs: number, before: readonly Mark[] = []): boolean {
      const rules = (m: Mark) => (m.parameterId === undefined || m.parameterId === parameterId) && mtimeMs < m.before
      return before.some(rules) || (stale.get(layer)?.some(rules) ?? false)
    },

    /** Styles changed: the tile sets drawn with them go (marked now, deleted in the background). */
    async stylesChanged (uses: StyleUse[], reason: string): Promise<number> {
      return await tracked(stylesChangedNow(uses, reason))
    },

    /** A layer's default or allowed styles changed: sets drawn with a default or a style it lost go. */
    async layerStylesChanged (before: LayerInfo, after: LayerInfo): Promise<number> {
      return await tracked(layerStylesChangedNow(before, after))
    },

    /** Data changed under `areas` (lon/lat boxes; none: the whole layer): the tiles over them go now. */
    async dataChanged (layers: string[], areas: BBox[] | undefined, reason: string): Promise<number> {
      let n = 0
      for (const layer of layers) {
        if (areas === undefined) n += await drop(await mark(layer, reason))
        else for (const area of areas) n += await drop(await mark(layer, reason, { area }))
      }
      return n
    },

    /**
     * A mass truncation (GWC's masstruncate): the layer's tiles, or one parameter set's, go now, in
     * every grid set, format and level; the mark carries the drop over a crash, as for a data change.
     */
    async truncate (layer: string, reason: string, parameterId?: string): Promise<number> {
      return await drop(await mark(layer, reason, parameterId === undefined ? {} : { parameterId }))
    },

    /** The parameter sets recorded for a layer (those rendered besides the default one). */
    async recordedSets (layer: string): Promise<Array<{ parameterId: string, parameters: ParameterSet }>> {
      return (await sets.sets([layer])).map(({ parameterId, parameters }) => ({ parameterId, parameters }))
    },

    /** A layer removed: its recorded sets go with its tiles. */
    async layerRemoved (layer: string): Promise<void> {
      await sets.removeSets(layer)
      for (const k of [...known]) if (k.startsWith(`${layer}\u0000`)) known.delete(k)
    },

    /** Start: marks a stop left behind stay in force, and their drops run again. */
    async resume (): Promise<number> {
      const marks = await sets.marks()
      for (const m of marks) { remember(m); inBackground(m.layer, m) }
      return marks.length
    },

    /**
     * Another instance changed the marks (a shared database): the read path takes the marks in
     * force from the store; their drops are that instance's to run.
     */
    reload: (): Promise<void> => oneAtATime(async () => {
      const marks = await sets.marks()
      const mine = new Set([...own].map((m) => m.id))
      stale.clear()
      for (const m of marks) if (!mine.has(m.id)) remember(m)
      for (const m of own) remember(m)
    }),

    /** Waits for the background drops (tests, shutdown). */
    async idle (): Promise<void> {
      while (running.size > 0) await Promise.allSettled([...running])
    }
  }
}

export type TileInvalidation = ReturnType<typeof createTileInvalidation>
