import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'settings/<nnn>-<what>', append only.
// global_settings: GeoServer's global settings (JSON of GlobalSettings), one row, written in the PUT's
// transaction.
// service_settings: GeoServer's service settings (WMS, WMTS, WFS), one row per service ('' workspace)
// and per workspace with its own; written in the PUT's transaction.
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
