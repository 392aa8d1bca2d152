// Granules: harvests (POST file.imagemosaic adds the granules of a ZIP, POST external.imagemosaic
// indexes files under the harvest roots), granule queries and deletes with their purges, and the
// dimension values the admin page offers.
import fs from 'node:fs'
import path from 'node:path'
import { extractZip } from '../files/zip.js'
import { fsyncTree, renameDurable, withStaging } from '../files/atomic.js'
import { HarvestNotSupported, GranuleFilterRequired, GranuleNotFound, GranulePagingOnDelete, HarvestBadLocation, InvalidLimit, InvalidOffset, InvalidPurge, NoGoodGranules } from '../errors.js'
import { withCrsAttribute, type MosaicSettings } from './indexer.js'
import { findGranules, readGranules, type ReadResult, type Skipped } from './scan.js'
import { isGone } from './geotiff-info.js'
import type { Filter } from '../filters/tree.js'
import { harvestTarget, isUnder, mosaicRoot, posixRel, realRoots, removeFiles, type Purge } from './mosaic-files.js'
import type { MosaicContext } from './mosaic-context.js'
import type { MosaicRecord } from './store.js'

/** When a read brought the mosaic's first granule in another CRS, the settings that add the crs
 *  attribute (and the new granules carry it); undefined when nothing changes. */
export function adoptCrsAttribute (settings: MosaicSettings, read: ReadResult): MosaicSettings | undefined {
  if (!read.heterogeneous) return undefined
  const next = withCrsAttribute(settings)
  if (!next) return undefined
  for (const g of read.granules) g.attrs[next.crsAttribute!] = g.crs
  return next
}

function parsePurge (v: string | undefined): Purge {
  if (v === undefined || v === '') return 'none'
  const l = v.toLowerCase()
  if (l === 'none' || l === 'metadata' || l === 'all') return l
  throw InvalidPurge(JSON.stringify(v.slice(0, 40)))
}

/** '<typeName>.<n>' -> n (the type name may contain dots). */
function parseFid (fid: string, typeName: string): number | undefined {
  if (!fid.startsWith(typeName + '.')) return undefined
  const n = fid.slice(typeName.length + 1)
  return /^[1-9]\d{0,14}$/.test(n) ? Number(n) : undefined
}

/** A single-file store (GeoTIFF) has no granules to add: GeoServer answers 405 as here. */
function harvestable (mosaic: MosaicRecord): MosaicRecord {
  if (mosaic.settings.format !== undefined) throw HarvestNotSupported()
  return mosaic
}

export function granuleOperations (ctx: MosaicContext) {
  const { store, dataDir, deps, fault, exclusive, requireMosaic, requireStructured } = ctx

  /** Commits harvested granules in one unit of work: the mosaic's CRS and crs attribute when they
   *  are new, the rows, the coverages' extent and ranges; tells the listeners. */
  async function indexHarvest (mosaic: MosaicRecord, read: ReadResult) {
    fault('mosaic.harvestBeforeIndex')
    const { workspace: ws, store: name } = mosaic
    const settings = adoptCrsAttribute(mosaic.settings, read)
    return await store.commitHarvest(ws, name, { crs: read.crs, ...(settings ? { settings } : {}), granules: read.granules })
  }

  return {
    /**
     * POST file.imagemosaic: adds the granules of a ZIP to an existing mosaic in one step. The archive
     * is staged and validated like an upload, its granules read; the files are then moved into the
     * store's folder and indexed in one transaction. A failure before the commit removes what was
     * moved, so no half of an archive stays behind. A granule whose file name the store holds
     * already is skipped (harvest that file with external.imagemosaic to re-index it).
     */
    async harvestUpload (ws: string, name: string, zipFile: string, opts: { verify?: boolean } = {}): Promise<{ harvested: number, skipped: Skipped[] }> {
      harvestable(await requireMosaic(ws, name))
      return await exclusive(ws, name, () => withStaging(dataDir, 'harvest', async (staging) => {
        const mosaic = harvestable(await requireMosaic(ws, name))
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
          now: ctx.now(),
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
        let now: MosaicRecord
        try {
          for (const rel of moving) {
            const target = path.join(mosaic.dir, rel)
            await fs.promises.mkdir(path.dirname(target), { recursive: true })
            await renameDurable(path.join(root, rel), target)
            moved.push(target)
          }
          now = await indexHarvest(mosaic, read)
        } catch (err) {
          for (const f of moved) await fs.promises.rm(f, { force: true })
          throw err
        }
        await ctx.dataChanged(now, read.granules, `${read.granules.length} granules harvested into ${ws}:${name}`)
        return { harvested: read.granules.length, skipped: read.skipped }
      }))
    },

    /** POST external.imagemosaic: indexes (or re-indexes) files under the harvest roots. */
    async harvest (ws: string, name: string, body: string, opts: { verify?: boolean } = {}): Promise<{ harvested: number, skipped: Skipped[] }> {
      harvestable(await requireMosaic(ws, name, `${ws},${name}`))
      const target = await harvestTarget(body, deps.harvestRoots)
      return await exclusive(ws, name, async () => {
        const mosaic = await requireMosaic(ws, name, `${ws},${name}`)
        const st = await fs.promises.stat(target).catch((err) => {
          if (isGone(err)) throw HarvestBadLocation('the location', 'no such file or directory under the harvest roots')
          throw err
        })
        let files: string[]
        const vanished: Skipped[] = []
        if (st.isDirectory()) {
          const found = await findGranules(target, mosaic.settings)
          const roots = await realRoots(deps.harvestRoots)
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
          now: ctx.now(),
          verify: opts.verify
        })
        read.skipped.unshift(...vanished)
        if (files.length + vanished.length > 0 && read.granules.length === 0) {
          throw NoGoodGranules(read.skipped.map((s) => `${s.file}: ${s.reason}`).join('; '))
        }
        const now = await indexHarvest(mosaic, read)
        await ctx.dataChanged(now, read.granules, `${read.granules.length} granules harvested into ${ws}:${name}`)
        return { harvested: read.granules.length, skipped: read.skipped }
      })
    },

    async granules (ws: string, name: string, coverage: string, q: { filter?: string, offset?: string, limit?: string }) {
      const { mosaic } = await requireStructured(ws, name, coverage)
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
      const filter = q.filter !== undefined ? ctx.compile(mosaic, q.filter) : undefined
      return { mosaic, granules: await store.query(ws, name, { filter, offset, limit }) }
    },

    async granule (ws: string, name: string, coverage: string, fid: string) {
      const { mosaic } = await requireStructured(ws, name, coverage)
      const seq = parseFid(fid, mosaic.typeName)
      const g = seq === undefined ? undefined : await store.getBySeq(ws, name, seq)
      if (!g) throw GranuleNotFound(fid, coverage)
      return { mosaic, granules: [g] }
    },

    async deleteGranules (ws: string, name: string, coverage: string, q: { filter?: string, purge?: string, fid?: string, offset?: string, limit?: string }): Promise<number> {
      const { mosaic } = await requireStructured(ws, name, coverage)
      const purge = parsePurge(q.purge)
      // GeoServer's DELETE reads filter and purge only. Ignoring a paging parameter would delete
      // every match while the client believes it deletes one page, so it is refused.
      const paging = [q.offset !== undefined ? `offset=${q.offset}` : '', q.limit !== undefined ? `limit=${q.limit}` : ''].filter(Boolean)
      if (paging.length > 0) throw GranulePagingOnDelete(JSON.stringify(paging.join('&').slice(0, 100)))
      let filter: Filter | undefined
      let seqs: number[] | undefined
      if (q.fid !== undefined) {
        const seq = parseFid(q.fid, mosaic.typeName)
        if (seq === undefined || !(await store.getBySeq(ws, name, seq))) throw GranuleNotFound(q.fid, coverage)
        seqs = [seq]
      } else {
        // No filter is refused rather than read as "delete every granule".
        if (q.filter === undefined || q.filter.trim() === '') throw GranuleFilterRequired()
        filter = ctx.compile(mosaic, q.filter)
      }
      // Rows first, then files (a crash between leaves a recorded purge that the start finishes).
      const { removed, purges } = await store.removeGranules(ws, name, { filter, seqs }, purge !== 'none' ? { purge, dir: mosaic.dir } : undefined)
      await ctx.dataChanged(mosaic, removed, `${removed.length} granules deleted from ${ws}:${name}`)
      fault('granule.afterRowBeforeFile')
      await removeFiles(removed.map((g) => g.path), purge, mosaic.dir, deps.harvestRoots, deps.log)
      if (purges.length) await store.purgesDone(purges[0], purges[purges.length - 1])
      return removed.length
    },

    /**
     * The distinct TIME and ELEVATION values of a published mosaic layer (at most `limit` each),
     * for the admin page's pickers; a dimension that is not enabled is absent.
     */
    async dimensionValues (workspace: string, name: string, coverage: string, limit = 500): Promise<{ time?: string[], elevation?: number[] }> {
      const mosaic = await store.getMosaic(workspace, name)
      const cov = mosaic ? await store.coverage(workspace, name, coverage) : undefined
      if (!mosaic || !cov) return {}
      const out: { time?: string[], elevation?: number[] } = {}
      const { timeAttribute, elevationAttribute } = mosaic.settings
      if (cov.config.dimensions?.time && timeAttribute) out.time = (await store.distinct(workspace, name, timeAttribute, limit)).map(String)
      if (cov.config.dimensions?.elevation && elevationAttribute) out.elevation = (await store.distinct(workspace, name, elevationAttribute, limit)).map(Number)
      return out
    }
  }
}
