// What a coverage's extent, bands and ranges are, given the granules of its mosaic: the values a
// store writes when a coverage is configured and after every harvest or delete.
import { transformBbox } from '../render/crs.js'
import { EmptyMosaic, NoSuchNativeCoverage } from '../errors.js'
import type { CoverageConfig, CoverageRow, Granule, MosaicRecord } from './store.js'

type Bbox = [number, number, number, number]

/** A box in the mosaic's CRS as lon/lat (the coverage's latLon box, the tile cache's areas). */
export function lonLat (bbox: Bbox, crs: string): Bbox {
  return transformBbox(bbox, crs, 'EPSG:4326')
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

/** A coverage's bounds, bands and ranges recomputed from the index (after harvests and deletes). */
export function refreshedCoverage (c: CoverageRow, mosaic: MosaicRecord, all: Granule[], extent: Bbox | undefined): CoverageRow {
  const first = all[0]
  return {
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
  }
}

/** The row a coverage configured from the index has; an existing one keeps its title and dimensions. */
export function configuredCoverage (mosaic: MosaicRecord, name: string, nativeName: string, all: Granule[], extent: Bbox | undefined, existing: CoverageRow | undefined): CoverageRow {
  // A single-file store has one coverage, whatever native name a client gives it (GeoServer's
  // single-coverage readers do not check it); a mosaic's must be its index's.
  if (nativeName !== mosaic.typeName && mosaic.settings.format === undefined) throw NoSuchNativeCoverage(mosaic.store, nativeName, mosaic.typeName)
  if (!extent || !mosaic.crs || all.length === 0) throw EmptyMosaic(name)
  const config: CoverageConfig = {
    dimensions: { time: mosaic.settings.timeAttribute !== undefined, elevation: mosaic.settings.elevationAttribute !== undefined },
    bands: all[0].bands,
    dataType: all[0].dataType,
    nativeBbox: extent,
    ranges: rangesOf(all),
    nativeFormat: mosaic.settings.format ?? 'ImageMosaic',
    enabled: true
  }
  const row: CoverageRow = { workspace: mosaic.workspace, store: mosaic.store, name, nativeName, title: name, srs: mosaic.crs, bbox: lonLat(extent, mosaic.crs), config }
  return existing ? { ...row, title: existing.title, config: { ...existing.config, ...config, dimensions: existing.config.dimensions } } : row
}
