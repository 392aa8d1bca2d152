// The job the mosaic renderer runs (render-mosaic.ts): plain, serializable data built
// by the mosaic service (services/render/raster/render-plan.ts, through `app.mosaics.prepareRender`) from a
// RenderRequest. Everything the worker needs travels here: no catalog, database or app import.
import type { RasterStyle } from '../render-types.js'

/** CRS codes the worker understands; 'EPSG:900913' is treated as 'EPSG:3857'. */
export type CrsCode = string

/** One granule (a GeoTIFF or a world-file image), north-up, as indexed. */
export interface GranuleRef {
  /** Absolute path of the GeoTIFF or world-file image. */
  path: string
  /** Native CRS of the granule, e.g. 'EPSG:4326' or 'EPSG:3857'. */
  crs: CrsCode
  /** Full-resolution extent in the native CRS: [minx, miny, maxx, maxy] (pixel corners). */
  bbox: [number, number, number, number]
  /** Full-resolution size in pixels. */
  width: number
  height: number
  /** Number of bands in the file. */
  bands: number
  /** Value that marks missing data (GDAL_NODATA), or null. */
  nodata: number | null
}

export interface RenderJob {
  /** Target CRS and bbox (minx, miny, maxx, maxy; lon/lat order for EPSG:4326). */
  crs: CrsCode
  bbox: [number, number, number, number]
  width: number
  height: number
  /** Granules in drawing order: later ones are drawn over earlier ones. */
  granules: GranuleRef[]
  /** Bands of the coverage (the BandData carries this many; a granule with fewer leaves the rest 0). */
  bands: number
  /** Value range per band over the whole layer, used to stretch when no style says otherwise. */
  ranges: Array<{ min: number, max: number }>
  style?: RasterStyle
  /** proj4 definitions for CRS codes other than EPSG:4326/3857/900913 that appear above. */
  proj4Defs?: Record<string, string>
}

export interface RenderResult { width: number, height: number, rgba: Uint8Array }
