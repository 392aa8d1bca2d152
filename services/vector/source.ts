// The vector source seam: what every reader of features needs from a data store, whatever holds the
// data (PostGIS today; GeoPackage and Shapefile sources implement the same interface later). The
// catalog (feature types) asks it for type names, schemas and bounds; SLD rendering, WFS and vector
// tiles read features through readFeatures. Names are the source's own (a table, a column).
import type { Envelope, Filter } from '../filters/tree.js'
import type { SqlView, VirtualTable } from './virtual-table.js'

export interface AttributeInfo {
  name: string
  /** GeoServer's binding: java.lang.Integer, org.locationtech.jts.geom.Polygon... */
  binding: string
  nillable: boolean
  minOccurs: number
  maxOccurs: number
  /** The declared length of a character column, when it has one. */
  length?: number
}

export interface GeometryInfo {
  /** The geometry column. */
  name: string
  /** The OGC type as the source declares it: POINT, MULTIPOLYGON, GEOMETRY... */
  type: string
  /** The declared SRID; 0 when none is declared. */
  srid: number
  /** The CRS's own WKT when the source has one that names no EPSG code (a .prj the registry lacks). */
  wkt?: string
}

export interface TypeSchema {
  name: string
  attributes: AttributeInfo[]
  /** The default geometry (the first geometry column), undefined for a table without one. */
  geometry?: GeometryInfo
}

export interface TypeName { name: string, hasGeometry: boolean }

export interface ReadQuery {
  type: string
  /** Features whose default geometry meets this envelope (in the type's native CRS). */
  bbox?: Envelope
  filter?: Filter
  /** Attributes to read (default: every attribute); the default geometry is always read. */
  properties?: string[]
  limit?: number
  offset?: number
  sortBy?: Array<{ name: string, descending?: boolean }>
  /** How the geometry is returned: WKB (default) or GeoJSON text. */
  geometryFormat?: 'wkb' | 'geojson'
  /** Only the distinct values of this attribute (no geometry, no id; `properties` aside), in its
   *  order, or with `sortBy` in the order of each value's first row under the sort (the value
   *  breaking ties): a page of them with limit/offset; count() counts them. App-schema features
   *  are the distinct ids of their rows. */
  distinct?: string
  /** Only the rows whose attribute `column` is among the values of attribute `value` of the rows
   *  `query` reads (another type of the same source, with its filter, its own `within`, order and
   *  page): `column IN (SELECT value FROM ...)`, one statement (app-schema's chained features of a
   *  page of parents). Where the source has SQL (PostGIS, GeoPackage); not with an SQL view. */
  within?: { column: string, value: string, query: ReadQuery }
  /** A tolerance in the type's native CRS units (a map's pixel): PostGIS answers the geometries
   *  simplified to it in SQL, small ones kept rather than dropped; GeoPackage and shapefiles check it
   *  and answer every vertex (the render thread simplifies them as they become pixels, simplify.ts). */
  simplify?: number
  /** An envelope in the type's native CRS the geometries are cut to, after their simplification,
   *  where the source does it in its query (PostGIS: ST_ClipByBox2D); a map's area with its
   *  margin, so a feature far larger than the map (a country at a tile's zoom) is read, sent and
   *  drawn only as far as the map shows it. The other sources answer every geometry whole. */
  clip?: Envelope
  /** An SQL view's SELECT with its values bound (the feature type's JDBC_VIRTUAL_TABLE): read in
   *  place of the table `type`, in a read-only transaction. */
  view?: SqlView
}

export interface Feature {
  /** The primary key's value(s) joined by '.', when the type has a primary key. */
  id?: string
  properties: Record<string, unknown>
  /** WKB bytes or GeoJSON text, as asked; null for a feature without a geometry. */
  geometry: Buffer | string | null
}

/** One layer of a vector tile (MVT) the database encodes (PostGIS' ST_AsMVT). */
export interface VectorTileQuery {
  type: string
  /** The MVT layer's name. */
  name: string
  /** The tile's bounds in the grid's CRS (EPSG code `gridSrid`). */
  tile: Envelope
  gridSrid: number
  /** The CRS the data is in where it is an EPSG code (its declared one where it is forced; else the
   *  column's SRID stands), and the tile with its buffer there. */
  dataSrid?: number
  area: Envelope
  /** Tile units across a tile, and the buffer around it kept by the clip. */
  extent: number
  buffer: number
  filter?: Filter
  view?: SqlView
}

export interface VectorSource {
  /** Every type of the source (tables and views of a schema), with whether it has a geometry. */
  listTypes (): Promise<TypeName[]>
  /** The schema of a type; undefined when there is no such type. */
  describe (type: string): Promise<TypeSchema | undefined>
  /** The native bounds of the type's default geometry, undefined when it has no features;
   *  `estimated`: the source's statistics where it has them (else exact). */
  bounds (type: string, estimated: boolean): Promise<Envelope | undefined>
  /** Whether the source knows the CRS `srid` (PostGIS: spatial_ref_sys; GeoPackage: gpkg_spatial_ref_sys). */
  hasCrs (srid: number): Promise<boolean>
  /** An envelope of CRS `srid` as lon/lat bounds (EPSG:4326, lon first). */
  toLatLon (env: Envelope, srid: number): Promise<Envelope>
  /** The features matching the query, streamed in batches of the store's fetch size. */
  readFeatures (query: ReadQuery): AsyncIterable<Feature>
  /** The same features a batch at a time, where the source reads them so (PostGIS' cursor):
   *  a writer of many features loops over an array instead of awaiting each one. */
  readFeatureBatches? (query: ReadQuery): AsyncIterable<Feature[]>
  /** How many features match the query's bbox and filter (its page, order and properties aside),
   *  without reading them where the source can (SQL COUNT, a shapefile's .shx). */
  count (query: ReadQuery): Promise<number>
  /** The encoded layer of a vector tile (empty when no feature is in it), where the database
   *  encodes vector tiles; the render pool encodes the other sources' features. */
  vectorTile? (query: VectorTileQuery): Promise<Uint8Array>
  /** An SQL view's attributes (its SELECT described with `values` bound, nothing read), geometry,
   *  keys and bounds; a SELECT the database refuses is InvalidVirtualTable naming its reason. */
  describeView? (vt: VirtualTable, sql: string, values: string[]): Promise<{ schema: TypeSchema, keys: string[], bounds?: Envelope }>
  /** Closes the source's connections. */
  close (): Promise<void>
  /** Applies edits all or nothing, in one database transaction (PostGIS, GeoPackage); a source
   *  without it (shapefiles) is read-only. */
  write?: (edits: Edit[]) => Promise<EditResult[]>
}

/** A value of an edit: text, a number or boolean as the attribute's binding says, null, or a
 *  geometry as WKB (in the type's native CRS, of the column's type). */
export type EditValue = string | number | boolean | Buffer | null

export type Edit =
  | { kind: 'insert', type: string, features: Array<Record<string, EditValue>> }
  | { kind: 'update', type: string, values: Record<string, EditValue>, filter?: Filter }
  | { kind: 'delete', type: string, filter: Filter }

export interface EditResult {
  /** Features inserted, updated or deleted. */
  count: number
  /** The ids of inserted features (as readFeatures gives them), in order. */
  ids: string[]
  /** The native envelope of the geometries touched, before and after; undefined: none. */
  area?: Envelope
}

/** The features of a read in batches: the source's own, else readFeatures' grouped by `size`. */
export async function * featureBatches (source: Pick<VectorSource, 'readFeatures' | 'readFeatureBatches'>, query: ReadQuery, size = 1000): AsyncGenerator<Feature[]> {
  if (source.readFeatureBatches) { yield * source.readFeatureBatches(query); return }
  let batch: Feature[] = []
  for await (const f of source.readFeatures(query)) {
    batch.push(f)
    if (batch.length >= size) { yield batch; batch = [] }
  }
  if (batch.length > 0) yield batch
}
