import type { Migration } from '../storage/migrations.js'

// This area's tables on PostgreSQL: the same ids as migrations.ts (SQLite).
export const tilecachePgMigrations: Migration[] = [
  {
    id: 'tilecache/001-grid-sets',
    sql: `
      CREATE TABLE grid_sets (
        name TEXT PRIMARY KEY,
        body TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
    `
  },
  {
    // blob_stores: GWC's file blob stores (blob-store-registry.ts); at most one row is_default.
    // The layers naming one are tile_layer_settings.blob_store_id (seed/007).
    id: 'tilecache/002-blob-stores',
    sql: `
      CREATE TABLE blob_stores (
        id TEXT PRIMARY KEY,
        is_default INTEGER NOT NULL DEFAULT 0,
        enabled INTEGER NOT NULL DEFAULT 1,
        base_directory TEXT NOT NULL,
        block_size INTEGER NOT NULL DEFAULT 4096,
        updated_at TEXT NOT NULL
      );
    `
  }
]
