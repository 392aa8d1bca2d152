import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'security/<nnn>-<what>', append only.
// - security_rules: GeoServer's layers.properties as rows; roles is a JSON array ('*' = everyone).
// - security_settings: catalog mode, and the master password encrypted with a key that is NOT in
//   this database (see master-password.ts).
// Defaults are GeoServer's shipped data/release/security/layers.properties.
export const securityMigrations: Migration[] = [
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
