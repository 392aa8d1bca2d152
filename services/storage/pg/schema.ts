// The PostgreSQL schema: every area's PostgreSQL migrations (<area>/pg-migrations.ts: the ids of
// its SQLite migrations, written in PostgreSQL's dialect), in the order storage/migrations.ts runs
// them on SQLite, then the additions only PostgreSQL needs. One row mapping serves both backends.
// Differences:
// - Case-insensitive names: SQLite compares with the SQL function mw_fold (foldName in JavaScript);
//   PostgreSQL's lower()/upper() depend on the server's collation and do not fold 'ß' as JavaScript
//   does, so the stores write foldName(name) into a *_key column and a UNIQUE index on it refuses a
//   second name that folds the same, atomically, on every node.
// - Ids handed out by SQLite's rowid/AUTOINCREMENT are identity columns: unique cluster-wide and
//   never reused.
// - Granule footprints: with PostGIS (installed from Debian's postgresql-<n>-postgis-3) a geometry
//   column in the mosaic's CRS with a GiST index; without it, a GiST index on the built-in box type.
// Ids are '<area>/<nnn>-<what>' as in SQLite, append only; the schema_migrations table is the same.
import type { Migration } from '../migrations.js'
import { corePgMigrations } from '../../catalog/pg-migrations.js'
import { securityPgMigrations } from '../../security/pg-migrations.js'
import { stylePgMigrations } from '../../styles/pg-migrations.js'
import { mosaicPgMigrations } from '../../mosaics/pg-migrations.js'
import { seedPgMigrations } from '../../seed/pg-migrations.js'
import { diskquotaPgFunctions, diskquotaPgMigrations } from '../../diskquota/pg-migrations.js'
import { settingsPgMigrations } from '../../settings/pg-migrations.js'
import { tilecachePgMigrations } from '../../tilecache/pg-migrations.js'
import { wfsPgMigrations } from '../../wfs/migrations.js'

/** Every area's tables, in the order of ALL_MIGRATIONS (appschema has none of its own). */
export const AREA_PG_MIGRATIONS: Migration[] = [
  ...corePgMigrations,
  ...securityPgMigrations,
  ...stylePgMigrations,
  ...mosaicPgMigrations,
  ...seedPgMigrations,
  ...diskquotaPgMigrations,
  ...settingsPgMigrations,
  ...tilecachePgMigrations,
  ...wfsPgMigrations
]

export const PG_MIGRATIONS: Migration[] = [
  ...AREA_PG_MIGRATIONS,
  {
    // Case-insensitive names: the stores write foldName(name) here.
    id: 'pg/001-folded-name-keys',
    sql: `
      ALTER TABLE workspaces ADD COLUMN name_key TEXT NOT NULL UNIQUE;
      ALTER TABLE stores ADD COLUMN name_key TEXT NOT NULL;
      ALTER TABLE stores ADD CONSTRAINT stores_name_key UNIQUE (workspace, name_key);
      ALTER TABLE resources ADD COLUMN name_key TEXT NOT NULL;
      ALTER TABLE resources ADD CONSTRAINT resources_name_key UNIQUE (workspace, name_key);
      ALTER TABLE styles ADD COLUMN name_key TEXT NOT NULL;
      ALTER TABLE styles ADD COLUMN filename_key TEXT NOT NULL;
      CREATE UNIQUE INDEX styles_name_key ON styles (COALESCE(workspace, ''), name_key);
    `
  },
  {
    // The footprint index: PostGIS where the server has it (a geometry in the mosaic's CRS, kept
    // in step with minx..maxy by a generated column), the built-in box type otherwise.
    id: 'pg/002-footprints',
    sql: `
      DO $$
      BEGIN
        BEGIN
          CREATE EXTENSION IF NOT EXISTS postgis;
        EXCEPTION WHEN OTHERS THEN
          RAISE NOTICE 'PostGIS not available (%); granule footprints use the box type', SQLERRM;
        END;
        IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgis') THEN
          ALTER TABLE mosaic_granules ADD COLUMN footprint geometry
            GENERATED ALWAYS AS (ST_MakeEnvelope(minx, miny, maxx, maxy)) STORED;
          CREATE INDEX mosaic_granules_footprint ON mosaic_granules USING GIST (footprint);
        ELSE
          CREATE INDEX mosaic_granules_footprint ON mosaic_granules USING GIST (box(point(minx, miny), point(maxx, maxy)));
        END IF;
      END
      $$;
    `
  },
  {
    // The instances sharing the database (storage/pg/nodes.ts).
    id: 'pg/003-cluster-nodes',
    sql: `
      CREATE TABLE cluster_nodes (
        id TEXT PRIMARY KEY,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        started_at TIMESTAMPTZ NOT NULL,
        seen_at TIMESTAMPTZ NOT NULL
      );
      CREATE INDEX cluster_nodes_seen ON cluster_nodes (seen_at);
    `
  },
  {
    // Granule attributes compared as SQLite compares json_extract's values (the filters the
    // mosaics area compiles, services/filters/pg.ts with mosaics/pg-granule-index.ts): numbers (and booleans, as 1/0)
    // numerically, below strings, strings byte by byte; JSON null and absent keys are NULL.
    id: 'pg/mosaics-001-json-values',
    sql: `
      CREATE TYPE mw_json_value AS (rank INTEGER, num DOUBLE PRECISION, txt BYTEA);
      CREATE FUNCTION mw_json_value(v JSONB) RETURNS mw_json_value LANGUAGE SQL IMMUTABLE AS $$
        SELECT CASE jsonb_typeof(v)
          WHEN 'number' THEN ROW(1, (v #>> '{}')::DOUBLE PRECISION, ''::BYTEA)::mw_json_value
          WHEN 'boolean' THEN ROW(1, CASE WHEN v = 'true'::JSONB THEN 1 ELSE 0 END, ''::BYTEA)::mw_json_value
          WHEN 'string' THEN ROW(2, 0, convert_to(v #>> '{}', 'UTF8'))::mw_json_value
          WHEN 'object' THEN ROW(2, 0, convert_to(v::TEXT, 'UTF8'))::mw_json_value
          WHEN 'array' THEN ROW(2, 0, convert_to(v::TEXT, 'UTF8'))::mw_json_value
        END
      $$;
      CREATE FUNCTION mw_json_text(v JSONB) RETURNS TEXT LANGUAGE SQL IMMUTABLE AS $$
        SELECT CASE jsonb_typeof(v) WHEN 'null' THEN NULL WHEN 'boolean' THEN CASE WHEN v = 'true'::JSONB THEN '1' ELSE '0' END ELSE v #>> '{}' END
      $$;
    `
  },
  {
    // Two styles of a folder whose file names fold the same would be one file on a
    // case-insensitive file system: refused by the index, as two names are (styles/pg-store.ts).
    id: 'pg/styles-001-folded-filename-unique',
    sql: `CREATE UNIQUE INDEX styles_filename_key ON styles (COALESCE(workspace, ''), filename_key);`
  },
  {
    // The order resources were created in (SQLite's rowid): a store's feature types are listed
    // in it (appschema/pg-store.ts). Filled by the database on every insert.
    id: 'pg/appschema-001-resource-order',
    sql: 'ALTER TABLE resources ADD COLUMN seq BIGINT GENERATED BY DEFAULT AS IDENTITY;'
  },
  {
    // Seeding spread over the cluster (storage/pg/cluster-store.ts): a request is a job whose tile range is
    // handed out as chunks, each one pg-boss job; a chunk row lives while it is out and goes when its
    // tiles are counted, so a chunk counts once whichever node (or retry) finishes it.
    id: 'pg/seed-001-cluster-jobs',
    sql: `
      ALTER TABLE seed_tasks ADD COLUMN tiles_done BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE seed_tasks ADD COLUMN failed_metatiles BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE seed_tasks ADD COLUMN failure TEXT;
      CREATE TABLE seed_jobs (
        id BIGINT PRIMARY KEY,
        task_ids BIGINT[] NOT NULL,
        layer TEXT NOT NULL,
        type TEXT NOT NULL,
        request TEXT NOT NULL,
        state TEXT NOT NULL,
        total TEXT NOT NULL,
        cursor JSONB,
        descending BOOLEAN NOT NULL,
        level INTEGER,
        next_seq INTEGER NOT NULL DEFAULT 0,
        outstanding INTEGER NOT NULL DEFAULT 0,
        created_at BIGINT NOT NULL,
        started_at BIGINT,
        finished_at BIGINT
      );
      CREATE INDEX seed_jobs_state ON seed_jobs (state, id);
      CREATE TABLE seed_chunks (
        job BIGINT NOT NULL REFERENCES seed_jobs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        task BIGINT NOT NULL,
        z INTEGER NOT NULL,
        rect INTEGER[] NOT NULL,
        node TEXT,
        boss_id TEXT,
        PRIMARY KEY (job, seq)
      );
      CREATE INDEX seed_chunks_node ON seed_chunks (node) WHERE node IS NOT NULL;
      CREATE TABLE seed_node_work (
        job BIGINT NOT NULL REFERENCES seed_jobs (id) ON DELETE CASCADE,
        node TEXT NOT NULL,
        metatiles BIGINT NOT NULL,
        tiles BIGINT NOT NULL,
        PRIMARY KEY (job, node)
      );
    `
  },
  {
    // Each seed task's part of its job's total (seed/task.ts splitTotal): fixed when the job is
    // made, so that the tasks' totals add up to the job's. Jobs recorded before get the same split.
    id: 'pg/seed-002-task-parts',
    sql: `
      ALTER TABLE seed_tasks ADD COLUMN tiles_total NUMERIC;
      UPDATE seed_tasks t SET tiles_total = div(j.total::numeric, cardinality(j.task_ids))
        + CASE WHEN array_position(j.task_ids, t.id) - 1 < mod(j.total::numeric, cardinality(j.task_ids)) THEN 1 ELSE 0 END
        FROM seed_jobs j WHERE t.job = j.id AND j.type <> 'truncate';
    `
  },
  {
    // The order workspaces were inserted in, numbered by the database (SQLite has its rowid): the
    // first created is the default until one is chosen, and two created in the same millisecond
    // tie on created_at (catalog/store-rows.ts defaultWorkspaceSql).
    id: 'pg/catalog-001-workspace-order',
    sql: 'ALTER TABLE workspaces ADD COLUMN seq BIGSERIAL;'
  },
  ...diskquotaPgFunctions
]
