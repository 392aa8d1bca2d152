// Finding and reading granule files: walks a folder (honouring Recursive and Wildcard), reads each
// GeoTIFF's metadata, and turns it into an index row; bad files are reported, not fatal.
import fs from 'node:fs'
import path from 'node:path'
import { matchesWildcard, type MosaicSettings } from './indexer.js'
import { collectAttributes } from './collect.js'
import { GranuleError, readGranuleInfo } from './geotiff-info.js'
import type { NewGranule } from './granule-index.js'
import { normalizeCrs, transformBbox } from '../../workers/crs.js'
import { TooManyGranules } from '../errors.js'

export interface Skipped { file: string, reason: string }

const GRANULE_EXT = /\.(tif|tiff|gtif)$/i
export const MAX_GRANULES_PER_REQUEST = 100_000

export function isGranuleName (name: string, settings: Pick<MosaicSettings, 'wildcard'>): boolean {
  return GRANULE_EXT.test(name) && matchesWildcard(name, settings.wildcard)
}

/** Granule files under dir (sorted), following no symbolic links. */
export async function findGranules (dir: string, settings: Pick<MosaicSettings, 'wildcard' | 'recursive'>, max = MAX_GRANULES_PER_REQUEST): Promise<string[]> {
  const out: string[] = []
  const walk = async (d: string, depth: number) => {
    const entries = await fs.promises.readdir(d, { withFileTypes: true })
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const e of entries) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) { if (settings.recursive && depth < 32) await walk(p, depth + 1) } else if (e.isFile() && isGranuleName(e.name, settings)) {
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
}): Promise<ReadResult> {
  const granules: NewGranule[] = []
  const skipped: Skipped[] = []
  let crs = opts.crs
  let heterogeneous = false
  for (const file of files) {
    try {
      const info = await readGranuleInfo(file)
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
      skipped.push({ file: opts.displayName(file), reason: err instanceof GranuleError ? err.message : 'cannot be read' })
    }
  }
  return { granules, skipped, crs, heterogeneous }
}
