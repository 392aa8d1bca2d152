import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'seed/<nnn>-<what>', append only.
export const seedMigrations: Migration[] = [
  {
    // services/seed/task-records.ts. AUTOINCREMENT: an id is never handed out twice, even after
    // its record was pruned and the server restarted. `view` is the task resource at the last write.
    id: 'seed/001-task-records',
    sql: `
      CREATE TABLE seed_tasks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        state TEXT NOT NULL,
        layer TEXT NOT NULL,
        view TEXT NOT NULL,
        error TEXT,
        created_at INTEGER NOT NULL,
        finished_at INTEGER
      );
      CREATE INDEX seed_tasks_finished ON seed_tasks (finished_at);
    `
  },
  {
    // services/seed/tile-invalidation.ts: the parameters behind each non-default tile set (its
    // directory is a hash of them), and the tile drops a style or data change has pending.
    id: 'seed/002-tile-invalidation',
    sql: `
      CREATE TABLE tile_parameter_sets (
        layer TEXT NOT NULL,
        parameter_id TEXT NOT NULL,
        parameters TEXT NOT NULL,
        PRIMARY KEY (layer, parameter_id)
      );
      CREATE TABLE tile_drops (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        layer TEXT NOT NULL,
        parameter_id TEXT,
        area TEXT,
        before_ms INTEGER NOT NULL,
        reason TEXT NOT NULL
      );
    `
  }
]
