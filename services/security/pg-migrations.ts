import type { Migration } from '../storage/migrations.js'

// This area's tables on PostgreSQL: the same ids as migrations.ts (SQLite), each written in
// PostgreSQL's dialect (identity columns for SQLite's rowid keys, BIGINT, DOUBLE PRECISION, COALESCE,
// "user" quoted). What only PostgreSQL needs comes after every area's in storage/pg/schema.ts.
export const securityPgMigrations: Migration[] = [
  {
    id: 'security/001-rules-and-settings',
    sql: `
      CREATE TABLE security_rules (
        workspace TEXT NOT NULL,
        layer TEXT NOT NULL,
        access TEXT NOT NULL CHECK (access IN ('r', 'w', 'a')),
        roles TEXT NOT NULL,
        PRIMARY KEY (workspace, layer, access)
      );
      CREATE TABLE security_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      INSERT INTO security_rules (workspace, layer, access, roles) VALUES
        ('*', '*', 'r', '["*"]'),
        ('*', '*', 'w', '["GROUP_ADMIN","ADMIN"]');
      INSERT INTO security_settings (key, value) VALUES ('catalogMode', 'HIDE');
    `
  }
]
