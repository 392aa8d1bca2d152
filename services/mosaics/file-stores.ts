// Coverage stores made from one file or a server path, served by the mosaic machinery:
// - a GeoTIFF store (GeoServer's format "GeoTIFF") is a mosaic of its one granule: PUT file.geotiff
//   keeps the uploaded file in the store's folder, PUT external.geotiff and a POSTed store with a
//   file: url read a file under the harvest roots in place;
// - a WorldImage store is the same for a PNG, JPEG, GIF or TIFF placed by its world file (.pgw, .jgw,
//   .gfw, .tfw, .wld) with an optional .prj: PUT file.worldimage takes a ZIP of them, external.worldimage
//   names the image on the server. The renderer reads these images as they are (no conversion);
// - PUT external.imagemosaic and a POSTed ImageMosaic store with a url index a server folder in
//   place (its indexer.properties, if any, says how), the index kept in the catalog database.
// Every path creates or replaces the store through installStore (store-install.ts): the old folder
// waits aside until the catalog and index committed, and a replaced store's cached tiles go.
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { checkName } from '../files/names.js'
import { withStaging } from '../files/atomic.js'
import { extractZip } from '../files/zip.js'
import { CoverageStoreExists, HarvestBadLocation, InvalidCoverage, InvalidCoverageStore, NoGoodGranules, NotAGeoTiff, NotAWorldImage } from '../errors.js'
import { isPlacedImage } from './world-file.js'
import { parseMosaicDefinition, type MosaicSettings } from './indexer.js'
import { findGranules, readGranules, type Skipped } from './scan.js'
import { harvestTarget, isUnder, posixRel, readDefinition, realRoots } from './mosaic-files.js'
import { adoptCrsAttribute } from './granule-changes.js'
import { dataUrl, installStore } from './store-install.js'
import type { MosaicContext } from './mosaic-context.js'
import type { MosaicRecord, NewGranule } from './store.js'

export type Configure = 'none' | 'first' | 'all'
export type StoreType = 'GeoTIFF' | 'ImageMosaic' | 'WorldImage'
/** The store types made of one file. */
export type SingleFileType = Exclude<StoreType, 'ImageMosaic'>
export interface FileStoreOptions { configure: Configure, coverageName?: string }
export interface FileStoreResult { configured: string[], skipped: Skipped[] }

/** The extensions a GeoTIFF file may have (GeoTools' GeoTiffFormat accepts these). */
const TIFF_NAME = /\.(tif|tiff|gtif|geotiff)$/i
/** TIFF's two byte orders (II*\0, MM\0*) and BigTIFF's (II+\0, MM\0+). */
const TIFF_MAGIC = [Buffer.from('II*\0', 'latin1'), Buffer.from('MM\0*', 'latin1'), Buffer.from('II+\0', 'latin1'), Buffer.from('MM\0+', 'latin1')]

/** A file: URL (or absolute path) as GeoServer writes a store's url: file:/abs/path. */
const fileUrl = (p: string) => pathToFileURL(p).href.replace(/^file:\/\//, 'file:')

async function startsLikeTiff (file: string): Promise<boolean> {
  const h = await fs.promises.open(file, 'r')
  try {
    const head = Buffer.alloc(4)
    const { bytesRead } = await h.read(head, 0, 4, 0)
    return bytesRead === 4 && TIFF_MAGIC.some((m) => m.equals(head))
  } finally { await h.close() }
}

export function fileStoreOperations (ctx: MosaicContext) {
  const { store, dataDir, deps, exclusive } = ctx

  /** The checks before a store of `type` is created or replaced; returns whether it exists. */
  async function checkTarget (ws: string, name: string, type: StoreType, opts: { coverageName?: string, mustBeNew?: boolean }): Promise<boolean> {
    await deps.workspaces.get(ws)
    checkName(name, 'coverage store')
    if (opts.coverageName !== undefined) checkName(opts.coverageName, 'coverage')
    const existing = await store.store(ws, name)
    if (existing && opts.mustBeNew) throw CoverageStoreExists(name, ws)
    if (!existing) await store.checkNewStoreName(ws, name)
    if (existing && existing.type !== type) throw InvalidCoverage(`store ${name} exists and is a ${existing.type} store, not ${type === 'ImageMosaic' ? 'an' : 'a'} ${type}`)
    return existing !== undefined
  }

  /** The settings of a single-file store: a mosaic's defaults, marked with its format. */
  async function singleSettings (type: SingleFileType): Promise<MosaicSettings> {
    const { hasIndexer: _, ...def } = await parseMosaicDefinition(new Map())
    return { ...def, format: type }
  }

  /** Reads the one file of a GeoTIFF or WorldImage store into its index row; `shown` names it in a refusal. */
  async function readSingle (type: SingleFileType, file: string, shown: string, finalPath: string, settings: MosaicSettings): Promise<{ granule: NewGranule, crs?: string }> {
    const refuse = type === 'GeoTIFF' ? NotAGeoTiff : NotAWorldImage
    if (type === 'GeoTIFF' && !(await startsLikeTiff(file))) throw NotAGeoTiff(shown, 'it does not start with a TIFF header')
    if (type === 'WorldImage' && !isPlacedImage(path.basename(file), new Set(await fs.promises.readdir(path.dirname(file))))) {
      throw NotAWorldImage(shown, 'it is not a PNG, JPEG, GIF or TIFF with its world file (.pgw, .jgw, .gfw, .tfw or .wld) beside it')
    }
    const read = await readGranules([file], settings, { displayName: () => shown, locationOf: () => path.basename(finalPath), finalPath: () => finalPath, now: ctx.now() })
    if (read.granules.length === 0) throw refuse(shown, read.skipped[0]?.reason ?? 'it cannot be read')
    return { granule: read.granules[0], crs: read.crs }
  }

  /** The native coverage name of a single-file store: kept across replaces (its coverage keeps
   *  pointing at it), else the file's name without its extension, as GeoTools' reader names it. */
  async function singleTypeName (ws: string, name: string, file: string): Promise<string> {
    const old = await store.getMosaic(ws, name)
    if (old) return old.typeName
    const base = path.basename(file).replace(/\.[^.]+$/, '')
    return /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/.test(base) ? base : name
  }

  const configureOf = (opts: FileStoreOptions, typeName: string) =>
    (opts.configure !== 'none' ? { configure: { name: opts.coverageName ?? typeName, nativeName: typeName } } : {})

  /** A GeoTIFF or WorldImage store reading `file` (a real path under the harvest roots) in place. */
  async function singleInPlace (type: SingleFileType, ws: string, name: string, file: string, opts: FileStoreOptions & { mustBeNew?: boolean }): Promise<FileStoreResult> {
    const existed = await checkTarget(ws, name, type, opts)
    if (type === 'GeoTIFF' && !TIFF_NAME.test(file)) throw NotAGeoTiff(JSON.stringify(path.basename(file).slice(0, 80)), 'its name does not end with .tif, .tiff, .gtif or .geotiff')
    return await exclusive(ws, name, () => withStaging(dataDir, 'single', async (staging) => {
      const settings = await singleSettings(type)
      const { granule, crs } = await readSingle(type, file, JSON.stringify(path.basename(file)), file, settings)
      granule.location = file
      granule.attrs[settings.locationAttribute] = file
      const typeName = await singleTypeName(ws, name, file)
      const record: MosaicRecord = { workspace: ws, store: name, dir: ctx.storeDir(ws, name), typeName, crs, settings }
      // An empty folder takes the store's place, so a store that had an uploaded file loses it
      // only once the new one is committed.
      const configured = await installStore(ctx, ws, name, {
        root: staging, existed, record, granules: [granule], storeConfig: { url: fileUrl(file) }, storeType: type, ...configureOf(opts, typeName)
      })
      return { configured, skipped: [] }
    }))
  }

  /** An ImageMosaic store indexing the granules of `dir` (a real folder under the harvest roots) in place. */
  async function mosaicInPlace (ws: string, name: string, dir: string, opts: FileStoreOptions & { mustBeNew?: boolean }): Promise<FileStoreResult> {
    const existed = await checkTarget(ws, name, 'ImageMosaic', opts)
    return await exclusive(ws, name, () => withStaging(dataDir, 'mosaic', async (staging) => {
      const def = await parseMosaicDefinition(await readDefinition(dir))
      const { hasIndexer: _, ...settings } = def
      const roots = await realRoots(deps.harvestRoots)
      const files: string[] = []
      for (const f of await findGranules(dir, settings)) {
        const real = await fs.promises.realpath(f).catch(() => undefined)
        if (real && roots.some((r) => isUnder(r, real))) files.push(real)
      }
      if (opts.configure !== 'none' && files.length === 0) throw NoGoodGranules(`the folder holds no GeoTIFF or world-file granule${settings.wildcard !== '*.*' ? ` matching ${settings.wildcard}` : ''}`)
      const read = await readGranules(files, settings, {
        displayName: (f) => posixRel(dir, f),
        locationOf: (f) => (settings.absolutePath || !isUnder(dir, f) ? f : posixRel(dir, f)),
        finalPath: (f) => f,
        now: ctx.now()
      })
      if (files.length > 0 && read.granules.length === 0) throw NoGoodGranules(read.skipped.map((s) => `${s.file}: ${s.reason}`).join('; '))
      const typeName = settings.name ?? opts.coverageName ?? name
      const record: MosaicRecord = { workspace: ws, store: name, dir, typeName, crs: read.crs, settings: adoptCrsAttribute(settings, read) ?? settings }
      const configured = await installStore(ctx, ws, name, {
        root: staging, existed, record, granules: read.granules, storeConfig: { url: fileUrl(dir) }, storeType: 'ImageMosaic', ...configureOf(opts, typeName)
      })
      return { configured, skipped: read.skipped }
    }))
  }

  /** A server location for `type`: a file for GeoTIFF and WorldImage, a folder for ImageMosaic. */
  async function serverTarget (body: string, type: StoreType): Promise<string> {
    const target = await harvestTarget(body, deps.harvestRoots)
    const st = await fs.promises.stat(target)
    if (type !== 'ImageMosaic' && !st.isFile()) throw HarvestBadLocation('the location', `a ${type} store reads one file, and this is not a regular file`)
    if (type === 'ImageMosaic' && !st.isDirectory()) throw HarvestBadLocation('the location', 'a mosaic is made from a folder (add a file to a mosaic with POST external.imagemosaic)')
    return target
  }

  return {
    /**
     * PUT file.geotiff / file.worldimage: creates or replaces a GeoTIFF store from the uploaded file,
     * or a GeoTIFF or WorldImage store from a ZIP holding the file with its sidecars (the first file
     * of the archive the format accepts is the coverage, as GeoServer's findPrimaryFile takes it;
     * for WorldImage, an image with its world file beside it).
     */
    async uploadSingle (type: SingleFileType, ws: string, name: string, upload: { path: string, zip: boolean }, opts: FileStoreOptions & { filename?: string }): Promise<FileStoreResult> {
      const existed = await checkTarget(ws, name, type, opts)
      if (type === 'WorldImage' && !upload.zip) throw NotAWorldImage('The request body', 'a WorldImage upload is a ZIP holding the image with its world file (and .prj)')
      // GeoServer's AbstractStoreUploadController names the file <store>.<format> without filename.
      const filename = opts.filename ?? `${name}.${type.toLowerCase()}`
      checkName(filename, 'filename')
      if (!upload.zip && !TIFF_NAME.test(filename)) throw NotAGeoTiff(JSON.stringify(filename.slice(0, 80)), 'the filename must end with .tif, .tiff, .gtif or .geotiff')
      return await exclusive(ws, name, () => withStaging(dataDir, 'single', async (staging) => {
        const root = path.join(staging, 'files')
        await fs.promises.mkdir(root)
        let rel = filename
        if (upload.zip) {
          const entries = (await extractZip(upload.path, root, deps.zipLimits)).filter((e) => !e.directory).map((e) => e.name)
          const folders = new Map<string, Set<string>>()
          for (const e of entries) {
            const dir = path.posix.dirname(e)
            if (!folders.has(dir)) folders.set(dir, new Set())
            folders.get(dir)!.add(path.posix.basename(e))
          }
          const accepts = (e: string) => type === 'GeoTIFF' ? TIFF_NAME.test(e) : isPlacedImage(path.posix.basename(e), folders.get(path.posix.dirname(e))!)
          const first = entries.filter(accepts).sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0))[0]
          if (first === undefined) {
            throw type === 'GeoTIFF'
              ? NotAGeoTiff('The archive', 'it holds no .tif, .tiff, .gtif or .geotiff file')
              : NotAWorldImage('The archive', 'it holds no PNG, JPEG, GIF or TIFF image with its world file (.pgw, .jgw, .gfw, .tfw or .wld) beside it')
          }
          rel = first
        } else await fs.promises.copyFile(upload.path, path.join(root, filename))
        const staged = path.join(root, rel)
        const finalPath = path.join(ctx.storeDir(ws, name), rel)
        const settings = await singleSettings(type)
        const { granule, crs } = await readSingle(type, staged, upload.zip ? JSON.stringify(rel) : 'The request body', finalPath, settings)
        granule.location = rel
        granule.attrs[settings.locationAttribute] = rel
        const typeName = await singleTypeName(ws, name, rel)
        const record: MosaicRecord = { workspace: ws, store: name, dir: ctx.storeDir(ws, name), typeName, crs, settings }
        const configured = await installStore(ctx, ws, name, {
          root, existed, record, granules: [granule], storeConfig: { url: dataUrl(ws, name, rel) }, storeType: type, ...configureOf(opts, typeName)
        })
        return { configured, skipped: [] }
      }))
    },

    /** PUT external.geotiff / external.worldimage / external.imagemosaic: a store reading a server file or folder in place. */
    async external (ws: string, name: string, type: StoreType, body: string, opts: FileStoreOptions): Promise<FileStoreResult> {
      await deps.workspaces.get(ws)
      const target = await serverTarget(body, type)
      return type === 'ImageMosaic' ? await mosaicInPlace(ws, name, target, opts) : await singleInPlace(type, ws, name, target, opts)
    },

    /**
     * POST coveragestores: a new store from { name, type, url, enabled, workspace },
     * its coverages configured afterwards by POST coverages (gsconfig, GeoNode). The url names a
     * file (GeoTIFF, WorldImage) or folder (ImageMosaic) under the harvest roots.
     */
    async createStore (ws: string, body: Record<string, unknown>): Promise<string> {
      await deps.workspaces.get(ws)
      const known = ['name', 'type', 'url', 'enabled', 'workspace', '_default', '__default', 'coverages']
      for (const k of Object.keys(body)) if (!known.includes(k)) throw InvalidCoverageStore(`unknown field ${JSON.stringify(k.slice(0, 64))}`)
      const text = (k: string) => (typeof body[k] === 'string' || typeof body[k] === 'number' ? String(body[k]) : undefined)
      const name = text('name')
      if (name === undefined || name === '') throw InvalidCoverageStore('the store needs a name')
      const wsName = typeof body.workspace === 'object' && body.workspace !== null ? (body.workspace as Record<string, unknown>).name : body.workspace
      if (wsName !== undefined && String(wsName) !== ws) throw InvalidCoverageStore(`workspace ${JSON.stringify(String(wsName).slice(0, 64))} is not ${ws}, the workspace of the URL`)
      if (body.enabled !== undefined && String(body.enabled) !== 'true') throw InvalidCoverageStore('enabled must be true: mapwarden serves every coverage store it holds')
      const type = text('type')
      if (type !== 'GeoTIFF' && type !== 'ImageMosaic' && type !== 'WorldImage') throw InvalidCoverageStore(`type ${JSON.stringify(String(type ?? '').slice(0, 40))} is not supported (GeoTIFF, WorldImage or ImageMosaic)`)
      const url = text('url')
      if (url === undefined || url === '') throw InvalidCoverageStore('the store needs a url (a file: URL under the harvest roots; upload files with PUT file.geotiff)')
      // file:data/... is GeoServer's data-directory-relative form: files there are uploaded, not named.
      if (/^file:(?!\/)/i.test(url.trim())) throw InvalidCoverageStore('relative file: URLs are not supported; name an absolute path under the harvest roots, or upload the file with PUT file.geotiff')
      checkName(name, 'coverage store')
      if (await store.store(ws, name)) throw CoverageStoreExists(name, ws)
      const target = await serverTarget(url, type)
      const opts = { configure: 'none' as const, mustBeNew: true }
      if (type === 'ImageMosaic') await mosaicInPlace(ws, name, target, opts)
      else await singleInPlace(type, ws, name, target, opts)
      return name
    }
  }
}
