// The tile cache's one authorization hook (services/tilecache/tile-cache.ts `authorize`), answered by
// the layer rules: tile reads need read; capabilities list, and a TMS TileMap describes, only what
// the catalog mode lets the caller see (CHALLENGE: listed and described, tiles challenged);
// seed/reseed/truncate need write (or workspace admin, or ADMIN).
// A hidden layer answers exactly as a missing one does (404 on tile services, 400 on seeding).
import type { LayerInfo } from '../catalog/layers.js'
import { ANONYMOUS, type Principal } from '../auth/authenticator.js'
import { TileLayerNotFound, UnknownTileLayer } from '../errors.js'
import type { LayerAccess } from './access.js'

export type TileAction = 'read' | 'list' | 'metadata' | 'write'

export function tileAuthorizer (access: LayerAccess) {
  return (action: TileAction, layer: LayerInfo, principal: Principal | undefined): void => {
    const p = principal ?? ANONYMOUS
    const name = layer.qualifiedName
    if (action === 'write') access.check(p, layer.workspace, layer.name, 'w', { notFound: () => UnknownTileLayer(name) })
    else if (action === 'list') access.check(p, layer.workspace, layer.name, 'r', { usage: 'list' })
    else access.check(p, layer.workspace, layer.name, 'r', { usage: action === 'metadata' ? 'metadata' : 'data', notFound: () => TileLayerNotFound(name) })
  }
}
