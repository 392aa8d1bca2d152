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
    // services/tilecache/layer-settings.ts: GWC's per-layer expireCache and expireClients, and the
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
    // services/tilecache/tile-invalidation.ts: the parameters behind each non-default tile set (its
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
  },
  {
    // The breeder's job tables (job-store.ts, storage/sqlite/job-store.ts), as PostgreSQL has them
    // since pg/seed-001 and pg/seed-002: a request's job, its chunks out, what each node counted,
    // and each task's count and part of the total (exact decimal text). Tasks of the task pool this
    // replaces that were still unfinished have no job to go on from: they end "aborted: restart".
    id: 'seed/005-seed-jobs',
    sql: `
      ALTER TABLE seed_tasks ADD COLUMN tiles_done INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE seed_tasks ADD COLUMN failed_metatiles INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE seed_tasks ADD COLUMN failure TEXT;
      ALTER TABLE seed_tasks ADD COLUMN tiles_total TEXT;
      CREATE INDEX seed_tasks_job ON seed_tasks (job);
      CREATE TABLE seed_jobs (
        id INTEGER PRIMARY KEY,
        task_ids TEXT NOT NULL,
        layer TEXT NOT NULL,
        type TEXT NOT NULL,
        request TEXT NOT NULL,
        state TEXT NOT NULL,
        total TEXT NOT NULL,
        cursor TEXT,
        descending INTEGER NOT NULL,
        level INTEGER,
        next_seq INTEGER NOT NULL DEFAULT 0,
        outstanding INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER
      );
      CREATE INDEX seed_jobs_state ON seed_jobs (state, id);
      CREATE TABLE seed_chunks (
        job INTEGER NOT NULL REFERENCES seed_jobs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        task INTEGER NOT NULL,
        z INTEGER NOT NULL,
        rect TEXT NOT NULL,
        node TEXT,
        queue_id TEXT,
        PRIMARY KEY (job, seq)
      );
      CREATE TABLE seed_node_work (
        job INTEGER NOT NULL REFERENCES seed_jobs (id) ON DELETE CASCADE,
        node TEXT NOT NULL,
        metatiles INTEGER NOT NULL,
        tiles INTEGER NOT NULL,
        PRIMARY KEY (job, node)
      );
      UPDATE seed_tasks SET state = 'aborted', error = 'aborted: restart', finished_at = CAST(strftime('%s', 'now') AS INTEGER) * 1000
        WHERE state IN ('pending', 'running');
    `
  },
  {
    // A tile layer's grid subsets (GWC's gridSubsets: grid sets, levels, extent) as JSON; null: all.
    id: 'seed/006-tile-grid-subsets',
    sql: `
      ALTER TABLE tile_layer_settings ADD COLUMN grid_subsets TEXT;
    `
  },
  {
    // The file blob store a layer's tiles live in (GWC's GeoServerLayer blobStoreId; tilecache/002's
    // blob_stores); NULL: the default one.
    id: 'seed/007-tile-blob-store',
    sql: `
      ALTER TABLE tile_layer_settings ADD COLUMN blob_store_id TEXT;
    `
  },
  {
    // The administrator's parameter filters of a tile layer (GWC's GeoServerLayer parameterFilters:
    // string, regex, float, integer filters on CQL_FILTER, TIME, ELEVATION) as JSON; NULL: the layer's own.
    id: 'seed/008-tile-parameter-filters',
    sql: `
      ALTER TABLE tile_layer_settings ADD COLUMN parameter_filters TEXT;
    `
  }
]
