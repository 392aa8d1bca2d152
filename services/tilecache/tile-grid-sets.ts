// GeoWebCache's grid sets as the REST sees them (GridSetController): the names, one grid set, a custom
// one created or replaced (PUT), one deleted. Built-in grid sets cannot be changed or deleted (405).
// A grid set's tiles are indexed by its grid: when a custom grid set is replaced or deleted, every
// layer's tiles in it are dropped (through the blob store, so the disk quota follows), as GeoServer
// drops a grid set's tiles and subsets from its layers when the grid set is removed; seed tasks
// working in it are killed first, so none writes tiles after the drop.
import { GridSetNotFound } from '../errors.js'
import { parseGridSet, type GridSetDefinition } from './grid-set-definition.js'
import { fullRect, maxZoom, type GridSet } from './grid-sets.js'
import type { TileCacheContext } from './tile-cache-context.js'
import type { Breeder } from '../seed/breeder.js'

export function gridSetOperations (ctx: TileCacheContext, breeder?: Pick<Breeder, 'list' | 'killTask' | 'settle'>) {
  const { deps } = ctx
  const registry = () => {
    if (!deps.gridSets) throw new Error('the tile cache was built without a grid set registry')
    return deps.gridSets
  }

  /** Drops every layer's tiles in a grid set (its old grid), after stopping the seed tasks that
   *  write them. Returns how many tiles went. */
  async function dropTiles (gs: GridSet): Promise<number> {
    const working = (breeder?.list() ?? []).filter((task) => task.job.spec.gridSet.id === gs.id)
    for (const task of working) await breeder!.killTask(task.id)
    // A killed task's metatiles in hand still finish: wait for them, so none lands after the drop.
    if (working.length > 0) await breeder!.settle()
    let n = 0
    for (const layer of await deps.layers.list()) {
      n += await ctx.store.truncate({ layer: layer.qualifiedName, gridSet: gs.id, zoomStart: 0, zoomStop: maxZoom(gs), rectAt: (z) => fullRect(gs, z) })
    }
    return n
  }

  return {
    /** Every grid set's name: the built-in ones, then the custom ones. */
    gridSetNames: (): string[] => deps.gridSets?.names() ?? ctx.gridSets.all().map((g) => g.id),
    /** A grid set by name; unknown: 404 with GWC's message. */
    gridSet (name: string): GridSet {
      const gs = deps.gridSets ? deps.gridSets.describe(name) : ctx.gridSets.get(name)
      if (!gs) throw GridSetNotFound(`Failed to get GridSet. A GridSet with name "${name}" does not exist.`)
      return gs
    },
    /** A grid set by name (also a WMTS TileMatrixSet or a TMS srs), or undefined. */
    findGridSet: (name: string): GridSet | undefined => ctx.gridSets.get(name),
    /** The grid sets a layer offers (its grid subsets', else built-in and the custom ones its bounds meet). */
    gridSetsOf: ctx.gridSetsOf,
    /** A layer's subset of a grid set (levels, extent), undefined when it does not offer it. */
    subsetOf: ctx.subsetOf,
    gridsOf: ctx.gridsOf,
    /** PUT gridsets/<name>: validated whole (400 naming the field), stored, then in force here and,
     *  on a shared database, on every instance. True when created (201), false when replaced (200). */
    async putGridSet (name: string, body: Record<string, unknown>): Promise<{ created: boolean, definition: GridSetDefinition }> {
      const def = parseGridSet(name, body)
      const before = ctx.gridSets.get(name)
      const created = await registry().put(def)
      if (before && !before.builtIn) {
        const n = await dropTiles(before)
        if (n > 0) deps.log?.info({ gridSet: name, tiles: n }, 'grid set changed: its tiles were dropped')
      }
      return { created, definition: def }
    },
    /** DELETE gridsets/<name>: the grid set goes from every layer, with its tiles. */
    async deleteGridSet (name: string): Promise<void> {
      const gs = deps.gridSets ? deps.gridSets.describe(name) : ctx.gridSets.get(name)
      if (!gs) throw GridSetNotFound(`Failed to remove GridSet. A GridSet with name "${name}" does not exist.`)
      await registry().remove(name)
      const n = await dropTiles(gs)
      if (n > 0) deps.log?.info({ gridSet: name, tiles: n }, 'grid set deleted: its tiles were dropped')
    }
  }
}
