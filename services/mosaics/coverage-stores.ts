// Coverage stores and coverages: a store's upload (PUT file.imagemosaic, which creates or replaces
// it), lookups, deletion, and the coverages configured from its index. Files are staged under
// <dataDir>/tmp and renamed into <dataDir>/data/<ws>/<store> only once everything checked out, then
// the catalog and the index change in one unit of work; a failure on the way leaves the data
// directory and the catalog as they were.
import fs from 'node:fs'
import path from 'node:path'
import { checkName } from '../files/names.js'
import { extractZip } from '../files/zip.js'
import { withStaging } from '../files/atomic.js'
import { dataUrl, installStore } from './store-install.js'
import { CoverageExists, CoverageNotFound, CoverageStoreNotEmpty, CoverageStoreNotFound, InvalidCoverage, NoGoodGranules, NoMosaicInArchive } from '../errors.js'
import { parseMosaicDefinition, type MosaicSettings } from './indexer.js'
import { findGranules, readGranules, type Skipped } from './scan.js'
import { editCoverage, renderedBy } from './coverage-fields.js'
import { mosaicRoot, posixRel, readDefinition } from './mosaic-files.js'
import { adoptCrsAttribute } from './granule-changes.js'
import type { MosaicContext } from './mosaic-context.js'
import type { CoverageRow, MosaicRecord, StoreRow } from './store.js'

export interface UploadResult { store: StoreInfo, skipped: Skipped[], configured: string[] }
export interface StoreInfo { workspace: string, name: string, type: string, enabled: boolean, url: string }

export function coverageStoreOperations (ctx: MosaicContext) {
  const { store, dataDir, deps, fault, exclusive, requireWorkspace, requireMosaic, requireCoverage } = ctx

  const storeInfo = (ws: string, name: string, s: StoreRow): StoreInfo =>
    ({ workspace: ws, name, type: s.type, enabled: s.enabled, url: String(s.config.url ?? `file:data/${ws}/${name}`) })

  async function getStore (ws: string, name: string): Promise<StoreInfo> {
    await requireWorkspace(ws)
    const s = await store.store(ws, name)
    if (!s || s.kind !== 'coverage') throw CoverageStoreNotFound(name)
    return storeInfo(ws, name, s)
  }

  return {
    getStore,

    async deleteStore (ws: string, name: string, recurse: boolean): Promise<void> {
      await getStore(ws, name)
      return await exclusive(ws, name, async () => {
        const coverages = await store.coverages(ws, name)
        if (!recurse && coverages.length > 0) throw CoverageStoreNotEmpty(name)
        await store.deleteStore(ws, name) // cascades to coverages, layers, mosaic record and index
        fault('mosaic.deleteBeforeFiles') // the start removes a store folder the catalog no longer knows
        await fs.promises.rm(ctx.storeDir(ws, name), { recursive: true, force: true })
        await deps.layersRemoved?.(coverages.map((c) => `${ws}:${c.name}`))
      })
    },

    /** PUT file.imagemosaic: creates or replaces the store from a ZIP of definition and granules. */
    async upload (ws: string, name: string, zipFile: string, opts: { configure: 'none' | 'first' | 'all', coverageName?: string, verify?: boolean }): Promise<UploadResult> {
      await deps.workspaces.get(ws)
      checkName(name, 'coverage store')
      if (opts.coverageName !== undefined) checkName(opts.coverageName, 'coverage')
      const existing = await store.store(ws, name)
      if (!existing) await store.checkNewStoreName(ws, name)
      if (existing && existing.type !== 'ImageMosaic') throw InvalidCoverage(`store ${name} exists and is a ${existing.type} store, not an ImageMosaic`)
      return await exclusive(ws, name, () => withStaging(dataDir, 'mosaic', async (staging) => {
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
        const final = ctx.storeDir(ws, name)
        const read = await readGranules(files, settings, {
          displayName: (f) => posixRel(root, f),
          locationOf: (f) => (settings.absolutePath ? path.join(final, path.relative(root, f)) : posixRel(root, f)),
          finalPath: (f) => path.join(final, path.relative(root, f)),
          now: ctx.now(),
          verify: opts.verify
        })
        if (files.length > 0 && read.granules.length === 0) {
          throw NoGoodGranules(read.skipped.map((s) => `${s.file}: ${s.reason}`).join('; '))
        }
        // Bad granules are reported and not kept.
        for (const s of read.skipped) await fs.promises.rm(path.join(root, s.file), { force: true })
        const typeName = settings.name ?? opts.coverageName ?? name
        const record: MosaicRecord = { workspace: ws, store: name, dir: final, typeName, crs: read.crs, settings: adoptCrsAttribute(settings, read) ?? settings }
        const configured = await installStore(ctx, ws, name, {
          root,
          record,
          granules: read.granules,
          storeConfig: { url: dataUrl(ws, name) },
          ...(opts.configure !== 'none' ? { configure: { name: opts.coverageName ?? typeName, nativeName: typeName } } : {})
        })
        return { store: storeInfo(ws, name, (await store.store(ws, name))!), skipped: read.skipped, configured }
      }))
    },

    /** GET workspaces/<ws>/coveragestores: the workspace's coverage stores (404 for an unknown workspace). */
    async listStores (ws: string): Promise<string[]> {
      await requireWorkspace(ws)
      return await store.workspaceStores(ws)
    },

    /** GET workspaces/<ws>/coverages: every coverage of the workspace. */
    async listWorkspaceCoverages (ws: string): Promise<CoverageRow[]> {
      await requireWorkspace(ws)
      return await store.workspaceCoverages(ws)
    },

    /** GET workspaces/<ws>/coverages/<c>: a coverage by its name in the workspace. */
    async getWorkspaceCoverage (ws: string, coverage: string): Promise<{ coverage: CoverageRow, mosaic: MosaicRecord }> {
      await requireWorkspace(ws)
      const row = (await store.workspaceCoverages(ws)).find((c) => c.name === coverage)
      if (!row) throw CoverageNotFound(coverage)
      return await requireCoverage(ws, row.store, coverage)
    },

    async listCoverages (ws: string, name: string): Promise<CoverageRow[]> {
      await requireMosaic(ws, name)
      return await store.coverages(ws, name)
    },

    async getCoverage (ws: string, name: string, coverage: string): Promise<{ coverage: CoverageRow, mosaic: MosaicRecord }> {
      return await requireCoverage(ws, name, coverage)
    },

    /** POST coverages: configures (and publishes) a coverage from the index. */
    async addCoverage (ws: string, name: string, body: Record<string, any>): Promise<CoverageRow> {
      const mosaic = await requireMosaic(ws, name)
      const coverage = body.name ?? body.nativeCoverageName ?? body.nativeName
      if (typeof coverage !== 'string' || coverage === '') throw InvalidCoverage('the coverage needs a name')
      checkName(coverage, 'coverage')
      const nativeName = String(body.nativeCoverageName ?? body.nativeName ?? (coverage === mosaic.typeName ? coverage : mosaic.typeName))
      if ((await store.coverage(ws, name, coverage)) || (await store.resourceExists(ws, coverage))) throw CoverageExists(coverage, ws)
      // GeoServer's POST of a partly described coverage keeps the fields it carries: the rest of the
      // body is applied as a PUT would apply it (or refused by name, and nothing is configured).
      return await store.addCoverage(ws, name, coverage, nativeName, (row, current) => editCoverage(body, row, current))
    },

    /**
     * PUT coverages/<c>: applies the fields the body carries (services/mosaics/coverage-fields.ts);
     * a field that cannot be applied is refused by name and nothing changes. The edit applies to the
     * coverage as the store holds it when it writes, so a harvest cannot slip between read and write.
     */
    async updateCoverage (ws: string, name: string, coverage: string, body: Record<string, unknown>): Promise<void> {
      const { mosaic } = await requireCoverage(ws, name, coverage)
      const edited = await store.editCoverage(ws, name, coverage, (c) => {
        const next = editCoverage(body, c, mosaic)
        return { next, publish: body.enabled !== undefined || next.config.enabled !== c.config.enabled }
      })
      if (!edited) throw CoverageNotFound(coverage)
      // Dimensions, their defaults and nearest match decide which granules a tile draws; band names,
      // which band a style that selects by name shows.
      if (renderedBy(edited.after.config) !== renderedBy(edited.before.config)) await ctx.dataChanged(mosaic, undefined, `coverage ${ws}:${coverage} changed`, coverage)
    },

    async indexSchema (ws: string, name: string, coverage: string) {
      const { mosaic } = await ctx.requireStructured(ws, name, coverage)
      return mosaic.settings.schema
    },

    /** Every image mosaic with its CRS, granule count, extent and coverages (admin page). */
    async overview (): Promise<Array<{ workspace: string, store: string, crs?: string, granules: number, extent?: [number, number, number, number], coverages: string[] }>> {
      const out = []
      for (const { workspace, store: name } of await store.listMosaics()) {
        out.push({
          workspace,
          store: name,
          crs: (await store.getMosaic(workspace, name))?.crs,
          granules: await store.count(workspace, name),
          extent: await store.extent(workspace, name),
          coverages: (await store.coverages(workspace, name)).map((c) => c.name)
        })
      }
      return out
    },

    /** Workspace deleted with recurse: the rows are gone by cascade; remove the files. */
    async workspaceRemoved (ws: string): Promise<void> {
      try { checkName(ws, 'workspace') } catch { return }
      await fs.promises.rm(path.join(dataDir, 'data', ws), { recursive: true, force: true })
    }
  }
}
