// Chunks (services/seed/chunks.ts) against the whole-range iterators: for plain ranges of both grid
// sets (bounds off the metatile grid, a single tile, levels without tiles, ascending and as a
// pyramid) and for area seeds, the chunks' metatiles in chunk order are exactly the iterator's,
// their counts add up to the range's, they never overlap and keep to the metatile grid, and the
// cursor survives JSON between calls. A world range to zoom 20 hands out its first chunks touching
// only the levels they come from.
import t, { type Test } from 'tap'
import { GRID_SETS, gridSubset, intersectRect, rectArea, type BBox } from '../../../services/tilecache/grid-sets.js'
import { countTiles, metaTileIterator, rectAt, tileRange, type MetaTile, type TileRange } from '../../../services/tilecache/tile-range.js'
import { areaMetaTileIterator, countAreaTiles, parseArea, type Area } from '../../../services/seed/area.js'
import { chunkLevel, chunkMetaTiles, countChunkTiles, firstCursor, nextChunks, type Chunk, type ChunkOptions } from '../../../services/seed/chunks.js'

const g4326 = GRID_SETS['EPSG:4326']
const g900913 = GRID_SETS['EPSG:900913']

/** All chunks, `n` per call, the cursor going through JSON between calls; also each call's levels. */
function allChunks (range: TileRange, n: number, opts: ChunkOptions) {
  const chunks: Chunk[] = []
  const calls: Array<{ levels: number[], next: number | undefined }> = []
  let cursor = firstCursor(range, opts)
  while (cursor) {
    const got = nextChunks(range, JSON.parse(JSON.stringify(cursor)), n, opts)
    if (got.chunks.length > n) throw new Error(`${got.chunks.length} chunks for ${n}`)
    chunks.push(...got.chunks)
    calls.push({ levels: [...new Set(got.chunks.map((c) => c.z))], next: got.cursor ? chunkLevel(got.cursor) : undefined })
    cursor = got.cursor
  }
  return { chunks, calls }
}

function drain (it: { next (): MetaTile | undefined }): MetaTile[] {
  const out: MetaTile[] = []
  for (let mt = it.next(); mt; mt = it.next()) out.push(mt)
  return out
}

/** Chunk shape: inside the level's rect, one metatile row, at most `width` metatiles, edges on the grid or the rect's. */
function shapeProblem (range: TileRange, c: Chunk, width: number): string | undefined {
  const r = rectAt(range, c.z)
  const w = c.rect
  if (!r || intersectRect(w, r)?.join() !== w.join()) return `chunk ${c.z}:${w} outside ${r}`
  if (w[0] !== r[0] && w[0] % 4 !== 0) return `x start ${w[0]}`
  if (w[1] !== r[1] && w[1] % 4 !== 0) return `y start ${w[1]}`
  if (w[2] !== r[2] && (w[2] + 1) % 4 !== 0) return `x end ${w[2]}`
  if (w[3] !== r[3] && (w[3] + 1) % 4 !== 0) return `y end ${w[3]}`
  if (Math.floor(w[1] / 4) !== Math.floor(w[3] / 4)) return `rows ${w[1]}..${w[3]} span two bands`
  if (Math.floor(w[2] / 4) - Math.floor(w[0] / 4) + 1 > width) return `wider than ${width} metatiles`
}

function overlaps (chunks: Chunk[]): number {
  let n = 0
  for (let i = 0; i < chunks.length; i++) {
    for (let j = i + 1; j < chunks.length; j++) if (chunks[i].z === chunks[j].z && intersectRect(chunks[i].rect, chunks[j].rect)) n++
  }
  return n
}

function checkRange (t: Test, name: string, range: TileRange, area?: Area) {
  for (const descending of area ? [false] : [false, true]) {
    const whole = drain(area ? areaMetaTileIterator(range, area) : metaTileIterator(range, 4, 4, descending))
    const total = area ? countAreaTiles(range, area) : countTiles(range)
    for (const width of [1, 3, 16]) {
      for (const n of [1, 7, 1000]) {
        const opts: ChunkOptions = { descending, width, area }
        const { chunks, calls } = allChunks(range, n, opts)
        const label = `${name} ${descending ? 'descending' : 'ascending'} width ${width}, ${n} per call`
        t.same(chunks.flatMap((c) => [...chunkMetaTiles(range, c, area)]), whole, `${label}: the same metatiles in the same order`)
        t.equal(chunks.reduce((s, c) => s + BigInt(countChunkTiles(range, c, area)), 0n), total, `${label}: counts add up`)
        t.equal(chunks.map((c) => shapeProblem(range, c, width)).find((p) => p), undefined, `${label}: chunks on the metatile grid`)
        t.equal(overlaps(chunks), 0, `${label}: no overlap`)
        if (area) t.ok(chunks.every((c) => countChunkTiles(range, c, area) > 0), `${label}: no empty chunk`)
        else {
          // Every tile of the range is in a chunk; levels come in the walk's order.
          t.equal(chunks.reduce((s, c) => s + BigInt(rectArea(c.rect)), 0n), total)
          const zs = chunks.map((c) => c.z)
          t.same(zs, [...zs].sort((a, b) => descending ? b - a : a - b), `${label}: level order`)
          // Each call's cursor names the level of the chunk the next call starts with.
          for (let i = 0; i + 1 < calls.length; i++) t.equal(calls[i].next, calls[i + 1].levels[0])
        }
      }
    }
    // One call for everything gives the same chunks as many small calls.
    const one = nextChunks(range, firstCursor(range, { descending })!, Infinity, { descending, area })
    t.equal(one.cursor, null)
    t.same(one.chunks, allChunks(range, 5, { descending, area }).chunks, `${name}: one call = many calls`)
  }
}

t.test('EPSG:4326 world, zoom 0-5', async (t) => {
  checkRange(t, '4326 world', tileRange(gridSubset(g4326, undefined), 0, 5))
})

t.test('EPSG:4326 layer and request bounds off the metatile grid, zoom 2-8', async (t) => {
  const range = tileRange(gridSubset(g4326, [-61.3, -33.7, 47.9, 58.2]), 2, 8, [-40.17, -21.3, 35.55, 49.9])
  t.ok(range.rects.every((r) => r !== undefined))
  t.ok(range.rects.some((r) => r![0] % 4 !== 0 && r![1] % 4 !== 0 && (r![2] + 1) % 4 !== 0 && (r![3] + 1) % 4 !== 0), 'some level has no edge on the grid')
  checkRange(t, '4326 bounded', range)
})

t.test('EPSG:900913 layer subset, zoom 0-9', async (t) => {
  checkRange(t, '900913 subset', tileRange(gridSubset(g900913, [-20.3, -10.7, 20.1, 30.9]), 0, 9))
})

t.test('a single tile', async (t) => {
  const range = tileRange(gridSubset(g900913, undefined), 7, 7, [1000, 1000, 2000, 2000])
  t.same(range.rects, [[64, 64, 64, 64]])
  checkRange(t, 'single tile', range)
  const { chunks } = allChunks(range, 10, {})
  t.same(chunks, [{ z: 7, rect: [64, 64, 64, 64] }])
})

t.test('zoom ranges with levels without tiles (first, middle and last)', async (t) => {
  const full = tileRange(gridSubset(g4326, [3.3, 40.2, 25.7, 52.1]), 3, 9)
  const holes: TileRange = { ...full, rects: full.rects.map((r, i) => [0, 3, 6].includes(i) ? undefined : r) }
  checkRange(t, 'holes', holes)
  const none: TileRange = { ...full, rects: full.rects.map(() => undefined) }
  t.equal(firstCursor(none), null)
  t.equal(firstCursor(none, { descending: true }), null)
  // Beyond the grid set's last level the coverage is empty: EPSG:4326 ends at zoom 21.
  const beyond = tileRange(gridSubset(g4326, [10, 10, 10.001, 10.001]), 19, 23)
  t.same(beyond.rects.slice(3), [undefined, undefined])
  checkRange(t, 'beyond the last level', beyond)
})

t.test('oneLevel stops a call at the end of a level: a pyramid hands out a level once the one below is done', async (t) => {
  const range = tileRange(gridSubset(g900913, [-20.3, -10.7, 20.1, 30.9]), 2, 8)
  for (const descending of [false, true]) {
    const { chunks, calls } = allChunks(range, 50, { descending, oneLevel: true })
    t.ok(calls.every((c) => c.levels.length === 1))
    // Each call's cursor names the level of the chunk the next call starts with.
    for (let i = 0; i + 1 < calls.length; i++) t.equal(calls[i].next, calls[i + 1].levels[0])
    t.equal(calls[calls.length - 1].next, undefined)
    t.same(chunks, allChunks(range, 50, { descending }).chunks)
  }
})

const twoIslands = {
  type: 'MultiPolygon',
  coordinates: [
    [[[-15.2, -8.1], [-9.7, -7.3], [-11.4, -3.3], [-13.1, -5.9], [-16.4, -2.2], [-15.2, -8.1]]],
    [[[6.3, 18.4], [14.9, 17.6], [15.7, 26.2], [6.3, 18.4]], [[9.5, 19.2], [13.1, 19.3], [13.4, 22.1], [9.5, 19.2]]]
  ]
}

for (const gs of [g4326, g900913]) {
  t.test(`${gs.id} area seed: two concave islands far apart, one with a hole, zoom 0-10`, async (t) => {
    const area = parseArea(twoIslands, gs)
    const subset = gridSubset(gs, [-20, -10, 20, 30])
    const e = subset.extent
    // Bounds as seed-request.ts makes them: the area's box within the layer's extent.
    const bounds: BBox = [Math.max(e[0], area.bbox[0]), Math.max(e[1], area.bbox[1]), Math.min(e[2], area.bbox[2]), Math.min(e[3], area.bbox[3])]
    const range = tileRange(subset, 0, 10, bounds)
    checkRange(t, `${gs.id} area`, range, area)
    // Without the area option every chunk of the range comes out, the empty ones included.
    const { chunks } = allChunks(range, 100, {})
    t.same(chunks.flatMap((c) => [...chunkMetaTiles(range, c, area)]), drain(areaMetaTileIterator(range, area)))
    t.ok(chunks.some((c) => countChunkTiles(range, c, area) === 0), 'the gap between the islands has empty chunks')
  })
}

t.test('a world range to zoom 20 hands out its first chunks touching only their levels', async (t) => {
  for (const [gs, descending, firstLevels] of [[g4326, false, [0, 7]], [g900913, false, [0, 8]], [g4326, true, [20, 20]], [g900913, true, [20, 20]]] as const) {
    const real = tileRange(gridSubset(gs, undefined), 0, 20)
    const touched = new Set<number>()
    // The range's levels, recording which ones are read.
    const rects = new Proxy(real.rects, {
      get (target, p, recv) {
        if (typeof p === 'string' && /^\d+$/.test(p)) touched.add(Number(p))
        return Reflect.get(target, p, recv)
      }
    })
    const range: TileRange = { ...real, rects }
    const got = nextChunks(range, firstCursor(range, { descending })!, 100, { descending })
    t.equal(got.chunks.length, 100)
    t.ok([...touched].every((z) => z >= firstLevels[0] && z <= firstLevels[1]), `${gs.id} ${descending ? 'descending' : 'ascending'}: read levels ${[...touched].sort((a, b) => a - b)}`)
    t.equal(got.chunks[0].z, descending ? 20 : 0)
    t.equal(got.cursor!.z, got.chunks[99].z)
    // Resuming from the JSON of the cursor goes on where the first call stopped.
    const more = nextChunks(range, JSON.parse(JSON.stringify(got.cursor)), 3, { descending })
    t.same([...got.chunks, ...more.chunks], nextChunks(real, firstCursor(real, { descending })!, 103, { descending }).chunks)
    const whole = metaTileIterator(real, 4, 4, descending)
    const first = [...got.chunks, ...more.chunks].flatMap((c) => [...chunkMetaTiles(real, c)])
    t.same(first, Array.from({ length: first.length }, () => whole.next()), 'the same metatiles as the whole iterator')
  }
})

t.test('an area seed skips a long empty stretch over several calls, each bounded', async (t) => {
  // Two specks 28 degrees apart: at zoom 17 about 5,000 empty bands lie between them.
  const speck = (x: number, y: number) => [[[x, y], [x + 0.002, y], [x + 0.002, y + 0.002], [x, y]]]
  const area = parseArea({ type: 'MultiPolygon', coordinates: [speck(1.0005, -8.0005), speck(1.0005, 19.9995)] }, g4326)
  const range = tileRange(gridSubset(g4326, undefined), 17, 17, area.bbox)
  const { chunks, calls } = allChunks(range, 1, { area })
  t.ok(calls.some((c) => c.levels.length === 0 && c.next !== undefined), 'a call came back with no chunk and a cursor to follow')
  t.same(chunks.flatMap((c) => [...chunkMetaTiles(range, c, area)]), drain(areaMetaTileIterator(range, area)))
  t.equal(chunks.reduce((s, c) => s + BigInt(countChunkTiles(range, c, area)), 0n), countAreaTiles(range, area))
  t.ok(chunks.length >= 2 && chunks.length <= 8, `${chunks.length} chunks`)
})
