// The catalog rows of the feature types of PostGIS data stores: a `resources` row (kind
// 'featureType'; lat/lon bounds in bbox, the rest in config) and its `layers` row (VECTOR, the
// default style by geometry type), written together. Every method is one atomic unit of work.
import type { Envelope } from '../filters/tree.js'
import type { ResourceRow } from '../catalog/sqlite-catalog-rows.js'
import type { AttributeInfo, GeometryInfo } from './source.js'
import type { VirtualTable } from './virtual-table.js'

export type ProjectionPolicy = 'FORCE_DECLARED' | 'REPROJECT_TO_DECLARED' | 'NONE'

export interface FeatureTypeConfig {
  /** Which kind of source reads it (the store's type decides; kept for the readers of the layer). */
  source: 'postgis' | 'geopackage' | 'shapefile'
  abstract?: string
  keywords: string[]
  /** The CRS the data declares, `EPSG:<srid>`; undefined when the column declares none. */
  nativeCRS?: string
  /** The source's WKT of a CRS that has no EPSG code (a shapefile's .prj), or one a body declared. */
  nativeWkt?: string
  /** nativeCRS or nativeWkt came from a body, the data declaring none: a later body may change it. */
  nativeCrsFromBody?: boolean
  nativeBbox?: Envelope
  projectionPolicy: ProjectionPolicy
  enabled: boolean
  /** GeoServer's `advertised` (listed in capabilities); absent: true. */
  advertised?: boolean
  attributes: AttributeInfo[]
  geometry?: GeometryInfo
  /** An SQL view (GeoServer's JDBC_VIRTUAL_TABLE metadata entry): read in place of a table. */
  virtualTable?: VirtualTable
}

export interface VectorFeatureType {
  workspace: string
  store: string
  name: string
  nativeName: string
  title: string
  /** The declared CRS (`EPSG:<code>`). */
  srs?: string
  latLonBbox?: Envelope
  config: FeatureTypeConfig
}

export interface FeatureTypeRows {
  /** The feature types of a store (of the workspace when `store` is undefined), by name. */
  list (ws: string, store?: string): Promise<VectorFeatureType[]>
  get (ws: string, name: string): Promise<VectorFeatureType | undefined>
  /** Inserts the resource and its layer (enabled as the feature type, `defaultStyle`); throws
   *  FeatureTypeExists when a resource of the workspace has that name (or one equal under case folding). */
  insert (ft: VectorFeatureType, defaultStyle: string): Promise<void>
  /** Title, SRS, bounds and configuration; the layer's enabled flag follows. */
  update (ft: VectorFeatureType): Promise<void>
  /**
   * Renames `from` to `ft.name` with ft's fields, in one transaction: a new resource and layer (the
   * layer's styles and enabled flag kept), the tile layer settings and the layer's access rules moved
   * to the new name (GeoServer's SecuredResourceNameChangeListener renames rules too), the old rows
   * gone. Throws FeatureTypeExists when another resource of the workspace has the new name.
   */
  rename (from: string, ft: VectorFeatureType): Promise<void>
  /** Removes the resource and its layer. */
  delete (ws: string, name: string): Promise<void>
}

export function featureTypeFromRow (r: any): VectorFeatureType {
  return {
    workspace: r.workspace,
    store: r.store,
    name: r.name,
    nativeName: r.native_name,
    title: r.title ?? r.name,
    ...(r.srs ? { srs: r.srs } : {}),
    ...(r.bbox ? { latLonBbox: JSON.parse(r.bbox) } : {}),
    config: JSON.parse(r.config)
  }
}

export function featureTypeResource (ft: VectorFeatureType): ResourceRow {
  return {
    workspace: ft.workspace,
    store: ft.store,
    name: ft.name,
    kind: 'featureType',
    nativeName: ft.nativeName,
    title: ft.title,
    srs: ft.srs ?? null,
    bbox: ft.latLonBbox ? JSON.stringify(ft.latLonBbox) : null,
    config: JSON.stringify(ft.config)
  }
}

/** The statements of a rename after the new resource row, in order, with their parameters. */
export function renameSteps (ws: string, from: string, to: string): Array<[string, string[]]> {
  return [
    ['INSERT INTO layers (workspace, name, type, default_style, styles, enabled) SELECT workspace, ?, type, default_style, styles, enabled FROM layers WHERE workspace = ? AND name = ?', [to, ws, from]],
    ['UPDATE tile_layer_settings SET name = ? WHERE workspace = ? AND name = ?', [to, ws, from]],
    // A rule left for the new name by an earlier layer gives way to the renamed layer's own rule.
    ['DELETE FROM security_rules WHERE workspace = ? AND layer = ? AND access IN (SELECT access FROM security_rules WHERE workspace = ? AND layer = ?)', [ws, to, ws, from]],
    ['UPDATE security_rules SET layer = ? WHERE workspace = ? AND layer = ?', [to, ws, from]],
    ['DELETE FROM resources WHERE workspace = ? AND name = ?', [ws, from]]
  ]
}

export const FEATURE_TYPE_SELECT = "SELECT workspace, store, name, native_name, title, srs, bbox, config FROM resources WHERE kind = 'featureType'"
