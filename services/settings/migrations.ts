import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'settings/<nnn>-<what>', append only.
// global_settings: GeoServer's global settings (JSON of GlobalSettings), one row, written in the PUT's
// transaction.
export const settingsMigrations: Migration[] = [
  {
    id: 'settings/001-global',
    sql: `
      CREATE TABLE global_settings (
        id TEXT PRIMARY KEY CHECK (id = 'global'),
        body TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
    `
  }
]
