// Each area writes its PostgreSQL migrations itself (no SQLite DDL rewritten by pattern): the ids
// must stay those of its SQLite migrations, in the same order, or a database migrated before would
// apply a table twice or miss one.
import t from 'tap'
import { ALL_MIGRATIONS } from '../../../../services/storage/migrations.js'
import { AREA_PG_MIGRATIONS, PG_MIGRATIONS } from '../../../../services/storage/pg/schema.js'

t.test('every SQLite migration has its PostgreSQL migration, same id, same order', async (t) => {
  t.same(AREA_PG_MIGRATIONS.map((m) => m.id), ALL_MIGRATIONS.map((m) => m.id))
  t.same(PG_MIGRATIONS.slice(0, AREA_PG_MIGRATIONS.length).map((m) => m.id), ALL_MIGRATIONS.map((m) => m.id), 'the areas\' tables come before the PostgreSQL-only additions')
})

t.test('the PostgreSQL migrations use none of SQLite\'s words', async (t) => {
  for (const m of PG_MIGRATIONS) {
    t.notMatch(m.sql, /\bAUTOINCREMENT\b|\bINTEGER PRIMARY KEY\b|\bVIRTUAL TABLE\b|\bifnull\(|\bREAL\b/, m.id)
  }
})
