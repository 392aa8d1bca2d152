// The PostgreSQL rows of PostGIS feature types, the counterpart of sqlite-store.ts: the resource and
// its layer in one transaction that announces 'catalog'. The UNIQUE index on folded resource names
// refuses what another node inserts at the same moment; that is reported as the check reports it.
import type { PgClient, PgDatabase } from '../storage/pg/database.js'
import { notify } from '../storage/pg/change-bus.js'
import { createPgCatalogRowWriter } from '../catalog/pg-catalog-rows.js'
import { foldName } from '../files/names.js'
import { FeatureTypeExists } from '../errors.js'
import { FEATURE_TYPE_SELECT, featureTypeFromRow, featureTypeResource, renameSteps, type FeatureTypeRows } from './store.js'

export function createPgFeatureTypeRows (db: PgDatabase): FeatureTypeRows {
  const rows = createPgCatalogRowWriter()
  const checkNew = async (c: PgClient, ws: string, name: string) => {
    const r = await c.query<{ name: string }>('SELECT name FROM resources WHERE workspace = $1 AND (name = $2 OR name_key = $3)', [ws, name, foldName(name)])
    if (r.rows.length > 0) throw FeatureTypeExists(r.rows[0].name, ws)
  }
  return {
    async list (ws, store) {
      const r = store === undefined
        ? await db.query(`${FEATURE_TYPE_SELECT} AND workspace = $1 ORDER BY name COLLATE "C"`, [ws])
        : await db.query(`${FEATURE_TYPE_SELECT} AND workspace = $1 AND store = $2 ORDER BY name COLLATE "C"`, [ws, store])
      return r.rows.map(featureTypeFromRow)
    },
    async get (ws, name) {
      const r = (await db.query(`${FEATURE_TYPE_SELECT} AND workspace = $1 AND name = $2`, [ws, name])).rows[0]
      return r ? featureTypeFromRow(r) : undefined
    },
    async insert (ft, style) {
      try {
        await db.transaction(async (c) => {
          await checkNew(c, ft.workspace, ft.name)
          await rows.insertResource(c, featureTypeResource(ft))
          await rows.insertLayer(c, ft.workspace, ft.name, 'VECTOR', ft.config.enabled)
          await rows.setLayerStyles(c, ft.workspace, ft.name, style, [])
          await notify(c, { topic: 'catalog', key: ft.workspace })
        })
      } catch (err) {
        if ((err as { code?: string }).code === '23505') await db.transaction((c) => checkNew(c, ft.workspace, ft.name))
        throw err
      }
    },
    async update (ft) {
      const { kind: _k, nativeName: _n, ...r } = featureTypeResource(ft)
      await db.transaction(async (c) => {
        await rows.updateResource(c, r)
        await rows.setLayerEnabled(c, ft.workspace, ft.name, ft.config.enabled)
        await notify(c, { topic: 'catalog', key: ft.workspace })
      })
    },
    async rename (from, ft) {
      const numbered = (sql: string) => { let i = 0; return sql.replace(/\?/g, () => `$${++i}`) }
      const attempt = () => db.transaction(async (c) => {
        const r = await c.query<{ name: string }>('SELECT name FROM resources WHERE workspace = $1 AND (name = $2 OR name_key = $3)', [ft.workspace, ft.name, foldName(ft.name)])
        if (r.rows.length > 0) throw FeatureTypeExists(r.rows[0].name, ft.workspace)
        await rows.insertResource(c, featureTypeResource(ft))
        for (const [sql, params] of renameSteps(ft.workspace, from, ft.name)) await c.query(numbered(sql), params)
        await rows.setLayerEnabled(c, ft.workspace, ft.name, ft.config.enabled)
        for (const topic of ['catalog', 'rules', 'tiles'] as const) await notify(c, { topic, key: ft.workspace })
      })
      try {
        await attempt()
      } catch (err) {
        // Another node took the name meanwhile: reported as the check reports it.
        if ((err as { code?: string }).code === '23505') await db.transaction(async (c) => { await checkNew(c, ft.workspace, ft.name) })
        throw err
      }
    },
    async delete (ws, name) {
      await db.transaction(async (c) => {
        await c.query('DELETE FROM resources WHERE workspace = $1 AND name = $2', [ws, name])
        await notify(c, { topic: 'catalog', key: ws })
      })
    }
  }
}
