// MBTiles and GeoPackage export of a layer's cached tiles (GWC issues #388, #935): an SQLite file
// built in a temp file (under <dataDir>/tmp, emptied at every start) with better-sqlite3, one tile
// in memory at a time, from the tiles on disk (never rendered here: an export is what the cache
// holds). The caller streams the file and removes it.
// - MBTiles 1.3 (github.com/mapbox/mbtiles-spec): `metadata` (name, format, bounds in lon/lat,
//   minzoom, maxzoom, type, version), `tiles` (zoom_level, tile_column, tile_row, tile_data) with
//   TMS rows (0 at the bottom, as our grid sets count them). Spherical mercator only, so
//   EPSG:900913 only.
// - GeoPackage 1.3 (OGC 12-128r18) tiles: application_id GPKG, gpkg_spatial_ref_sys (the three
//   required rows and the grid set's CRS), gpkg_contents, gpkg_tile_matrix_set (the grid set's
//   extent), gpkg_tile_matrix (every exported level; matrices cover that extent exactly, as GWC's
//   two default grid sets do), and the tile table with rows from the top. WebP tiles declare the
//   gpkg_webp extension.
import fs from 'node:fs/promises'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type BetterSqlite3 from 'better-sqlite3'
import { Database } from '../storage/sqlite/sqlite-driver.js'
import { ExportCancelled } from '../errors.js'
import type { BlobStore, TileSet } from './blob-store.js'
import { MVT_FORMAT, TILE_FORMATS, tileRowOfFileName, type TileFormat } from './formats.js'
import { MERCATOR_HALF, tilesHigh, tilesWide, type BBox, type GridSet, type GridSubset, type Rect } from './grid-sets.js'
import { rectAt, tileRange } from './tile-range.js'

export type ExportKind = 'mbtiles' | 'gpkg'
export interface ExportRequest {
  kind: ExportKind
  layer: string
  title?: string
  set: TileSet
  subset: GridSubset
  zoomStart: number
  zoomStop: number
  bounds?: BBox
}

const WKT: Record<string, string> = {
  'EPSG:4326': 'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]',
  'EPSG:3857': 'PROJCS["WGS 84 / Pseudo-Mercator",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]],PROJECTION["Mercator_1SP"],PARAMETER["central_meridian",0],PARAMETER["scale_factor",1],PARAMETER["false_easting",0],PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],EXTENSION["PROJ4","+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs"],AUTHORITY["EPSG","3857"]]'
}

/** EPSG code a GeoPackage reader knows the grid set's CRS by (900913 is the unofficial 3857). */
const epsgOf = (gs: GridSet) => gs.id === 'EPSG:4326' ? 4326 : 3857

function toLonLat (gs: GridSet, b: BBox): BBox {
  if (gs.id === 'EPSG:4326') return b
  const lon = (x: number) => x * 180 / MERCATOR_HALF
  const lat = (y: number) => (2 * Math.atan(Math.exp(y / 6378137)) - Math.PI / 2) * 180 / Math.PI
  return [lon(b[0]), lat(b[1]), lon(b[2]), lat(b[3])]
}

/** A table name from a layer name: letters, digits and _ (GeoPackage: not starting with gpkg_). */
export function tableName (layer: string): string {
  const n = layer.replace(/[^A-Za-z0-9_]/g, '_')
  return /^(gpkg_|[0-9])/i.test(n) || n === '' ? `t_${n}` : n
}

async function numericEntries (dir: string): Promise<number[]> {
  try { return (await fs.readdir(dir)).filter((n) => /^\d+$/.test(n)).map(Number).sort((a, b) => a - b) } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
}

/** MBTiles' format names; paletted PNG is PNG, and JPEG-or-PNG tiles are read by their bytes (GDAL sniffs each). */
const MBTILES_FORMAT: Record<TileFormat, string> = { 'image/png': 'png', 'image/png8': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/vnd.jpeg-png': 'png', 'application/vnd.mapbox-vector-tile': 'pbf' }

function createSchema (db: BetterSqlite3.Database, req: ExportRequest, table: string, lonLat: BBox, dataBounds: BBox): void {
  const gs = req.subset.gridSet
  if (req.kind === 'mbtiles') {
    db.exec(`CREATE TABLE metadata (name TEXT, value TEXT);
      CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
      CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);`)
    const meta = db.prepare('INSERT INTO metadata (name, value) VALUES (?, ?)')
    const rows: Array<[string, string]> = [
      ['name', req.layer], ['description', req.title ?? `Cached tiles of ${req.layer}`], ['format', MBTILES_FORMAT[req.set.format]],
      ['bounds', lonLat.map((v) => v.toFixed(8)).join(',')], ['minzoom', String(req.zoomStart)], ['maxzoom', String(req.zoomStop)],
      ['type', 'overlay'], ['version', '1.1'], ['scheme', 'tms']
    ]
    for (const r of rows) meta.run(...r)
    return
  }
  const srs = epsgOf(gs)
  db.pragma('application_id = 1196444487') // 'GPKG'
  db.pragma('user_version = 10300')
  db.exec(`CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
      organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
    CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
      description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
      min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
      CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
    CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
      srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL, CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name));
    CREATE TABLE gpkg_tile_matrix_set (table_name TEXT NOT NULL PRIMARY KEY, srs_id INTEGER NOT NULL,
      min_x DOUBLE NOT NULL, min_y DOUBLE NOT NULL, max_x DOUBLE NOT NULL, max_y DOUBLE NOT NULL,
      CONSTRAINT fk_gtms_table_name FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
      CONSTRAINT fk_gtms_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
    CREATE TABLE gpkg_tile_matrix (table_name TEXT NOT NULL, zoom_level INTEGER NOT NULL, matrix_width INTEGER NOT NULL,
      matrix_height INTEGER NOT NULL, tile_width INTEGER NOT NULL, tile_height INTEGER NOT NULL,
      pixel_x_size DOUBLE NOT NULL, pixel_y_size DOUBLE NOT NULL, CONSTRAINT pk_ttm PRIMARY KEY (table_name, zoom_level),
      CONSTRAINT fk_tmm_table_name FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name));
    CREATE TABLE "${table}" (id INTEGER PRIMARY KEY AUTOINCREMENT, zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL,
      tile_row INTEGER NOT NULL, tile_data BLOB NOT NULL, UNIQUE (zoom_level, tile_column, tile_row));`)
  const srsRow = db.prepare('INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, ?)')
  srsRow.run('WGS 84 geodetic', 4326, 'EPSG', 4326, WKT['EPSG:4326'], 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid')
  srsRow.run('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system')
  srsRow.run('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system')
  if (srs === 3857) srsRow.run('WGS 84 / Pseudo-Mercator', 3857, 'EPSG', 3857, WKT['EPSG:3857'], 'spherical mercator (GeoWebCache grid set EPSG:900913)')
  db.prepare('INSERT INTO gpkg_contents (table_name, data_type, identifier, description, min_x, min_y, max_x, max_y, srs_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(table, 'tiles', req.layer, req.title ?? `Cached tiles of ${req.layer}`, ...dataBounds, srs)
  db.prepare('INSERT INTO gpkg_tile_matrix_set VALUES (?, ?, ?, ?, ?, ?)').run(table, srs, ...gs.extent)
  const tm = db.prepare('INSERT INTO gpkg_tile_matrix VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
  for (let z = req.zoomStart; z <= req.zoomStop; z++) {
    tm.run(table, z, tilesWide(gs, z), tilesHigh(gs, z), gs.tileWidth, gs.tileHeight, gs.resolutions[z], gs.resolutions[z])
  }
  if (req.set.format === 'image/webp') {
    db.exec(`CREATE TABLE gpkg_extensions (table_name TEXT, column_name TEXT, extension_name TEXT NOT NULL, definition TEXT NOT NULL,
      scope TEXT NOT NULL, CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name))`)
    db.prepare('INSERT INTO gpkg_extensions VALUES (?, ?, ?, ?, ?)').run(table, 'tile_data', 'gpkg_webp', 'http://www.geopackage.org/spec/#extension_tiles_webp', 'read-write')
  }
}

/** The highest zoom level the tile set has on disk (an export's default zoomStop), or undefined. */
export async function highestCachedZoom (store: BlobStore, set: TileSet): Promise<number | undefined> {
  const levels = await numericEntries(store.tileSetDir(set))
  return levels.length ? levels[levels.length - 1] : undefined
}

/**
 * Writes the cached tiles of the selection into a new file under `tmpDir`; returns its path and
 * the number of tiles. The file is removed if anything fails.
 */
export async function exportTiles (store: BlobStore, tmpDir: string, req: ExportRequest, signal?: AbortSignal): Promise<{ file: string, tiles: number }> {
  const gs = req.subset.gridSet
  const range = tileRange(req.subset, req.zoomStart, req.zoomStop, req.bounds)
  const dataBounds: BBox = req.bounds
    ? [Math.max(req.bounds[0], req.subset.extent[0]), Math.max(req.bounds[1], req.subset.extent[1]), Math.min(req.bounds[2], req.subset.extent[2]), Math.min(req.bounds[3], req.subset.extent[3])]
    : req.subset.extent
  await fs.mkdir(tmpDir, { recursive: true })
  const file = path.join(tmpDir, `${randomBytes(8).toString('hex')}.${req.kind}`)
  const db = new Database(file)
  try {
    // A scratch file: no journal, no fsync (the temp folder is emptied at start after a crash).
    db.pragma('journal_mode = OFF')
    db.pragma('synchronous = OFF')
    db.pragma('cache_size = -2048') // 2 MiB page cache: memory stays bounded whatever the export's size
    const table = tableName(req.layer)
    createSchema(db, req, table, toLonLat(gs, dataBounds), dataBounds)
    const insert = req.kind === 'mbtiles'
      ? db.prepare('INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)')
      : db.prepare(`INSERT INTO "${table}" (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)`)
    const begin = db.prepare('BEGIN')
    const commit = db.prepare('COMMIT')
    let tiles = 0
    let inBatch = 0
    begin.run()
    const base = store.tileSetDir(req.set)
    for (let z = req.zoomStart; z <= req.zoomStop; z++) {
      const r: Rect | undefined = rectAt(range, z)
      if (!r) continue
      const high = tilesHigh(gs, z)
      for (const x of await numericEntries(path.join(base, String(z)))) {
        if (x < r[0] || x > r[2]) continue
        const dir = path.join(base, String(z), String(x))
        let names: string[]
        try { names = await fs.readdir(dir) } catch { continue }
        for (const name of names) {
          const y = tileRowOfFileName(name, req.set.format)
          if (y === undefined) continue
          if (y < r[1] || y > r[3]) continue
          if (signal?.aborted) throw ExportCancelled(req.layer)
          let data: Buffer
          try { data = await fs.readFile(path.join(dir, name)) } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue // truncated meanwhile
            throw err
          }
          insert.run(z, x, req.kind === 'mbtiles' ? y : high - 1 - y, data)
          tiles++
          // Commit every 256 tiles: each commit is short, so other requests are answered between.
          if (++inBatch >= 256) { commit.run(); begin.run(); inBatch = 0 }
        }
      }
    }
    commit.run()
    db.close()
    return { file, tiles }
  } catch (err) {
    if (db.open) db.close()
    await fs.rm(file, { force: true })
    throw err
  }
}


const EXPORT_QUERY = new Set(['gridSetId', 'zoomStart', 'zoomStop', 'bounds', 'format', 'STYLES', 'CQL_FILTER', 'TIME', 'ELEVATION'])

export interface ExportQuery {
  gridSet: GridSet
  format: TileFormat
  zoomStart: number
  zoomStop?: number
  bounds?: BBox
  /** Parameter filter values (STYLES, CQL_FILTER, TIME, ELEVATION), validated by the caller. */
  parameters: Record<string, string>
}

/** Reads an export's query (each name once); throws ExportInvalid naming the parameter. */
export function parseExportQuery (kind: ExportKind, query: Record<string, unknown>, lookup: {
  gridSet: (id: string) => GridSet | undefined
  maxZoom: (gs: GridSet) => number
  isFormat: (f: string) => f is TileFormat
  invalid: (field: string, value: string, why: string) => Error
}): ExportQuery {
  const one = (name: string): string | undefined => {
    const v = query[name]
    if (v === undefined) return undefined
    if (typeof v !== 'string') throw lookup.invalid(name, JSON.stringify(v), 'is given more than once')
    return v
  }
  for (const k of Object.keys(query)) {
    if (!EXPORT_QUERY.has(k) && !EXPORT_QUERY.has(k.toUpperCase())) throw lookup.invalid(k, String(query[k]), `unknown parameter; known: ${[...EXPORT_QUERY].join(', ')}`)
  }
  const gsId = one('gridSetId') ?? 'EPSG:900913'
  const gs = lookup.gridSet(gsId === 'EPSG:3857' ? 'EPSG:900913' : gsId)
  if (!gs) throw lookup.invalid('gridSetId', gsId, 'unknown grid set; known: EPSG:4326, EPSG:900913')
  if (kind === 'mbtiles' && gs.id !== 'EPSG:900913') throw lookup.invalid('gridSetId', gsId, 'MBTiles holds spherical mercator tiles only (EPSG:900913); export EPSG:4326 as .gpkg')
  const top = lookup.maxZoom(gs)
  const zoom = (name: string): number | undefined => {
    const s = one(name)
    if (s === undefined) return undefined
    if (!/^\d{1,2}$/.test(s) || Number(s) > top) throw lookup.invalid(name, s, `must be a zoom level from 0 to ${top} of ${gs.id}`)
    return Number(s)
  }
  const zoomStart = zoom('zoomStart') ?? 0
  const zoomStop = zoom('zoomStop')
  if (zoomStop !== undefined && zoomStop < zoomStart) throw lookup.invalid('zoomStart', String(zoomStart), `is greater than zoomStop ${zoomStop}`)
  let bounds: BBox | undefined
  const b = one('bounds')
  if (b !== undefined) {
    const nums = b.split(',').map((v) => /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v) ? Number(v) : NaN)
    if (nums.length !== 4 || !nums.every(Number.isFinite)) throw lookup.invalid('bounds', b, `must be minx,miny,maxx,maxy in ${gs.id} units`)
    if (!(nums[0] < nums[2] && nums[1] < nums[3])) throw lookup.invalid('bounds', b, 'need minx < maxx and miny < maxy')
    bounds = nums as BBox
  }
  const f = one('format') ?? 'image/png'
  if (!lookup.isFormat(f)) throw lookup.invalid('format', f, `must be one of ${TILE_FORMATS.join(', ')}`)
  if (kind === 'gpkg' && f === MVT_FORMAT) throw lookup.invalid('format', f, 'a GeoPackage export holds image tiles; vector tiles export as MBTiles')
  const parameters: Record<string, string> = {}
  for (const k of Object.keys(query)) if (!['gridSetId', 'zoomStart', 'zoomStop', 'bounds', 'format'].includes(k)) parameters[k] = one(k) ?? ''
  return { gridSet: gs, format: f, zoomStart, zoomStop, bounds, parameters }
}
