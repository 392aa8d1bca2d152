// Layer groups (GeoServer's LayerGroupInfo): a named, ordered list of layers and other groups, each
// with an optional style, served as one layer of the WMS. Global groups and groups of a workspace;
// members name layers as '<ws>:<name>' and groups as '<name>' (global) or '<ws>:<name>'. Every
// change is validated whole before it is written: members and styles must exist, a group never
// contains itself (a cycle is refused naming it), bounds are the members' union when not given.
// A removed layer leaves the groups that used it, and a group left empty goes, as GeoServer's
// CascadeDeleteVisitor does.
import type { LayerGroupStore } from './store.js'
import type { LayerInfo } from './layers.js'
import {
  LayerGroupCycle, LayerGroupEmpty, LayerGroupExists, LayerGroupMemberUnknown, LayerGroupNameChange,
  LayerGroupNotFound, LayerGroupStyleUnknown, LayerGroupWorkspaceChange, StyleWorkspaceNotFound, InvalidName
} from '../errors.js'

export const GROUP_MODES = ['SINGLE', 'OPAQUE_CONTAINER', 'NAMED', 'CONTAINER', 'EO'] as const
export type GroupMode = typeof GROUP_MODES[number]

export interface Published {
  type: 'layer' | 'layerGroup'
  /** A layer: '<ws>:<name>'; a group: '<name>' (global) or '<ws>:<name>'. */
  name: string
}

export interface GroupBounds { minx: number, miny: number, maxx: number, maxy: number, crs: string }

export interface LayerGroup {
  workspace?: string
  name: string
  mode: GroupMode
  title?: string
  abstractTxt?: string
  publishables: Published[]
  /** One per publishable: a style reference ('name' or 'ws:name'), or '' for the member's default. */
  styles: string[]
  bounds?: GroupBounds
  keywords: string[]
  metadataLinks: Array<{ type: string, metadataType: string, content: string }>
  enabled: boolean
  advertised: boolean
}

/** A group as a client sends it; name and workspace checked by the service. */
export type LayerGroupInput = Omit<LayerGroup, 'bounds'> & { bounds?: GroupBounds }

export interface LayerGroupDeps {
  store: LayerGroupStore
  layers: { get (workspace: string, name: string): Promise<LayerInfo | undefined>, list (): Promise<LayerInfo[]> }
  styles: { resolve (workspace: string | undefined, ref: string): Promise<{ workspace?: string, name: string } | undefined> }
  workspaces: { exists (name: string): Promise<boolean> }
}

/** The qualified name of a group: 'name' for a global one, 'ws:name' for one of a workspace. */
export const groupRef = (g: { workspace?: string, name: string }): string => g.workspace ? `${g.workspace}:${g.name}` : g.name

/** A layer of a drawn group, with the style the group gives it ('' for the layer's default). */
export interface GroupLayer { layer: LayerInfo, style: string }

/** Told after groups were created, changed or removed (their refs), e.g. to drop their tiles. */
export type GroupsChangedHook = (refs: string[]) => Promise<void> | void

export function createLayerGroupService (deps: LayerGroupDeps) {
  const { store } = deps
  const changedHooks: GroupsChangedHook[] = []
  const changed = async (refs: string[]) => { for (const hook of changedHooks) await hook(refs) }

  const find = (all: LayerGroup[], workspace: string | undefined, name: string) =>
    all.find((g) => g.workspace === workspace && g.name === name)

  /** A group named in a request: 'ws:name' of that workspace, else a global group (or, from a
   *  workspace's group, one of its own workspace first, as GeoServer resolves unprefixed names). */
  const findRef = (all: LayerGroup[], ref: string, context?: string): LayerGroup | undefined => {
    const i = ref.indexOf(':')
    if (i > 0) return find(all, ref.slice(0, i), ref.slice(i + 1))
    return (context !== undefined ? find(all, context, ref) : undefined) ?? find(all, undefined, ref)
  }

  const mustHaveWorkspace = async (ws: string | undefined) => {
    if (ws !== undefined && !(await deps.workspaces.exists(ws))) throw StyleWorkspaceNotFound(ws)
  }

  const layerOf = async (ref: string): Promise<LayerInfo | undefined> => {
    const i = ref.indexOf(':')
    if (i > 0) return await deps.layers.get(ref.slice(0, i), ref.slice(i + 1))
    const named = (await deps.layers.list()).filter((l) => l.name === ref)
    return named.length === 1 ? named[0] : undefined
  }

  /** The members resolved and checked, styles too; bounds computed when none were sent. */
  const validate = async (g: LayerGroupInput, all: LayerGroup[]): Promise<LayerGroup> => {
    if (typeof g.name !== 'string' || g.name.trim() === '' || g.name.includes(':') || g.name.includes('/')) throw InvalidName('layer group', JSON.stringify(g.name ?? ''))
    if (g.publishables.length === 0) throw LayerGroupEmpty()
    const publishables: Published[] = []
    const styles: string[] = []
    const boxes: Array<[number, number, number, number]> = []
    for (const [i, p] of g.publishables.entries()) {
      const styleRef = g.styles[i] ?? ''
      if (p.type === 'layer') {
        const l = await layerOf(p.name)
        if (!l) throw LayerGroupMemberUnknown('layer', p.name)
        publishables.push({ type: 'layer', name: l.qualifiedName })
        if (l.bbox) boxes.push(l.bbox)
        let style = ''
        if (styleRef !== '') {
          const s = await deps.styles.resolve(l.workspace, styleRef)
          if (!s) throw LayerGroupStyleUnknown(styleRef)
          style = s.workspace ? `${s.workspace}:${s.name}` : s.name
        }
        styles.push(style)
      } else {
        const member = findRef(all, p.name, g.workspace)
        if (!member) throw LayerGroupMemberUnknown('layer group', p.name)
        publishables.push({ type: 'layerGroup', name: groupRef(member) })
        styles.push('') // a group member draws with its own styles
        const b = member.bounds
        if (b) boxes.push([b.minx, b.miny, b.maxx, b.maxy])
      }
    }
    const self = groupRef(g)
    // The graph as it would be with this group changed: a path back to it is a cycle.
    const members = (ref: string): string[] => {
      if (ref === self) return publishables.filter((p) => p.type === 'layerGroup').map((p) => p.name)
      const other = findRef(all, ref)
      return other ? other.publishables.filter((p) => p.type === 'layerGroup').map((p) => p.name) : []
    }
    const walk = (ref: string, path: string[]): string[] | undefined => {
      for (const m of members(ref)) {
        if (m === self) return [...path, m]
        if (path.includes(m)) continue // a cycle elsewhere cannot exist: every group was checked when written
        const found = walk(m, [...path, m])
        if (found) return found
      }
      return undefined
    }
    const cycle = walk(self, [self])
    if (cycle) throw LayerGroupCycle(cycle.join(' -> '))
    let bounds = g.bounds
    if (!bounds) {
      bounds = boxes.length === 0
        ? undefined
        : boxes.reduce<GroupBounds>((u, b) => ({ minx: Math.min(u.minx, b[0]), miny: Math.min(u.miny, b[1]), maxx: Math.max(u.maxx, b[2]), maxy: Math.max(u.maxy, b[3]), crs: 'EPSG:4326' }),
          { minx: Infinity, miny: Infinity, maxx: -Infinity, maxy: -Infinity, crs: 'EPSG:4326' })
    }
    return { ...g, publishables, styles, bounds }
  }

  const mustFind = (all: LayerGroup[], workspace: string | undefined, name: string): LayerGroup => {
    const g = find(all, workspace, name)
    if (!g) throw LayerGroupNotFound(name + (workspace === undefined ? '' : ` in workspace ${workspace}`))
    return g
  }
  const mustGet = async (workspace: string | undefined, name: string): Promise<LayerGroup> => {
    await mustHaveWorkspace(workspace)
    return mustFind(await store.list(), workspace, name)
  }

  return {
    /** The global groups, or those of one workspace. */
    async list (workspace?: string): Promise<LayerGroup[]> {
      await mustHaveWorkspace(workspace)
      return (await store.list()).filter((g) => g.workspace === workspace)
    },
    /** Every group, global and of every workspace. */
    all: () => store.list(),
    get: mustGet,
    /** A group by the name a WMS request gives it ('name' global, 'ws:name'); undefined if none. */
    async byRef (ref: string): Promise<LayerGroup | undefined> { return findRef(await store.list(), ref) },
    async create (g: LayerGroupInput): Promise<LayerGroup> {
      await mustHaveWorkspace(g.workspace)
      const all = await store.list()
      if (find(all, g.workspace, g.name)) throw LayerGroupExists(g.name)
      const valid = await validate(g, all)
      if (!(await store.insert(valid))) throw LayerGroupExists(g.name)
      return valid
    },
    /** Replaces a group by `g`, which keeps its name and workspace (GeoServer's 403s otherwise). */
    async update (workspace: string | undefined, name: string, g: LayerGroupInput & { bounds?: GroupBounds }): Promise<LayerGroup> {
      await mustHaveWorkspace(workspace)
      const all = await store.list()
      mustFind(all, workspace, name)
      if (g.name !== name) throw LayerGroupNameChange()
      if (g.workspace !== workspace) throw LayerGroupWorkspaceChange()
      const valid = await validate(g, all)
      if (!(await store.update(valid))) throw LayerGroupNotFound(name)
      await changed([groupRef(valid)])
      return valid
    },
    async remove (workspace: string | undefined, name: string): Promise<void> {
      await mustGet(workspace, name)
      if (!(await store.remove(workspace, name))) throw LayerGroupNotFound(name)
      await changed([groupRef({ workspace, name })])
    },
    /** Told after a group changed or went (not when one is created: it has no tiles yet). */
    onChanged (hook: GroupsChangedHook) { changedHooks.push(hook) },

    /**
     * The layers a group draws, in drawing order (first at the bottom), nested groups expanded,
     * each with its group style. `visible` says which layers the caller may read; the others are
     * left out (a hidden layer is never drawn).
     */
    async layersOf (g: LayerGroup, visible: (l: LayerInfo) => Promise<boolean>): Promise<GroupLayer[]> {
      const all = await store.list()
      const out: GroupLayer[] = []
      const expand = async (group: LayerGroup, seen: Set<string>) => {
        seen.add(groupRef(group))
        for (const [i, p] of group.publishables.entries()) {
          if (p.type === 'layerGroup') {
            const sub = findRef(all, p.name)
            if (sub && !seen.has(groupRef(sub))) await expand(sub, seen)
            continue
          }
          const [ws, ...rest] = p.name.split(':')
          const layer = await deps.layers.get(ws, rest.join(':'))
          if (!layer || !layer.enabled || !(await visible(layer))) continue
          // A style deleted since is the layer's default again (GeoServer's cascade clears the entry).
          const style = group.styles[i] ?? ''
          out.push({ layer, style: style !== '' && !(await deps.styles.resolve(layer.workspace, style)) ? '' : style })
        }
      }
      await expand(g, new Set())
      return out
    },

    /** A removed layer leaves every group; a group left empty goes too, and leaves its parents. */
    async layerRemoved (qualifiedName: string): Promise<void> {
      await leave((p) => p.type === 'layer' && p.name === qualifiedName)
    },

    /** A renamed layer keeps its places, and their styles, in every group (GeoServer's groups hold layers by id). */
    async layerRenamed (from: string, to: string): Promise<void> {
      const update = (await store.list()).filter((g) => g.publishables.some((p) => p.type === 'layer' && p.name === from))
        .map((g) => ({ ...g, publishables: g.publishables.map((p) => p.type === 'layer' && p.name === from ? { ...p, name: to } : p) }))
      if (update.length > 0) await store.apply({ update, remove: [] })
    },

    /** A deleted workspace's layers and groups (its own groups went with it) leave the other groups. */
    async workspaceRemoved (workspace: string): Promise<void> {
      await leave((p) => p.name.startsWith(`${workspace}:`))
    }
  }

  /** Takes the entries `isGone` says are gone out of every group, and the groups left empty after them. */
  async function leave (isGone: (p: Published) => boolean): Promise<void> {
    const all = await store.list()
    const update = new Map<string, LayerGroup>()
    const remove = new Map<string, LayerGroup>()
    const removed = (p: Published) => isGone(p) || (p.type === 'layerGroup' && remove.has(p.name))
    for (let changed = true; changed;) {
      changed = false
      for (const g0 of all) {
        const key = groupRef(g0)
        if (remove.has(key)) continue
        const g = update.get(key) ?? g0
        const keep = g.publishables.map((p, i) => ({ p, s: g.styles[i] ?? '' })).filter(({ p }) => !removed(p))
        if (keep.length === g.publishables.length) continue
        changed = true
        if (keep.length === 0) {
          update.delete(key)
          remove.set(key, g)
        } else update.set(key, { ...g, publishables: keep.map((k) => k.p), styles: keep.map((k) => k.s) })
      }
    }
    if (update.size + remove.size === 0) return
    await store.apply({ update: [...update.values()], remove: [...remove.values()].map((g) => ({ workspace: g.workspace, name: g.name })) })
    await changed([...update.keys(), ...remove.keys()])
  }
}
export type LayerGroupService = ReturnType<typeof createLayerGroupService>
