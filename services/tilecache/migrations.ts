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
  }
]
