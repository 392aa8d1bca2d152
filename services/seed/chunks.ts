// Chunks: a seed job's tile range cut into small pieces that several instances can share (one
// pg-boss job holds a few). A chunk is plain JSON ({ z, rect }), so any instance renders it from the
// request alone, and small (one metatile row band, up to `width` metatiles along x), so a chunk
// lost with its instance is redone cheaply. Chunks are handed out lazily from a cursor of three
// integers: a world seed to zoom 20 has ~10^8 metatiles, and its chunks are never all in memory.
// Chunk boundaries follow the metatile grid (multiples of 4, or the range's own edges), so the
// metatiles of the chunks, in chunk order, are exactly those of tile-range.ts metaTileIterator
// (or area.ts areaMetaTileIterator) over the whole range, in the same order.
import { areaMetaTileIterator, areaWalker, type Area } from './area.js'
import { rectArea, type Rect } from '../tilecache/grid-sets.js'
import { metaTileIterator, rectAt, type MetaTile, type TileRange } from '../tilecache/tile-range.js'

/** Metatile size (tiles per side), as everywhere in the seeder. */
const META = 4
/** Metatiles along x per chunk by default: 64 tiles, 16 renders. */
export const CHUNK_WIDTH = 16
/** An area seed skips empty bands; at most this many per call (a call may then return no chunk). */
const MAX_EMPTY_BANDS = 4096

export interface Chunk {
  z: number
  /** Tile indexes, inclusive: a sub-rectangle of the level's range rect within one metatile row. */
  rect: Rect
}

/**
 * Where the next chunk is: level, band (metatile row counted from the level's first) and column
 * (window of `width` metatiles counted from the level's first metatile column). JSON-safe.
 */
export interface ChunkCursor { z: number, band: number, col: number }

export interface ChunkOptions {
  /** Levels from the deepest up (a pyramid). */
  descending?: boolean
  /** Metatiles along x per chunk (default CHUNK_WIDTH); use the same value for every call. */
  width?: number
  /** An area seed: skip the chunks that hold none of its metatiles. */
  area?: Area
  /** Stop at the end of the first chunk's level (a pyramid hands out a level once the one below is done). */
  oneLevel?: boolean
}

/** The first level from `z` on (in the walk's direction) that has tiles. */
function levelFrom (range: TileRange, z: number, descending: boolean): ChunkCursor | null {
  for (; z >= range.zoomStart && z <= range.zoomStop; z += descending ? -1 : 1) {
    if (rectAt(range, z)) return { z, band: 0, col: 0 }
  }
  return null
}

export function firstCursor (range: TileRange, opts: { descending?: boolean } = {}): ChunkCursor | null {
  const d = opts.descending ?? false
  return levelFrom(range, d ? range.zoomStop : range.zoomStart, d)
}

/** The zoom level of the chunk the cursor points at. */
export function chunkLevel (cursor: ChunkCursor): number { return cursor.z }

/** A level's chunk grid: first metatile column and row, number of bands and of columns. */
function grid (r: Rect, width: number) {
  const mx0 = Math.floor(r[0] / META)
  const my0 = Math.floor(r[1] / META)
  return { mx0, my0, bands: Math.floor(r[3] / META) - my0 + 1, cols: Math.ceil((Math.floor(r[2] / META) - mx0 + 1) / width) }
}

/**
 * Up to `n` chunks from `cursor` on, and the cursor after them (null once the range is done). An
 * area seed (opts.area) may get fewer, even none, with a cursor still to follow.
 */
export function nextChunks (range: TileRange, cursor: ChunkCursor, n: number, opts: ChunkOptions = {}): { chunks: Chunk[], cursor: ChunkCursor | null } {
  const width = opts.width ?? CHUNK_WIDTH
  const descending = opts.descending ?? false
  const walker = opts.area ? areaWalker(opts.area, range.subset.gridSet) : undefined
  const chunks: Chunk[] = []
  let c: ChunkCursor | null = { z: cursor.z, band: cursor.band, col: cursor.col }
  let empty = 0
  let runs: { z: number, band: number, cols: Array<[number, number]> } | undefined
  // The position after (z, band, col), settled on a real one: null means done, and chunkLevel tells the next level.
  const after = (z: number, band: number, col: number, g: { bands: number, cols: number }): ChunkCursor | null => {
    if (col < g.cols) return { z, band, col }
    if (band + 1 < g.bands) return { z, band: band + 1, col: 0 }
    return levelFrom(range, z + (descending ? -1 : 1), descending)
  }
  while (c && chunks.length < n) {
    if (opts.oneLevel && chunks.length > 0 && c.z !== chunks[0].z) break
    const r = rectAt(range, c.z)
    const g = r && grid(r, width)
    if (!r || !g || c.band >= g.bands) { c = levelFrom(range, c.z + (descending ? -1 : 1), descending); continue }
    const my = (g.my0 + c.band) * META
    if (walker) {
      // The windows of this band that hold a metatile of the area (walker bands by increasing row).
      if (runs?.z !== c.z || runs.band !== c.band) {
        runs = { z: c.z, band: c.band, cols: walker.band(c.z, my, r).map(([a, b]) => [Math.floor((a / META - g.mx0) / width), Math.floor((b / META - g.mx0) / width)]) }
      }
      const col: number = c.col
      const hit = runs.cols.find(([, b]) => b >= col)
      if (!hit) {
        c = after(c.z, c.band, g.cols, g)
        if (++empty >= MAX_EMPTY_BANDS) break
        continue
      }
      c.col = Math.max(hit[0], c.col)
    }
    const mx = (g.mx0 + c.col * width) * META
    chunks.push({ z: c.z, rect: [Math.max(r[0], mx), Math.max(r[1], my), Math.min(r[2], mx + width * META - 1), Math.min(r[3], my + META - 1)] })
    c = after(c.z, c.band, c.col + 1, g)
  }
  return { chunks, cursor: c }
}

/** The chunk's metatiles, as the whole range's iterator gives them (render clipped to the coverage, wanted to the range). */
export function * chunkMetaTiles (range: TileRange, chunk: Chunk, area?: Area): Generator<MetaTile> {
  const sub: TileRange = { subset: range.subset, zoomStart: chunk.z, zoomStop: chunk.z, rects: [chunk.rect] }
  const it = area ? areaMetaTileIterator(sub, area, META, META) : metaTileIterator(sub, META, META)
  for (let mt = it.next(); mt; mt = it.next()) yield mt
}

/** The tiles the chunk counts as progress: all of its rect, or for an area those of its metatiles touching the area. */
export function countChunkTiles (range: TileRange, chunk: Chunk, area?: Area): number {
  if (!area) return rectArea(chunk.rect)
  let n = 0
  for (const mt of chunkMetaTiles(range, chunk, area)) n += rectArea(mt.wanted)
  return n
}
