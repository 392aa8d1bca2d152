// `update=append` of a file.gpkg upload onto an existing GeoPackage store: the features of every feature
// table of the uploaded GeoPackage are inserted into the table of the same name of the store's file,
// all tables in one transaction (all or nothing). GeoServer's DataStoreFileController appends the
// uploaded features to the target store's type of the same name through a GeoTools transaction;
// here a table the store's file lacks, another geometry column, type or CRS, a column the store's table
// lacks or holds with another type, a NOT NULL column the upload does not fill: 400 naming it, and
// nothing is written. The feature ids are the store's (new ones); the R-tree follows (through the
// file's own triggers, given the ST_ functions they call, or written here where the file has none), as
// does gpkg_contents' extent. Rows go in batches, yielding the event loop between them.
import { Database } from '../storage/sqlite/sqlite-driver.js'
import { InvalidDataStore } from '../errors.js'
import { quoteSqliteName } from '../filters/sqlite.js'
import { blobEnvelope } from './geometry.js'

const BATCH = 5000
const q = quoteSqliteName
const shown = (s: string) => JSON.stringify(s)
const yieldLoop = () => new Promise((resolve) => setImmediate(resolve))

interface GeomTable { table: string, column: string, type: string, srs: number }
interface Column { name: string, type: string, notnull: number, dflt_value: unknown, pk: number }

/** SQLite's affinity of a declared type (https://sqlite.org/datatype3.html 3.1); GeoPackage's names fall in these. */
function affinity (declared: string): string {
  const t = declared.toUpperCase()
  if (t.includes('INT')) return 'INTEGER'
  if (/CHAR|CLOB|TEXT/.test(t)) return 'TEXT'
  if (t === '' || t.includes('BLOB')) return 'BLOB'
  if (/REAL|FLOA|DOUB/.test(t)) return 'REAL'
  return /^(DATE|DATETIME)$/.test(t) ? 'TEXT' : 'NUMERIC'
}

const geomTables = (db: InstanceType<typeof Database>, schema: string): GeomTable[] => db.prepare(
  `SELECT g.table_name AS "table", g.column_name AS "column", g.geometry_type_name AS type, g.srs_id AS srs FROM ${schema}.gpkg_geometry_columns g
   JOIN ${schema}.gpkg_contents c ON c.table_name = g.table_name WHERE c.data_type = 'features' ORDER BY g.table_name`).all() as GeomTable[]

const columns = (db: InstanceType<typeof Database>, schema: string, table: string): Column[] =>
  db.prepare(`SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?, ?)`).all(table, schema) as Column[]

/** Checks the upload against the store's file; returns, per table, the columns to copy. */
function plan (db: InstanceType<typeof Database>, storeName: string): Array<GeomTable & { copy: string[], rtree?: string, triggers: boolean }> {
  const uploaded = geomTables(db, 'up')
  if (uploaded.length === 0) throw InvalidDataStore('update=append: the uploaded GeoPackage holds no feature table')
  const mine = new Map(geomTables(db, 'main').map((t) => [t.table, t]))
  return uploaded.map((u) => {
    const t = mine.get(u.table)
    const where = `table ${shown(u.table)}`
    if (!t) throw InvalidDataStore(`update=append: ${where} of the upload is not in the GeoPackage of data store ${shown(storeName)} (append adds features to its tables: ${[...mine.keys()].join(', ') || 'none'})`)
    if (t.column !== u.column) throw InvalidDataStore(`update=append: the geometry column of ${where} is ${shown(t.column)} in the store and ${shown(u.column)} in the upload`)
    if (t.srs !== u.srs) throw InvalidDataStore(`update=append: the geometries of ${where} are in srs_id ${t.srs} in the store and ${u.srs} in the upload`)
    if (t.type.toUpperCase() !== 'GEOMETRY' && t.type.toUpperCase() !== u.type.toUpperCase()) throw InvalidDataStore(`update=append: column ${shown(t.column)} of ${where} holds ${t.type} in the store and ${u.type} in the upload`)
    const target = new Map(columns(db, 'main', u.table).map((c) => [c.name, c]))
    const source = columns(db, 'up', u.table)
    const copy: string[] = []
    for (const c of source) {
      if (c.pk > 0 && affinity(c.type) === 'INTEGER') continue // the feature id: the store gives new ones
      const mineCol = target.get(c.name)
      if (!mineCol) throw InvalidDataStore(`update=append: column ${shown(c.name)} of ${where} is not a column of the store's table (${[...target.keys()].join(', ')})`)
      if (c.name !== u.column && affinity(mineCol.type) !== affinity(c.type)) throw InvalidDataStore(`update=append: column ${shown(c.name)} of ${where} is ${mineCol.type || 'untyped'} in the store and ${c.type || 'untyped'} in the upload`)
      copy.push(c.name)
    }
    for (const c of target.values()) {
      if (c.notnull && c.dflt_value === null && !(c.pk > 0) && !copy.includes(c.name)) throw InvalidDataStore(`update=append: column ${shown(c.name)} of ${where} is NOT NULL in the store and the upload has no such column`)
    }
    const rtreeName = `rtree_${u.table}_${u.column}`
    const rtree = db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name = ?").pluck().get(rtreeName) as string | undefined
    const triggers = rtree !== undefined && db.prepare("SELECT 1 FROM main.sqlite_master WHERE type = 'trigger' AND tbl_name = ? AND name = ?").get(u.table, `${rtreeName}_insert`) !== undefined
    return { ...t, copy, ...(rtree ? { rtree } : {}), triggers }
  })
}

/** The ST_ functions GeoPackage's R-tree triggers call (GeoPackage 1.2, F.3), over the blob's envelope. */
export function registerSpatialFunctions (db: InstanceType<typeof Database>): void {
  const env = (b: unknown) => Buffer.isBuffer(b) ? blobEnvelope(b) : undefined
  db.function('ST_IsEmpty', { deterministic: true }, (b) => env(b) === undefined ? 1 : 0)
  db.function('ST_MinX', { deterministic: true }, (b) => env(b)?.[0] ?? null)
  db.function('ST_MinY', { deterministic: true }, (b) => env(b)?.[1] ?? null)
  db.function('ST_MaxX', { deterministic: true }, (b) => env(b)?.[2] ?? null)
  db.function('ST_MaxY', { deterministic: true }, (b) => env(b)?.[3] ?? null)
}

/**
 * Appends the uploaded GeoPackage's features to the store's file; returns the tables appended to with
 * the number of features each received.
 */
export async function appendGeoPackage (storeFile: string, uploadFile: string, storeName: string): Promise<Array<{ table: string, added: number }>> {
  const db = new Database(storeFile, { fileMustExist: true })
  try {
    db.pragma('busy_timeout = 10000')
    registerSpatialFunctions(db)
    db.prepare('ATTACH DATABASE ? AS up').run(uploadFile)
    const tables = plan(db, storeName)
    const out: Array<{ table: string, added: number }> = []
    db.exec('BEGIN IMMEDIATE')
    try {
      for (const t of tables) {
        const cols = t.copy.map(q).join(', ')
        const keys = db.prepare(`SELECT rowid FROM up.${q(t.table)} WHERE rowid > ? ORDER BY rowid LIMIT ${BATCH}`).pluck()
        const insert = db.prepare(`INSERT INTO main.${q(t.table)} (${cols}) SELECT ${cols} FROM up.${q(t.table)} WHERE rowid >= ? AND rowid <= ? ORDER BY rowid`)
        const written = db.prepare(`SELECT rowid, ${q(t.column)} FROM main.${q(t.table)} WHERE rowid > ? ORDER BY rowid`).raw(true)
        const index = t.rtree && !t.triggers ? db.prepare(`INSERT INTO main.${q(t.rtree)} (id, minx, maxx, miny, maxy) VALUES (?, ?, ?, ?, ?)`) : undefined
        let extent: [number, number, number, number] | undefined
        let last = 0
        let added = 0
        for (;;) {
          const ids = keys.all(last) as number[]
          if (ids.length === 0) break
          const before = (db.prepare(`SELECT max(rowid) FROM main.${q(t.table)}`).pluck().get() as number | null) ?? 0
          added += insert.run(ids[0], ids[ids.length - 1]).changes
          for (const [id, blob] of written.all(before) as Array<[number, Buffer | null]>) {
            const e = blob ? blobEnvelope(blob) : undefined
            if (!e) continue
            index?.run(id, e[0], e[2], e[1], e[3])
            extent = extent ? [Math.min(extent[0], e[0]), Math.min(extent[1], e[1]), Math.max(extent[2], e[2]), Math.max(extent[3], e[3])] : [...e]
          }
          last = ids[ids.length - 1]
          await yieldLoop()
        }
        // The contents' extent grows to hold the new features (it stays unknown when it was).
        if (extent) {
          db.prepare(`UPDATE main.gpkg_contents SET min_x = min(min_x, ?), min_y = min(min_y, ?), max_x = max(max_x, ?), max_y = max(max_y, ?),
            last_change = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE table_name = ? AND min_x IS NOT NULL`).run(...extent, t.table)
        }
        out.push({ table: t.table, added })
      }
      db.exec('COMMIT')
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK')
      const e = err as { code?: string, message?: string }
      if (typeof e.code === 'string' && e.code.startsWith('SQLITE_CONSTRAINT')) throw InvalidDataStore(`update=append: the store's GeoPackage refused a feature: ${e.message}`)
      throw err
    }
    return out
  } finally {
    db.close()
  }
}
