// Rows of the workspaces and layers tables as the catalog stores return them, shared by the SQLite
// and PostgreSQL stores (both keep integers 0/1 for flags and JSON text for lists and objects).
import type { Workspace } from './workspaces.js'
import type { LayerInfo } from './layers.js'
import type { LayerGroup } from './layer-groups.js'

export interface WorkspaceRow { name: string, namespace_uri: string, isolated: number }

export const workspaceFromRow = (r: WorkspaceRow): Workspace =>
  ({ name: r.name, namespaceUri: r.namespace_uri, isolated: r.isolated === 1 })

/**
 * The default workspace's name: the one made default, else the first created. Two workspaces
 * created in the same millisecond share `created_at`; `order` is the column the database numbers
 * rows by as they are inserted (SQLite's rowid, PostgreSQL's `seq`), so the first one wins.
 */
export const defaultWorkspaceSql = (order: 'rowid' | 'seq'): string => `SELECT name FROM workspaces
  ORDER BY CASE WHEN name = (SELECT workspace FROM default_workspace WHERE id = 'default') THEN 0 ELSE 1 END, created_at, ${order} LIMIT 1`

/** A published layer with its resource's store, bounds and configuration; both dialects read it. */
export const LAYER_SELECT = `SELECT l.workspace, l.name, l.type, l.default_style, l.styles, l.enabled, l.attribution, r.store, r.bbox, r.srs, r.config
    FROM layers l JOIN resources r ON r.workspace = l.workspace AND r.name = l.name`

export const layerFromRow = (r: any): LayerInfo => ({
  workspace: r.workspace,
  name: r.name,
  qualifiedName: `${r.workspace}:${r.name}`,
  type: r.type,
  store: r.store,
  defaultStyle: r.default_style ?? undefined,
  styles: JSON.parse(r.styles),
  enabled: r.enabled === 1,
  ...(r.attribution ? { attribution: JSON.parse(r.attribution) } : {}),
  bbox: r.bbox ? JSON.parse(r.bbox) : undefined,
  srs: r.srs ?? undefined,
  config: JSON.parse(r.config)
})

/** A layer group row: the document holds everything but the workspace and name columns. */
export const layerGroupFromRow = (r: { workspace: string | null, name: string, doc: string }): LayerGroup =>
  ({ ...JSON.parse(r.doc), workspace: r.workspace ?? undefined, name: r.name })

export const layerGroupDoc = (g: LayerGroup): string => {
  const { workspace, name, ...rest } = g
  return JSON.stringify(rest)
}
