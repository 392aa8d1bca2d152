import type { Migration } from '../storage/migrations.js'

// Tables of the tile cache's own; ids 'tilecache/<nnn>-<what>', append only. (The tile settings, tile
// sets and drop marks live beside the seed tasks, in seed/migrations.ts.)
// grid_sets: the custom grid sets of GWC's REST (grid-set-registry.ts), each the JSON of its
// definition (grid-set-definition.ts); the built-in ones are code, never rows.
export const tilecacheMigrations: Migration[] = [
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
