// What an instance keeps in memory of the tile cache's shared state (tile settings, drop marks, grid sets) is
// re-read when another instance announces a change. A re-read whose rows were read before this
// instance's own write committed must never install them after it: the write would be lost from
// memory until the next change (CI saw a tile answered with the old max-age after a PUT).
import t from 'tap'
import { loadTileSettings, DEFAULT_TILE_SETTINGS, type TileLayerSettings } from '../../../services/tilecache/layer-settings.js'
import { createTileInvalidation } from '../../../services/tilecache/tile-invalidation.js'
import type { DropMark, GridSetStore, TileSetStore, TileSettingsStore } from '../../../services/tilecache/store.js'
import { loadGridSets } from '../../../services/tilecache/grid-set-registry.js'
import { parseGridSet } from '../../../services/tilecache/grid-set-definition.js'
import type { BlobStore } from '../../../services/tilecache/blob-store.js'

/** A promise and the function that settles it. */
function gate () {
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  return { open, opened }
}

t.test('a settings reload in flight does not undo a write made meanwhile', async (t) => {
  const rows = new Map<string, TileLayerSettings>([['topp:world', { ...DEFAULT_TILE_SETTINGS, expireCache: 120, expireClients: 45 }]])
  let hold: ReturnType<typeof gate> | undefined
  const store: TileSettingsStore = {
    async all () {
      const snapshot = [...rows].map(([k, settings]) => ({ workspace: k.split(':')[0], name: k.split(':')[1], settings }))
      if (hold) await hold.opened
      return snapshot
    },
    async put (ws, name, s) { rows.set(`${ws}:${name}`, s) },
    async remove (ws, name) { rows.delete(`${ws}:${name}`) }
  }
  const settings = await loadTileSettings(store)
  t.equal(settings.get('topp', 'world').expireClients, 45)
  hold = gate()
  const reload = settings.reload() // reads the rows as they are now, then waits
  const write = settings.set('topp', 'world', { ...DEFAULT_TILE_SETTINGS }) // back to the defaults
  hold.open()
  await Promise.all([reload, write])
  t.same(settings.get('topp', 'world'), DEFAULT_TILE_SETTINGS, 'the write is what memory holds')
  t.equal(rows.size, 0)
  hold = undefined
  await settings.reload()
  t.same(settings.get('topp', 'world'), DEFAULT_TILE_SETTINGS)
})

t.test('a marks reload keeps the marks this instance made, recorded or not, and never brings back a lifted one', async (t) => {
  const recorded = new Map<number, DropMark & { id: number }>()
  let nextId = 1
  let holdAdd: ReturnType<typeof gate> | undefined
  let holdRead: ReturnType<typeof gate> | undefined
  const sets: TileSetStore = {
    async addSet () {},
    async sets () { return [] },
    async removeSets () {},
    async addMark (m) {
      if (holdAdd) await holdAdd.opened
      const id = nextId++
      recorded.set(id, { ...m, id })
      return id
    },
    async clearMark (id) { recorded.delete(id) },
    async marks () {
      const snapshot = [...recorded.values()]
      if (holdRead) await holdRead.opened
      return snapshot
    }
  }
  // A blob store with nothing on disk: a drop has nothing to delete (it waits while holdDrop is shut).
  let holdDrop: ReturnType<typeof gate> | undefined
  const store = { tileSets: async () => { if (holdDrop) await holdDrop.opened; return [] }, truncate: async () => 0 } as unknown as BlobStore
  let clock = 1000
  const invalidation = createTileInvalidation({ sets, store, now: () => clock })

  // A mark not yet recorded when a reload lands: the reload keeps it in force.
  holdAdd = gate()
  const changed = invalidation.dataChanged(['topp:world'], undefined, 'data')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(invalidation.inForce('topp:world').length, 1, 'in force before it is recorded')
  await invalidation.reload()
  t.equal(invalidation.inForce('topp:world').length, 1, 'a reload keeps it')
  t.ok(invalidation.isStale('topp:world', 'default', 999), 'an older tile is stale')
  holdAdd.open()
  holdAdd = undefined
  await changed
  await invalidation.idle()
  t.equal(invalidation.inForce('topp:world').length, 0, 'lifted once its tiles are dropped')
  t.equal(recorded.size, 0)

  // A reload that read the marks before a lift does not install the lifted mark again.
  clock = 2000
  holdDrop = gate()
  const another = invalidation.dataChanged(['topp:world'], undefined, 'data again')
  while (recorded.size === 0) await new Promise((resolve) => setImmediate(resolve))
  holdRead = gate()
  const reload = invalidation.reload() // reads the recorded mark, then waits
  holdDrop.open() // the drop ends and lifts the mark meanwhile
  await new Promise((resolve) => setImmediate(resolve))
  holdRead.open()
  await Promise.all([reload, another])
  holdRead = undefined
  holdDrop = undefined
  t.equal(invalidation.inForce('topp:world').length, 0, 'no mark comes back')
  t.notOk(invalidation.isStale('topp:world', 'default', 1500), 'a tile older than the lifted mark is not stale')
})

t.test('a grid set reload in flight does not undo a PUT or a DELETE made meanwhile', async (t) => {
  const rows = new Map<string, string>()
  let hold: ReturnType<typeof gate> | undefined
  const store: GridSetStore = {
    async all () {
      const snapshot = [...rows].map(([name, body]) => ({ name, body }))
      if (hold) await hold.opened
      return snapshot
    },
    async put (name, body) { const created = !rows.has(name); rows.set(name, body); return created },
    async remove (name) { return rows.delete(name) }
  }
  const def = parseGridSet('OSGB', { srs: { number: '27700' }, extent: { coords: { double: ['0', '0', '700000', '1300000'] } }, resolutions: { double: ['2000', '1000'] } })
  const gridSets = await loadGridSets(store)
  t.equal(gridSets.get('OSGB'), undefined)
  hold = gate()
  let reload = gridSets.reload() // reads no rows, then waits
  const put = gridSets.put(def)
  hold.open()
  await Promise.all([reload, put])
  t.equal(gridSets.get('OSGB')?.srs, 'EPSG:27700', 'the PUT is what memory holds')
  hold = gate()
  reload = gridSets.reload() // reads the row, then waits
  const removed = gridSets.remove('OSGB')
  hold.open()
  t.equal(await removed, true)
  await reload
  t.equal(gridSets.get('OSGB'), undefined, 'the DELETE is what memory holds')
  t.equal(rows.size, 0)
})
