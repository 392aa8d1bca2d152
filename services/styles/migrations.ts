import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'styles/<nnn>-<what>', append only.
// A style row is the catalog pointer: `file` names the SLD that is live now (NULL until content
// is PUT after a catalog-entry-only POST). A new version is written to a new file first and the
// pointer switched in one transaction, so a crash leaves the old version or the new one whole.
// `filename` is what clients see (GeoServer's StyleInfo.filename). `images` lists the image files
// a ZIP package put next to the SLD, which this style owns.
export const styleMigrations: Migration[] = [
  {
    id: 'styles/001-styles',
    sql: `
      CREATE TABLE styles (
        id INTEGER PRIMARY KEY,
        workspace TEXT REFERENCES workspaces(name) ON DELETE CASCADE,
        name TEXT NOT NULL,
        format TEXT NOT NULL DEFAULT 'sld',
        language_version TEXT NOT NULL DEFAULT '1.0.0',
        filename TEXT NOT NULL,
        file TEXT,
        revision INTEGER NOT NULL DEFAULT 0,
        images TEXT NOT NULL DEFAULT '[]',
        created_at TEXT NOT NULL,
        modified_at TEXT NOT NULL
      );
      CREATE UNIQUE INDEX styles_name ON styles (ifnull(workspace, ''), name);
      CREATE UNIQUE INDEX styles_filename ON styles (ifnull(workspace, ''), filename);
    `
  },
  {
    // Files a change is about to write or has just unreferenced. The row is added before the
    // write and removed in the transaction that makes the file live (or after the file is gone),
    // so after a crash every row left names a file that no style may point to: the start removes
    // it (or, for a DELETE without purge, keeps it as <filename>.bak, as GeoServer does).
    id: 'styles/002-file-intents',
    sql: `
      CREATE TABLE style_file_intents (
        id INTEGER PRIMARY KEY,
        workspace TEXT,
        file TEXT NOT NULL,
        backup_to TEXT,
        created_at TEXT NOT NULL
      );
    `
  }
]
