// Every area keeps its own ordered migration list; ids are '<area>/<nnn>-<what>' and never change
// once released. Core runs first because the areas reference its tables.
import { coreMigrations } from '../catalog/migrations.js'
import { securityMigrations } from '../security/migrations.js'
import { styleMigrations } from '../styles/migrations.js'
import { mosaicMigrations } from '../mosaics/migrations.js'
import { seedMigrations } from '../seed/migrations.js'
import { diskquotaMigrations } from '../diskquota/migrations.js'
import { appschemaMigrations } from '../appschema/migrations.js'
import { settingsMigrations } from '../settings/migrations.js'
import { tilecacheMigrations } from '../tilecache/migrations.js'
import { wfsMigrations } from '../wfs/migrations.js'

export interface Migration {
  id: string
  sql: string
  /** SQLite only: run with foreign keys off (SQLite's table rebuild, the only way to change a CHECK),
   *  and the keys checked before the commit; no effect on PostgreSQL. */
  foreignKeysOff?: boolean
}

export const ALL_MIGRATIONS: Migration[] = [
  ...coreMigrations,
  ...securityMigrations,
  ...styleMigrations,
  ...mosaicMigrations,
  ...seedMigrations,
  ...diskquotaMigrations,
  ...appschemaMigrations,
  ...settingsMigrations,
  ...tilecacheMigrations,
  ...wfsMigrations
]
