import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'wfs/<nnn>-<what>', append only.
// wfs_locks: the WFS locks (LockFeature, GetFeatureWithLock), each with its expiry (ms since the epoch);
// wfs_locked_features: the features each holds, by feature type (`ws:name`) and feature id
// (`name.id`, as GetFeature writes it); a feature is held by one lock at a time (the primary key), a
// lock past its expiry holds nothing. Kept in the catalog, so every instance sharing it sees them.
const TABLES = (bigint: string) => `
  CREATE TABLE wfs_locks (
    lock_id TEXT PRIMARY KEY,
    expires_at ${bigint} NOT NULL,
    created_at ${bigint} NOT NULL
  );
  CREATE INDEX wfs_locks_expiry ON wfs_locks (expires_at);
  CREATE TABLE wfs_locked_features (
    type TEXT NOT NULL,
    fid TEXT NOT NULL,
    lock_id TEXT NOT NULL REFERENCES wfs_locks (lock_id) ON DELETE CASCADE,
    PRIMARY KEY (type, fid)
  );
  CREATE INDEX wfs_locked_features_lock ON wfs_locked_features (lock_id);
`

export const wfsMigrations: Migration[] = [{ id: 'wfs/001-locks', sql: TABLES('INTEGER') }]

/** The same tables on PostgreSQL (services/storage/pg/schema.ts). */
export const wfsPgMigrations: Migration[] = [{ id: 'wfs/001-locks', sql: TABLES('BIGINT') }]
