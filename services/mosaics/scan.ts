// Finding and reading granule files: walks a folder (honouring Recursive and Wildcard), reads each
// GeoTIFF's metadata, and turns it into an index row; bad files are reported, not fatal.
import fs from 'node:fs'
import path from 'node:path'
import { matchesWildcard, type MosaicSettings } from './indexer.js'
import { collectAttributes } from './collect.js'
import { GranuleError, isGone, readGranuleInfo, type GranuleInfo, type TiffInfo } from './geotiff-info.js'
import { verifyGranule } from './verify.js'
import { hasWorldFile, readWorldFile, readWorldImageInfo, type WorldImageInfo } from './world-file.js'
import { WORLD_IMAGE } from '../render/raster/granule-files.js'
import type { NewGranule } from './store.js'
import { isSupportedCrs, normalizeCrs, transformBbox } from '../render/crs.js'
import { TooManyGranules } from '../errors.js'

export interface Skipped { file: string, reason: string }

/** A file or folder that went away between being listed and being read. */

const GEOTIFF_EXT = /\.(tif|tiff|gtif)$/i
export const MAX_GRANULES_PER_REQUEST = 100_000

/** A GeoTIFF, or a PNG/JPEG/GIF with its world file among `siblings`, that the Wildcard admits. */
function isGranuleName (name: string, siblings: Set<string>, settings: Pick<MosaicSettings, 'wildcard'>): boolean {
  return (GEOTIFF_EXT.test(name) || hasWorldFile(name, siblings)) && matchesWildcard(name, settings.wildcard)
}

/** Granule files under dir (sorted), following no symbolic links. */
export async function findGranules (dir: string, settings: Pick<MosaicSettings, 'wildcard' | 'recursive'>, max = MAX_GRANULES_PER_REQUEST): Promise<string[]> {
  const out: string[] = []
  const walk = async (d: string, depth: number) => {
    let entries: fs.Dirent[]
    try { entries = await fs.promises.readdir(d, { withFileTypes: true }) } catch (err) {
      if (depth > 0 && isGone(err)) return // a sub-folder removed while the walk ran
      throw err
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    const names = new Set(entries.filter((e) => e.isFile()).map((e) => e.name))
    for (const e of entries) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) { if (settings.recursive && depth < 32) await walk(p, depth + 1) } else if (e.isFile() && isGranuleName(e.name, names, settings)) {
        out.push(p)
        if (out.length > max) throw TooManyGranules(max)
      }
    }
  }
  await walk(dir, 0)
  return out
}

export interface ReadResult {
  granules: NewGranule[]
  skipped: Skipped[]
  crs?: string
  /** Whether a granule's native CRS differs from the mosaic's. */
  heterogeneous: boolean
}

/**
 * Reads granule files into index rows. `locationOf` gives the stored location, `finalPath` the
 * absolute path the file will have once committed. The first good granule fixes the mosaic's CRS
 * when it has none yet; a granule in another CRS keeps it (the renderer reprojects it), and its
 * footprint is indexed in the mosaic's CRS, as GeoTools' heterogeneous ImageMosaic does.
 */
export async function readGranules (files: string[], settings: MosaicSettings, opts: {
  crs?: string
  displayName: (file: string) => string
  locationOf: (file: string) => string
  finalPath: (file: string) => string
  now: Date
  /** Decode every granule's data before indexing it (verify=true). */
  verify?: boolean
}): Promise<ReadResult> {
  const granules: NewGranule[] = []
  const skipped: Skipped[] = []
  // Headers first: a world-file image without a .prj takes the mosaic's CRS, which the first
  // granule that names one fixes when the mosaic has none yet; with none at all, EPSG:4326 (as
  // GeoTools' WorldImageReader assumes).
  const infos: Array<WorldImageInfo | TiffInfo | Error> = []
  for (const file of files) {
    try { infos.push(await (WORLD_IMAGE.test(file) ? readWorldImageInfo(file) : readGranuleInfo(file, readWorldFile))) } catch (err) { infos.push(err as Error) }
  }
  let crs = opts.crs ?? infos.find((i): i is GranuleInfo => !(i instanceof Error) && i.crs !== undefined)?.crs
  const defaultCrs = crs ?? 'EPSG:4326'
  let heterogeneous = false
  for (const [n, file] of files.entries()) {
    try {
      const read = infos[n]
      if (read instanceof Error) throw read
      if (opts.verify) await verifyGranule(file)
      const info = { ...read, crs: normalizeCrs(read.crs ?? defaultCrs) }
      if (!isSupportedCrs(info.crs)) throw new GranuleError(`unsupported CRS ${info.crs}`)
      crs ??= info.crs
      const native = normalizeCrs(info.crs) === normalizeCrs(crs)
      const footprint = native ? info.bbox : transformBbox(info.bbox, info.crs, crs)
      if (!footprint.every(Number.isFinite)) throw new GranuleError(`its extent in ${info.crs} lies outside the mosaic's CRS ${crs}`)
      heterogeneous ||= !native
      const st = await fs.promises.stat(file)
      const attrs = collectAttributes(settings, path.basename(file), st.mtime, opts.now)
      if (settings.crsAttribute) attrs[settings.crsAttribute] = info.crs
      const location = opts.locationOf(file)
      granules.push({
        location,
        path: opts.finalPath(file),
        crs: info.crs,
        bbox: footprint,
        nativeBbox: info.bbox,
        width: info.width,
        height: info.height,
        bands: info.bands,
        dataType: info.dataType,
        nodata: info.nodata,
        ranges: info.ranges,
        attrs: { [settings.locationAttribute]: location, ...attrs }
      })
    } catch (err) {
      if (!(err instanceof GranuleError) && (err as NodeJS.ErrnoException).code === undefined) throw err
      const reason = err instanceof GranuleError ? err.message : isGone(err) ? 'it vanished during the harvest' : 'cannot be read'
      skipped.push({ file: opts.displayName(file), reason })
    }
  }
  return { granules, skipped, crs, heterogeneous }
}
