// GeoServer's DataStoreFileController for vector files: `PUT .../datastores/<ds>/file.shp` (a ZIP of
// .shp, .shx, .dbf, .prj, .cpg), `file.gpkg` (a ZIP holding one .gpkg, or the .gpkg itself sent as
// application/geopackage+sqlite3), and `external.shp|gpkg` /
// `url.shp|gpkg` (a file: URL or a path under the harvest roots or the data directory, sent as the
// body; url.* with an http(s) URL fetches it through remote-fetch.ts and uploads it as file.*). An upload is extracted into a staging folder (services/files/zip.ts: its zip-bomb and
// path-traversal checks) and checked whole (every shapefile with its .dbf and .shx and a WKT .prj;
// the GeoPackage an SQLite file with the gpkg tables) before anything moves: a refusal leaves nothing
// new on disk and an existing store's files as they were. Accepted files go to
// <dataDir>/data/<ws>/<store>/ (an update replaces them by renames, see install), the store is
// created or changed through the data store service with GeoServer's parameters (`url`, `charset`;
// `dbtype=geopkg`, `database`), the spatial index of each uploaded .shp is built (shapefile-index.ts),
// and `configure=first|all|none` publishes feature types. update=append: gpkg-append.ts writes into a
// GeoPackage store's file; shapefile-append.ts into a staged copy of a shapefile store's folder (appendShp).
import fs from 'node:fs'
import path from 'node:path'
import { extractZip, type ZipLimits } from '../files/zip.js'
import { fsyncTree, renameDurable, withStaging } from '../files/atomic.js'
import { createKeyedQueue } from '../keyed-queue.js'
import { checkName } from '../files/names.js'
import type { WorkspaceService } from '../catalog/workspaces.js'
import { InvalidDataStore, isMapwardenError, RemoteUploadRefused } from '../errors.js'
import { isRemoteUrl, type RemoteFetch } from '../files/remote-fetch.js'
import type { DataStoreService } from '../datastores/service.js'
import { fileKindOfType } from '../datastores/service.js'
import { checkGeoPackageFile, checkShapefile, locationPath, resolveStoreFile, shapefileParts } from '../datastores/files.js'
import type { DataStoreRow } from '../datastores/store.js'
import { appendGeoPackage } from './gpkg-append.js'
import { appendShapefiles } from './shapefile-append.js'
import type { FeatureTypeService } from './feature-types.js'
import type { SourceRegistry } from './sources.js'
import { sridOfPrj } from './prj.js'
import { DEFAULT_SHAPEFILE_CHARSET, shapefileIndexDir } from './sources.js'
import { ensureShapefileIndex } from './shapefile-index.js'

export type VectorFormat = 'shp' | 'gpkg'
export type UploadMethod = 'file' | 'external' | 'url'
export type Configure = 'first' | 'all' | 'none'

export interface VectorUpload {
  workspace: string
  store: string
  format: VectorFormat
  method: UploadMethod
  /** The uploaded ZIP (method file). */
  zipPath?: string
  /** The uploaded GeoPackage itself (file.gpkg sent as application/geopackage+sqlite3). */
  gpkgPath?: string
  /** The location sent as the body (methods external and url). */
  location?: string
  configure: Configure
  charset?: string
  update?: string
  /** The name of a GeoPackage sent as itself (`filename`; `.gpkg` added when it has no such ending); a ZIP keeps its names. */
  filename?: string
}

export interface VectorUploadDeps {
  dataDir: string
  /** Where external GeoPackages may be (an append writes into the store's file wherever it is). */
  harvestRoots?: string[]
  zipLimits: ZipLimits
  /** Fetches url.shp / url.gpkg from an http(s) URL (services/files/remote-fetch.ts); without it, remote URLs are refused. */
  remoteFetch?: RemoteFetch
  datastores: DataStoreService
  featureTypes: FeatureTypeService
  sources: SourceRegistry
  workspaces: WorkspaceService
}

export const isVectorFormat = (f: string): f is VectorFormat => f === 'shp' || f === 'gpkg'

const ZIP_MAGIC = Buffer.from('PK\u0003\u0004', 'latin1')
const SQLITE_MAGIC = Buffer.from('SQLite format 3\u0000', 'latin1')

async function firstBytes (file: string, n: number): Promise<Buffer> {
  const h = await fs.promises.open(file, 'r')
  try {
    const buf = Buffer.alloc(n)
    const { bytesRead } = await h.read(buf, 0, n, 0)
    return buf.subarray(0, bytesRead)
  } finally { await h.close() }
}

/** The folder holding the shallowest .shp of an extracted archive, with the names of its shapefiles. */
function shapefileFolder (names: string[]): { folder: string, shps: string[] } {
  const shps = names.filter((n) => /\.shp$/i.test(n))
  if (shps.length === 0) throw InvalidDataStore('the ZIP holds no .shp file')
  const depth = (n: string) => n.split('/').length
  const folder = path.posix.dirname(shps.sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1))[0])
  return { folder, shps: shps.filter((n) => path.posix.dirname(n) === folder) }
}

export function createVectorUploads ({ dataDir, harvestRoots = [], zipLimits, remoteFetch, datastores, featureTypes, sources, workspaces }: VectorUploadDeps) {
  const serialized = createKeyedQueue()
  const storeDir = (ws: string, store: string) => path.join(dataDir, 'data', ws, store)
  const ASIDE = '.replaced'
  const asideOf = (target: string) => path.join(path.dirname(target), `.${path.basename(target)}${ASIDE}`)

  /** Checks the extracted files; returns the store's location relative to the data directory's `data/<ws>/<store>`. */
  const checkExtracted = async (stage: string, names: string[], format: VectorFormat): Promise<{ from: string, entry?: string }> => {
    if (format === 'gpkg') {
      const gpkgs = names.filter((n) => /\.gpkg$/i.test(n))
      if (gpkgs.length !== 1) throw InvalidDataStore(gpkgs.length === 0 ? 'the ZIP holds no .gpkg file' : `the ZIP holds ${gpkgs.length} .gpkg files; a GeoPackage store reads one`)
      await checkGeoPackageFile(path.join(stage, gpkgs[0]), path.posix.basename(gpkgs[0]))
      return { from: path.join(stage, path.posix.dirname(gpkgs[0])), entry: path.posix.basename(gpkgs[0]) }
    }
    const { folder, shps } = shapefileFolder(names)
    for (const shp of shps) {
      const file = path.join(stage, shp)
      await checkShapefile(file)
      const parts = await shapefileParts(file)
      if (parts.prj) await sridOfPrj(await fs.promises.readFile(parts.prj, 'utf8'), path.basename(parts.prj))
    }
    return { from: path.join(stage, folder), ...(shps.length === 1 ? { entry: path.posix.basename(shps[0]) } : {}) }
  }

  /**
   * Moves the checked folder into place. The store's earlier files are renamed aside to
   * `.<store>.replaced` beside the folder (same filesystem, not under tmp/ which every start wipes);
   * `rollback` puts them back and `commit` removes them. A crash between the two renames leaves
   * the old files aside with no folder: recover() (at start and before each upload) renames them back.
   */
  const install = async (from: string, target: string, stage: string) => {
    await fs.promises.mkdir(path.dirname(target), { recursive: true })
    const old = asideOf(target)
    await fs.promises.rm(old, { recursive: true, force: true })
    const had = await fs.promises.stat(target).then(() => true, () => false)
    if (had) await renameDurable(target, old)
    try {
      await renameDurable(from, target)
    } catch (err) {
      if (had) await renameDurable(old, target).catch(() => undefined)
      throw err
    }
    return {
      commit: async () => { if (had) await fs.promises.rm(old, { recursive: true, force: true }) },
      rollback: async () => {
        // The refused files go back to the staging folder (removed with it), the old ones return.
        await fs.promises.rename(target, path.join(stage, 'refused'))
        if (had) await renameDurable(old, target)
      }
    }
  }

  /** Finishes what a crash interrupted: old files aside with no folder go back; aside beside a folder, the new files won. */
  const recoverStore = async (target: string) => {
    const old = asideOf(target)
    if (!await fs.promises.stat(old).then(() => true, () => false)) return
    if (await fs.promises.stat(target).then(() => true, () => false)) await fs.promises.rm(old, { recursive: true, force: true })
    else await renameDurable(old, target)
  }

  /** Builds the spatial index of each .shp of an uploaded store's folder (one a .shp cannot have: scanned). */
  const indexShapefiles = async (folder: string) => {
    for (const name of await fs.promises.readdir(folder)) {
      if (!/\.shp$/i.test(name)) continue
      const db = await ensureShapefileIndex(path.join(folder, name), shapefileIndexDir(dataDir))
      db?.close()
    }
  }

  const params = (u: VectorUpload, location: string): Record<string, string> => u.format === 'gpkg'
    ? { dbtype: 'geopkg', database: location }
    : { url: location, ...(u.charset !== undefined && u.charset !== '' ? { charset: u.charset } : {}) }

  /** Publishes the types `configure` asks for that are not configured yet; types without a CRS are left to a POST with srs. */
  const configureTypes = async (ws: string, store: string, configure: Configure): Promise<string[]> => {
    if (configure === 'none') return []
    const names = await featureTypes.names(ws, store, 'available_with_geom')
    const done: string[] = []
    for (const name of configure === 'first' ? names.slice(0, 1) : names) {
      try {
        done.push(await featureTypes.create(ws, store, { name }))
      } catch (err) {
        // A type with no CRS, or whose name another resource of the workspace holds: not published.
        if (isMapwardenError(err) && (err.kind === 'invalid' || err.kind === 'conflict')) continue
        throw err
      }
    }
    return done
  }

  /** The upload's files extracted to `stage` (a ZIP, or the GeoPackage itself), checked whole. */
  const extractUpload = async (u: VectorUpload, stage: string) => {
    const extracted = path.join(stage, 'files')
    let names: string[]
    if (u.zipPath) {
      names = (await extractZip(u.zipPath, extracted, zipLimits)).map((e) => e.name)
    } else {
      // The GeoPackage itself: named `filename`, else after the store, as GeoServer names a single-file upload.
      await fs.promises.mkdir(extracted)
      const name = u.filename === undefined ? `${u.store}.gpkg` : /\.gpkg$/i.test(u.filename) ? u.filename : `${u.filename}.gpkg`
      names = [checkName(name, 'filename')]
      await fs.promises.copyFile(u.gpkgPath!, path.join(extracted, names[0]))
    }
    return await checkExtracted(extracted, names, u.format)
  }

  /**
   * update=append onto an existing GeoPackage store: the upload's features go into the store's file
   * (gpkg-append.ts); the bounds of the feature types of the tables appended to are computed again.
   */
  const append = async (u: VectorUpload, store: DataStoreRow) => {
    const storeFile = await resolveStoreFile(store.config.connectionParameters.database ?? '', { dataDir, harvestRoots })
    const appended = await withStaging(dataDir, 'vector', async (stage) => {
      const { from, entry } = await extractUpload(u, stage)
      await sources.forget(u.workspace, u.store)
      return await appendGeoPackage(storeFile, path.join(from, entry!), store.name)
    })
    const tables = new Set(appended.map((a) => a.table))
    for (const ft of await featureTypes.list(u.workspace, u.store)) {
      if (tables.has(ft.nativeName)) await featureTypes.update(u.workspace, u.store, ft.name, {}, 'nativebbox,latlonbbox')
    }
  }

  /**
   * update=append onto an existing Shapefile store whose files were uploaded (data/<ws>/<store>/): a
   * copy of the store's folder is staged, the upload's records appended to it (shapefile-append.ts),
   * fsynced, and swapped in as an overwrite is (install: the old folder aside until the new one is
   * indexed); the readers are forgotten, the bounds of the types appended to computed again (which
   * drops their cached tiles). A store that reads files elsewhere (external.shp) is refused.
   */
  const appendShp = async (u: VectorUpload, store: DataStoreRow) => {
    const p = store.config.connectionParameters
    const target = storeDir(u.workspace, u.store)
    const location = locationPath(p.url ?? '', dataDir)
    const single = location !== target
    if (single && path.dirname(location) !== target) throw InvalidDataStore(`update=append: shapefile store ${JSON.stringify(u.store)} reads ${JSON.stringify(p.url ?? '')}, not files uploaded to it: only an uploaded store's files are appended to (upload with update=overwrite)`)
    const { appended, created } = await withStaging(dataDir, 'vector', async (stage) => {
      const { from } = await extractUpload(u, stage)
      const uploadShps = (await fs.promises.readdir(from)).filter((n) => /\.shp$/i.test(n))
      await recoverStore(target)
      const staged = path.join(stage, 'store')
      await fs.promises.cp(target, staged, { recursive: true })
      const done = await appendShapefiles({
        storeFolder: staged,
        uploadFolder: from,
        uploadShps,
        storeName: u.store,
        ...(single ? { singleType: path.basename(location).replace(/\.shp$/i, '') } : {}),
        storeCharset: p.charset?.trim() || DEFAULT_SHAPEFILE_CHARSET,
        ...(u.charset !== undefined && u.charset !== '' ? { uploadCharset: u.charset } : {})
      })
      await fsyncTree(staged)
      await sources.forget(u.workspace, u.store)
      const installed = await install(staged, target, stage)
      try {
        // The .shp files changed (new inodes): their spatial indexes are built again now.
        await indexShapefiles(target)
      } catch (err) {
        await installed.rollback()
        throw err
      } finally { await sources.forget(u.workspace, u.store) }
      await installed.commit()
      return done
    })
    if (created.length > 0 && u.configure === 'all') await configureTypes(u.workspace, u.store, 'all')
    const types = new Set(appended.map((a) => a.type))
    for (const ft of await featureTypes.list(u.workspace, u.store)) {
      if (types.has(ft.nativeName)) await featureTypes.update(u.workspace, u.store, ft.name, {}, 'nativebbox,latlonbbox')
    }
  }

  const api = {
    /** At start: finishes the overwrites a crash interrupted (see install). */
    async recover (): Promise<void> {
      const data = path.join(dataDir, 'data')
      const workspaces = await fs.promises.readdir(data, { withFileTypes: true }).catch(() => [])
      for (const ws of workspaces) {
        if (!ws.isDirectory()) continue
        const entries = await fs.promises.readdir(path.join(data, ws.name))
        for (const name of entries) {
          if (name.startsWith('.') && name.endsWith(ASIDE)) await recoverStore(path.join(data, ws.name, name.slice(1, -ASIDE.length)))
        }
      }
    },

    /** Creates or updates the store from the upload; returns whether it was created. */
    async upload (u: VectorUpload): Promise<{ created: boolean }> {
      // url.* naming an http(s) URL (GeoServer's handleURLUpload): its bytes are fetched into a
      // staging file (allow-listed hosts, public addresses, capped and timed) and uploaded as file.*.
      if (u.method === 'url' && u.location !== undefined && isRemoteUrl(u.location)) {
        await workspaces.get(u.workspace)
        checkName(u.store, 'data store')
        const location = u.location
        return await withStaging(dataDir, 'url', async (stage) => {
          const file = path.join(stage, 'download')
          if (!remoteFetch) throw RemoteUploadRefused(JSON.stringify(location.trim().slice(0, 200)), 'remote uploads are off')
          await remoteFetch(location, file)
          const head = await firstBytes(file, 16)
          const { location: _, ...rest } = u
          if (head.subarray(0, 4).equals(ZIP_MAGIC)) return await api.upload({ ...rest, method: 'file', zipPath: file })
          if (u.format === 'gpkg' && head.equals(SQLITE_MAGIC)) return await api.upload({ ...rest, method: 'file', gpkgPath: file })
          throw InvalidDataStore(`url.${u.format}: what ${JSON.stringify(location.trim().slice(0, 200))} answered is not a ZIP${u.format === 'gpkg' ? ' or a GeoPackage' : ' (a shapefile comes as a ZIP of its .shp, .shx, .dbf and .prj)'}`)
        })
      }
      const update = (u.update ?? '').trim().toLowerCase()
      if (update !== '' && update !== 'overwrite' && update !== 'append') throw InvalidDataStore(`update=${JSON.stringify(u.update)}: update is overwrite or append`)
      // Both names become folders of the data directory: checked before anything is written.
      const ws = (await workspaces.get(u.workspace)).name
      checkName(u.store, 'data store')
      return await serialized(ws, async () => {
        const existing = await datastores.find(u.workspace, u.store)
        const any = existing ?? await datastores.anyStore(u.workspace, u.store)
        if (any && fileKindOfType(any.type) !== (u.format === 'gpkg' ? 'geopkg' : 'shapefile')) {
          throw InvalidDataStore(`data store ${JSON.stringify(u.store)} is a ${any.type} store: a .${u.format} upload cannot change its type`)
        }
        if (update === 'append' && existing) {
          // An upload with no store to append to creates it, as GeoServer does.
          if (u.method !== 'file' || (!u.zipPath && !u.gpkgPath)) throw InvalidDataStore(`update=append takes an uploaded file (file.shp or file.gpkg), not ${u.method}.${u.format}`)
          if (u.format === 'shp') {
            if (!u.zipPath) throw InvalidDataStore('file.shp takes a ZIP (application/zip)')
            await appendShp(u, existing)
          } else await append(u, existing)
          return { created: false }
        }
        const body = (location: string) => ({ name: u.store, connectionParameters: params(u, location) })
        const save = async (location: string) => {
          if (existing) await datastores.update(u.workspace, u.store, { connectionParameters: params(u, location) })
          else await datastores.create(u.workspace, body(location))
        }
        if (u.method === 'file') {
          if (!u.zipPath && !(u.gpkgPath && u.format === 'gpkg')) throw InvalidDataStore(`file.${u.format} takes a ZIP (application/zip)`)
          await withStaging(dataDir, 'vector', async (stage) => {
            const { from, entry } = await extractUpload(u, stage)
            const target = storeDir(u.workspace, u.store)
            const rel = ['data', u.workspace, u.store, ...(entry ? [entry] : [])].join('/')
            await recoverStore(target)
            const installed = await install(from, target, stage)
            try {
              await save(`file:${rel}`)
              // The spatial index now, so the first map or WFS read with a box does not wait for it.
              if (u.format === 'shp') await indexShapefiles(target)
            } catch (err) {
              // Refused (a charset the store does not take, ...): the store and its files stay as they were.
              await installed.rollback()
              throw err
            }
            await installed.commit()
          })
        } else {
          const location = (u.location ?? '').trim()
          if (location === '') throw InvalidDataStore(`${u.method}.${u.format} takes the file's location as the body (a file: URL or a path)`)
          await save(location)
        }
        await sources.forget(u.workspace, u.store)
        await configureTypes(u.workspace, u.store, u.configure)
        return { created: !existing }
      })
    }
  }
  return api
}
export type VectorUploads = ReturnType<typeof createVectorUploads>
