import type { Migration } from '../storage/migrations.js'

// Tables of this area; ids 'mosaics/<nnn>-<what>', append only.
// mosaic_stores: one row per ImageMosaic coverage store (its folder and parsed indexer settings).
// mosaic_granules: the granule index (GeoTools' index feature type), attributes as JSON, footprint
// in the mosaic's CRS, with an R*Tree on the footprints kept in step by triggers (also on the
// cascades from stores and workspaces).
export const mosaicMigrations: Migration[] = [
  {
    id: 'mosaics/001-index',
    sql: `
      CREATE TABLE mosaic_stores (
        workspace TEXT NOT NULL,
        store TEXT NOT NULL,
        dir TEXT NOT NULL,
        type_name TEXT NOT NULL,
        crs TEXT,
        settings TEXT NOT NULL,
        PRIMARY KEY (workspace, store),
        FOREIGN KEY (workspace, store) REFERENCES stores(workspace, name) ON DELETE CASCADE
      );
      CREATE TABLE mosaic_granules (
        id INTEGER PRIMARY KEY,
        workspace TEXT NOT NULL,
        store TEXT NOT NULL,
        seq INTEGER NOT NULL,
        location TEXT NOT NULL,
        path TEXT NOT NULL,
        crs TEXT NOT NULL,
        minx REAL NOT NULL, miny REAL NOT NULL, maxx REAL NOT NULL, maxy REAL NOT NULL,
        width INTEGER NOT NULL,
        height INTEGER NOT NULL,
        bands INTEGER NOT NULL,
        data_type TEXT NOT NULL,
        nodata REAL,
        ranges TEXT NOT NULL,
        attrs TEXT NOT NULL,
        UNIQUE (workspace, store, seq),
        FOREIGN KEY (workspace, store) REFERENCES mosaic_stores(workspace, store) ON DELETE CASCADE
      );
      CREATE INDEX mosaic_granules_path ON mosaic_granules (workspace, store, path);
      CREATE VIRTUAL TABLE mosaic_granules_rtree USING rtree(id, minx, maxx, miny, maxy);
      CREATE TRIGGER mosaic_granules_ai AFTER INSERT ON mosaic_granules BEGIN
        INSERT INTO mosaic_granules_rtree (id, minx, maxx, miny, maxy) VALUES (new.id, new.minx, new.maxx, new.miny, new.maxy);
      END;
      CREATE TRIGGER mosaic_granules_ad AFTER DELETE ON mosaic_granules BEGIN
        DELETE FROM mosaic_granules_rtree WHERE id = old.id;
      END;
    `
  },
  {
    // Crash recovery (a kill -9 leaves the old store or the new one, whole): a replace records
    // itself before the old store folder is moved aside to <dataDir>/aside/<ws>/<store>, and the
    // transaction that commits the new index deletes the record; a purge records the files it is
    // about to delete in the transaction that removes their rows. The start finishes or undoes both.
    id: 'mosaics/002-crash-recovery',
    sql: `
      CREATE TABLE mosaic_replacements (
        workspace TEXT NOT NULL,
        store TEXT NOT NULL,
        had_old INTEGER NOT NULL,
        PRIMARY KEY (workspace, store)
      );
      CREATE TABLE mosaic_pending_purges (
        id INTEGER PRIMARY KEY,
        entry TEXT NOT NULL -- JSON: { path, purge, dir } of one granule file
      );
    `
  },
  {
    // Heterogeneous mosaics: a granule keeps its native CRS (column crs) and its extent in it; minx..maxy
    // (and the R*Tree) hold its footprint in the mosaic's CRS. Rows written before this carry the
    // mosaic's CRS, so their native extent is their footprint (NULL reads as such).
    id: 'mosaics/003-native-extent',
    sql: `
      ALTER TABLE mosaic_granules ADD COLUMN native_minx REAL;
      ALTER TABLE mosaic_granules ADD COLUMN native_miny REAL;
      ALTER TABLE mosaic_granules ADD COLUMN native_maxx REAL;
      ALTER TABLE mosaic_granules ADD COLUMN native_maxy REAL;
    `
  },
  {
    // A granule whose data a render could not decode: the reason (NULL while it reads fine). A
    // harvest of the same file writes a new row, which clears it.
    id: 'mosaics/004-damage',
    sql: 'ALTER TABLE mosaic_granules ADD COLUMN damage TEXT;'
  }
]
