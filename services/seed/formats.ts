// Tile image formats of every tile layer. The short name is the blob store directory and the
// TMS/XYZ extension.
export type TileFormat = 'image/png' | 'image/jpeg' | 'image/webp'
export const FORMATS: Record<TileFormat, { ext: string, aliases: string[] }> = {
  'image/png': { ext: 'png', aliases: ['png'] },
  'image/jpeg': { ext: 'jpeg', aliases: ['jpeg', 'jpg'] },
  'image/webp': { ext: 'webp', aliases: ['webp'] }
}
export const TILE_FORMATS = Object.keys(FORMATS) as TileFormat[]
export const DEFAULT_FORMAT: TileFormat = 'image/png'

export function isTileFormat (s: string): s is TileFormat { return Object.hasOwn(FORMATS, s) }
export function formatOfExtension (ext: string): TileFormat | undefined {
  const e = ext.toLowerCase()
  return TILE_FORMATS.find((f) => FORMATS[f].aliases.includes(e))
}
