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
    // services/seed/layer-settings.ts: GWC's per-layer expireCache and expireClients, and the
    // cached-only switch. A row only for layers whose settings differ from the defaults; it goes
    // with its layer (ON DELETE CASCADE).
    id: 'seed/002-tile-layer-settings',
    sql: `
      CREATE TABLE tile_layer_settings (
        workspace TEXT NOT NULL,
        name TEXT NOT NULL,
        expire_cache INTEGER NOT NULL DEFAULT 0,
        expire_clients INTEGER NOT NULL DEFAULT 0,
        cached_only INTEGER NOT NULL DEFAULT 0,
        cached_only_missing TEXT NOT NULL DEFAULT 'notFound',
        PRIMARY KEY (workspace, name),
        FOREIGN KEY (workspace, name) REFERENCES layers(workspace, name) ON DELETE CASCADE
      );
    `
  },
  {
    // Resuming tasks after a restart (task-records.ts): the request that made a task (to rebuild
    // its job), the job it shares with the other tasks of that request (the first task's id),
    // whether it was killed (a killed task never resumes) and when it started (a resumed reseed
    // leaves alone the tiles it already wrote).
    id: 'seed/003-task-resume',
    sql: `
      ALTER TABLE seed_tasks ADD COLUMN request TEXT;
      ALTER TABLE seed_tasks ADD COLUMN job INTEGER;
      ALTER TABLE seed_tasks ADD COLUMN killed INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE seed_tasks ADD COLUMN started_at INTEGER;
    `
  },
  {
    // services/seed/tile-invalidation.ts: the parameters behind each non-default tile set (its
    // directory is a hash of them), and the tile drops a style or data change has pending.
    id: 'seed/004-tile-invalidation',
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
