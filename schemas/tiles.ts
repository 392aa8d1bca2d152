// The tile services under {base}/tilecache/service and {base}/gwc/service (WMTS, TMS, XYZ).
// Path segments are checked by the handlers, with GeoWebCache's messages.
import { Type } from '@fastify/type-provider-typebox'
import { Binary } from './common.js'

export const WmtsTileParams = Type.Object({ layer: Type.String(), style: Type.String(), tms: Type.String(), tm: Type.String(), row: Type.String(), col: Type.String() })
export const TmsMapParams = Type.Object({ map: Type.String() })
export const TmsTileParams = Type.Object({ map: Type.String(), z: Type.String(), x: Type.String(), y: Type.String() })
export const XyzTileParams = Type.Object({ layer: Type.String(), gridset: Type.String(), z: Type.String(), x: Type.String(), y: Type.String() })

const binary = Binary
const Tile = {
  description: 'The tile (304 when If-None-Match or If-Modified-Since still holds)',
  content: { 'image/png': { schema: binary }, 'image/jpeg': { schema: binary }, 'image/webp': { schema: binary }, 'application/vnd.mapbox-vector-tile': { schema: binary } }
}
const xml = (description: string, type: string) => ({ description, content: { [type]: { schema: Type.String() } } })

export const responses = {
  tile: { 200: Tile },
  kvp: { 200: { ...Tile, description: 'GetTile: the tile; GetCapabilities: the WMTS capabilities document', content: { ...Tile.content, 'application/vnd.ogc.wmts+xml': { schema: Type.String() } } } },
  wmtsCapabilities: { 200: xml('WMTS 1.0.0 capabilities', 'application/vnd.ogc.wmts+xml') },
  tms: { 200: xml('TMS 1.0.0 TileMapService or TileMap document', 'text/xml') }
}
