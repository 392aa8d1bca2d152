import type { Migration } from '../storage/migrations.js'

// The shared catalog: workspaces, stores, resources (coverages, feature types) and layers, plus
// users and roles. Areas add their own tables and reference these by (workspace, name).
export const coreMigrations: Migration[] = [
  {
    id: 'core/001-catalog',
    sql: `
      CREATE TABLE workspaces (
        name TEXT PRIMARY KEY,
        namespace_uri TEXT NOT NULL,
        isolated INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      );
      CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      -- Stores of every kind share one namespace per workspace, as in GeoServer's catalog.
      CREATE TABLE stores (
        workspace TEXT NOT NULL REFERENCES workspaces(name) ON DELETE CASCADE,
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('coverage', 'data')),
        type TEXT NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1,
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
        enabled INTEGER NOT NULL DEFAULT 1,
        PRIMARY KEY (workspace, name),
        FOREIGN KEY (workspace, name) REFERENCES resources(workspace, name) ON DELETE CASCADE
      );
      CREATE TABLE users (
        name TEXT PRIMARY KEY,
        password_hash TEXT NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1
      );
      CREATE TABLE roles (name TEXT PRIMARY KEY, parent TEXT);
      CREATE TABLE user_roles (
        user TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
        role TEXT NOT NULL REFERENCES roles(name) ON DELETE CASCADE,
        PRIMARY KEY (user, role)
      );
      INSERT INTO roles (name) VALUES ('ADMIN'), ('GROUP_ADMIN');
    `
  },
  {
    // GeoServer's default workspace (and with it the default namespace): the one chosen by a PUT on
    // workspaces/default or a POST with ?default=true; without a row, the first workspace created.
    // A namespace is its workspace's (prefix = name, uri = namespace_uri): two namespaces may not
    // share a URI, as GeoServer's catalog refuses it.
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
    // Cascaded WMS and WMTS stores (GeoServer's WMSStoreInfo, WMTSStoreInfo) share the stores' name
    // space; their published remote layers (WMSLayerInfo, WMTSLayerInfo) are resources and layers of
    // type WMS and WMTS, as GeoServer's PublishedType names them. SQLite changes a CHECK only by
    // rebuilding the table: same columns, same rows, wider CHECKs.
    id: 'core/005-cascaded-stores',
    foreignKeysOff: true,
    sql: `
      CREATE TABLE stores_new (
        workspace TEXT NOT NULL REFERENCES workspaces(name) ON DELETE CASCADE,
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('coverage', 'data', 'wms', 'wmts')),
        type TEXT NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1,
        description TEXT,
        config TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        PRIMARY KEY (workspace, name)
      );
      INSERT INTO stores_new (workspace, name, kind, type, enabled, description, config, created_at)
        SELECT workspace, name, kind, type, enabled, description, config, created_at FROM stores;
      DROP TABLE stores;
      ALTER TABLE stores_new RENAME TO stores;
      CREATE TABLE resources_new (
        workspace TEXT NOT NULL,
        store TEXT NOT NULL,
        name TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('coverage', 'featureType', 'wmsLayer', 'wmtsLayer')),
        native_name TEXT NOT NULL,
        title TEXT,
        srs TEXT,
        bbox TEXT,
        config TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (workspace, name),
        FOREIGN KEY (workspace, store) REFERENCES stores(workspace, name) ON DELETE CASCADE
      );
      INSERT INTO resources_new (workspace, store, name, kind, native_name, title, srs, bbox, config)
        SELECT workspace, store, name, kind, native_name, title, srs, bbox, config FROM resources;
      DROP TABLE resources;
      ALTER TABLE resources_new RENAME TO resources;
      CREATE TABLE layers_new (
        workspace TEXT NOT NULL,
        name TEXT NOT NULL,
        type TEXT NOT NULL CHECK (type IN ('RASTER', 'VECTOR', 'WMS', 'WMTS')),
        default_style TEXT,
        styles TEXT NOT NULL DEFAULT '[]',
        enabled INTEGER NOT NULL DEFAULT 1,
        attribution TEXT,
        PRIMARY KEY (workspace, name),
        FOREIGN KEY (workspace, name) REFERENCES resources(workspace, name) ON DELETE CASCADE
      );
      INSERT INTO layers_new (workspace, name, type, default_style, styles, enabled, attribution)
        SELECT workspace, name, type, default_style, styles, enabled, attribution FROM layers;
      DROP TABLE layers;
      ALTER TABLE layers_new RENAME TO layers;
    `
  }
]
