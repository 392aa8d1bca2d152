// The SQLite catalog stores, and the store-name check the SQLite stores of the areas that create
// data and coverage stores run inside their own transactions.
import type { Db } from '../storage/sqlite/database.js'
import { createCatalogRowWriter } from './sqlite-catalog-rows.js'
import { NamespaceUriExists, StoreNameClash, WorkspaceExists, WorkspaceNotEmpty, WorkspaceNotFound } from '../errors.js'
import type { Workspace } from './workspaces.js'
import type { LayerGroupStore, LayerStore, WorkspaceStore } from './store.js'
import type { LayerGroup } from './layer-groups.js'
import { defaultWorkspaceSql, LAYER_SELECT, layerFromRow, layerGroupDoc, layerGroupFromRow, workspaceFromRow } from './store-rows.js'

/**
 * Store names that differ only in case are one folder on a case-insensitive file system: throws
 * when another store of the workspace has a name equal to `name` under Unicode case folding
 * (SQL function mw_fold).
 */
export function checkStoreName (db: Db, workspace: string, name: string): void {
  const other = db.prepare('SELECT name FROM stores WHERE workspace = ? AND mw_fold(name) = mw_fold(?) AND name <> ?').pluck().get(workspace, name, name) as string | undefined
  if (other !== undefined) throw StoreNameClash(name, other)
}

export function createSqliteWorkspaceStore (db: Db): WorkspaceStore {
  const rowTo = workspaceFromRow
  const q = {
    list: db.prepare('SELECT * FROM workspaces ORDER BY name'),
    get: db.prepare('SELECT * FROM workspaces WHERE name = ?'),
    getFolded: db.prepare('SELECT * FROM workspaces WHERE mw_fold(name) = mw_fold(?)'),
    // Refused when a name equal under Unicode case folding exists: on a case-insensitive file
    // system their tile and style folders would be one folder. One statement, so two racing
    // creates cannot both pass.
    insert: db.prepare(`INSERT INTO workspaces (name, namespace_uri, isolated, created_at)
      SELECT @name, @uri, @isolated, @at WHERE NOT EXISTS (SELECT 1 FROM workspaces WHERE mw_fold(name) = mw_fold(@name))`),
    update: db.prepare('UPDATE workspaces SET name = ?, namespace_uri = ?, isolated = ? WHERE name = ?'),
    stores: db.prepare('SELECT count(*) FROM stores WHERE workspace = ?').pluck(),
    remove: db.prepare('DELETE FROM workspaces WHERE name = ?'),
    uriOwner: db.prepare('SELECT name FROM workspaces WHERE namespace_uri = ? AND name <> ?').pluck(),
    defaultName: db.prepare(defaultWorkspaceSql('rowid')).pluck(),
    setDefault: db.prepare(`INSERT INTO default_workspace (id, workspace) VALUES ('default', ?)
      ON CONFLICT(id) DO UPDATE SET workspace = excluded.workspace`)
  }
  /** A namespace URI is one workspace's: refused when another (not `name`) has it. */
  const checkUri = (uri: string, name: string) => { if (q.uriOwner.get(uri, name) !== undefined) throw NamespaceUriExists(uri) }
  const hasStyles = (db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'styles'").pluck().get() as number) > 0
  const styles = hasStyles ? db.prepare('SELECT count(*) FROM styles WHERE workspace = ?').pluck() : undefined
  const groups = db.prepare('SELECT count(*) FROM layer_groups WHERE workspace = ?').pluck()
  /** Number of stores, styles and layer groups that live in the workspace (GeoServer counts groups too). */
  const contents = (name: string) => (q.stores.get(name) as number) + ((styles?.get(name) as number | undefined) ?? 0) + (groups.get(name) as number)
  const mustExist = (name: string) => { if (q.get.get(name) === undefined) throw WorkspaceNotFound(name) }
  const update = db.transaction((name: string, ws: Workspace) => {
    mustExist(name)
    if (ws.name !== name) {
      // Renaming would orphan stores, styles and tile sets; GeoServer refuses it for non-empty ones too.
      if (contents(name) > 0) throw WorkspaceNotEmpty()
      const same = q.getFolded.get(ws.name) as { name: string } | undefined
      if (same && same.name !== name) throw WorkspaceExists(ws.name)
    }
    checkUri(ws.namespaceUri, name)
    q.update.run(ws.name, ws.namespaceUri, ws.isolated ? 1 : 0, name)
  })
  const remove = db.transaction((name: string, recurse: boolean) => {
    mustExist(name)
    if (!recurse && contents(name) > 0) throw WorkspaceNotEmpty()
    q.remove.run(name)
  })
  const insert = db.transaction((ws: Workspace, makeDefault: boolean) => {
    if (q.getFolded.get(ws.name) !== undefined) return false
    checkUri(ws.namespaceUri, ws.name)
    if (q.insert.run({ name: ws.name, uri: ws.namespaceUri, isolated: ws.isolated ? 1 : 0, at: new Date().toISOString() }).changes !== 1) return false
    if (makeDefault) q.setDefault.run(ws.name)
    return true
  })
  return {
    async list () { return (q.list.all() as any[]).map(rowTo) },
    async get (name) { const r = q.get.get(name) as any; return r ? rowTo(r) : undefined },
    async insert (ws, makeDefault = false) { return insert(ws, makeDefault) },
    async update (name, ws) { update(name, ws) },
    async remove (name, recurse) { remove(name, recurse) },
    async defaultName () { return q.defaultName.get() as string | undefined },
    async setDefault (name) {
      mustExist(name)
      q.setDefault.run(name)
    }
  }
}

export function createSqliteLayerStore (db: Db): LayerStore {
  const rows = createCatalogRowWriter(db)
  const select = LAYER_SELECT
  const q = {
    all: db.prepare(`${select} ORDER BY l.workspace, l.name`),
    inWs: db.prepare(`${select} WHERE l.workspace = ? ORDER BY l.name`),
    one: db.prepare(`${select} WHERE l.workspace = ? AND l.name = ?`),
    attribution: db.prepare('UPDATE layers SET attribution = ? WHERE workspace = ? AND name = ?')
  }
  const toInfo = layerFromRow
  const setStyles = db.transaction((workspace: string, name: string, defaultStyle: string | undefined, styles: string[]) => {
    const before = q.one.get(workspace, name)
    if (!before) return undefined
    rows.setLayerStyles(workspace, name, defaultStyle, styles)
    return { before: toInfo(before), after: toInfo(q.one.get(workspace, name)) }
  })
  return {
    async list (workspace) { return ((workspace ? q.inWs.all(workspace) : q.all.all()) as any[]).map(toInfo) },
    async get (workspace, name) { const r = q.one.get(workspace, name); return r ? toInfo(r) : undefined },
    async setStyles (workspace, name, defaultStyle, styles) { return setStyles(workspace, name, defaultStyle, styles) },
    async setAttribution (workspace, name, attribution) {
      return q.attribution.run(attribution === undefined ? null : JSON.stringify(attribution), workspace, name).changes === 1
    }
  }
}

export function createSqliteLayerGroupStore (db: Db): LayerGroupStore {
  const q = {
    all: db.prepare("SELECT workspace, name, doc FROM layer_groups ORDER BY COALESCE(workspace, ''), name"),
    insert: db.prepare(`INSERT INTO layer_groups (workspace, name, doc) SELECT @workspace, @name, @doc
      WHERE NOT EXISTS (SELECT 1 FROM layer_groups WHERE COALESCE(workspace, '') = COALESCE(@workspace, '') AND name = @name)`),
    update: db.prepare("UPDATE layer_groups SET doc = @doc WHERE COALESCE(workspace, '') = COALESCE(@workspace, '') AND name = @name"),
    remove: db.prepare("DELETE FROM layer_groups WHERE COALESCE(workspace, '') = COALESCE(?, '') AND name = ?")
  }
  const params = (g: LayerGroup) => ({ workspace: g.workspace ?? null, name: g.name, doc: layerGroupDoc(g) })
  const apply = db.transaction((changes: { update: LayerGroup[], remove: Array<{ workspace?: string, name: string }> }) => {
    for (const g of changes.update) q.update.run(params(g))
    for (const r of changes.remove) q.remove.run(r.workspace ?? null, r.name)
  })
  return {
    async list () { return (q.all.all() as any[]).map(layerGroupFromRow) },
    async insert (g) { return q.insert.run(params(g)).changes === 1 },
    async update (g) { return q.update.run(params(g)).changes === 1 },
    async apply (changes) { apply(changes) },
    async remove (workspace, name) { return q.remove.run(workspace ?? null, name).changes === 1 }
  }
}
