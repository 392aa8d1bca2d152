// The mosaics area's store: the mosaic records, the granule index, the crash-recovery records and
// the catalog rows a mosaic owns (its coverage store, coverages and RASTER layers). Every method is
// one unit of work: a write that touches several rows runs in one transaction of the implementation
// (sqlite-store.ts; a PostgreSQL one implements the same interface). Footprints are in the mosaic's
// CRS; resources.config carries { dimensions: { time, elevation }, bands, dataType, nativeBbox, ranges, ... }.
import type { MosaicSettings } from './indexer.js'
import type { AttrValue } from './collect.js'
import type { Filter } from '../filters/tree.js'

export interface MosaicRecord {
  workspace: string
  store: string
  /** Absolute folder of the mosaic (granules uploaded with it live here). */
  dir: string
  /** The native coverage name: granule feature type and fid prefix. */
  typeName: string
  /** CRS of the footprints, fixed by the first granule; undefined while empty. */
  crs?: string
  settings: MosaicSettings
}

export interface NewGranule {
  location: string
  path: string
  /** The granule's native CRS (it may differ from the mosaic's: heterogeneous mosaics). */
  crs: string
  /** Footprint in the mosaic's CRS: what the index and spatial filters see. */
  bbox: [number, number, number, number]
  /** Extent in the granule's own CRS (pixel corners): what the renderer reads it by. */
  nativeBbox: [number, number, number, number]
  width: number
  height: number
  bands: number
  dataType: string
  nodata: number | null
  ranges: Array<{ min: number, max: number }>
  attrs: Record<string, AttrValue>
}

export interface Granule extends NewGranule {
  id: number
  seq: number
  /** Why a render could not decode the granule's data; undefined while it reads fine. */
  damage?: string
}

export interface GranuleQuery {
  filter?: Filter
  /** Envelope in the mosaic CRS the footprint must intersect (R*Tree). */
  bbox?: [number, number, number, number]
  offset?: number
  limit?: number
}

export interface CoverageConfig {
  dimensions: { time: boolean, elevation: boolean }
  bands: number
  dataType: string
  /** Extent in the native CRS [minx, miny, maxx, maxy]. */
  nativeBbox: [number, number, number, number] | null
  /** Value range per band over all granules. */
  ranges: Array<{ min: number, max: number }>
  nativeFormat: 'ImageMosaic' | 'GeoTIFF' | 'WorldImage'
  enabled: boolean
  title?: string
  abstract?: string
  /** Dimension presentation settings as last PUT (metadata/entry dimensionInfo), echoed on GET. */
  dimensionInfo?: Record<string, Record<string, unknown>>
  /** Band names and descriptions as last PUT (dimensions/coverageDimension); absent = GeoServer's defaults. */
  bandNames?: string[]
  bandDescriptions?: string[]
  keywords?: string[]
  projectionPolicy?: 'REPROJECT_TO_DECLARED' | 'FORCE_DECLARED' | 'NONE'
  /** Metadata entries other than the dimensions, kept and echoed as GeoServer keeps its metadata map. */
  metadata?: Record<string, string>
}

export interface CoverageRow {
  workspace: string
  store: string
  name: string
  nativeName: string
  title: string | null
  srs: string | null
  bbox: [number, number, number, number] | null
  config: CoverageConfig
}

export interface StoreRow { workspace: string, name: string, kind: string, type: string, enabled: boolean, description: string | null, config: Record<string, unknown> }

/** A purge recorded with the deletion of a granule's row: the files to remove (the start finishes it). */
export interface PendingPurge { path: string, purge: 'metadata' | 'all', dir: string }

/** An upload's commit: the store row, the mosaic record and its granules, and the coverage to configure. */
export interface UploadCommit {
  record: MosaicRecord
  granules: NewGranule[]
  storeConfig: Record<string, unknown>
  /** The store row's type when the store is new (GeoServer's format name); default ImageMosaic. */
  storeType?: 'ImageMosaic' | 'GeoTIFF' | 'WorldImage'
  /** Configure (and publish) this coverage; absent: only refresh the coverages the store has. */
  configure?: { name: string, nativeName: string }
}

/** A harvest's commit: the mosaic's CRS and settings when they are new, and the granules. */
export interface HarvestCommit {
  crs?: string
  settings?: MosaicSettings
  granules: NewGranule[]
}

export interface MosaicStore {
  // Mosaic records and the granule index.
  getMosaic (workspace: string, store: string): Promise<MosaicRecord | undefined>
  /** Every mosaic, by workspace and store. */
  listMosaics (): Promise<Array<{ workspace: string, store: string }>>
  query (workspace: string, store: string, q?: GranuleQuery): Promise<Granule[]>
  count (workspace: string, store: string, filter?: Filter): Promise<number>
  getBySeq (workspace: string, store: string, seq: number): Promise<Granule | undefined>
  /** Envelope of all footprints, undefined when empty. */
  extent (workspace: string, store: string): Promise<[number, number, number, number] | undefined>
  /** Largest and smallest value of an attribute (time/elevation defaults). */
  minMax (workspace: string, store: string, attribute: string, filter?: Filter): Promise<{ min: AttrValue, max: AttrValue }>
  /** Distinct non-null values of an attribute, ascending, at most `limit` (time/elevation pickers). */
  distinct (workspace: string, store: string, attribute: string, limit: number): Promise<AttrValue[]>
  /** Records that the granule file at `path` cannot be decoded; returns the locations of its rows. */
  markDamaged (path: string, reason: string): Promise<string[]>

  // Catalog rows.
  store (workspace: string, name: string): Promise<StoreRow | undefined>
  /** Throws StoreNameClash when another store of the workspace has this name but for case. */
  checkNewStoreName (workspace: string, name: string): Promise<void>
  coverages (workspace: string, store: string): Promise<CoverageRow[]>
  /** Every coverage of a workspace, of all its stores. */
  workspaceCoverages (workspace: string): Promise<CoverageRow[]>
  /** The names of a workspace's coverage stores. */
  workspaceStores (workspace: string): Promise<string[]>
  coverage (workspace: string, store: string, name: string): Promise<CoverageRow | undefined>
  /** Any resource (coverage or feature type, any store) with this name in the workspace. */
  resourceExists (workspace: string, name: string): Promise<boolean>
  /** The store and configuration of the coverage a published layer shows. */
  layerCoverage (workspace: string, layer: string): Promise<{ store: string, config: CoverageConfig } | undefined>

  // Units of work.
  /** Writes the store row, replaces the mosaic record and its granules, configures or refreshes
   *  the coverages, and ends the replace record; returns the coverages configured. */
  commitUpload (ws: string, store: string, commit: UploadCommit): Promise<string[]>
  /** Sets the CRS and settings when given, adds the granules (a path indexed already replaces its
   *  row) and refreshes the coverages' extent and ranges; returns the mosaic as it now is. */
  commitHarvest (ws: string, store: string, commit: HarvestCommit): Promise<MosaicRecord>
  /** Configures and publishes a new coverage, then applies `edit` to it (a throw changes nothing). */
  addCoverage (ws: string, store: string, name: string, nativeName: string, edit: (row: CoverageRow, mosaic: MosaicRecord) => CoverageRow): Promise<CoverageRow>
  /** Replaces a coverage by what `edit` makes of it as stored now, publishing when it says so;
   *  undefined when the coverage is gone. */
  editCoverage (ws: string, store: string, name: string, edit: (row: CoverageRow) => { next: CoverageRow, publish: boolean }): Promise<{ before: CoverageRow, after: CoverageRow } | undefined>
  /** Removes granules (matching the filter, and of the given seqs when given) and refreshes the coverages; with `purge`, records
   *  the files to remove in the same transaction (ids to pass to purgesDone). */
  removeGranules (ws: string, store: string, sel: { filter?: Filter, seqs?: number[] }, purge?: Omit<PendingPurge, 'path'>): Promise<{ removed: Granule[], purges: number[] }>
  /** Deletes the store row; the coverages, layers, mosaic record and index go by cascade. */
  deleteStore (ws: string, store: string): Promise<void>

  // Crash recovery.
  /** Records that the store's folder is about to be replaced (hadOld: a folder was there). */
  beginReplace (ws: string, store: string, hadOld: boolean): Promise<void>
  endReplace (ws: string, store: string): Promise<void>
  openReplaces (): Promise<Array<{ workspace: string, store: string, hadOld: boolean }>>
  pendingPurges (): Promise<Array<PendingPurge & { id: number }>>
  /** Clears recorded purges (by id range: deletes of other stores record purges of their own). */
  purgesDone (first: number, last: number): Promise<void>
}
