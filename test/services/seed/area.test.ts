// The area sweep (services/seed/area.ts) against brute force: for random polygons (concave, with
// holes, several parts) in both grid sets, the metatiles it walks, the tiles it counts and the
// tiles the truncate filter keeps are exactly those whose box a plain geometric test finds
// touching the shape.
import t from 'tap'
import fc from 'fast-check'
import { GRID_SETS, closestRectangle, gridSubset, intersectRect, rectBounds, type BBox, type GridSet, type Rect } from '../../../services/tilecache/grid-sets.js'
import { tileRange } from '../../../services/tilecache/tile-range.js'
import { areaMetaTileIterator, areaTileFilter, countAreaTiles, countAreaTilesAsync, parseArea } from '../../../services/seed/area.js'
import { boxMeets, type Ring } from '../../fixtures/seed/area-brute.js'


/** A star-shaped ring around (cx, cy): concave as soon as the radii differ. */
function star (cx: number, cy: number, radii: number[], turn: number): Ring {
  const pts: Ring = radii.map((r, i) => {
    const a = turn + (2 * Math.PI * i) / radii.length
    return [cx + r * Math.cos(a), cy + r * Math.sin(a)]
  })
  return [...pts, pts[0]]
}

const LAYER: BBox = [-20, -10, 20, 30]
const part = fc.record({
  cx: fc.double({ min: -15, max: 15, noNaN: true }),
  cy: fc.double({ min: -5, max: 25, noNaN: true }),
  radii: fc.array(fc.double({ min: 0.3, max: 9, noNaN: true }), { minLength: 3, maxLength: 12 }),
  turn: fc.double({ min: 0, max: 6.28, noNaN: true }),
  hole: fc.boolean()
})

function check (gs: GridSet, polygons: Ring[][], zooms: [number, number]): string | undefined {
  const geometry = { type: 'MultiPolygon', coordinates: polygons }
  const area = parseArea(geometry, gs)
  const subset = gridSubset(gs, LAYER)
  const e = subset.extent
  const bounds: BBox = [Math.max(e[0], area.bbox[0]), Math.max(e[1], area.bbox[1]), Math.min(e[2], area.bbox[2]), Math.min(e[3], area.bbox[3])]
  if (!(bounds[0] < bounds[2] && bounds[1] < bounds[3])) return
  const range = tileRange(subset, zooms[0], zooms[1], bounds)
  const rings = area.rings
  const expected: string[] = []
  let wanted = 0n
  const tiles = new Set<string>()
  for (let z = zooms[0]; z <= zooms[1]; z++) {
    const r = intersectRect(subset.coverage(z)!, closestRectangle(gs, z, bounds))
    if (!r) continue
    for (let my = r[1] - (r[1] % 4); my <= r[3]; my += 4) {
      for (let mx = r[0] - (r[0] % 4); mx <= r[2]; mx += 4) {
        const w = intersectRect([mx, my, mx + 3, my + 3] as Rect, r)
        if (!w || !boxMeets(rings, rectBounds(gs, z, w))) continue
        expected.push(`${z}/${mx}/${my}`)
        wanted += BigInt((w[2] - w[0] + 1) * (w[3] - w[1] + 1))
        for (let x = w[0]; x <= w[2]; x++) for (let y = w[1]; y <= w[3]; y++) tiles.add(`${z}/${x}/${y}`)
      }
    }
  }
  const walked: string[] = []
  const it = areaMetaTileIterator(range, area)
  for (let mt = it.next(); mt; mt = it.next()) walked.push(`${mt.z}/${mt.wanted[0] - (mt.wanted[0] % 4)}/${mt.wanted[1] - (mt.wanted[1] % 4)}`)
  if (walked.join() !== expected.join()) return `walked ${walked.length} metatiles, expected ${expected.length}: ${walked.filter((x) => !expected.includes(x)).slice(0, 3)} / ${expected.filter((x) => !walked.includes(x)).slice(0, 3)}`
  const counted = countAreaTiles(range, area)
  if (counted !== wanted) return `counted ${counted}, expected ${wanted}`
  const keep = areaTileFilter(range, area)
  for (let z = zooms[0]; z <= zooms[1]; z++) {
    const r = range.rects[z - zooms[0]]
    if (!r) continue
    for (let x = r[0]; x <= r[2]; x++) for (let y = r[1]; y <= r[3]; y++) if (keep(z, x, y) !== tiles.has(`${z}/${x}/${y}`)) return `filter disagrees at ${z}/${x}/${y}`
  }
}

for (const id of ['EPSG:4326', 'EPSG:900913'] as const) {
  t.test(`${id}: the sweep walks, counts and filters exactly the metatiles a brute-force test finds`, async (t) => {
    await fc.assert(fc.property(fc.array(part, { minLength: 1, maxLength: 3 }), (parts) => {
      const polygons = parts.map((p) => {
        const outer = star(p.cx, p.cy, p.radii, p.turn)
        // A hole: the same star, shrunk to a third (inside the outer ring for a star-shaped ring).
        return p.hole ? [outer, star(p.cx, p.cy, p.radii.map((r) => r / 3), p.turn)] : [outer]
      })
      const problem = check(GRID_SETS[id], polygons, [0, 9])
      if (problem) throw new Error(problem)
    }), { seed: 20261124, numRuns: 60 })
    t.pass('60 random shapes')
  })
}

t.test('the asynchronous count equals the synchronous one', async (t) => {
  const gs = GRID_SETS['EPSG:900913']
  const area = parseArea({ type: 'Polygon', coordinates: [star(2, 10, [5, 2, 7, 3, 6], 0.4)] }, gs)
  const range = tileRange(gridSubset(gs, LAYER), 0, 14, area.bbox)
  t.equal(await countAreaTilesAsync(range, area, 7), countAreaTiles(range, area))
})
