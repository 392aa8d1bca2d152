// Row mapping of the mosaic tables, shared by the SQLite and the PostgreSQL store (one schema, one
// mapping): granule rows, mosaic records and a mosaic's catalog rows (stores, resources).
import type { CoverageRow, Granule, MosaicRecord, NewGranule, StoreRow } from './store.js'

/** The columns of mosaic_granules the stores read (PostgreSQL's footprint column is left out). */
export const GRANULE_COLUMNS = ['id', 'workspace', 'store', 'seq', 'location', 'path', 'crs', 'minx', 'miny', 'maxx', 'maxy',
  'native_minx', 'native_miny', 'native_maxx', 'native_maxy', 'width', 'height', 'bands', 'data_type', 'nodata', 'ranges', 'attrs', 'damage']

export function toGranule (r: any): Granule {
  return {
    id: r.id,
    seq: r.seq,
    location: r.location,
    path: r.path,
    crs: r.crs,
    bbox: [r.minx, r.miny, r.maxx, r.maxy],
    nativeBbox: r.native_minx === null ? [r.minx, r.miny, r.maxx, r.maxy] : [r.native_minx, r.native_miny, r.native_maxx, r.native_maxy],
    width: r.width,
    height: r.height,
    bands: r.bands,
    dataType: r.data_type,
    nodata: r.nodata,
    ranges: JSON.parse(r.ranges),
    attrs: JSON.parse(r.attrs),
    ...(r.damage !== null && r.damage !== undefined ? { damage: r.damage } : {})
  }
}

/** The values of a new granule's row, by column name. */
export function granuleRow (workspace: string, store: string, seq: number, g: NewGranule) {
  return {
    workspace,
    store,
    seq,
    location: g.location,
    path: g.path,
    crs: g.crs,
    minx: g.bbox[0],
    miny: g.bbox[1],
    maxx: g.bbox[2],
    maxy: g.bbox[3],
    native_minx: g.nativeBbox[0],
    native_miny: g.nativeBbox[1],
    native_maxx: g.nativeBbox[2],
    native_maxy: g.nativeBbox[3],
    width: g.width,
    height: g.height,
    bands: g.bands,
    data_type: g.dataType,
    nodata: g.nodata,
    ranges: JSON.stringify(g.ranges),
    attrs: JSON.stringify(g.attrs)
  }
}
export type GranuleRowValues = ReturnType<typeof granuleRow>

export function toMosaic (workspace: string, store: string, r: any): MosaicRecord {
  return { workspace, store, dir: r.dir, typeName: r.type_name, crs: r.crs ?? undefined, settings: JSON.parse(r.settings) }
}

export function toStoreRow (workspace: string, name: string, r: any): StoreRow {
  return { workspace, name, kind: r.kind, type: r.type, enabled: r.enabled === 1, description: r.description, config: JSON.parse(r.config) }
}

export function toCoverage (r: any): CoverageRow {
  return {
    workspace: r.workspace,
    store: r.store,
    name: r.name,
    nativeName: r.native_name,
    title: r.title,
    srs: r.srs,
    bbox: r.bbox ? JSON.parse(r.bbox) : null,
    config: JSON.parse(r.config)
  }
}

/** A coverage as the catalog row writer takes it (JSON columns serialised). */
export function coverageParams ({ bbox, config, ...c }: CoverageRow) {
  return { ...c, bbox: bbox ? JSON.stringify(bbox) : null, config: JSON.stringify(config) }
}

/** A new store row of a coverage store served by the mosaic machinery (ImageMosaic or GeoTIFF). */
export function mosaicStoreRow (workspace: string, name: string, config: Record<string, unknown>, type = 'ImageMosaic') {
  return { workspace, name, kind: 'coverage' as const, type, config: JSON.stringify(config), createdAt: new Date().toISOString() }
}
