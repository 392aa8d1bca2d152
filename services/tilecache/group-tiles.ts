// A layer group's cached tiles follow what they were drawn from: its members' data and styles, and
// the group itself. Whenever a member layer's data changes (a harvest, a data store or feature type
// changed), a member layer's styles change, or the group changes or goes, the group's tiles are
// dropped whole (marked stale at once, deleted now, as a data change: tile-invalidation.ts). A style
// edit drops every group's tiles: a group names its members' styles itself, so the layers that use
// a style do not tell which groups draw with it; groups are few and style edits rare.
import type { LayerGroupService } from '../catalog/layer-groups.js'
import { groupRef } from '../catalog/layer-groups.js'
import type { TileInvalidation } from './tile-invalidation.js'

export interface GroupTilesDeps {
  groups: Pick<LayerGroupService, 'all' | 'layersOf' | 'onChanged'>
  invalidation: Pick<TileInvalidation, 'dataChanged'>
  log?: { warn: (obj: object, msg: string) => void }
}

export function groupTiles ({ groups, invalidation, log }: GroupTilesDeps) {
  const drop = async (refs: string[], reason: string): Promise<void> => {
    if (refs.length === 0) return
    try { await invalidation.dataChanged(refs, undefined, reason) } catch (err) {
      log?.warn({ err, groups: refs }, 'tile cache: could not drop the tiles of changed layer groups')
    }
  }
  /** The groups that draw any of `layers` (nested groups expanded). */
  const groupsWith = async (layers: string[]): Promise<string[]> => {
    const wanted = new Set(layers)
    const out: string[] = []
    for (const g of await groups.all()) {
      const members = await groups.layersOf(g, async () => true)
      if (members.some((m) => wanted.has(m.layer.qualifiedName))) out.push(groupRef(g))
    }
    return out
  }
  groups.onChanged((refs) => drop(refs, 'the layer group changed'))

  return {
    /** Layers' data or styles changed: the groups that draw them lose their tiles. */
    async layersChanged (layers: string[], reason: string): Promise<void> {
      await drop(await groupsWith(layers), reason)
    },
    /** A style changed: every group's tiles go. */
    async styleChanged (reason: string): Promise<void> {
      await drop((await groups.all()).map(groupRef), reason)
    }
  }
}
