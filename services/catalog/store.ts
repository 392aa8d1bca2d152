// The catalog stores: workspaces and published layers. Every method is one atomic unit of work;
// a refused change throws the domain error and changes nothing.
import type { Workspace } from './workspaces.js'
import type { LayerInfo } from './layers.js'

export interface WorkspaceStore {
  list (): Promise<Workspace[]>
  get (name: string): Promise<Workspace | undefined>
  /** Inserts unless a workspace's name equals `ws.name` under Unicode case folding; false then. */
  insert (ws: Workspace): Promise<boolean>
  /**
   * Replaces workspace `name` by `ws`. Throws WorkspaceNotFound; on a rename also WorkspaceNotEmpty
   * while stores or styles live in it, and WorkspaceExists when another workspace's name equals the
   * new one under case folding.
   */
  update (name: string, ws: Workspace): Promise<void>
  /** Removes the workspace (its stores and styles by cascade). Throws WorkspaceNotFound, and
   *  WorkspaceNotEmpty unless `recurse` while stores or styles live in it. */
  remove (name: string, recurse: boolean): Promise<void>
}

export interface LayerStore {
  list (workspace?: string): Promise<LayerInfo[]>
  get (workspace: string, name: string): Promise<LayerInfo | undefined>
  /** Sets a layer's default and allowed styles; the layer before and after, undefined when there is none. */
  setStyles (workspace: string, name: string, defaultStyle: string | undefined, styles: string[]): Promise<{ before: LayerInfo, after: LayerInfo } | undefined>
}
