import type { Migration } from '../storage/migrations.js'

// This area's tables on PostgreSQL: the same ids as migrations.ts (SQLite), each written in
// PostgreSQL's dialect (identity columns for SQLite's rowid keys, BIGINT, DOUBLE PRECISION, COALESCE,
// "user" quoted). What only PostgreSQL needs comes after every area's in storage/pg/schema.ts.
export const corePgMigrations: Migration[] = [
  {
    id: 'core/001-catalog',
    sql: `
      CREATE TABLE workspaces (
        name TEXT PRIMARY KEY,
        namespace_uri TEXT NOT NULL,
        isolated BIGINT NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      );
      CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      -- Stores of every kind share one namespace per workspace, as in GeoServer's catalog.
      CREATE TABLE stores (
        workspace TEXT NOT NULL REFERENCES workspaces(name) ON DELETE CASCADE,
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('coverage', 'data')),
        type TEXT NOT NULL,
        enabled BIGINT NOT NULL DEFAULT 1,
        description TEXT,
        config TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        PRIMARY KEY (workspace, name)
      );
      -- Coverages and feature types.
      CREATE TABLE resources (
        workspace TEXT NOT NULL,
        store TEXT NOT NULL,
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('coverage', 'featureType')),
        native_name TEXT NOT NULL,
        title TEXT,
        srs TEXT,
        bbox TEXT,
        config TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (workspace, name),
        FOREIGN KEY (workspace, store) REFERENCES stores(workspace, name) ON DELETE CASCADE
      );
      -- Published layers; name = resource name, qualified as <workspace>:<name>.
      CREATE TABLE layers (
        workspace TEXT NOT NULL,
        name TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('RASTER', 'VECTOR')),
        default_style TEXT,
        styles TEXT NOT NULL DEFAULT '[]',
        enabled BIGINT NOT NULL DEFAULT 1,
        PRIMARY KEY (workspace, name),
        FOREIGN KEY (workspace, name) REFERENCES resources(workspace, name) ON DELETE CASCADE
      );
      CREATE TABLE users (
        name TEXT PRIMARY KEY,
        password_hash TEXT NOT NULL,
        enabled BIGINT NOT NULL DEFAULT 1
      );
      CREATE TABLE roles (name TEXT PRIMARY KEY, parent TEXT);
      CREATE TABLE user_roles (
        "user" TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
        role TEXT NOT NULL REFERENCES roles(name) ON DELETE CASCADE,
        PRIMARY KEY ("user", role)
      );
      INSERT INTO roles (name) VALUES ('ADMIN'), ('GROUP_ADMIN');
    `
  },
  {
    id: 'core/002-namespaces-default',
    sql: `
      CREATE TABLE default_workspace (
        id TEXT PRIMARY KEY CHECK (id = 'default'),
        workspace TEXT NOT NULL REFERENCES workspaces(name) ON DELETE CASCADE ON UPDATE CASCADE
      );
      CREATE UNIQUE INDEX workspaces_namespace_uri ON workspaces (namespace_uri);
    `
  },
  {
    // Layer groups (GeoServer's LayerGroupInfo): global (workspace NULL) or of one workspace, which
    // takes them along when it is deleted or renamed. The group itself is one JSON document (mode,
    // titles, publishables and their styles, bounds, keywords, switches); names are unique per
    // workspace, global ones among themselves.
    id: 'core/003-layer-groups',
    sql: `
      CREATE TABLE layer_groups (
        workspace TEXT REFERENCES workspaces(name) ON DELETE CASCADE ON UPDATE CASCADE,
        name TEXT NOT NULL,
        doc TEXT NOT NULL
      );
      CREATE UNIQUE INDEX layer_groups_name ON layer_groups (COALESCE(workspace, ''), name);
    `
  },
  {
    // A layer's attribution (GeoServer's AttributionInfo: title, href, logoURL, logoWidth,
    // logoHeight, logoType), one JSON document; NULL when the layer has none.
    id: 'core/004-layer-attribution',
    sql: 'ALTER TABLE layers ADD COLUMN attribution TEXT;'
  },
  {
    // Cascaded WMS and WMTS stores and their remote layers (see migrations.ts): wider CHECKs.
    id: 'core/005-cascaded-stores',
    sql: `
      ALTER TABLE stores DROP CONSTRAINT stores_kind_check;
      ALTER TABLE stores ADD CONSTRAINT stores_kind_check CHECK (kind IN ('coverage', 'data', 'wms', 'wmts'));
      ALTER TABLE resources DROP CONSTRAINT resources_kind_check;
      ALTER TABLE resources ADD CONSTRAINT resources_kind_check CHECK (kind IN ('coverage', 'featureType', 'wmsLayer', 'wmtsLayer'));
      ALTER TABLE layers DROP CONSTRAINT layers_type_check;
      ALTER TABLE layers ADD CONSTRAINT layers_type_check CHECK (type IN ('RASTER', 'VECTOR', 'WMS', 'WMTS'));
    `
  }
]
