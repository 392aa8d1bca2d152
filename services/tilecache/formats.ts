// Tile image formats of every tile layer. The short name is the blob store directory and the
// TMS/XYZ extension (GeoWebCache's MimeType file extensions). image/png8 is a paletted PNG (served
// as image/png); image/vnd.jpeg-png is GeoServer's mixed format: JPEG where a tile is opaque, PNG
// where it has transparency, each tile served with the media type of its own bytes.
// application/vnd.mapbox-vector-tile is GeoWebCache's MVT format (extension pbf): a vector layer's
// or a layer group's features, one tile per tile (never cut from a metatile image), offered for
// vector layers and groups only (vectorTileLayer).
import type { EncodeFormat } from '../render/tile-encode.js'
import type { LayerInfo } from '../catalog/layers.js'

export const MVT_FORMAT = 'application/vnd.mapbox-vector-tile'
/** The image formats the tile encoder writes (render/tile-encode.ts) and MVT. */
export type TileFormat = EncodeFormat | typeof MVT_FORMAT
export const FORMATS: Record<TileFormat, { ext: string, aliases: string[] }> = {
  'image/png': { ext: 'png', aliases: ['png'] },
  'image/png8': { ext: 'png8', aliases: ['png8'] },
  'image/jpeg': { ext: 'jpeg', aliases: ['jpeg', 'jpg'] },
  'image/webp': { ext: 'webp', aliases: ['webp'] },
  'image/vnd.jpeg-png': { ext: 'jpeg-png', aliases: ['jpeg-png'] },
  [MVT_FORMAT]: { ext: 'pbf', aliases: ['pbf', 'mvt'] }
}
export const TILE_FORMATS = Object.keys(FORMATS) as TileFormat[]
export const DEFAULT_FORMAT: TileFormat = 'image/png'

export function isTileFormat (s: string): s is TileFormat { return Object.hasOwn(FORMATS, s) }
export function isImageFormat (f: TileFormat): f is EncodeFormat { return f !== MVT_FORMAT }

/** Whether a tile layer has vector tiles: a vector layer or a layer group (its raster members left out). */
export function vectorTileLayer (layer: Pick<LayerInfo, 'type'>): boolean { return layer.type === 'VECTOR' || layer.type === 'GROUP' }
/** The formats a tile layer offers: every image format, and MVT for vector layers and groups. */
export function formatsOf (layer: Pick<LayerInfo, 'type'>): TileFormat[] {
  return vectorTileLayer(layer) ? TILE_FORMATS : TILE_FORMATS.filter(isImageFormat)
}
export function formatOfExtension (ext: string): TileFormat | undefined {
  const e = ext.toLowerCase()
  return TILE_FORMATS.find((f) => FORMATS[f].aliases.includes(e))
}

/**
 * The row of a tile file `<y>.<ext>` of a format, from the formats table (extensions hold '-':
 * jpeg-png); undefined for any other name. Every walk of the blob store's folders (truncates and
 * style drops, the disk quota's rebuild, exports) reads names through it, so none misses a format.
 */
export function tileRowOfFileName (name: string, format: TileFormat): number | undefined {
  const suffix = '.' + FORMATS[format].ext
  if (!name.endsWith(suffix)) return undefined
  const y = name.slice(0, -suffix.length)
  return /^\d+$/.test(y) ? Number(y) : undefined
}

/** The media type a tile is served with: its format's, or for image/vnd.jpeg-png what its bytes are. */
export function mediaTypeOf (format: TileFormat, data: Uint8Array): string {
  if (format === 'image/png8') return 'image/png'
  if (format === MVT_FORMAT) return MVT_FORMAT
  if (format !== 'image/vnd.jpeg-png') return format
  return data[0] === 0xff && data[1] === 0xd8 ? 'image/jpeg' : 'image/png'
}
