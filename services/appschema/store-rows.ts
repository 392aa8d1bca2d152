// What the SQLite and PostgreSQL app-schema stores share: the mapping between the catalog's rows
// (the same columns in both) and StoreRow / FeatureTypeRow, and a feature type's resource columns.
import type { ResourceRow } from '../catalog/sqlite-catalog-rows.js'
import type { FeatureTypeRow, StoreRow } from './store.js'

export function storeFromRow (r: any): StoreRow {
  return { workspace: r.workspace, name: r.name, kind: r.kind, type: r.type, enabled: r.enabled === 1, config: JSON.parse(r.config) }
}

export function featureTypeFromRow (r: any): FeatureTypeRow {
  return {
    workspace: r.workspace,
    store: r.store,
    name: r.name,
    nativeName: r.native_name,
    title: r.title ?? r.name,
    ...(r.srs ? { srs: r.srs } : {}),
    ...(r.bbox ? { bbox: JSON.parse(r.bbox) } : {}),
    config: JSON.parse(r.config)
  }
}

/** The resources row of a feature type of store `store` in workspace `ws`. */
export function featureTypeResource (ws: string, store: string, ft: FeatureTypeRow): ResourceRow {
  return {
    workspace: ws,
    store,
    name: ft.name,
    kind: 'featureType',
    nativeName: ft.nativeName,
    title: ft.title,
    srs: ft.srs ?? null,
    bbox: ft.bbox ? JSON.stringify(ft.bbox) : null,
    config: JSON.stringify(ft.config)
  }
}
