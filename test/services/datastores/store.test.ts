// The DataStoreRows contract (PostGIS data stores), the same cases on SQLite and PostgreSQL
// (sqlite-store.ts, pg-store.ts), then two PostgreSQL nodes creating the same name at once.
import t from 'tap'
import { BACKENDS, openBackend, outcomes, secondNode, type Opened } from '../../fixtures/backends.js'
import { addStore, addWorkspace, select } from '../../fixtures/catalog-rows.js'
import { createSqliteDataStoreRows } from '../../../services/datastores/sqlite-store.js'
import { createPgDataStoreRows } from '../../../services/datastores/pg-store.js'
import { POSTGIS_TYPE, type DataStoreRow, type DataStoreRows } from '../../../services/datastores/store.js'

const rowsOf = (o: Opened): DataStoreRows => o.backend === 'pg' ? createPgDataStoreRows(o.db) : createSqliteDataStoreRows(o.db)

const store = (name: string, more: Partial<DataStoreRow> = {}): DataStoreRow => ({
  workspace: 'topp',
  name,
  kind: 'data',
  type: POSTGIS_TYPE,
  enabled: true,
  createdAt: '2026-01-02T03:04:05.000Z',
  config: { connectionParameters: { host: 'db', port: '5432', database: 'gis', user: 'u', passwd: 'crypt2:v1.x.y.z', dbtype: 'postgis' } },
  ...more
})

for (const backend of BACKENDS) {
  t.test(backend, async (t) => {
    t.test('a store read back as written; updated fields; deleted with its feature types', async (t) => {
      const o = await openBackend(t, backend)
      const rows = rowsOf(o)
      await addWorkspace(o, 'topp')
      await rows.insert(store('nyc', { description: 'New York' }))
      t.same(await rows.get('topp', 'nyc'), store('nyc', { description: 'New York' }))
      t.equal(await rows.get('topp', 'NYC'), undefined, 'exact names only')
      const changed = store('nyc', { enabled: false, config: { connectionParameters: { host: 'other', dbtype: 'postgis' }, disableOnConnFailure: true } })
      await rows.update(changed)
      t.same(await rows.get('topp', 'nyc'), changed, 'no description once it is removed')
      t.equal(await rows.featureTypeCount('topp', 'nyc'), 0)
    })

    t.test('one name space with every other store: exact and case-folded names are refused', async (t) => {
      const o = await openBackend(t, backend)
      const rows = rowsOf(o)
      await addWorkspace(o, 'topp')
      await addStore(o, { workspace: 'topp', name: 'dem', kind: 'coverage', type: 'GeoTIFF', config: '{}', createdAt: '2026-01-01T00:00:00Z' })
      await t.rejects(rows.insert(store('dem')), { code: 'MW_DATASTORE_EXISTS', message: "Store 'dem' already exists in workspace 'topp'" })
      await t.rejects(rows.insert(store('DEM')), { code: 'MW_CORE_STORE_NAME_CLASH' })
      t.same((await select(o, "SELECT name FROM stores WHERE workspace = 'topp'")).map((r) => r.name), ['dem'])
    })

    t.test('feature types are counted, and go with the store', async (t) => {
      const o = await openBackend(t, backend)
      const rows = rowsOf(o)
      await addWorkspace(o, 'topp')
      await rows.insert(store('nyc'))
      const ft = ['topp', 'nyc', 'roads', 'featureType', 'roads', '{}']
      if (o.backend === 'pg') await o.db.query('INSERT INTO resources (workspace, store, name, name_key, kind, native_name, config) VALUES ($1, $2, $3, $3, $4, $5, $6)', ft)
      else o.db.prepare('INSERT INTO resources (workspace, store, name, kind, native_name, config) VALUES (?, ?, ?, ?, ?, ?)').run(...ft)
      t.equal(await rows.featureTypeCount('topp', 'nyc'), 1)
      await rows.delete('topp', 'nyc')
      t.equal(await rows.get('topp', 'nyc'), undefined)
      t.same(await select(o, "SELECT name FROM resources WHERE workspace = 'topp'"), [])
    })
  })
}

t.test('pg: two nodes creating names that fold the same at one moment: one store, the other refused as the check refuses it', async (t) => {
  const o = await openBackend(t, 'pg')
  if (o.backend !== 'pg') return
  await addWorkspace(o, 'topp')
  const nodes = [createPgDataStoreRows(o.db), createPgDataStoreRows(secondNode(t, o.url))]
  for (let round = 0; round < 10; round++) {
    const names = [`Pg${round}`, `PG${round}`]
    const { ok, failed } = await outcomes(names.map((name, i) => nodes[i].insert(store(name)).then(() => name)))
    t.equal(ok.length, 1, `round ${round}: one store created`)
    t.same(failed, ['MW_CORE_STORE_NAME_CLASH'])
    const same = [`Same${round}`, `Same${round}`]
    const r = await outcomes(same.map((name, i) => nodes[i].insert(store(name)).then(() => name)))
    t.equal(r.ok.length, 1)
    t.same(r.failed, ['MW_DATASTORE_EXISTS'])
  }
})
