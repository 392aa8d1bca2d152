import type { Migration } from '../storage/migrations.js'

// This area's tables on PostgreSQL: the same ids as migrations.ts (SQLite).
export const settingsPgMigrations: Migration[] = [
  {
    id: 'settings/001-global',
    sql: `
      CREATE TABLE global_settings (
        id TEXT PRIMARY KEY CHECK (id = 'global'),
        body TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
    `
  },
  {
    id: 'settings/002-services',
    sql: `
      CREATE TABLE service_settings (
        service TEXT NOT NULL CHECK (service IN ('wms', 'wmts', 'wfs')),
        workspace TEXT NOT NULL,
        body TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (service, workspace)
      );
    `
  }
]
