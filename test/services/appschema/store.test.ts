// The AppSchemaStore contract, the same cases on SQLite and PostgreSQL (sqlite-store.ts,
// pg-store.ts), then what only several PostgreSQL nodes can do: create stores at the same moment,
// and hear of each other's changes.
import t from 'tap'
import { BACKENDS, openBackend, outcomes, recordChanges, secondNode, type Opened } from '../../fixtures/backends.js'
import { addLayer, addWorkspace, select } from '../../fixtures/catalog-rows.js'
import { createSqliteAppSchemaStore } from '../../../services/appschema/sqlite-store.js'
import { createPgAppSchemaStore } from '../../../services/appschema/pg-store.js'
import { STORE_TYPE, type AppSchemaStore, type FeatureTypeRow, type StoreConfig } from '../../../services/appschema/store.js'

const storeOf = (o: Opened): AppSchemaStore => o.backend === 'pg' ? createPgAppSchemaStore(o.db) : createSqliteAppSchemaStore(o.db)

const config = (dir: string, featureTypeNames: string[]): StoreConfig => ({
  url: `file:/data/${dir}/main.appschema`, namespace: 'http://topp', dir, mainFile: 'main.appschema', featureTypeNames, geometryNames: [], sources: []
})

const ft = (store: string, name: string, more: Partial<FeatureTypeRow> = {}): FeatureTypeRow => ({
  workspace: 'topp',
  store,
  name,
  nativeName: name,
  title: name,
  config: { targetElement: `gsml:${name}`, namespaceUri: 'urn:gsml', sourceDataStore: 'src', sourceType: name, attributes: [] },
  ...more
})

const layers = async (o: Opened) => (await select(o, "SELECT name, type, enabled FROM layers WHERE workspace = 'topp'")).map((r) => `${r.name}:${r.type}:${r.enabled}`).sort()

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('a created store, its feature types in creation order and their layers read back', async (t) => {
      const o = await openBackend(t, backend)
      const rows = storeOf(o)
      await addWorkspace(o, 'topp')
      await addLayer(o, 'topp', 'dem', 'dem', undefined, [])
      const zeta = ft('gsml', 'Zeta', { srs: 'EPSG:4326', bbox: [1, 2, 3, 4] })
      await rows.save('topp', 'gsml', config('v1', ['Zeta', 'alpha']), true, { insert: [zeta, ft('gsml', 'alpha')], update: [] })

      t.same(await rows.getStore('topp', 'gsml'), { workspace: 'topp', name: 'gsml', kind: 'data', type: STORE_TYPE, enabled: true, config: config('v1', ['Zeta', 'alpha']) })
      t.equal(await rows.getStore('topp', 'GSML'), undefined)
      t.same(await rows.dataStoreNames('topp'), ['gsml'], 'data stores only, not the coverage store')
      t.same((await rows.featureTypes('topp', 'gsml')).map((f) => f.name), ['Zeta', 'alpha'], 'in the order created')
      t.same(await rows.featureType('topp', 'gsml', 'Zeta'), zeta)
      t.same(await rows.featureType('topp', 'gsml', 'alpha'), ft('gsml', 'alpha'), 'no srs or bbox keys when there are none')
      t.equal(await rows.featureType('topp', 'gsml', 'dem'), undefined, 'a coverage is no feature type')
      t.equal(await rows.resourceOwner('topp', 'ZETA'), 'gsml', 'resource names compared ignoring case')
      t.equal(await rows.resourceOwner('topp', 'dem'), 'dem')
      t.equal(await rows.resourceOwner('topp', 'beta'), undefined)
      t.same(await layers(o), ['Zeta:VECTOR:1', 'alpha:VECTOR:1', 'dem:RASTER:1'])

      // A second version: new configuration, a kept title, one more feature type after the others.
      await rows.save('topp', 'gsml', config('v2', ['Zeta', 'alpha', 'Mid']), false, {
        insert: [ft('gsml', 'Mid')],
        update: [ft('gsml', 'Zeta', { title: 'ignored', srs: 'EPSG:3857' }), ft('gsml', 'alpha', { bbox: [0, 0, 1, 1] })]
      })
      t.equal((await rows.getStore('topp', 'gsml'))!.config.dir, 'v2')
      t.same((await rows.featureTypes('topp', 'gsml')).map((f) => [f.name, f.title, f.srs, f.bbox]), [
        ['Zeta', 'Zeta', 'EPSG:3857', undefined],
        ['alpha', 'alpha', undefined, [0, 0, 1, 1]],
        ['Mid', 'Mid', undefined, undefined]
      ])

      await rows.save('topp', 'b', config('b1', []), true, { insert: [], update: [] })
      await rows.save('topp', 'A', config('a1', []), true, { insert: [], update: [] })
      t.same(await rows.dataStoreNames('topp'), ['A', 'b', 'gsml'], 'sorted by code point')
      t.same((await rows.appSchemaStores()).map((s) => s.name), ['A', 'b', 'gsml'])
    })

    t.test('a store name that folds like another store\'s is refused, and nothing of the save is written', async (t) => {
      const o = await openBackend(t, backend)
      const rows = storeOf(o)
      await addWorkspace(o, 'topp')
      await addWorkspace(o, 'other')
      await addLayer(o, 'topp', 'Straße', 'dem', undefined, [])
      await t.rejects(rows.checkNewStoreName('topp', 'STRASSE'), { code: 'MW_CORE_STORE_NAME_CLASH', message: /^Store 'STRASSE' clashes with the existing store 'Straße'/ })
      await rows.checkNewStoreName('topp', 'Straße') // its own name: the caller updates it
      await rows.checkNewStoreName('other', 'STRASSE')
      await t.rejects(rows.save('topp', 'STRASSE', config('v1', ['x']), true, { insert: [ft('STRASSE', 'x')], update: [] }), { code: 'MW_CORE_STORE_NAME_CLASH' })
      t.equal(await rows.getStore('topp', 'STRASSE'), undefined)
      t.equal(await rows.resourceOwner('topp', 'x'), undefined)
      t.same(await layers(o), ['dem:RASTER:1'])
    })

    t.test('deleting a store takes its feature types and layers with it', async (t) => {
      const o = await openBackend(t, backend)
      const rows = storeOf(o)
      await addWorkspace(o, 'topp')
      await rows.save('topp', 'gsml', config('v1', ['a', 'b']), true, { insert: [ft('gsml', 'a'), ft('gsml', 'b')], update: [] })
      await rows.save('topp', 'keep', config('k1', ['c']), true, { insert: [ft('keep', 'c')], update: [] })
      await rows.deleteStore('topp', 'gsml')
      t.equal(await rows.getStore('topp', 'gsml'), undefined)
      t.same(await rows.featureTypes('topp', 'gsml'), [])
      t.same(await layers(o), ['c:VECTOR:1'])
      t.same(await rows.dataStoreNames('topp'), ['keep'])
    })
  })
}

t.test('pg: two nodes creating stores whose names differ only in case at once: one wins, the other is refused', async (t) => {
  const o = await openBackend(t, 'pg') as Extract<Opened, { backend: 'pg' }>
  await addWorkspace(o, 'topp')
  const nodes = [createPgAppSchemaStore(o.db), createPgAppSchemaStore(secondNode(t, o.url))]
  for (let round = 0; round < 20; round++) {
    const names = [`Geo${round}`, `GEO${round}`]
    const { ok, failed } = await outcomes(names.map((name, i) =>
      nodes[i].save('topp', name, config(name, [`ft${name}`]), true, { insert: [ft(name, `ft${name}`)], update: [] }).then(() => name)))
    t.equal(ok.length, 1, `round ${round}: one store created`)
    t.same(failed, ['MW_CORE_STORE_NAME_CLASH'], 'the other is refused as the check refuses it')
    const stores = await select(o, 'SELECT name FROM stores WHERE name_key = $1', [`geo${round}`])
    t.same(stores.map((s) => s.name), ok, 'exactly the winner exists')
    t.same((await select(o, 'SELECT store FROM resources WHERE store = ANY($1)', [names])).map((r) => r.store), ok, 'with its feature type only')
  }
})

t.test('pg: app-schema writes are announced on commit, a refused one not at all', async (t) => {
  const o = await openBackend(t, 'pg') as Extract<Opened, { backend: 'pg' }>
  const rows = createPgAppSchemaStore(o.db)
  const changes = await recordChanges(t, o.url, o.db)
  await addWorkspace(o, 'topp')
  await rows.save('topp', 'gsml', config('v1', ['a', 'b']), true, { insert: [ft('gsml', 'a'), ft('gsml', 'b')], update: [] })
  await t.rejects(rows.save('topp', 'GSML', config('v1', []), true, { insert: [], update: [] }), { code: 'MW_CORE_STORE_NAME_CLASH' })
  const gsml = [{ topic: 'appschema', key: 'topp:gsml' }, { topic: 'catalog', key: 'topp' }]
  t.same(await changes.settle(), [...gsml, { topic: 'catalog', key: 'topp:a' }, { topic: 'catalog', key: 'topp:b' }])
  await rows.save('topp', 'gsml', config('v2', ['a', 'b']), false, { insert: [], update: [ft('gsml', 'b')] })
  t.same(await changes.settle(), [...gsml, { topic: 'catalog', key: 'topp:b' }])
  await rows.deleteStore('topp', 'gsml')
  t.same(await changes.settle(), [...gsml, { topic: 'catalog', key: 'topp:a' }, { topic: 'catalog', key: 'topp:b' }])
})
