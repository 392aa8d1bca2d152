// The catalog stores: workspaces and published layers. Every method is one atomic unit of work;
// a refused change throws the domain error and changes nothing.
import type { Workspace } from './workspaces.js'
import type { LayerAttribution, LayerInfo } from './layers.js'
import type { LayerGroup } from './layer-groups.js'

export interface WorkspaceStore {
  list (): Promise<Workspace[]>
  get (name: string): Promise<Workspace | undefined>
  /** Inserts unless a workspace's name equals `ws.name` under Unicode case folding; false then.
   *  Throws NamespaceUriExists when another workspace's namespace has `ws.namespaceUri`. `makeDefault`:
   *  it becomes the default workspace in the same unit. */
  insert (ws: Workspace, makeDefault?: boolean): Promise<boolean>
  /**
   * Replaces workspace `name` by `ws`. Throws WorkspaceNotFound; on a rename also WorkspaceNotEmpty
   * while stores or styles live in it, and WorkspaceExists when another workspace's name equals the
   * new one under case folding, and NamespaceUriExists when another namespace has its URI.
   */
  update (name: string, ws: Workspace): Promise<void>
  /** Removes the workspace (its stores and styles by cascade). Throws WorkspaceNotFound, and
   *  WorkspaceNotEmpty unless `recurse` while stores or styles live in it. */
  remove (name: string, recurse: boolean): Promise<void>
  /** The default workspace: the one last made default, else the first created; none without workspaces. */
  defaultName (): Promise<string | undefined>
  /** Makes workspace `name` the default. Throws WorkspaceNotFound. */
  setDefault (name: string): Promise<void>
}

export interface LayerStore {
  list (workspace?: string): Promise<LayerInfo[]>
  get (workspace: string, name: string): Promise<LayerInfo | undefined>
  /** Sets a layer's default and allowed styles; the layer before and after, undefined when there is none. */
  setStyles (workspace: string, name: string, defaultStyle: string | undefined, styles: string[]): Promise<{ before: LayerInfo, after: LayerInfo } | undefined>
  /** Sets (undefined: removes) a layer's attribution; false when there is no such layer. */
  setAttribution (workspace: string, name: string, attribution: LayerAttribution | undefined): Promise<boolean>
}

/** Layer groups, each kept whole as one document; `workspace` undefined is a global group. */
export interface LayerGroupStore {
  list (): Promise<LayerGroup[]>
  /** Inserts unless the workspace (or the global groups) has a group of that name; false then. */
  insert (g: LayerGroup): Promise<boolean>
  /** Replaces group `name` of `workspace` by `g` (same name and workspace); false when there is none. */
  update (g: LayerGroup): Promise<boolean>
  /** Replaces and removes several groups at once (a removed layer taken out of the groups that used it). */
  apply (changes: { update: LayerGroup[], remove: Array<{ workspace?: string, name: string }> }): Promise<void>
  /** Removes the group; false when there is none. */
  remove (workspace: string | undefined, name: string): Promise<boolean>
}
