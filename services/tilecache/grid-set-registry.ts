// Every grid set this instance knows (GWC's GridSetBroker): the built-in ones of grid-sets.ts and the
// custom ones of GWC's REST, read once from the store into memory and written through it (persisted
// before the memory copy changes). A change and a reload run one at a time: a reload that read the
// rows before a change committed must not install them after it (as layer-settings.ts does).
// On a shared database another instance's change arrives as 'gridsets' on the change bus: reload().
import { GridSetBuiltIn, GridSetInvalid } from '../errors.js'
import { createKeyedQueue } from '../keyed-queue.js'
import { builtInGridSet, GRID_SETS, gridSet, WELL_KNOWN_GRID_SETS, type GridSet, type GridSetLookup } from './grid-sets.js'
import { gridSetOf, type GridSetDefinition } from './grid-set-definition.js'
import type { GridSetStore } from './store.js'

/** The folder of a grid set in the blob store (blob-store.ts: the first ':' becomes '_'). */
const folderOf = (name: string) => name.replace(':', '_')

export async function loadGridSets (store: GridSetStore, log?: { warn: (obj: object, msg: string) => void }) {
  let custom = new Map<string, { def: GridSetDefinition, gs: GridSet }>()
  const read = async () => {
    const next = new Map<string, { def: GridSetDefinition, gs: GridSet }>()
    for (const r of await store.all()) {
      try {
        const def = JSON.parse(r.body) as GridSetDefinition
        next.set(r.name, { def, gs: gridSetOf(def) })
      } catch (err) { log?.warn({ err, gridSet: r.name }, 'a stored grid set cannot be read; it is left out') }
    }
    return next
  }
  custom = await read()
  const serialized = createKeyedQueue()
  const oneAtATime = <T>(fn: () => Promise<T>): Promise<T> => serialized('gridsets', fn)

  const get = (id: string): GridSet | undefined => gridSet(id) ?? custom.get(id)?.gs
  const lookup: GridSetLookup = { get, all: () => [...Object.values(GRID_SETS), ...[...custom.values()].map((c) => c.gs)] }
  return {
    ...lookup,
    /** Every name, built-in and custom, sorted (GWC's broker keeps them in a TreeSet). */
    names: (): string[] => [...Object.keys(GRID_SETS), ...Object.keys(WELL_KNOWN_GRID_SETS), ...custom.keys()].sort(),
    /** Any grid set the REST shows: also GWC's well-known ones that no layer offers. */
    describe: (id: string): GridSet | undefined => builtInGridSet(id) ?? custom.get(id)?.gs,
    custom: (): GridSet[] => [...custom.values()].map((c) => c.gs),
    /** Creates or replaces a custom grid set; true when created. Built-in names are refused (405). */
    put: (def: GridSetDefinition): Promise<boolean> => oneAtATime(async () => {
      if (builtInGridSet(def.name)) throw GridSetBuiltIn(def.name, 'changed')
      // Two names that share a folder of the blob store would share their tiles.
      const clash = [...lookup.all(), ...Object.values(WELL_KNOWN_GRID_SETS)].find((g) => g.id !== def.name && folderOf(g.id) === folderOf(def.name))
      if (clash) throw GridSetInvalid('name', JSON.stringify(def.name), `its tiles would share the folder of grid set ${clash.id}`)
      const created = await store.put(def.name, JSON.stringify(def))
      custom.set(def.name, { def, gs: gridSetOf(def) })
      return created
    }),
    /** Removes a custom grid set; false when there is none of that name. */
    remove: (name: string): Promise<boolean> => oneAtATime(async () => {
      if (builtInGridSet(name)) throw GridSetBuiltIn(name, 'deleted')
      const removed = await store.remove(name)
      custom.delete(name)
      return removed
    }),
    /** Another instance changed grid sets (a shared database): read them all again. */
    reload: (): Promise<void> => oneAtATime(async () => { custom = await read() })
  }
}

export type GridSetRegistry = Awaited<ReturnType<typeof loadGridSets>>
