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
  }
]
