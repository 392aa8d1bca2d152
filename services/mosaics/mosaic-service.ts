// Image mosaics: upload (ZIP), harvest, coverages, granule queries and deletes. Files are staged
// under <dataDir>/tmp and renamed into <dataDir>/data/<ws>/<store> only once everything checked
// out, then the catalog and the index change in one transaction; a failure on the way leaves the
// data directory and the catalog as they were.
import { checkStoreName } from '../catalog/store-names.js'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Db } from '../storage/database.js'
import type { WorkspaceService } from '../catalog/workspaces.js'
import { checkName } from '../files/names.js'
import { extractZip, type ZipLimits } from '../files/zip.js'
import { fsyncTree, renameDurable, withStaging } from '../files/atomic.js'
import { createKeyedQueue } from '../keyed-queue.js'
import {
  CoverageExists, CoverageNotFound, CoverageStoreNotEmpty, CoverageStoreNotFound, EmptyMosaic, GranuleFilterRequired, GranulePagingOnDelete,
  GranuleNotFound, HarvestBadLocation, HarvestNotSupported, HarvestOutsideRoots, InvalidCoverage, InvalidLimit, InvalidOffset,
  InvalidPurge, MosaicWorkspaceNotFound, NoGoodGranules, NoMosaicInArchive, NoSuchNativeCoverage
} from '../errors.js'
import { parseMosaicDefinition, withCrsAttribute, type DefinitionFiles, type MosaicSettings } from './indexer.js'
import { worldFileSidecars } from './world-file.js'
import { WORLD_IMAGE } from './granule-files.js'
import { findGranules, isGone, readGranules, type ReadResult, type Skipped } from './scan.js'
import { createSqliteGranuleIndex, type Granule, type GranuleIndex, type MosaicRecord } from './granule-index.js'
import { createCatalogRows, type CoverageConfig, type CoverageRow } from './catalog-rows.js'
import { compileCql, type CompiledFilter } from './cql.js'
import { editCoverage, renderedBy } from './coverage-fields.js'
import { transformBbox } from '../../workers/crs.js'
import { prepareRenderJob } from './render-job.js'
import type { RenderRequest } from '../../workers/render-types.js'
import type { RenderJob } from '../../workers/mosaic-types.js'
import { noFaults, type FaultPoint } from '../faults.js'

export interface MosaicServiceDeps {
  db: Db
  dataDir: string
  harvestRoots: string[]
  zipLimits: ZipLimits
  workspaces: WorkspaceService
  /** Told which published layers a store deletion removed (their tiles and usage go too). */
  layersRemoved?: (qualifiedNames: string[]) => Promise<void>
  now?: () => Date
  log?: { warn (obj: object, msg: string): void }
  /** Crash-harness fault points (services/faults.ts). */
  fault?: FaultPoint
}

export type Purge = 'none' | 'metadata' | 'all'

export interface UploadResult { store: StoreInfo, skipped: Skipped[], configured: string[] }
export interface StoreInfo { workspace: string, name: string, type: string, enabled: boolean, url: string }

const DEFINITION_FILE = /^(indexer\.(properties|xml)|datastore\.properties|[^/]+\.properties)$/i
const MAX_DEFINITION_BYTES = 1024 * 1024

export function createMosaicService (deps: MosaicServiceDeps) {
  const { db, dataDir } = deps
  const index: GranuleIndex = createSqliteGranuleIndex(db)
  const rows = createCatalogRows(db)
  const now = deps.now ?? (() => new Date())
  const storeDir = (ws: string, store: string) => path.join(dataDir, 'data', ws, store)
  // The folder of a store being replaced waits here (not under tmp/, which the start wipes) until
  // the new index is committed, so a crash mid-replace can put the old store back.
  const asideDir = (ws: string, store: string) => path.join(dataDir, 'aside', ws, store)
  const fault = deps.fault ?? noFaults
  const recovery = {
    begin: db.prepare('INSERT OR REPLACE INTO mosaic_replacements (workspace, store, had_old) VALUES (?, ?, ?)'),
    end: db.prepare('DELETE FROM mosaic_replacements WHERE workspace = ? AND store = ?'),
    open: db.prepare('SELECT workspace, store, had_old FROM mosaic_replacements'),
    purge: db.prepare('INSERT INTO mosaic_pending_purges (entry) VALUES (?)'),
    // By id range: deletes of other stores run at the same time and record purges of their own.
    purged: db.prepare('DELETE FROM mosaic_pending_purges WHERE id BETWEEN ? AND ?'),
    purges: db.prepare('SELECT id, entry FROM mosaic_pending_purges ORDER BY id')
  }
  const listMosaics = db.prepare('SELECT workspace, store FROM mosaic_stores ORDER BY workspace, store')

  // Told after what a mosaic's layers draw changed: the lon/lat boxes of the granules harvested or
  // deleted, or undefined for the whole layer (the tile cache drops the tiles concerned).
  const dataHooks: Array<(layers: string[], areas: Array<[number, number, number, number]> | undefined, reason: string) => Promise<unknown>> = []
  async function dataChanged (mosaic: MosaicRecord, granules: Array<{ bbox: [number, number, number, number] }> | undefined, reason: string, only?: string) {
    const layers = only !== undefined ? [`${mosaic.workspace}:${only}`] : rows.coverages(mosaic.workspace, mosaic.store).map((c) => `${mosaic.workspace}:${c.name}`)
    if (layers.length === 0 || dataHooks.length === 0) return
    const areas = granules && mosaic.crs ? granules.map((g) => lonLat(g.bbox, mosaic.crs!)) : undefined
    if (granules && areas?.length === 0) return
    for (const hook of dataHooks) await hook(layers, areas, reason)
  }

  // One writer per store: uploads, harvests and deletes of a store run one after the other, so two
  // PUTs of the same store cannot interleave their renames and transactions.
  const queue = createKeyedQueue()
  const exclusive = <T>(ws: string, store: string, fn: () => Promise<T>): Promise<T> => queue(JSON.stringify([ws, store]), fn)

  const storeInfo = (ws: string, name: string): StoreInfo => {
    const s = rows.store(ws, name)!
    return { workspace: ws, name, type: s.type, enabled: s.enabled, url: String(s.config.url ?? `file:data/${ws}/${name}`) }
  }

  async function requireWorkspace (ws: string) {
    if (!(await deps.workspaces.exists(ws))) throw MosaicWorkspaceNotFound(ws)
  }

  async function requireMosaic (ws: string, store: string, message = store): Promise<MosaicRecord> {
    await requireWorkspace(ws)
    const s = rows.store(ws, store)
    if (!s || s.kind !== 'coverage') throw CoverageStoreNotFound(message)
    const m = index.getMosaic(ws, store)
    if (!m) throw HarvestNotSupported()
    return m
  }

  async function requireCoverage (ws: string, store: string, coverage: string) {
    const mosaic = await requireMosaic(ws, store)
    const cov = rows.coverage(ws, store, coverage)
    if (!cov) throw CoverageNotFound(coverage)
    return { mosaic, coverage: cov }
  }

  function rangesOf (granules: Array<{ ranges: Array<{ min: number, max: number }> }>) {
    const out: Array<{ min: number, max: number }> = []
    for (const g of granules) {
      g.ranges.forEach((r, i) => {
        if (!out[i]) out[i] = { ...r }
        else { out[i].min = Math.min(out[i].min, r.min); out[i].max = Math.max(out[i].max, r.max) }
      })
    }
    return out
  }

  /** Coverage bounds, bands and ranges recomputed from the index (after harvests and deletes). */
  function refreshCoverages (mosaic: MosaicRecord) {
    const all = index.query(mosaic.workspace, mosaic.store)
    const extent = index.extent(mosaic.workspace, mosaic.store)
    for (const c of rows.coverages(mosaic.workspace, mosaic.store)) {
      const first = all[0]
      rows.updateCoverage({
        ...c,
        srs: mosaic.crs ?? c.srs,
        bbox: extent && mosaic.crs ? lonLat(extent, mosaic.crs) : c.bbox,
        config: {
          ...c.config,
          nativeBbox: extent ?? c.config.nativeBbox,
          bands: first?.bands ?? c.config.bands,
          dataType: first?.dataType ?? c.config.dataType,
          ranges: all.length ? rangesOf(all) : c.config.ranges
        }
      })
    }
  }

  function lonLat (bbox: [number, number, number, number], crs: string): [number, number, number, number] {
    return transformBbox(bbox, crs, 'EPSG:4326')
  }

  function configureCoverage (mosaic: MosaicRecord, name: string, nativeName: string): CoverageRow {
    if (nativeName !== mosaic.typeName) throw NoSuchNativeCoverage(mosaic.store, nativeName, mosaic.typeName)
    const all = index.query(mosaic.workspace, mosaic.store)
    const extent = index.extent(mosaic.workspace, mosaic.store)
    if (!extent || !mosaic.crs || all.length === 0) throw EmptyMosaic(name)
    const config: CoverageConfig = {
      dimensions: { time: mosaic.settings.timeAttribute !== undefined, elevation: mosaic.settings.elevationAttribute !== undefined },
      bands: all[0].bands,
      dataType: all[0].dataType,
      nativeBbox: extent,
      ranges: rangesOf(all),
      nativeFormat: 'ImageMosaic',
      enabled: true
    }
    const row: CoverageRow = { workspace: mosaic.workspace, store: mosaic.store, name, nativeName, title: name, srs: mosaic.crs, bbox: lonLat(extent, mosaic.crs), config }
    const existing = rows.coverage(mosaic.workspace, mosaic.store, name)
    if (existing) rows.updateCoverage({ ...row, title: existing.title, config: { ...existing.config, ...config, dimensions: existing.config.dimensions } })
    else {
      if (rows.resourceExists(mosaic.workspace, name)) throw CoverageExists(name, mosaic.workspace)
      rows.insertCoverage(row)
    }
    rows.publish(mosaic.workspace, name, true)
    return rows.coverage(mosaic.workspace, mosaic.store, name)!
  }

  async function readDefinition (root: string): Promise<DefinitionFiles> {
    const files: DefinitionFiles = new Map()
    for (const e of await fs.promises.readdir(root, { withFileTypes: true })) {
      if (!e.isFile() || !DEFINITION_FILE.test(e.name)) continue
      const p = path.join(root, e.name)
      const st = await fs.promises.stat(p)
      if (st.size > MAX_DEFINITION_BYTES) throw NoMosaicInArchive(`${e.name} is larger than 1 MiB`)
      files.set(e.name.toLowerCase(), await fs.promises.readFile(p, 'utf8'))
    }
    return files
  }

  /** The folder of the archive that holds the mosaic: the one with the indexer, else the top. */
  async function mosaicRoot (extracted: string, names: string[]): Promise<string> {
    const indexers = names.filter((n) => /(^|\/)indexer\.(properties|xml)$/i.test(n)).sort((a, b) => a.split('/').length - b.split('/').length)
    if (indexers.length) return path.join(extracted, path.posix.dirname(indexers[0]))
    const top = await fs.promises.readdir(extracted, { withFileTypes: true })
    if (top.length === 1 && top[0].isDirectory()) return path.join(extracted, top[0].name)
    return extracted
  }

  const posixRel = (from: string, to: string) => path.relative(from, to).split(path.sep).join('/')

  function isUnder (root: string, p: string): boolean {
    const rel = path.relative(root, p)
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))
  }

  async function realRoots (): Promise<string[]> {
    const out: string[] = []
    for (const r of deps.harvestRoots) { try { out.push(await fs.promises.realpath(r)) } catch { /* a missing root admits nothing */ } }
    return out
  }

  /** Resolves a harvest body (file: URL or absolute path) to a real path under a harvest root. */
  async function harvestTarget (body: string): Promise<string> {
    const text = body.trim()
    if (text === '' || text.length > 4096 || /[\u0000-\u001f]/.test(text)) throw HarvestBadLocation('the request body', 'expected a file: URL or an absolute path')
    // Refused outright rather than normalised away (after the roots check below for '..', so a way
    // out of the roots keeps its 403): a location that needs them is not one an administrator meant.
    let decoded = text
    try { decoded = decodeURIComponent(text) } catch { /* refused below as not a valid file: URL */ }
    if (decoded.includes('\u0000')) throw HarvestBadLocation('the location', 'it holds a NUL character')
    let p: string
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)
    if (scheme && scheme[1].length > 1) {
      if (scheme[1].toLowerCase() !== 'file') throw HarvestBadLocation(JSON.stringify(text.slice(0, 100)), `${scheme[1]}: locations are not supported, only file: URLs and absolute paths`)
      let url: URL
      try { url = new URL(text) } catch { throw HarvestBadLocation(JSON.stringify(text.slice(0, 100)), 'not a valid file: URL') }
      if (url.host !== '' && url.host !== 'localhost') throw HarvestBadLocation(JSON.stringify(text.slice(0, 100)), 'file: URLs must name a local path')
      try { p = fileURLToPath(url) } catch { throw HarvestBadLocation(JSON.stringify(text.slice(0, 100)), 'not a valid file: URL') }
    } else {
      p = text
      if (!path.isAbsolute(p)) throw HarvestBadLocation(JSON.stringify(text.slice(0, 100)), 'paths must be absolute')
    }
    const roots = deps.harvestRoots.map((r) => path.resolve(r))
    const lexical = path.resolve(p)
    // The lexical check comes first so that nothing outside the roots is even looked at.
    if (!roots.some((r) => isUnder(r, lexical))) throw HarvestOutsideRoots('the location is outside them')
    if (decoded.split(/[\\/]/).includes('..')) throw HarvestBadLocation('the location', "'..' segments are not allowed")
    let real: string
    try { real = await fs.promises.realpath(lexical) } catch { throw HarvestBadLocation('the location', 'no such file or directory under the harvest roots') }
    if (!(await realRoots()).some((r) => isUnder(r, real))) throw HarvestOutsideRoots('the location leaves them through a symbolic link')
    return real
  }

  async function removeFiles (granules: Granule[], purge: Purge, mosaic: MosaicRecord) {
    if (purge === 'none') return
    const roots = [await fs.promises.realpath(mosaic.dir).catch(() => mosaic.dir), ...(await realRoots())]
    for (const g of granules) {
      const candidates = [`${g.path}.aux.xml`, `${g.path}.ovr`, g.path.replace(/\.[^.]+$/, '.prj'), g.path.replace(/\.[^.]+$/, '.tfw'),
        ...(WORLD_IMAGE.test(g.path) ? worldFileSidecars(g.path) : [])]
      if (purge === 'all') candidates.push(g.path)
      for (const f of candidates) {
        const real = await fs.promises.realpath(f).catch(() => undefined)
        if (!real || !roots.some((r) => isUnder(r, real))) continue
        await fs.promises.rm(real, { force: true }).catch((err) => deps.log?.warn({ err }, 'could not purge a granule file'))
      }
    }
  }

  /** When a read brought the mosaic's first granule in another CRS, the settings that add the crs
   *  attribute (and the new granules carry it); undefined when nothing changes. */
  function adoptCrsAttribute (settings: MosaicSettings, read: ReadResult): MosaicSettings | undefined {
    if (!read.heterogeneous) return undefined
    const next = withCrsAttribute(settings)
    if (!next) return undefined
    for (const g of read.granules) g.attrs[next.crsAttribute!] = g.crs
    return next
  }

  /** Commits harvested granules in one transaction: the mosaic's CRS and crs attribute when they
   *  are new, the rows, the coverages' extent and ranges. */
  function indexHarvest (mosaic: MosaicRecord, read: ReadResult): void {
    fault('mosaic.harvestBeforeIndex')
    const { workspace: ws, store } = mosaic
    const settings = adoptCrsAttribute(mosaic.settings, read)
    index.transaction(() => {
      if (!mosaic.crs && read.crs) { index.setCrs(ws, store, read.crs); mosaic.crs = read.crs }
      if (settings) { index.setCrsAttribute(ws, store, settings); mosaic.settings = settings }
      index.addGranules(ws, store, read.granules)
      refreshCoverages(mosaic)
    })
  }

  function compile (mosaic: MosaicRecord, filter: string): CompiledFilter {
    return compileCql(filter, {
      schema: mosaic.settings.schema,
      crs: mosaic.crs ?? 'EPSG:4326',
      attrsColumn: 'g.attrs',
      bboxColumns: ['g.minx', 'g.miny', 'g.maxx', 'g.maxy']
    })
  }

  return {
    index,

    async getStore (ws: string, store: string): Promise<StoreInfo> {
      await requireWorkspace(ws)
      const s = rows.store(ws, store)
      if (!s || s.kind !== 'coverage') throw CoverageStoreNotFound(store)
      return storeInfo(ws, store)
    },

    async deleteStore (ws: string, store: string, recurse: boolean): Promise<void> {
      await this.getStore(ws, store)
      return await exclusive(ws, store, async () => {
      const coverages = rows.coverages(ws, store)
      if (!recurse && coverages.length > 0) throw CoverageStoreNotEmpty(store)
      rows.deleteStore(ws, store) // cascades to coverages, layers, mosaic record and index
      fault('mosaic.deleteBeforeFiles') // the start removes a store folder the catalog no longer knows
      await fs.promises.rm(storeDir(ws, store), { recursive: true, force: true })
      await deps.layersRemoved?.(coverages.map((c) => `${ws}:${c.name}`))
      })
    },

    /** PUT file.imagemosaic: creates or replaces the store from a ZIP of definition and granules. */
    async upload (ws: string, store: string, zipFile: string, opts: { configure: 'none' | 'first' | 'all', coverageName?: string, verify?: boolean }): Promise<UploadResult> {
      await deps.workspaces.get(ws)
      checkName(store, 'coverage store')
      if (opts.coverageName !== undefined) checkName(opts.coverageName, 'coverage')
      const existing = rows.store(ws, store)
      if (!existing) checkStoreName(db, ws, store)
      if (existing && existing.type !== 'ImageMosaic') throw InvalidCoverage(`store ${store} exists and is a ${existing.type} store, not an ImageMosaic`)
      return await exclusive(ws, store, () => withStaging(dataDir, 'mosaic', async (staging) => {
        const extracted = path.join(staging, 'files')
        const entries = await extractZip(zipFile, extracted, deps.zipLimits)
        await fs.promises.mkdir(extracted, { recursive: true })
        const root = await mosaicRoot(extracted, entries.map((e) => e.name))
        const def = await parseMosaicDefinition(await readDefinition(root))
        const settings: MosaicSettings = { ...def }
        delete (settings as any).hasIndexer
        const files = await findGranules(root, settings)
        if (opts.configure !== 'none' && !def.hasIndexer && files.length === 0) throw NoMosaicInArchive('no indexer.properties, indexer.xml or GeoTIFF granule')
        if (opts.configure !== 'none' && files.length === 0) throw NoMosaicInArchive('no GeoTIFF granule to configure a coverage from (upload an empty mosaic with configure=none)')
        const final = storeDir(ws, store)
        const read = await readGranules(files, settings, {
          displayName: (f) => posixRel(root, f),
          locationOf: (f) => (settings.absolutePath ? path.join(final, path.relative(root, f)) : posixRel(root, f)),
          finalPath: (f) => path.join(final, path.relative(root, f)),
          now: now(),
          verify: opts.verify
        })
        if (files.length > 0 && read.granules.length === 0) {
          throw NoGoodGranules(read.skipped.map((s) => `${s.file}: ${s.reason}`).join('; '))
        }
        // Bad granules are reported and not kept.
        for (const s of read.skipped) await fs.promises.rm(path.join(root, s.file), { force: true })
        const typeName = settings.name ?? opts.coverageName ?? store
        const record: MosaicRecord = { workspace: ws, store, dir: final, typeName, crs: read.crs, settings: adoptCrsAttribute(settings, read) ?? settings }
        await fsyncTree(root)
        fault('mosaic.afterStage')
        const old = asideDir(ws, store)
        const hadOld = fs.existsSync(final)
        await fs.promises.rm(old, { recursive: true, force: true })
        recovery.begin.run(ws, store, hadOld ? 1 : 0)
        if (hadOld) await renameDurable(final, old)
        fault('mosaic.afterAside')
        await renameDurable(root, final)
        fault('mosaic.afterFileBeforeIndex')
        const configured: string[] = []
        try {
          index.transaction(() => {
            recovery.end.run(ws, store)
            rows.putStore(ws, store, { url: `file:data/${ws}/${store}`.replace(/\+/g, '%2B').replace(/ /g, '%20') })
            index.putMosaic(record)
            index.addGranules(ws, store, read.granules)
            if (opts.configure !== 'none') {
              configured.push(configureCoverage(record, opts.coverageName ?? typeName, typeName).name)
            } else refreshCoverages(record)
          })
        } catch (err) {
          await fs.promises.rm(final, { recursive: true, force: true })
          if (hadOld) await renameDurable(old, final)
          recovery.end.run(ws, store)
          throw err
        }
        fault('mosaic.afterIndex')
        if (hadOld) await dataChanged(record, undefined, `store ${ws}:${store} replaced`)
        await fs.promises.rm(old, { recursive: true, force: true })
        return { store: storeInfo(ws, store), skipped: read.skipped, configured }
      }))
    },

    /**
     * POST file.imagemosaic: adds the granules of a ZIP to an existing mosaic in one step. The archive
     * is staged and validated like an upload, its granules read; the files are then moved into the
     * store's folder and indexed in one transaction. A failure before the commit removes what was
     * moved, so no half of an archive stays behind. A granule whose file name the store holds
     * already is skipped (harvest that file with external.imagemosaic to re-index it).
     */
    async harvestUpload (ws: string, store: string, zipFile: string, opts: { verify?: boolean } = {}): Promise<{ harvested: number, skipped: Skipped[] }> {
      await requireMosaic(ws, store)
      return await exclusive(ws, store, () => withStaging(dataDir, 'harvest', async (staging) => {
        const mosaic = await requireMosaic(ws, store)
        const extracted = path.join(staging, 'files')
        const entries = await extractZip(zipFile, extracted, deps.zipLimits)
        await fs.promises.mkdir(extracted, { recursive: true })
        const root = await mosaicRoot(extracted, entries.map((e) => e.name))
        const found = await findGranules(root, mosaic.settings)
        const taken: Skipped[] = []
        const files: string[] = []
        for (const f of found) {
          if (fs.existsSync(path.join(mosaic.dir, path.relative(root, f)))) taken.push({ file: posixRel(root, f), reason: 'the store holds a granule of that name already' })
          else files.push(f)
        }
        const read = await readGranules(files, mosaic.settings, {
          crs: mosaic.crs,
          displayName: (f) => posixRel(root, f),
          locationOf: (f) => (mosaic.settings.absolutePath ? path.join(mosaic.dir, path.relative(root, f)) : posixRel(root, f)),
          finalPath: (f) => path.join(mosaic.dir, path.relative(root, f)),
          now: now(),
          verify: opts.verify
        })
        read.skipped.unshift(...taken)
        if (read.granules.length === 0) throw NoGoodGranules(read.skipped.map((s) => `${s.file}: ${s.reason}`).join('; ') || 'the archive holds no granule')
        // Each granule with its sidecars (world file, .prj, .ovr...): every extracted file that is not
        // a definition file goes along, so a harvested granule keeps what describes it.
        const keep = new Set(read.granules.map((g) => path.relative(mosaic.dir, g.path)))
        const stems = [...keep].map((g) => g.replace(/\.[^./]+$/, '.'))
        const moving = entries.filter((e) => !e.directory).map((e) => path.relative(root, path.join(extracted, e.name)))
          .filter((rel) => !rel.startsWith('..') && (keep.has(rel) || stems.some((s) => rel.startsWith(s))))
          .filter((rel) => !fs.existsSync(path.join(mosaic.dir, rel)))
        await fsyncTree(root)
        const moved: string[] = []
        try {
          for (const rel of moving) {
            const target = path.join(mosaic.dir, rel)
            await fs.promises.mkdir(path.dirname(target), { recursive: true })
            await renameDurable(path.join(root, rel), target)
            moved.push(target)
          }
          indexHarvest(mosaic, read)
        } catch (err) {
          for (const f of moved) await fs.promises.rm(f, { force: true })
          throw err
        }
        await dataChanged(mosaic, read.granules, `${read.granules.length} granules harvested into ${ws}:${store}`)
        return { harvested: read.granules.length, skipped: read.skipped }
      }))
    },

    /** POST external.imagemosaic: indexes (or re-indexes) files under the harvest roots. */
    async harvest (ws: string, store: string, body: string, opts: { verify?: boolean } = {}): Promise<{ harvested: number, skipped: Skipped[] }> {
      await requireMosaic(ws, store, `${ws},${store}`)
      const target = await harvestTarget(body)
      return await exclusive(ws, store, async () => {
      const mosaic = await requireMosaic(ws, store, `${ws},${store}`)
      const st = await fs.promises.stat(target).catch((err) => {
        if (isGone(err)) throw HarvestBadLocation('the location', 'no such file or directory under the harvest roots')
        throw err
      })
      let files: string[]
      const vanished: Skipped[] = []
      if (st.isDirectory()) {
        const found = await findGranules(target, mosaic.settings)
        const roots = await realRoots()
        files = []
        for (const f of found) {
          // A file listed a moment ago may be gone (a granule DELETE with purge, another process).
          const real = await fs.promises.realpath(f).catch((err) => {
            if (isGone(err)) { vanished.push({ file: path.basename(f), reason: 'it vanished during the harvest' }); return undefined }
            throw err
          })
          if (real && roots.some((r) => isUnder(r, real))) files.push(real)
        }
      } else if (st.isFile()) files = [target]
      else throw HarvestBadLocation('the location', 'not a regular file or directory')
      const read = await readGranules(files, mosaic.settings, {
        crs: mosaic.crs,
        displayName: (f) => path.basename(f),
        locationOf: (f) => (mosaic.settings.absolutePath || !isUnder(mosaic.dir, f) ? f : posixRel(mosaic.dir, f)),
        finalPath: (f) => f,
        now: now(),
        verify: opts.verify
      })
      read.skipped.unshift(...vanished)
      if (files.length + vanished.length > 0 && read.granules.length === 0) {
        throw NoGoodGranules(read.skipped.map((s) => `${s.file}: ${s.reason}`).join('; '))
      }
      indexHarvest(mosaic, read)
      await dataChanged(mosaic, read.granules, `${read.granules.length} granules harvested into ${ws}:${store}`)
      return { harvested: read.granules.length, skipped: read.skipped }
      })
    },

    /** GET workspaces/<ws>/coveragestores: the workspace's coverage stores (404 for an unknown workspace). */
    async listStores (ws: string): Promise<string[]> {
      await requireWorkspace(ws)
      return rows.workspaceStores(ws)
    },

    /** GET workspaces/<ws>/coverages: every coverage of the workspace. */
    async listWorkspaceCoverages (ws: string): Promise<CoverageRow[]> {
      await requireWorkspace(ws)
      return rows.workspaceCoverages(ws)
    },

    /** GET workspaces/<ws>/coverages/<c>: a coverage by its name in the workspace. */
    async getWorkspaceCoverage (ws: string, coverage: string): Promise<{ coverage: CoverageRow, mosaic: MosaicRecord }> {
      await requireWorkspace(ws)
      const row = rows.workspaceCoverages(ws).find((c) => c.name === coverage)
      if (!row) throw CoverageNotFound(coverage)
      return await requireCoverage(ws, row.store, coverage)
    },

    async listCoverages (ws: string, store: string): Promise<CoverageRow[]> {
      await requireMosaic(ws, store)
      return rows.coverages(ws, store)
    },

    async getCoverage (ws: string, store: string, coverage: string): Promise<{ coverage: CoverageRow, mosaic: MosaicRecord }> {
      return await requireCoverage(ws, store, coverage)
    },

    /** POST coverages: configures (and publishes) a coverage from the index. */
    async addCoverage (ws: string, store: string, body: Record<string, any>): Promise<CoverageRow> {
      const mosaic = await requireMosaic(ws, store)
      const name = body.name ?? body.nativeCoverageName ?? body.nativeName
      if (typeof name !== 'string' || name === '') throw InvalidCoverage('the coverage needs a name')
      checkName(name, 'coverage')
      const nativeName = String(body.nativeCoverageName ?? body.nativeName ?? (name === mosaic.typeName ? name : mosaic.typeName))
      if (rows.coverage(ws, store, name) || rows.resourceExists(ws, name)) throw CoverageExists(name, ws)
      // GeoServer's POST of a partly described coverage keeps the fields it carries: the rest of the
      // body is applied as a PUT would apply it (or refused by name, and nothing is configured).
      return index.transaction(() => {
        const row = configureCoverage(mosaic, name, nativeName)
        const next = editCoverage(body, row, mosaic)
        rows.updateCoverage(next)
        if (next.config.enabled !== row.config.enabled) rows.publish(ws, name, next.config.enabled)
        return rows.coverage(ws, store, name)!
      })
    },

    /**
     * PUT coverages/<c>: applies the fields the body carries (services/mosaics/coverage-fields.ts);
     * a field that cannot be applied is refused by name and nothing changes. Read, check and write
     * run without a pause, so a harvest cannot slip between them.
     */
    async updateCoverage (ws: string, store: string, coverage: string, body: Record<string, unknown>): Promise<void> {
      const { coverage: c, mosaic } = await requireCoverage(ws, store, coverage)
      const next = editCoverage(body, c, mosaic)
      index.transaction(() => {
        rows.updateCoverage(next)
        if (body.enabled !== undefined || next.config.enabled !== c.config.enabled) rows.publish(ws, coverage, next.config.enabled)
      })
      // Dimensions, their defaults and nearest match decide which granules a tile draws; band names,
      // which band a style that selects by name shows.
      if (renderedBy(next.config) !== renderedBy(c.config)) await dataChanged(mosaic, undefined, `coverage ${ws}:${coverage} changed`, coverage)
    },

    async indexSchema (ws: string, store: string, coverage: string) {
      const { mosaic } = await requireCoverage(ws, store, coverage)
      return mosaic.settings.schema
    },

    async granules (ws: string, store: string, coverage: string, q: { filter?: string, offset?: string, limit?: string }) {
      const { mosaic } = await requireCoverage(ws, store, coverage)
      let offset: number | undefined
      let limit: number | undefined
      if (q.offset !== undefined) {
        if (!/^\d{1,15}$/.test(q.offset)) throw InvalidOffset(JSON.stringify(q.offset.slice(0, 40)))
        offset = Number(q.offset)
      }
      if (q.limit !== undefined) {
        if (!/^\d{1,15}$/.test(q.limit) || Number(q.limit) <= 0) throw InvalidLimit(JSON.stringify(q.limit.slice(0, 40)))
        limit = Number(q.limit)
      }
      const filter = q.filter !== undefined ? compile(mosaic, q.filter) : undefined
      return { mosaic, granules: index.query(ws, store, { filter, offset, limit }) }
    },

    async granule (ws: string, store: string, coverage: string, fid: string) {
      const { mosaic } = await requireCoverage(ws, store, coverage)
      const seq = parseFid(fid, mosaic.typeName)
      const g = seq === undefined ? undefined : index.getBySeq(ws, store, seq)
      if (!g) throw GranuleNotFound(fid, coverage)
      return { mosaic, granules: [g] }
    },

    async deleteGranules (ws: string, store: string, coverage: string, q: { filter?: string, purge?: string, fid?: string, offset?: string, limit?: string }): Promise<number> {
      const { mosaic } = await requireCoverage(ws, store, coverage)
      const purge = parsePurge(q.purge)
      // GeoServer's DELETE reads filter and purge only. Ignoring a paging parameter would delete
      // every match while the client believes it deletes one page, so it is refused.
      const paging = [q.offset !== undefined ? `offset=${q.offset}` : '', q.limit !== undefined ? `limit=${q.limit}` : ''].filter(Boolean)
      if (paging.length > 0) throw GranulePagingOnDelete(JSON.stringify(paging.join('&').slice(0, 100)))
      let filter: CompiledFilter | undefined
      let seq: number | undefined
      if (q.fid !== undefined) {
        seq = parseFid(q.fid, mosaic.typeName)
        if (seq === undefined || !index.getBySeq(ws, store, seq)) throw GranuleNotFound(q.fid, coverage)
      } else {
        // DECISIONS.md: no filter is refused rather than deleting everything.
        if (q.filter === undefined || q.filter.trim() === '') throw GranuleFilterRequired()
        filter = compile(mosaic, q.filter)
      }
      // Rows first, then files (a crash between leaves a recorded purge that the start finishes).
      const recorded: number[] = []
      const removed = index.transaction(() => {
        const r = index.remove(ws, store, filter, seq)
        refreshCoverages(mosaic)
        if (purge !== 'none') for (const g of r) recorded.push(Number(recovery.purge.run(JSON.stringify({ path: g.path, purge, dir: mosaic.dir })).lastInsertRowid))
        return r
      })
      await dataChanged(mosaic, removed, `${removed.length} granules deleted from ${ws}:${store}`)
      fault('granule.afterRowBeforeFile')
      await removeFiles(removed, purge, mosaic)
      if (recorded.length) recovery.purged.run(recorded[0], recorded[recorded.length - 1])
      return removed.length
    },

    /**
     * The distinct TIME and ELEVATION values of a published mosaic layer (at most `limit` each),
     * for the admin page's pickers; a dimension that is not enabled is absent.
     */
    async dimensionValues (workspace: string, store: string, coverage: string, limit = 500): Promise<{ time?: string[], elevation?: number[] }> {
      const mosaic = index.getMosaic(workspace, store)
      const cov = mosaic ? rows.coverage(workspace, store, coverage) : undefined
      if (!mosaic || !cov) return {}
      const out: { time?: string[], elevation?: number[] } = {}
      const { timeAttribute, elevationAttribute } = mosaic.settings
      if (cov.config.dimensions?.time && timeAttribute) out.time = index.distinct(workspace, store, timeAttribute, limit).map(String)
      if (cov.config.dimensions?.elevation && elevationAttribute) out.elevation = index.distinct(workspace, store, elevationAttribute, limit).map(Number)
      return out
    },

    /** Every image mosaic with its CRS, granule count, extent and coverages (admin page). */
    async overview (): Promise<Array<{ workspace: string, store: string, crs?: string, granules: number, extent?: [number, number, number, number], coverages: string[] }>> {
      const all = listMosaics.all() as Array<{ workspace: string, store: string }>
      return all.map(({ workspace, store }) => ({
        workspace,
        store,
        crs: index.getMosaic(workspace, store)?.crs,
        granules: index.count(workspace, store),
        extent: index.extent(workspace, store),
        coverages: rows.coverages(workspace, store).map((c) => c.name)
      }))
    },

    /** Builds the worker job for a render request (tile cache, WMS-like calls). */
    /** Registers a listener for changes of what mosaic layers draw (after each commit). */
    onDataChanged (hook: (layers: string[], areas: Array<[number, number, number, number]> | undefined, reason: string) => Promise<unknown>): void { dataHooks.push(hook) },

    markDamaged (file: string, reason: string): string {
      const [location] = index.markDamaged(file, reason)
      deps.log?.warn({ granule: file, reason }, 'a granule cannot be decoded')
      return location ?? path.basename(file)
    },

    async prepareRender (req: RenderRequest): Promise<RenderJob> {
      return await prepareRenderJob(req, { db, index, compile })
    },

    /**
     * Startup check that index and files agree: a granule whose file inside the mosaic folder is
     * gone (a crash between a file operation and its transaction) loses its index row.
     */
    async reconcile (): Promise<number> {
      let removed = 0
      // 1. Replaces a crash interrupted: the new index was not committed, so the old store returns.
      for (const r of recovery.open.all() as Array<{ workspace: string, store: string, had_old: number }>) {
        const final = storeDir(r.workspace, r.store)
        const aside = asideDir(r.workspace, r.store)
        if (fs.existsSync(aside)) {
          await fs.promises.rm(final, { recursive: true, force: true })
          await renameDurable(aside, final)
        } else if (r.had_old === 0) await fs.promises.rm(final, { recursive: true, force: true })
        recovery.end.run(r.workspace, r.store)
        deps.log?.warn({ workspace: r.workspace, store: r.store }, 'undid a mosaic replace interrupted by a crash')
      }
      // Committed replaces whose old folder was not removed yet.
      await fs.promises.rm(path.join(dataDir, 'aside'), { recursive: true, force: true })
      // 2. Purges recorded with their row deletions.
      const purges = recovery.purges.all() as Array<{ id: number, entry: string }>
      for (const p of purges) {
        const { path: file, purge, dir } = JSON.parse(p.entry) as { path: string, purge: Purge, dir: string }
        await removeFiles([{ path: file } as Granule], purge, { dir } as MosaicRecord)
      }
      if (purges.length) recovery.purged.run(purges[0].id, purges[purges.length - 1].id)
      // 3. Store folders without a store row (a crash between a delete's transaction and its rm,
      //    or a workspace removed with recurse): nothing refers to them.
      const dataRoot = path.join(dataDir, 'data')
      for (const ws of await fs.promises.readdir(dataRoot, { withFileTypes: true }).catch(() => [] as fs.Dirent[])) {
        if (!ws.isDirectory()) continue
        const wsDir = path.join(dataRoot, ws.name)
        for (const st of await fs.promises.readdir(wsDir, { withFileTypes: true }).catch(() => [] as fs.Dirent[])) {
          if (!st.isDirectory() || rows.store(ws.name, st.name)) continue
          await fs.promises.rm(path.join(wsDir, st.name), { recursive: true, force: true })
          deps.log?.warn({ workspace: ws.name, store: st.name }, 'removed a store folder the catalog does not know')
        }
        await fs.promises.rmdir(wsDir).catch(() => {}) // only when empty
      }
      const mosaics = listMosaics.all() as Array<{ workspace: string, store: string }>
      for (const { workspace, store } of mosaics) {
        const mosaic = index.getMosaic(workspace, store)!
        const missing: number[] = []
        for (const g of index.query(workspace, store)) {
          if (isUnder(mosaic.dir, g.path) && !fs.existsSync(g.path)) missing.push(g.seq)
        }
        if (missing.length === 0) continue
        index.transaction(() => {
          for (const seq of missing) index.remove(workspace, store, undefined, seq)
          refreshCoverages(mosaic)
        })
        deps.log?.warn({ workspace, store, granules: missing.length }, 'removed index rows of granule files that are missing')
        removed += missing.length
      }
      return removed
    },

    /** Workspace deleted with recurse: the rows are gone by cascade; remove the files. */
    async workspaceRemoved (ws: string): Promise<void> {
      try { checkName(ws, 'workspace') } catch { return }
      await fs.promises.rm(path.join(dataDir, 'data', ws), { recursive: true, force: true })
    }
  }
}

export type MosaicService = ReturnType<typeof createMosaicService>

export function parsePurge (v: string | undefined): Purge {
  if (v === undefined || v === '') return 'none'
  const l = v.toLowerCase()
  if (l === 'none' || l === 'metadata' || l === 'all') return l
  throw InvalidPurge(JSON.stringify(v.slice(0, 40)))
}

/** '<typeName>.<n>' -> n (the type name may contain dots). */
export function parseFid (fid: string, typeName: string): number | undefined {
  if (!fid.startsWith(typeName + '.')) return undefined
  const n = fid.slice(typeName.length + 1)
  return /^[1-9]\d{0,14}$/.test(n) ? Number(n) : undefined
}
