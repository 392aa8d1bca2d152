// core/005-cascaded-stores on an existing SQLite catalog: the stores, resources and layers tables
// are rebuilt with wider CHECKs (foreign keys off for the rebuild, as SQLite's own procedure asks);
// every row stays, the rows that point at them (a mosaic's granule, a layer's tile settings) stay,
// the foreign keys still cascade afterwards, and the new kinds are accepted. PostgreSQL changes
// the CHECK constraints in place (storage/pg/schema.test.ts checks the migrated schema).
import t from 'tap'
import { openDatabase } from '../../../services/storage/sqlite/database.js'
import { ALL_MIGRATIONS } from '../../../services/storage/migrations.js'
import { tempDir } from '../../helper.js'

t.test('the rebuild keeps every row and key, and then admits WMS and WMTS stores and layers', async (t) => {
  const dir = tempDir(t)
  const at = ALL_MIGRATIONS.findIndex((m) => m.id === 'core/005-cascaded-stores')
  t.ok(at > 0)
  // A catalog as it was before: every migration but this one (and those after it, none of which touch these tables).
  let db = openDatabase(dir, ALL_MIGRATIONS.filter((m) => m.id !== 'core/005-cascaded-stores'))
  db.exec(`INSERT INTO workspaces (name, namespace_uri, created_at) VALUES ('w', 'http://w', '2026-01-01');
    INSERT INTO stores (workspace, name, kind, type, config, created_at) VALUES ('w', 'm', 'coverage', 'ImageMosaic', '{}', '2026-01-01');
    INSERT INTO resources (workspace, store, name, kind, native_name, config) VALUES ('w', 'm', 'm', 'coverage', 'm', '{"bands":3}');
    INSERT INTO layers (workspace, name, type, default_style, styles, attribution) VALUES ('w', 'm', 'RASTER', 'raster', '["a"]', '{"title":"t"}');`)
  t.throws(() => db.exec("INSERT INTO stores (workspace, name, kind, type, config, created_at) VALUES ('w', 'c', 'wms', 'WMS', '{}', '2026-01-01')"), /CHECK constraint failed/)
  const referring = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%REFERENCES layers%'").pluck().all() as string[])
  db.close()

  db = openDatabase(dir)
  t.teardown(() => db.close())
  t.same(db.prepare('SELECT workspace, name, kind, type, config FROM stores').all(), [{ workspace: 'w', name: 'm', kind: 'coverage', type: 'ImageMosaic', config: '{}' }])
  t.same(db.prepare('SELECT name, kind, config FROM resources').all(), [{ name: 'm', kind: 'coverage', config: '{"bands":3}' }])
  t.same(db.prepare('SELECT name, type, default_style, styles, attribution FROM layers').all(), [{ name: 'm', type: 'RASTER', default_style: 'raster', styles: '["a"]', attribution: '{"title":"t"}' }])
  t.same(db.pragma('foreign_key_check'), [])
  t.equal(db.pragma('foreign_keys', { simple: true }), 1, 'foreign keys are on again')
  // The tables that refer to layers still do (their REFERENCES name the rebuilt table).
  t.same(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%REFERENCES layers%'").pluck().all(), referring)
  db.exec(`INSERT INTO stores (workspace, name, kind, type, config, created_at) VALUES ('w', 'c', 'wms', 'WMS', '{}', '2026-01-01');
    INSERT INTO resources (workspace, store, name, kind, native_name, config) VALUES ('w', 'c', 'r', 'wmsLayer', 'remote:r', '{}');
    INSERT INTO layers (workspace, name, type) VALUES ('w', 'r', 'WMS');`)
  t.throws(() => db.exec("INSERT INTO stores (workspace, name, kind, type, config, created_at) VALUES ('w', 'x', 'other', 'X', '{}', '2026-01-01')"), /CHECK constraint failed/)
  // Deleting a store still takes its resources and layers with it.
  db.exec("DELETE FROM stores WHERE name = 'c'")
  t.same(db.prepare('SELECT name FROM layers ORDER BY name').pluck().all(), ['m'])
  db.exec("DELETE FROM workspaces WHERE name = 'w'")
  t.same(db.prepare('SELECT count(*) FROM layers').pluck().get(), 0)
})
