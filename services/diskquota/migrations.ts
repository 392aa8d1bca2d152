import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'diskquota/<nnn>-<what>', append only.
// dq_config: the one configuration row (JSON of QuotaConfig), written in the PUT's transaction.
// dq_tilesets: usage per tile set (GWC TileSet), the sum of its pages.
// dq_pages: GWC's TilePage + PageStats, with exact tile and byte counts per page.
// dq_page_geometry: how each (layer, grid set, zoom) is paged, fixed when first seen so that a
//   later change of the layer's bounds never moves tiles between pages.
// dq_state: last clean-up time, whether usage has been built from the files on disk.
export const diskquotaMigrations: Migration[] = [
  {
    id: 'diskquota/001-usage',
    sql: `
      CREATE TABLE dq_config (id INTEGER PRIMARY KEY CHECK (id = 1), body TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE TABLE dq_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE dq_tilesets (
        id TEXT PRIMARY KEY,
        layer TEXT NOT NULL,
        grid_set TEXT NOT NULL,
        format TEXT NOT NULL,
        parameter_id TEXT NOT NULL,
        tiles INTEGER NOT NULL DEFAULT 0 CHECK (tiles >= 0),
        bytes INTEGER NOT NULL DEFAULT 0 CHECK (bytes >= 0)
      );
      CREATE INDEX dq_tilesets_layer ON dq_tilesets (layer);
      CREATE TABLE dq_page_geometry (
        layer TEXT NOT NULL,
        grid_set TEXT NOT NULL,
        z INTEGER NOT NULL,
        min_x INTEGER NOT NULL, min_y INTEGER NOT NULL,
        tiles_x INTEGER NOT NULL CHECK (tiles_x > 0), tiles_y INTEGER NOT NULL CHECK (tiles_y > 0),
        PRIMARY KEY (layer, grid_set, z)
      );
      CREATE TABLE dq_pages (
        tileset_id TEXT NOT NULL REFERENCES dq_tilesets(id) ON DELETE CASCADE,
        z INTEGER NOT NULL, px INTEGER NOT NULL, py INTEGER NOT NULL,
        layer TEXT NOT NULL,
        tiles INTEGER NOT NULL CHECK (tiles >= 0),
        bytes INTEGER NOT NULL CHECK (bytes >= 0),
        hits INTEGER NOT NULL DEFAULT 0,
        created_ms INTEGER NOT NULL,
        last_access_ms INTEGER NOT NULL,
        fill REAL NOT NULL DEFAULT 0,
        frequency REAL NOT NULL DEFAULT 0,
        PRIMARY KEY (tileset_id, z, px, py)
      );
      CREATE INDEX dq_pages_lru ON dq_pages (layer, last_access_ms);
      CREATE INDEX dq_pages_lfu ON dq_pages (layer, frequency);
    `
  }
]
