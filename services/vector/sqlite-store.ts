// The SQLite rows of PostGIS feature types, through the catalog's row writer: the resource and its
// layer in one transaction.
import type { Db } from '../storage/sqlite/database.js'
import { createCatalogRowWriter } from '../catalog/sqlite-catalog-rows.js'
import { FeatureTypeExists } from '../errors.js'
import { FEATURE_TYPE_SELECT, featureTypeFromRow, featureTypeResource, renameSteps, type FeatureTypeRows, type VectorFeatureType } from './store.js'

export function createSqliteFeatureTypeRows (db: Db): FeatureTypeRows {
  const rows = createCatalogRowWriter(db)
  const q = {
    byStore: db.prepare(`${FEATURE_TYPE_SELECT} AND workspace = ? AND store = ? ORDER BY name`),
    byWorkspace: db.prepare(`${FEATURE_TYPE_SELECT} AND workspace = ? ORDER BY name`),
    get: db.prepare(`${FEATURE_TYPE_SELECT} AND workspace = ? AND name = ?`),
    // Resource names of a workspace are one name space, compared under case folding as store names are.
    clash: db.prepare('SELECT name FROM resources WHERE workspace = ? AND (name = ? OR mw_fold(name) = mw_fold(?))').pluck(),
    deleteResource: db.prepare('DELETE FROM resources WHERE workspace = ? AND name = ?')
  }
  const insert = db.transaction((ft: VectorFeatureType, style: string) => {
    const taken = q.clash.get(ft.workspace, ft.name, ft.name) as string | undefined
    if (taken !== undefined) throw FeatureTypeExists(taken, ft.workspace)
    rows.insertResource(featureTypeResource(ft))
    rows.insertLayer(ft.workspace, ft.name, 'VECTOR', ft.config.enabled)
    rows.setLayerStyles(ft.workspace, ft.name, style, [])
  })
  const update = db.transaction((ft: VectorFeatureType) => {
    const { kind: _k, nativeName: _n, ...r } = featureTypeResource(ft)
    rows.updateResource(r)
    rows.setLayerEnabled(ft.workspace, ft.name, ft.config.enabled)
  })
  const steps = renameSteps('', '', '').map(([sql]) => db.prepare(sql))
  const rename = db.transaction((from: string, ft: VectorFeatureType) => {
    const taken = q.clash.get(ft.workspace, ft.name, ft.name) as string | undefined
    // Names are compared under case folding: a change of case only (Roads to roads) finds the row itself.
    if (taken !== undefined) throw FeatureTypeExists(taken, ft.workspace)
    rows.insertResource(featureTypeResource(ft))
    renameSteps(ft.workspace, from, ft.name).forEach(([, params], i) => steps[i].run(...params))
    rows.setLayerEnabled(ft.workspace, ft.name, ft.config.enabled)
  })
  return {
    async list (ws, store) { return (store === undefined ? q.byWorkspace.all(ws) : q.byStore.all(ws, store)).map(featureTypeFromRow) },
    async get (ws, name) { const r = q.get.get(ws, name); return r ? featureTypeFromRow(r) : undefined },
    async insert (ft, style) { insert(ft, style) },
    async update (ft) { update(ft) },
    async rename (from, ft) { rename(from, ft) },
    async delete (ws, name) { q.deleteResource.run(ws, name) }
  }
}
