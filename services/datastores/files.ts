// File data stores: GeoPackage (`dbtype=geopkg`, `database` = the .gpkg) and Shapefile (`url` = one
// .shp, or a folder whose every .shp is a type), as GeoServer's GeoPkgDataStoreFactory and
// ShapefileDataStoreFactory / the directory of spatial files name their parameters. A location is a
// path or a `file:` URL (`file:///abs/x.gpkg`, `file:/abs/x.gpkg`, and GeoServer's `file:data/x.shp`
// relative to the data directory); it must lie under the data directory or a harvest root (symbolic
// links followed), else the store is refused (400) naming the location. The parameters are kept as
// sent; the location is resolved again each time the store is opened.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { InvalidDataStore, StoreFileOutsideRoots } from '../errors.js'
import { isUnder, realRoots } from '../mosaics/mosaic-files.js'
import type { Params } from './params.js'
import { Database } from '../storage/sqlite/sqlite-driver.js'

export const GEOPACKAGE_TYPE = 'GeoPackage'
export const SHAPEFILE_TYPE = 'Shapefile'
export const SHAPEFILE_DIRECTORY_TYPE = 'Directory of spatial files (shapefiles)'

/** Where a store's files may be: the data directory and the harvest roots. */
export interface FileRoots { dataDir: string, harvestRoots: string[] }

export type FileStoreKind = 'geopkg' | 'shapefile'

const shown = (v: string) => JSON.stringify(v.length > 200 ? v.slice(0, 200) + '...' : v)

/** A location (path or file: URL) as an absolute path; relative ones are under the data directory. */
export function locationPath (value: string, dataDir: string): string {
  const text = value.trim()
  if (text === '') throw InvalidDataStore('the file location is empty')
  if (/[\u0000-\u001f]/.test(text)) throw InvalidDataStore(`file location ${shown(text)} holds a control character`)
  let p: string
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)
  if (scheme && scheme[1].length > 1) {
    if (scheme[1].toLowerCase() !== 'file') throw InvalidDataStore(`file location ${shown(text)}: ${scheme[1]}: URLs are not supported, only file: URLs and paths`)
    const rest = text.slice(5)
    if (rest.startsWith('//')) {
      let url: URL
      try { url = new URL(text) } catch { throw InvalidDataStore(`file location ${shown(text)} is not a valid file: URL`) }
      if (url.host !== '' && url.host !== 'localhost') throw InvalidDataStore(`file location ${shown(text)} must name a local path`)
      try { p = fileURLToPath(url) } catch { throw InvalidDataStore(`file location ${shown(text)} is not a valid file: URL`) }
    } else {
      // GeoServer's `file:data/x.shp` (relative to the data directory) and `file:/abs/x.shp`.
      let decoded: string
      try { decoded = decodeURIComponent(rest) } catch { throw InvalidDataStore(`file location ${shown(text)} is not a valid file: URL`) }
      p = decoded
    }
  } else {
    p = text
  }
  if (p.includes('\u0000')) throw InvalidDataStore(`file location ${shown(text)} holds a NUL character`)
  return path.isAbsolute(p) ? path.resolve(p) : path.resolve(dataDir, p)
}

/** The real path of a location, refused unless it is under the data directory or a harvest root. */
export async function resolveStoreFile (value: string, roots: FileRoots): Promise<string> {
  const lexical = locationPath(value, roots.dataDir)
  const allowed = [path.resolve(roots.dataDir), ...roots.harvestRoots.map((r) => path.resolve(r))]
  if (!allowed.some((r) => isUnder(r, lexical))) throw StoreFileOutsideRoots(shown(value.trim()))
  let real: string
  try { real = await fs.promises.realpath(lexical) } catch { throw InvalidDataStore(`file location ${shown(value.trim())}: no such file or directory`) }
  const realAllowed = [await fs.promises.realpath(roots.dataDir).catch(() => path.resolve(roots.dataDir)), ...await realRoots(roots.harvestRoots)]
  if (!realAllowed.some((r) => isUnder(r, real))) throw StoreFileOutsideRoots(`${shown(value.trim())} (through a symbolic link)`)
  return real
}

/** The kind of file store a body asks for (its dbtype, else its type, else a `url` alone), or undefined. */
export function fileStoreKind (params: Params, type: string | undefined): FileStoreKind | undefined {
  const dbtype = (params.dbtype ?? '').trim().toLowerCase()
  if (dbtype === 'geopkg') return 'geopkg'
  if (dbtype !== '') return undefined
  const t = (type ?? '').trim().toLowerCase()
  if (t === GEOPACKAGE_TYPE.toLowerCase()) return 'geopkg'
  if (t === SHAPEFILE_TYPE.toLowerCase() || t === SHAPEFILE_DIRECTORY_TYPE.toLowerCase()) return 'shapefile'
  if (t === '' && params.url !== undefined && params.url !== '') return 'shapefile'
  return undefined
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\u0000', 'latin1')

/** Integer keys of file stores and their smallest value. */
const INTEGER_KEYS: Record<string, number> = { 'fetch size': 1, 'max connections': 1, 'min connections': 0 }
const BOOLEAN_KEYS = ['Expose primary keys', 'memory mapped buffer', 'create spatial index', 'cache and reuse memory maps', 'enable spatial index']

export interface CheckedFileStore { params: Params, type: string, file: string }

/**
 * Checks a file store's parameters: the location (under the roots, there, of the right kind: a
 * SQLite file holding gpkg_contents, a .shp with its .dbf and .shx, or a folder), `charset` (a
 * label TextDecoder knows), the numbers and booleans this server reads. Returns the parameters to
 * keep, GeoServer's type name and the resolved file.
 */
export async function checkFileStoreParams (kind: FileStoreKind, p: Params, roots: FileRoots): Promise<CheckedFileStore> {
  const out: Params = { ...p }
  for (const [key, min] of Object.entries(INTEGER_KEYS)) {
    const v = out[key]
    if (v === undefined || v === '') { delete out[key]; continue }
    const n = /^\s*[0-9]+\s*$/.test(v) ? Number(v) : NaN
    if (!Number.isSafeInteger(n) || n < min) throw InvalidDataStore(`connection parameter ${shown(key)} must be an integer of at least ${min}: ${shown(v)}`)
    out[key] = String(n)
  }
  for (const key of BOOLEAN_KEYS) {
    const v = out[key]
    if (v === undefined) continue
    if (!/^(true|false)$/i.test(v.trim())) throw InvalidDataStore(`connection parameter ${shown(key)} must be true or false: ${shown(v)}`)
    out[key] = v.trim().toLowerCase()
  }
  if (kind === 'geopkg') {
    out.dbtype = 'geopkg'
    const db = out.database ?? ''
    if (db === '') throw InvalidDataStore('connection parameter "database" is required: the GeoPackage file (a path or file: URL under the data directory or a harvest root)')
    const file = await resolveStoreFile(db, roots)
    await checkGeoPackageFile(file, db)
    return { params: out, type: GEOPACKAGE_TYPE, file }
  }
  const url = out.url ?? ''
  if (url === '') throw InvalidDataStore('connection parameter "url" is required: the .shp file or the folder of shapefiles (file:data/x.shp, file:///abs/folder)')
  if (out.charset !== undefined && out.charset !== '') {
    try { new TextDecoder(out.charset.trim()) } catch { throw InvalidDataStore(`connection parameter "charset" is not a character set this server knows: ${shown(out.charset)}`) }
  }
  const file = await resolveStoreFile(url, roots)
  const st = await fs.promises.stat(file)
  if (st.isDirectory()) return { params: out, type: SHAPEFILE_DIRECTORY_TYPE, file }
  if (!/\.shp$/i.test(file)) throw InvalidDataStore(`connection parameter "url" must name a .shp file or a folder: ${shown(url)}`)
  await checkShapefile(file)
  return { params: out, type: SHAPEFILE_TYPE, file }
}

/** Refuses a file that is not a GeoPackage: not SQLite, or without gpkg_contents. */
export async function checkGeoPackageFile (file: string, shownName: string): Promise<void> {
  const st = await fs.promises.stat(file)
  if (!st.isFile()) throw InvalidDataStore(`GeoPackage ${shown(shownName)} is not a file`)
  const fh = await fs.promises.open(file, 'r')
  const head = Buffer.alloc(16)
  try { await fh.read(head, 0, 16, 0) } finally { await fh.close() }
  if (!head.equals(SQLITE_MAGIC)) throw InvalidDataStore(`${shown(shownName)} is not a GeoPackage: not an SQLite database`)
  let db: InstanceType<typeof Database> | undefined
  try {
    db = new Database(file, { readonly: true, fileMustExist: true })
    const t = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type IN ('table', 'view') AND name IN ('gpkg_contents', 'gpkg_geometry_columns', 'gpkg_spatial_ref_sys')").get() as { n: number }
    if (t.n < 3) throw InvalidDataStore(`${shown(shownName)} is not a GeoPackage: it has no gpkg_contents, gpkg_geometry_columns and gpkg_spatial_ref_sys tables`)
  } catch (err) {
    if ((err as { code?: string }).code === 'MW_DATASTORE_INVALID') throw err
    throw InvalidDataStore(`${shown(shownName)} is not a readable GeoPackage: ${(err as Error).message}`)
  } finally { db?.close() }
}

/** A shapefile's companions (.shx, .dbf) in any letter case, or why it is not usable. */
export async function shapefileParts (shp: string): Promise<{ shx?: string, dbf?: string, prj?: string, cpg?: string }> {
  const dir = path.dirname(shp)
  const base = path.basename(shp).replace(/\.shp$/i, '').toLowerCase()
  const out: Record<string, string> = {}
  for (const name of await fs.promises.readdir(dir)) {
    const m = /^(.*)\.(shx|dbf|prj|cpg)$/i.exec(name)
    if (m && m[1].toLowerCase() === base) out[m[2].toLowerCase()] = path.join(dir, name)
  }
  return out
}

export async function checkShapefile (shp: string): Promise<void> {
  const parts = await shapefileParts(shp)
  const name = path.basename(shp)
  if (!parts.dbf) throw InvalidDataStore(`shapefile ${shown(name)} has no .dbf beside it (its attributes)`)
  if (!parts.shx) throw InvalidDataStore(`shapefile ${shown(name)} has no .shx beside it (its index)`)
  const fh = await fs.promises.open(shp, 'r')
  const head = Buffer.alloc(100)
  try {
    const { bytesRead } = await fh.read(head, 0, 100, 0)
    if (bytesRead < 100 || head.readInt32BE(0) !== 9994) throw InvalidDataStore(`${shown(name)} is not a shapefile (no 9994 file code in its header)`)
  } finally { await fh.close() }
}
