// Edits of a GeoPackage source (a WFS Transaction): one read-write connection, BEGIN IMMEDIATE, every
// edit, COMMIT, all or nothing. Rows are chosen by the filter compiled as a read's (gpkgWhere); a
// geometry is written as a GeoPackage blob with its envelope and the column's srs_id; the R-tree
// follows through the file's triggers (given the ST_ functions they call) or is written here; the
// contents' extent grows to hold new geometries and last_change is set. Each edit answers the box of
// the geometries it touched, before and after, for the tile cache.
import { Database } from '../storage/sqlite/sqlite-driver.js'
import { quoteSqliteName } from '../filters/sqlite.js'
import type { Envelope } from '../filters/tree.js'
import { InvalidFeatureQuery } from '../errors.js'
import { addFunctions, gpkgWhere, type Described } from './geopackage-source.js'
import { registerSpatialFunctions } from './gpkg-append.js'
import { envelopeOfValue as envelopeOf, writeGpkgBlob } from './geometry.js'
import { unionOf } from './postgis-write.js'
import type { Edit, EditResult, EditValue } from './source.js'

type Db = InstanceType<typeof Database>
const q = quoteSqliteName

function apply (db: Db, d: Described, e: Edit, exposePrimaryKeys: boolean): EditResult & { grown?: Envelope } {
  const key = d.keyIsColumn ? q(d.key) : 'rowid'
  const table = q(d.name)
  const geom = d.geometry?.name
  const writable = new Set([...d.attributes.map((a) => a.name), ...(exposePrimaryKeys && d.keyIsColumn ? [d.key] : [])])
  const column = (name: string) => {
    if (!writable.has(name)) throw InvalidFeatureQuery(`${d.name} has no attribute ${JSON.stringify(name)}`)
    return q(name)
  }
  const value = (name: string, v: EditValue): unknown => {
    if (Buffer.isBuffer(v)) return name === geom ? writeGpkgBlob(v, d.srsId ?? 0) : v
    return typeof v === 'boolean' ? (v ? 1 : 0) : v
  }
  const rtree = d.rtree
  const manualIndex = rtree !== undefined && db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? AND name = ?").get(d.name, `${rtree}_insert`) === undefined
  const index = (id: number | bigint, env: Envelope | undefined) => {
    if (!manualIndex || !rtree) return
    db.prepare(`DELETE FROM ${q(rtree)} WHERE id = ?`).run(id)
    if (env) db.prepare(`INSERT INTO ${q(rtree)} (id, minx, maxx, miny, maxy) VALUES (?, ?, ?, ?, ?)`).run(id, env[0], env[2], env[1], env[3])
  }
  if (e.kind === 'insert') {
    const ids: string[] = []
    let grown: Envelope | undefined
    for (const f of e.features) {
      const names = Object.keys(f)
      const sql = names.length > 0
        ? `INSERT INTO ${table} (${names.map(column).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`
        : `INSERT INTO ${table} DEFAULT VALUES`
      const values = names.map((n) => value(n, f[n]))
      const r = db.prepare(sql).run(...values)
      ids.push(String(r.lastInsertRowid))
      const env = geom ? envelopeOf(values[names.indexOf(geom)]) : undefined
      index(r.lastInsertRowid, env)
      grown = unionOf(grown, env)
    }
    return { count: e.features.length, ids, ...(grown ? { area: grown, grown } : {}) }
  }
  const known = new Set([...d.attributes.map((a) => a.name), ...(d.keyIsColumn ? [d.key] : [])])
  const check = (name: string) => {
    if (!known.has(name)) throw InvalidFeatureQuery(`${d.name} has no attribute ${JSON.stringify(name)}`)
    return q(name)
  }
  const values: unknown[] = []
  const where = gpkgWhere(d, { ...(e.filter ? { filter: e.filter } : {}) }, check, values)
  const matched = db.prepare(`SELECT ${key} AS id${geom ? `, ${q(geom)} AS g` : ''} FROM ${table}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`)
    .all(...values) as Array<{ id: number, g?: unknown }>
  let area: Envelope | undefined
  for (const m of matched) area = unionOf(area, envelopeOf(m.g))
  if (e.kind === 'delete') {
    const del = db.prepare(`DELETE FROM ${table} WHERE ${key} = ?`)
    for (const m of matched) { del.run(m.id); index(m.id, undefined) }
    return { count: matched.length, ids: [], ...(area ? { area } : {}) }
  }
  const names = Object.keys(e.values)
  if (names.length === 0) throw InvalidFeatureQuery(`an update of ${d.name} sets no property`)
  const sets = names.map((n) => value(n, e.values[n]))
  const upd = db.prepare(`UPDATE ${table} SET ${names.map((n) => `${column(n)} = ?`).join(', ')} WHERE ${key} = ?`)
  const newEnv = geom && names.includes(geom) ? envelopeOf(sets[names.indexOf(geom)]) : undefined
  for (const m of matched) {
    upd.run(...sets, m.id)
    if (geom && names.includes(geom)) index(m.id, newEnv)
  }
  const grown = matched.length > 0 ? newEnv : undefined
  area = unionOf(area, grown)
  return { count: matched.length, ids: [], ...(area ? { area } : {}), ...(grown ? { grown } : {}) }
}

/** Applies edits to the GeoPackage `file` in one transaction; `describe` reads a type's table. */
export function writeGeoPackage (file: string, edits: Edit[], describe: (type: string) => Described | undefined, exposePrimaryKeys: boolean): EditResult[] {
  const db = new Database(file, { fileMustExist: true })
  try {
    db.pragma('busy_timeout = 10000')
    registerSpatialFunctions(db)
    addFunctions(db)
    db.exec('BEGIN IMMEDIATE')
    try {
      const out: EditResult[] = []
      for (const e of edits) {
        const d = describe(e.type)
        if (!d) throw InvalidFeatureQuery(`no feature table ${JSON.stringify(e.type)} in the GeoPackage`)
        const { grown, ...r } = apply(db, d, e, exposePrimaryKeys)
        // The contents' extent grows to hold new geometries (it stays unknown when it was).
        if (grown) {
          db.prepare(`UPDATE gpkg_contents SET min_x = min(min_x, ?), min_y = min(min_y, ?), max_x = max(max_x, ?), max_y = max(max_y, ?)
            WHERE table_name = ? AND min_x IS NOT NULL`).run(...grown, d.name)
        }
        if (r.count > 0) db.prepare("UPDATE gpkg_contents SET last_change = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE table_name = ?").run(d.name)
        out.push(r)
      }
      db.exec('COMMIT')
      return out
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK')
      const c = (err as { code?: unknown }).code
      if (typeof c === 'string' && /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG)/.test(c)) throw InvalidFeatureQuery(`the GeoPackage refused the edit: ${(err as Error).message}`)
      throw err
    }
  } finally {
    db.close()
  }
}
