// Which files are granules of which kind: a GeoTIFF, or a plain image placed by a world file
// (world-file.ts). Shared by the indexer and the render worker (workers import services, not the
// other way round).

/** Granules that are plain images placed by a world file; any other granule is a GeoTIFF. */
export const WORLD_IMAGE = /\.(png|jpe?g|gif)$/i
